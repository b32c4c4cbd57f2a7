"""Wrong variants of the full blind port: the settlement and the budget profile.

The same convention as ``bugs.py``: each class plants ONE bug a porter could write from the spec,
names in its docstring the section and the MUST rule it breaks, and in ``OP`` the operation it
shows in. They are modelled on how the source system itself went wrong (spec/budget.md's
preamble: ``slice(-0)``, first-come budgets, uncharged fields, ungated status transitions, counts
written but never read, late callbacks) and on how ports go wrong (a falsy turn 0, a -1 sentinel,
an off-by-one at a floor or a window, characters counted instead of bytes, paths merged).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from .full_port import (
    FAILURE_ORDER,
    HEAVY,
    LIVE_OUTPUT_BYTES,
    LIVE_TASK_BYTES,
    ONE_SHOT_REASONS,
    Account,
    Fold,
    FullPort,
)


class FullBug(FullPort):
    """Base of every bug of the settlement and budget operations: the op it shows in."""

    OP: ClassVar[str] = ""


# =============================================================================================
# settle: the account of consumed work (spec/selection.md §5.1)
# =============================================================================================


class _LastTurnEndAccount(Account):
    def accounts(self, turn: Any, kind: str) -> bool:
        super().accounts(turn, kind)
        return True


class LastTurnEndDecides(FullBug):
    """selection.md §5.1, rule `settle.accounting-turn`: the end is the last `turn/end` of the
    log (the retired settle.stop-reason), so a no-op turn after the real one replaces it."""

    OP = "settle"
    account_class = _LastTurnEndAccount


class _ClaimedCompletedAccount(Account):
    def accounts(self, turn: Any, kind: str) -> bool:
        if turn in self.stepped:
            self.stepped.discard(turn)
            return True
        if turn in self.claimed:
            self.claimed.discard(turn)
            return True
        return False


class ClaimedCompletedAccounts(FullBug):
    """selection.md §5.1 step 4, rule `settle.accounting-turn`: a claimed turn accounts for work
    whatever its kind, so a claim rewritten away and closed `completed` becomes the end."""

    OP = "settle"
    account_class = _ClaimedCompletedAccount


class _OpenTurnEndAccount(Account):
    def on_turn_end(self, turn: Any, kind: str) -> None:
        super().on_turn_end(self.open if self.turn_is_open() else turn, kind)


class TurnEndUsesOpenTurn(FullBug):
    """selection.md §5.1 step 4, rule `settle.accounting-turn`: a `turn/end` looks up the open
    turn's marks instead of those of its own `data.turn` ("which need not be the open turn's
    number")."""

    OP = "settle"
    account_class = _OpenTurnEndAccount


class _TurnStartClearsAccount(Account):
    def on_turn_start(self, turn: Any) -> None:
        self.stepped.discard(turn)
        self.claimed.discard(turn)
        super().on_turn_start(turn)


class TurnStartClearsMarks(FullBug):
    """selection.md §5.1 (marks keyed by number), rule `settle.accounting-turn`: a `turn/start`
    clears the marks of its number, so a repeated turn number does not inherit them."""

    OP = "settle"
    account_class = _TurnStartClearsAccount


class _StepInOpenTurnAccount(Account):
    def on_step_start(self, turn: Any) -> None:
        if self.turn_is_open() and self.open == turn:
            super().on_step_start(turn)


class StepMarksOnlyOpenTurn(FullBug):
    """selection.md §5.1 step 2, rule `settle.accounting-turn`: a `step/start` marks its turn
    only when that turn is open, where it marks it "whether or not that turn is open"."""

    OP = "settle"
    account_class = _StepInOpenTurnAccount


class _BothMarksAccount(Account):
    def accounts(self, turn: Any, kind: str) -> bool:
        if turn in self.stepped:
            self.stepped.discard(turn)
            self.claimed.discard(turn)
            return True
        return super().accounts(turn, kind)


class SteppedTurnDropsClaim(FullBug):
    """selection.md §5.1 step 4, rule `settle.accounting-turn`: a stepped turn also removes its
    claim, which "stays in the claimed set" for the next `turn/end` of its number."""

    OP = "settle"
    account_class = _BothMarksAccount


class _OpenNotClosedAccount(Account):
    def on_turn_end(self, turn: Any, kind: str) -> None:
        opened = self.open
        super().on_turn_end(turn, kind)
        self.open = opened


class TurnEndLeavesTurnOpen(FullBug):
    """selection.md §5.1 steps 3-4, rule `settle.accounting-turn`: `turn/end` does not close
    the open turn, so a claim between turns is credited to the turn that just ended."""

    OP = "settle"
    account_class = _OpenNotClosedAccount


class _FalsyTurnAccount(Account):
    def __init__(self) -> None:
        super().__init__()
        self.open = None

    def turn_is_open(self) -> bool:
        return bool(self.open)

    def on_turn_end(self, turn: Any, kind: str) -> None:
        super().on_turn_end(turn, kind)
        self.open = None


