"""What the widened budget generators catch: for each class of shape they draw now (identities at
and over the clip, integers up to 2^53 - 1 and written as integral doubles, fields at the edges
of their floors and shares, live records with output in a lane, events at the end of the window
a pending state waits for, late callbacks at the return's instant, states of any JSON value), a
wrong implementation that only that shape shows, found by a quick search on several seeds.

Each wrong implementation is the reference with one planted difference; a planted difference
that some input decides is a real defect of a port (the docstrings name it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from eventproof.conformance import check_implementation
from eventproof.reference import InvalidInput, well_formed
from eventproof.reference._backstop import clip_id
from eventproof.reference._budget import (
    CLAIM_ORDER,
    FAILED_CLAIM_ORDER,
    FLOOR_OF,
    HEAVY_FIELDS,
    SIDES,
    cost,
    cut,
)
from helpers import conforms_on_a_quick_run
from miniatures import Miniature

#: Seeds the default run checks; ``-m slow`` checks more.
DEFAULT_SEEDS = (0,)
SLOW_SEEDS = tuple(range(1, 12))
INTEGERS = {"details": ("sharedBytes", "taskFloorBytes", "outputFloorBytes",
                        "diagnosticFloorBytes"), "roster": ("maxBytes",)}


def _int32(value: Any) -> int:
    """``value`` as a 32-bit integer holds it (``x | 0`` in JavaScript, an ``int32``)."""
    return (int(value) + 2**31) % 2**32 - 2**31


def _refuse_doubles(op_input: dict[str, Any], names: tuple[str, ...]) -> None:
    for name in names:
        if isinstance(op_input[name], float):
            raise InvalidInput(value=op_input[name], path=f"$.{name}",
                               reason="is not an integer", fix="Send an integer.")


# -- details ------------------------------------------------------------------------------------

def _details(op_input: dict[str, Any], *,
             truncated: Callable[[str, str, int], bool] | None = None) -> dict[str, Any]:
    """budget.md §3-5 written out (the reference's fair share and claim order), with the test
    that lists a field as truncated replaceable: ``truncated(value, kept, allowance)``."""
    records = op_input["records"]
    floors = {"task": int(op_input["taskFloorBytes"]), "output": int(op_input["outputFloorBytes"]),
              "diagnostics": int(op_input["diagnosticFloorBytes"])}
    remaining = int(op_input["sharedBytes"])
    results = []
    for i, record in enumerate(records):
        share = remaining // (len(records) - i)
        left, pool = dict(floors), share
        kept: dict[str, str] = {}
        cut_fields = set()
        for name in FAILED_CLAIM_ORDER if record["status"] == "failed" else CLAIM_ORDER:
            if name not in record:
                continue
            group = FLOOR_OF[name]
            allowance = left[group] + pool
            kept[name] = cut(record[name], allowance, SIDES[name])
            spent = cost(kept[name])
            from_floor = min(spent, left[group])
            left[group] -= from_floor
            pool -= spent - from_floor
            whole = well_formed(record[name])
            if (truncated(whole, kept[name], allowance) if truncated else kept[name] != whole):
                cut_fields.add(name)
        out = {"id": clip_id(record["id"]), "agent": clip_id(record["agent"]),
               "status": record["status"]}
        out.update((name, kept[name]) for name in HEAVY_FIELDS if name in kept)
        if cut_fields:
            out["truncated"] = [name for name in HEAVY_FIELDS if name in cut_fields]
        results.append(out)
        remaining -= share - pool
    return {"results": results}


class DetailsAsWritten(Miniature):
    """The written-out details above, unplanted: it must agree with the reference."""

    def details(self, input: Any) -> Any:
        return _details(input)


class AgentKeptWhole(Miniature):
    """budget.md §3.2: `id` is clipped to 256 code points, `agent` is kept whole."""

    def details(self, input: Any) -> Any:
        answer = self.reference.run("details", input)
        for record, final in zip(input["records"], answer["results"], strict=True):
            final["agent"] = well_formed(record["agent"])
        return answer


class ClipFromTheNextCodePoint(Miniature):
    """budget.md §3.2: an identity is kept whole up to 257 code points (``length > 257`` where
    ``length > 256`` was meant), clipped to 256 beyond."""

    def details(self, input: Any) -> Any:
        answer = self.reference.run("details", input)
        for record, final in zip(input["records"], answer["results"], strict=True):
            for name in ("id", "agent"):
                if len(well_formed(record[name])) == 257:
                    final[name] = well_formed(record[name])
        return answer


class BudgetIn32Bits(Miniature):
    """budget.md §1: the budget and floors held in 32-bit integers (``x | 0``): 2^53 - 1 reads as
    -1, spent as nothing, and 2^31 as a negative budget."""

    def details(self, input: Any) -> Any:
        held = {**input, **{name: max(0, _int32(input[name])) for name in INTEGERS["details"]}}
        return self.reference.run("details", held)


class DetailsRefuseDoubles(Miniature):
    """budget.md §1: `4096.0` refused as "not an integer" (a type test, not a value test)."""

    def details(self, input: Any) -> Any:
        _refuse_doubles(input, INTEGERS["details"])
        return self.reference.run("details", input)


class TruncatedAtItsAllowance(Miniature):
    """budget.md §3.1, §4: a field is listed as truncated when its cost is not below its
    allowance (``>=`` where ``>`` was meant): a field that exactly fits is listed as cut."""

    def details(self, input: Any) -> Any:
        return _details(input, truncated=lambda whole, kept, allowance:
                        cost(whole) >= allowance > 0 or kept != whole)


# -- roster, lane -------------------------------------------------------------------------------

class RosterBoundIn32Bits(Miniature):
    """budget.md §1: maxBytes held in a 32-bit integer: 2^53 - 1 reads as -1, so nothing fits."""

    def roster(self, input: Any) -> Any:
        held = max(2, _int32(input["maxBytes"]))
        return self.reference.run("roster", {**input, "maxBytes": held})


class RosterRefusesDoubles(Miniature):
    """budget.md §1: `maxBytes: 4096.0` refused as "not an integer"."""

    def roster(self, input: Any) -> Any:
        _refuse_doubles(input, INTEGERS["roster"])
        return self.reference.run("roster", input)


class LaneDropsOutput(Miniature):
    """budget.md §7.1: the lane rebuilds each merged record from its identity and task, so an
    update's output (the live record's tail, §6.1) never reaches the lane."""

    def lane(self, input: Any) -> Any:
        answer = self.reference.run("lane", input)
        for state in answer["states"]:
            state["results"] = [{name: record[name] for name in ("id", "agent", "status", "task")
                                 if name in record} for record in state["results"]]
        return answer


class LaneCountIn32Bits(Miniature):
    """budget.md §1, §7.2: an update's omittedResults held in a 32-bit integer: a batch of 2^31
    tasks or more is counted negative (read as none omitted)."""

    def lane(self, input: Any) -> Any:
        updates = []
        for update in input["updates"]:
            update = dict(update)
            if "omittedResults" in update:
                held = _int32(update["omittedResults"])
                if held > 0:
                    update["omittedResults"] = held
                else:
                    del update["omittedResults"]
            updates.append(update)
        return self.reference.run("lane", {"updates": updates})


# -- publish ------------------------------------------------------------------------------------

def _publish(op_input: dict[str, Any], *, trailing_due: Callable[[int, int], bool] | None = None,
             late_by_time: bool = False, falsy_is_none: bool = False) -> dict[str, Any]:
    """budget.md §8 written out, with one step replaceable: when the pending state is due before
    a change (``trailing_due(window_end, at)``), whether lateness is judged by time, and whether a
    falsy state counts as no change."""
    window = int(op_input["intervalMs"])
    events = op_input["events"]
    back = next(i for i, event in enumerate(events) if event["kind"] == "return")
    returned = int(events[back]["at"])
    changes = [event for i, event in enumerate(events) if event["kind"] != "return" and (
        int(event["at"]) <= returned if late_by_time else i < back)]
    if falsy_is_none:
        changes = [event for event in changes if event["state"]]
    instants: list[tuple[int, Any]] = []
    for event in changes:
        if instants and instants[-1][0] == int(event["at"]):
            instants[-1] = (instants[-1][0], event["state"])
        else:
            instants.append((int(event["at"]), event["state"]))
    due = trailing_due or (lambda end, at: end < at)
    publishes: list[dict[str, Any]] = []
    last: int | None = None
    pending, state = False, None
    for at, new_state in instants:
        if pending and last is not None and due(last + window, at):
            publishes.append({"at": last + window, "state": state})
            last, pending = last + window, False
        state, pending = new_state, True
        if last is None or at >= last + window:
            publishes.append({"at": at, "state": state})
            last, pending = at, False
    if pending and last is not None and last + window < returned:
        publishes.append({"at": last + window, "state": state})
        last, pending = last + window, False
    if pending:
        publishes.append({"at": returned, "state": state})
    return {"publishes": publishes}


class PublishAsWritten(Miniature):
    """The written-out cadence above, unplanted: it must agree with the reference."""

    def publish(self, input: Any) -> Any:
        return _publish(input)


class TrailingBeatsChangeAtWindowEnd(Miniature):
    """budget.md §8.2: a change arriving exactly when a pending state is due waits a window,
    and the older state is published there (``<=`` where ``<`` was meant)."""

    def publish(self, input: Any) -> Any:
        return _publish(input, trailing_due=lambda end, at: end <= at)


class LateJudgedByTime(Miniature):
    """budget.md §8.1: a callback is late when it is later than the return, rather than after
    it: one at the return's very instant is published with the terminal state."""

    def publish(self, input: Any) -> Any:
        return _publish(input, late_by_time=True)


