"""The budget profile's strategies: details, roster, lane, publish."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from eventproof.reference import (
    DEFAULT_DIAGNOSTIC_FLOOR_BYTES,
    DEFAULT_INTERVAL_MS,
    DEFAULT_OUTPUT_FLOOR_BYTES,
    DEFAULT_ROSTER_BYTES,
    DEFAULT_SHARED_BYTES,
    DEFAULT_TASK_FLOOR_BYTES,
    canonical_bytes,
    live_roster,
)
from hypothesis import strategies as st

from ..._model import Capabilities, Family
from ..._reused import BOOLEANS, integers, sampled
from .values import (
    STATUSES,
    OpInput,
    Record,
    _permutations,
    batches,
    task_records,
)

# -- details --------------------------------------------------------------------------------------


def _details(records: list[Record], shared: int, task: int, output: int,
             diagnostic: int) -> OpInput:
    return {"records": records, "sharedBytes": shared, "taskFloorBytes": task,
            "outputFloorBytes": output, "diagnosticFloorBytes": diagnostic}


def _defaults(records: list[Record]) -> OpInput:
    return _details(records, DEFAULT_SHARED_BYTES, DEFAULT_TASK_FLOOR_BYTES,
                    DEFAULT_OUTPUT_FLOOR_BYTES, DEFAULT_DIAGNOSTIC_FLOOR_BYTES)


small_floor = st.one_of(st.integers(0, 200), st.sampled_from((0, 1, 6, 64, 128)))


def small_details() -> st.SearchStrategy[OpInput]:
    return st.builds(_details, batches(), st.integers(0, 3000), small_floor, small_floor,
                     small_floor)


def edge_details() -> st.SearchStrategy[OpInput]:
    """Allowances of exactly 0 or 1: a shared budget and floors of 0 or 1."""
    zero_one = st.sampled_from((0, 1))
    return st.builds(_details, batches(min_size=1, max_size=5, max_bytes=50), zero_one,
                     zero_one, zero_one, zero_one)


def exhausted_details() -> st.SearchStrategy[OpInput]:
    """Many records with big fields and a small budget: the budget runs out early."""
    return st.builds(
        _details, batches(min_size=2, max_size=40, max_bytes=3000), st.integers(0, 4096),
        st.sampled_from((DEFAULT_TASK_FLOOR_BYTES, 16, 6)),
        st.sampled_from((DEFAULT_OUTPUT_FLOOR_BYTES, 32, 6)),
        st.sampled_from((DEFAULT_DIAGNOSTIC_FLOOR_BYTES, 16, 6)))


@cache
def _spenders() -> st.SearchStrategy[list[Record]]:
    return st.lists(task_records(max_bytes=5000, status="completed"), max_size=3)


@cache
def _failures() -> st.SearchStrategy[list[Record]]:
    return st.lists(task_records(max_bytes=3000, status="failed"), min_size=1, max_size=4)


@st.composite
def failure_details(draw: st.DrawFn) -> OpInput:
    """Failed records with big output and reasons, after records that spend the budget."""
    spenders = draw(_spenders())
    failures = draw(_failures())
    pool = spenders + failures
    records = [pool[i] for i in draw(_permutations(len(pool)))]
    return _details(records, draw(integers(0, 2000)), DEFAULT_TASK_FLOOR_BYTES,
                    DEFAULT_OUTPUT_FLOOR_BYTES, draw(sampled((64, 16, 200))))


def _answer(size: int, unit: str) -> str:
    return unit * (size // len(unit))


#: What a seed-scale batch asks of the budget: several times the host's shared budget, so the
#: budget is spent long before the last record, as in the seed's batches. Each field is sized so
#: that the batch costs about this much: the seed's record counts at a size an example can
#: afford (its 300 KB answers are measured by tests/benchmarks/budget_figures.py instead).
SEED_SCALE_DEMAND = 4 * DEFAULT_SHARED_BYTES


@st.composite
def seed_scale_details(draw: st.DrawFn) -> OpInput:
    """The seed's measured batches, at their record counts and with the host's numbers
    (budget.md §5.1), each asking several times the shared budget."""
    kind = draw(sampled(("answers", "control", "review", "wide", "chain")))
    unit = draw(sampled(("a", "word ", "é", "\x00", "\U0001f600")))
    if kind == "answers":  # 200 tasks with long answers
        n = draw(sampled((200, 60, 20)))
        size = SEED_SCALE_DEMAND // n
        records = [{"id": f"task-{i:03d}", "agent": "worker", "status": "completed",
                    "task": f"Answer question {i}", "output": _answer(size, unit)}
                   for i in range(n)]
    elif kind == "control":  # 1,000 tasks with control-character tool output
        n = draw(sampled((1000, 300)))
        noise = _answer(SEED_SCALE_DEMAND // (12 * n) * draw(sampled((1, 2))),
                        draw(sampled(("\x00", "\x1b", "\x1b[0m\x07"))))
        records = [{"id": f"task-{i:04d}", "agent": "worker",
                    "status": "failed" if i % 7 == 3 else "completed",
                    "task": f"Run step {i}", "output": noise, "stderr": noise,
                    **({"errorMessage": "Error: exit code 1"} if i % 7 == 3 else {})}
                   for i in range(n)]
    elif kind in ("review", "wide"):  # 20 and 200 reviewers
        n = 20 if kind == "review" else 200
        records = [{"id": f"review-{i:03d}", "agent": "reviewer",
                    "status": "failed" if i % 5 == 4 else "completed",
                    "task": f"Review part {i} of the change",
                    "output": _answer(SEED_SCALE_DEMAND // n, unit),
                    **({"errorMessage": f"Error: part {i} timed out"} if i % 5 == 4 else {})}
                   for i in range(n)]
    else:  # a chain: every task splices the previous answer
        n = draw(sampled((5, 12)))
        answer = _answer(SEED_SCALE_DEMAND // n, unit)
        records = [{"id": f"step-{i}", "agent": "chain", "status": "completed",
                    "task": "Improve the previous answer:\n" + (answer if i else ""),
                    "output": answer} for i in range(n)]
    return _defaults(records)


#: Units whose cuts fall inside astral characters or escapes.
CUT_UNITS = ("\U0001f600", "a\U0001f600", "\u00e9\U0001f600", "\x00\U0001f600", "ab\u20ac",
             "\U0001f600\x00x")


@st.composite
def cut_details(draw: st.DrawFn) -> OpInput:
    """Heavy fields of astral characters and escapes under allowances of every small size: cuts
    land inside a surrogate pair or an escape, where counting UTF-16 units or characters goes
    wrong."""
    records = []
    for i in range(draw(integers(1, 4))):
        unit = draw(sampled(CUT_UNITS))
        record: Record = {"id": f"call_{i}", "agent": "worker",
                          "status": draw(sampled(STATUSES)),
                          "task": unit * draw(integers(1, 80))}
        for name in ("output", "errorMessage", "stderr"):
            if draw(BOOLEANS):
                record[name] = draw(sampled(CUT_UNITS)) * draw(integers(1, 120))
        records.append(record)
    floor = integers(0, 130)
    return _details(records, draw(integers(0, 400)), draw(floor), draw(floor), draw(floor))


def spread_details() -> st.SearchStrategy[OpInput]:
    """Records full of members that must never be published, and ids over the clip."""
    return st.builds(_defaults, st.lists(task_records(extras=True), min_size=1, max_size=4))


def details_families(capabilities: Capabilities) -> tuple[Family, ...]:
    del capabilities
    return (
        Family("small", 3, small_details()),
        Family("edges", 2, edge_details(), aims=(
            "details.rejected", "details.cut", "details.bounded", "details.task",
            "details.output", "details.reason")),
        Family("cut", 2, cut_details(), aims=("details.cut", "details.rejected",
                                               "details.bounded")),
        Family("exhausted", 2, exhausted_details(), aims=(
            "details.fair-share", "details.rejected", "details.task", "details.output",
            "details.bounded", "details.claim-order")),
        Family("failures", 2, failure_details(), aims=(
            "details.reason", "details.claim-order", "details.fair-share")),
        Family("seed-scale", 1, seed_scale_details(), aims=(
            "details.bounded", "details.fair-share", "details.output", "details.task",
            "details.rejected")),
        Family("spread", 1, spread_details(), aims=("details.allowlist", "details.identity")),
    )


# -- roster -------------------------------------------------------------------------------------


def _roster(records: list[Record], max_bytes: int) -> OpInput:
    return {"records": records, "maxBytes": max_bytes}


def _prefix_sizes(records: list[Record]) -> list[int]:
    """The size of the serialized live array for every prefix length (budget.md §6.2)."""
    full = live_roster(records, max_bytes=MAX_SAFE_INTEGER)["results"]
    sizes = [2]
    for i, live in enumerate(full):
        sizes.append(sizes[-1] + len(canonical_bytes(live)) + (1 if i else 0))
    return sizes


@st.composite
def exact_fit_rosters(draw: st.DrawFn) -> OpInput:
    """A bound exactly at a prefix's size, or one byte either side."""
    records = draw(batches(min_size=1, max_size=8, max_bytes=400))
    sizes = _prefix_sizes(records)
    target = sizes[draw(integers(0, len(records)))]
    return _roster(records, max(2, target + draw(sampled((0, 0, -1, 1)))))


