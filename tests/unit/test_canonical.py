"""Canonical serialization (spec/wire.md §6): well-formed text, escapes, numbers, member order."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from typing import Any

import pytest
from eventproof.reference import InvalidInput, _canonical, canonical_bytes, well_formed
from eventproof.reference._canonical import (
    MAX_SAFE_INTEGER,
    canonical_bytes_clear,
    escape_clear,
    escaped_cost,
    escaped_size,
    escaped_size_clear,
    is_array_index,
    number_to_string,
    quote,
)
from hypothesis import given, settings
from hypothesis import strategies as st

# -- strategies --------------------------------------------------------------------------------

SURROGATES = st.integers(0xD800, 0xDFFF).map(chr)
INTERESTING = st.sampled_from(
    ["\x00", "\x01", "\x08", "\t", "\n", "\x0b", "\x0c", "\r", "\x1f", '"', "\\", "/", "\x7f",
     "\u2028", "\u2029", "é", "€", "\ufffd", "\U0001f600", "\ud83d", "\ude00", "\ud83d\ude00",
     "a", " ", "0", "\u0080", "\u07ff", "\u0800", "\uffff", "\U00010000", "\U0010ffff"]
)
PIECES = st.one_of(st.text(max_size=6), INTERESTING, SURROGATES)
#: Strings of every kind the canonical form treats specially, built from pieces by repetition.
TEXT = st.builds(
    lambda pieces, times: "".join(piece * n for piece, n in zip(pieces, times, strict=False)),
    st.lists(PIECES, max_size=8),
    st.lists(st.integers(1, 40), min_size=8, max_size=8),
)
KEYS = st.one_of(
    TEXT,
    st.sampled_from(["0", "1", "7", "10", "01", "-1", "1.0", "4294967294", "4294967295",
                     "4294967296", "", "__proto__", "a", "b"]),
    st.integers(0, 2**32 + 5).map(str),
)
SAFE_INTS = st.one_of(
    st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER),
    st.sampled_from([0, -1, MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER, 2**31, 2**32 - 1]),
)
FLOATS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 1e21, 1e-7, 5e-324, 1e20, 1e-6, 30.0, 1.5e-7,
                     1.2345678901234568e20, 1.7976931348623157e308, 2.0**53, 0.1]),
)


def json_values(*, floats: bool = True, keys: st.SearchStrategy[str] = KEYS,
                text: st.SearchStrategy[str] = TEXT) -> st.SearchStrategy[Any]:
    scalars = st.one_of(st.none(), st.booleans(), SAFE_INTS, text,
                        *([FLOATS] if floats else []))
    return st.recursive(
        scalars,
        lambda children: st.one_of(st.lists(children, max_size=5),
                                   st.dictionaries(keys, children, max_size=5)),
        max_leaves=25,
    )


def js_to_well_formed(s: str) -> str:
    """An independent model of String.prototype.toWellFormed over UTF-16 code units."""
    units = []
    for char in s:
        code = ord(char)
        if code >= 0x10000:
            code -= 0x10000
            units += [0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)]
        else:
            units.append(code)
    out, i = [], 0
    while i < len(units):
        unit = units[i]
        if 0xD800 <= unit <= 0xDBFF and i + 1 < len(units) and 0xDC00 <= units[i + 1] <= 0xDFFF:
            out.append(chr(0x10000 + ((unit - 0xD800) << 10) + (units[i + 1] - 0xDC00)))
            i += 2
            continue
        out.append("\ufffd" if 0xD800 <= unit <= 0xDFFF else chr(unit))
        i += 1
    return "".join(out)


# -- §6.1 well-formed text ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("plain", "plain"),
        ("\ud83d\ude00", "\U0001f600"),
        ("\ud83d", "\ufffd"),
        (chr(0xDE00), "\ufffd"),
        ("\ude00\ud83d", "\ufffd\ufffd"),
        ("\ud83d\ud83d\ude00", "\ufffd\U0001f600"),
        ("a\ud800b\udc00c", "a\ufffdb\ufffdc"),
        ("\ud800\ud800\ud800", "\ufffd\ufffd\ufffd"),
        ("\U0001f600\ude00", "\U0001f600\ufffd"),
    ],
)
def test_well_formed_examples(raw: str, expected: str) -> None:
    """Pairs join into one astral code point; every unpaired surrogate becomes one U+FFFD."""
    assert well_formed(raw) == expected


@settings(max_examples=300)
@given(st.one_of(TEXT, st.builds(lambda head, char, tail: head + char + tail,
                                 st.text(max_size=3), SURROGATES, st.text(max_size=3))))
def test_has_surrogate_finds_every_surrogate(text: str) -> None:
    """The encoder-based check agrees with searching for U+D800-U+DFFF, paired or not."""
    expected = any(0xD800 <= ord(char) <= 0xDFFF for char in text)
    assert _canonical.has_surrogate(text) is expected


def test_has_surrogate_scans_long_texts_piece_by_piece() -> None:
    """A surrogate anywhere in a text longer than one scanned piece is found, also where two
    halves of a pair sit in different pieces."""
    piece = _canonical._SCAN_PIECE
    assert not _canonical.has_surrogate("漢" * (3 * piece))
    for position in (0, piece - 1, piece, 2 * piece + 5, 3 * piece - 1):
        text = "漢" * position + "\ud800" + "漢" * (3 * piece - position - 1)
        assert _canonical.has_surrogate(text), position
    pair = "漢" * (piece - 1) + "\ud83d\ude00" + "漢" * 10
    assert _canonical.has_surrogate(pair)


@given(TEXT)
def test_well_formed_is_js_to_well_formed(text: str) -> None:
    """well_formed agrees with a code-unit model of JS toWellFormed and leaves no surrogate."""
    result = well_formed(text)
    assert result == js_to_well_formed(text)
    result.encode("utf-8")  # raises on any surviving surrogate
    assert well_formed(result) == result


# -- §6.2 strings ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "literal"),
    [
        ("\x00", '"\\u0000"'),
        ("\x1f", '"\\u001f"'),
        ("\x0b", '"\\u000b"'),
        ("\b\t\n\f\r", '"\\b\\t\\n\\f\\r"'),
        ('"\\', '"\\"\\\\"'),
        ("/", '"/"'),
        ("\x7f", '"\x7f"'),
        ("\u2028\u2029", '"\u2028\u2029"'),
        ("é€\U0001f600", '"é€\U0001f600"'),
        ("\ud800", '"\ufffd"'),
    ],
)
def test_quote_examples(raw: str, literal: str) -> None:
    """Strings escape exactly as JSON.stringify does, with lowercase \\u00xx and U+2028 raw."""
    assert quote(raw) == literal


@pytest.mark.parametrize(
    ("char", "cost"),
    [("\x00", 6), ("\x1f", 6), ("\n", 2), ('"', 2), ("\\", 2), ("a", 1), ("\x7f", 1),
     ("é", 2), ("€", 3), ("\u2028", 3), ("\ufffd", 3), (chr(0xD800), 3), (chr(0xDFFF), 3),
     ("\U0001f600", 4)],
)
def test_escaped_cost_table(char: str, cost: int) -> None:
    """One code point costs the bytes of spec/wire.md §6.5's table inside a string literal."""
    assert escaped_cost(char) == cost
    assert escaped_size(char) == cost


