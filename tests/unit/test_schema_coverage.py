"""Generators as wide as the schemas: within the quick budget, on every seed, the inputs an
operation's families draw meet every shape its input schema (schemas/op-*.json and what they
reference) allows.

The walk follows each drawn input through its schema and records, at every place of the schema
the input reaches, what it met: each optional member present and absent, a member the schema
does not name where the object is open, each enum value, each type and each branch of an
``anyOf``/``oneOf``, empty and long arrays, and integers at 0, negative where allowed, at and
beyond 2^53 - 1 where unbounded, and written as integral doubles (``1.0``). Any shape not met is
a gap, and a gap fails the test.

Most shapes are met by construction, not by luck: a selection log's tour (every draw of
``tour_logs`` meets every shape of a session log on its own) and the wire profile's list of
every agent-event shape (each tried once by a search of as many examples).
"""

from __future__ import annotations

import functools
import json
from collections import defaultdict
from typing import Any
from urllib.parse import urljoin

import pytest
from eventproof.conformance._json import holds_lone_surrogate
from eventproof.conformance._model import Capabilities
from eventproof.conformance._operations import OPERATIONS, operation
from eventproof.conformance._schemas import BASE_URI, registry
from eventproof.conformance.selection.strategies.tour import tour_logs
from eventproof.conformance.wire.strategies.shapes import shape_count
from helpers import quick_inputs
from hypothesis import HealthCheck, Phase, given, settings
from jsonschema import Draft202012Validator

MAX_SAFE_INTEGER = 2**53 - 1
#: An array this long or longer is "long".
LONG = 5
CAPABILITIES = Capabilities()

@functools.cache
def _schema_at(uri: str, pointer: str) -> Any:
    return registry().resolver().lookup(f"{uri}#{pointer}").contents


@functools.cache
def _validator(uri: str) -> Draft202012Validator:
    return Draft202012Validator({"$ref": uri}, registry=registry())


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


