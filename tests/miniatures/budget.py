"""Deliberately wrong implementations of the budget profile, one planted bug each.

The budget operations are answered by :class:`BudgetPipeline`, a plain, independent port of
spec/budget.md in the shape a TypeScript port takes (a ``take()`` gate per field, a
``remaining / recordsLeft`` share, a throttle on a virtual clock); a test holds the unplanted
pipeline equal to the reference, so each miniature differs from it in exactly one way. The bugs
are the seed's (its review rounds) and the near misses a port is likely to write.
``MINIATURES`` maps each name to its class and the one rule that must catch it; ``ALSO`` lists
the other rules some miniatures break as well.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, ClassVar

from miniatures import Miniature

ID_CLIP = 256
LIVE_TASK, LIVE_OUTPUT = 64, 128
FIELDS = ("task", "output", "errorMessage", "stderr")
SIDE = {"task": "head", "output": "tail", "errorMessage": "head", "stderr": "tail"}
GROUP = {"task": "task", "output": "output", "errorMessage": "diagnostics",
         "stderr": "diagnostics"}


def _well_formed(text: str) -> str:
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


@lru_cache(maxsize=1 << 16)
def _bytes(text: str) -> int:
    """What ``JSON.stringify(text)`` costs in UTF-8, quotes excluded."""
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogatepass")) - 2


class BudgetPipeline(Miniature):
    """The four budget operations by an independent port; subclasses override one step."""

    name = "miniature-budget-pipeline"
    #: Whether status transitions wait for the window like updates (budget.md §8.2).
    coalesce_status: ClassVar[bool] = True

    # -- §4 cut ------------------------------------------------------------------------------
    def measure(self, text: str) -> int:
        return _bytes(text)

    def cut(self, value: str, allowance: int, side: str) -> str:
        text = _well_formed(value)
        if self.measure(text) <= allowance:
            return text
        kept = spent = 0
        for char in (text if side == "head" else reversed(text)):
            spent += self.measure(char)
            if spent > allowance:
                break
            kept += 1
        return text[:kept] if side == "head" else text[len(text) - kept:]

    # -- §3, §5 details ---------------------------------------------------------------------
    def floors(self, input: dict[str, Any]) -> dict[str, int]:
        return {"task": input["taskFloorBytes"], "output": input["outputFloorBytes"],
                "diagnostics": input["diagnosticFloorBytes"]}

    def share(self, remaining: int, records_left: int) -> int:
        return remaining // records_left

    def claim_order(self, record: dict[str, Any]) -> tuple[str, ...]:
        if record["status"] == "failed":
            return ("errorMessage", "stderr", "output", "task")
        return ("output", "errorMessage", "stderr", "task")

    def identity(self, record: dict[str, Any]) -> dict[str, Any]:
        return {"id": self.clip(record["id"]), "agent": self.clip(record["agent"]),
                "status": record["status"]}

    def clip(self, value: str) -> str:
        return _well_formed(value)[:ID_CLIP]

    def render(self, record: dict[str, Any], kept: dict[str, str]) -> dict[str, Any]:
        out = self.identity(record)
        truncated = []
        for name in FIELDS:
            if name in kept:
                out[name] = kept[name]
                if kept[name] != _well_formed(record[name]):
                    truncated.append(name)
        if truncated:
            out["truncated"] = truncated
        return out

    def take(self, record: dict[str, Any], name: str, floor_left: dict[str, int],
             pool: list[int]) -> str:
        """Cut one field to its floor's rest plus the pool, and charge what it kept."""
        group = GROUP[name]
        text = self.cut(record[name], floor_left[group] + pool[0], SIDE[name])
        spent = self.measure(text)
        from_floor = min(spent, floor_left[group])
        floor_left[group] -= from_floor
        pool[0] -= spent - from_floor
        return text

    def final_record(self, record: dict[str, Any], share: int,
                     floors: dict[str, int]) -> tuple[dict[str, Any], int]:
        floor_left, pool = dict(floors), [share]
        kept = {name: self.take(record, name, floor_left, pool)
                for name in self.claim_order(record) if name in record}
        return self.render(record, kept), share - pool[0]

    def details(self, input: dict[str, Any]) -> Any:
        records, remaining = input["records"], input["sharedBytes"]
        floors = self.floors(input)
        results = []
        for i, record in enumerate(records):
            out, used = self.final_record(record, self.share(remaining, len(records) - i),
                                          floors)
            remaining -= used
            results.append(out)
        return {"results": results}

    # -- §6 roster ----------------------------------------------------------------------------
    def live_record(self, record: dict[str, Any]) -> dict[str, Any]:
        out = self.identity(record)
        out["task"] = self.cut(record["task"], LIVE_TASK, "head")
        if "output" in record:
            out["output"] = self.cut(record["output"], LIVE_OUTPUT, "tail")
        return out

    def record_size(self, live: dict[str, Any]) -> int:
        """What one live record adds to the serialized roster, its comma aside."""
        return len(json.dumps(live, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))

    def bound(self, input: dict[str, Any]) -> float:
        return float(input["maxBytes"])

    def roster(self, input: dict[str, Any]) -> Any:
        results: list[dict[str, Any]] = []
        size = 2  # "[]"
        for record in input["records"]:
            live = self.live_record(record)
            grown = size + self.record_size(live) + (1 if results else 0)
            if grown > self.bound(input):
                break
            results.append(live)
            size = grown
        return self.roster_answer(results, len(input["records"]))

    def roster_answer(self, results: list[dict[str, Any]], total: int) -> dict[str, Any]:
        out: dict[str, Any] = {"results": results}
        if total > len(results):
            out["omittedResults"] = total - len(results)
        return out

    # -- §7 lane -------------------------------------------------------------------------------
    def merge(self, merged: list[Any], results: list[Any], total: int) -> list[Any]:
        return (results + merged[len(results):])[:total]

    def lane_state(self, update: dict[str, Any], merged: list[Any]) -> dict[str, Any]:
        total = len(update["results"]) + int(update.get("omittedResults", 0))
        state: dict[str, Any] = {"total": total, "results": merged}
        if total > len(merged):
            state["omittedResults"] = total - len(merged)
        return state

    def lane(self, input: dict[str, Any]) -> Any:
        merged: list[Any] = []
        states = []
        for update in input["updates"]:
            total = len(update["results"]) + int(update.get("omittedResults", 0))
            merged = self.merge(merged, list(update["results"]), total)
            states.append(self.lane_state(update, merged))
        return {"states": states}

    # -- §8 publish ------------------------------------------------------------------------------
    def events(self, input: dict[str, Any]) -> list[dict[str, Any]]:
        """The events the publisher sees: everything up to the return."""
        events = input["events"]
        end = next(i for i, event in enumerate(events) if event["kind"] == "return")
        return events[: end + 1]

    def flush(self, publishes: list[dict[str, Any]], at: int, state: Any) -> None:
        publishes.append({"at": at, "state": state})

    def publish(self, input: dict[str, Any]) -> Any:
        window = input["intervalMs"]
        publishes: list[dict[str, Any]] = []
        last: int | None = None
        pending: tuple[Any] | None = None  # (state,) while a state waits
        events = self.events(input)
        for i, event in enumerate(events):
            at = event["at"]
            instant_begins = i == 0 or events[i - 1]["at"] != at
            if instant_begins and pending is not None and last is not None \
                    and last + window < at:
                publishes.append({"at": last + window, "state": self.waiting(pending)})
                last, pending = last + window, None
            if event["kind"] == "return":
                if pending is not None:
                    self.flush(publishes, at, pending[0])
                continue
            pending = (event["state"],) if pending is None else self.newer(pending,
                                                                           event["state"])
            instant_ends = i + 1 == len(events) or events[i + 1]["at"] != at
            allowed = last is None or at >= last + window
            immediate = event["kind"] == "status" and not self.coalesce_status
            if immediate or (instant_ends and allowed):
                publishes.append({"at": at, "state": pending[0]})
                last, pending = at, None
        return {"publishes": publishes}

    def newer(self, pending: tuple[Any], state: Any) -> tuple[Any]:
        return (state,)

    def waiting(self, pending: tuple[Any]) -> Any:
        return pending[0]


