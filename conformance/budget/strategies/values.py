"""The budget profile's strategies: head, text, records."""

from __future__ import annotations

from functools import cache
from typing import Any

from eventproof.reference._budget import cost
from eventproof.reference._canonical import MAX_SAFE_INTEGER, well_formed
from hypothesis import strategies as st

from ..._reused import BOOLEANS, integers, sampled

Record = dict[str, Any]
OpInput = dict[str, Any]

#: The largest integer of a budget input (budget.md §1).
MAX_INTEGER = MAX_SAFE_INTEGER
#: Integers at the edges of the widths ports hold sizes, counts and times in: the profile's
#: largest, one below it, and the edges of 32-bit integers (a size held in an ``int32``, or
#: truncated by ``x | 0``, is wrong there and right everywhere below).
WIDE_INTEGERS = (MAX_INTEGER - 1, MAX_INTEGER, MAX_INTEGER - 1, MAX_INTEGER, 2**31 - 1, 2**31,
                 2**32)
#: Code points of the clip of ids and agents (budget.md §3.2).
CLIP = 256

STATUSES = ("pending", "running", "completed", "failed", "cancelled")
#: Characters whose cost differs from one byte, or that a cut in UTF-16 units splits.
AWKWARD = ("\x00", "\x1b", "\x07", "\n", "\t", '"', "\\", "é", "€", "\u2028", "\U0001f600",
           "\ud800", "\udc00", "\x7f")
#: What a runner's record carries besides the allow-listed members (budget.md §2.3).
EXTRA_MEMBERS = ("messages", "sessionFile", "usage", "partial", "cancelledPrompts")


# Strategies drawn inside composites are built once and reused (conformance/_reused.py).


@cache
def _permutations(count: int) -> st.SearchStrategy[list[int]]:
    """Orders of ``count`` items, as indices: the draws of ``st.permutations`` of any ``count``
    items (a shuffle of their positions), from one strategy per count."""
    return st.permutations(range(count))


# -- text ----------------------------------------------------------------------------------------


# Every strategy factory below is cached: Hypothesis validates a strategy object the first time
# it is drawn from, so building a fresh one inside every draw (a record's texts, a batch's
# records) would spend most of a run validating identical strategies.

#: A short unit a long text repeats.
UNITS: st.SearchStrategy[str] = st.one_of(
    st.text(min_size=1, max_size=6),
    st.lists(st.sampled_from((*AWKWARD, "a", "b", " ")), min_size=1, max_size=5).map("".join),
    st.sampled_from(("x", "line\n", "\x00", "\x1b[31mred\x1b[0m ", "é", "\U0001f600a")),
)


@cache
def short_text(max_size: int = 12) -> st.SearchStrategy[str]:
    """A short text, awkward characters and lone surrogates included."""
    return st.lists(st.one_of(st.sampled_from(AWKWARD), st.characters()), max_size=max_size) \
        .map("".join) | st.text(max_size=max_size)


def _repeat(unit: str, n: int) -> str:
    return unit * max(1, n // len(unit))


@cache
def repeated(min_bytes: int, max_bytes: int) -> st.SearchStrategy[str]:
    """A unit repeated to about ``min_bytes``-``max_bytes`` code points (cheap at any size)."""
    return st.builds(_repeat, UNITS, st.integers(min_bytes, max_bytes))


@cache
def heavy_text(max_bytes: int) -> st.SearchStrategy[str]:
    return st.one_of(short_text(), repeated(1, max_bytes))


# -- records -----------------------------------------------------------------------------------


#: The code point a clip-edge identity holds near the clip: one whose UTF-16 length, escaped size
#: or well-formed form differs from a plain letter's.
_CLIP_EDGE_CHARS = ("a", "\U0001f600", "\ud800", "\u00e9", "\x00")


@st.composite
def _clip_edge(draw: st.DrawFn, length: int | None = None) -> str:
    """An identity of exactly 255, 256 or 257 code points (budget.md §3.2; ``length`` fixes
    which), with an astral character, a lone surrogate or an escape at or next to the clip:
    kept whole, kept whole at the clip, or clipped by one."""
    if length is None:
        length = draw(sampled((CLIP - 1, CLIP, CLIP + 1)))
    unit = draw(sampled(("a", "id-", "\u00e9", "\U0001f600")))
    points = list((unit * length)[:length])
    for index in draw(st.lists(sampled((CLIP - 2, CLIP - 1, CLIP)), max_size=2)):
        if index < length:
            points[index] = draw(sampled(_CLIP_EDGE_CHARS))
    return "".join(points)


def clip_edge(length: int | None = None) -> st.SearchStrategy[str]:
    """Identities at the clip (see ``_clip_edge``); with ``length``, of that many code points."""
    return _CLIP_EDGE if length is None else _CLIP_EDGES[length]


_CLIP_EDGE = _clip_edge()
_CLIP_EDGES = {length: _clip_edge(length) for length in (CLIP - 1, CLIP, CLIP + 1)}


@cache
def ids() -> st.SearchStrategy[str]:
    return st.one_of(
        st.integers(0, 999).map(lambda n: f"call_{n:03d}"),
        short_text(8),
        repeated(250, 600),  # over the 256-code-point clip
        _CLIP_EDGE,
    )


_NAMES = st.sampled_from(("worker", "reviewer", "tester"))
#: An agent's name: mostly short, but as long as an id can be (nothing bounds either, §3.2).
_AGENTS = st.one_of(_NAMES, _NAMES, short_text(6), repeated(250, 600), _CLIP_EDGE)
#: Whether an optional heavy field is present: output half the time, a reason rarely, but
#: mostly on a failure.
_PRESENT = {"output": st.booleans(), "other": st.sampled_from((False, False, True)),
            "reason": st.sampled_from((True, True, False))}
_EXTRA_NAMES = st.lists(st.sampled_from(EXTRA_MEMBERS), min_size=1, max_size=3, unique=True)
_EXTRA_VALUES = st.one_of(
    repeated(1, 3000),
    st.builds(lambda text: [{"role": "assistant", "content": [{"type": "text", "text": text}]}],
              repeated(1, 3000)),
    st.integers(0, 10**6),
)


@st.composite
def _task_records(draw: st.DrawFn, max_bytes: int, status: str | None,
                  extras: bool) -> Record:
    record: Record = {
        "id": draw(ids()), "agent": draw(_AGENTS),
        "status": status or draw(sampled(STATUSES)),
        "task": draw(heavy_text(max_bytes)),
    }
    for name in ("output", "errorMessage", "stderr"):
        wanted = _PRESENT["output" if name == "output" else
                          "reason" if record["status"] == "failed" else "other"]
        if draw(wanted):
            record[name] = draw(heavy_text(max_bytes))
    if extras or draw(integers(0, 5)) == 0:
        for name in draw(_EXTRA_NAMES):
            record[name] = draw(_EXTRA_VALUES)
    return record


@cache
def task_records(*, max_bytes: int = 2000, status: str | None = None,
                 extras: bool = False) -> st.SearchStrategy[Record]:
    """One task record; heavy fields up to about ``max_bytes`` code points each."""
    return _task_records(max_bytes, status, extras)


@cache
def _picks(templates: int, n: int) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(0, templates - 1), min_size=n, max_size=n)


