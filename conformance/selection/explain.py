"""What the selection checks share (spec/selection.md §3-5): the selection rule restated from the
log, and the words a failure message uses for a log, an output and a disagreement.

Each check restates its rule from the spec — it finds the last non-empty message itself, maps the
stop reason itself, builds the tool result's text itself — instead of only diffing against the
reference, so that a failure names the rule that broke and says, with the real values, what the
implementation did instead. The agreement checks come last and catch whatever the restatements
do not (an implementation that errors on a valid input, a shape the rules do not name).

Checks never raise: they read the implementation's answer defensively, since it may be any JSON.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._json import MISSING, render, same_json
from .._json import first_difference as _first_difference
from .._model import Case, Errored, ImplErrored, Violation
from .rules import RULES_BY_ID

_MISSING = MISSING
#: How many characters of a value a message shows before it elides the rest.
SHOWN_CHARACTERS = 240

__all__ = ["same_json"]


def show(value: Any, limit: int = SHOWN_CHARACTERS) -> str:
    """``value`` as compact JSON for a message (the harness's one renderer)."""
    return render(value, limit)


def cite(rule_id: str) -> str:
    """``selection.md §3.1`` for a rule whose section is ``selection.md#3.1``."""
    return RULES_BY_ID[rule_id].section.replace("#", " §")


def joined(items: Sequence[str], limit: int = 4) -> str:
    if len(items) <= limit:
        return ", ".join(items)
    return f"{', '.join(items[:limit])} and {len(items) - limit} more"


def text_difference(actual: str, expected: str) -> str:
    at = next((i for i, (x, y) in enumerate(zip(actual, expected, strict=False)) if x != y),
              min(len(actual), len(expected)))
    return (f"they first differ at character {at}: yours continues {show(actual[at:at + 40])}, "
            f"the contract's continues {show(expected[at:at + 40])}")


# -- the selection rule, restated (selection.md §3) ------------------------------------------------

def field_of(value: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(value, Mapping) or key not in value:
            return _MISSING
        value = value[key]
    return value


def message_content(event: Any) -> list[Any] | None:
    """``data.message.content`` of an ``assistant/message`` event; None for any other event."""
    if field_of(event, "type") != "assistant/message":
        return None
    content = field_of(event, "data", "message", "content")
    return content if isinstance(content, list) else None


def chunk_of(event: Any) -> Mapping[str, Any] | None:
    """The chunk of an ``assistant/chunk`` event; None for any other event."""
    if field_of(event, "type") != "assistant/chunk":
        return None
    chunk = field_of(event, "data", "chunk")
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


def prefix_selections(events: Sequence[Any]) -> Iterator[list[Any] | None]:
    """``selection(events[:count])`` for every count from 0 to ``len(events)``, in order, in one
    pass: what a fold's collect() answers after each push (§4.2). Asking ``selection`` of every
    prefix afresh reads the log once per push, which a log of a thousand pushes makes a
    million reads."""
    last: list[Any] | None = None
    text = ""
    yield None
    for event in events:
        content = message_content(event)
        if content:
            last = content
        elif last is None:
            text += delta_text(event) or ""
        if last is not None:
            yield last
        else:
            yield [{"type": "text", "text": text}] if text else None


def events_of(case: Case) -> list[Any]:
    events = field_of(case.input, "events")
    return events if isinstance(events, list) else []


def judged(case: Case) -> bool:
    """Value checks judge only answers to inputs the reference accepted."""
    return not isinstance(case.expected, Errored) and not isinstance(case.actual, ImplErrored)


@dataclass(frozen=True)
class Log:
    """A list of events and how to name one of them to the user."""

    events: list[Any]
    name: Callable[[int], str]


def event_namer(prefix: str, events: Sequence[Any]) -> Callable[[int], str]:
    def name(index: int) -> str:
        seq = field_of(events[index], "seq")
        return f"{prefix}[{index}] (seq {seq})" if seq is not _MISSING else f"{prefix}[{index}]"
    return name


def events_log(case: Case) -> Log:
    events = events_of(case)
    return Log(events, event_namer("$.events", events))


def describe_output(value: Any, log: Log) -> str:
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
                    if field_of(log.events[owners[-1]], "data", "interrupted") is True
                    else "an assistant/message with empty content (a usage-only message)")
            return f"[], the content of {log.name(owners[-1])}, {kind}"
        if owners:
            return f"the content of {log.name(owners[-1])}, an assistant/message: {show(value)}"
        if len(value) == 1 and field_of(value[0], "type") == "text":
            return f"one text block {show(value)}"
    return show(value)


def describe_selection(log: Log) -> str:
    """The spec's answer for ``log``, and why, in one sentence."""
    last = last_non_empty_message(log.events)
    if last is not None:
        content = message_content(log.events[last])
        return (f"the last assistant message with non-empty content is {log.name(last)}, whose "
                f"content is {show(content)}")
    text, where = streamed_text(log.events)
    if text:
        return ("no assistant message has non-empty content, so the output is the text of the "
                f"text-delta chunks ({joined([log.name(i) for i in where])}) concatenated in "
                f"log order as one text block: {show([{'type': 'text', 'text': text}])}")
    return ("no assistant message has non-empty content and no text-delta chunk carries text, so "
            "there is no output: null")



def errored(rule: str, actual: ImplErrored, what: str) -> Violation:
    return Violation(rule, (
        f"your implementation answered errored on a valid input: {show(actual.message)}. "
        f"{what} ({cite(rule)})."), kind="errored on a valid input")


def disagreement(rule: str, actual: Any, expected: Any, what: str) -> Violation:
    where = _first_difference(actual, expected)
    detail = "" if where is None else (
        f"; the first difference is at {where.path}: yours is {show(where.got)}, the reference's "
        f"is {show(where.want)}")
    return Violation(rule, (
        f"your {what} is {show(actual)}, but the reference's is {show(expected)}{detail} "
        f"({cite(rule)})."))


