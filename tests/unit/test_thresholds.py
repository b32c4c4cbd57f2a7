"""Boundaries: every threshold the spec states is drawn exactly at it, just below and just above,
within the quick budget, next to the cut or the bound it decides.

Each threshold is measured on the inputs a quick search of its operation draws (every family
with its share, derandomized, as the engine generates them), with the reference's answer where
the threshold is one of the answer (a publish window, the roster's bound).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from eventproof.conformance._model import Capabilities
from eventproof.reference import Reference, canonical_bytes, well_formed
from eventproof.reference._budget import (
    CLAIM_ORDER,
    FAILED_CLAIM_ORDER,
    FLOOR_OF,
    ID_CLIP_CODE_POINTS,
    SIDES,
    cost,
    cut,
)
from eventproof.reference._canonical import MAX_SAFE_INTEGER
from helpers import quick_inputs

CAPABILITIES = Capabilities()
REFERENCE = Reference()
#: The seed the quick draws are made from: None for the derandomized draws of a CI run.
_SEED: list[int | None] = [None]
#: Seeds of random runs the thresholds are also met on (``nox -s slow``).
SLOW_SEEDS = range(1, 13)


def _inputs(op: str) -> tuple[Any, ...]:
    return quick_inputs(op, _SEED[0])


# -- wire: the byte bound (wire.md §5.1) and the cost table (§6.5) ----------------------------

def _bound_offsets() -> Iterator[int]:
    """For each opted-in update, its line's size minus maxBytes."""
    for op_input in _inputs("project"):
        event = op_input["event"]
        if event.get("type") == "tool_execution_update" and op_input["includeLiveEvents"]:
            try:
                yield len(canonical_bytes(event)) - op_input["maxBytes"]
            except ValueError:
                continue


#: The edges of the cost table of wire.md §6.5: the last code point of one cost and the first of
#: the next.
COST_EDGES = {
    "U+001F (6 bytes)": "\x1f", "U+0020 (1 byte)": " ", "U+007F (1 byte)": "\x7f",
    "U+0080 (2 bytes)": "\x80", "U+07FF (2 bytes)": "\u07ff", "U+0800 (3 bytes)": "\u0800",
    "U+FFFF (3 bytes)": "\uffff", "U+10000 (4 bytes)": "\U00010000",
    "a lone surrogate (3 bytes)": "\ud800",
}


def _strings(value: Any) -> Iterator[str]:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


# -- budget: the roster's bound (§6.2), the publish window (§8.2) ------------------------------

def _roster_offsets() -> Iterator[int]:
    """For each roster, the bytes its results take minus maxBytes, and the bytes one more
    record would take minus maxBytes (the cut the bound decides)."""
    for op_input in _inputs("roster"):
        answer = REFERENCE.run("roster", op_input)
        shown = answer["results"]
        size = len(json.dumps(shown, ensure_ascii=False, separators=(",", ":")).encode(
            "utf-8", "surrogatepass"))
        yield size - op_input["maxBytes"]
        if "omittedResults" in answer:
            more = REFERENCE.run("roster", {**op_input, "maxBytes": 10**9})["results"]
            bigger = more[:len(shown) + 1]
            yield len(json.dumps(bigger, ensure_ascii=False, separators=(",", ":")).encode(
                "utf-8", "surrogatepass")) - op_input["maxBytes"]


def _window_offsets() -> Iterator[int]:
    """For each change, its time minus the time the window after the last publish before it
    ends (``last + W``)."""
    for op_input in _inputs("publish"):
        window = op_input["intervalMs"]
        publishes = REFERENCE.run("publish", op_input)["publishes"]
        for event in op_input["events"]:
            if event["kind"] == "return":
                break
            before = [publish["at"] for publish in publishes if publish["at"] < event["at"]]
            if before:
                yield event["at"] - (before[-1] + window)


# -- budget: the final details (§3-5) -------------------------------------------------------------

@dataclass(frozen=True)
class Claim:
    """One heavy field's claim in the final details (budget.md §5.4), as the reference makes it."""

    record: int
    field: str
    failed: bool
    #: Its place among the record's fields in the claim order.
    position: int
    #: The cost of its well-formed value, and what it was allowed: its floor's rest plus the
    #: share's rest at its turn.
    cost: int
    allowance: int
    floor_left: int
    pool: int
    share: int
    #: What the fields before it in the claim order would take from the share, uncut.
    before: int
    #: What its record would take from its share, all fields uncut.
    demand: int


