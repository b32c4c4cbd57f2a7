"""Checks of the ``settle`` rules (spec/selection.md §5): stop reason, result, lifecycle event
and the delegation tool's result."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..._json import MISSING
from ..._model import Case, Errored, ImplErrored, Violation, judges
from ..explain import (
    Log,
    cite,
    describe_output,
    describe_selection,
    disagreement,
    errored,
    events_log,
    field_of,
    judged,
    same_json,
    selection,
    show,
    text_difference,
)

#: selection.md §5.1: the kind of the last turn/end -> the stop reason; anything else -> error.
STOP_REASONS: Mapping[str, str] = {
    "completed": "completed", "max-tokens": "max-tokens", "aborted": "aborted",
    "blocked": "refusal",
}
#: selection.md §5.5: the headline of a run that did not complete, by stop reason.
HEADLINES: Mapping[str, str] = {
    "aborted": "subagent run was cancelled",
    "error": "subagent run failed",
    "max-tokens": "subagent run hit its token limit before finishing",
    "refusal": "subagent declined the task",
}
PARTIAL_OUTPUT = "\nPartial output before the run ended:\n"


@dataclass(frozen=True)
class _Settled:
    """What the spec says a settled run looks like, with the facts it was derived from."""

    log: Log
    cancelled: bool
    diagnostic: str | None
    selection: list[Any] | None
    #: Index of the last turn/end and its reason kind (None when the log has none).
    turn_end: int | None
    kind: Any
    #: The stop reason the log records (§5.1), and the one after cancellation (§5.2).
    mapped: str
    stop_reason: str
    text: str
    tool_text: str


def _map_kind(kind: Any) -> str:
    return STOP_REASONS.get(kind, "error") if isinstance(kind, str) else "error"


def output_text(output: list[Any] | None, joiner: str = "") -> str:
    """The ``text`` of every text block of ``output``, joined (selection.md §5.5)."""
    return joiner.join(block["text"] for block in output or []
                       if field_of(block, "type") == "text"
                       and isinstance(field_of(block, "text"), str))


def _tool_text(stop_reason: str, text: str, diagnostic: str | None) -> str:
    if stop_reason == "completed":
        return text
    headline = HEADLINES.get(stop_reason, f"subagent run ended abnormally ({stop_reason})")
    message = "Error: " + headline
    if diagnostic:
        message += "\nDiagnostic: " + diagnostic
    if text:
        message += PARTIAL_OUTPUT + text
    return message


def _settled(case: Case) -> _Settled:
    log = events_log(case)
    ends = [i for i, e in enumerate(log.events) if field_of(e, "type") == "turn/end"]
    turn_end = ends[-1] if ends else None
    kind = (field_of(log.events[turn_end], "data", "reason", "kind")
            if turn_end is not None else None)
    mapped = _map_kind(kind) if turn_end is not None else "error"
    cancelled = field_of(case.input, "cancelled") is True
    stop_reason = "aborted" if cancelled and mapped != "completed" else mapped
    diagnostic = field_of(case.input, "diagnostic")
    diagnostic = diagnostic if isinstance(diagnostic, str) else None
    chosen = selection(log.events)
    text = output_text(chosen)
    return _Settled(log, cancelled, diagnostic, chosen, turn_end, kind, mapped, stop_reason, text,
                    _tool_text(stop_reason, text, diagnostic))


def _why_stop_reason(settled: _Settled) -> str:
    if settled.turn_end is None:
        return 'the log has no turn/end, so the run did not complete: "error"'
    kind = settled.kind
    named = f"reason kind {show(kind)}"
    if isinstance(kind, str) and kind in STOP_REASONS:
        return (f"the last turn/end is {settled.log.name(settled.turn_end)} with {named}, which "
                f"maps to {show(settled.mapped)}")
    return (f"the last turn/end is {settled.log.name(settled.turn_end)} with {named}, which is not "
            'completed, max-tokens, aborted or blocked, so it maps to "error"')


def _stop_reason_hints(settled: _Settled, actual: Any) -> list[str]:
    ends = [i for i, e in enumerate(settled.log.events) if field_of(e, "type") == "turn/end"]
    hints = []
    if len(ends) > 1 and actual == _map_kind(field_of(settled.log.events[ends[0]], "data", "reason",
                                                   "kind")) and actual != settled.mapped:
        hints.append(f"that is the mapping of the first turn/end, {settled.log.name(ends[0])}; "
                     "only the last one counts")
    if settled.kind == "blocked" and actual == "error":
        hints.append('a blocked turn is the model declining the task: "refusal"')
    return hints


@judges("settle.stop-reason")
def check_settle_stop_reason(case: Case) -> Iterator[Violation]:
    """``settle.stop-reason``: from the last turn/end by the fixed mapping (§5.1)."""
    if not judged(case):
        return
    settled = _settled(case)
    actual = field_of(case.actual, "result", "stopReason")
    if settled.cancelled and (settled.mapped != "completed" or actual == "aborted"):
        return  # settle.cancelled judges how cancellation was applied
    if same_json(actual, settled.stop_reason):
        return
    hints = _stop_reason_hints(settled, actual)
    if settled.cancelled:
        hints.append('the run was cancelled, but it completed, so it stays "completed"')
    hint = f" ({'; '.join(hints)})" if hints else ""
    yield Violation("settle.stop-reason", (
        f"your result.stopReason is {show(actual)}, but {_why_stop_reason(settled)}{hint} "
        f"({cite('settle.stop-reason')})."))


@judges("settle.cancelled")
def check_settle_cancelled(case: Case) -> Iterator[Violation]:
    """``settle.cancelled``: a cancelled run that did not complete stops with 'aborted' (§5.2)."""
    if not judged(case):
        return
    settled = _settled(case)
    if not settled.cancelled:
        return
    actual = field_of(case.actual, "result", "stopReason")
    rule = "settle.cancelled"
    if settled.mapped != "completed" and not same_json(actual, "aborted"):
        yield Violation(rule, (
            f"the run was cancelled (cancelled: true) and did not complete "
            f'({_why_stop_reason(settled)}), so its stop reason is "aborted"; your '
            f"result.stopReason is {show(actual)} ({cite(rule)})."))
    elif settled.mapped == "completed" and actual == "aborted":
        yield Violation(rule, (
            f'your result.stopReason is "aborted", but {_why_stop_reason(settled)}: a run that '
            f'completed stays "completed" even when a cancel arrived (cancelled: true) '
            f"({cite(rule)})."))


@judges("settle.output")
def check_settle_output(case: Case) -> Iterator[Violation]:
    """``settle.output``: result.output is the selection, or [] when there is none (§5.3)."""
    if not judged(case):
        return
    settled = _settled(case)
    actual = field_of(case.actual, "result", "output")
    want = settled.selection if settled.selection is not None else []
    if same_json(actual, want):
        return
    rule = "settle.output"
    if settled.selection is None:
        said = (f"you returned {describe_output(actual, settled.log)} for result.output, but "
                f"there is no output ({describe_selection(settled.log)}), and then result.output "
                "is []")
    else:
        said = (f"your result.output is {describe_output(actual, settled.log)}, but it is the "
                f"selection: {describe_selection(settled.log)}")
    yield Violation(rule, f"{said} ({cite(rule)}).")


@judges("settle.last-assistant")
def check_settle_last_assistant(case: Case) -> Iterator[Violation]:
    """``settle.last-assistant``: the selection, absent without one; same stop reason (§5.4)."""
    if not judged(case):
        return
    settled = _settled(case)
    rule = "settle.last-assistant"
    end = field_of(case.actual, "end")
    actual = field_of(end, "lastAssistantMessage")
    if settled.selection is None and actual is not MISSING:
        yield Violation(rule, (
            f"you returned {describe_output(actual, settled.log)} for "
            f"end.lastAssistantMessage; the key must be absent when there is no output "
            f"({describe_selection(settled.log)}) ({cite(rule)})."))
    elif settled.selection is not None and not same_json(actual, settled.selection):
        yield Violation(rule, (
            f"your end.lastAssistantMessage is {describe_output(actual, settled.log)}, but it is "
            f"the same selection as result.output: {describe_selection(settled.log)} "
            f"({cite(rule)})."))
    ended = field_of(end, "stopReason")
    result = field_of(case.actual, "result", "stopReason")
    if not same_json(ended, result):
        yield Violation(rule, (
            f"your end.stopReason is {show(ended)} but your result.stopReason is {show(result)}; "
            f"the lifecycle event reports the run's one stop reason ({cite(rule)})."))


def _tool_text_hints(settled: _Settled, actual: str) -> list[str]:
    hints: list[str] = []
    if settled.stop_reason == "completed":
        if output_text(settled.selection, "\n") == actual:
            hints.append('the text blocks are joined with "" (nothing), not "\\n"')
        return hints
    headline = settled.tool_text.split("\n", 1)[0]
    if not actual.startswith(headline):
        hints.append(f"it must start with {show(headline)}, the headline for stop reason "
                     f"{show(settled.stop_reason)}")
    if settled.diagnostic and "\nDiagnostic: " + settled.diagnostic not in actual:
        hints.append(f"the diagnostic line {show(chr(10) + 'Diagnostic: ' + settled.diagnostic)} "
                     "is missing")
    if not settled.diagnostic and "Diagnostic:" in actual:
        hints.append("there is no diagnostic line when the diagnostic is absent or empty")
    if settled.text and PARTIAL_OUTPUT + settled.text not in actual:
        if PARTIAL_OUTPUT + output_text(settled.selection, "\n") in actual:
            hints.append('the partial output joins the text blocks with "" (nothing), not "\\n"')
        else:
            hints.append(f"the partial output {show(PARTIAL_OUTPUT + settled.text, 120)} is "
                         "missing: a failed run still hands the parent the text it produced")
    if not settled.text and "Partial output" in actual:
        hints.append("there is no partial-output section when the output has no text")
    return hints


@judges("settle.tool-result")
def check_settle_tool_result(case: Case) -> Iterator[Violation]:
    """``settle.tool-result``: the exact isError flag and text of the contract (§5.5)."""
    if not judged(case):
        return
    settled = _settled(case)
    rule = "settle.tool-result"
    is_error = field_of(case.actual, "toolResult", "isError")
    text = field_of(case.actual, "toolResult", "text")
    failed = settled.stop_reason != "completed"
    if not same_json(is_error, failed):
        yield Violation(rule, (
            f"your toolResult.isError is {show(is_error)}, but the stop reason is "
            f"{show(settled.stop_reason)}, so it is {show(failed)}: only a completed run gives a "
            f"tool result that is not an error ({cite(rule)})."))
    if same_json(text, settled.tool_text):
        return
    hints = _tool_text_hints(settled, text) if isinstance(text, str) else []
    detail = (f"; {text_difference(text, settled.tool_text)}" if isinstance(text, str) else "")
    hint = f" ({'; '.join(hints)})" if hints else ""
    yield Violation(rule, (
        f"your toolResult.text is {show(text)}, but for stop reason {show(settled.stop_reason)}, "
        f"diagnostic {show(settled.diagnostic) if settled.diagnostic is not None else '(absent)'} "
        f"and output text {show(settled.text)} it is {show(settled.tool_text)}{hint}{detail} "
        f"({cite(rule)})."))


@judges("settle.agrees")
def check_settle_agrees(case: Case) -> Iterator[Violation]:
    """``settle.agrees``: the settled run equals the reference's (selection.md §5)."""
    if isinstance(case.expected, Errored):
        return
    if isinstance(case.actual, ImplErrored):
        yield errored("settle.agrees", case.actual, (
            "Every schema-valid run settles: a log without turn/end stops with 'error', an unknown "
            "reason kind maps to 'error', and unknown event types are ignored"))
    elif not same_json(case.actual, case.expected):
        yield disagreement("settle.agrees", case.actual, case.expected, "answer")

