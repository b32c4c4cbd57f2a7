"""Checks for the selection profile (spec/selection.md §3-5): ``select``, ``fold`` and ``settle``.

Each check restates its rule from the spec — it finds the last non-empty message itself, maps the
stop reason itself, builds the tool result's text itself — instead of only diffing against the
reference, so that a failure names the rule that broke and says, with the real values, what the
implementation did instead. The agreement checks come last and catch whatever the restatements
do not (an implementation that errors on a valid input, a shape the rules do not name).

Checks never raise: they read the implementation's answer defensively, since it may be any JSON.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._model import Case, Check, Errored, ImplErrored, Violation
from ._rules import RULES_BY_ID

_MISSING = object()
#: How many characters of a value a message shows before it elides the rest.
SHOWN_CHARACTERS = 240


# -- showing values to the user --------------------------------------------------------------------

def show(value: Any, limit: int = SHOWN_CHARACTERS) -> str:
    """``value`` as compact JSON, lone surrogates escaped, elided past ``limit`` characters."""
    if value is _MISSING:
        return "(absent)"
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    # A lone surrogate has no UTF-8 form: show it as its escape so the message can be printed.
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if len(text) > limit:
        return f"{text[:limit]}… ({len(text) - limit} more characters)"
    return text


def _cite(rule_id: str) -> str:
    """``selection.md §3.1`` for a rule whose section is ``selection.md#3.1``."""
    return RULES_BY_ID[rule_id].section.replace("#", " §")


def _joined(items: Sequence[str], limit: int = 4) -> str:
    if len(items) <= limit:
        return ", ".join(items)
    return f"{', '.join(items[:limit])} and {len(items) - limit} more"


# -- JSON equality ---------------------------------------------------------------------------------