class Walk:
    """What the inputs met (``seen``) and could have met (``possible``) at each schema place."""

    def __init__(self) -> None:
        self.possible: dict[str, set[str]] = defaultdict(set)
        self.seen: dict[str, set[str]] = defaultdict(set)

    def _fact(self, place: str, fact: str, met: bool) -> None:
        self.possible[place].add(fact)
        if met:
            self.seen[place].add(fact)

    def _applying(self, value: Any, uri: str, pointer: str) -> list[tuple[str, str]]:
        """Every subschema that applies to ``value`` at ``uri#pointer``: through ``$ref``,
        ``allOf``, the valid branches of ``anyOf``/``oneOf`` and ``if``'s ``then`` or ``else``."""
        schema = _schema_at(uri, pointer)
        found = [(uri, pointer)]
        if not isinstance(schema, dict):
            return found
        if "$ref" in schema:
            base, _, fragment = urljoin(uri, schema["$ref"]).partition("#")
            found += self._applying(value, base, fragment)
        for index, _ in enumerate(schema.get("allOf", ())):
            found += self._applying(value, uri, f"{pointer}/allOf/{index}")
        for keyword in ("anyOf", "oneOf"):
            for index, _ in enumerate(schema.get(keyword, ())):
                branch = f"{pointer}/{keyword}/{index}"
                if _validator(f"{uri}#{branch}").is_valid(value):
                    found += self._applying(value, uri, branch)
        if "if" in schema:
            held = _validator(f"{uri}#{pointer}/if").is_valid(value)
            if held and "then" in schema:
                found += self._applying(value, uri, f"{pointer}/then")
            if not held and "else" in schema:
                found += self._applying(value, uri, f"{pointer}/else")
        return found

    def visit(self, value: Any, uri: str, pointer: str = "") -> None:
        """Record what ``value`` meets at the schema ``uri#pointer`` and every subschema that
        applies with it (an object's members, required ones and openness are those of them
        all: an envelope's required members are required of every event type)."""
        applying = self._applying(value, uri, pointer)
        schemas = [(u, p, _schema_at(u, p)) for u, p in applying]
        schemas = [(u, p, schema) for u, p, schema in schemas if isinstance(schema, dict)]
        named = {name for _, _, schema in schemas for name in schema.get("properties", {})}
        required = {name for _, _, schema in schemas for name in schema.get("required", ())}
        # A member a schema forbids here (``not`` of its being required) is never drawn: a
        # continuable settle carries no ``cancelled``.
        required |= {name for _, _, schema in schemas for name in _forbidden(schema)}
        closed = any(schema.get("additionalProperties") is False
                     or schema.get("unevaluatedProperties") is False for _, _, schema in schemas)
        for u, p, schema in schemas:
            self._one(value, schema, u, p, named, required, closed)

    def _one(self, value: Any, schema: dict[str, Any], uri: str, pointer: str,
             named: set[str], required: set[str], closed: bool) -> None:
        place = f"{uri.removeprefix(BASE_URI).lstrip('/')}#{pointer}"
        for keyword in ("anyOf", "oneOf"):
            for index, _ in enumerate(schema.get(keyword, ())):
                met = _validator(f"{uri}#{pointer}/{keyword}/{index}").is_valid(value)
                self._fact(place, f"{keyword} branch {index}", met)
        if "enum" in schema:
            for option in schema["enum"]:
                self._fact(place, f"enum {option!r}", value == option)
        types = schema.get("type")
        if isinstance(types, list) and len(types) > 1:
            for kind in types:
                self._fact(place, f"type {kind}", _json_type(value) == kind
                           or (kind == "number" and _json_type(value) == "integer"))
        if isinstance(value, dict):
            self._object(value, schema, uri, pointer, place, named, required, closed)
        elif isinstance(value, list):
            self._array(value, schema, uri, pointer, place)
        elif "integer" in (types if isinstance(types, list) else [types]) and isinstance(
                value, int | float) and not isinstance(value, bool):
            self._integer(value, schema, place)

    def _object(self, value: dict[str, Any], schema: dict[str, Any], uri: str, pointer: str,
                place: str, named: set[str], required: set[str], closed: bool) -> None:
        properties = schema.get("properties", {})
        for name in properties:
            if name not in required:
                self._fact(place, f"{name} present", name in value)
                self._fact(place, f"{name} absent", name not in value)
            if name in value:
                self.visit(value[name], uri, f"{pointer}/properties/{_escape(name)}")
        if properties and not closed:
            self._fact(place, "a member it does not name", any(
                name not in named for name in value))
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            for name, item in value.items():
                if name not in properties:
                    self.visit(item, uri, f"{pointer}/additionalProperties")

    def _array(self, value: list[Any], schema: dict[str, Any], uri: str, pointer: str,
               place: str) -> None:
        if schema.get("minItems", 0) == 0 and ("items" in schema or schema.get("type") == "array"):
            self._fact(place, "empty", not value)
        if schema.get("maxItems", LONG) >= LONG and "items" in schema:
            self._fact(place, f"{LONG} items or more", len(value) >= LONG)
        if isinstance(schema.get("items"), dict):
            for item in value:
                self.visit(item, uri, f"{pointer}/items")

    def _integer(self, value: float, schema: dict[str, Any], place: str) -> None:
        low = schema.get("minimum")
        high = schema.get("maximum")
        if low is None or low <= 0:
            self._fact(place, "0", value == 0)
        if low is None or low < 0:
            self._fact(place, "negative", value < 0)
        if high is None:
            self._fact(place, "2^53 - 1", value == MAX_SAFE_INTEGER)
            self._fact(place, "beyond 2^53 - 1", value > MAX_SAFE_INTEGER)
        self._fact(place, "an integral double", isinstance(value, float))

    def gaps(self) -> set[tuple[str, str]]:
        return {(place, fact) for place, facts in self.possible.items()
                for fact in facts - self.seen[place]}


def _forbidden(schema: dict[str, Any]) -> set[str]:
    """The members ``schema`` forbids with ``not`` (``{"not": {"required": [...]}}``, or an
    ``anyOf`` of such): whether they are present is no shape to draw."""
    banned = schema.get("not")
    if not isinstance(banned, dict):
        return set()
    branches = banned.get("anyOf", [banned])
    return {name for branch in branches if isinstance(branch, dict)
            for name in branch.get("required", ())}


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


@functools.cache
def walk_of(op_name: str) -> Walk:
    return _walk(op_name, quick_inputs(op_name))


def _walk(op_name: str, inputs: Any) -> Walk:
    op = next(op for op in OPERATIONS if op.name == op_name)
    walk = Walk()
    for op_input in inputs:
        walk.visit(op_input, urljoin(BASE_URI, op.input_schema), "/$defs/input")
    return walk


def _gaps_report(op_name: str, gaps: set[tuple[str, str]]) -> str:
    return f"{op_name}: the quick search never draws these shapes:\n" + "\n".join(
        f"  {place}: {fact}" for place, fact in sorted(gaps))


@pytest.mark.parametrize("op_name", [op.name for op in OPERATIONS])
def test_a_quick_search_draws_every_shape_the_input_schema_allows(op_name: str) -> None:
    gaps = walk_of(op_name).gaps()
    assert not gaps, _gaps_report(op_name, gaps)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1, 9))
