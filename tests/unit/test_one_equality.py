"""One relation for "the same JSON value" (spec/protocol.md §1.1), wherever an answer is compared:
every check of every operation, the stability re-asks, and the declared number reading.

The property: an answer that is the reference's own answer written another way — members in
another order, an astral character held as its surrogate pair, an integral number written as a
double, an integer beyond 2^53 - 1 that reads as the same double — breaks no MUST rule. A check
with an equality of its own (member order, ``1`` against ``1.0``, integers compared exactly
under the double rule) fails it on the first input that meets the difference.
"""

from __future__ import annotations

import json
import math
import random
from decimal import Decimal
from typing import Any

import pytest
from eventproof.conformance import _adapters, _json
from eventproof.conformance._json import MAX_SAFE_INTEGER, as_double, as_read, same_json
from eventproof.conformance._model import Capabilities, Errored
from eventproof.conformance._operations import OPS, RULES_BY_ID, operation
from eventproof.conformance._verdict import answers_agree, expected_answer, judge
from helpers import quick_inputs
from hypothesis import given
from hypothesis import strategies as st

#: Per operation: how many of its quick inputs are compared (all of them would take minutes).
SAMPLE = 40


def _variant(value: Any, rng: random.Random, *, numbers: bool, strings: bool) -> Any:
    """``value`` written another way that is the same JSON value (§1.1)."""
    if isinstance(value, dict):
        items = [(_variant(key, rng, numbers=False, strings=strings) if strings else key,
                  _variant(item, rng, numbers=numbers, strings=strings))
                 for key, item in value.items()]
        rng.shuffle(items)
        return dict(items)
    if isinstance(value, list):
        return [_variant(item, rng, numbers=numbers, strings=strings) for item in value]
    if isinstance(value, str) and strings:
        # An astral character as its two surrogate halves: the same UTF-16 code units.
        return "".join(_as_pair(char) for char in value)
    if numbers and isinstance(value, int) and not isinstance(value, bool) \
            and abs(value) <= MAX_SAFE_INTEGER:
        return float(value)  # 30 and 30.0 are one number
    if numbers and isinstance(value, float) and math.isfinite(value) and value == int(value):
        # A double as the integer its shortest writing denotes, as JSON.stringify and Go write
        # it: 1.2345678901234568e+20 is 123456789012345680000.
        return int(Decimal(repr(value)))
    return value


def _as_pair(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return char
    code -= 0x10000
    return chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF))


def _must_broken(op_name: str, op_input: Any, actual: Any) -> list[str]:
    verdict = judge(operation(op_name), op_input, _adapters.Ok(actual), Capabilities())
    return [f"{violation.rule}: {violation.message}" for violation in verdict.violations
            if RULES_BY_ID[violation.rule].level == "MUST"]


#: The rules that fix member order on purpose, as a rule of their own (budget.md §3.1, §6.1,
#: wire.md §5.2):
#: a record's order is part of what they state, never of an agreement (§1.1).
ORDER_RULES = frozenset({"details.allowlist", "roster.allowlist", "bound.shape"})


def _about_member_order(failure: str) -> bool:
    rule, _, message = failure.partition(": ")
    return rule in ORDER_RULES and "order" in message


def _line_variant(line: str, rng: random.Random) -> str:
    """The line with its members in another order: the same value, the same bytes counted."""
    value = json.loads(line)
    return json.dumps(_variant(value, rng, numbers=False, strings=False),
                      ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize("op_name", OPS)
def test_the_same_value_written_another_way_breaks_no_must_rule(op_name: str) -> None:
    """The reference's answer with members reordered, astral characters as surrogate pairs,
    integral numbers as doubles and integral doubles as the integers their shortest writings
    denote (for a ``project`` line: its members reordered) breaks no MUST
    rule of any operation: every check compares by the one relation of §1.1."""
    rng = random.Random(op_name)
    inputs = quick_inputs(op_name)
    op = operation(op_name)
    checked = 0
    for op_input in inputs[:: max(1, len(inputs) // SAMPLE)]:
        expected = expected_answer(op, op_input, Capabilities())
        if isinstance(expected, Errored):
            continue
        if op_name == "project":
            if expected is None:
                continue
            actual: Any = {"line": _line_variant(expected["line"], rng)}
        else:
            actual = _variant(expected, rng, numbers=True, strings=True)
            assert same_json(actual, expected)
        broken = [failure for failure in _must_broken(op_name, op_input, actual)
                  if not _about_member_order(failure)]
        assert broken == [], (op_input, actual)
        checked += 1
    assert checked >= 5


JSON_NUMBERS = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([2**53, 2**53 + 1, -(2**53) - 1, 2**63, 2**64, 10**400, -(10**400)]),
    st.floats(allow_nan=False, allow_infinity=False),
)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | JSON_NUMBERS | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner,
                                                                  max_size=3),
    max_leaves=10)


