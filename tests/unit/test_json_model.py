"""The one JSON value model (spec/protocol.md §1.1): equality, rendering, first difference."""

from __future__ import annotations

import collections
import math
import types
from typing import Any

import pytest
from eventproof.conformance._json import MISSING, first_difference, kind, render, same_json
from hypothesis import given
from hypothesis import strategies as st

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                max_size=3),
    max_leaves=10,
)


@pytest.mark.parametrize(("a", "b", "exact", "double"), [
    # The three cases the earlier equalities disagreed on (spec/protocol.md §1.1).
    (2**53 + 1, 2.0**53, False, True),
    ("\ud83d\ude00", "😀", True, True),
    (math.nan, math.nan, False, False),
    # Kinds apart, numbers by value, member order aside.
    (True, 1, False, False),
    ([False], [0], False, False),
    (None, [], False, False),
    ({"a": 1, "b": [2.0]}, {"b": [2], "a": 1.0}, True, True),
    ({"a": 1}, {"a": 1, "b": None}, False, False),
    ("\ud800", "\ufffd", False, False),
    (10**400, 1e308, False, False),
    (math.inf, math.inf, False, False),
])
def test_the_spec_cases(a: object, b: object, exact: bool, double: bool) -> None:
    """Each case is the same or not exactly as spec/protocol.md §1.1 says, in both number
    rules, in both directions."""
    assert same_json(a, b, numbers="exact") is exact
    assert same_json(b, a, numbers="exact") is exact
    assert same_json(a, b, numbers="double") is double
    assert same_json(b, a, numbers="double") is double


@given(JSON)
def test_every_value_is_the_same_as_itself(value: object) -> None:
    """Equality is reflexive on JSON values, and no difference is found."""
    assert same_json(value, value)
    assert first_difference(value, value) is None


@given(JSON, JSON)
def test_a_difference_is_found_exactly_when_values_differ(a: object, b: object) -> None:
    """first_difference finds something exactly when same_json says the values differ."""
    assert (first_difference(a, b) is None) is same_json(a, b)


def test_first_difference_names_the_path_and_both_sides() -> None:
    """The first difference says where, what each side holds there, and how they differ."""
    found = first_difference({"a": [1, {"b": "x"}]}, {"a": [1, {"b": "y"}]})
    assert found is not None
    assert (found.path, found.got, found.want) == ("$.a[1].b", "x", "y")
    missing = first_difference({"a": 1}, {"a": 1, "c d": 2})
    assert missing is not None
    assert missing.path == '$["c d"]'
    assert missing.got is MISSING


def test_render_shows_hidden_characters_and_elides_long_values() -> None:
    """Controls, separators and lone surrogates are escapes; long values keep head and tail."""
    assert render("a\u2028\ud800\x00é") == '"a\\u2028\\ud800\\u0000é"'
    long = render("x" * 1000, limit=60)
    assert "…" in long
    assert long.endswith("(1000 code points)")
    assert render(MISSING) == "(absent)"
    assert render(math.nan) == "NaN"


class _Text(str):
    pass


class _Number(int):
    pass


@given(st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=3),
    st.lists(st.integers(), max_size=2), st.tuples(st.integers()),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
    st.builds(_Text, st.text(max_size=3)), st.builds(_Number, st.integers()),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2).map(
        types.MappingProxyType),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2).map(
        collections.OrderedDict),
    st.binary(max_size=2), st.frozensets(st.integers(), max_size=2)))
def test_kind_is_its_definition_for_plain_values_and_subclasses(value: Any) -> None:
    """The table of plain types says what the checks after it say (they alone decide with an
    empty table), on plain values and subclasses."""
    from eventproof.conformance import _json

    fast = kind(value)
    table = dict(_json._KIND_OF_TYPE)
    _json._KIND_OF_TYPE.clear()
    try:
        assert fast == kind(value)
    finally:
        _json._KIND_OF_TYPE.update(table)