class TurnZeroNeverOpen(FullBug):
    """selection.md §5.1 step 3, rule `settle.accounting-turn`: "is a turn open" is written
    `if (open)`, so turn 0 is never open and a claim inside it is lost."""

    OP = "settle"
    account_class = _FalsyTurnAccount


class _SentinelAccount(Account):
    def on_turn_start(self, turn: Any) -> None:
        self.open = turn

    def turn_is_open(self) -> bool:
        return self.open is not None and self.open != -1 and super().turn_is_open()


class MinusOneMeansNoTurn(FullBug):
    """selection.md §5.1 step 3, rule `settle.accounting-turn`: the open turn uses -1 as its
    "none" sentinel, so a claim inside turn -1 (turn numbers are any integers) is lost."""

    OP = "settle"
    account_class = _SentinelAccount


class _LiteralTurnAccount(Account):
    def key(self, turn: Any) -> Any:
        return repr(turn)


class TurnKeyedByLiteral(FullBug):
    """selection.md §1 and §5.1, rule `settle.accounting-turn`: turn numbers are keyed by their
    literal (a decoder that keeps the number's text), so `1` and `1.0` are two turns."""

    OP = "settle"
    account_class = _LiteralTurnAccount


class _InsertionClaimsAccount(Account):
    def is_removal(self, data: dict[str, Any]) -> bool:
        return True


class InsertionIsClaim(FullBug):
    """selection.md §5.1 step 3, rule `settle.accounting-turn`: a splice without `removedCount`
    (an insertion, which consumes no work) is read as a claim of the open turn."""

    OP = "settle"
    account_class = _InsertionClaimsAccount


class _ReplacementDropsAccount(Account):
    def on_cancellation(self, inserted: list[Any]) -> None:
        self.dropped = True


class ReplacementDropsWork(FullBug):
    """selection.md §5.1 step 3, rule `settle.dropped-unrun`: every canceled removal sets
    dropped unrun, a replacement (non-empty `inserted`) too."""

    OP = "settle"
    account_class = _ReplacementDropsAccount


class _DroppedKeptAccount(Account):
    def set_end(self, kind: str) -> None:
        dropped = self.dropped
        super().set_end(kind)
        self.dropped = dropped


class DroppedNeverCleared(FullBug):
    """selection.md §5.1, rule `settle.dropped-unrun`: a drop before the end is not cleared by
    the accounting `turn/end`, so it is counted against the end that already reported it."""

    OP = "settle"
    account_class = _DroppedKeptAccount


class _AnyTurnEndClearsAccount(Account):
    def on_turn_end(self, turn: Any, kind: str) -> None:
        super().on_turn_end(turn, kind)
        self.dropped = False


class DroppedClearedByAnyTurnEnd(FullBug):
    """selection.md §5.1, rule `settle.dropped-unrun`: any `turn/end` clears dropped unrun,
    where only one that accounts for work does."""

    OP = "settle"
    account_class = _AnyTurnEndClearsAccount


# =============================================================================================
# settle: what the account must not read (spec/selection.md §2, §5.1)
# =============================================================================================


class EventsSortedByTime(FullBug):
    """selection.md §2 ("Log order is the list order; `seq` and `time` are never consulted"),
    rule `settle.accounting-turn`: the log is sorted by `time` before it is folded."""

    OP = "settle"

    def settle(self, input: Any) -> Any:
        if isinstance(input, dict) and isinstance(input.get("events"), list):
            events = input["events"]
            if all(isinstance(e, dict) and isinstance(e.get("time"), int) for e in events):
                input = {**input, "events": sorted(events, key=lambda e: e["time"])}
        return super().settle(input)


class EventsSortedBySeq(FullBug):
    """selection.md §2, rule `settle.accounting-turn`: the log is put in `seq` order before it is
    folded; the list order is the log order."""

    OP = "settle"

    def settle(self, input: Any) -> Any:
        if isinstance(input, dict) and isinstance(input.get("events"), list):
            events = input["events"]
            if all(isinstance(e, dict) and isinstance(e.get("seq"), int) for e in events):
                input = {**input, "events": sorted(events, key=lambda e: e["seq"])}
        return super().settle(input)


class _MessageStepAccount(Account):
    def push(self, event: Any, path: str) -> None:
        super().push(event, path)
        if isinstance(event, dict) and event.get("type") == "assistant/message":
            data = event.get("data")
            turn = data.get("turn") if isinstance(data, dict) else None
            if isinstance(turn, int) and not isinstance(turn, bool):
                self.stepped.add(turn)


class MessageMarksStep(FullBug):
    """selection.md §5.1 step 2, rule `settle.accounting-turn`: an `assistant/message` marks its
    turn as stepped (a message implies a step); only `step/start` does."""

    OP = "settle"
    account_class = _MessageStepAccount


