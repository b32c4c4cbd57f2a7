"""Checks of the ``settle`` rules (spec/selection.md §5): consumed work, the stop reason of both
paths, result, lifecycle event and the delegation tool's result.

Each check restates its rule from the spec: the account of consumed work (§5.1) is folded here
from the log, the two mappings (§5.2, §5.3) and the tool text (§5.6) are written out again. A
wrong stop reason is blamed on the one rule that explains it best, in this order:

1. a one-shot cancellation applied wrongly (``settle.cancelled``);
2. on the continuable path, a clean or missing end read with the wrong dropped-unrun flag
   (``settle.dropped-unrun``);
3. the right end mapped the way a wrong table maps it: the other path's mapping, ``error`` for a
   known kind, the kind itself (``settle.one-shot-reason``, ``settle.continuable-reason``);
4. another turn/end taken for the end, by one of the readings a port is likely to write: the last
   turn/end, the first one, claims ignored, claimed turns that completed counted, marks per turn
   instance (``settle.accounting-turn``);
5. anything else: the mapping rule of the path.

So one bug gives one failure, named by the rule it breaks.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
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

#: selection.md §5.2: the end's kind -> the recorded one-shot stop reason; else 'error'.
ONE_SHOT_REASONS: Mapping[str, str] = {
    "completed": "completed", "max-tokens": "max-tokens", "aborted": "aborted",
    "blocked": "refusal",
}
#: selection.md §5.3: the end's kind -> the continuable stop reason; 'completed' and no end
#: depend on dropped work; every other kind is 'error'.
CONTINUABLE_REASONS: Mapping[str, str] = {
    "max-tokens": "max-tokens", "aborted": "aborted", "interrupted": "aborted", "error": "error",
    "blocked": "refusal",
}
STOP_REASONS = frozenset({"completed", "max-tokens", "aborted", "refusal", "error"})
#: selection.md §5.6: the headline of a run that did not complete, by stop reason.
HEADLINES: Mapping[str, str] = {
    "aborted": "subagent run was cancelled",
    "error": "subagent run failed",
    "max-tokens": "subagent run hit its token limit before finishing",
    "refusal": "subagent declined the task",
}
PARTIAL_OUTPUT = "\nPartial output before the run ended:\n"
DIAGNOSTIC_LINE = "\nDiagnostic: "


# -- the account of consumed work, restated (selection.md §5.1) -----------------------------------

@dataclass(frozen=True)
class Decision:
    """Why one turn/end accounts for work or not (selection.md §5.1 step 4)."""

    turn: Any
    kind: Any
    accounts: bool
    #: "stepped", "claimed" or "none": the mark the turn/end used.
    mark: str
    #: Index of the event that made the mark (the step/start or the claim), when one did.
    marked_by: int | None


@dataclass(frozen=True)
class Account:
    """The end, dropped unrun, and how each turn/end was decided."""

    #: Index of the end (the last turn/end that accounts for work), or None.
    end: int | None
    kind: Any
    dropped: bool
    #: The cancellation that left dropped unrun true (the first one after the end), or None.
    dropped_by: int | None
    decisions: Mapping[int, Decision]


def _is_cancellation(data: Any) -> bool:
    return bool(field_of(data, "outcome") == "canceled")


def account_of(
    events: Sequence[Any], *, claims: bool = True, count_completed_claims: bool = False,
    every_end: bool = False, marks_per_instance: bool = False,
) -> Account:
    """The account of selection.md §5.1 steps 1-4; the keyword arguments give wrong readings."""
    stepped: dict[Any, int] = {}
    claimed: dict[Any, int] = {}
    open_turn: Any = None
    end: int | None = None
    kind: Any = None
    dropped_by: int | None = None
    decisions: dict[int, Decision] = {}
    for index, event in enumerate(events):
        kind_of_event = field_of(event, "type")
        data = field_of(event, "data")
        if kind_of_event == "turn/start":
            open_turn = field_of(data, "turn")
            if marks_per_instance:
                stepped.pop(open_turn, None)
                claimed.pop(open_turn, None)
        elif kind_of_event == "step/start":
            stepped.setdefault(field_of(data, "turn"), index)
        elif kind_of_event == "agent/inbox/spliced":
            if not isinstance(data, Mapping) or "removedCount" not in data:
                continue
            if _is_cancellation(data):
                if field_of(data, "inserted") == [] and dropped_by is None:
                    dropped_by = index
            elif open_turn is not None and claims:
                claimed.setdefault(open_turn, index)
        elif kind_of_event == "turn/end":
            turn = field_of(data, "turn")
            reason = field_of(data, "reason", "kind")
            open_turn = None
            if turn in stepped:
                decision = Decision(turn, reason, True, "stepped", stepped.pop(turn))
            elif turn in claimed:
                at = claimed.pop(turn)
                decision = Decision(turn, reason, count_completed_claims or reason != "completed",
                                    "claimed", at)
            else:
                decision = Decision(turn, reason, every_end, "none", None)
            if every_end and not decision.accounts:
                decision = Decision(turn, reason, True, decision.mark, decision.marked_by)
            decisions[index] = decision
            if decision.accounts:
                end, kind, dropped_by = index, reason, None
    return Account(end, kind, dropped_by is not None, dropped_by, decisions)


def _first_end(events: Sequence[Any]) -> Account:
    """The wrong reading in which the first turn/end decides."""
    ends = [i for i, e in enumerate(events) if field_of(e, "type") == "turn/end"]
    if not ends:
        return account_of(events)
    first = ends[0]
    drops = [i for i, e in enumerate(events) if i > first
             and field_of(e, "type") == "agent/inbox/spliced"
             and _is_cancellation(field_of(e, "data")) and field_of(e, "data", "inserted") == []]
    kind = field_of(events[first], "data", "reason", "kind")
    return Account(first, kind, bool(drops), drops[0] if drops else None, {})


#: The wrong readings of §5.1 a port is likely to write, in words, and how to compute each.
READINGS: tuple[tuple[str, Any], ...] = (
    ("the last turn/end of the log decided", lambda e: account_of(e, every_end=True)),
    ("the first turn/end decided", _first_end),
    ("inbox claims were ignored", lambda e: account_of(e, claims=False)),
    ("a claimed turn that ended completed without a step was counted",
     lambda e: account_of(e, count_completed_claims=True)),
    ("marks were kept per turn instance (cleared at turn/start)",
     lambda e: account_of(e, marks_per_instance=True)),
)


# -- the stop reasons (selection.md §5.2, §5.3) ----------------------------------------------------

def recorded_one_shot(kind: Any) -> str:
    """The recorded one-shot stop reason of an end of ``kind`` (None: no end)."""
    return ONE_SHOT_REASONS.get(kind, "error") if isinstance(kind, str) else "error"


def one_shot_reason(kind: Any, cancelled: bool) -> str:
    recorded = recorded_one_shot(kind)
    return "aborted" if cancelled and recorded != "completed" else recorded


def continuable_reason(kind: Any, dropped: bool) -> str:
    if kind is None or kind == "completed":
        return "aborted" if dropped else "completed"
    return CONTINUABLE_REASONS.get(kind, "error") if isinstance(kind, str) else "error"


@dataclass(frozen=True)
class _Settled:
    """What the spec says a settled run looks like, with the facts it was derived from."""

    log: Log
    continuable: bool
    cancelled: bool
    #: The diagnostic, or MISSING when the request has none.
    diagnostic: Any
    selection: list[Any] | None
    account: Account
    #: The one-shot recorded stop reason (§5.2), or the continuable one (§5.3).
    recorded: str
    stop_reason: str
    text: str

    def reason_for(self, other: Account) -> str:
        """The stop reason this run would have if ``other`` were its account."""
        if self.continuable:
            return continuable_reason(other.kind, other.dropped)
        return one_shot_reason(other.kind, self.cancelled)

    @property
    def path(self) -> str:
        return "continuable" if self.continuable else "one-shot"


def output_text(output: list[Any] | None, joiner: str = "") -> str:
    """The ``text`` of every text block of ``output``, joined (selection.md §5.6)."""
    return joiner.join(block["text"] for block in output or []
                       if field_of(block, "type") == "text"
                       and isinstance(field_of(block, "text"), str))


def tool_text(stop_reason: str, text: str, diagnostic: Any) -> str:
    """E of selection.md §5.6 (or T for a completed run)."""
    if stop_reason == "completed":
        return text
    headline = HEADLINES.get(stop_reason, f"subagent run ended abnormally ({stop_reason})")
    message = "Error: " + headline
    if isinstance(diagnostic, str):  # present, even "": the line is shown
        message += DIAGNOSTIC_LINE + diagnostic
    if text:
        message += PARTIAL_OUTPUT + text
    return message


def _settled(case: Case) -> _Settled:
    log = events_log(case)
    continuable = field_of(case.input, "mode") == "continuable"
    cancelled = field_of(case.input, "cancelled") is True
    work = account_of(log.events)
    if continuable:
        recorded = stop_reason = continuable_reason(work.kind, work.dropped)
    else:
        recorded = recorded_one_shot(work.kind)
        stop_reason = one_shot_reason(work.kind, cancelled)
    chosen = selection(log.events)
    return _Settled(log, continuable, cancelled, field_of(case.input, "diagnostic"), chosen, work,
                    recorded, stop_reason, output_text(chosen))


# -- words ---------------------------------------------------------------------------------------

def settled_turn(settled: _Settled, index: int) -> Any:
    return field_of(settled.log.events[index], "data", "turn")


def _decision_words(settled: _Settled, index: int) -> str:
    """Why the turn/end at ``index`` accounts for work or not, in the terms of §5.1."""
    decision = settled.account.decisions.get(index)
    if decision is None:
        return ""
    turn = show(decision.turn)
    by = settled.log.name(decision.marked_by) if decision.marked_by is not None else ""
    if decision.mark == "stepped":
        return f"turn {turn} entered a model step ({by}), so it accounts for work"
    if decision.mark == "claimed" and decision.accounts:
        return (f"turn {turn} claimed inbox input ({by}) and ended {show(decision.kind)} before a "
                "step, so it accounts for the input it discarded")
    if decision.mark == "claimed":
        return (f"turn {turn} claimed inbox input ({by}) but ended \"completed\" without a step: "
                "nothing was left to run, so it accounts for no work")
    return f"turn {turn} never reached a step and claimed no input, so it accounts for no work"


def _the_end(settled: _Settled) -> str:
    account = settled.account
    if account.end is None:
        return "no turn/end accounts for work, so the run has no end"
    turn = show(settled_turn(settled, account.end))
    return (f"the end is {settled.log.name(account.end)} (turn {turn}, kind {show(account.kind)}): "
            f"{_decision_words(settled, account.end)}")


def _dropped_words(settled: _Settled) -> str:
    account = settled.account
    if account.dropped and account.dropped_by is not None:
        return (f"after {'the end' if account.end is not None else 'the start'}, "
                f"{settled.log.name(account.dropped_by)} cancelled pending input with nothing "
                "inserted, so work was dropped unrun")
    cancels = [i for i, e in enumerate(settled.log.events)
               if field_of(e, "type") == "agent/inbox/spliced"
               and isinstance(field_of(e, "data"), Mapping) and "removedCount" in e["data"]
               and _is_cancellation(e["data"])]
    if not cancels:
        return "no splice cancelled pending input, so nothing was dropped unrun"
    replaced = [i for i in cancels if field_of(settled.log.events[i], "data", "inserted") != []]
    before = [i for i in cancels if account.end is not None and i < account.end]
    parts = []
    if before:
        parts.append(f"the cancellation at {settled.log.name(before[-1])} came before the end, "
                     "whose own reason reports it (an accounting turn/end clears dropped unrun)")
    if replaced:
        parts.append(f"{settled.log.name(replaced[-1])} replaced the input (its inserted is not "
                     "empty), which keeps the work pending")
    return "; ".join(parts) + "; so nothing was dropped unrun"


def _violation(rule: str, settled: _Settled, actual: Any, why: str, hint: str = "") -> Violation:
    return Violation(rule, (
        f"your result.stopReason is {show(actual)} for this {settled.path} run, but {why}"
        f"{f' ({hint})' if hint else ''}; its stop reason is {show(settled.stop_reason)} "
        f"({cite(rule)})."))


# -- attribution ---------------------------------------------------------------------------------

def _misreadings(settled: _Settled) -> set[str]:
    """What a wrong mapping table makes of the right end: the other path's mapping, 'error' for a
    kind it does not know, or the kind passed through; and 'error' for no end at all."""
    kind = settled.account.kind
    found = {"error"}
    if isinstance(kind, str):
        found.add(kind)
        found.add(recorded_one_shot(kind) if settled.continuable
                  else continuable_reason(kind, settled.account.dropped))
    return found - {settled.stop_reason}


def _reading_for(settled: _Settled, actual: Any) -> tuple[str, Account] | None:
    """The first wrong reading of §5.1 that gives ``actual``, with its account."""
    for words, read in READINGS:
        other = read(settled.log.events)
        if other.end != settled.account.end and settled.reason_for(other) == actual:
            return words, other
    return None


def blame(settled: _Settled, actual: Any) -> str | None:
    """The rule a wrong ``actual`` stop reason breaks (see the module docstring), or None."""
    if same_json(actual, settled.stop_reason):
        return None
    kind = settled.account.kind
    if settled.continuable:
        if (kind is None or kind == "completed") and actual == continuable_reason(
                kind, not settled.account.dropped):
            return "settle.dropped-unrun"
        mapping = "settle.continuable-reason"
    else:
        if settled.cancelled and (
                (settled.stop_reason == "completed" and actual == "aborted")
                or (settled.stop_reason == "aborted" and actual == settled.recorded)):
            return "settle.cancelled"
        mapping = "settle.one-shot-reason"
    if actual in _misreadings(settled):
        return mapping
    if _reading_for(settled, actual) is not None:
        return "settle.accounting-turn"
    return mapping


def _judged_stop_reason(case: Case, rule: str) -> tuple[_Settled, Any] | None:
    if not judged(case):
        return None
    settled = _settled(case)
    actual = field_of(case.actual, "result", "stopReason")
    return (settled, actual) if blame(settled, actual) == rule else None


# -- the checks ----------------------------------------------------------------------------------

@judges("settle.accounting-turn")
def check_settle_accounting_turn(case: Case) -> Iterator[Violation]:
    """``settle.accounting-turn``: the end is the last turn/end that accounts for work (§5.1)."""
    found = _judged_stop_reason(case, "settle.accounting-turn")
    if found is None:
        return
    settled, actual = found
    reading = _reading_for(settled, actual)
    assert reading is not None
    words, other = reading
    if other.end is None:
        took = f"that is the stop reason of a run without an end, as if {words}"
    else:
        took = (f"that is the stop reason of {settled.log.name(other.end)} (turn "
                f"{show(settled_turn(settled, other.end))}, kind {show(other.kind)}), as if "
                f"{words}")
        why_not = _decision_words(settled, other.end)
        if why_not and not settled.account.decisions[other.end].accounts:
            took += f"; but {why_not}"
    yield _violation("settle.accounting-turn", settled, actual, f"{took}; {_the_end(settled)}")


@judges("settle.dropped-unrun")
def check_settle_dropped_unrun(case: Case) -> Iterator[Violation]:
    """``settle.dropped-unrun``: a cancellation after the end, until an accounting turn (§5.1)."""
    found = _judged_stop_reason(case, "settle.dropped-unrun")
    if found is None:
        return
    settled, actual = found
    end = ("no turn/end accounts for work" if settled.account.end is None
           else f"the end {settled.log.name(settled.account.end)} completed")
    hint = ""
    if not settled.account.dropped and settled.account.end is not None and any(
            field_of(e, "type") == "agent/inbox/spliced"
            and _is_cancellation(field_of(e, "data"))
            for e in settled.log.events[:settled.account.end]):
        hint = "as if dropped unrun stayed set past the accounting turn/end that followed the "
        hint += "cancellation"
    yield _violation("settle.dropped-unrun", settled, actual,
                     f"{end} and {_dropped_words(settled)}", hint)


def _mapping_hint(settled: _Settled, actual: Any) -> str:
    kind = settled.account.kind
    if settled.continuable and actual == recorded_one_shot(kind):
        return (f"that is the one-shot mapping; the paths differ and must not be merged: "
                f"{show(kind) if kind is not None else 'no end'} is "
                f"{show(settled.stop_reason)} on the continuable path")
    if not settled.continuable and actual == continuable_reason(kind, settled.account.dropped):
        return (f"that is the continuable mapping; the paths differ and must not be merged: "
                f"{show(kind) if kind is not None else 'no end'} is "
                f"{show(settled.recorded)} on the one-shot path")
    if kind == "blocked":
        return "a blocked turn was rejected and discarded its input: the task was declined"
    if kind == "max-tokens":
        return "a run keeps its actual stop reason even when it produced output"
    if isinstance(kind, str) and kind not in ONE_SHOT_REASONS and kind not in CONTINUABLE_REASONS:
        return ("a kind this version does not know settles as \"error\", which never overstates "
                "success")
    return ""


@judges("settle.one-shot-reason")
def check_settle_one_shot_reason(case: Case) -> Iterator[Violation]:
    """``settle.one-shot-reason``: the end's kind by the one-shot mapping (§5.2)."""
    found = _judged_stop_reason(case, "settle.one-shot-reason")
    if found is None:
        return
    settled, actual = found
    mapped = (f"which the one-shot mapping takes to {show(settled.recorded)}"
              if settled.account.end is not None else 'and a run with no end settles as "error"')
    why = f"{_the_end(settled)}, {mapped}"
    if settled.cancelled:
        why += ' (the run was cancelled, but a completed run stays "completed")'
    yield _violation("settle.one-shot-reason", settled, actual, why,
                     _mapping_hint(settled, actual))