def _claims(op_input: dict[str, Any]) -> list[Claim]:
    """Every claim of the reference's final details for ``op_input``, from budget.md §5.3-5.4;
    the fields kept are checked against the reference's answer, so the trace is the reference's."""
    answer = REFERENCE.run("details", op_input)["results"]
    records = op_input["records"]
    floors = {"task": int(op_input["taskFloorBytes"]), "output": int(op_input["outputFloorBytes"]),
              "diagnostics": int(op_input["diagnosticFloorBytes"])}
    remaining = int(op_input["sharedBytes"])
    claims: list[Claim] = []
    for i, record in enumerate(records):
        share = remaining // (len(records) - i)
        failed = record["status"] == "failed"
        order = [name for name in (FAILED_CLAIM_ORDER if failed else CLAIM_ORDER)
                 if name in record]
        left, pool, uncut_left, before = dict(floors), share, dict(floors), 0
        mine = []
        for position, name in enumerate(order):
            group = FLOOR_OF[name]
            whole = cost(well_formed(record[name]))
            allowance = left[group] + pool
            mine.append((name, position, whole, allowance, left[group], pool, before))
            kept = cut(record[name], allowance, SIDES[name])
            assert kept == answer[i][name], (i, name)
            spent = cost(kept)
            from_floor = min(spent, left[group])
            left[group] -= from_floor
            pool -= spent - from_floor
            from_floor = min(whole, uncut_left[group])
            uncut_left[group] -= from_floor
            before += whole - from_floor
        claims += [Claim(i, name, failed, position, whole, allowance, floor_left, pool_left,
                         share, taken_before, before)
                   for name, position, whole, allowance, floor_left, pool_left, taken_before
                   in mine]
        remaining -= share - pool
    return claims


def _details_claims() -> tuple[tuple[dict[str, Any], list[Claim]], ...]:
    return _claims_of(_SEED[0])


@functools.cache
def _claims_of(seed: int | None) -> tuple[tuple[dict[str, Any], list[Claim]], ...]:
    return tuple((op_input, _claims(op_input)) for op_input in _inputs("details"))


def _claim_offsets(offset: Callable[[Claim], int | None]) -> Callable[[], Iterator[int]]:
    def offsets() -> Iterator[int]:
        for _, claims in _details_claims():
            for claim in claims:
                found = offset(claim)
                if found is not None:
                    yield found
    return offsets


def _at_floor(field: str) -> Callable[[Claim], int | None]:
    """A field's cost minus what its floor has left at its turn: below it the floor holds the
    field, above it the field draws on the share (or is cut, when the share is spent)."""
    def offset(claim: Claim) -> int | None:
        return claim.cost - claim.floor_left if claim.field == field else None
    return offset



def _share_offsets(first: bool) -> Callable[[], Iterator[int]]:
    """A record's demand beyond its floors minus its fair share (the first record's share is
    ⌊sharedBytes / n⌋, a later one's is what the records before it left, divided)."""
    def offsets() -> Iterator[int]:
        for _, claims in _details_claims():
            for claim in claims:
                if claim.position == 0 and (claim.record == 0) == first:
                    yield claim.demand - claim.share
    return offsets


def _claim_order_offsets(failed: bool) -> Callable[[], Iterator[int]]:
    """A field that needs the share after others claimed: what the fields before it would take
    from the share minus the share (at 0 they leave it nothing; at -1, one byte)."""
    def offset(claim: Claim) -> int | None:
        if claim.failed != failed or claim.position == 0 or claim.cost <= claim.floor_left:
            return None
        return claim.before - claim.share
    return _claim_offsets(offset)


def _bound_of_details() -> Iterator[int]:
    """What the heavy fields cost minus sharedBytes and the floors of the groups the records
    have fields in (budget.md §5.6): at the bound, or one byte under it."""
    for op_input in _inputs("details"):
        floors = {"task": op_input["taskFloorBytes"], "output": op_input["outputFloorBytes"],
                  "diagnostics": op_input["diagnosticFloorBytes"]}
        answer = REFERENCE.run("details", op_input)["results"]
        spent = sum(cost(record[name]) for record in answer for name in SIDES if name in record)
        reserved = sum(floors[group] for record in op_input["records"]
                       for group in {FLOOR_OF[name] for name in SIDES if name in record})
        yield spent - int(op_input["sharedBytes"] + reserved)


def _identity_offsets(op: str, member: str) -> Callable[[], Iterator[int]]:
    """Code points of a well-formed id or agent minus the clip, 256 (budget.md §3.2)."""
    def offsets() -> Iterator[int]:
        for op_input in _inputs(op):
            for record in op_input["records"]:
                yield len(well_formed(record[member])) - ID_CLIP_CODE_POINTS
    return offsets


# -- budget: the live record (§6.1), the lane (§7), the publish timeline (§8) --------------------

