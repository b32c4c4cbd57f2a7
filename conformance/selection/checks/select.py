"""Checks of the ``select`` rules (spec/selection.md §3): which content a log produced."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..._model import Case, Errored, ImplErrored, Violation, judges
from ..explain import (
    cite,
    delta_text,
    describe_output,
    describe_selection,
    disagreement,
    errored,
    events_log,
    field_of,
    joined,
    judged,
    last_non_empty_message,
    message_content,
    same_json,
    show,
    streamed_text,
)


@judges("select.never-empty")
def check_select_never_empty(case: Case) -> Iterator[Violation]:
    """``select.never-empty``: null or a non-empty list; an empty message never counts (§3.2)."""
    actual = case.actual
    if not judged(case) or actual is None or (isinstance(actual, list) and actual):
        return
    log = events_log(case)
    rule = "select.never-empty"
    if isinstance(actual, list):
        empties = [i for i, e in enumerate(log.events) if message_content(e) == []]
        if empties:
            said = (f"your output is {describe_output(actual, log)}; empty messages never count "
                    f"({cite(rule)})")
        else:
            said = (f"your output is [], an empty list; the output is null when there is none, "
                    f"never [] ({cite(rule)})")
    else:
        said = (f"your output is {show(actual)}, which is neither null nor a non-empty list of "
                f"content blocks ({cite(rule)})")
    yield Violation(rule, f"{said}. Expected: {describe_selection(log)}.")


@judges("select.last-message")
def check_select_last_message(case: Case) -> Iterator[Violation]:
    """``select.last-message``: the content of the last non-empty message, verbatim (§3.1)."""
    if not judged(case):
        return
    log = events_log(case)
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
    if content and not any(field_of(block, "type") == "text" for block in content):
        hints.append("that message has no text block, but content length decides, not the "
                     "presence of text")
    if field_of(log.events[last], "data", "interrupted") is True:
        hints.append("it is marked interrupted: true, and an interrupted message counts like "
                     "any other")
    owners = [i for i, e in enumerate(log.events)
              if message_content(e) and same_json(message_content(e), case.actual)]
    if owners and owners[-1] < last:
        hints.append("the last such message wins, not an earlier one")
    hint = f" ({'; '.join(hints)})" if hints else ""
    yield Violation("select.last-message", (
        f"your output is {describe_output(case.actual, log)}, but "
        f"{describe_selection(log)}{hint} ({cite('select.last-message')})."))


def _alternative_texts(events: Sequence[Any]) -> dict[str, str]:
    """Texts a wrong fallback produces, to name the mistake when an answer matches one."""
    def gather(contributes: Callable[[Any], list[str]]) -> str:
        return "".join(piece for event in events for piece in contributes(event))

    def text(event: Any) -> list[str]:
        piece = delta_text(event)
        return [] if piece is None else [piece]

    def tool_results(event: Any) -> list[str]:
        content = field_of(event, "data", "content", "content")
        if field_of(event, "type") != "tool/result" or not isinstance(content, list):
            return []
        return [b["text"] for b in content
                if field_of(b, "type") == "text" and isinstance(field_of(b, "text"), str)]

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


@judges("select.text-fallback")
def check_select_text_fallback(case: Case) -> Iterator[Violation]:
    """``select.text-fallback``: without a non-empty message, the streamed text or null (§3.3)."""
    if not judged(case):
        return
    log = events_log(case)
    if last_non_empty_message(log.events) is not None:
        return
    text, _ = streamed_text(log.events)
    expected = [{"type": "text", "text": text}] if text else None
    if same_json(case.actual, expected):
        return
    mistakes: list[str] = []
    if isinstance(case.actual, list) and len(case.actual) == 1:
        yours = field_of(case.actual[0], "text")
        mistakes = [why for why, alternative in _alternative_texts(log.events).items()
                    if isinstance(yours, str) and alternative != text
                    and same_json(yours, alternative)]
    hint = f"; your text {'; '.join(mistakes)}" if mistakes else ""
    if case.actual is None and text:
        empties = [log.name(i) for i, e in enumerate(log.events) if message_content(e) == []]
        hint = (f" (the empty assistant message at {joined(empties)} does not count: an empty "
                "message never hides streamed text)") if empties else (
                " (the streamed text is the output when no message has content)")
    yield Violation("select.text-fallback", (
        f"your output is {describe_output(case.actual, log)}, but {describe_selection(log)}"
        f"{hint} ({cite('select.text-fallback')})."))


@judges("select.agrees")
def check_select_agrees(case: Case) -> Iterator[Violation]:
    """``select.agrees``: the output equals the reference's (selection.md §3)."""
    if isinstance(case.expected, Errored):
        return
    if isinstance(case.actual, ImplErrored):
        yield errored("select.agrees", case.actual, (
            "Every schema-valid log has an output or null; unknown event types, unknown chunk "
            "types and extra keys are ignored, never refused"))
    elif not same_json(case.actual, case.expected):
        yield disagreement("select.agrees", case.actual, case.expected, "output")