@st.composite
def large_rosters(draw: st.DrawFn) -> OpInput:
    """Up to 1,000 tasks (the tool's limit), control-character output included."""
    n = draw(sampled((174, 200, 600, 1000)))
    output = draw(sampled(("ok", "\x00" * 40, "\x1b[0m" * 30, "é" * 100, "x" * 200)))
    records = [{"id": f"task-{i:04d}", "agent": "worker",
                "status": STATUSES[i % len(STATUSES)], "task": f"Step {i}", "output": output}
               for i in range(n)]
    return _roster(records, draw(sampled((DEFAULT_ROSTER_BYTES, 4096, 30000))))


def roster_families(capabilities: Capabilities) -> tuple[Family, ...]:
    del capabilities
    return (
        Family("small", 3, st.builds(_roster, batches(), st.integers(2, 3000))),
        Family("exact-fit", 2, exact_fit_rosters(), aims=("roster.prefix", "roster.bounded",
                                                          "roster.count")),
        Family("large", 1, large_rosters(), aims=("roster.bounded", "roster.count",
                                                  "roster.prefix")),
        Family("spread", 1, st.builds(_roster, st.lists(task_records(extras=True), min_size=1,
                                                         max_size=4),
                                      st.just(DEFAULT_ROSTER_BYTES)),
               aims=("roster.allowlist",)),
    )


