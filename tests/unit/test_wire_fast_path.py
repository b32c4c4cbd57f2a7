"""The projection's fast paths write exactly what the clear path writes (spec/wire.md §4-6).

``project_event`` skips checks its arguments provably pass, takes the code-point shortcut past
an update provably over the bound, and lets orjson write values ``_plain_tree`` accepts;
``project_event_clear`` is wire.md read line by line, with the clear canonical encoder. Both
are run on every family of ``project`` input the conformance search draws (both fits, the
bound drawn with each event), and on events holding the Python values a JSON reader never
builds (enums, UUIDs, orjson fragments, subclasses, tuples, integers past 2^53, non-finite and
integral floats, array-index and non-string member names, lone surrogates): the two answer the
same line, or both refuse the input at the same place.
"""

from __future__ import annotations

import enum
import uuid
from collections import UserDict
from typing import Any

import orjson
import pytest
from eventproof.conformance._model import Capabilities
from eventproof.conformance.wire.strategies import project_families
from eventproof.reference import InvalidInput, _canonical, canonical_bytes, project_event
from eventproof.reference._canonical import canonical_bytes_clear
from eventproof.reference._wire import (
    FRAME_TYPES,
    _require_event,
    classify_event,
    project_event_clear,
)
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

FITS = ("halving", "maximal")


def outcome(call: Any, *args: Any, **kwargs: Any) -> tuple[str, Any]:
    """``("line", bytes)``, ``("none", None)`` or ``("refused", path)``."""
    try:
        line = call(*args, **kwargs)
    except InvalidInput as error:
        return "refused", error.path
    return ("none", None) if line is None else ("line", line)


def both(op_input: dict[str, Any], fit: str) -> None:
    arguments = {"include_live_events": op_input["includeLiveEvents"],
                 "max_bytes": op_input["maxBytes"], "fit_strategy": fit}
    fast = outcome(project_event, op_input["event"], **arguments)
    clear = outcome(project_event_clear, op_input["event"], **arguments)
    assert fast == clear


# -- every family of project input, both fits ------------------------------------------------

FAMILIES = project_families(Capabilities())


@pytest.mark.parametrize("family", FAMILIES, ids=[family.name for family in FAMILIES])
@pytest.mark.parametrize("fit", FITS)
@settings(max_examples=25)
@given(data=st.data())
def test_fast_projection_equals_the_clear_one(family: Any, fit: str, data: st.DataObject) -> None:
    """Per family, per fit: the same line, or the same refusal at the same place."""
    both(data.draw(family.strategy), fit)


# -- values no JSON reader builds --------------------------------------------------------------


class Colour(enum.Enum):
    RED = 1


class Level(enum.IntEnum):
    HIGH = 3


class Mode(enum.StrEnum):
    FAST = "fast"


class Ratio(float, enum.Enum):
    HALF = 0.5
    WHOLE = 1.0


class Text(str):
    pass


class Number(int):
    pass


class Real(float):
    pass


class Table(dict):  # type: ignore[type-arg]
    pass


class Items(list):  # type: ignore[type-arg]
    pass


EXOTIC_LEAVES = st.sampled_from([
    Colour.RED, Level.HIGH, Mode.FAST, Ratio.HALF, Ratio.WHOLE, Text("text"), Number(7),
    Real(2.5), Real(3.0), uuid.UUID(int=7), orjson.Fragment(b"[1]"), (1, "two"), (),
    2**53 - 1, 2**53, -(2**53), 2**64, -(2**63), float("nan"), float("inf"), -float("inf"),
    -0.0, 0.0, 1.0, 30.0, 1e15, 1e16, 1e21, 5e-324, 1.5e-6, 1e-6, 1e-5, 1.5e-7, 0.1 + 0.2,
    "\ud800", "a\udfffb", "\ud83d\ude00", True, False, None, b"bytes", {1, 2},
])
PLAIN_LEAVES = st.one_of(st.text(max_size=8), st.integers(-10, 10), st.floats(), st.booleans(),
                         st.none())
KEYS = st.one_of(st.sampled_from(["a", "type", "0", "12", "01", "4294967294", "4294967295", "",
                                  "-1", "1.5", "\ud800", "\udc00x", Text("k")]),
                 st.text(max_size=4))