@judges("settle.cancelled")
def check_settle_cancelled(case: Case) -> Iterator[Violation]:
    """``settle.cancelled``: a cancelled one-shot run that did not complete is aborted (§5.2)."""
    found = _judged_stop_reason(case, "settle.cancelled")
    if found is None:
        return
    settled, actual = found
    if settled.stop_reason == "aborted":
        why = (f"the run was cancelled (cancelled: true) and its recorded stop reason is "
               f"{show(settled.recorded)} ({_the_end(settled)}), not \"completed\": the owner's "
               "cancellation turns it into \"aborted\", even when the log has no aborted end")
    else:
        why = (f"{_the_end(settled)}: a run whose end completed stays \"completed\" even when a "
               "cancel arrived (cancelled: true); its answer is whole")
    yield _violation("settle.cancelled", settled, actual, why)


@judges("settle.continuable-reason")
def check_settle_continuable_reason(case: Case) -> Iterator[Violation]:
    """``settle.continuable-reason``: the end's kind by the continuable mapping (§5.3)."""
    found = _judged_stop_reason(case, "settle.continuable-reason")
    if found is None:
        return
    settled, actual = found
    kind = settled.account.kind
    if kind is None or kind == "completed":
        mapped = f"and {_dropped_words(settled)}"
    else:
        mapped = f"which the continuable mapping takes to {show(settled.stop_reason)}"
    yield _violation("settle.continuable-reason", settled, actual, f"{_the_end(settled)}, {mapped}",
                     _mapping_hint(settled, actual))


