"""Every shipped schema is a valid 2020-12 schema with its stable $id, and ships examples that
validate or fail exactly as labelled (the JSON-Schema-Test-Suite pattern)."""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

import pytest
from eventproof.conformance._schemas import BASE_URI, all_schemas, schema_issues
from jsonschema import Draft202012Validator

EXAMPLE_FILES = sorted(
    entry.name for entry in (files("eventproof.schemas") / "examples").iterdir()
    if entry.name.endswith(".json")
)


def _document(name: str) -> dict[str, Any]:
    text = (files("eventproof.schemas") / "examples" / name).read_text("utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


def _examples() -> list[Any]:
    params = []
    for name in EXAMPLE_FILES:
        for valid, key in ((True, "valid"), (False, "invalid")):
            for index, entry in enumerate(_document(name)[key]):
                target = name + entry.get("ref", "")
                params.append(pytest.param(target, valid, entry, id=f"{name}:{key}[{index}]"))
    return params


@pytest.mark.parametrize("name", sorted(all_schemas()))
def test_schema_is_valid_with_stable_id(name: str) -> None:
    """Each schema is a valid draft 2020-12 schema whose $id is the base URI plus its file name."""
    schema = all_schemas()[name]
    Draft202012Validator.check_schema(schema)
    assert schema["$id"] == BASE_URI + name


@pytest.mark.parametrize("name", sorted(all_schemas()))
def test_every_schema_has_an_examples_file(name: str) -> None:
    """No schema ships without examples that the tests run."""
    assert name in EXAMPLE_FILES


@pytest.mark.parametrize("name", EXAMPLE_FILES)
def test_examples_file_is_well_formed(name: str) -> None:
    """An examples file has several valid and several invalid entries; every invalid one says why
    and no valid one does; refs are fragments of the schema of the same name."""
    document = _document(name)
    assert name in all_schemas()
    assert set(document) == {"valid", "invalid"}
    assert len(document["valid"]) >= 3
    assert len(document["invalid"]) >= 3
    for entry in document["valid"] + document["invalid"]:
        assert set(entry) <= {"instance", "ref", "why"}
        assert "instance" in entry
        assert entry.get("ref", "#").startswith("#")
    assert all(entry.get("why") for entry in document["invalid"])
    assert not any("why" in entry for entry in document["valid"])


@pytest.mark.parametrize(("target", "valid", "entry"), _examples())
def test_example(target: str, valid: bool, entry: dict[str, Any]) -> None:
    """A valid example validates against its schema and an invalid one does not."""
    issues = schema_issues(entry["instance"], target)
    if valid:
        assert issues == [], f"{target}: {[str(issue) for issue in issues]}"
    else:
        assert issues, f"{target} accepted an instance that is invalid because {entry['why']}"