def _well_formed(text: str) -> str:
    # A high and a low surrogate next to each other are one astral code point to a UTF-16
    # language: "\ud83d" + "\ude00" concatenated is "😀" in JavaScript (wire.md §6.1).
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def same_json(a: Any, b: Any) -> bool:
    """Whether two JSON values are equal as JSON: key order aside, ``1 == 1.0``, ``true != 1``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, str) and isinstance(b, str):
        return a == b or _well_formed(a) == _well_formed(b)
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(same_json(a[key], b[key]) for key in a)
    return False


def first_difference(actual: Any, expected: Any, path: str = "$") -> tuple[str, Any, Any] | None:
    """Where two JSON values first differ: ``(path, actual there, expected there)``, or None."""
    if same_json(actual, expected):
        return None
    if isinstance(actual, list) and isinstance(expected, list):
        for index, (x, y) in enumerate(zip(actual, expected, strict=False)):
            found = first_difference(x, y, f"{path}[{index}]")
            if found:
                return found
        shorter = min(len(actual), len(expected))
        return (f"{path}[{shorter}]",
                actual[shorter] if len(actual) > shorter else _MISSING,
                expected[shorter] if len(expected) > shorter else _MISSING)
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        for key in expected:
            if key not in actual:
                return f"{path}.{key}", _MISSING, expected[key]
            found = first_difference(actual[key], expected[key], f"{path}.{key}")
            if found:
                return found
        for key in actual:
            if key not in expected:
                return f"{path}.{key}", actual[key], _MISSING
    return path, actual, expected


def _text_difference(actual: str, expected: str) -> str:
    at = next((i for i, (x, y) in enumerate(zip(actual, expected, strict=False)) if x != y),
              min(len(actual), len(expected)))
    return (f"they first differ at character {at}: yours continues {show(actual[at:at + 40])}, "
            f"the contract's continues {show(expected[at:at + 40])}")


# -- the selection rule, restated (selection.md §3) ------------------------------------------------

def _field(value: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(value, Mapping) or key not in value:
            return _MISSING
        value = value[key]
    return value


def message_content(event: Any) -> list[Any] | None:
    """``data.message.content`` of an ``assistant/message`` event; None for any other event."""
    if _field(event, "type") != "assistant/message":
        return None
    content = _field(event, "data", "message", "content")
    return content if isinstance(content, list) else None


def chunk_of(event: Any) -> Mapping[str, Any] | None:
    """The chunk of an ``assistant/chunk`` event; None for any other event."""
    if _field(event, "type") != "assistant/chunk":
        return None
    chunk = _field(event, "data", "chunk")
    return chunk if isinstance(chunk, Mapping) else None


def delta_text(event: Any, chunk_type: str = "text-delta", key: str = "text") -> str | None:
    """The text a chunk of ``chunk_type`` streams, or None."""
    chunk = chunk_of(event)
    if chunk is None or chunk.get("type") != chunk_type or not isinstance(chunk.get(key), str):
        return None
    text: str = chunk[key]
    return text


def last_non_empty_message(events: Sequence[Any]) -> int | None:
    """The index of the last assistant message with non-empty content (selection.md §3.1)."""
    for index in range(len(events) - 1, -1, -1):
        if message_content(events[index]):
            return index
    return None


def streamed_text(events: Sequence[Any]) -> tuple[str, list[int]]:
    """Every text-delta text in log order, concatenated, and the indexes that streamed it (§3.3)."""
    pieces: list[str] = []
    where: list[int] = []
    for index, event in enumerate(events):
        text = delta_text(event)
        if text is not None:
            pieces.append(text)
            if text:
                where.append(index)
    return "".join(pieces), where


def selection(events: Sequence[Any]) -> list[Any] | None:
    """The output the spec selects from ``events`` (selection.md §3)."""
    last = last_non_empty_message(events)
    if last is not None:
        return message_content(events[last])
    text, _ = streamed_text(events)
    return [{"type": "text", "text": text}] if text else None


def _events(case: Case) -> list[Any]:
    events = _field(case.input, "events")
    return events if isinstance(events, list) else []


def _judged(case: Case) -> bool:
    """Value checks judge only answers to inputs the reference accepted."""
    return not isinstance(case.expected, Errored) and not isinstance(case.actual, ImplErrored)


@dataclass(frozen=True)
class _Log:
    """A list of events and how to name one of them to the user."""

    events: list[Any]
    name: Callable[[int], str]


def _event_namer(prefix: str, events: Sequence[Any]) -> Callable[[int], str]:
    def name(index: int) -> str:
        seq = _field(events[index], "seq")
        return f"{prefix}[{index}] (seq {seq})" if seq is not _MISSING else f"{prefix}[{index}]"
    return name


def _events_log(case: Case) -> _Log:
    events = _events(case)
    return _Log(events, _event_namer("$.events", events))


def _describe_output(value: Any, log: _Log) -> str:
    """What an answer *is*, in terms of the log: whose content it is, or what text."""
    if value is _MISSING:
        return "absent"
    if value is None:
        return "null (no output)"
    if isinstance(value, list):
        owners = [i for i, e in enumerate(log.events)
                  if message_content(e) is not None and same_json(message_content(e), value)]
        if owners and not value:
            kind = ("an interrupted assistant/message with empty content"
                    if _field(log.events[owners[-1]], "data", "interrupted") is True
                    else "an assistant/message with empty content (a usage-only message)")
            return f"[], the content of {log.name(owners[-1])}, {kind}"
        if owners:
            return f"the content of {log.name(owners[-1])}, an assistant/message: {show(value)}"
        if len(value) == 1 and _field(value[0], "type") == "text":
            return f"one text block {show(value)}"
    return show(value)


def _describe_selection(log: _Log) -> str:
    """The spec's answer for ``log``, and why, in one sentence."""
    last = last_non_empty_message(log.events)
    if last is not None:
        content = message_content(log.events[last])
        return (f"the last assistant message with non-empty content is {log.name(last)}, whose "
                f"content is {show(content)}")
    text, where = streamed_text(log.events)
    if text:
        return ("no assistant message has non-empty content, so the output is the text of the "
                f"text-delta chunks ({_joined([log.name(i) for i in where])}) concatenated in "
                f"log order as one text block: {show([{'type': 'text', 'text': text}])}")
    return ("no assistant message has non-empty content and no text-delta chunk carries text, so "
            "there is no output: null")


# -- select ----------------------------------------------------------------------------------------

