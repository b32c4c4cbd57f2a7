"""How a child's run settles: consumed work, stop reason, result, lifecycle event, tool result.

spec/selection.md §5. All views of one run are built from one selection (the fold of
:mod:`._selection`), so the result, the ``subagent/end`` lifecycle event and the delegation tool's
result always agree on the child's output. The stop reason comes from the log's account of
consumed work (:func:`consumed_work`, §5.1), read by one of two settlement paths: a one-shot run
(§5.2) or one epoch of a continuable activation (§5.3).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from ._errors import InvalidInput
from ._selection import (
    event_data,
    event_type,
    fold_events,
    require_list,
    require_object,
    require_string,
)

TURN_START = "turn/start"
TURN_END = "turn/end"
STEP_START = "step/start"
INBOX_SPLICED = "agent/inbox/spliced"
#: The one splice outcome that marks a cancellation (selection.md §2.4).
CANCELED = "canceled"
#: The turn/end kind a claimed, unstepped turn must not have to account for work (§5.1).
COMPLETED = "completed"

#: The two settlement paths (selection.md §5); a request without "mode" is one-shot.
ONE_SHOT = "one-shot"
CONTINUABLE = "continuable"
MODES: Final = (ONE_SHOT, CONTINUABLE)

#: selection.md §5.2: the kind of the end → the one-shot stop reason. Every other kind, and a log
#: without an end, stops with ``error``.
ONE_SHOT_REASONS: Mapping[str, str] = {
    "completed": "completed",
    "max-tokens": "max-tokens",
    "aborted": "aborted",
    "blocked": "refusal",
}
#: selection.md §5.3: the kind of the end → the continuable stop reason. ``completed`` and a log
#: without an end depend on dropped work; every kind not listed stops with ``error``.
CONTINUABLE_REASONS: Mapping[str, str] = {
    "max-tokens": "max-tokens",
    "aborted": "aborted",
    "interrupted": "aborted",
    "error": "error",
    "blocked": "refusal",
}
#: What a run that cannot show how it ended stopped with (§5.2, §5.3).
FALLBACK_STOP_REASON = "error"

#: selection.md §5.6: the first line of a failed delegation's tool result, by stop reason.
HEADLINES: Mapping[str, str] = {
    "aborted": "subagent run was cancelled",
    "error": "subagent run failed",
    "max-tokens": "subagent run hit its token limit before finishing",
    "refusal": "subagent declined the task",
}


class _Absent:
    """The marker of a request member that was left out (distinct from JSON null)."""

    def __repr__(self) -> str:
        return "<absent>"


#: Passed for a request member the request does not carry.
ABSENT: Final = _Absent()


@dataclass(frozen=True)
class ConsumedWork:
    """The log's account of the work it consumed (selection.md §5.1).

    ``end_kind`` is the reason kind of *the end*, the last turn/end that accounts for work, or
    None when no turn/end did; ``dropped_unrun`` says whether accepted work was cancelled out of
    the inbox, unrun, after it.
    """

    end_kind: str | None
    dropped_unrun: bool


def headline_for(stop_reason: str) -> str:
    """The headline of a non-completed run (selection.md §5.6).

    The last form is reserved: no stop reason of this version reaches it.
    """
    return HEADLINES.get(stop_reason, f"subagent run ended abnormally ({stop_reason})")


def turn_number(event: Mapping[str, Any], path: str) -> int | float:
    """``data.turn`` of a turn or step event (selection.md §2.4): the key of its marks."""
    value = event_data(event, path).get("turn")
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return value  # 1.0 and 1 are one turn, as in every JSON reader that keeps numbers
    raise InvalidInput(
        value=value, path=f"{path}.data.turn",
        reason="is not an integer, but the turn number of a turn or step event must be one "
               "(selection.md §6)",
        fix='Send the turn the event belongs to as an integer: {"turn": 1, ...} '
            "(selection.md §2.4).",
    )


def turn_end_kind(event: Mapping[str, Any], path: str) -> str:
    """``data.reason.kind`` of a ``turn/end`` event (selection.md §2.4)."""
    reason = require_object(
        event_data(event, path).get("reason"), f"{path}.data.reason",
        "the reason of a turn/end",
        'Send {"turn": <int>, "reason": {"kind": "<string>"}} (selection.md §2.4).',
    )
    return require_string(
        reason.get("kind"), f"{path}.data.reason.kind", "the kind of a turn/end reason",
        'Send a string kind such as "completed" or "max-tokens" (selection.md §2.4).',
    )


def consumed_work(events: Any, path: str = "$.events") -> ConsumedWork:
    """One pass over the log: the end and whether work was dropped unrun after it (§5.1).

    A turn/start opens its turn; a step/start marks the step's turn as stepped; a splice that
    removed pending input is a cancellation (outcome ``canceled``) or, while a turn is open, that
    turn's claim. At turn/end the turn accounts for work when its number carries a stepped mark,
    or else a claim mark and a reason other than ``completed``; the mark it used is consumed.
    Marks are keyed by turn number and outlive the turn that made them.
    """
    stepped: set[int | float] = set()
    claimed: set[int | float] = set()
    open_turn: int | float | None = None
    end_kind: str | None = None
    dropped_unrun = False
    for index, event in enumerate(require_list(
        events, path, "a session log", "Send the events as a list (selection.md §2.1).",
    )):
        at = f"{path}[{index}]"
        kind = event_type(event, at)
        if kind == TURN_START:
            open_turn = turn_number(event, at)  # a later turn/start replaces the open turn
        elif kind == STEP_START:
            stepped.add(turn_number(event, at))  # the step's own turn, open or not
        elif kind == INBOX_SPLICED:
            data = event_data(event, at)
            if "removedCount" not in data:
                continue  # a pure insertion consumes nothing (settle.accounting-turn)
            if data.get("outcome") == CANCELED:
                inserted = require_list(
                    data.get("inserted"), f"{at}.data.inserted",
                    "the inserted messages of a splice",
                    'Send the messages the splice inserted as a list, [] for none '
                    "(selection.md §2.4).",
                )
                # settle.dropped-unrun: a replacement keeps the work pending; only a
                # cancellation that leaves nothing behind drops it. Once set, only an
                # accounting turn clears it.
                dropped_unrun = dropped_unrun or not inserted
            elif open_turn is not None:
                claimed.add(open_turn)  # a claim outside any turn is ignored
        elif kind == TURN_END:
            turn = turn_number(event, at)
            reason = turn_end_kind(event, at)
            open_turn = None
            if turn in stepped:
                stepped.discard(turn)  # the claim mark, if any, stays for a later turn/end
                accounts = True
            elif turn in claimed:
                claimed.discard(turn)
                accounts = reason != COMPLETED
            else:
                accounts = False
            if accounts:
                end_kind = reason
                dropped_unrun = False  # settle.dropped-unrun: this end reports earlier drops
    return ConsumedWork(end_kind=end_kind, dropped_unrun=dropped_unrun)


def one_shot_stop_reason(work: ConsumedWork, *, cancelled: bool) -> str:
    """selection.md §5.2: the end's kind by the one-shot mapping, then the cancellation.

    Dropped work is not read: the run's own cancellation is the ``cancelled`` flag.
    """
    recorded = (FALLBACK_STOP_REASON if work.end_kind is None
                else ONE_SHOT_REASONS.get(work.end_kind, FALLBACK_STOP_REASON))
    if cancelled and recorded != "completed":
        return "aborted"  # settle.cancelled
    return recorded


def continuable_stop_reason(work: ConsumedWork) -> str:
    """selection.md §5.3: the end's kind by the continuable mapping and the dropped work."""
    if work.end_kind is None or work.end_kind == COMPLETED:
        return "aborted" if work.dropped_unrun else "completed"
    return CONTINUABLE_REASONS.get(work.end_kind, FALLBACK_STOP_REASON)