@given(JSON_VALUES, JSON_VALUES)
def test_the_double_rule_is_the_exact_rule_on_what_a_double_reader_holds(a: Any, b: Any) -> None:
    """Comparing by the double rule is comparing, exactly, the values as a double reader holds
    them (integer literals included): one relation, whichever way a site reaches it."""
    assert same_json(a, b, numbers="double") == same_json(
        as_read(a, numbers="double"), as_read(b, numbers="double"))


@given(JSON_VALUES)
def test_reading_as_a_double_reader_keeps_the_shape_and_is_idempotent(value: Any) -> None:
    """``as_read`` changes numbers only, returns the very object when it changes nothing, and
    leaves no integer a double cannot hold."""
    read = as_read(value, numbers="double")
    assert as_read(read, numbers="double") is read
    assert json.dumps(value, sort_keys=True, default=str).count(",") == json.dumps(
        read, sort_keys=True, default=str).count(",")

    def unsafe(item: Any) -> bool:
        if isinstance(item, dict):
            return any(unsafe(each) for each in item.values())
        if isinstance(item, list):
            return any(unsafe(each) for each in item)
        return isinstance(item, int) and not isinstance(item, bool) \
            and abs(item) > MAX_SAFE_INTEGER

    assert not unsafe(read)
    assert (read is value) == (not unsafe(value))


def test_double_reading_rounds_as_json_parse_does() -> None:
    """2^53 + 1 reads as 2^53 (ties to even), 10^400 as an infinity, 2^63 exactly."""
    assert as_double(2**53 + 1) == 2.0**53
    assert as_double(2**63) == 2.0**63
    assert as_double(10**400) == math.inf
    assert as_double(-(10**400)) == -math.inf
    assert as_double(7) == 7
    assert isinstance(as_double(7), int)


def test_the_stability_reasks_compare_by_the_one_relation() -> None:
    """Two answers that are the same JSON value (``1`` and ``1.0``, members in another order)
    are the same answer when a failure's input is asked again; another value is not."""
    op = operation("publish")
    first = judge(op, {}, _adapters.Ok({"a": 1, "b": [2]}), Capabilities(), expected={"c": 0})
    same = judge(op, {}, _adapters.Ok({"b": [2.0], "a": 1.0}), Capabilities(),
                 expected={"c": 0})
    other = judge(op, {}, _adapters.Ok({"b": [3], "a": 1}), Capabilities(), expected={"c": 0})
    assert answers_agree(first, same)
    assert not answers_agree(first, other)


#: Strings whose UTF-16 code units are a pair, half of one, or a pair's halves reversed.
_SURROGATE_TEXTS = st.lists(st.sampled_from(["a", "é", "😀", "\ud83d", "\ude00", "\ud83d\ude00"]),
                            max_size=4).map("".join)
_PAIRED_VALUES = st.recursive(
    st.none() | st.booleans() | JSON_NUMBERS | _SURROGATE_TEXTS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_SURROGATE_TEXTS, inner,
                                                                  max_size=3),
    max_leaves=10)


@given(_PAIRED_VALUES)
def test_answers_are_judged_with_pairs_joined_whichever_way_they_are_read(value: Any) -> None:
    """``pairs_joined`` answers the same with orjson's quick look as by reading every string: the
    very object when no string holds a pair, each pair joined otherwise (§1.1)."""
    joined = _json.pairs_joined(value)
    read_all = _json._rebuild(
        value, lambda leaf: _json._joined(leaf) if isinstance(leaf, str) else leaf)
    assert json.dumps(joined, sort_keys=True) == json.dumps(read_all, sort_keys=True)
    assert (joined is value) == (read_all is value)
    assert not any("\ud83d\ude00" in text for text in _strings(joined))


def _strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [*value, *(text for item in value.values() for text in _strings(item))]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return [value] if isinstance(value, str) else []


@given(st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: x == int(x)))
def test_an_integral_double_is_the_integer_its_shortest_writing_denotes(double: float) -> None:
    """Under the exact rule a double is the number its shortest writing denotes (§1.1): the
    integer ``JSON.stringify`` or Go writes for it (``123456789012345680000`` for
    ``1.2345678901234568e+20``) is the same number, and an integer one away from that is not."""
    written = int(Decimal(repr(double)))
    assert same_json(written, double)
    assert same_json(double, written)
    assert not same_json(written + 1, double)
    assert not same_json([written - 1], [double])
