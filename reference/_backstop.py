"""The backstop: bound one oversized ``tool_execution_update`` line (spec/wire.md §5).

The bounded form keeps both ids (clipped), drops everything else, and carries the marker plus a
tail of the update's text: a suffix counted in code points, as long as the declared fit strategy
allows. The clear searches below serialize every candidate and measure it, exactly as §5.5 reads;
:func:`halving_tail_fast` and :func:`maximal_tail_fast` find the same tails with two serializations
(§5.6 explains why the size of a candidate is the envelope's plus the escaped cost of its tail),
measuring only the end of the text that can possibly fit.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ._canonical import canonical_bytes, escaped_size, well_formed
from ._errors import InvalidInput

#: Opens the bounded text: a reader meets the warning before the tail (wire.md §5.3).
MARKER = "[live output truncated]\n"
#: toolCallId and toolName keep at most this many code points, from the start (wire.md §5.4).
ID_CLIP_CODE_POINTS = 256
#: The most bytes one code point costs once escaped: a control character as ``\u00xx`` (§6.5).
MAX_ESCAPED_CODE_POINT_BYTES = 6
#: The empty-tail bounded line with empty ids, in bytes (wire.md §5.6).
EMPTY_ENVELOPE_BYTES = len(canonical_bytes({
    "type": "tool_execution_update", "toolCallId": "", "toolName": "",
    "partialResult": {"content": [{"type": "text", "text": MARKER}]},
}))
#: The smallest maxBytes: the largest empty-tail bounded line, so the empty tail always fits and
#: every branch of the search stays reachable (wire.md §5.6): 143 + 2 x 256 x 6 = 3215.
#: The byte bound of a live update line when a request names none (wire.md §5.1, §8).
DEFAULT_MAX_BYTES = 262144
MIN_MAX_BYTES = EMPTY_ENVELOPE_BYTES + 2 * ID_CLIP_CODE_POINTS * MAX_ESCAPED_CODE_POINT_BYTES
#: The fit strategies an implementation may declare (wire.md §5.5).
FIT_STRATEGIES = ("halving", "maximal")
#: How a search runs: ``fast`` (default) or ``clear`` (serialize every candidate; the spec).
METHODS = ("fast", "clear")


@dataclass
class BoundStats:
    """What one bounding did, for tests and benchmarks."""

    #: Canonical serializations of a candidate bounded form (each costs O(line) work).
    serializations: int = 0
    #: Tail lengths (code points) whose bounded form was serialized, in order.
    candidates: list[int] = field(default_factory=list)
    #: ``halving``: the tail lengths whose fit was decided, in order (the last one fits).
    tried: list[int] = field(default_factory=list)
    #: Code points whose escaped cost the fast searches measured, over all their pieces.
    measured: int = 0


# -- §5.3 text ---------------------------------------------------------------------------------


def extract_text(partial_result: Any) -> str:
    """The text of a ``partialResult`` (wire.md §5.3), every string well-formed first.

    A string is its own text. An object whose ``content`` is an array contributes the ``text``
    of every element that is an object with ``"type": "text"`` and a string ``text``, joined with
    ``""`` in order. Anything else (null, a number, an array, an object without array content)
    has the empty text.
    """
    if isinstance(partial_result, str):
        return well_formed(partial_result)
    if isinstance(partial_result, Mapping):
        content = partial_result.get("content")
        if isinstance(content, list):
            # Each piece is well-formed on its own: two halves of a pair in different blocks
            # never meet to form a character neither block contained (wire.md §5.3).
            return "".join(
                well_formed(block["text"])
                for block in content
                if isinstance(block, Mapping)
                and block.get("type") == "text"
                and isinstance(block.get("text"), str)
            )
    return ""


# -- §5.4 ids ----------------------------------------------------------------------------------


def clip_id(value: str) -> str:
    """The first :data:`ID_CLIP_CODE_POINTS` code points of ``well_formed(value)`` (§5.4)."""
    return well_formed(value)[:ID_CLIP_CODE_POINTS]


# -- §5.2 bounded form -------------------------------------------------------------------------


def bounded_form(tool_call_id: str, tool_name: str, tail: str) -> dict[str, Any]:
    """The bounded form with already clipped ids and ``tail``, in its exact key order (§5.2)."""
    return {
        "type": "tool_execution_update",
        "toolCallId": tool_call_id,
        "toolName": tool_name,
        "partialResult": {"content": [{"type": "text", "text": MARKER + tail}]},
    }


def tail_of(text: str, k: int) -> str:
    """The last ``k`` code points of ``text``; ``k == 0`` is the empty string (never ``[-0:]``)."""
    return text[len(text) - k:]


def halving_candidates(n: int) -> Iterator[int]:
    """The tail lengths ``halving`` tries: n, ⌊n/2⌋, ⌊n/4⌋, …, 1, 0 (wire.md §5.5)."""
    k = n
    while True:
        yield k
        if k == 0:
            return
        k //= 2


#: Code points measured at once by :meth:`_Measure.cost`.
_MEASURE_PIECE = 1 << 15


class _Measure:
    """Serializes candidate bounded forms for one update and counts the work."""

    def __init__(self, tool_call_id: str, tool_name: str, text: str, stats: BoundStats) -> None:
        self.tool_call_id = tool_call_id
        self.tool_name = tool_name
        self.text = text
        self.stats = stats
        #: The last candidate serialized and its line.
        self.last: tuple[int, bytes] | None = None

    def line(self, k: int) -> bytes:
        self.stats.serializations += 1
        self.stats.candidates.append(k)
        line = canonical_bytes(bounded_form(self.tool_call_id, self.tool_name,
                                            tail_of(self.text, k)))
        self.last = (k, line)
        return line

    def fits(self, k: int, max_bytes: int) -> bool:
        return len(self.line(k)) <= max_bytes

    def cost(self, start: int, stop: int) -> int:
        """The escaped cost of ``text[start:stop]`` (§6.5), counted in ``measured``.

        The cost is additive, so it is measured :data:`_MEASURE_PIECE` code points at a time:
        a serializer reserves room for the worst case of what it writes (orjson up to 48 bytes
        per code point of non-ASCII text), and small pieces keep that reservation small.
        """
        return self.cost_within(start, stop, None)

    def cost_within(self, start: int, stop: int, limit: int | None) -> int:
        """:meth:`cost`, measured from ``stop`` back towards ``start``; with a ``limit``, it
        stops at the first piece that takes the cost past it and answers that partial cost
        (more than ``limit``, which is all a search needs to know)."""
        text = self.text
        total = 0
        end = stop
        while end > start:
            begin = max(start, end - _MEASURE_PIECE)
            self.stats.measured += end - begin
            total += escaped_size(text[begin:end])
            if limit is not None and total > limit:
                break
            end = begin
        return total


# -- §5.5 fit strategies, as the spec reads --------------------------------------------------


def halving_tail(measure: _Measure, max_bytes: int) -> int:
    """``halving``: the first of n, ⌊n/2⌋, …, 1, 0 whose bounded form fits (wire.md §5.5)."""
    for k in halving_candidates(len(measure.text)):
        measure.stats.tried.append(k)
        if measure.fits(k, max_bytes):
            return k
    # k = 0 always fits (wire.md §5.6), so the loop returns before it ends.
    raise AssertionError("unreachable")  # pragma: no cover


def maximal_tail_clear(measure: _Measure, max_bytes: int) -> int:
    """``maximal`` by serializing candidates: the largest k in [0, n] that fits (wire.md §5.5).

    Fit is monotone in k (§5.6), so a binary search over serialized candidates finds it; k = 0
    fits by §5.6, which is the search's invariant.
    """
    low, high = 0, len(measure.text)
    while low < high:
        middle = (low + high + 1) // 2
        if measure.fits(middle, max_bytes):
            low = middle
        else:
            high = middle - 1
    return low


def halving_tail_fast(measure: _Measure, max_bytes: int) -> int:
    """``halving`` by measuring tails: the envelope's size plus escaped tail costs (§5.6).

    ``candidate(k)`` has ``size(candidate(0)) + cost(tail)`` bytes and every code point costs
    1 to :data:`MAX_ESCAPED_CODE_POINT_BYTES` bytes, so a candidate longer than the budget does
    not fit and one at most a sixth of it fits, both unmeasured. Fit is monotone in k, so the
    first candidate of n, ⌊n/2⌋, … that fits is the longest candidate that fits: the others
    are decided from the shortest up, the text measured once from its end backwards, and the
    measuring stops as soon as the cost passes the budget. It reads about as many code points
    as the budget holds, however long the text.
    """
    text = measure.text
    n = len(text)
    budget = max_bytes - len(measure.line(0))
    candidates = list(halving_candidates(n))
    answer = 0  # k = 0 always fits (wire.md §5.6)
    measured_from, cost = n, 0  # text[measured_from:] costs `cost`
    for k in reversed(candidates):
        if k > budget:
            break  # k code points cost at least k bytes: this and every longer one are over
        if k * MAX_ESCAPED_CODE_POINT_BYTES > budget:
            cost += measure.cost_within(n - k, measured_from, budget - cost)
            measured_from = n - k
            if cost > budget:
                break
        answer = k
    # Every candidate from n down to the answer was decided, by a bound or by measuring.
    measure.stats.tried.extend(k for k in candidates if k >= answer)
    return answer


#: Code points at the end of the text whose cost estimates the cost of the whole tail.
_SAMPLE_CODE_POINTS = 2048
#: Each piece aims this far below what the budget left is predicted to hold, so that it fits
#: although the cost per code point varies along the text.
_PIECE_MARGIN = 0.97


def maximal_tail_fast(measure: _Measure, max_bytes: int) -> int:
    """``maximal`` with one serialization: the envelope's size plus escaped tail costs (§5.6).

    The line for tail length k is the empty-tail line plus the escaped cost of the tail, and
    the escaped cost of a string is the sum of its code points' costs, each at least one byte.
    So the tail grows from the end of the text while the budget lasts, a piece at a time: a
    piece that fits is kept, one that does not is halved, and the search stops exactly at the
    first code point that no longer fits. Each piece is sized from the cost per code point seen
    so far (first from a small sample of the end of the text), so the pieces measured add up to
    little more than the tail kept, whatever the text's bytes per code point.
    """
    text = measure.text
    budget = max_bytes - len(measure.line(0))
    start = len(text)  # the tail is text[start:]
    # Each code point costs at least one byte, so no more than `budget` of them fit.
    size = min(budget, start, _SAMPLE_CODE_POINTS)
    kept_cost = kept = 0
    while size > 0:
        cost = measure.cost(start - size, start)
        if cost <= budget:
            budget -= cost
            start -= size
            kept_cost += cost
            kept += size
            estimate = int(budget * kept / kept_cost * _PIECE_MARGIN)
            size = min(budget, start, max(1, estimate))
        else:
            size //= 2
    return len(text) - start


# -- the public entry --------------------------------------------------------------------------


def check_max_bytes(max_bytes: Any) -> int:
    """``max_bytes`` if it is an integer >= :data:`MIN_MAX_BYTES` (wire.md §5.6), else raise.

    A float with no fraction (``4096.0``) is that integer, as in JSON; ``True`` is not a number.
    """
    if isinstance(max_bytes, float) and max_bytes.is_integer():
        max_bytes = int(max_bytes)
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < MIN_MAX_BYTES:
        raise InvalidInput(
            value=max_bytes, path="$.maxBytes",
            reason=f"is not an integer >= {MIN_MAX_BYTES}: below that the bounded form may not "
                   "fit at all (wire.md §5.6)",
            fix=f"Send an integer of at least {MIN_MAX_BYTES}, or leave it at 262144.",
        )
    return max_bytes


def check_fit_strategy(fit_strategy: Any) -> str:
    """``fit_strategy`` if it names a strategy of wire.md §5.5, else raise."""
    if fit_strategy not in FIT_STRATEGIES:
        raise InvalidInput(
            value=fit_strategy, path="fitStrategy", reason="is not a fit strategy",
            fix="Use 'halving' or 'maximal' (spec/wire.md §5.5).",
        )
    return str(fit_strategy)


def _id(update: Mapping[str, Any], key: str) -> str:
    value = update.get(key)
    if not isinstance(value, str):
        raise InvalidInput(
            value=value, path=f"$.event.{key}",
            reason="is not a string, so the bounded form cannot carry it (wire.md §5.4, §7)",
            fix=f"Send {key} as a string, as schemas/agent-event.json requires.",
        )
    return value


def bound_with_line(
    update: Mapping[str, Any], *, max_bytes: int, fit_strategy: str,
    stats: BoundStats | None = None, method: str = "fast",
) -> tuple[dict[str, Any], bytes]:
    """The bounded form of ``update`` and its canonical line (see :func:`bound_live_update`)."""
    max_bytes = check_max_bytes(max_bytes)
    check_fit_strategy(fit_strategy)
    if method not in METHODS:
        raise InvalidInput(value=method, path="method", reason="is not a search method",
                           fix="Use 'fast' or 'clear'.")
    measure = _Measure(
        clip_id(_id(update, "toolCallId")), clip_id(_id(update, "toolName")),
        extract_text(update.get("partialResult")), stats if stats is not None else BoundStats(),
    )
    if fit_strategy == "halving":
        k = (halving_tail if method == "clear" else halving_tail_fast)(measure, max_bytes)
    elif method == "clear":
        k = maximal_tail_clear(measure, max_bytes)
    else:
        k = maximal_tail_fast(measure, max_bytes)
    form = bounded_form(measure.tool_call_id, measure.tool_name, tail_of(measure.text, k))
    if measure.last is not None and measure.last[0] == k:
        return form, measure.last[1]  # the search's last candidate is the answer: reuse its bytes
    return form, measure.line(k)


def bound_live_update(
    update: Mapping[str, Any], *, max_bytes: int, fit_strategy: str,
    stats: BoundStats | None = None, method: str = "fast",
) -> dict[str, Any]:
    """The bounded form of a ``tool_execution_update`` (wire.md §5.2-5.5), whose line fits
    ``max_bytes`` (wire.md §5.1).

    ``{"type", "toolCallId": clip(id), "toolName": clip(name), "partialResult": {"content":
    [{"type": "text", "text": MARKER + tail}]}}`` where the tail is the longest suffix of the
    extracted text that ``fit_strategy`` picks so that the line is at most ``max_bytes``
    bytes. Pass a :class:`BoundStats` to learn how many candidates were serialized; ``method=
    "clear"`` runs the searches that serialize every candidate they try.
    """
    form, _ = bound_with_line(update, max_bytes=max_bytes, fit_strategy=fit_strategy,
                              stats=stats, method=method)
    return form
