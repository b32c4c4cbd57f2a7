"""The budget profile's strategies: details, roster, lane, publish."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from itertools import pairwise
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
    publish_schedule,
)
from eventproof.reference._budget import (
    CLAIM_ORDER,
    FAILED_CLAIM_ORDER,
    FLOOR_OF,
    LIVE_OUTPUT_BYTES,
    LIVE_TASK_BYTES,
    SIDES,
    cost,
    cut,
)
from hypothesis import strategies as st

from ..._model import Capabilities, Family, family_per_side
from ..._reused import BOOLEANS, integers, sampled
from ..._traps import trap_families
from .byte_forms import byte_form_details_inputs, byte_form_rosters
from .values import (
    _AGENTS,
    CLIP,
    EDGE_UNITS,
    MAX_INTEGER,
    STATUSES,
    WIDE_INTEGERS,
    OpInput,
    Record,
    _permutations,
    batches,
    clip_edge,
    costing,
    ids,
    spelled_as_doubles,
    task_records,
    wide,
)

# -- details --------------------------------------------------------------------------------------


def _details(records: list[Record], shared: int, task: int, output: int,
             diagnostic: int) -> OpInput:
    return {"records": records, "sharedBytes": shared, "taskFloorBytes": task,
            "outputFloorBytes": output, "diagnosticFloorBytes": diagnostic}


def _defaults(records: list[Record]) -> OpInput:
    return _details(records, DEFAULT_SHARED_BYTES, DEFAULT_TASK_FLOOR_BYTES,
                    DEFAULT_OUTPUT_FLOOR_BYTES, DEFAULT_DIAGNOSTIC_FLOOR_BYTES)


small_floor = st.one_of(st.integers(0, 200), st.sampled_from((0, 1, 6, 64, 128)),
                        st.sampled_from(WIDE_INTEGERS))


def small_details() -> st.SearchStrategy[OpInput]:
    """Any batch, with budgets and floors from 0 to the largest integer (budget.md §1): a budget
    of 2^53 - 1 keeps everything whole, where one held in 32 bits keeps nothing."""
    return st.builds(_details, batches(), wide(0, 3000), small_floor, small_floor, small_floor)


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
    return _details(records, draw(wide(0, 2000)), DEFAULT_TASK_FLOOR_BYTES,
                    DEFAULT_OUTPUT_FLOOR_BYTES, draw(sampled((64, 16, 200))))


def _answer(size: int, unit: str) -> str:
    return unit * (size // len(unit))


#: What a seed-scale batch asks of the budget: several times the host's shared budget, so the
#: budget is spent long before the last record, as in the seed's batches. Each field is sized so
#: that the batch costs about this much: the seed's record counts at a size an example can
#: afford (its 300 KB answers are measured by tools/bench/budget_figures.py instead).
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


@st.composite
def budget_edge_details(draw: st.DrawFn, first: int | None = None) -> OpInput:
    """Every field at an edge of what it is given (budget.md §4-5): each claims, in its record's
    claim order, an allowance made of what its floor has left and what its record's fair share
    has left, and costs exactly that, one byte less, one byte more, much less or much more. So
    a field sits at its floor (when the share is spent), a record's demand at its share, the
    first field of a claim order at the share the next one needs, and a cut one byte into a
    multi-byte character or an escape. With ``first`` (-1, 0 or 1), the first record's demand
    is its share plus that many bytes."""
    n = draw(integers(1, 10))
    floors = draw(sampled(("host", "small", "small", "small", "zero")))
    if floors == "host":
        floor = {"task": DEFAULT_TASK_FLOOR_BYTES, "output": DEFAULT_OUTPUT_FLOOR_BYTES,
                 "diagnostics": DEFAULT_DIAGNOSTIC_FLOOR_BYTES}
    elif floors == "small":
        floor = {group: draw(integers(1, 12)) for group in ("task", "output", "diagnostics")}
    else:
        floor = {"task": 0, "output": 0, "diagnostics": 0}
    # No budget, a few bytes, or a few bytes per record (so that each record's share is not 0).
    per_record = n * draw(integers(1, 40)) + draw(integers(0, n - 1))
    shared = draw(sampled((0, draw(integers(1, 400)), per_record, per_record)))
    if first is not None:  # a share of at least a byte, for the first record to be at
        shared = per_record
    remaining = shared
    records = []
    for i in range(n):
        share = remaining // (n - i)
        status = draw(sampled(("completed", "failed", "failed", "running", "cancelled")))
        record: Record = {"id": draw(ids()) if draw(BOOLEANS) else f"call_{i}",
                          "agent": draw(_AGENTS), "status": status}
        present = {"task"} | {name for name in ("output", "errorMessage", "stderr")
                              if draw(integers(0, 3))}
        left, pool = dict(floor), share
        order = tuple(name for name in (FAILED_CLAIM_ORDER if status == "failed" else
                                        CLAIM_ORDER) if name in present)
        # The first record, and every other one time in two, has one field carrying its whole
        # demand beyond its floors, at its share or one byte either side: the fields before it
        # stay within their floors, those after it sit at their floor's edges (the share is
        # spent, or has a byte left). Otherwise every field sits at an edge of its own
        # allowance, or well inside or beyond it.
        carrier = draw(sampled(order)) if i == 0 or draw(BOOLEANS) else None
        for position, name in enumerate(order):
            group = FLOOR_OF[name]
            allowance = left[group] + pool
            if carrier is None and name == "stderr" and "errorMessage" in order[:position]:
                # at the edge of what errorMessage left of the floor they share, or beyond
                offset = draw(sampled(("floor", "floor", -1, 0, 1, "more")))
            elif carrier is None:  # the first at the share's edge, then one that needs it
                offset = draw(sampled((-1, 0, 1) if position == 0 else
                                      (-1, 0, 1, "less", "more", "more", "floor")))
            elif carrier in order[position + 1:]:
                offset = "floor"
            elif carrier in order[:position] and pool:
                offset = "within"
            elif i == 0 and first is not None:
                offset = first
            else:
                offset = draw(sampled((-1, 0, 1)))
            if offset == "floor":  # at its floor's edge (a carrier after it claims the rest)
                target = left[group] + draw(sampled((-1, 0, 1, -left[group])))
            elif offset == "within":  # the share has a byte left: take none of it
                target = left[group] - draw(sampled((0, 1, left[group])))
            elif offset == "less":
                target = draw(integers(0, max(0, allowance - 2)))
            elif offset == "more":
                target = allowance + draw(integers(2, 300))
            else:
                target = allowance + offset
            text = costing(target, draw(sampled(EDGE_UNITS)), draw(BOOLEANS))
            spent = cost(cut(text, allowance, SIDES[name]))
            from_floor = min(spent, left[group])
            left[group] -= from_floor
            pool -= spent - from_floor
            record[name] = text
        remaining -= share - pool
        records.append(record)
    return _details(records, shared, floor["task"], floor["output"], floor["diagnostics"])


def spread_details() -> st.SearchStrategy[OpInput]:
    """Records full of members that must never be published, and ids over the clip."""
    return st.builds(_defaults, st.lists(task_records(extras=True), min_size=1, max_size=4))


def _spelled(op: str, families: tuple[Family, ...]) -> tuple[Family, ...]:
    """Every family's inputs, some with integers written as integral doubles (budget.md §1)."""
    return tuple(Family(family.name, family.weight,
                        spelled_as_doubles(family.strategy, op), family.aims)
                 for family in families)