def _live_offsets(field: str, bound: int) -> Callable[[], Iterator[int]]:
    """For each live record of a roster's answer, what its task (or output) costs minus the
    live head (64 bytes) or tail (128 bytes) it is cut to."""
    def offsets() -> Iterator[int]:
        for op_input in _inputs("roster"):
            shown = len(REFERENCE.run("roster", op_input)["results"])
            for record in op_input["records"][:shown]:
                if field in record:
                    yield cost(well_formed(record[field])) - bound
    return offsets


def _lane_offsets(which: str) -> Callable[[], Iterator[int]]:
    """For each lane update: the merged records before the cap minus the update's total (the cap
    decides at 1), or the update's records minus the records the lane knew (it recovers known
    records below 0)."""
    def offsets() -> Iterator[int]:
        for op_input in _inputs("lane"):
            known = 0
            for update, state in zip(op_input["updates"],
                                     REFERENCE.run("lane", op_input)["states"], strict=True):
                shown = len(update["results"])
                if which == "cap":
                    yield max(shown, known) - state["total"]
                elif known:
                    yield shown - known
                known = len(state["results"])
    return offsets


def _window_end(changes: list[dict[str, Any]], window: int) -> tuple[int, bool]:
    """The end of the window after the last publish, once ``changes`` are in, and whether a
    state waits for it (from the reference's publishes with the return far away); a window
    that ends past the largest time has no end an event can meet."""
    last = changes[-1]["at"]
    if last + window + 1 > MAX_SAFE_INTEGER:
        return MAX_SAFE_INTEGER + 1, False
    publishes = REFERENCE.run("publish", {"intervalMs": window, "events": [
        *changes, {"at": last + window + 1, "kind": "return"}]})["publishes"]
    waiting = [publish["at"] for publish in publishes if publish["at"] > last]
    return (waiting[0], True) if waiting else (publishes[-1]["at"] + window, False)


def _timelines() -> Iterator[tuple[int, list[dict[str, Any]], int, list[dict[str, Any]]]]:
    """Each publish input as (window, changes, the return's time, late callbacks)."""
    for op_input in _inputs("publish"):
        events = op_input["events"]
        at = next(i for i, event in enumerate(events) if event["kind"] == "return")
        yield int(op_input["intervalMs"]), events[:at], events[at]["at"], events[at + 1:]


def _pending_offsets() -> Iterator[int]:
    """A change while a state is pending: its time minus the end of the window (at 0 it is
    published at once and carries the pending state, budget.md §8.2)."""
    for window, changes, _, _ in _timelines():
        for k in range(1, len(changes)):
            end, pending = _window_end(changes[:k], window)
            if pending:
                yield changes[k]["at"] - end


def _return_offsets() -> Iterator[int]:
    """The return while a state is pending: its time minus the end of the window (the
    terminal flush or the trailing publish, budget.md §8.3)."""
    for window, changes, returned, _ in _timelines():
        if changes:
            end, pending = _window_end(changes, window)
            if pending:
                yield returned - end


def _late_offsets() -> Iterator[int]:
    """A late callback's time minus the return's: at its very instant, or after."""
    for _, _, returned, late in _timelines():
        for event in late:
            yield event["at"] - returned


def _last_change_offsets() -> Iterator[int]:
    """The last change's time minus the return's: at the return's instant, or before."""
    for _, changes, returned, _ in _timelines():
        if changes:
            yield changes[-1]["at"] - returned


def _minimum_offsets(op: str, member: str, minimum: int) -> Callable[[], Iterator[int]]:
    def offsets() -> Iterator[int]:
        for op_input in _inputs(op):
            yield op_input[member] - minimum
    return offsets


def _largest_offsets(op: str) -> Callable[[], Iterator[int]]:
    """Every integer of the inputs (a lane update's total for a lane) minus the largest an input
    may hold, 2^53 - 1 (budget.md §1)."""
    def offsets() -> Iterator[int]:
        for op_input in _inputs(op):
            if op == "details":
                yield from (op_input[name] - MAX_SAFE_INTEGER for name in (
                    "sharedBytes", "taskFloorBytes", "outputFloorBytes", "diagnosticFloorBytes"))
            elif op == "roster":
                yield op_input["maxBytes"] - MAX_SAFE_INTEGER
            elif op == "lane":
                yield from (len(update["results"]) + update.get("omittedResults", 0)
                            - MAX_SAFE_INTEGER for update in op_input["updates"])
            else:
                yield op_input["intervalMs"] - MAX_SAFE_INTEGER
                yield from (event["at"] - MAX_SAFE_INTEGER for event in op_input["events"])
    return offsets