# -- the seed's details defects ----------------------------------------------------------------


class ZeroAllowanceKeepsWhole(BudgetPipeline):
    """``tailChars(value, max)`` as ``value.slice(-(max - 1))``: for ``max <= 1`` that is
    ``slice(-0)``, the whole value. Once the shared budget is spent, every later field is kept
    at full size (the seed's third review round: 200 x 300 KB answers gave 48.94 MiB of
    details). Caught by ``details.rejected`` and ``details.bounded``."""

    name = "zero-allowance-keeps-whole"

    def cut(self, value: str, allowance: int, side: str) -> str:
        if allowance <= 1:
            return _well_formed(value)
        return super().cut(value, allowance, side)


class FirstComeBudget(BudgetPipeline):
    """No floors, and each record may claim whatever is left (first-come): early records spend
    the budget, so 10 of 20 records lost their output and 158 of 200 their task. Caught by
    ``details.fair-share``, ``details.output`` and ``details.task``."""

    name = "first-come-budget"

    def floors(self, input: dict[str, Any]) -> dict[str, int]:
        return {"task": 0, "output": 0, "diagnostics": 0}

    def share(self, remaining: int, records_left: int) -> int:
        return remaining


class FirstComeWithFloors(FirstComeBudget):
    """Keeps the floors, but lets each record claim all that is left of the shared budget.
    Caught by ``details.fair-share``."""

    name = "first-come-with-floors"

    def floors(self, input: dict[str, Any]) -> dict[str, int]:
        return BudgetPipeline.floors(self, input)