@given(TEXT)
def test_escaped_size_is_additive(text: str) -> None:
    """A string's escaped size is the sum of its well-formed code points' costs, and its bytes."""
    body = well_formed(text)
    assert escaped_size(text) == sum(escaped_cost(char) for char in body)
    assert escaped_size(text) == len(quote(text).encode("utf-8")) - 2


@settings(max_examples=300)
@given(TEXT)
def test_escaped_size_by_orjson_equals_the_clear_measure(text: str) -> None:
    """escaped_size measures with orjson; it answers what escaping by the table and encoding
    answer, lone surrogates included, and the same with orjson switched off."""
    expected = len(escape_clear(well_formed(text)).encode("utf-8"))
    assert escaped_size(text) == expected
    assert escaped_size_clear(text) == expected


def test_escaped_size_without_orjson(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without orjson, escaped_size takes the standard library's escaper: the same sizes."""
    texts = ["", "a\x00\"\\", "\ud800\U0001f600é", "\x1f" * 50]
    sizes = [escaped_size(text) for text in texts]
    monkeypatch.setattr(_canonical, "_orjson", None)
    assert [escaped_size(text) for text in texts] == sizes == [0, 11, 9, 300]


@given(TEXT)
def test_fast_escaper_equals_clear_table(text: str) -> None:
    """The C escaper the encoder uses writes exactly what the clear escape table writes."""
    body = well_formed(text)
    assert _canonical._escape(body) == escape_clear(body)


def test_every_ascii_character_escapes_like_json_stringify() -> None:
    """Each of the 128 ASCII characters escapes exactly as ECMA-262 QuoteJSONString says."""
    short = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f",
             "\r": "\\r"}
    for code in range(128):
        char = chr(code)
        expected = short.get(char, f"\\u{code:04x}" if code < 0x20 else char)
        assert quote(char) == f'"{expected}"', repr(char)