# -- lane ---------------------------------------------------------------------------------------


def _live(i: int, status: str = "running") -> Record:
    return {"id": f"task-{i:03d}", "agent": "worker", "status": status, "task": f"Step {i}"}


def _update(records: list[Record], shown: int) -> Record:
    update: Record = {"results": records[:shown]}
    if len(records) > shown:
        update["omittedResults"] = len(records) - shown
    return update


@st.composite
def random_lanes(draw: st.DrawFn) -> OpInput:
    """Any short sequence of rosters, of varying totals."""
    updates = []
    for _ in range(draw(integers(0, 5))):
        total = draw(integers(0, 6))
        status = draw(sampled(STATUSES))
        updates.append(_update([_live(i, status) for i in range(total)],
                               draw(integers(0, total))))
    return {"updates": updates}


@st.composite
def recovering_lanes(draw: st.DrawFn) -> OpInput:
    """One batch published as prefixes: merges that recover the whole roster, then shrink."""
    total = draw(integers(1, 8))
    updates = []
    for step in range(draw(integers(1, 6))):
        status = STATUSES[step % len(STATUSES)]
        updates.append(_update([_live(i, status) for i in range(total)],
                               draw(integers(0, total))))
    if draw(BOOLEANS):  # the seed's case: complete, then "1 record + 2 omitted"
        updates = [_update([_live(i) for i in range(total)], total),
                   _update([_live(i, "completed") for i in range(total)], 1), *updates]
    return {"updates": updates}


@st.composite
def reused_lanes(draw: st.DrawFn) -> OpInput:
    """A larger roster, then a smaller batch on the same lane."""
    big, small = draw(integers(2, 8)), draw(integers(0, 4))
    small = min(small, big - 1)
    return {"updates": [
        _update([_live(i) for i in range(big)], draw(integers(small + 1, big))),
        _update([_live(i, "completed") for i in range(small)], draw(integers(0, small))),
    ]}


@st.composite
def large_lanes(draw: st.DrawFn) -> OpInput:
    """The seed's 600-task lane: rosters of a 174- or 202-record prefix of 600 tasks."""
    total = draw(sampled((200, 600)))
    shown = draw(sampled((174, 202, 60)))
    records = [_live(i) for i in range(total)]
    steps = draw(integers(1, 4))
    return {"updates": [_update(records, min(total, shown + draw(integers(-50, 50))))
                        for _ in range(steps)]}