def details_families(capabilities: Capabilities) -> tuple[Family, ...]:
    return (*_spelled("details", (
        Family("small", 2, small_details()),
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
        Family("budget-edges", 2, budget_edge_details(), aims=(
            "details.cut", "details.rejected", "details.task", "details.output",
            "details.reason", "details.fair-share", "details.claim-order", "details.bounded")),
        # The first record's demand a byte under its share, at it and a byte over.
        *family_per_side(lambda side: f"first-share-{side}", 1, budget_edge_details, aims=(
            "details.fair-share", "details.cut", "details.claim-order")),
        Family("seed-scale", 1, seed_scale_details(), aims=(
            "details.bounded", "details.fair-share", "details.output", "details.task",
            "details.rejected")),
        Family("spread", 1, spread_details(), aims=("details.allowlist", "details.identity")),
    )), _built("byte-forms", byte_form_details_inputs(), (
        "details.rejected", "details.cut", "details.agrees")),
        *trap_families("details", capabilities))


def _built(name: str, inputs: tuple[OpInput, ...], aims: tuple[str, ...]) -> Family:
    """A fixed share of built inputs, each asked once."""
    return Family(name, 1, st.sampled_from(inputs), aims, examples=len(inputs))


# -- roster -------------------------------------------------------------------------------------