class _ToolCallStepAccount(Account):
    def push(self, event: Any, path: str) -> None:
        super().push(event, path)
        if isinstance(event, dict) and event.get("type") == "tool/call":
            data = event.get("data")
            turn = data.get("turn") if isinstance(data, dict) else None
            if isinstance(turn, int) and not isinstance(turn, bool):
                self.stepped.add(turn)


class ToolCallMarksStep(FullBug):
    """selection.md §5.1, rule `settle.accounting-turn` ("Every event type not named here
    changes nothing"): a `tool/call` marks its turn as stepped."""

    OP = "settle"
    account_class = _ToolCallStepAccount


class _IgnorableAccount(Account):
    def push(self, event: Any, path: str) -> None:
        if isinstance(event, dict) and event.get("ignorable") is True:
            return
        super().push(event, path)


class IgnorableEventsSkipped(FullBug):
    """selection.md §2.1, rule `settle.accounting-turn` (`ignorable` does not affect this
    profile): the account skips every event marked `ignorable: true`, known types included."""

    OP = "settle"
    account_class = _IgnorableAccount


class _NextTurnClaimAccount(Account):
    def on_splice(self, data: dict[str, Any], path: str) -> None:
        if data.get("outcome") != "canceled" and data.get("target") != "next-turn":
            return
        super().on_splice(data, path)


class ClaimsOnlyNextTurnTarget(FullBug):
    """selection.md §5.1 step 3, rule `settle.accounting-turn`: only a removal from the
    `next-turn` list is read as a claim; the target does not matter."""

    OP = "settle"
    account_class = _NextTurnClaimAccount


class _NetRemovalAccount(Account):
    def on_splice(self, data: dict[str, Any], path: str) -> None:
        inserted = data.get("inserted")
        if data.get("outcome") == "canceled" and isinstance(inserted, list) and \
                isinstance(data.get("removedCount"), int) and data["removedCount"] > len(inserted):
            self.dropped = True
            return
        super().on_splice(data, path)


class DroppedByNetRemoval(FullBug):
    """selection.md §5.1 step 3, rule `settle.dropped-unrun`: a cancellation drops work when it
    removed more messages than it inserted; only an empty `inserted` drops work."""

    OP = "settle"
    account_class = _NetRemovalAccount


_MODEL_SOURCE = {"kind", "provider", "model", "replayState"}


class _StrictSourceFold(Fold):
    def message_counts(self, content: list[Any], data: dict[str, Any]) -> bool:
        message = data.get("message")
        source = message.get("source") if isinstance(message, dict) else None
        if isinstance(source, dict) and not set(source) <= _MODEL_SOURCE:
            return False
        return super().message_counts(content, data)


class MessageWithExtraSourceSkipped(FullBug):
    """selection.md §2.1, rule `settle.output`: a message whose `source` carries a member beyond
    those listed fails a strict decode and is skipped; unknown members MUST NOT drop it."""

    OP = "settle"
    batch_class = _StrictSourceFold


# =============================================================================================
# settle: the two paths (spec/selection.md §5.2-5.3)
# =============================================================================================


class OneShotInterruptedAborted(FullBug):
    """selection.md §5.2-5.3, rule `settle.one-shot-reason`: one mapping for both paths, so a
    one-shot run whose end is `interrupted` settles `aborted` instead of `error`."""

    OP = "settle"

    def recorded_reason(self, account: Account) -> str:
        if account.has_end and account.end == "interrupted":
            return "aborted"
        return super().recorded_reason(account)


class OneShotReadsDropped(FullBug):
    """selection.md §5.2, rule `settle.one-shot-reason` ("Dropped unrun is not read on this
    path"): a completed one-shot run with work dropped after it is `aborted`."""

    OP = "settle"

    def recorded_reason(self, account: Account) -> str:
        recorded = super().recorded_reason(account)
        if recorded == "completed" and account.dropped:
            return "aborted"
        return recorded


class BlockedIsError(FullBug):
    """selection.md §5.2, rule `settle.one-shot-reason`: `blocked` is not in the port's table
    and falls to `error`, where the run is a `refusal`."""

    OP = "settle"

    def recorded_reason(self, account: Account) -> str:
        if account.has_end and account.end == "blocked":
            return "error"
        return super().recorded_reason(account)


class CancelledOverridesCompleted(FullBug):
    """selection.md §5.2, rule `settle.cancelled`: a cancelled run is `aborted` even when its
    end completed (the cancellation came too late to cut it)."""

    OP = "settle"

    def one_shot_reason(self, account: Account, cancelled: bool) -> str:
        return "aborted" if cancelled else self.recorded_reason(account)


class CancelledOnlyWithoutEnd(FullBug):
    """selection.md §5.2, rule `settle.cancelled`: the flag is read only when the log has no
    end (a teardown before the loop wrote one), so a cancelled max-tokens or error run keeps
    its recorded reason."""

    OP = "settle"

    def one_shot_reason(self, account: Account, cancelled: bool) -> str:
        if cancelled and not account.has_end:
            return "aborted"
        return self.recorded_reason(account)