class TaskWithoutFloor(BudgetPipeline):
    """The task reserves no floor and claims last from the share: once earlier records spent
    the shared budget, later rows lose their task and render unnamed (the seed: 158 of 200
    tasks). Caught by ``details.task``."""

    name = "task-without-floor"

    def floors(self, input: dict[str, Any]) -> dict[str, int]:
        return {**super().floors(input), "task": 0}


class UnchargedFields(BudgetPipeline):
    """``task`` and ``stderr`` rendered from a bare tail of 50,000 code points and never charged
    to the budget (the seed: 1,000 tasks with control-character output reached 9.13 MiB).
    Caught by ``details.bounded`` and ``details.rejected``."""

    name = "uncharged-fields"

    def take(self, record: dict[str, Any], name: str, floor_left: dict[str, int],
             pool: list[int]) -> str:
        if name in ("task", "stderr"):
            text = _well_formed(record[name])
            return text[:50_000] if SIDE[name] == "head" else text[-50_000:]
        return super().take(record, name, floor_left, pool)


class FailuresLoseReason(BudgetPipeline):
    """Diagnostics get no floor and claim last, after the output, so once earlier records spent
    the budget a failure keeps no reason ("no error detail captured").
    Caught by ``details.reason``."""

    name = "failures-lose-reason"

    def floors(self, input: dict[str, Any]) -> dict[str, int]:
        return {**super().floors(input), "diagnostics": 0}

    def claim_order(self, record: dict[str, Any]) -> tuple[str, ...]:
        return ("output", "task", "errorMessage", "stderr")


class DiagnosticsAfterOutput(BudgetPipeline):
    """Keeps every floor, but a failure claims its output before its diagnostics: the reason is
    cut at its floor while the output takes the share. Caught by ``details.claim-order``."""

    name = "diagnostics-after-output"

    def claim_order(self, record: dict[str, Any]) -> tuple[str, ...]:
        return ("output", "errorMessage", "stderr", "task")


class SpreadsFinalRecord(BudgetPipeline):
    """The final record is ``{...record, ...bounded}``: members the runner added (``messages``,
    ``sessionFile``) reach the details unbounded. Caught by ``details.allowlist``."""

    name = "spreads-final-record"

    def render(self, record: dict[str, Any], kept: dict[str, str]) -> dict[str, Any]:
        bounded = super().render(record, kept)
        return {**record, **bounded}


class IdsNotClipped(BudgetPipeline):
    """Keeps ids and agent names whole. Caught by ``details.identity``."""

    name = "ids-not-clipped"

    def clip(self, value: str) -> str:
        return _well_formed(value)