def _roster(records: list[Record], max_bytes: int) -> OpInput:
    return {"records": records, "maxBytes": max_bytes}


def _prefix_sizes(records: list[Record]) -> list[int]:
    """The size of the serialized live array for every prefix length (budget.md §6.2)."""
    full = live_roster(records, max_bytes=MAX_INTEGER)["results"]
    sizes = [2]
    for i, live in enumerate(full):
        sizes.append(sizes[-1] + len(canonical_bytes(live)) + (1 if i else 0))
    return sizes


@st.composite
def exact_fit_rosters(draw: st.DrawFn, offset: int | None = None) -> OpInput:
    """A bound exactly at a prefix's size, or one byte either side (``offset`` fixes which: 0,
    -1 or 1); or one that leaves room after the prefix for a later, smaller record but not for
    the next one (the roster stops at the first record that does not fit, budget.md §6.2)."""
    records = draw(batches(min_size=1, max_size=8, max_bytes=400))
    sizes = _prefix_sizes(records)
    k = draw(integers(0, len(records)))
    if offset is not None:
        return _roster(records, max(2, sizes[k] + offset))
    if k + 2 <= len(records) and draw(BOOLEANS):
        grows = [after - before for before, after in pairwise(sizes)]
        later = min(grows[k + 1:])
        if later < grows[k]:
            return _roster(records, sizes[k] + later)
    return _roster(records, max(2, sizes[k] + draw(sampled((0, 0, -1, 1)))))


@st.composite
def large_rosters(draw: st.DrawFn) -> OpInput:
    """Up to 1,000 tasks (the tool's limit), control-character output included."""
    n = draw(sampled((174, 200, 600, 1000)))
    output = draw(sampled(("ok", "\x00" * 40, "\x1b[0m" * 30, "é" * 100, "x" * 200)))
    records = [{"id": f"task-{i:04d}", "agent": "worker",
                "status": STATUSES[i % len(STATUSES)], "task": f"Step {i}", "output": output}
               for i in range(n)]
    return _roster(records, draw(sampled((DEFAULT_ROSTER_BYTES, 4096, 30000, MAX_INTEGER))))


_LIVE_IDS = st.one_of(clip_edge(), ids())


@st.composite
def live_edge_rosters(draw: st.DrawFn) -> OpInput:
    """Live records at their edges (budget.md §6.1): a task costing the live task head (64
    bytes), one byte less or more, an output at the live output tail (128 bytes) the same way,
    ids and agents at the 256-code-point clip; under a bound at a prefix's size, one byte either
    side, or the largest integer (budget.md §1)."""
    records = []
    # The first three ids are one code point under the clip, at it and over it, in turn from a
    # drawn start: a roster of three meets all three.
    start = draw(integers(0, 2))
    for i in range(draw(integers(1, 6))):
        record: Record = {
            "id": (draw(clip_edge(CLIP - 1 + (start + i) % 3)) if i < 3
                   else draw(_LIVE_IDS) if draw(BOOLEANS) else f"task-{i}"),
            "agent": draw(_AGENTS), "status": draw(sampled(STATUSES)),
            "task": costing(LIVE_TASK_BYTES + draw(sampled((-1, 0, 1))),
                            draw(sampled(EDGE_UNITS)), draw(BOOLEANS))}
        if draw(integers(0, 2)):
            record["output"] = costing(LIVE_OUTPUT_BYTES + draw(sampled((-1, 0, 1))),
                                       draw(sampled(EDGE_UNITS)), draw(BOOLEANS))
        records.append(record)
    if draw(integers(0, 3)) == 0:
        return _roster(records, draw(sampled(WIDE_INTEGERS)))
    sizes = _prefix_sizes(records)
    target = sizes[len(records) if draw(BOOLEANS) else draw(integers(0, len(records)))]
    return _roster(records, max(2, target + draw(sampled((0, -1, 1)))))