class ContinuableNoEndError(FullBug):
    """selection.md §5.3, rule `settle.continuable-reason`: the one-shot "no end is error" is
    applied to a continuable epoch, which settles `completed` (or `aborted` with dropped work)."""

    OP = "settle"

    def continuable_reason(self, account: Account) -> str:
        if not account.has_end:
            return "error"
        return super().continuable_reason(account)


class ContinuableUnknownKindCompleted(FullBug):
    """selection.md §5.3, rule `settle.continuable-reason`: an end of a kind the table does not
    list falls to the clean-ending row (`completed`), where any other kind is `error`."""

    OP = "settle"

    def continuable_reason(self, account: Account) -> str:
        if account.has_end and account.end not in ONE_SHOT_REASONS and \
                account.end not in ("interrupted", "error"):
            return "aborted" if account.dropped else "completed"
        return super().continuable_reason(account)


class ContinuableDroppedOverridesFailure(FullBug):
    """selection.md §5.3, rule `settle.continuable-reason` ("a recorded failure wins over a
    later cancellation"): work dropped after any end makes the epoch `aborted`."""

    OP = "settle"

    def continuable_reason(self, account: Account) -> str:
        if account.dropped:
            return "aborted"
        return super().continuable_reason(account)


class ModePresentMeansContinuable(FullBug):
    """selection.md §7, rule `settle.agrees`: the path is read as "continuable when `mode` is
    given", so an explicit `"mode": "one-shot"` is settled on the continuable path."""

    OP = "settle"

    def is_continuable(self, input: dict[str, Any]) -> bool:
        super().is_continuable(input)
        return "mode" in input

    def settle(self, input: Any) -> Any:
        if isinstance(input, dict) and "mode" in input:
            input = {k: v for k, v in input.items() if k not in ("cancelled", "diagnostic")}
        return super().settle(input)


# =============================================================================================
# settle: the answer (spec/selection.md §5.4-5.6)
# =============================================================================================


class LastAssistantEmptyList(FullBug):
    """selection.md §5.5, rule `settle.last-assistant`: without a selection the lifecycle event
    carries `lastAssistantMessage: []`, the historical bug's value, instead of no key."""

    OP = "settle"

    def lifecycle_end(self, stop: str, selection: list[Any] | None) -> dict[str, Any]:
        return {"stopReason": stop, "lastAssistantMessage": selection or []}


class ToolResultOnContinuable(FullBug):
    """selection.md §5.6, rule `settle.tool-result`: a continuable answer also gets a tool
    result; only a one-shot run has one."""

    OP = "settle"

    def has_tool_result(self, continuable: bool) -> bool:
        return True


class EmptyDiagnosticDropped(FullBug):
    """selection.md §5.6, rule `settle.tool-result`: the diagnostic line is added when the
    diagnostic is truthy, so `""` loses its line (the spec tests presence)."""

    OP = "settle"

    def error_text(self, stop: str, text: str, input: dict[str, Any]) -> str:
        if input.get("diagnostic") == "":
            input = {k: v for k, v in input.items() if k != "diagnostic"}
        return super().error_text(stop, text, input)


class DiagnosticAfterPartial(FullBug):
    """selection.md §5.6, rule `settle.tool-result`: the partial output comes before the
    diagnostic line; the reason comes first, then the evidence."""

    OP = "settle"

    def error_text(self, stop: str, text: str, input: dict[str, Any]) -> str:
        out = super().error_text(stop, text, {k: v for k, v in input.items()
                                              if k != "diagnostic"})
        if "diagnostic" in input:
            out += "\nDiagnostic: " + input["diagnostic"]
        return out


class ReasoningInToolText(FullBug):
    """selection.md §5.6, rule `settle.tool-result`: T takes the `text` of reasoning blocks as
    well, where only `text` blocks count."""

    OP = "settle"

    def answer_text(self, selection: list[Any] | None) -> str:
        super().answer_text(selection)
        return "".join(b["text"] for b in selection or []
                       if isinstance(b, dict) and b.get("type") in ("text", "reasoning")
                       and isinstance(b.get("text"), str))


class PartialLineWithoutText(FullBug):
    """selection.md §5.6, rule `settle.tool-result`: the partial-output line is added whenever
    there is a selection, also when its text T is "" (a reasoning-only or tool-call answer)."""

    OP = "settle"

    def tool_result(self, stop: str, selection: list[Any] | None,
                    input: dict[str, Any]) -> dict[str, Any]:
        result = super().tool_result(stop, selection, input)
        if result["isError"] and selection and self.answer_text(selection) == "":
            result["text"] += "\nPartial output before the run ended:\n"
        return result


# =============================================================================================
# details (spec/budget.md §3-5)
# =============================================================================================