class TaskKeepsTail(BudgetPipeline):
    """Cuts every field from its end, the task and errorMessage included (one ``tailChars``
    for all). Caught by ``details.cut``."""

    name = "task-keeps-tail"

    def cut(self, value: str, allowance: int, side: str) -> str:
        return super().cut(value, allowance, "tail")


class CutsInUtf16Units(BudgetPipeline):
    """Cuts in UTF-16 units, measuring each candidate with ``Buffer.byteLength`` (a lone half
    counts 3 bytes): with 3 bytes left at an astral character, the cut keeps its first half, a
    lone surrogate. Caught by ``details.cut``."""

    name = "cuts-in-utf16-units"

    def cut(self, value: str, allowance: int, side: str) -> str:
        text = _well_formed(value)
        if self.measure(text) <= allowance:
            return text
        # At most `allowance` code points fit (each costs at least a byte): look at no more.
        near = text[: allowance + 1] if side == "head" else text[max(0, len(text) - allowance - 1):]
        raw = near.encode("utf-16-le", "surrogatepass")
        units = [raw[i:i + 2].decode("utf-16-le", "surrogatepass") for i in range(0, len(raw), 2)]
        if side == "tail":
            units.reverse()
        kept = spent = 0
        for k, unit in enumerate(units):
            # The second half of a pair turns a lone half (3 bytes) into the character (4).
            paired = k > 0 and _is_pair(units[k - 1], unit, side)
            spent += 1 if paired else 3 if "\ud800" <= unit <= "\udfff" else self.measure(unit)
            if spent > allowance:
                break
            kept += 1
        piece = units[:kept]
        if side == "tail":
            piece.reverse()
        return "".join(piece).encode("utf-16-le", "surrogatepass").decode("utf-16-le",
                                                                          "surrogatepass")


def _is_pair(previous: str, unit: str, side: str) -> bool:
    high, low = (previous, unit) if side == "head" else (unit, previous)
    return "\ud800" <= high <= "\udbff" and "\udc00" <= low <= "\udfff"


class CutCountsCharacters(BudgetPipeline):
    """Measures a cut in characters, not escaped bytes: 128 control characters kept for an
    allowance of 128 bytes cost 768. Caught by ``details.rejected``."""

    name = "cut-counts-characters"

    def measure(self, text: str) -> int:
        return len(text)


# -- the seed's roster and lane defects ---------------------------------------------------------


class RosterWithoutCount(BudgetPipeline):
    """Stops at the bound but never reports ``omittedResults``: a reader counting the roster
    showed a 600-task batch as "174/174 complete". Caught by ``roster.count``."""

    name = "roster-without-count"

    def roster_answer(self, results: list[dict[str, Any]], total: int) -> dict[str, Any]:
        return {"results": results}


class UnboundedRoster(BudgetPipeline):
    """Sends every live record (``MAX_PARALLEL_TASKS`` is 1,000). Caught by
    ``roster.bounded``."""

    name = "unbounded-roster"

    def bound(self, input: dict[str, Any]) -> float:
        return float("inf")


class RosterCountsCharacters(BudgetPipeline):
    """Measures the roster in characters before escaping: control-character output costs six
    bytes a character on the wire. Caught by ``roster.bounded``."""

    name = "roster-counts-characters"

    def record_size(self, live: dict[str, Any]) -> int:
        return sum(len(value) for value in live.values()) + len(json.dumps(list(live)))


class RosterSkipsToFit(BudgetPipeline):
    """Skips a record that does not fit and keeps trying later ones (a best-fit subset, which
    a lane cannot merge by index). Caught by ``roster.prefix``."""

    name = "roster-skips-to-fit"

    def roster(self, input: dict[str, Any]) -> Any:
        results: list[dict[str, Any]] = []
        size = 2
        for record in input["records"]:
            live = self.live_record(record)
            grown = size + self.record_size(live) + (1 if results else 0)
            if grown <= self.bound(input):
                results.append(live)
                size = grown
        return self.roster_answer(results, len(input["records"]))


class SpreadsLiveRecord(BudgetPipeline):
    """The live record is ``{...record, task, output}`` patched: the child's ``messages`` ride
    on every update. Caught by ``roster.allowlist``."""

    name = "spreads-live-record"

    def live_record(self, record: dict[str, Any]) -> dict[str, Any]:
        return {**record, **super().live_record(record)}