@pytest.mark.parametrize("op_name", [op.name for op in OPERATIONS])
def test_every_seed_draws_every_shape(op_name: str, seed: int) -> None:
    gaps = _walk(op_name, quick_inputs(op_name, seed)).gaps()
    assert not gaps, f"seed {seed}: " + _gaps_report(op_name, gaps)


@settings(max_examples=6, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(tour_logs())
def test_every_tour_meets_every_shape_of_a_session_log(log: list[Any]) -> None:
    """One tour alone, whatever its draw, meets every shape of a session log but the empty
    log: the family that draws tours needs no luck and no second example."""
    gaps = _walk("select", [{"events": log}]).gaps()
    assert gaps == {("session-event.json#/$defs/log", "empty")}, sorted(gaps)


@pytest.mark.parametrize("op_name", ["classify", "project"])
def test_the_wire_shapes_meet_every_shape_of_an_agent_event(op_name: str) -> None:
    """The wire profile's shapes, each once, meet every shape of their operation's input, and
    the quick search of their family, on every seed, tries every one of them."""
    family = next(family for family in operation(op_name).families(CAPABILITIES)
                  if family.name == "every-shape")
    assert family.examples == shape_count()
    shapes = _shape_inputs(op_name)
    assert len({json.dumps(shape, sort_keys=True) for shape in shapes}) == shape_count()
    gaps = _walk(op_name, shapes).gaps()
    assert not gaps, _gaps_report(op_name, gaps)
    for seed in (None, 1):
        drawn = {json.dumps(op_input, sort_keys=True) for op_input in quick_inputs(op_name, seed)}
        missed = [shape for shape in shapes if json.dumps(shape, sort_keys=True) not in drawn]
        assert not missed, f"seed {seed}: a quick search never tried {missed[:1]}"


def _shape_inputs(op_name: str) -> list[Any]:
    """Every input the ``every-shape`` family of ``op_name`` can draw."""
    return _family_inputs(op_name, CAPABILITIES, 4 * shape_count())


def _family_inputs(op_name: str, capabilities: Capabilities, examples: int) -> list[Any]:
    """The distinct inputs a derandomized search of ``examples`` draws from the
    ``every-shape`` family of ``op_name`` under ``capabilities``."""
    family = next(family for family in operation(op_name).families(capabilities)
                  if family.name == "every-shape")
    found: dict[str, Any] = {}

    @settings(max_examples=examples, database=None, deadline=None, derandomize=True,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(family.strategy)
    def collect(op_input: Any) -> None:
        found[json.dumps(op_input, sort_keys=True)] = op_input

    collect()
    return list(found.values())


def _holds_unsafe_integer(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_holds_unsafe_integer(item) for item in value.values())
    if isinstance(value, list):
        return any(_holds_unsafe_integer(item) for item in value)
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_SAFE_INTEGER


#: Each declared limit, what an input it concerns holds, and what the limit leaves unmet.
LIMITS = {
    "loneSurrogates": (Capabilities(lone_surrogates=False), holds_lone_surrogate, set()),
    "numbers": (Capabilities(numbers="double"), _holds_unsafe_integer, {"beyond 2^53 - 1"}),
}


@pytest.mark.parametrize("limit", sorted(LIMITS))
@pytest.mark.parametrize("op_name", ["select", "fold", "settle", "classify", "project"])
def test_every_shape_reaches_an_implementation_that_declares_a_limit(
        op_name: str, limit: str) -> None:
    """An implementation that declares a limit (``loneSurrogates: false``, ``numbers:
    "double"``) is sent every input as it reads it (the engine maps each one, never sets one
    aside): its every-shape inputs hold nothing the limit concerns, and meet every shape the
    same inputs meet for an implementation without it, but the integer literals a double reader
    cannot see."""
    declared_capabilities, concerned, unmet = LIMITS[limit]
    examples = next(family.examples for family in operation(op_name).families(
        declared_capabilities) if family.name == "every-shape")
    assert examples is not None
    taken = _family_inputs(op_name, CAPABILITIES, examples)
    declared = [declared_capabilities.reads(op_input)
                for op_input in _family_inputs(op_name, declared_capabilities, examples)]
    assert any(concerned(op_input) for op_input in taken)
    assert not any(concerned(op_input) for op_input in declared)
    gaps = _walk(op_name, declared).gaps() - _walk(op_name, taken).gaps()
    assert {shape for _place, shape in gaps} <= unmet
