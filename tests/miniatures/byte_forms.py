"""Ports that write or measure one byte form other than the canonical one (wire.md §6.2-6.5,
budget.md §1), each otherwise the plain port of :mod:`miniatures.wire` or the reference.

A byte form written differently breaks the SHOULD rule ``canon.bytes``; it breaks a MUST rule
only where the bytes decide something: a line within a few bytes of ``maxBytes`` (bounded or
not, which tail), a heavy field within a few bytes of its allowance (budget.md §4-5). Some of
these ports write the canonical bytes and only measure another form, so nothing but a MUST rule
can catch them. ``WIRE_BYTE_FORMS`` and ``BUDGET_BYTE_FORMS`` list them.
"""

from __future__ import annotations

import json
from typing import Any

from miniatures.budget import BudgetPipeline, _bytes
from miniatures.wire import _SHORT_ESCAPES, MaximalPipeline, Pipeline


class MeasuresLineSeparatorsEscaped(Pipeline):
    """Writes U+2028 and U+2029 raw, as ``JSON.stringify`` does, but measures them as the
    six-byte ``\\u2028``/``\\u2029`` escapes of a "JavaScript-safe" encoder used for sizing."""

    name = "measures-line-separators-escaped"

    def measure(self, value: Any) -> int:
        text = self.encode(value)
        return len(text.encode("utf-8")) + 3 * (text.count("\u2028") + text.count("\u2029"))


class MeasuresUtf16Units(Pipeline):
    """Measures a line in UTF-16 code units (JavaScript's ``line.length``) instead of UTF-8
    bytes: é counts 1 where it costs 2, € 1 for 3, an astral character 2 for 4."""

    name = "measures-utf16-units"

    def measure(self, value: Any) -> int:
        return len(self.encode(value).encode("utf-16-le")) // 2


class EscapesSlash(Pipeline):
    """Writes ``/`` as ``\\/`` (PHP's ``json_encode`` default, Java's org.json), and measures the
    line it writes."""

    name = "escapes-slash"
    extra_escapes = "/"

    def escape(self, char: str) -> str:
        return "\\/" if char == "/" else super().escape(char)


class NegativeZeroKept(Pipeline):
    """Writes ``-0`` for negative zero (Go's ``strconv``, C's ``%g``) where ``Number::toString``
    writes ``0``, and measures the line it writes."""

    name = "negative-zero-kept"

    def number(self, x: float) -> str:
        return "-0" if x == 0 and str(x).startswith("-") else super().number(x)


class ExponentFromTwenty(Pipeline):
    """Switches to exponent form one digit early: ``1e20`` as ``1e+20`` where
    ``Number::toString`` writes ``100000000000000000000`` (the switch is at 10^21)."""

    name = "exponent-from-twenty"

    def number(self, x: float) -> str:
        if x != 0 and 1e20 <= abs(x) < 1e21:
            return json.dumps(x)
        return super().number(x)


class IntegralDoublesInFull(Pipeline):
    """Writes an integral double of any size in full (Go's ``FormatFloat(x, 'f', -1, 64)``):
    ``1e21`` as ``1000000000000000000000`` where ``Number::toString`` writes ``1e+21``."""

    name = "integral-doubles-in-full"

    def number(self, x: float) -> str:
        if x.is_integer() and abs(x) >= 1e21:
            return str(int(x))
        return super().number(x)


class LongControlEscapes(Pipeline):
    """Writes every control character as ``\\u00xx``, ``\\n`` and ``\\t`` included (six bytes
    where the short forms cost two), and measures the line it writes."""

    name = "long-control-escapes"

    def escape(self, char: str) -> str:
        if char in '"\\':
            return _SHORT_ESCAPES[char]
        return f"\\u{ord(char):04x}" if ord(char) < 0x20 else super().escape(char)