class FalsyStateIsNoChange(Miniature):
    """budget.md §8.1: a change whose state is falsy (null, 0, "", false) is taken for no change
    (``if (event.state)``), so an older state is published in its place."""

    def publish(self, input: Any) -> Any:
        return _publish(input, falsy_is_none=True)


class TimesIn32Bits(Miniature):
    """budget.md §1: times held in 32-bit integers: a publish at 2^31 ms or later is written
    negative."""

    def publish(self, input: Any) -> Any:
        answer = self.reference.run("publish", input)
        for publish in answer["publishes"]:
            publish["at"] = _int32(publish["at"])
        return answer


class PublishRefusesDoubles(Miniature):
    """budget.md §1: an interval or a time written `100.0` refused as "not an integer"."""

    def publish(self, input: Any) -> Any:
        for event in input["events"]:
            _refuse_doubles(event, ("at",))
        _refuse_doubles(input, ("intervalMs",))
        return self.reference.run("publish", input)


#: Each wrong implementation, with its operation.
WRONG: dict[type[Miniature], str] = {
    AgentKeptWhole: "details", ClipFromTheNextCodePoint: "details", BudgetIn32Bits: "details",
    DetailsRefuseDoubles: "details", TruncatedAtItsAllowance: "details",
    RosterBoundIn32Bits: "roster", RosterRefusesDoubles: "roster",
    LaneDropsOutput: "lane", LaneCountIn32Bits: "lane",
    TrailingBeatsChangeAtWindowEnd: "publish", LateJudgedByTime: "publish",
    FalsyStateIsNoChange: "publish", TimesIn32Bits: "publish", PublishRefusesDoubles: "publish",
}