class LaneCountsShown(BudgetPipeline):
    """``omittedResults`` is never read: the header counts the merged roster, so a 600-task
    batch reads "174/174 complete". Caught by ``lane.total``."""

    name = "lane-counts-shown"

    def lane_state(self, update: dict[str, Any], merged: list[Any]) -> dict[str, Any]:
        state = super().lane_state(update, merged)
        state["total"] = len(merged)
        return state


class LaneClearsCount(BudgetPipeline):
    """Drops ``omittedResults`` after merging (the merged roster "is complete again"), so the
    lane freezes at its published prefix: "0/202 complete" for 600 tasks. Caught by
    ``lane.count`` and ``lane.total``."""

    name = "lane-clears-count"

    def lane_state(self, update: dict[str, Any], merged: list[Any]) -> dict[str, Any]:
        return {"total": len(merged), "results": merged}


class LaneKeepsUpdateCount(BudgetPipeline):
    """Spreads the update's details under the merged roster: when the merge recovers every
    record, the update's own ``omittedResults`` survives and counts them again (a complete
    3-task roster, then "1 record + 2 omitted", shows 5 tasks). Caught by ``lane.count`` and
    ``lane.total``."""

    name = "lane-keeps-update-count"

    def lane_state(self, update: dict[str, Any], merged: list[Any]) -> dict[str, Any]:
        state = super().lane_state(update, merged)
        if "omittedResults" not in state and "omittedResults" in update:
            state["omittedResults"] = update["omittedResults"]
            state["total"] = len(merged) + update["omittedResults"]
        return state


class LaneUncapped(BudgetPipeline):
    """Does not cap the merged roster at the update's total: an older, larger roster leaks into
    a reused lane. Caught by ``lane.merge``."""

    name = "lane-uncapped"

    def merge(self, merged: list[Any], results: list[Any], total: int) -> list[Any]:
        return results + merged[len(results):]


# -- the seed's publish defects -----------------------------------------------------------------


class StatusPublishedImmediately(BudgetPipeline):
    """Status transitions bypass the window and publish at once, each re-sending the roster: a
    parallel batch is O(tasks^2) (600 tasks, 530 MiB of live payload).
    Caught by ``publish.window``."""

    name = "status-published-immediately"
    coalesce_status = False


class LateCallbacksPublished(BudgetPipeline):
    """Keeps publishing callbacks that arrive after the call returned (a timer of a closed
    emitter). Caught by ``publish.after-return``."""

    name = "late-callbacks-published"

    def events(self, input: dict[str, Any]) -> list[dict[str, Any]]:
        events = [event for event in input["events"] if event["kind"] != "return"]
        ret = next(event for event in input["events"] if event["kind"] == "return")
        return [*events, {**ret, "at": max(event["at"] for event in input["events"])}]


class NoTerminalFlush(BudgetPipeline):
    """Drops the state still pending when the call returns: the reader never sees the final
    state of the last tasks. Caught by ``publish.terminal``."""

    name = "no-terminal-flush"

    def flush(self, publishes: list[dict[str, Any]], at: int, state: Any) -> None:
        return None


class StalePublish(BudgetPipeline):
    """The window's trailing publish carries the first state that waited, not the newest.
    Caught by ``publish.latest``."""

    name = "stale-publish"

    def newer(self, pending: tuple[Any], state: Any) -> tuple[Any]:
        return pending


# -- bugs only the agreement rules see ------------------------------------------------------------


class EmptyBatchRefused(BudgetPipeline):
    """Refuses an empty batch ("a batch has at least one task"), although the schema admits one
    and the details of an empty batch are ``{"results": []}``. Caught by ``details.agrees``."""

    name = "empty-batch-refused"

    def details(self, input: dict[str, Any]) -> Any:
        if not input["records"]:
            raise ValueError("$.records is empty: a batch has at least one task")
        return super().details(input)