ODD_KEYS = st.sampled_from([1, None, 2.5, (1,), Colour.RED, Level.HIGH])


def containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(KEYS, children, max_size=4),
        st.dictionaries(st.one_of(KEYS, ODD_KEYS), children, max_size=3),
        st.lists(children, max_size=3).map(tuple),
        st.dictionaries(KEYS, children, max_size=3).map(Table),
        st.dictionaries(KEYS, children, max_size=3).map(UserDict),
        st.lists(children, max_size=3).map(Items),
    )


VALUES = st.recursive(st.one_of(PLAIN_LEAVES, EXOTIC_LEAVES), containers, max_leaves=12)
TYPES = st.sampled_from(["tool_execution_end", "message_end", "turn_end", "agent_end",
                         "message_update", "tool_execution_update", "session_note"])


@given(VALUES)
def test_canonical_bytes_equals_the_clear_encoder_on_python_values(value: Any) -> None:
    """orjson writes only what the clear encoder writes; everything else it declines."""
    assert outcome(canonical_bytes, value) == outcome(canonical_bytes_clear, value)


@given(kind=TYPES, members=st.dictionaries(KEYS, VALUES, max_size=4), include=st.booleans(),
       fit=st.sampled_from(FITS), max_bytes=st.sampled_from([3215, 5000, 262144]))
def test_events_with_python_values_project_as_the_clear_path(
        kind: str, members: dict[str, Any], include: bool, fit: str, max_bytes: int) -> None:
    """A projected event holding any of those values: the same line or the same refusal."""
    event = {"type": kind, **members}
    both({"event": event, "includeLiveEvents": include, "maxBytes": max_bytes}, fit)


@given(event=st.one_of(VALUES, st.dictionaries(KEYS, VALUES, max_size=3),
                       TYPES.map(lambda kind: {"type": kind}),
                       st.sampled_from([{"type": Text("message_update")}, {"type": Mode.FAST},
                                        {"type": None}, Table(type="turn_end")])))
def test_fast_classification_equals_the_checked_one(event: Any) -> None:
    """classify_event answers what §3 reads (every event checked first), or refuses alike."""
    def clear(event: Any) -> str:
        return "frame" if _require_event(event)["type"] in FRAME_TYPES else "fact"

    assert outcome(classify_event, event) == outcome(clear, event)


@pytest.mark.parametrize("arguments", [
    {"include_live_events": 1}, {"include_live_events": None}, {"max_bytes": 3214},
    {"max_bytes": True}, {"max_bytes": 4096.0}, {"max_bytes": Number(5000)},
    {"max_bytes": "262144"}, {"fit_strategy": "Halving"}, {"fit_strategy": Text("maximal")},
    {"fit_strategy": ["halving"]}, {"fit_strategy": None},
])
def test_arguments_off_the_fast_path_are_checked_as_before(arguments: dict[str, Any]) -> None:
    """Arguments of other types take the full checks: the same answer or the same refusal."""
    event = {"type": "tool_execution_update", "toolCallId": "c", "toolName": "t",
             "partialResult": {"content": [{"type": "text", "text": "x" * 6000}]}}
    call = {"include_live_events": True, "max_bytes": 5000, "fit_strategy": "halving",
            **arguments}
    assert outcome(project_event, event, **call) == outcome(project_event_clear, event, **call)


# -- the fast path is taken, and it is orjson's ----------------------------------------------