class MeasuresLoneSurrogatesEscaped(Pipeline):
    """Writes a lone surrogate as U+FFFD but measures it as the six-byte ``\\udxxx`` escape
    ``JSON.stringify`` writes before ``toWellFormed`` (three bytes more than U+FFFD's three)."""

    name = "measures-lone-surrogates-escaped"

    def measure(self, value: Any) -> int:
        return super().measure(value) + 3 * self.encode(value).count("\ufffd")


# -- budget (budget.md §1: cost is the wire measure) -------------------------------------------


class _BudgetMeasure(BudgetPipeline):
    """Sizes a live record with the same measure it cuts with (budget.md §6.2)."""

    def record_size(self, live: dict[str, Any]) -> int:
        strings = [*live, *(value for value in live.values() if isinstance(value, str))]
        return super().record_size(live) + sum(self.measure(text) - _bytes(text)
                                               for text in strings)


class BudgetMeasuresLineSeparatorsEscaped(_BudgetMeasure):
    """Measures U+2028 and U+2029 as their six-byte escapes when it cuts (budget.md §4)."""

    name = "budget-measures-line-separators-escaped"

    def measure(self, text: str) -> int:
        return _bytes(text) + 3 * (text.count("\u2028") + text.count("\u2029"))


class BudgetMeasuresUtf16Units(_BudgetMeasure):
    """Measures a field's cost in UTF-16 units of its escaped form (JavaScript's
    ``JSON.stringify(s).length - 2``) instead of UTF-8 bytes."""

    name = "budget-measures-utf16-units"

    def measure(self, text: str) -> int:
        return len(json.dumps(text, ensure_ascii=False).encode("utf-16-le", "surrogatepass")) \
            // 2 - 2


class BudgetMeasuresSlashEscaped(_BudgetMeasure):
    """Measures ``/`` as the two bytes of ``\\/`` (an encoder that escapes it)."""

    name = "budget-measures-slash-escaped"

    def measure(self, text: str) -> int:
        return _bytes(text) + text.count("/")


class BudgetLongControlEscapes(_BudgetMeasure):
    """Measures ``\\n``, ``\\t`` and the other short escapes as six-byte ``\\u00xx``."""

    name = "budget-long-control-escapes"

    def measure(self, text: str) -> int:
        return _bytes(text) + 4 * sum(text.count(char) for char in "\b\t\n\f\r")


class BudgetMeasuresLoneSurrogatesEscaped(_BudgetMeasure):
    """Measures a lone surrogate (U+FFFD once well-formed) as its six-byte ``\\udxxx``."""

    name = "budget-measures-lone-surrogates-escaped"

    def measure(self, text: str) -> int:
        return _bytes(text) + 3 * text.count("\ufffd")


def _maximal(cls: type[Pipeline]) -> type[Pipeline]:
    """``cls`` declaring and using the maximal fit."""
    return type(f"{cls.__name__}Maximal", (MaximalPipeline, cls),
                {"name": f"{cls.name}-maximal", "__doc__": cls.__doc__})


_WIRE = (MeasuresLineSeparatorsEscaped, MeasuresUtf16Units, EscapesSlash, NegativeZeroKept,
         ExponentFromTwenty, IntegralDoublesInFull, LongControlEscapes,
         MeasuresLoneSurrogatesEscaped)
#: Every wire byte-form port, with either fit strategy: name -> class.
WIRE_BYTE_FORMS: dict[str, type[Pipeline]] = {
    cls.name: cls for cls in (*_WIRE, *map(_maximal, _WIRE))}
#: Every budget byte-form port -> the operations whose answers its measure decides.
BUDGET_BYTE_FORMS: dict[type[BudgetPipeline], tuple[str, ...]] = {
    cls: ("details", "roster") for cls in (
        BudgetMeasuresLineSeparatorsEscaped, BudgetMeasuresUtf16Units,
        BudgetMeasuresSlashEscaped, BudgetLongControlEscapes,
        BudgetMeasuresLoneSurrogatesEscaped)}