def check_select_never_empty(case: Case) -> Iterator[Violation]:
    """``select.never-empty``: null or a non-empty list; an empty message never counts (§3.2)."""
    actual = case.actual
    if not _judged(case) or actual is None or (isinstance(actual, list) and actual):
        return
    log = _events_log(case)
    rule = "select.never-empty"
    if isinstance(actual, list):
        empties = [i for i, e in enumerate(log.events) if message_content(e) == []]
        if empties:
            said = (f"your output is {_describe_output(actual, log)}; empty messages never count "
                    f"({_cite(rule)})")
        else:
            said = (f"your output is [], an empty list; the output is null when there is none, "
                    f"never [] ({_cite(rule)})")
    else:
        said = (f"your output is {show(actual)}, which is neither null nor a non-empty list of "
                f"content blocks ({_cite(rule)})")
    yield Violation(rule, f"{said}. Expected: {_describe_selection(log)}.")


def check_select_last_message(case: Case) -> Iterator[Violation]:
    """``select.last-message``: the content of the last non-empty message, verbatim (§3.1)."""
    if not _judged(case):
        return
    log = _events_log(case)
    last = last_non_empty_message(log.events)
    if last is None:
        return
    content = message_content(log.events[last])
    if same_json(case.actual, content):
        return
    hints: list[str] = []
    text, _ = streamed_text(log.events)
    if isinstance(case.actual, list) and len(case.actual) == 1 and same_json(
            case.actual, [{"type": "text", "text": text}]):
        hints.append("a message with non-empty content beats streamed text, also text "
                     "streamed after it")
    if content and not any(_field(block, "type") == "text" for block in content):
        hints.append("that message has no text block, but content length decides, not the "
                     "presence of text")
    if _field(log.events[last], "data", "interrupted") is True:
        hints.append("it is marked interrupted: true, and an interrupted message counts like "
                     "any other")
    owners = [i for i, e in enumerate(log.events)
              if message_content(e) and same_json(message_content(e), case.actual)]
    if owners and owners[-1] < last:
        hints.append("the last such message wins, not an earlier one")
    hint = f" ({'; '.join(hints)})" if hints else ""
    yield Violation("select.last-message", (
        f"your output is {_describe_output(case.actual, log)}, but "
        f"{_describe_selection(log)}{hint} ({_cite('select.last-message')})."))


def _alternative_texts(events: Sequence[Any]) -> dict[str, str]:
    """Texts a wrong fallback produces, to name the mistake when an answer matches one."""
    def gather(contributes: Callable[[Any], list[str]]) -> str:
        return "".join(piece for event in events for piece in contributes(event))

    def text(event: Any) -> list[str]:
        piece = delta_text(event)
        return [] if piece is None else [piece]

    def tool_results(event: Any) -> list[str]:
        content = _field(event, "data", "content", "content")
        if _field(event, "type") != "tool/result" or not isinstance(content, list):
            return []
        return [b["text"] for b in content
                if _field(b, "type") == "text" and isinstance(_field(b, "text"), str)]

    pieces = [p for e in events for p in text(e)]
    newline = ('is joined with "\\n", but the text-delta texts are concatenated with nothing '
               "in between (selection.md §3.3)")
    alternatives = {
        "counts the reasoning-delta texts too, but reasoning deltas never contribute "
        "(selection.md §3.4)": gather(lambda e: text(e) + [
            t for t in [delta_text(e, "reasoning-delta")] if t is not None]),
        "counts the tool-call argument deltas too, but tool-call deltas never contribute "
        "(selection.md §3.4)": gather(lambda e: text(e) + [
            t for t in [delta_text(e, "tool-call-delta", "argumentsDelta")] if t is not None]),
        "counts the text of tool results too, but tool results never contribute "
        "(selection.md §3.4)": gather(lambda e: text(e) + tool_results(e)),
        newline: "\n".join(pieces),
    }
    if "" in pieces:
        alternatives[f"{newline}; an empty delta adds nothing"] = "\n".join(p for p in pieces if p)
    return alternatives


