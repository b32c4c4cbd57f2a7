"""The budget profile's strategies: head, text, records."""

from __future__ import annotations

from functools import cache
from typing import Any

from hypothesis import strategies as st

from ..._reused import integers, sampled

Record = dict[str, Any]
OpInput = dict[str, Any]

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


@cache
def ids() -> st.SearchStrategy[str]:
    return st.one_of(
        st.integers(0, 999).map(lambda n: f"call_{n:03d}"),
        short_text(8),
        repeated(250, 600),  # over the 256-code-point clip
    )


_AGENTS = st.sampled_from(("worker", "reviewer", "tester")) | short_text(6)
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


