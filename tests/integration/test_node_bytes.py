"""The canonical form is Node's: ``JSON.stringify`` + ``Buffer.byteLength`` agree byte for byte.

spec/wire.md §6 defines a line as the UTF-8 of what ``JSON.stringify`` writes for the value once
every string is well-formed. These tests hand batches of values to one ``node`` process per batch,
let Node apply ``toWellFormed`` to every string and member name and serialize, and compare its
bytes and byte counts with the reference's. Values travel in a JSON file written with
``ensure_ascii=True`` so that lone surrogates arrive as the lone UTF-16 units they stand for.
"""

from __future__ import annotations

import base64
import json
import math
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from eventproof.reference import canonical_bytes
from eventproof.reference._backstop import bound_live_update
from eventproof.reference._canonical import MAX_SAFE_INTEGER, escaped_cost
from hypothesis import given, settings
from hypothesis import strategies as st

NODE = shutil.which("node")

pytestmark = [
    pytest.mark.node,
    pytest.mark.skipif(NODE is None, reason="node is not on PATH: the byte-agreement proof "
                                            "against JSON.stringify needs Node.js >= 20"),
]

# Reads a JSON array of values; answers, per value, the base64 of the UTF-8 bytes and the
# Buffer.byteLength of JSON.stringify(value) after toWellFormed on every string and name.
NODE_SCRIPT = r"""
const fs = require("fs");
function wellFormed(value) {
  if (typeof value === "string") return value.toWellFormed();
  if (Array.isArray(value)) return value.map(wellFormed);
  if (value !== null && typeof value === "object") {
    // A null-prototype object: "__proto__" stays an ordinary member, and a name that
    // well-forms to an earlier one replaces its value in place (plain assignment).
    const out = Object.create(null);
    for (const key of Object.keys(value)) out[key.toWellFormed()] = wellFormed(value[key]);
    return out;
  }
  return value;
}
const values = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const answers = values.map((value) => {
  const text = JSON.stringify(wellFormed(value));
  return [Buffer.from(text, "utf8").toString("base64"), Buffer.byteLength(text, "utf8")];
});
process.stdout.write(JSON.stringify(answers));
"""


def node_bytes(values: list[Any]) -> list[tuple[bytes, int]]:
    """Node's canonical bytes and byte length for each value, from one node process."""
    assert NODE is not None
    with tempfile.TemporaryDirectory() as directory:
        script = Path(directory) / "stringify.js"
        script.write_text(NODE_SCRIPT, "utf-8")
        data = Path(directory) / "values.json"
        data.write_text(json.dumps(values, ensure_ascii=True), "ascii")
        result = subprocess.run([NODE, str(script), str(data)], capture_output=True,
                                text=True, check=True, timeout=60)
    return [(base64.b64decode(encoded), length) for encoded, length in json.loads(result.stdout)]


def assert_agree(values: list[Any]) -> None:
    for value, (expected, length) in zip(values, node_bytes(values), strict=True):
        ours = canonical_bytes(value)
        assert ours == expected, f"{value!r}: reference {ours!r}, node {expected!r}"
        assert len(ours) == length


# -- strategies --------------------------------------------------------------------------------

CHARACTERS = st.one_of(
    st.integers(0, 0x20).map(chr),  # every control, and space
    st.sampled_from(['"', "\\", "/", "\x7f", "\u2028", "\u2029", "\ufeff", "\ufffd", "é", "€",
                     "\U0001f600", "\U0010ffff", "\ud83d\ude00"]),
    st.integers(0xD800, 0xDFFF).map(chr),  # lone surrogates, and pairs when two meet
    st.characters(codec="utf-8"),
)
STRINGS = st.one_of(
    st.lists(CHARACTERS, max_size=12).map("".join),
    st.builds(lambda piece, n: piece * n, st.lists(CHARACTERS, min_size=1, max_size=3).map(
        "".join), st.integers(1, 200)),
)
FLOATS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1e21, 1e-7, 1e-6, 1e20, 9.999999999999999e20, -0.0, 0.0, 5e-324,
                     2.2250738585072014e-308, 1.7976931348623157e308, 1.2345678901234568e20,
                     30.0, 2.0**53, 2.0**53 + 2, 0.1, 1 / 3, 123e-20, 1.5e-7]),
    st.integers(-(2**60), 2**60).map(float),  # integral floats, beyond 2^53 too
    st.builds(lambda mantissa, exponent: mantissa * 10.0**exponent,
              st.integers(1, 999), st.integers(-30, 30)),
)
INTEGERS = st.one_of(st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER),
                     st.sampled_from([MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER, 0, 2**32 - 1, 2**32]))