def check_select_text_fallback(case: Case) -> Iterator[Violation]:
    """``select.text-fallback``: without a non-empty message, the streamed text or null (§3.3)."""
    if not _judged(case):
        return
    log = _events_log(case)
    if last_non_empty_message(log.events) is not None:
        return
    text, _ = streamed_text(log.events)
    expected = [{"type": "text", "text": text}] if text else None
    if same_json(case.actual, expected):
        return
    mistakes: list[str] = []
    if isinstance(case.actual, list) and len(case.actual) == 1:
        yours = _field(case.actual[0], "text")
        mistakes = [why for why, alternative in _alternative_texts(log.events).items()
                    if isinstance(yours, str) and alternative != text
                    and same_json(yours, alternative)]
    hint = f"; your text {'; '.join(mistakes)}" if mistakes else ""
    if case.actual is None and text:
        empties = [log.name(i) for i, e in enumerate(log.events) if message_content(e) == []]
        hint = (f" (the empty assistant message at {_joined(empties)} does not count: an empty "
                "message never hides streamed text)") if empties else (
                " (the streamed text is the output when no message has content)")
    yield Violation("select.text-fallback", (
        f"your output is {_describe_output(case.actual, log)}, but {_describe_selection(log)}"
        f"{hint} ({_cite('select.text-fallback')})."))


def _errored(rule: str, actual: ImplErrored, what: str) -> Violation:
    return Violation(rule, (
        f"your implementation answered errored on a valid input: {show(actual.message)}. "
        f"{what} ({_cite(rule)})."))


def _disagreement(rule: str, actual: Any, expected: Any, what: str) -> Violation:
    where = first_difference(actual, expected)
    detail = "" if where is None else (
        f"; the first difference is at {where[0]}: yours is {show(where[1])}, the reference's "
        f"is {show(where[2])}")
    return Violation(rule, (
        f"your {what} is {show(actual)}, but the reference's is {show(expected)}{detail} "
        f"({_cite(rule)})."))


def check_select_agrees(case: Case) -> Iterator[Violation]:
    """``select.agrees``: the output equals the reference's (selection.md §3)."""
    if isinstance(case.expected, Errored):
        return
    if isinstance(case.actual, ImplErrored):
        yield _errored("select.agrees", case.actual, (
            "Every schema-valid log has an output or null; unknown event types, unknown chunk "
            "types and extra keys are ignored, never refused"))
    elif not same_json(case.actual, case.expected):
        yield _disagreement("select.agrees", case.actual, case.expected, "output")


# -- fold ------------------------------------------------------------------------------------------

def _pushed_events(pushes: Sequence[Any]) -> list[Any]:
    """The events a fold has seen: a text push is a text-delta chunk with that text (§4.1)."""
    events: list[Any] = []
    for push in pushes:
        if isinstance(push, Mapping) and "text" in push:
            events.append({"type": "assistant/chunk",
                           "data": {"chunk": {"type": "text-delta", "index": 0,
                                              "text": push["text"]}}})
        else:
            events.append(_field(push, "event"))
    return events


def _pushes(case: Case) -> list[Any]:
    pushes = _field(case.input, "pushes")
    return pushes if isinstance(pushes, list) else []


def check_fold_shape(case: Case) -> Iterator[Violation]:
    """``fold.shape``: one collect() before the first push and one after each (§4.1)."""
    if not _judged(case):
        return
    pushes = _pushes(case)
    want = len(pushes) + 1
    if not isinstance(case.actual, list):
        yield Violation("fold.shape", (
            f"your fold answered {show(case.actual)}, not a list of collect() results; for "
            f"{len(pushes)} push(es) it answers a list of {want}: one collect() before the first "
            f"push and one after each push ({_cite('fold.shape')})."))
    elif len(case.actual) != want:
        yield Violation("fold.shape", (
            f"your fold answered {len(case.actual)} collect() result(s) for {len(pushes)} "
            f"push(es), but it answers {want}: one before the first push and one after each push "
            f"({_cite('fold.shape')}); your answer: {show(case.actual)}."))