class DetailsSpreadsRecord(FullBug):
    """budget.md §2.3 and §3.1, rule `details.allowlist`: the final record is built as a
    spread of the task record, so members beyond the allow-list (`messages`, ...) are kept."""

    OP = "details"

    def final_record(self, record: dict[str, Any], kept: dict[str, str],
                     cut_fields: list[str]) -> dict[str, Any]:
        out = super().final_record(record, kept, cut_fields)
        extra = {k: v for k, v in record.items() if k not in out and k not in HEAVY}
        return {**out, **extra}


class TruncatedEmptyListWritten(FullBug):
    """budget.md §3.1, rule `details.allowlist`: `truncated` is written as `[]` when no field
    was cut; it is absent then."""

    OP = "details"

    def final_record(self, record: dict[str, Any], kept: dict[str, str],
                     cut_fields: list[str]) -> dict[str, Any]:
        out = super().final_record(record, kept, cut_fields)
        out.setdefault("truncated", [])
        return out


class TruncatedInClaimOrder(FullBug):
    """budget.md §3.1, rule `details.cut`: `truncated` lists the cut fields in the order they
    claimed, where it lists them in member order."""

    OP = "details"

    def truncated_list(self, cut_fields: list[str]) -> list[str]:
        return list(cut_fields)


class AgentNotClipped(FullBug):
    """budget.md §3.2, rule `details.identity`: `id` is clipped to 256 code points but `agent`
    is kept whole."""

    OP = "details"

    def final_record(self, record: dict[str, Any], kept: dict[str, str],
                     cut_fields: list[str]) -> dict[str, Any]:
        out = super().final_record(record, kept, cut_fields)
        out["agent"] = self.well_formed(record["agent"])
        return out


class IdentityClippedInUtf16(FullBug):
    """budget.md §1 and §3.2, rule `details.identity`: identity is clipped to 256 UTF-16 code
    units (a JavaScript `slice`), which is fewer code points when it holds astral characters and
    can split a pair."""

    OP = "details"

    def clip_identity(self, value: str) -> str:
        units = self.well_formed(value).encode("utf-16-le", "surrogatepass")[:512]
        return self.well_formed(units.decode("utf-16-le", "surrogatepass"))


class ErrorMessageKeptAsTail(FullBug):
    """budget.md §4, rule `details.cut`: both diagnostics are cut as tails, like a log; an
    `errorMessage` keeps its head (the reason comes first)."""

    OP = "details"

    def side_of(self, field: str) -> str:
        return "tail" if field == "errorMessage" else super().side_of(field)


class ZeroAllowanceKeepsWhole(FullBug):
    """budget.md §4 and §5.5, rule `details.rejected`: the tail is taken as `value[-k:]`, which
    is the whole value when k is 0 (the `slice(-0)` defect of the source system)."""

    OP = "details"

    def take(self, text: str, k: int, side: str) -> str:
        if side == "tail":
            return text[-k:]
        return super().take(text, k, side)


class CutCountsCodePoints(FullBug):
    """budget.md §1 and §4, rule `details.cut`: the allowance is counted in code points instead
    of escaped bytes, so non-ASCII and control characters overrun it."""

    OP = "details"

    def cost_of(self, c: str) -> int:
        return 1


class CutCostUnescaped(FullBug):
    """budget.md §1 and §4, rule `details.bounded`: a code point costs its UTF-8 bytes, not what
    it costs escaped inside a string (`\\u0000` is 6 bytes, `\\n` and `"` are 2)."""

    OP = "details"

    def cost_of(self, c: str) -> int:
        return len(c.encode("utf-8"))


class CutExclusiveAllowance(FullBug):
    """budget.md §4, rule `details.cut`: a code point is kept only while the running cost stays
    below the allowance, so a value that costs exactly its allowance loses a code point."""

    OP = "details"

    def fits(self, total: int, allowance: int) -> bool:
        return total < allowance


class HeavyFieldsNotWellFormed(FullBug):
    """budget.md §1 and §4, rule `details.cut`: the heavy fields are cut from the value as
    given, not from its well-formed text: a lone surrogate survives into the record."""

    OP = "details"

    def well_formed(self, text: str) -> str:
        return text

    def cost_of(self, c: str) -> int:
        return len(self.canon.escape_char(c).encode("utf-8", "surrogatepass"))

    def clip_identity(self, value: str) -> str:
        return self.canon.well_formed(value)[:256]


class DiagnosticFloorPerField(FullBug):
    """budget.md §5.2, rule `details.bounded`: `errorMessage` and `stderr` each get a whole
    diagnostics floor instead of sharing one."""

    OP = "details"

    def group_of(self, field: str) -> str:
        return "stderr" if field == "stderr" else super().group_of(field)

    def floors_of(self, floors: dict[str, int]) -> dict[str, int]:
        return {**floors, "stderr": floors["diagnostics"]}

    def used(self, share: int, share_left: int, floors: dict[str, int],
             floors_left: dict[str, int]) -> int:
        return share - share_left


