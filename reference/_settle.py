"""How a child's run settles: stop reason, result, lifecycle event, tool result (selection.md §5).

All three views of one run are built from one selection (:func:`select_output`'s fold), so the
result, the ``subagent/end`` lifecycle event and the delegation tool's result always agree on the
child's output (selection.md §5, the reason for one shared rule).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._errors import InvalidInput
from ._selection import (
    event_data,
    event_type,
    fold_events,
    require_list,
    require_object,
    require_string,
)

TURN_END = "turn/end"

#: selection.md §5.1: the kind of the last ``turn/end`` → the stop reason. Every kind not listed
#: here (``error``, ``interrupted``, kinds nobody has seen yet) and a log without ``turn/end``
#: map to ``error``.
STOP_REASONS: Mapping[str, str] = {
    "completed": "completed",
    "max-tokens": "max-tokens",
    "aborted": "aborted",
    "blocked": "refusal",
}
#: selection.md §5.1: what a run that cannot show how it ended stopped with.
FALLBACK_STOP_REASON = "error"

#: selection.md §5.5: the first line of a failed delegation's tool result, by stop reason.
HEADLINES: Mapping[str, str] = {
    "aborted": "subagent run was cancelled",
    "error": "subagent run failed",
    "max-tokens": "subagent run hit its token limit before finishing",
    "refusal": "subagent declined the task",
}


def headline_for(stop_reason: str) -> str:
    """The headline of a non-completed run (selection.md §5.5).

    The last form is reserved: no stop reason of this version reaches it.
    """
    return HEADLINES.get(stop_reason, f"subagent run ended abnormally ({stop_reason})")


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


def stop_reason_of(events: Any, path: str = "$.events") -> str:
    """The stop reason the log records, before cancellation is applied (selection.md §5.1)."""
    last_kind: str | None = None
    for index, event in enumerate(require_list(
        events, path, "a session log", "Send the events as a list (selection.md §2.1).",
    )):
        at = f"{path}[{index}]"
        if event_type(event, at) == TURN_END:
            last_kind = turn_end_kind(event, at)  # §5.1: only the last one counts
    if last_kind is None:
        return FALLBACK_STOP_REASON  # §5.1: a run that never ended a turn did not complete
    return STOP_REASONS.get(last_kind, FALLBACK_STOP_REASON)


def apply_cancellation(stop_reason: str, *, cancelled: bool) -> str:
    """selection.md §5.2: a cancelled run that did not complete stopped with ``aborted``.

    A completed run stays completed: its answer is whole even if a cancel arrived late.
    """
    if cancelled and stop_reason != "completed":
        return "aborted"
    return stop_reason


def tool_result_text(output: list[Any] | None, path: str = "$") -> str:
    """The ``text`` of every ``text`` block of ``output``, joined with ``""`` (selection.md §5.5).

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
    """The delegation tool's result for a settled run (selection.md §5.5)."""
    text = tool_result_text(output, path)
    if stop_reason == "completed":
        return {"isError": False, "text": text}
    # §5.5: the failure comes first, then what the parent can use: the diagnostic and the
    # child's partial answer, each only when there is something to say.
    message = "Error: " + headline_for(stop_reason)
    if diagnostic:
        message += "\nDiagnostic: " + diagnostic
    if text:
        message += "\nPartial output before the run ended:\n" + text
    return {"isError": True, "text": message}


def settle_run(
    events: Any, *, cancelled: bool, diagnostic: str | None = None,
) -> dict[str, Any]:
    """The ``settle`` operation: result, lifecycle event and tool result of one run (§5)."""
    if not isinstance(cancelled, bool):
        raise InvalidInput(
            value=cancelled, path="$.cancelled", reason="is not a boolean (selection.md §7)",
            fix="Send true when the run was cancelled, false otherwise.",
        )
    if diagnostic is not None and not isinstance(diagnostic, str):
        raise InvalidInput(
            value=diagnostic, path="$.diagnostic", reason="is not a string (selection.md §7)",
            fix="Send the diagnostic as a string, or leave the key out.",
        )
    fold = fold_events(events)
    selection = fold.collect()
    stop_reason = apply_cancellation(stop_reason_of(events), cancelled=cancelled)
    end: dict[str, Any] = {"stopReason": stop_reason}
    if selection is not None:
        end["lastAssistantMessage"] = selection  # §5.4: absent, never [], without a selection
    return {
        "result": {"output": [] if selection is None else selection, "stopReason": stop_reason},
        "end": end,
        "toolResult": delegation_tool_result(
            stop_reason, selection, diagnostic, path=fold.content_path or "$",
        ),
    }