def check_fold_prefix(case: Case) -> Iterator[Violation]:
    """``fold.prefix``: after every push, collect() is the batch selection so far (§4.2)."""
    if isinstance(case.expected, Errored):
        return
    if isinstance(case.actual, ImplErrored):
        yield _errored("fold.prefix", case.actual, (
            "Every push of a schema-valid input is accepted: an unknown event type is ignored "
            "and an empty push_text is a no-op"))
        return
    if not isinstance(case.actual, list):
        return  # fold.shape says what is wrong
    pushes = _pushes(case)
    events = _pushed_events(pushes)
    log = _Log(events, lambda i: f"push #{i + 1}")
    final = selection(events)
    for count, collected in enumerate(case.actual[: len(pushes) + 1]):
        want = selection(events[:count])
        if same_json(collected, want):
            continue
        if count == 0:
            said = (f"before the first push your collect() was {show(collected)}, but a fold that "
                    "has seen nothing collects null")
        else:
            prefix = _Log(events[:count], log.name)
            said = (f"after push #{count} ({show(pushes[count - 1], 120)}) your collect() was "
                    f"{show(collected)}, but the batch selection of the first {count} push(es) is "
                    f"{show(want)}: {_describe_selection(prefix)}")
        hints: list[str] = []
        if count and _field(pushes[count - 1], "text") == "":
            hints.append('an empty push_text ("") is a no-op')
        without_text = selection([e for p, e in zip(pushes[:count], events[:count], strict=True)
                                  if not (isinstance(p, Mapping) and "text" in p)])
        if any(isinstance(p, Mapping) and "text" in p for p in pushes[:count]) and same_json(
                collected, without_text):
            hints.append("your answer is the selection of the event pushes alone: pushed text "
                         "counts exactly like a text-delta chunk")
        if count < len(pushes) and same_json(collected, final) and not same_json(want, final):
            hints.append(f"that is the selection of all {len(pushes)} pushes: collect() answers "
                         "for the pushes seen so far")
        if len(case.actual) == len(pushes) + 1 and same_json(case.actual[-1], final):
            hints.append("your last collect() is right, but the fold must agree at every prefix")
        hint = f" ({'; '.join(hints)})" if hints else ""
        yield Violation("fold.prefix", f"{said}{hint} ({_cite('fold.prefix')}).")
        return


# -- settle ----------------------------------------------------------------------------------------

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

    log: _Log
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
                       if _field(block, "type") == "text"
                       and isinstance(_field(block, "text"), str))


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
    log = _events_log(case)
    ends = [i for i, e in enumerate(log.events) if _field(e, "type") == "turn/end"]
    turn_end = ends[-1] if ends else None
    kind = _field(log.events[turn_end], "data", "reason", "kind") if turn_end is not None else None
    mapped = _map_kind(kind) if turn_end is not None else "error"
    cancelled = _field(case.input, "cancelled") is True
    stop_reason = "aborted" if cancelled and mapped != "completed" else mapped
    diagnostic = _field(case.input, "diagnostic")
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
    ends = [i for i, e in enumerate(settled.log.events) if _field(e, "type") == "turn/end"]
    hints = []
    if len(ends) > 1 and actual == _map_kind(_field(settled.log.events[ends[0]], "data", "reason",
                                                   "kind")) and actual != settled.mapped:
        hints.append(f"that is the mapping of the first turn/end, {settled.log.name(ends[0])}; "
                     "only the last one counts")
    if settled.kind == "blocked" and actual == "error":
        hints.append('a blocked turn is the model declining the task: "refusal"')
    return hints


def check_settle_stop_reason(case: Case) -> Iterator[Violation]:
    """``settle.stop-reason``: from the last turn/end by the fixed mapping (§5.1)."""
    if not _judged(case):
        return
    settled = _settled(case)
    actual = _field(case.actual, "result", "stopReason")
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
        f"({_cite('settle.stop-reason')})."))


def check_settle_cancelled(case: Case) -> Iterator[Violation]:
    """``settle.cancelled``: a cancelled run that did not complete stops with 'aborted' (§5.2)."""
    if not _judged(case):
        return
    settled = _settled(case)
    if not settled.cancelled:
        return
    actual = _field(case.actual, "result", "stopReason")
    rule = "settle.cancelled"
    if settled.mapped != "completed" and not same_json(actual, "aborted"):
        yield Violation(rule, (
            f"the run was cancelled (cancelled: true) and did not complete "
            f'({_why_stop_reason(settled)}), so its stop reason is "aborted"; your '
            f"result.stopReason is {show(actual)} ({_cite(rule)})."))
    elif settled.mapped == "completed" and actual == "aborted":
        yield Violation(rule, (
            f'your result.stopReason is "aborted", but {_why_stop_reason(settled)}: a run that '
            f'completed stays "completed" even when a cancel arrived (cancelled: true) '
            f"({_cite(rule)})."))


