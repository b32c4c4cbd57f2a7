"""The settle generators reach every class of log the consumed-work account can misread.

Each wrong implementation below settles like the reference except that it reads the log's
account of consumed work (selection.md §5.1) or its stop-reason mapping (§5.2, §5.3) one wrong
way, each standing for a class of input: turn numbers at 0, negative and written as ``1.0``;
events out of ``seq`` or ``time`` order; events that come with a step but do not mark one; every
splice target and form; repeated turn ends and claims between turns; work dropped before and
after the end, on both paths; members no schema names. A quick search (the smallest budget) must
catch each on every seed checked: a few seeds in the default run, more under ``slow``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, ClassVar

import pytest
from eventproof.conformance import check_implementation
from eventproof.conformance.selection.strategies import settle_families
from eventproof.reference._settle import (
    ConsumedWork,
    continuable_stop_reason,
    one_shot_stop_reason,
)
from helpers import conforms_on_a_quick_run
from hypothesis import HealthCheck, Phase, given, settings
from miniatures import Miniature
from miniatures.selection import _restated

#: Seeds the default run checks; ``-m slow`` checks more.
DEFAULT_SEEDS = (0,)
SLOW_SEEDS = tuple(range(1, 13))

#: The members of each event's ``data`` the schemas name (session-event.json).
_PINNED: dict[str, frozenset[str]] = {
    "turn/start": frozenset({"turn"}),
    "turn/end": frozenset({"turn", "reason"}),
    "step/start": frozenset({"turn", "step"}),
    "agent/inbox/spliced": frozenset({"target", "start", "removedCount", "inserted", "outcome"}),
}


@dataclasses.dataclass(frozen=True)
class Misreading:
    """One wrong way to read a log into its account of consumed work, or to map the account to
    a stop reason (the defaults read it as selection.md §5.1-5.3 say)."""

    #: The key a turn number's marks are kept under (exact numbers: 1 and 1.0 are one key).
    key: Callable[[Any], Any] = lambda turn: turn
    #: Whether the open turn (None: no turn) counts as open when a claim arrives.
    is_open: Callable[[Any], bool] = lambda turn: turn is not None
    #: The event types that mark their turn as stepped.
    marks: frozenset[str] = frozenset({"step/start"})
    #: The splice targets a claim is read from.
    targets: frozenset[str] = frozenset({"next-turn", "next-step"})
    #: An insertion (no ``removedCount``) is read as a claim.
    insertion_claims: bool = False
    #: A cancellation drops work when this says so of its data.
    drops: Callable[[dict[str, Any]], bool] = lambda data: data["inserted"] == []
    #: The member the log is sorted by before it is read (None: list order).
    sort_by: str | None = None
    #: A turn/end leaves the open turn open.
    end_keeps_open: bool = False
    #: A turn/end looks up the open turn's marks, not its own number's.
    end_uses_open: bool = False
    #: A turn/start clears the marks of its number.
    start_clears: bool = False
    #: A stepped turn/end also removes its number's claim.
    step_takes_claim: bool = False
    #: Any turn/end clears dropped work; an accounting one keeps it (``keep``).
    end_clears_drop: str = "accounting"
    #: Events whose data carries a member the schemas do not name are skipped.
    strict: bool = False
    #: Dropped work overrides any end on the continuable path; the one-shot path reads it.
    dropped_overrides: bool = False
    one_shot_reads_dropped: bool = False

    def account(self, events: list[Any]) -> ConsumedWork:
        if self.sort_by is not None:
            events = sorted(events, key=lambda event: event[self.sort_by])
        stepped: set[Any] = set()
        claimed: set[Any] = set()
        open_turn: Any = None
        end: str | None = None
        dropped = False
        for event in events:
            kind, data = event["type"], event["data"]
            if self.strict and kind in _PINNED and set(data) - _PINNED[kind]:
                continue
            if kind == "turn/start":
                open_turn = data["turn"]
                if self.start_clears:
                    stepped.discard(self.key(open_turn))
                    claimed.discard(self.key(open_turn))
            if kind in self.marks:
                stepped.add(self.key(data["turn"]))
            if kind == "agent/inbox/spliced" and ("removedCount" in data or self.insertion_claims):
                if data.get("outcome") == "canceled":
                    dropped = dropped or self.drops(data)
                elif self.is_open(open_turn) and data["target"] in self.targets:
                    claimed.add(self.key(open_turn))
            if kind == "turn/end":
                turn = open_turn if self.end_uses_open and open_turn is not None else data["turn"]
                turn = self.key(turn)
                if not self.end_keeps_open:
                    open_turn = None
                accounts = False
                if turn in stepped:
                    stepped.discard(turn)
                    if self.step_takes_claim:
                        claimed.discard(turn)
                    accounts = True
                elif turn in claimed:
                    claimed.discard(turn)
                    accounts = data["reason"]["kind"] != "completed"
                if accounts:
                    end = data["reason"]["kind"]
                if (accounts and self.end_clears_drop == "accounting") or (
                        self.end_clears_drop == "any"):
                    dropped = False
        return ConsumedWork(end_kind=end, dropped_unrun=dropped)

    def stop_reason(self, input: dict[str, Any]) -> str:
        work = self.account(input["events"])
        if input.get("mode") == "continuable":
            if self.dropped_overrides and work.dropped_unrun:
                return "aborted"
            return continuable_stop_reason(work)
        reason = one_shot_stop_reason(work, cancelled=input["cancelled"])
        if self.one_shot_reads_dropped and reason == "completed" and work.dropped_unrun:
            return "aborted"
        return reason


def _misread(name: str, **wrong: Any) -> type[Miniature]:
    misreading = Misreading(**wrong)

    class Misread(Miniature):
        reading: ClassVar[Misreading] = misreading

        def settle(self, input: Any) -> Any:
            answer: dict[str, Any] = self.reference.run("settle", input)
            return _restated(input, answer, self.reading.stop_reason(input))

    Misread.name = Misread.__name__ = Misread.__qualname__ = name
    return Misread


#: Each class of log the settle families reach, and the wrong reading only that class shows.
WRONG: dict[str, type[Miniature]] = {
    # Turn numbers: 0 (falsy), -1 (a sentinel), 1 and 1.0 (one number, two literals).
    "turn 0 is no open turn": _misread("FalsyOpenTurn", is_open=bool),
    "turn -1 is no open turn": _misread(
        "SentinelOpenTurn", is_open=lambda turn: turn is not None and turn != -1),
    "turns keyed by their literal": _misread("LiteralTurnKeys", key=repr),
    # Order: the list order is the log order; seq and time are never consulted.
    "events sorted by seq": _misread("SortedBySeq", sort_by="seq"),
    "events sorted by time": _misread("SortedByTime", sort_by="time"),
    # Events a step brings that mark no step.
    "a tool call marks a step": _misread(
        "ToolCallMarks", marks=frozenset({"step/start", "tool/call"})),
    "a message marks a step": _misread(
        "MessageMarks", marks=frozenset({"step/start", "assistant/message"})),
    # Splice forms: every target, insertions, replacements that remove more than they insert.
    "only next-turn claims": _misread("NextTurnClaimsOnly", targets=frozenset({"next-turn"})),
    "an insertion claims": _misread("InsertionClaims", insertion_claims=True),
    "a net removal drops work": _misread(
        "NetRemovalDrops", drops=lambda data: data["removedCount"] > len(data["inserted"])),
    # Repeated numbers, claims between turns, turn/end of another number than the open turn's.
    "a turn/end leaves its turn open": _misread("EndKeepsOpen", end_keeps_open=True),
    "a turn/end reads the open turn": _misread("EndReadsOpenTurn", end_uses_open=True),
    "a turn/start clears marks": _misread("StartClearsMarks", start_clears=True),
    "a stepped turn/end takes the claim": _misread("StepTakesClaim", step_takes_claim=True),
    # Dropped work before and after the end, on both paths.
    "any turn/end clears a drop": _misread("AnyEndClearsDrop", end_clears_drop="any"),
    "no turn/end clears a drop": _misread("NoEndClearsDrop", end_clears_drop="never"),
    "a drop overrides a failure": _misread("DropOverridesFailure", dropped_overrides=True),
    "the one-shot path reads drops": _misread("OneShotReadsDrops", one_shot_reads_dropped=True),
    # Members no schema names: a port that decodes into fixed structures skips the event.
    "events with unnamed members skipped": _misread("StrictDecode", strict=True),
}


def _caught(wrong: type[Miniature], seed: int) -> bool:
    return not conforms_on_a_quick_run(wrong, "settle", seed)


@pytest.mark.parametrize("seed", DEFAULT_SEEDS)
@pytest.mark.parametrize("shape", list(WRONG))
def test_a_quick_search_catches_each_misreading(shape: str, seed: int) -> None:
    assert _caught(WRONG[shape], seed), f"{shape}: not caught on seed {seed}"


@pytest.mark.slow
@pytest.mark.parametrize("seed", SLOW_SEEDS)
@pytest.mark.parametrize("shape", list(WRONG))
def test_a_quick_search_catches_each_misreading_on_more_seeds(shape: str, seed: int) -> None:
    assert _caught(WRONG[shape], seed), f"{shape}: not caught on seed {seed}"


def test_the_right_reading_conforms() -> None:
    """The configurable reading with no misreading is the reference's: every wrong one above
    differs from it in one knob only."""
    right = _misread("RightReading")
    assert check_implementation(right, ops=["settle"], effort="quick", seed=0,
                                deterministic=False).conforms


def _first_inputs(family_name: str) -> dict[str, Any]:
    """The first input a search of the settle family draws (the simplest draw)."""
    family = next(f for f in settle_families() if f.name == family_name)
    drawn: list[dict[str, Any]] = []

    @settings(max_examples=1, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(family.strategy)
    def draw(op_input: dict[str, Any]) -> None:
        drawn.append(op_input)

    draw()
    return drawn[0]


@pytest.mark.parametrize(("family", "wrong"), [
    ("hidden-claims", "turn 0 is no open turn"),
    ("hidden-claims", "turns keyed by their literal"),
    ("hidden-claims", "only next-turn claims"),
    ("hidden-negative-claims", "turn -1 is no open turn"),
    ("hidden-steps", "a turn/start clears marks"),
    ("unmarked-turns", "a tool call marks a step"),
    ("unmarked-turns", "a message marks a step"),
    ("unmarked-turns", "an insertion claims"),
    ("unmarked-turns", "a net removal drops work"),
    ("repeated-turn-ends", "a turn/end leaves its turn open"),
    ("drops-after-the-end", "any turn/end clears a drop"),
])
def test_the_simplest_draw_of_each_family_decides(family: str, wrong: str) -> None:
    """The first input of every search of these families (whatever the seed) is a log on which
    the wrong reading settles otherwise than the reference."""
    op_input = _first_inputs(family)
    reading = WRONG[wrong].reading  # type: ignore[attr-defined]
    assert reading.stop_reason(op_input) != Misreading().stop_reason(op_input)