class RosterRefusesSmallBound(BudgetPipeline):
    """Validates ``maxBytes`` against the wire profile's minimum of 4096 and refuses the smaller
    bounds a roster admits (at least 2, budget.md §6.2). Caught by ``roster.agrees``."""

    name = "roster-refuses-small-bound"

    def roster(self, input: dict[str, Any]) -> Any:
        if input["maxBytes"] < 4096:
            raise ValueError(f"$.maxBytes {input['maxBytes']} is below 4096")
        return super().roster(input)


class LaneReadsFirstRecord(BudgetPipeline):
    """Keys the lane by the first record's id (``update.results[0].id``), so a roster that shows
    no record (every record omitted, or an empty batch) makes it throw. Caught by
    ``lane.agrees``."""

    name = "lane-reads-first-record"

    def lane(self, input: dict[str, Any]) -> Any:
        for update in input["updates"]:
            if not update["results"]:
                raise TypeError("Cannot read properties of undefined (reading 'id')")
        return super().lane(input)


class PublishWithoutTrailingEdge(BudgetPipeline):
    """A throttle without a trailing timer: a state that arrives inside the window waits for the
    next change (or the return) instead of being published at the window's end. Every publish
    still carries the newest state, one window apart, and the terminal state is flushed, so only
    the schedule differs. Caught by ``publish.agrees``."""

    name = "publish-without-trailing-edge"

    def publish(self, input: dict[str, Any]) -> Any:
        window = input["intervalMs"]
        publishes: list[dict[str, Any]] = []
        last: int | None = None
        pending: tuple[Any] | None = None
        events = self.events(input)
        for i, event in enumerate(events):
            at = event["at"]
            if event["kind"] == "return":
                if pending is not None:
                    publishes.append({"at": at, "state": pending[0]})
                continue
            pending = (event["state"],)
            instant_ends = i + 1 == len(events) or events[i + 1]["at"] != at
            if instant_ends and (last is None or at >= last + window):
                publishes.append({"at": at, "state": pending[0]})
                last, pending = at, None
        return {"publishes": publishes}


#: Every miniature: name -> (class, the one rule that must catch it). Declared one per line as
#: ``(Class, "rule.id")`` (``eventproof rules --where`` reads these lines).
MINIATURES: dict[str, tuple[type[Miniature], str]] = {
    cls.name: (cls, rule)
    for cls, rule in (
        (ZeroAllowanceKeepsWhole, "details.rejected"),
        (FirstComeBudget, "details.output"),
        (FirstComeWithFloors, "details.fair-share"),
        (TaskWithoutFloor, "details.task"),
        (UnchargedFields, "details.bounded"),
        (FailuresLoseReason, "details.reason"),
        (DiagnosticsAfterOutput, "details.claim-order"),
        (SpreadsFinalRecord, "details.allowlist"),
        (IdsNotClipped, "details.identity"),
        (TaskKeepsTail, "details.cut"),
        (CutsInUtf16Units, "details.cut"),
        (CutCountsCharacters, "details.rejected"),
        (EmptyBatchRefused, "details.agrees"),
        (RosterWithoutCount, "roster.count"),
        (UnboundedRoster, "roster.bounded"),
        (RosterCountsCharacters, "roster.bounded"),
        (RosterSkipsToFit, "roster.prefix"),
        (SpreadsLiveRecord, "roster.allowlist"),
        (RosterRefusesSmallBound, "roster.agrees"),
        (LaneCountsShown, "lane.total"),
        (LaneClearsCount, "lane.count"),
        (LaneKeepsUpdateCount, "lane.count"),
        (LaneUncapped, "lane.merge"),
        (LaneReadsFirstRecord, "lane.agrees"),
        (StatusPublishedImmediately, "publish.window"),
        (LateCallbacksPublished, "publish.after-return"),
        (NoTerminalFlush, "publish.terminal"),
        (StalePublish, "publish.latest"),
        (PublishWithoutTrailingEdge, "publish.agrees"),
    )
}

#: The other rules a miniature's bug breaks, each of which must fail too.
ALSO: dict[str, tuple[str, ...]] = {
    ZeroAllowanceKeepsWhole.name: ("details.bounded",),
    FirstComeBudget.name: ("details.fair-share", "details.task"),
    UnchargedFields.name: ("details.rejected",),
    LaneClearsCount.name: ("lane.total",),
    LaneKeepsUpdateCount.name: ("lane.total",),
}