@st.composite
def _batches(draw: st.DrawFn, min_size: int, max_size: int, max_bytes: int,
             templates: int) -> list[Record]:
    n = draw(integers(min_size, max_size))
    records = task_records(max_bytes=max_bytes)
    if n <= templates:
        return [draw(records) for _ in range(n)]
    drawn = [draw(records) for _ in range(templates)]
    picks = draw(_picks(templates, n))
    return [{**drawn[pick], "id": f"task-{i:04d}"} for i, pick in enumerate(picks)]


@cache
def batches(*, min_size: int = 0, max_size: int = 6, max_bytes: int = 2000,
            templates: int = 3) -> st.SearchStrategy[list[Record]]:
    """A batch: ``templates`` drawn records repeated under fresh ids up to ``max_size``."""
    return _batches(min_size, max_size, max_bytes, templates)




# -- edges ---------------------------------------------------------------------------------------

#: Units a field at an edge is made of: one byte, escapes, two, three and four bytes, and a lone
#: surrogate (three bytes once well-formed).
EDGE_UNITS = ("a", "\x00", "\n", "\u00e9", "\u20ac", "\U0001f600", "\ud800", "ab\U0001f600")


def costing(target: int, unit: str, pad_first: bool) -> str:
    """A text whose cost (budget.md §1) is exactly ``target``: ``unit`` repeated, padded with
    one-byte letters before it or after it (so that a cut at ``target - 1`` falls inside a unit,
    or between two)."""
    if target <= 0:
        return ""
    count, pad = divmod(target, int(cost(well_formed(unit))))
    return "a" * pad + unit * count if pad_first else unit * count + "a" * pad


@st.composite
def _wide(draw: st.DrawFn, low: int, high: int) -> int:
    return draw(integers(low, high)) if draw(integers(0, 2)) else draw(sampled(WIDE_INTEGERS))


@cache
def wide(low: int, high: int) -> st.SearchStrategy[int]:
    """An integer of ``low``-``high``, or (one draw in three) one at the edge of an integer
    width, up to the profile's largest (budget.md §1)."""
    return _wide(low, high)


def _integer_slots(op: str, op_input: OpInput) -> list[tuple[dict[str, Any], str]]:
    """Where the integers of an op input sit: (holder, member) pairs."""
    if op == "details":
        return [(op_input, name) for name in ("sharedBytes", "taskFloorBytes",
                                              "outputFloorBytes", "diagnosticFloorBytes")]
    if op == "roster":
        return [(op_input, "maxBytes")]
    if op == "lane":
        return [(update, "omittedResults") for update in op_input["updates"]
                if isinstance(update, dict) and "omittedResults" in update]
    return [(op_input, "intervalMs")] + [(event, "at") for event in op_input["events"]]


@st.composite
def _spelled_as_doubles(draw: st.DrawFn, strategy: st.SearchStrategy[OpInput],
                        op: str) -> OpInput:
    op_input = draw(strategy)
    if draw(integers(0, 3)):
        return op_input
    # Copy what is respelled: the drawn input may share its objects with other draws.
    op_input = dict(op_input)
    if op == "lane":
        op_input["updates"] = [dict(update) for update in op_input["updates"]]
    if op == "publish":
        op_input["events"] = [dict(event) for event in op_input["events"]]
    for holder, name in _integer_slots(op, op_input):
        if draw(BOOLEANS):
            holder[name] = float(holder[name])
    return op_input


@cache
def spelled_as_doubles(strategy: st.SearchStrategy[OpInput],
                       op: str) -> st.SearchStrategy[OpInput]:
    """``strategy``'s inputs, one in four with some of its integers written as integral doubles
    (``4096.0``): the same integers (budget.md §1), which JSON does not tell apart from ``4096``
    and an implementation must read."""
    return _spelled_as_doubles(strategy, op)