def test_plain_events_are_written_by_orjson(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plain fact never reaches the clear encoder: the fast path is really taken."""
    def refuse(value: Any) -> bytes:
        raise AssertionError("the clear encoder was called for a plain value")

    monkeypatch.setattr(_canonical, "canonical_bytes_clear", refuse)
    event = {"type": "tool_execution_end", "toolCallId": "c", "toolName": "bash",
             "result": {"content": [{"type": "text", "text": "ok é\n\x1b[0m"}],
                        "details": {"exitCode": 0, "cost": 0.0054}}, "isError": False}
    assert project_event(event, include_live_events=False) == orjson.dumps(event)


@pytest.mark.parametrize("value", [
    {"a": 1.0}, {"0": 1}, {"a": [Level.HIGH]}, {"a": (1,)}, {"a": Text("x")}, [uuid.UUID(int=1)],
    {"a": {"b": [float("nan")]}}, {1: "a"}, {"a": 1e-6},
])
def test_plain_tree_declines_what_orjson_may_write_otherwise(value: Any) -> None:
    """Each kind of value orjson would write differently, or at all, is declined."""
    assert not _canonical._plain_tree(value)


@pytest.mark.parametrize("value", [
    {}, [], {"a": [1, "b", None, True, {"c": 0.5}]}, [[[]]], {"x0": -2.5e-7},
])
def test_plain_tree_accepts_plain_values(value: Any) -> None:
    assert _canonical._plain_tree(value)


def test_the_plain_tree_shortcut_is_on() -> None:
    """With the installed orjson both import-time checks pass (or the shortcut is useless)."""
    assert _canonical._PLAIN_SHORTCUT
    assert _canonical._strict_integers_agree()


# -- the wrong fast paths these tests catch ----------------------------------------------------


def _accepts_every_float(value: Any) -> bool:
    """Wrong: floats taken as orjson writes them (1.0 is "1.0", not "1")."""
    return type(value) in (dict, list) and "Colour" not in repr(value) and all(
        type(key) is str and not key[:1].isdigit() for key in _keys(value))


def _accepts_array_indices(value: Any) -> bool:
    """Wrong: member names that are array indices kept in insertion order."""
    return type(value) is dict and all(type(key) is str for key in value) and all(
        type(item) in (str, int, bool, type(None)) for item in value.values())


def _accepts_enums(value: Any) -> bool:
    """Wrong: an Enum member written as its value (the canonical form refuses it)."""
    return type(value) is dict and all(
        type(key) is str and not key[:1].isdigit() for key in value) and all(
        type(item) in (str, int, bool, type(None), Colour) for item in value.values())


def _keys(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [*value, *(key for item in value.values() for key in _keys(item))]
    if isinstance(value, list):
        return [key for item in value for key in _keys(item)]
    return []


@pytest.mark.parametrize("wrong", [_accepts_every_float, _accepts_array_indices, _accepts_enums,
                                   "no strict integers"])
def test_the_differential_property_catches_a_wrong_fast_path(
        wrong: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each wrong shortcut writes a line the clear encoder does not, and the search finds it."""
    from hypothesis import find

    if wrong == "no strict integers":
        monkeypatch.setattr(_canonical, "_STRICT_INTEGER", 0)
    else:
        monkeypatch.setattr(_canonical, "_plain_tree", wrong)
    # Flat objects of the odd leaves: the quickest part of the space to search, where each
    # wrong shortcut shows within a few dozen examples.
    value = find(
        st.dictionaries(KEYS, st.one_of(PLAIN_LEAVES, EXOTIC_LEAVES), min_size=1, max_size=3),
        lambda value: outcome(canonical_bytes, value) != outcome(canonical_bytes_clear, value),
        settings=settings(max_examples=3000, database=None, derandomize=True,
                          phases=[Phase.generate]),
    )
    assert outcome(canonical_bytes, value) != outcome(canonical_bytes_clear, value)


@pytest.mark.parametrize("wrong", ["plain facts", "plain updates"])
def test_the_family_search_catches_a_wrong_projection_shortcut(
        wrong: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A projection that lets orjson write any dict (facts), or any update within the bound,
    writes lines the clear path does not; the families' own search finds one."""
    from eventproof.reference import _wire
    from hypothesis import find

    if wrong == "plain facts":
        monkeypatch.setattr(_wire, "_plain_tree", lambda value: type(value) is dict)
        family = next(family for family in FAMILIES if family.name == "facts")
    else:
        monkeypatch.setattr(_wire, "_plain_tree_code_points", lambda value: 0)
        family = next(family for family in FAMILIES if family.name == "numbers")

    def differs(op_input: dict[str, Any]) -> bool:
        arguments = {"include_live_events": op_input["includeLiveEvents"],
                     "max_bytes": op_input["maxBytes"]}
        return (outcome(project_event, op_input["event"], **arguments)
                != outcome(project_event_clear, op_input["event"], **arguments))

    found = find(family.strategy, differs,
                 settings=settings(max_examples=500, database=None, derandomize=True,
                                    phases=[Phase.generate]))
    assert differs(found)