def check_settle_output(case: Case) -> Iterator[Violation]:
    """``settle.output``: result.output is the selection, or [] when there is none (§5.3)."""
    if not _judged(case):
        return
    settled = _settled(case)
    actual = _field(case.actual, "result", "output")
    want = settled.selection if settled.selection is not None else []
    if same_json(actual, want):
        return
    rule = "settle.output"
    if settled.selection is None:
        said = (f"you returned {_describe_output(actual, settled.log)} for result.output, but "
                f"there is no output ({_describe_selection(settled.log)}), and then result.output "
                "is []")
    else:
        said = (f"your result.output is {_describe_output(actual, settled.log)}, but it is the "
                f"selection: {_describe_selection(settled.log)}")
    yield Violation(rule, f"{said} ({_cite(rule)}).")


def check_settle_last_assistant(case: Case) -> Iterator[Violation]:
    """``settle.last-assistant``: the selection, absent without one; same stop reason (§5.4)."""
    if not _judged(case):
        return
    settled = _settled(case)
    rule = "settle.last-assistant"
    end = _field(case.actual, "end")
    actual = _field(end, "lastAssistantMessage")
    if settled.selection is None and actual is not _MISSING:
        yield Violation(rule, (
            f"you returned {_describe_output(actual, settled.log)} for "
            f"end.lastAssistantMessage; the key must be absent when there is no output "
            f"({_describe_selection(settled.log)}) ({_cite(rule)})."))
    elif settled.selection is not None and not same_json(actual, settled.selection):
        yield Violation(rule, (
            f"your end.lastAssistantMessage is {_describe_output(actual, settled.log)}, but it is "
            f"the same selection as result.output: {_describe_selection(settled.log)} "
            f"({_cite(rule)})."))
    ended = _field(end, "stopReason")
    result = _field(case.actual, "result", "stopReason")
    if not same_json(ended, result):
        yield Violation(rule, (
            f"your end.stopReason is {show(ended)} but your result.stopReason is {show(result)}; "
            f"the lifecycle event reports the run's one stop reason ({_cite(rule)})."))


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


def check_settle_tool_result(case: Case) -> Iterator[Violation]:
    """``settle.tool-result``: the exact isError flag and text of the contract (§5.5)."""
    if not _judged(case):
        return
    settled = _settled(case)
    rule = "settle.tool-result"
    is_error = _field(case.actual, "toolResult", "isError")
    text = _field(case.actual, "toolResult", "text")
    failed = settled.stop_reason != "completed"
    if not same_json(is_error, failed):
        yield Violation(rule, (
            f"your toolResult.isError is {show(is_error)}, but the stop reason is "
            f"{show(settled.stop_reason)}, so it is {show(failed)}: only a completed run gives a "
            f"tool result that is not an error ({_cite(rule)})."))
    if same_json(text, settled.tool_text):
        return
    hints = _tool_text_hints(settled, text) if isinstance(text, str) else []
    detail = (f"; {_text_difference(text, settled.tool_text)}" if isinstance(text, str) else "")
    hint = f" ({'; '.join(hints)})" if hints else ""
    yield Violation(rule, (
        f"your toolResult.text is {show(text)}, but for stop reason {show(settled.stop_reason)}, "
        f"diagnostic {show(settled.diagnostic) if settled.diagnostic is not None else '(absent)'} "
        f"and output text {show(settled.text)} it is {show(settled.tool_text)}{hint}{detail} "
        f"({_cite(rule)})."))


def check_settle_agrees(case: Case) -> Iterator[Violation]:
    """``settle.agrees``: the settled run equals the reference's (selection.md §5)."""
    if isinstance(case.expected, Errored):
        return
    if isinstance(case.actual, ImplErrored):
        yield _errored("settle.agrees", case.actual, (
            "Every schema-valid run settles: a log without turn/end stops with 'error', an unknown "
            "reason kind maps to 'error', and unknown event types are ignored"))
    elif not same_json(case.actual, case.expected):
        yield _disagreement("settle.agrees", case.actual, case.expected, "answer")


CHECKS: dict[str, list[Check]] = {
    "select": [
        check_select_never_empty,
        check_select_last_message,
        check_select_text_fallback,
        check_select_agrees,
    ],
    "fold": [
        check_fold_shape,
        check_fold_prefix,
    ],
    "settle": [
        check_settle_stop_reason,
        check_settle_cancelled,
        check_settle_output,
        check_settle_last_assistant,
        check_settle_tool_result,
        check_settle_agrees,
    ],
}