class UnusedFloorToShare(FullBug):
    """budget.md §5.2, rule `details.fair-share`: what a record leaves of its floors is added to
    `remaining` for the records after it ("not passed on to other records")."""

    OP = "details"

    def used(self, share: int, share_left: int, floors: dict[str, int],
             floors_left: dict[str, int]) -> int:
        return share - share_left - sum(floors_left.values())


class FirstComeShare(FullBug):
    """budget.md §5.3, rule `details.fair-share`: each record may take everything that remains
    (first-come allocation), so early records spend the budget."""

    OP = "details"

    def share(self, remaining: int, n: int, i: int, shared: int) -> int:
        return remaining


class ShareFixedAtStart(FullBug):
    """budget.md §5.3, rule `details.agrees`: the share is `sharedBytes / n` for every record,
    so what a small record leaves is never offered to the records after it."""

    OP = "details"

    def share(self, remaining: int, n: int, i: int, shared: int) -> int:
        return min(remaining, shared // n)


class ShareRoundedUp(FullBug):
    """budget.md §5.3, rule `details.fair-share`: the share is rounded up (`Math.ceil`) where
    it is ⌊remaining / (n − i)⌋."""

    OP = "details"

    def share(self, remaining: int, n: int, i: int, shared: int) -> int:
        return math.ceil(remaining / (n - i))


class ShareDividesByRecordsAfter(FullBug):
    """budget.md §5.3, rule `details.fair-share`: the share divides by the records after this
    one (n − i − 1, at least 1) instead of the records still to project, this one included."""

    OP = "details"

    def share(self, remaining: int, n: int, i: int, shared: int) -> int:
        return remaining // max(1, n - i - 1)


class FloorsChargedToBudget(FullBug):
    """budget.md §5.3, rule `details.agrees`: `used` is the record's whole cost, floors
    included, so the floors eat into the shared budget of the records after it."""

    OP = "details"

    def used(self, share: int, share_left: int, floors: dict[str, int],
             floors_left: dict[str, int]) -> int:
        return share - share_left + sum(floors[g] - floors_left[g] for g in floors)


class FailureClaimsOutputFirst(FullBug):
    """budget.md §5.4, rule `details.claim-order`: every record claims output first; a failure
    claims its diagnostics first."""

    OP = "details"

    def is_failure(self, record: dict[str, Any]) -> bool:
        return False


class TaskClaimsFirst(FullBug):
    """budget.md §5.4, rule `details.claim-order`: the task claims before the other fields (it
    is first in the record), where it claims last."""

    OP = "details"

    def claim_order(self, record: dict[str, Any]) -> tuple[str, ...]:
        order = super().claim_order(record)
        return ("task", *(f for f in order if f != "task"))


class StderrBeforeErrorMessage(FullBug):
    """budget.md §5.2 and §5.4, rule `details.reason`: a failure's `stderr` claims before its
    `errorMessage`, so a long log spends the diagnostics floor and the reason is cut away."""

    OP = "details"

    def claim_order(self, record: dict[str, Any]) -> tuple[str, ...]:
        if self.is_failure(record):
            return ("stderr", "errorMessage", "output", "task")
        return super().claim_order(record)


class FailureByErrorMessage(FullBug):
    """budget.md §2.2 and §5.4, rule `details.claim-order`: a record is taken as a failure when
    it has an `errorMessage`, whatever its status; only `status: failed` is a failure."""

    OP = "details"

    def claim_order(self, record: dict[str, Any]) -> tuple[str, ...]:
        if "errorMessage" in record:
            return FAILURE_ORDER
        return super().claim_order(record)


class FloorOrShareNotBoth(FullBug):
    """budget.md §5.4, rule `details.agrees`: a field's allowance is the larger of its floor
    and the share left, where it is their sum."""

    OP = "details"

    def allowance(self, floor_left: int, share_left: int) -> int:
        return max(floor_left, share_left)


class EmptyCutFieldDropped(FullBug):
    """budget.md §3.1, rule `details.allowlist`: a heavy field cut to `""` is left out; a
    present field stays present however little of it is kept."""

    OP = "details"

    def final_record(self, record: dict[str, Any], kept: dict[str, str],
                     cut_fields: list[str]) -> dict[str, Any]:
        kept = {f: v for f, v in kept.items() if v != "" or f == "task"}
        return super().final_record(record, kept, cut_fields)


# =============================================================================================
# roster (spec/budget.md §6)
# =============================================================================================


class RosterSkipsOversized(FullBug):
    """budget.md §6.2, rule `roster.prefix`: a record that does not fit is skipped and the
    roster goes on with the next ones (any subset that fits, not a prefix)."""

    OP = "roster"

    def roster_prefix(self, live: list[dict[str, Any]], max_bytes: int) -> list[dict[str, Any]]:
        sizes: list[int] = []
        kept: list[dict[str, Any]] = []
        for record in live:
            size = self.bytes_of(record)
            if self.roster_fits(self.array_size([*sizes, size]), max_bytes):
                sizes.append(size)
                kept.append(record)
        return kept


class RosterExactFitDropped(FullBug):
    """budget.md §6.2, rule `roster.prefix`: a roster fits only when strictly smaller than
    `maxBytes`; one that fits exactly is kept whole."""

    OP = "roster"

    def roster_fits(self, size: int, max_bytes: int) -> bool:
        return size < max_bytes


class RosterSizeWithoutBrackets(FullBug):
    """budget.md §6.2, rule `roster.bounded`: the size counts the records and their commas but
    not the array's two brackets."""

    OP = "roster"

    def array_size(self, sizes: list[int]) -> int:
        return super().array_size(sizes) - 2


class RosterSizeInCodePoints(FullBug):
    """budget.md §6.2 (size is bytes, §1), rule `roster.bounded`: the roster is measured in
    code points of its serialization, not in UTF-8 bytes."""

    OP = "roster"

    def bytes_of(self, value: Any) -> int:
        return len(self.canon.serialize(value))


class RosterZeroCountWritten(FullBug):
    """budget.md §6.3, rule `roster.count`: `omittedResults: 0` is written for a complete
    roster, where it is absent at zero."""

    OP = "roster"

    def roster(self, input: Any) -> Any:
        out = super().roster(input)
        out.setdefault("omittedResults", 0)
        return out


class LiveRecordKeepsError(FullBug):
    """budget.md §6.1, rule `roster.allowlist`: a live record carries a failure's
    `errorMessage` (cut to the diagnostics floor); it has no diagnostics."""

    OP = "roster"

    def live_record(self, record: dict[str, Any]) -> dict[str, Any]:
        out = super().live_record(record)
        if "errorMessage" in record:
            out["errorMessage"] = self.cut(record["errorMessage"], 64, "head")[0]
        return out


class LiveFloorsSwapped(FullBug):
    """budget.md §6.1, rule `roster.allowlist`: the live task is cut to 128 bytes and the
    output to 64 (the two floors swapped)."""

    OP = "roster"

    def live_record(self, record: dict[str, Any]) -> dict[str, Any]:
        out = super().live_record(record)
        out["task"] = self.cut(record["task"], LIVE_OUTPUT_BYTES, "head")[0]
        if "output" in record:
            out["output"] = self.cut(record["output"], LIVE_TASK_BYTES, "tail")[0]
        return out


class LiveOutputFromHead(FullBug):
    """budget.md §6.1 and §4, rule `roster.allowlist`: the live output keeps its first 128
    bytes; a live row shows the newest line, the tail."""

    OP = "roster"

    def live_record(self, record: dict[str, Any]) -> dict[str, Any]:
        out = super().live_record(record)
        if "output" in record:
            out["output"] = self.cut(record["output"], LIVE_OUTPUT_BYTES, "head")[0]
        return out


# =============================================================================================
# lane (spec/budget.md §7)
# =============================================================================================


class LaneReplacesRoster(FullBug):
    """budget.md §7.1, rule `lane.merge`: each update replaces the lane's records, so a shorter
    update erases the rows the lane already knew."""

    OP = "lane"

    def merge(self, merged: list[Any], results: list[Any], total: int) -> list[Any]:
        return list(results)


class LaneNotCapped(FullBug):
    """budget.md §7.1, rule `lane.merge`: the merged roster is not capped at the update's total,
    so an older, larger roster leaks into a reused lane."""

    OP = "lane"

    def merge(self, merged: list[Any], results: list[Any], total: int) -> list[Any]:
        return results + merged[len(results):]

    def lane_omitted(self, total: int, merged: list[Any], update: dict[str, Any]) -> int:
        return max(0, total - len(merged))


class LaneKeepsUpdateCount(FullBug):
    """budget.md §7.2, rule `lane.count`: a state's `omittedResults` is the update's own, so the
    records a merge recovered are counted twice."""

    OP = "lane"

    def lane_omitted(self, total: int, merged: list[Any], update: dict[str, Any]) -> int:
        return int(update.get("omittedResults", 0))


class LaneCountClearedAfterMerge(FullBug):
    """budget.md §7.2, rule `lane.count`: the count is cleared once a merge happened (the lane
    knew records before), which froze the source system's lane at its published prefix."""

    OP = "lane"

    def merge(self, merged: list[Any], results: list[Any], total: int) -> list[Any]:
        self._merged_before = bool(merged)
        return super().merge(merged, results, total)

    def lane_omitted(self, total: int, merged: list[Any], update: dict[str, Any]) -> int:
        return 0 if self._merged_before else total - len(merged)


class LaneTotalNeverShrinks(FullBug):
    """budget.md §7.2, rule `lane.total`: the total is the largest seen so far, where it is the
    update's own total (a reused lane's batch can be smaller)."""

    OP = "lane"

    def lane_total(self, update: dict[str, Any], previous: int | None) -> int:
        own = self.update_total(update)
        return own if previous is None else max(own, previous)


class LaneTotalFromMerged(FullBug):
    """budget.md §7.2, rule `lane.total`: the total counts the merged records plus the update's
    `omittedResults`, so recovered records are counted twice."""

    OP = "lane"

    def lane(self, input: Any) -> Any:
        out = super().lane(input)
        for state, update in zip(out["states"], input["updates"], strict=True):
            state["total"] = len(state["results"]) + int(update.get("omittedResults", 0))
            state.pop("omittedResults", None)
            if update.get("omittedResults", 0):
                state["omittedResults"] = int(update["omittedResults"])
        return out


class LaneStatesAliased(FullBug):
    """budget.md §7, rule `lane.agrees`: every state holds the one merged list, updated in
    place, so each earlier state shows the records of later updates."""

    OP = "lane"

    def lane(self, input: Any) -> Any:
        self._shared: list[Any] = []
        return super().lane(input)

    def state_results(self, merged: list[Any]) -> list[Any]:
        self._shared[:] = merged
        return self._shared


# =============================================================================================
# publish (spec/budget.md §8)
# =============================================================================================


class StatusPublishedAtOnce(FullBug):
    """budget.md §8.2, rule `publish.window`: a status transition bypasses the window and is
    published at once (the O(tasks²) defect of the source system)."""

    OP = "publish"

    def coalesce(self, changes: list[dict[str, Any]]) -> list[tuple[int, Any]]:
        self._status_at = {int(c["at"]) for c in changes if c.get("kind") == "status"}
        return super().coalesce(changes)

    def due(self, t: int, last: int | None, window: int) -> bool:
        return t in self._status_at or super().due(t, last, window)


class NoTerminalFlush(FullBug):
    """budget.md §8.3, rule `publish.terminal`: a state still pending at the return is dropped;
    the terminal state is always flushed."""

    OP = "publish"

    def flush(self, publishes: list[dict[str, Any]], pending: list[Any], last: int | None,
              window: int, returned: int) -> None:
        if pending and last is not None and last + window <= returned:
            super().flush(publishes, pending, last, window, returned)


class LateCallbacksPublished(FullBug):
    """budget.md §8.3, rule `publish.after-return`: changes after the return are processed like
    any other, so a late callback's state is published."""

    OP = "publish"

    def changes_of(self, events: list[Any], r: int) -> list[dict[str, Any]]:
        return [e for e in events if e.get("kind") != "return"]


class FlushAtWindowEnd(FullBug):
    """budget.md §8.3, rule `publish.after-return` (and `publish.terminal`): the state pending at
    the return waits for its window's end, which can be after the return."""

    OP = "publish"

    def flush(self, publishes: list[dict[str, Any]], pending: list[Any], last: int | None,
              window: int, returned: int) -> None:
        if pending and last is not None:
            publishes.append({"at": last + window, "state": pending[-1]})


class NoTrailingEdge(FullBug):
    """budget.md §8.2, rule `publish.agrees`: a pending state is published only by the next
    change or the terminal flush, never on its own at the end of the window."""

    OP = "publish"

    def trailing(self, publishes: list[dict[str, Any]], at: int, pending: list[Any]) -> int:
        pending.clear()
        return publishes[-1]["at"] if publishes else at


class SameInstantNotCoalesced(FullBug):
    """budget.md §8.2, rule `publish.latest`: changes with the same `at` are taken one by one,
    so the first is published and the last, newest one waits a whole window."""

    OP = "publish"

    def coalesce(self, changes: list[dict[str, Any]]) -> list[tuple[int, Any]]:
        return [(int(c["at"]), c["state"]) for c in changes]


class DebouncedWindow(FullBug):
    """budget.md §8.2, rule `publish.agrees`: the window restarts at every change (a debounce),
    where it runs from the last publish (a throttle)."""

    OP = "publish"

    def on_pending(self, at: int, last: int | None) -> int | None:
        return at


class TerminalAlwaysRepublished(FullBug):
    """budget.md §8.2-8.3, rule `publish.agrees`: the terminal state is published again at the
    return even when it was already published and nothing is pending."""

    OP = "publish"

    def flush(self, publishes: list[dict[str, Any]], pending: list[Any], last: int | None,
              window: int, returned: int) -> None:
        if pending:
            super().flush(publishes, pending, last, window, returned)
        elif publishes:
            publishes.append({"at": returned, "state": publishes[-1]["state"]})


class TrailingBeatsChangeAtBoundary(FullBug):
    """budget.md §8.2, rule `publish.latest`: when a change arrives exactly at the end of the
    window, the older pending state is published there and the change waits a window, where the
    change is published at once and carries it."""

    OP = "publish"

    def trailing_due(self, window_end: int, at: int) -> bool:
        return window_end <= at


FULL_BUGS: list[type[FullBug]] = [
    cls for cls in list(globals().values())
    if isinstance(cls, type) and issubclass(cls, FullBug) and cls is not FullBug
]

__all__ = [cls.__name__ for cls in FULL_BUGS] + ["FULL_BUGS", "FullBug"]