def _empty_roster(omitted: int) -> Record:
    return {"results": []} if omitted == 0 else {"results": [], "omittedResults": omitted}


def empty_lanes() -> st.SearchStrategy[OpInput]:
    """The empty edges: no update at all, or rosters that show no record (an empty batch, or
    every record omitted), alone or after a roster that showed some."""
    empty = st.builds(_empty_roster, st.one_of(st.just(0), st.integers(1, 5),
                                               st.sampled_from((174, 600, 1000))))
    shown = st.builds(lambda n, total: _update([_live(i) for i in range(total)], n),
                      st.integers(1, 4), st.integers(4, 6))
    return st.builds(lambda updates: {"updates": updates},
                     st.lists(st.one_of(empty, empty, shown), max_size=4))


def lane_families(capabilities: Capabilities) -> tuple[Family, ...]:
    del capabilities
    return (
        Family("random", 3, random_lanes()),
        Family("recovering", 3, recovering_lanes(), aims=("lane.count", "lane.total",
                                                          "lane.merge")),
        Family("reused", 2, reused_lanes(), aims=("lane.merge", "lane.count")),
        Family("empty", 1, empty_lanes()),
        Family("large", 1, large_lanes(), aims=("lane.total", "lane.count")),
    )


# -- publish -----------------------------------------------------------------------------------


@st.composite
def timelines(draw: st.DrawFn, *, window: int | None = None, gaps: Any = None,
              late: bool | None = None) -> OpInput:
    """Changes at increasing times, one return, and maybe late callbacks after it."""
    interval = window if window is not None else draw(
        sampled((DEFAULT_INTERVAL_MS, DEFAULT_INTERVAL_MS, 1, 50)))
    gap = gaps if gaps is not None else integers(0, 2 * interval + 10)
    events: list[Record] = []
    at = draw(integers(0, 20))
    for seq in range(draw(integers(0, 12))):
        at += draw(gap)
        kind = draw(sampled(("update", "status", "status")))
        events.append({"at": at, "kind": kind, "state": {"seq": seq, "kind": kind}})
    at += draw(gap)
    events.append({"at": at, "kind": "return"})
    if late if late is not None else draw(BOOLEANS):
        for seq in range(draw(integers(1, 3))):
            at += draw(integers(0, interval))
            events.append({"at": at, "kind": "status", "state": {"late": seq}})
    return {"intervalMs": interval, "events": events}


@cache
def _burst_timelines() -> st.SearchStrategy[OpInput]:
    return timelines(window=DEFAULT_INTERVAL_MS, gaps=st.sampled_from((0, 0, 1, 3, 40)),
                     late=False)


@cache
def _aligned_timelines(interval: int, late: bool) -> st.SearchStrategy[OpInput]:
    return timelines(window=interval,
                     gaps=st.sampled_from((interval, interval, interval - 1, interval + 1)),
                     late=late)


@st.composite
def bursts(draw: st.DrawFn) -> OpInput:
    """A parallel batch finishing at once: status transitions a few ms apart or simultaneous."""
    return draw(_burst_timelines())


@st.composite
def aligned(draw: st.DrawFn) -> OpInput:
    """Changes exactly one window apart (and one millisecond either side)."""
    interval = draw(sampled((DEFAULT_INTERVAL_MS, 10)))
    late = draw(BOOLEANS)
    return draw(_aligned_timelines(interval, late))


def publish_families(capabilities: Capabilities) -> tuple[Family, ...]:
    del capabilities
    return (
        Family("random", 3, timelines()),
        Family("bursts", 2, bursts(), aims=("publish.window", "publish.terminal")),
        Family("aligned", 2, aligned(), aims=("publish.window", "publish.latest")),
        Family("late", 2, timelines(late=True), aims=("publish.after-return",)),
    )


FAMILIES: dict[str, Callable[[Capabilities], tuple[Family, ...]]] = {
    "details": details_families, "roster": roster_families, "lane": lane_families,
    "publish": publish_families,
}


def inputs_for(op: str) -> Callable[[Capabilities], st.SearchStrategy[OpInput]]:
    """Every input of ``op``: the union of its families."""
    def inputs(capabilities: Capabilities) -> st.SearchStrategy[OpInput]:
        return st.one_of([family.strategy for family in FAMILIES[op](capabilities)])
    return inputs