#: A roster's bound: any size, the edges of integer widths, or the smallest two (2 is "[]").
_ROSTER_BOUNDS = st.one_of(wide(2, 3000), wide(2, 3000), wide(2, 3000), st.sampled_from((2, 3)))


def roster_families(capabilities: Capabilities) -> tuple[Family, ...]:
    return (*_spelled("roster", (
        Family("small", 3, st.builds(_roster, batches(), _ROSTER_BOUNDS)),
        Family("exact-fit", 1, exact_fit_rosters(), aims=("roster.prefix", "roster.bounded",
                                                          "roster.count")),
        # A bound a byte under a prefix's size, at it and a byte over.
        *family_per_side(lambda side: f"bound-{side}-prefix", 1, exact_fit_rosters, aims=(
            "roster.prefix", "roster.bounded", "roster.count")),
        Family("large", 1, large_rosters(), aims=("roster.bounded", "roster.count",
                                                  "roster.prefix")),
        Family("live-edges", 2, live_edge_rosters(), aims=(
            "roster.allowlist", "roster.prefix", "roster.bounded")),
        Family("spread", 1, st.builds(_roster, st.lists(task_records(extras=True), min_size=1,
                                                         max_size=4),
                                      st.just(DEFAULT_ROSTER_BYTES)),
               aims=("roster.allowlist",)),
    )), _built("byte-forms", byte_form_rosters(), ("roster.prefix", "roster.bounded")),
        *trap_families("roster", capabilities))


# -- lane ---------------------------------------------------------------------------------------


def _live(i: int, status: str = "running", progress: str | None = None) -> Record:
    """A live record; with ``progress``, its output tail (present when the task reported
    output, budget.md §6.1), which differs from one update to the next."""
    record = {"id": f"task-{i:03d}", "agent": "worker", "status": status, "task": f"Step {i}"}
    if progress is not None:
        record["output"] = f"{progress} {i}"
    return record


def _update(records: list[Record], shown: int) -> Record:
    update: Record = {"results": records[:shown]}
    if len(records) > shown:
        update["omittedResults"] = len(records) - shown
    return update


#: What a live record's output says after each update: absent, or progress that moves on.
_PROGRESS = (None, None, "working on", "done with", "\x1b[0m\u00e9\U0001f600")


@st.composite
def random_lanes(draw: st.DrawFn) -> OpInput:
    """Any short sequence of rosters, of varying totals, their records with or without output;
    now and then a total at the edge of an integer width, up to the largest (budget.md §1)."""
    updates = []
    for step in range(draw(integers(0, 5))):
        total = draw(integers(0, 6))
        status = draw(sampled(STATUSES))
        progress = draw(sampled(_PROGRESS))
        records = [_live(i, status, progress and f"{progress} {step}") for i in range(total)]
        update = _update(records, draw(integers(0, total)))
        if draw(integers(0, 3)) == 0:  # a batch too large to show: the count carries it
            total = draw(sampled((MAX_INTEGER, MAX_INTEGER - 1, MAX_INTEGER - 1, *WIDE_INTEGERS)))
            update["omittedResults"] = total - len(update["results"])
        updates.append(update)
    return {"updates": updates}


@st.composite
def recovering_lanes(draw: st.DrawFn) -> OpInput:
    """One batch published as prefixes: merges that recover the whole roster, then shrink."""
    total = draw(integers(1, 8))
    updates = []
    progress = draw(sampled(_PROGRESS))
    for step in range(draw(integers(1, 6))):
        status = STATUSES[step % len(STATUSES)]
        updates.append(_update([_live(i, status, progress and f"{progress} {step}")
                                for i in range(total)], draw(integers(0, total))))
    if draw(BOOLEANS):  # the seed's case: complete, then "1 record + 2 omitted"
        updates = [_update([_live(i) for i in range(total)], total),
                   _update([_live(i, "completed") for i in range(total)], 1), *updates]
    return {"updates": updates}