KEYS = st.one_of(
    STRINGS,
    st.sampled_from(["0", "1", "2", "10", "01", "00", "-0", "-1", "1.0", "1e3", " 1",
                     "4294967294", "4294967295", "4294967296", "9007199254740993",
                     "__proto__", "constructor", "toString", "", "a", "b"]),
    st.integers(0, 2**33).map(str),
)
VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), INTEGERS, FLOATS, STRINGS),
    lambda children: st.one_of(st.lists(children, max_size=5),
                               st.dictionaries(KEYS, children, max_size=6)),
    max_leaves=20,
)


# -- tests -------------------------------------------------------------------------------------


EDGE_VALUES: list[Any] = [
    "", "\x00\x01\x1f\x7f", "\b\t\n\x0b\f\r", '"\\/', "\u2028\u2029", "\ud800", "\udc00",
    "\ud800\udc00", "\udc00\ud800", "\ud83d\ud83d\ude00", "a\ud800b", "\U0001f600",
    1e21, 1e-7, 1e-6, -0.0, 0.0, 5e-324, 1.7976931348623157e308, 1.2345678901234568e20, 30.0,
    2.0**53, 0.1, 123e-20, 1.5e-7, 100.0, -1.5, MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER, 0,
    True, False, None, [], {},
    {"b": 1, "4294967295": 2, "4294967294": 3, "01": 4, "1": 5, "0": 6, "-1": 7, "1.0": 8},
    dict([(chr(0xD800), 1), ("x", 2), (chr(0xDC00), 3)]),  # two names that well-form alike
    dict([("\ufffd", 0), (chr(0xD800), 1)]),
    {"__proto__": {"a": 1}, "constructor": 2},
    {"10": {"2": [1.0, {"1": "\udfff"}]}, "a": [1e-7, -0.0]},
]


def test_edge_values_agree_with_node() -> None:
    """Every special case of §6 (escapes, surrogates, numbers, member order) matches Node."""
    assert_agree(EDGE_VALUES)


def test_float_layout_edges_agree_with_node() -> None:
    """Around every power of ten a double holds, where orjson's and ECMAScript's layouts switch
    (1e-7, 1e-6, 1e-5, 1e16, 1e21), the fast path's numbers are Node's: one node process."""
    values: list[Any] = []
    for exponent in range(-323, 309):
        power = float(f"1e{exponent}")
        for value in (power, math.nextafter(power, 0.0), math.nextafter(power, math.inf),
                      1.5 * power, 1.2345678901234567 * power):
            if math.isfinite(value):
                values += [value, -value]
    values += [0.1 + 0.2, 123456789.123, 2.0**53, 2.0**53 + 2.0, 2.0**53 - 1, 9999999999999998.0]
    assert_agree([values[i:i + 500] for i in range(0, len(values), 500)])


def test_escaped_costs_agree_with_node() -> None:
    """The per-code-point cost table is Node's byte length of the escaped character."""
    characters = [chr(code) for code in range(0x100)] + [
        "\u0800", "\u2028", "\u2029", "\uffff", "\ud800", "\udbff", "\udc00", "\udfff",
        "\U00010000", "\U0001f600", "\U0010ffff", "\u07ff", "€"]
    answers = node_bytes(characters)
    for character, (_, length) in zip(characters, answers, strict=True):
        assert escaped_cost(character) == length - 2, repr(character)


def generated(strategy: st.SearchStrategy[Any], count: int) -> list[Any]:
    """``count`` values drawn by Hypothesis, to be checked together in one node process.

    Drawing a whole batch as one example would exceed Hypothesis's entropy budget; collecting
    single draws keeps generation honest, and a failure still names the exact value.
    """
    values: list[Any] = []

    @settings(max_examples=count, deadline=None, database=None)
    @given(strategy)
    def collect(value: Any) -> None:
        values.append(value)

    collect()
    return values


@pytest.mark.parametrize("batch", range(2))
def test_generated_values_agree_with_node(batch: int) -> None:
    """Generated JSON values serialize to exactly Node's bytes, a few hundred per node process."""
    assert_agree(generated(VALUES, 250))


BOUND_CASES = st.tuples(STRINGS, STRINGS, STRINGS, st.integers(1, 2000),
                        st.integers(4096, 6000), st.sampled_from(["halving", "maximal"]))


def test_bounded_forms_agree_with_node() -> None:
    """Bounded lines are canonical for Node too, and Node measures them within maxBytes."""
    cases = generated(BOUND_CASES, 120)
    forms, bounds = [], []
    for call_id, name, piece, repeat, max_bytes, strategy in cases:
        update = {"type": "tool_execution_update", "toolCallId": call_id * 40,
                  "toolName": name, "args": {}, "partialResult": piece * repeat}
        forms.append(bound_live_update(update, max_bytes=max_bytes, fit_strategy=strategy))
        bounds.append(max_bytes)
    assert_agree(forms)
    for (_, length), max_bytes in zip(node_bytes(forms), bounds, strict=True):
        assert length <= max_bytes