# -- §6.3 numbers ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (30.0, "30"), (-0.0, "0"), (0.0, "0"), (1e21, "1e+21"), (1e20, "100000000000000000000"),
        (1e-7, "1e-7"), (1e-6, "0.000001"), (1.5e-7, "1.5e-7"), (1.234e-7, "1.234e-7"),
        (0.000001234, "0.000001234"), (1.2345678901234568e20, "123456789012345680000"),
        (5e-324, "5e-324"), (1.7976931348623157e308, "1.7976931348623157e+308"),
        (0.1, "0.1"), (123.456, "123.456"), (-1.5, "-1.5"), (100.0, "100"),
        (2.0**53, "9007199254740992"), (1e300, "1e+300"), (-1e-300, "-1e-300"),
        (1.5e21, "1.5e+21"), (123e-20, "1.23e-18"), (0.5, "0.5"),
    ],
)
def test_number_to_string_examples(number: float, text: str) -> None:
    """Floats are written as ECMAScript Number::toString writes them."""
    assert number_to_string(number) == text
    assert canonical_bytes(number) == text.encode()


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_number_to_string_round_trips(number: float) -> None:
    """Every finite float's text reads back as the same double (shortest digits, any layout)."""
    text = number_to_string(number)
    assert float(text) == number
    if number.is_integer() and abs(number) <= 2**53:
        assert text == str(int(number))
    if number.is_integer() and abs(number) < 1e21:
        assert text.lstrip("-").isdigit()  # integral doubles below 1e21: no point, no exponent
    assert "e" not in text or abs(number) >= 1e21 or abs(number) < 1e-6


@pytest.mark.parametrize("number", [MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER, 0, -0, 42])
def test_safe_integers_are_written(number: int) -> None:
    """Integers within ±(2^53-1) are written in plain decimal."""
    assert canonical_bytes({"n": number}) == f'{{"n":{number}}}'.encode()


@pytest.mark.parametrize("number", [MAX_SAFE_INTEGER + 1, -MAX_SAFE_INTEGER - 1, 2**64, 10**30])
def test_big_integers_are_refused_with_their_path(number: int) -> None:
    """An integer beyond 2^53-1 is refused, naming where it sat (wire.md §7)."""
    with pytest.raises(InvalidInput) as caught:
        canonical_bytes({"args": {"list": [1, number]}})
    assert caught.value.path == "$.args.list[1]"
    assert caught.value.value == number
    assert "2^53-1" in caught.value.reason
    with pytest.raises(InvalidInput):
        canonical_bytes_clear(number)


@pytest.mark.parametrize("number", [math.nan, math.inf, -math.inf])
def test_non_finite_numbers_are_refused(number: float) -> None:
    """NaN and the infinities are refused: JSON has no such numbers (wire.md §7)."""
    with pytest.raises(InvalidInput) as caught:
        canonical_bytes({"a b": [number]})
    assert caught.value.path == '$["a b"][0]'


def test_booleans_and_null() -> None:
    """true, false and null are written as JSON writes them (a bool is not the number 1)."""
    assert canonical_bytes([True, False, None, 1, 0]) == b"[true,false,null,1,0]"


# -- §6.4 member order -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "index"),
    [("0", True), ("7", True), ("4294967294", True), ("4294967295", False), ("01", False),
     ("-1", False), ("1.0", False), ("", False), ("١", False), ("99999999999", False),
     (" 1", False), ("1e3", False)],
)
def test_is_array_index(key: str, index: bool) -> None:
    """Only canonical decimals of 0 <= i < 2^32-1 are array indices."""
    assert is_array_index(key) is index


def test_member_order_is_ordinary_own_property_keys() -> None:
    """Array-index names come first in numeric order, then every other name in insertion order."""
    value = {"b": 1, "10": 2, "4294967295": 3, "2": 4, "01": 5, "a": 6, "4294967294": 7,
             "0": 8, "-1": 9, "1.0": 10}
    assert canonical_bytes(value) == (
        b'{"0":8,"2":4,"10":2,"4294967294":7,"b":1,"4294967295":3,"01":5,"a":6,"-1":9,"1.0":10}'
    )