@judges("settle.output")
def check_settle_output(case: Case) -> Iterator[Violation]:
    """``settle.output``: result.output is the selection, or [] when there is none (§5.4)."""
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
    """``settle.last-assistant``: the selection, absent without one; same stop reason (§5.5)."""
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


def _tool_text_hints(settled: _Settled, basis: str, want: str, actual: str) -> list[str]:
    hints: list[str] = []
    if basis == "completed":
        if output_text(settled.selection, "\n") == actual:
            hints.append('the text blocks are joined with "" (nothing), not "\\n"')
        if isinstance(settled.diagnostic, str) and DIAGNOSTIC_LINE in actual:
            hints.append("a diagnostic given for a completed run is not shown: the run did not "
                         "fail")
        return hints
    headline = want.split("\n", 1)[0]
    if not actual.startswith(headline):
        hints.append(f"it must start with {show(headline)}, the headline for stop reason "
                     f"{show(basis)}")
    diagnostic = settled.diagnostic
    if isinstance(diagnostic, str) and DIAGNOSTIC_LINE + diagnostic not in actual:
        hints.append(
            "the diagnostic is present, though empty, so its line \"\\nDiagnostic: \" is still "
            "added: presence decides, not content" if diagnostic == "" else
            f"the diagnostic line {show(DIAGNOSTIC_LINE + diagnostic)} is missing")
    if not isinstance(diagnostic, str) and "Diagnostic:" in actual:
        hints.append("there is no diagnostic line when the request has no diagnostic")
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
    """``settle.tool-result``: one-shot only, with the exact isError flag and text (§5.6).

    The text is judged for the stop reason the answer itself gives (a wrong stop reason is the
    stop-reason rules' to report), or the spec's when that is not a stop reason at all.
    """
    if not judged(case):
        return
    settled = _settled(case)
    rule = "settle.tool-result"
    tool = field_of(case.actual, "toolResult")
    if settled.continuable:
        if tool is not MISSING:
            yield Violation(rule, (
                f"your answer to a continuable epoch (\"mode\": \"continuable\") has a toolResult "
                f"{show(tool)}; only a one-shot run has a delegation tool result, a continuable "
                f"child reports to its parent otherwise ({cite(rule)})."))
        return
    if tool is MISSING:
        yield Violation(rule, (
            "your answer to a one-shot run has no toolResult; the delegation tool's result is "
            f"part of every one-shot answer ({cite(rule)})."))
        return
    actual_reason = field_of(case.actual, "result", "stopReason")
    basis = actual_reason if actual_reason in STOP_REASONS else settled.stop_reason
    is_error = field_of(tool, "isError")
    text = field_of(tool, "text")
    failed = basis != "completed"
    if not same_json(is_error, failed):
        yield Violation(rule, (
            f"your toolResult.isError is {show(is_error)}, but the stop reason is "
            f"{show(basis)}, so it is {show(failed)}: only a completed run gives a "
            f"tool result that is not an error ({cite(rule)})."))
    want = tool_text(basis, settled.text, settled.diagnostic)
    if same_json(text, want):
        return
    hints = _tool_text_hints(settled, basis, want, text) if isinstance(text, str) else []
    detail = f"; {text_difference(text, want)}" if isinstance(text, str) else ""
    hint = f" ({'; '.join(hints)})" if hints else ""
    diagnostic = (show(settled.diagnostic) if isinstance(settled.diagnostic, str)
                  else "(absent)")
    yield Violation(rule, (
        f"your toolResult.text is {show(text)}, but for stop reason {show(basis)}, "
        f"diagnostic {diagnostic} and output text {show(settled.text)} it is {show(want)}{hint}"
        f"{detail} ({cite(rule)})."))


@judges("settle.agrees")
def check_settle_agrees(case: Case) -> Iterator[Violation]:
    """``settle.agrees``: the settled run equals the reference's (selection.md §5)."""
    if isinstance(case.expected, Errored):
        return
    if isinstance(case.actual, ImplErrored):
        yield errored("settle.agrees", case.actual, (
            "Every schema-valid run settles, on both paths: a log without an accounting turn/end "
            "has no end, an unknown reason kind maps to 'error', and unknown event types, chunk "
            "types, block types and members are ignored"))
    elif not same_json(case.actual, case.expected):
        yield disagreement("settle.agrees", case.actual, case.expected, "answer")