def tool_result_text(output: list[Any] | None, path: str = "$") -> str:
    """The ``text`` of every ``text`` block of ``output``, joined with ``""`` (selection.md §5.6).

    Reasoning, image and every other kind of block is left out; no output gives ``""``.
    ``path`` locates ``output`` in error messages.
    """
    pieces: list[str] = []
    for index, block in enumerate(output or []):
        at = f"{path}[{index}]"
        fields = require_object(
            block, at, "a content block",
            'Send content blocks as objects with a "type" (selection.md §2.5).',
        )
        if fields.get("type") == "text":
            pieces.append(require_string(
                fields.get("text"), f"{at}.text", "the text of a text block",
                'Send {"type": "text", "text": "<string>"} (selection.md §2.5).',
            ))
    return "".join(pieces)


def delegation_tool_result(
    stop_reason: str, output: list[Any] | None, diagnostic: str | None, *, path: str = "$",
) -> dict[str, Any]:
    """The delegation tool's result for a settled one-shot run (selection.md §5.6)."""
    text = tool_result_text(output, path)
    if stop_reason == "completed":
        return {"isError": False, "text": text}
    # §5.6: the failure comes first, then the diagnostic whenever one was given (even ""), then
    # the child's partial answer when it has text.
    message = "Error: " + headline_for(stop_reason)
    if diagnostic is not None:
        message += "\nDiagnostic: " + diagnostic
    if text:
        message += "\nPartial output before the run ended:\n" + text
    return {"isError": True, "text": message}