def test_names_equal_after_replacement_keep_the_first_position() -> None:
    """Two names that well-form to the same text: the later value wins at the first position."""
    value = dict([(chr(0xD800), 1), ("x", 2), (chr(0xDC00), 3), ("\ufffd", 4)])
    assert canonical_bytes(value) == '{"\ufffd":4,"x":2}'.encode()


def test_names_are_escaped_and_well_formed() -> None:
    """Member names escape like strings, lone surrogates included."""
    assert canonical_bytes({"\n\ud83d": 0}) == '{"\\n\ufffd":0}'.encode()


# -- refusals and paths ------------------------------------------------------------------------


@pytest.mark.parametrize("value", [{1: "a"}, {None: 1}])
def test_non_string_names_are_refused(value: dict[Any, Any]) -> None:
    """A member name that is not a string is refused (JSON names are strings)."""
    with pytest.raises(InvalidInput, match="not a string"):
        canonical_bytes({"outer": value})


@pytest.mark.parametrize("value", [{1, 2}, b"bytes", object()])
def test_non_json_values_are_refused(value: object) -> None:
    """A value that is not JSON is refused with its path, not a traceback."""
    with pytest.raises(InvalidInput) as caught:
        canonical_bytes({"k": [value]})
    assert caught.value.path == "$.k[0]"


def test_number_subclasses_are_numbers() -> None:
    """An IntEnum or float subclass is written as its number, never as its name or repr."""
    import enum

    class Size(enum.IntEnum):
        BIG = 7

    class Loud(float):
        def __repr__(self) -> str:
            return "loud"

    assert canonical_bytes([Size.BIG, Loud(1.5)]) == b"[7,1.5]"


def test_tuples_are_arrays() -> None:
    """A tuple serializes as the array it stands for."""
    assert canonical_bytes((1, "a")) == b'[1,"a"]'


def test_deep_nesting_is_refused_cleanly() -> None:
    """A value nested deeper than the interpreter can follow is refused, not a crash."""
    value: Any = 1.5  # orjson gives up (too deep), so does the retry: the clear encoder refuses
    for _ in range(100_000):
        value = [value]
    with pytest.raises(InvalidInput, match="nests deeper"):
        canonical_bytes(value)


# -- agreement properties ----------------------------------------------------------------------

PLAIN_KEYS = st.text(max_size=8).filter(lambda key: not is_array_index(key))


@given(json_values(floats=False, keys=PLAIN_KEYS, text=st.text(max_size=30)))
def test_agrees_with_json_dumps_where_they_must(value: Any) -> None:
    """Without floats, index-like names or surrogates, canonical bytes are compact json.dumps."""
    expected = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    assert canonical_bytes(value) == expected
    assert canonical_bytes_clear(value) == expected


@settings(max_examples=200)
@given(json_values())
def test_fast_path_equals_clear_encoder(value: Any) -> None:
    """canonical_bytes (with its orjson fast path) writes exactly what the clear encoder writes."""
    assert canonical_bytes(value) == canonical_bytes_clear(value)


@given(json_values(floats=False, keys=st.sampled_from(["a", "b", "x y", "é"]),
                   text=st.text(max_size=20)))
def test_fast_path_is_taken_for_plain_values(value: Any) -> None:
    """Plain values (no floats, no digit-led names) go through orjson as they are, and agree."""
    assert _canonical._orjson_plan(value) == _canonical._AS_IS
    assert canonical_bytes(value) == canonical_bytes_clear(value)


def _as_js_reads(literal: str) -> int | float:
    """An integer literal as JSON.parse reads it: a double once it is beyond 2^53-1."""
    number = int(literal)
    return number if abs(number) <= MAX_SAFE_INTEGER else float(number)


@given(json_values())
def test_output_is_valid_json_of_the_well_formed_value(value: Any) -> None:
    """The canonical bytes are UTF-8 JSON that parses back to the value, numbers as doubles."""
    parsed = json.loads(canonical_bytes(value).decode("utf-8"), parse_int=_as_js_reads)
    assert canonical_bytes(parsed) == canonical_bytes(value)


@pytest.mark.skipif(_canonical._orjson is None, reason="the plan of orjson's fast path: orjson "
                    "is not installed (nox -s bare)")
