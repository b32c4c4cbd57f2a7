"""The rules of the selection profile (spec/selection.md): one entry per normative statement a
check enforces.

Rule ids are stable: reports, expectation files, replay files and the vectors cite them. The spec
states each rule in the section named here and mentions its id there; a unit test holds the two in
step.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._model import AnswerClass, Rule, scoped

PROFILE = "selection"
_PATHS = ("one-shot", "continuable")
_REASONS = ("completed", "max-tokens", "aborted", "refusal", "error")


def _has_message(op_input: Any) -> bool:
    """Whether the log holds an assistant message with non-empty content (§3.1)."""
    events = op_input.get("events") if isinstance(op_input, Mapping) else None
    for event in events if isinstance(events, list) else ():
        data = event.get("data") if isinstance(event, Mapping) else None
        if not (isinstance(data, Mapping) and event.get("type") == "assistant/message"):
            continue
        message = data.get("message")
        content = message.get("content") if isinstance(message, Mapping) else None
        if isinstance(content, list) and content:
            return True
    return False


def _message_content(op_input: Any, expected: Any) -> bool:
    return _has_message(op_input)


def _no_message(op_input: Any, expected: Any) -> bool:
    return not _has_message(op_input)


def _streamed_text(op_input: Any, expected: Any) -> bool:
    return expected is not None and not _has_message(op_input)


def _nothing(op_input: Any, expected: Any) -> bool:
    return expected is None


def _path(op_input: Any) -> str:
    mode = op_input.get("mode") if isinstance(op_input, Mapping) else None
    return "continuable" if mode == "continuable" else "one-shot"


def _one_shot(op_input: Any, expected: Any) -> bool:
    return _path(op_input) == "one-shot"


def _continuable(op_input: Any, expected: Any) -> bool:
    return _path(op_input) == "continuable"


def _stop_reason(expected: Any) -> Any:
    result = expected.get("result") if isinstance(expected, Mapping) else None
    return result.get("stopReason") if isinstance(result, Mapping) else None


def _settled(path: str, reason: str) -> Any:
    def member(op_input: Any, expected: Any) -> bool:
        return _path(op_input) == path and _stop_reason(expected) == reason

    member.__name__ = member.__qualname__ = f"settled_{path}_{reason}".replace("-", "_")
    return member


def _with_output(op_input: Any, expected: Any) -> bool:
    result = expected.get("result") if isinstance(expected, Mapping) else None
    return isinstance(result, Mapping) and bool(result.get("output"))


def _without_output(op_input: Any, expected: Any) -> bool:
    return isinstance(expected, Mapping) and not _with_output(op_input, expected)


def _with_diagnostic(op_input: Any, expected: Any) -> bool:
    return _one_shot(op_input, expected) and "diagnostic" in op_input


def _without_diagnostic(op_input: Any, expected: Any) -> bool:
    return _one_shot(op_input, expected) and "diagnostic" not in op_input


_SETTLED = tuple(f"{path} {reason}" for path in _PATHS for reason in _REASONS)

#: The classes of the reference's answers, by operation: the families aim at every one.
CLASSES: dict[str, tuple[AnswerClass, ...]] = {
    "select": (
        AnswerClass("message content", _message_content),
        AnswerClass("streamed text", _streamed_text),
        AnswerClass("no output", _nothing),
    ),
    "settle": (
        *(AnswerClass(f"{path} {reason}", _settled(path, reason))
          for path in _PATHS for reason in _REASONS),
        AnswerClass("with output", _with_output),
        AnswerClass("without output", _without_output),
        AnswerClass("one-shot with diagnostic", _with_diagnostic),
        AnswerClass("one-shot without diagnostic", _without_diagnostic),
    ),
}

#: The answers each rule judges (rules not named: every answer of their operation).
_APPLIES = {
    "select.last-message": _message_content,
    "select.text-fallback": _no_message,
    "settle.one-shot-reason": _one_shot,
    "settle.cancelled": _one_shot,
    "settle.continuable-reason": _continuable,
    "settle.dropped-unrun": _continuable,
}
#: The answer classes each rule depends on.
_NEEDS = {
    "select.last-message": ("message content",),
    "select.text-fallback": ("streamed text", "no output"),
    "select.agrees": tuple(item.name for item in CLASSES["select"]),
    "settle.one-shot-reason": _SETTLED[:len(_REASONS)],
    "settle.cancelled": ("one-shot aborted", "one-shot completed"),
    "settle.continuable-reason": _SETTLED[len(_REASONS):],
    "settle.dropped-unrun": ("continuable aborted", "continuable completed"),
    "settle.output": ("with output", "without output"),
    "settle.last-assistant": ("with output", "without output"),
    "settle.tool-result": ("one-shot with diagnostic", "one-shot without diagnostic"),
    "settle.agrees": tuple(item.name for item in CLASSES["settle"]),
}

_RULES: tuple[Rule, ...] = (
    Rule("select.never-empty", "MUST", PROFILE, "select", "selection.md#3.2",
         "The output is null or a non-empty list of blocks; an empty-content message never "
         "counts."),
    Rule("select.last-message", "MUST", PROFILE, "select", "selection.md#3.1",
         "When an assistant message with non-empty content exists, the output is the content of "
         "the last one."),
    Rule("select.text-fallback", "MUST", PROFILE, "select", "selection.md#3.3",
         "Without such a message, the output is every text-delta text concatenated as one text "
         "block, or null when that text is empty."),
    Rule("select.agrees", "MUST", PROFILE, "select", "selection.md#3",
         "The output equals the reference's."),
    Rule("fold.shape", "MUST", PROFILE, "fold", "selection.md#4.1",
         "A fold answers one collect() before the first push and one after each push."),
    Rule("fold.prefix", "MUST", PROFILE, "fold", "selection.md#4.2",
         "After every push, collect() equals the batch selection of the pushes so far."),
    Rule("settle.accounting-turn", "MUST", PROFILE, "settle", "selection.md#5.1",
         "The end is the last turn/end whose turn entered a model step, or claimed inbox input "
         "and ended other than completed; a turn/end that accounts for no work never replaces "
         "it."),
    Rule("settle.dropped-unrun", "MUST", PROFILE, "settle", "selection.md#5.1",
         "Dropped unrun is true exactly when a cancellation splice with an empty inserted came "
         "after the end (or with no end); only a later accounting turn/end clears it."),
    Rule("settle.one-shot-reason", "MUST", PROFILE, "settle", "selection.md#5.2",
         "The recorded stop reason of a one-shot run is the end's kind by the one-shot mapping; "
         "error, interrupted, any other kind and no end give 'error'."),
    Rule("settle.cancelled", "MUST", PROFILE, "settle", "selection.md#5.2",
         "A cancelled one-shot run whose recorded stop reason is not 'completed' stops with "
         "'aborted'; a completed one stays 'completed'."),
    Rule("settle.continuable-reason", "MUST", PROFILE, "settle", "selection.md#5.3",
         "The stop reason of a continuable epoch is the end's kind by the continuable mapping; "
         "completed or no end give 'aborted' when work was dropped unrun, else 'completed'."),
    Rule("settle.output", "MUST", PROFILE, "settle", "selection.md#5.4",
         "result.output is the selection, or [] when there is none."),
    Rule("settle.last-assistant", "MUST", PROFILE, "settle", "selection.md#5.5",
         "end.lastAssistantMessage is the selection and is absent (not []) when there is none; "
         "end.stopReason equals result.stopReason."),
    Rule("settle.tool-result", "MUST", PROFILE, "settle", "selection.md#5.6",
         "A one-shot answer has the delegation tool's result with the exact isError flag and "
         "text of the contract (the Diagnostic line whenever a diagnostic is given, even \"\"); "
         "a continuable answer has none."),
    Rule("settle.agrees", "MUST", PROFILE, "settle", "selection.md#5",
         "The settled run equals the reference's."),
)

RULES: tuple[Rule, ...] = scoped(_RULES, _APPLIES, _NEEDS)
RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}