def _mode_of(mode: Any) -> str:
    if mode not in MODES:
        raise InvalidInput(
            value=mode, path="$.mode",
            reason='is not a settlement path; it must be "one-shot" or "continuable" '
                   "(selection.md §7)",
            fix='Send "mode": "one-shot" (or leave it out) for a one-shot run, '
                '"mode": "continuable" for one epoch of a continuable activation.',
        )
    return str(mode)


def _one_shot_flags(cancelled: Any, diagnostic: Any) -> tuple[bool, str | None]:
    if not isinstance(cancelled, bool):  # ABSENT included: a misspelt key must not pass
        raise InvalidInput(
            value=cancelled, path="$.cancelled",
            reason="is not a boolean; a one-shot settle requires it (selection.md §7)",
            fix='Send "cancelled": true when the run was cancelled, false otherwise.',
        )
    if diagnostic is ABSENT:
        return cancelled, None
    if not isinstance(diagnostic, str):
        raise InvalidInput(
            value=diagnostic, path="$.diagnostic", reason="is not a string (selection.md §7)",
            fix="Send the diagnostic as a string, or leave the key out.",
        )
    return cancelled, diagnostic


def _refuse_one_shot_member(name: str, value: Any) -> None:
    if value is not ABSENT:
        raise InvalidInput(
            value=value, path=f"$.{name}",
            reason="is a one-shot member; a continuable epoch has no cancellation flag and no "
                   "delegation tool result, its log records both (selection.md §5.3, §7)",
            fix=f'Leave "{name}" out with "mode": "continuable", or settle the run as one-shot.',
        )


def settle_run(
    events: Any, *, mode: Any = ONE_SHOT, cancelled: Any = ABSENT, diagnostic: Any = ABSENT,
) -> dict[str, Any]:
    """The ``settle`` operation (selection.md §5, §7).

    One-shot (the default): ``{"result", "end", "toolResult"}``; ``cancelled`` is required and
    ``diagnostic`` optional. Continuable: ``{"result", "end"}``; both flags must be absent.
    Pass :data:`ABSENT` (or nothing) for a member the request leaves out.
    """
    path = _mode_of(mode)
    flag, shown = False, None
    if path == ONE_SHOT:
        flag, shown = _one_shot_flags(cancelled, diagnostic)
    else:
        _refuse_one_shot_member("cancelled", cancelled)
        _refuse_one_shot_member("diagnostic", diagnostic)
    fold = fold_events(events)
    selection = fold.collect()
    work = consumed_work(events)
    stop_reason = (one_shot_stop_reason(work, cancelled=flag) if path == ONE_SHOT
                   else continuable_stop_reason(work))
    end: dict[str, Any] = {"stopReason": stop_reason}
    if selection is not None:
        end["lastAssistantMessage"] = selection  # §5.5: absent, never [], without a selection
    settled: dict[str, Any] = {
        "result": {"output": [] if selection is None else selection, "stopReason": stop_reason},
        "end": end,
    }
    if path == ONE_SHOT:
        settled["toolResult"] = delegation_tool_result(
            stop_reason, selection, shown, path=fold.content_path or "$",
        )
    return settled