@pytest.mark.parametrize(
    ("value", "plan"),
    [
        (1.5, "as-is"), ({"cost": [0.0123, 1e-7, -3.5e-300]}, "as-is"), ("\ud800", "as-is"),
        (30.0, "rewrite"), (-0.0, "rewrite"), ({"a": [1.5e-6]}, "rewrite"), (1e21, "rewrite"),
        (2.0**53, "rewrite"), ({"10": 1, "2": 2}, "decline"), ({"n": 2**60}, "decline"),
        ({"k": (1, 2)}, "decline"), ({"k": {1, 2}}, "decline"), ([math.nan], "decline"),
        ({"x": -math.inf}, "decline"), ({1: "a"}, "decline"),
    ],
)
def test_orjson_plan(value: Any, plan: str) -> None:
    """The fast path takes floats orjson writes canonically as they are, rewrites the other
    finite floats, and declines index-like names, big ints, non-finite and non-JSON values."""
    codes = {"as-is": _canonical._AS_IS, "rewrite": _canonical._REWRITE,
             "decline": _canonical._DECLINE}
    assert _canonical._orjson_plan(value) == codes[plan]
    try:
        expected = canonical_bytes_clear(value)
    except InvalidInput:
        with pytest.raises(InvalidInput):
            canonical_bytes(value)
    else:
        assert canonical_bytes(value) == expected


# -- the fast path on floats (the proof is the comment above _canonical._native_float) --------

needs_orjson = pytest.mark.skipif(_canonical._orjson is None, reason="orjson is not installed")


def _decade_edges() -> list[float]:
    """Both neighbours of every power of ten a double can hold, and the power itself, ±."""
    edges: list[float] = []
    for exponent in range(-323, 309):
        power = float(f"1e{exponent}")
        for value in (power, math.nextafter(power, 0.0), math.nextafter(power, math.inf)):
            edges += [value, -value]
    return edges


#: The brief's boundary values, and the two sides of each layout switch of either writer.
BOUNDARY_FLOATS = [
    1e-7, 1e-6, 1e-5, 1e-4, 1e15, 1e16, 1e17, 1e20, 1e21, 5e-324, 2.2250738585072014e-308,
    0.1 + 0.2, 123456789.123, 2.0**53, 2.0**53 + 2.0, -0.0, 0.0, 1.5e-6, 9.99e-6, 1.5e-7,
    2.0**53 - 1, 2.0**53 - 0.5, 2.0**52 + 0.5, 9999999999999998.0, 1e16 - 2.0, 1.5e16, 1.5e20,
    1.7976931348623157e308, 4.9406564584124654e-324, 1 / 3, 2 / 3, 0.0123, 100.0,
]


@needs_orjson
@pytest.mark.parametrize("number", BOUNDARY_FLOATS + [-x for x in BOUNDARY_FLOATS])
def test_fast_path_floats_at_the_boundaries(number: float) -> None:
    """At every edge of both layouts the fast path writes Number::toString, alone or nested."""
    text = number_to_string(number).encode()
    assert canonical_bytes(number) == canonical_bytes_clear(number) == text
    assert canonical_bytes({"usage": {"cost": [number, 1]}}) == b'{"usage":{"cost":[%s,1]}}' % text


@needs_orjson
def test_native_floats_are_exactly_those_orjson_writes_canonically() -> None:
    """Soundness and necessity of the condition, on the edges of every decade of the doubles.

    Every float _native_float accepts, orjson writes as Number::toString; among the non-integral
    edges it rejects, orjson writes a different text (1e-6 <= |x| < 1e-5: "1.5e-6" for
    "0.0000015"), so the range cannot be widened there.
    """
    assert _canonical._ORJSON_FLOATS_AGREE
    edges = _decade_edges() + BOUNDARY_FLOATS + [1.5e-6, 9.99e-6, -2.5e-6, 1.0000001e-6]
    native = [x for x in edges if _canonical._native_float(x)]
    assert len(native) > 1000
    for number in native:
        assert _canonical._orjson.dumps(number) == number_to_string(number).encode(), number
    differing = [x for x in edges if 1e-6 <= abs(x) < 1e-5 and not x.is_integer()]
    assert differing
    for number in differing:
        assert not _canonical._native_float(number)
        assert _canonical._orjson.dumps(number) != number_to_string(number).encode(), number
    for number in edges:
        assert canonical_bytes(number) == canonical_bytes_clear(number), number