@st.composite
def edge_lanes(draw: st.DrawFn) -> OpInput:
    """A lane of n records, then updates of one record fewer than it knows, as many and one
    more (budget.md §7.1), in a drawn order, then totals at the largest integer and one under
    it: every input meets each of these edges, whatever the seed."""
    known = draw(integers(1, 6))
    updates = [_update([_live(i) for i in range(known)], known)]
    for step in draw(st.permutations((-1, 0, 1))):
        count = known + step
        status = STATUSES[count % len(STATUSES)]
        updates.append(_update([_live(i, status) for i in range(count)],
                               draw(integers(0, count)) if draw(BOOLEANS) else count))
        known = max(known, count)
    # Then totals at the largest integer and one under it (budget.md §1), in a drawn order.
    for total in draw(st.permutations((MAX_INTEGER - 1, MAX_INTEGER))):
        shown = draw(integers(0, known))
        update = _update([_live(i, "running") for i in range(shown)], shown)
        update["omittedResults"] = total - shown
        updates.append(update)
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
    return _spelled("lane", (
        Family("random", 3, random_lanes()),
        Family("recovering", 3, recovering_lanes(), aims=("lane.count", "lane.total",
                                                          "lane.merge")),
        Family("reused", 2, reused_lanes(), aims=("lane.merge", "lane.count")),
        Family("edges", 1, edge_lanes(), aims=("lane.merge", "lane.count", "lane.total")),
        Family("empty", 1, empty_lanes()),
        Family("large", 1, large_lanes(), aims=("lane.total", "lane.count")),
    )) + trap_families("lane", capabilities)


# -- publish -----------------------------------------------------------------------------------


#: States a change may carry besides its usual snapshot: any JSON value (budget.md §8.1),
#: those a truthiness test mistakes for "no state" included.
_ODD_STATES: st.SearchStrategy[Any] = st.sampled_from(
    (None, False, 0, "", (), "{}", 0.5, "done")).map(
    lambda state: [] if state == () else {} if state == "{}" else state)


def _state(draw: st.DrawFn, usual: Any) -> Any:
    return usual if draw(integers(0, 5)) else draw(_ODD_STATES)


def _late(draw: st.DrawFn, events: list[Record], at: int, interval: int) -> None:
    """Late callbacks after the return: at its very instant, just after, or a window later."""
    span = min(interval, 1000)
    for seq in range(draw(integers(1, 3))):
        at += draw(st.one_of(sampled((0, 0, 1, span)), integers(0, span)))
        kind = draw(sampled(("status", "update")))
        events.append({"at": at, "kind": kind, "state": _state(draw, {"late": seq})})


def _shifted(draw: st.DrawFn, events: list[Record]) -> list[Record]:
    """Now and then the same timeline late on the clock (budget.md §1): its last event at the
    largest time, or an event exactly at the edge of a 32-bit integer."""
    where = draw(integers(0, 7))
    if where > 2 or not events:
        return events
    if where == 0:
        shift = MAX_INTEGER - events[-1]["at"]
    else:
        shift = (2**31 if where == 1 else 2**32) - events[draw(integers(0, len(events) - 1))]["at"]
    return [{**event, "at": event["at"] + shift} for event in events]


@st.composite
def timelines(draw: st.DrawFn, *, window: int | None = None, gaps: Any = None,
              late: bool | None = None) -> OpInput:
    """Changes at increasing times, one return, and maybe late callbacks after it."""
    interval = window if window is not None else draw(
        sampled((DEFAULT_INTERVAL_MS, DEFAULT_INTERVAL_MS, 1, 50, 2**31, MAX_INTEGER - 1,
                 MAX_INTEGER)))
    span = min(interval, 1000)  # a window of 2^53 - 1 ms is never waited out
    gap = gaps if gaps is not None else st.one_of(
        integers(0, 2 * span + 10), integers(0, 2 * span + 10), sampled((0, span)))
    events: list[Record] = []
    at = draw(integers(0, 20))
    for seq in range(draw(integers(0, 12))):
        at += draw(gap)
        kind = draw(sampled(("update", "status", "status")))
        events.append({"at": at, "kind": kind, "state": _state(draw, {"seq": seq, "kind": kind})})
    at += draw(gap)
    events.append({"at": at, "kind": "return"})
    if late if late is not None else draw(BOOLEANS):
        _late(draw, events, at, interval)
    return {"intervalMs": interval, "events": _shifted(draw, events)}


