"""Wrong implementations of the account of consumed work (selection.md §5.1) that only an
order of events shows: each reads one pair of event kinds, or one splice in one turn state,
otherwise than the spec, written from the spec alone."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from eventproof.reference import Reference
from eventproof.reference import _settle as settle
from eventproof.reference._settle import ConsumedWork


@contextmanager
def _accounted_by(account: Callable[..., ConsumedWork]) -> Iterator[None]:
    kept = settle.consumed_work
    settle.consumed_work = account
    try:
        yield
    finally:
        settle.consumed_work = kept


class _Account(Reference):
    """The reference with :meth:`account` in place of the account of consumed work."""

    #: Readings of the account, each a deviation from §5.1 (see the subclasses).
    nested_start_kept = False
    steps_only_in_open_turn = False
    inserting_claim_is_insertion = False
    next_step_cancel_ignored = False
    insertion_clears_drop = False
    step_marks_counted = False
    repeats_skipped = False
    claim_outside_turn_kept = False

    def run(self, op: str, input: Any) -> Any:
        if op != "settle":
            return super().run(op, input)
        with _accounted_by(self.account):
            return super().run(op, input)

    def account(self, events: Any, path: str = "$.events") -> ConsumedWork:
        stepped: Counter[Any] = Counter()
        claimed: set[Any] = set()
        pending_claim = False
        open_turn: Any = None
        end_kind: str | None = None
        dropped = False
        seen: set[Any] = set()
        for event in events:
            if self.repeats_skipped and event.get("seq") in seen:
                continue
            seen.add(event.get("seq"))
            kind, data = event.get("type"), event.get("data") or {}
            if kind == "turn/start":
                if not (self.nested_start_kept and open_turn is not None):
                    open_turn = data["turn"]
                if pending_claim:
                    claimed.add(open_turn)
                    pending_claim = False
            elif kind == "step/start":
                if self.steps_only_in_open_turn and data["turn"] != open_turn:
                    continue
                stepped[data["turn"]] += 1 if self.step_marks_counted else 1 - stepped[
                    data["turn"]]
            elif kind == "agent/inbox/spliced":
                if "removedCount" not in data:
                    if self.insertion_clears_drop:
                        dropped = False
                    continue
                if data.get("outcome") == "canceled":
                    if self.next_step_cancel_ignored and data.get("target") == "next-step":
                        continue
                    dropped = dropped or not data.get("inserted")
                elif self.inserting_claim_is_insertion and data.get("inserted"):
                    continue
                elif open_turn is not None:
                    claimed.add(open_turn)
                elif self.claim_outside_turn_kept:
                    pending_claim = True
            elif kind == "turn/end":
                turn, reason = data["turn"], data["reason"]["kind"]
                open_turn = None
                if stepped[turn] > 0:
                    stepped[turn] -= 1
                    accounts = True
                elif turn in claimed:
                    claimed.discard(turn)
                    accounts = reason != "completed"
                else:
                    accounts = False
                if accounts:
                    end_kind, dropped = reason, False
        return ConsumedWork(end_kind=end_kind, dropped_unrun=dropped)


class NestedTurnStartIgnored(_Account):
    """A turn/start inside an open turn is ignored: the first turn stays open (§5.1: a later
    turn/start replaces the open turn)."""

    nested_start_kept = True


class StepOnlyInOpenTurn(_Account):
    """A step/start marks its turn only while that turn is open (§5.1: the step's own turn,
    open or not: a step after its turn's end marks it for a later end of that number)."""

    steps_only_in_open_turn = True


class InsertingClaimIgnored(_Account):
    """A claim whose splice also inserts messages is read as an insertion (§5.1: a splice that
    removed pending input claims it, whatever it inserts)."""

    inserting_claim_is_insertion = True


class NextStepCancellationIgnored(_Account):
    """A cancellation that targets the next step drops nothing (§5.1: any splice with outcome
    ``canceled`` that inserts nothing drops the work)."""

    next_step_cancel_ignored = True


class InsertionClearsDrop(_Account):
    """New pending input after a cancellation clears the drop (§5.1: only an accounting turn
    does)."""

    insertion_clears_drop = True


class StepsCounted(_Account):
    """Counts step marks: two steps in one turn let two ends of that number account (§5.1: a
    turn is stepped or not; its end consumes the mark)."""

    step_marks_counted = True


class RepeatsSkipped(_Account):
    """Keys events by ``seq`` and skips one whose seq was seen, as a duplicate delivery (§2:
    every event of the log counts, in order; seq is never consulted)."""

    repeats_skipped = True


class ClaimOutsideTurnKept(_Account):
    """Keeps a claim made outside any turn for the next turn (§5.1: a claim outside any turn is
    ignored)."""

    claim_outside_turn_kept = True


#: Every wrong account: each must be caught by a quick settle run.
SEQUENCE_MINIATURES: tuple[type[_Account], ...] = (
    NestedTurnStartIgnored, StepOnlyInOpenTurn, InsertingClaimIgnored,
    NextStepCancellationIgnored, InsertionClearsDrop, StepsCounted, RepeatsSkipped,
    ClaimOutsideTurnKept,
)
