"""Load the shipped JSON Schemas into one ``referencing`` registry and validate against them.

Every schema lives in ``schemas/`` (the ``eventproof.schemas`` package data), is draft 2020-12 and
has an ``$id`` under :data:`BASE_URI`; relative ``$ref`` between them resolve through the registry.
``schemas/examples/`` holds valid and invalid instances for the tests and is not loaded here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

#: Every shipped schema's ``$id`` is this prefix plus its file name.
BASE_URI = "https://eventproof.dev/schemas/v1/"


def _schema_files() -> Iterator[Traversable]:
    for entry in files("eventproof.schemas").iterdir():
        if entry.name.endswith(".json") and entry.is_file():
            yield entry


@cache
def all_schemas() -> dict[str, dict[str, Any]]:
    """Every shipped schema by file name (``session-event.json`` …)."""
    return {entry.name: json.loads(entry.read_text("utf-8")) for entry in _schema_files()}


@cache
def registry() -> Registry[Any]:
    """A registry holding every shipped schema under its ``$id``."""
    resources = [
        (schema["$id"], Resource.from_contents(schema, default_specification=DRAFT202012))
        for schema in all_schemas().values()
    ]
    return Registry().with_resources(resources).crawl()


@cache
def validator_for(name: str) -> Draft202012Validator:
    """A validator for the schema ``name``: a file name, or a file name plus ``#/$defs/...``."""
    uri = name if name.startswith(BASE_URI) else BASE_URI + name
    return Draft202012Validator({"$ref": uri}, registry=registry())


@dataclass(frozen=True)
class SchemaIssue:
    """One way an instance breaks a schema, located precisely."""

    #: Where in the instance, as a JSONPath (``$.events[2].data``).
    path: str
    #: The validator's explanation.
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def schema_issues(instance: Any, name: str) -> list[SchemaIssue]:
    """Every way ``instance`` breaks schema ``name``, the most relevant first."""
    from jsonschema.exceptions import relevance

    errors = sorted(validator_for(name).iter_errors(instance), key=relevance)
    return [SchemaIssue(path=error.json_path, message=error.message) for error in errors]