@settings(max_examples=2000)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_fast_path_equals_clear_encoder_on_floats(number: float) -> None:
    """Floats of every magnitude: the fast path's bytes are the clear encoder's."""
    assert canonical_bytes(number) == canonical_bytes_clear(number)
    value = {"a": [number, {"b": number}], "c": "x"}
    assert canonical_bytes(value) == canonical_bytes_clear(value)
    if _canonical._orjson is not None and _canonical._native_float(number):
        assert _canonical._orjson.dumps(number) == canonical_bytes_clear(number)


@settings(max_examples=300)
@given(st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER))
def test_integral_floats_are_their_integer(number: int) -> None:
    """An integral float within ±(2^53-1) is written as its integer (30.0 -> 30)."""
    assert canonical_bytes(float(number)) == canonical_bytes_clear(float(number)) == str(
        number).encode()


@needs_orjson
def test_floats_take_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Events with float costs, integral floats and lone surrogates never reach the clear
    encoder: orjson writes them (surrogates through the well-formed retry)."""
    cases: list[tuple[bytes, Any]] = [
        (b'{"usage":{"input":1800,"cost":{"input":0.0054,"output":0,"total":0.0054}}}',
         {"usage": {"input": 1800, "cost": {"input": 0.0054, "output": 0.0, "total": 0.0054}}}),
        (b"[1e-7,0.000001,0.0000015,1e+21,100000000000000000000,9007199254740992,0]",
         [1e-7, 1e-6, 1.5e-6, 1e21, 1e20, 2.0**53, -0.0]),
        ('{"\ufffd":3,"x":[2,"a\ufffd\U0001f600"]}'.encode(),
         dict([("\ud800", 1.0), ("x", [2.0, "a\udc00\ud83d\ude00"]), ("\udc00", 3.0)])),
    ]
    for line, value in cases:
        assert canonical_bytes_clear(value) == line

    def refuse(value: Any) -> bytes:
        raise AssertionError(f"the clear encoder was asked for {value!r}")

    monkeypatch.setattr(_canonical, "canonical_bytes_clear", refuse)
    for line, value in cases:
        assert canonical_bytes(value) == line


@needs_orjson
@pytest.mark.parametrize("switch", ["no native floats", "no Fragment"])
@settings(max_examples=100)
@given(value=json_values())
def test_fast_path_without_native_floats_or_fragments(switch: str, value: Any) -> None:
    """With native floats off (as if the import check failed) or without orjson.Fragment, every
    float takes the rewrite or the clear encoder, and the bytes stay the same."""
    expected = canonical_bytes_clear(value)
    attribute, off = ("_ORJSON_FLOATS_AGREE", False) if switch == "no native floats" else (
        "_Fragment", None)
    saved = getattr(_canonical, attribute)
    setattr(_canonical, attribute, off)
    try:
        assert canonical_bytes(value) == expected
    finally:
        setattr(_canonical, attribute, saved)


def test_import_check_accepts_the_installed_orjson() -> None:
    """The import-time check of orjson's float layout passes exactly when orjson is here."""
    assert _canonical._ORJSON_FLOATS_AGREE is (_canonical._orjson is not None)
    assert _canonical._orjson_floats_agree() is _canonical._ORJSON_FLOATS_AGREE


def test_without_orjson_the_bytes_are_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the fast path switched off, canonical_bytes answers the same bytes."""
    for value in ({"b": [1, "x\n", 30.0, 0.5, 1.5e-6], "a": {"c": None, "d": True}},
                  {"b": [1, "x\n", 0.5], "a": {"c": None, "d": True}}):
        fast = canonical_bytes(value)
        with monkeypatch.context() as patch:
            patch.setattr(_canonical, "_orjson", None)
            patch.setattr(_canonical, "_PLAIN_SHORTCUT", False)
            assert canonical_bytes(value) == fast


def test_reference_imports_without_orjson() -> None:
    """The reference imports and serializes in an interpreter where orjson cannot be imported."""
    code = (
        "import sys; sys.modules['orjson'] = None\n"
        "from eventproof.reference import _canonical\n"
        "assert _canonical._orjson is None\n"
        "assert not _canonical._PLAIN_SHORTCUT\n"
        "print(_canonical.canonical_bytes({'b': 1, '1': [30.0, '\\ud800']}).decode())\n"
        "from eventproof.reference import project_event\n"
        "print(project_event({'type': 'x', 'a': [0.5]}, include_live_events=False).decode())\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, timeout=60)
    assert result.stdout.split() == ['{"1":[30,"\ufffd"],"b":1}', '{"type":"x","a":[0.5]}']
