"""The wire profile's strategies: updates whose size sits a few bytes from ``maxBytes`` while
holding every byte form the canonical serialization decides (wire.md §6.2-6.5).

A port that writes or measures one of these forms otherwise (``\\u2028`` escaped, ``1e20`` as
``1e+20``, ``-0`` kept, ``/`` escaped, ``\\n`` as ``\\u000a``, UTF-16 units for bytes, a lone
surrogate measured as its escape) gets another size for the same line. Built at ``maxBytes + k``
for every ``k`` in -3..3, such a line decides a MUST answer (§5.1: written whole or bounded;
§5.5: which tail), not only the SHOULD byte-form rule: on one side of the bound a port that
measures more bounds a line that fits, on the other a port that measures less writes a line
over the bound. The forms sit where the answer depends on them: in the whole line (args, ids,
text), in the part of the text a bounded line keeps (its end) and in the part it cuts (its
start).
"""

from __future__ import annotations

from typing import Any

from eventproof.reference import DEFAULT_MAX_BYTES, canonical_bytes

from .events import full_text_bounded_size
from .values import Event, OpInput

#: Characters whose canonical form (§6.2) or cost (§6.5) a port may get wrong: raw U+2028/2029,
#: the short escapes and the ``\\u00xx`` ones, ``"``/``\\``, ``/`` unescaped, lone surrogates
#: (U+FFFD, three bytes), astral characters (four bytes, two UTF-16 units), two- and three-byte
#: ones, U+007F raw and the characters HTML-safe encoders escape.
BYTE_FORM_CHARACTERS: tuple[str, ...] = (
    "\u2028", "\u2029", "\x00", "\x1f", "\x01", "\n", "\t", "\b", "\f", "\r", '"', "\\", "/",
    "\ud800", "\udfff", "\U0001f600", "\U0010ffff", "\u00e9", "\u20ac", "\x7f", "<", "&", ">",
    "\u07ff", "\u0800", "\uffff",
)
#: Every character of :data:`BYTE_FORM_CHARACTERS`, each after an ``x`` (so that no two
#: surrogates meet and pair): what a text, an id or an argument holds.
BYTE_FORM_TEXT = "".join("x" + char for char in BYTE_FORM_CHARACTERS)
#: Numbers whose ``Number::toString`` form (§6.3) a port may write otherwise: 10^20 in full and
#: 10^21 in exponent form, negative zero as ``0``, small and large exponents, the largest
#: double, negative integral doubles past 2^53, integral doubles written as integers.
BYTE_FORM_NUMBERS: tuple[float, ...] = (
    1e20, -1e20, 1e21, -1e21, -0.0, 1.5e-7, 1e-7, 1e-6, 1e300, -1.7976931348623157e308,
    5e-324, -9007199254740994.0, -123456789012345680000.0, 123456789012345680000.0, 30.0,
    1e16, -2.5e-8,
)
#: Where the forms sit: the whole line (numbers in ``args``, characters in the text, the id and
#: ``args``), or only the text of a bounded line, at its end (kept) or its start (cut).
PLACES = ("line", "kept", "cut")
#: How far from ``maxBytes`` the deciding size is built.
OFFSETS = tuple(range(-3, 4))
#: ASCII ``args`` that take a line over the bound whatever the text: "kept" and "cut" decide
#: on the bounded form only.
_OVER_ARGS = "p" * 400


def _args(place: str) -> dict[str, Any]:
    """``args`` holding every number, bare, in an array and nested, and the characters."""
    numbers = list(BYTE_FORM_NUMBERS)
    args: dict[str, Any] = {"n": numbers[0], "numbers": numbers,
                            "nested": [{"x": number} for number in numbers[::3]],
                            "s": BYTE_FORM_TEXT}
    if place != "line":
        args["pad"] = _OVER_ARGS
    return args


def byte_form_update(place: str, offset: int, max_bytes: int) -> Event:
    """A ``tool_execution_update`` holding every byte form, whose deciding size is exactly
    ``max_bytes + offset`` bytes: the line itself for ``place`` "line"; for "kept" and "cut" (a
    line over the bound) the bounded form with the whole text, the forms at the end of the text
    (the part a tail keeps) or at its start (the part a cut drops)."""
    text_holder = {"type": "text", "text": ""}
    event: Event = {
        "type": "tool_execution_update", "toolCallId": "call_" + BYTE_FORM_TEXT[:12],
        "toolName": "bash", "args": _args(place),
        "partialResult": {"content": [text_holder], "details": {"z": -0.0, "e": 1e21}},
    }
    target = max_bytes + offset
    if place == "line":
        text_holder["text"] = BYTE_FORM_TEXT
        room = target - len(canonical_bytes(event))
        text_holder["text"] = BYTE_FORM_TEXT + "x" * room
    else:
        room = target - full_text_bounded_size(event, text=BYTE_FORM_TEXT)
        padding = "x" * room
        text_holder["text"] = (padding + BYTE_FORM_TEXT if place == "kept"
                               else BYTE_FORM_TEXT + padding)
    return event


def byte_form_inputs(max_bytes: int) -> tuple[OpInput, ...]:
    """Every place and offset of :func:`byte_form_update` at ``max_bytes``, opted in."""
    return tuple({"event": byte_form_update(place, offset, max_bytes), "includeLiveEvents": True,
                  "maxBytes": max_bytes}
                 for place in PLACES for offset in OFFSETS)


#: The bound the built inputs use when ``maxBytes`` may vary: small, so lines stay small.
BYTE_FORM_BOUND = 4096


def byte_form_bound(variable: bool) -> int:
    """The bound of the built inputs: :data:`BYTE_FORM_BOUND`, or the default when the
    implementation declared that ``maxBytes`` is fixed."""
    return BYTE_FORM_BOUND if variable else DEFAULT_MAX_BYTES