def _window_end(changes: list[Record], interval: int) -> int:
    """Where the window after the last publish ends, once ``changes`` are in: the reference's
    pending publish if one waits, else its last publish plus the interval (budget.md §8.2)."""
    last = changes[-1]["at"]
    after = publish_schedule([*changes, {"at": last + interval + 1, "kind": "return"}],
                             interval_ms=interval)["publishes"]
    waiting = [int(publish["at"]) for publish in after if publish["at"] > last]
    return waiting[0] if waiting else int(after[-1]["at"]) + interval


#: The sides of a window's end, in time.
_BEFORE_AFTER = {"under": "before", "over": "after"}


@st.composite
def window_edges(draw: st.DrawFn, returned: int | None = None) -> OpInput:
    """Every event placed against the window the changes before it left open (budget.md §8.2,
    §8.3): exactly at its end, a millisecond either side, inside it, or at the instant of the
    change before; the return the same way, and late callbacks at its instant. So a change
    arrives exactly when a pending state is due, and the return exactly when a window ends.
    With ``returned`` (-1, 0 or 1), a last change always waits in an open window, and the
    return comes that many milliseconds after the window's end."""
    interval = draw(sampled((DEFAULT_INTERVAL_MS, 10, 5, 2)))
    changes: list[Record] = []
    at = draw(integers(0, 20))
    for seq in range(draw(integers(2, 10))):
        if changes:
            end = _window_end(changes, interval)
            place = draw(sampled(("end", "before", "after", "inside", "inside", "same")))
            if place == "inside":
                at = draw(integers(at, end - 1))
            elif place != "same":
                at = {"end": end, "before": end - 1, "after": end + 1}[place]
        kind = draw(sampled(("update", "status")))
        changes.append({"at": at, "kind": kind,
                        "state": _state(draw, {"seq": seq, "kind": kind})})
    end = _window_end(changes, interval)
    if returned is not None and end - 1 <= at:  # a window opens at the last change: one waits
        at += interval
        changes.append({"at": at, "kind": "update", "state": _state(draw, {"seq": "opens"})})
        end = _window_end(changes, interval)
    if end - 1 > at and (returned is not None or draw(integers(0, 3)) < 3):
        # one more change inside the window: it waits
        at = draw(integers(at, end - 1))
        changes.append({"at": at, "kind": "update", "state": _state(draw, {"seq": "last"})})
        end = _window_end(changes, interval)
        at = end + returned if returned is not None else draw(sampled((end - 1, end, end + 1)))
    else:
        at = draw(sampled((end, end - 1, end + 1, at)))
    events = [*changes, {"at": at, "kind": "return"}]
    if draw(BOOLEANS):
        _late(draw, events, at, interval)
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
    return _spelled("publish", (
        Family("random", 2, timelines()),
        Family("bursts", 2, bursts(), aims=("publish.window", "publish.terminal")),
        Family("aligned", 1, aligned(), aims=("publish.window", "publish.latest")),
        Family("window-edges", 3, window_edges(), aims=(
            "publish.window", "publish.latest", "publish.terminal", "publish.after-return")),
        # The return a millisecond before a pending state's window ends, at its end, and after.
        *family_per_side(lambda side: f"return-{_BEFORE_AFTER.get(side, side)}-window-end", 1,
                         window_edges, aims=("publish.terminal", "publish.window")),
        Family("late", 2, timelines(late=True), aims=("publish.after-return",)),
    )) + trap_families("publish", capabilities)


FAMILIES: dict[str, Callable[[Capabilities], tuple[Family, ...]]] = {
    "details": details_families, "roster": roster_families, "lane": lane_families,
    "publish": publish_families,
}


def inputs_for(op: str) -> Callable[[Capabilities], st.SearchStrategy[OpInput]]:
    """Every input of ``op``: the union of its families."""
    def inputs(capabilities: Capabilities) -> st.SearchStrategy[OpInput]:
        return st.one_of([family.strategy for family in FAMILIES[op](capabilities)])
    return inputs