#: Each threshold: the offsets from it that the quick draws meet, and the ones that must be met.
THRESHOLDS: dict[str, tuple[Callable[[], Iterator[int]], set[int]]] = {
    "wire.md §5.1 maxBytes": (_bound_offsets, {-1, 0, 1}),
    "budget.md §6.2 roster maxBytes": (_roster_offsets, {-1, 0, 1}),
    "budget.md §8.2 publish window": (_window_offsets, {-1, 0, 1}),
    # the budget profile
    "budget.md §1 details: the largest integer (2^53 - 1)": (_largest_offsets("details"), {-1, 0}),
    "budget.md §1 roster: the largest integer": (_largest_offsets("roster"), {-1, 0}),
    "budget.md §1 lane: the largest total": (_largest_offsets("lane"), {-1, 0}),
    "budget.md §1 publish: the largest time or interval": (_largest_offsets("publish"), {-1, 0}),
    "budget.md §3.2 id clip (256 code points)": (_identity_offsets("details", "id"), {-1, 0, 1}),
    "budget.md §3.2 agent clip (256 code points)": (_identity_offsets("details", "agent"),
                                                    {-1, 0, 1}),
    "budget.md §4 a field's cost at its allowance": (
        _claim_offsets(lambda claim: claim.cost - claim.allowance), {-1, 0, 1}),
    "budget.md §5.2 task floor": (_claim_offsets(_at_floor("task")), {-1, 0, 1}),
    "budget.md §5.2 output floor": (_claim_offsets(_at_floor("output")), {-1, 0, 1}),
    "budget.md §5.2 diagnostics floor (errorMessage)": (_claim_offsets(_at_floor("errorMessage")),
                                                        {-1, 0, 1}),
    "budget.md §5.2 diagnostics floor left to stderr": (_claim_offsets(_at_floor("stderr")),
                                                        {-1, 0, 1}),
    "budget.md §5.3 the first record's share, sharedBytes / n": (_share_offsets(True),
                                                                 {-1, 0, 1}),
    "budget.md §5.3 a later record's share, remaining / (n - i)": (_share_offsets(False),
                                                                   {-1, 0, 1}),
    "budget.md §5.4 claim order of a failure": (_claim_order_offsets(True), {-1, 0, 1}),
    "budget.md §5.4 claim order of any other record": (_claim_order_offsets(False), {-1, 0, 1}),
    "budget.md §5.6 the bound of the details": (_bound_of_details, {-1, 0}),
    "budget.md §6.1 live task head (64 bytes)": (_live_offsets("task", 64), {-1, 0, 1}),
    "budget.md §6.1 live output tail (128 bytes)": (_live_offsets("output", 128), {-1, 0, 1}),
    "budget.md §6.1 live id clip (256 code points)": (_identity_offsets("roster", "id"),
                                                      {-1, 0, 1}),
    "budget.md §6.2 roster maxBytes minimum (2)": (_minimum_offsets("roster", "maxBytes", 2),
                                                   {0, 1}),
    "budget.md §7.1 lane cap at the update's total": (_lane_offsets("cap"), {-1, 0, 1}),
    "budget.md §7.1 an update shorter than the lane": (_lane_offsets("shorter"), {-1, 0, 1}),
    "budget.md §8.1 intervalMs minimum (1)": (_minimum_offsets("publish", "intervalMs", 1),
                                              {0, 1}),
    "budget.md §8.1 a late callback at the return's instant": (_late_offsets, {0, 1}),
    "budget.md §8.2 a change at a pending state's window end": (_pending_offsets, {-1, 0, 1}),
    "budget.md §8.3 the return at a pending state's window end": (_return_offsets, {-1, 0, 1}),
    "budget.md §8.3 a change at the return's instant": (_last_change_offsets, {-1, 0}),
}


def _assert_met(name: str, seed: int | None) -> None:
    offsets, wanted = THRESHOLDS[name]
    _SEED[0] = seed
    try:
        met = set(offsets())
    finally:
        _SEED[0] = None
    assert wanted <= met, f"{name} (seed {seed}): drawn at offsets " \
        f"{sorted(met & {-2, -1, 0, 1, 2})}, never at {sorted(wanted - met)}"


@pytest.mark.parametrize("name", list(THRESHOLDS))
def test_each_threshold_is_drawn_at_below_and_above(name: str) -> None:
    _assert_met(name, None)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SLOW_SEEDS)
@pytest.mark.parametrize("name", list(THRESHOLDS))
def test_each_threshold_is_drawn_on_random_runs_too(name: str, seed: int) -> None:
    """A random run draws other inputs: every threshold is met on each of these seeds too."""
    _assert_met(name, seed)


@pytest.mark.parametrize("edge", list(COST_EDGES))
def test_each_edge_of_the_cost_table_is_drawn_next_to_the_bound(edge: str) -> None:
    """Within 40 bytes of maxBytes, where one byte decides whether the line is bounded."""
    character = COST_EDGES[edge]
    near = [op_input["event"] for op_input in _inputs("project")
            if op_input["event"].get("type") == "tool_execution_update"]
    assert any(character in text for event in near for text in _strings(event)), edge