def _caught(wrong: type[Miniature], seed: int) -> None:
    op = WRONG[wrong]
    assert not conforms_on_a_quick_run(wrong, op, seed), f"{wrong.__name__} conforms on seed {seed}"


@pytest.mark.parametrize("seed", DEFAULT_SEEDS)
@pytest.mark.parametrize("wrong", list(WRONG), ids=lambda wrong: wrong.__name__)
def test_the_widened_search_catches_it_quick(wrong: type[Miniature], seed: int) -> None:
    _caught(wrong, seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SLOW_SEEDS)
@pytest.mark.parametrize("wrong", list(WRONG), ids=lambda wrong: wrong.__name__)
def test_the_widened_search_catches_it_on_more_seeds(wrong: type[Miniature], seed: int) -> None:
    _caught(wrong, seed)


@pytest.mark.parametrize(("written", "op"), [(DetailsAsWritten, "details"),
                                             (PublishAsWritten, "publish")])
def test_the_written_out_operations_agree_with_the_reference(written: type[Miniature],
                                                            op: str) -> None:
    """The ports the planted bugs are made from conform: each bug is its one difference."""
    report = check_implementation(written, ops=[op], effort="quick", seed=0,
                                  deterministic=False)
    assert report.conforms, [(r.rule.id, r.note) for r in report.results if r.outcome != "pass"]
