"""The fold check reads a log's prefixes in one pass (``explain.prefix_selections``): for every
input the fold strategies draw, and every hand-written log of the kinds that decide a selection,
it answers what ``selection`` answers of each prefix read afresh (spec/selection.md §3, §4.2)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from eventproof.conformance._model import Capabilities
from eventproof.conformance.selection import fold_inputs
from eventproof.conformance.selection.checks.fold import _pushed_events
from eventproof.conformance.selection.explain import (
    delta_text,
    message_content,
    prefix_selections,
    selection,
)
from hypothesis import find, given, settings
from hypothesis import strategies as st

#: The events that decide a selection, and their near misses: messages with and without
#: content, text and other deltas, chunks and events of other shapes.
_EVENTS = st.sampled_from([
    {"type": "assistant/message",
     "data": {"message": {"content": [{"type": "text", "text": "m"}]}}},
    {"type": "assistant/message", "data": {"message": {"content": []}}},
    {"type": "assistant/message", "data": {"message": {"content": "not a list"}}},
    {"type": "assistant/message", "data": {}},
    {"type": "assistant/chunk", "data": {"chunk": {"type": "text-delta", "text": "a"}}},
    {"type": "assistant/chunk", "data": {"chunk": {"type": "text-delta", "text": ""}}},
    {"type": "assistant/chunk", "data": {"chunk": {"type": "text-delta", "text": 7}}},
    {"type": "assistant/chunk", "data": {"chunk": {"type": "reasoning-delta", "text": "r"}}},
    {"type": "assistant/chunk", "data": []},
    {"type": "tool/result", "data": {"text": "t"}},
    None,
])


def _afresh(events: Sequence[Any]) -> list[Any]:
    return [selection(events[:count]) for count in range(len(events) + 1)]


@settings(max_examples=60, deadline=None)
@given(fold_inputs(Capabilities()))
def test_every_prefix_of_a_drawn_fold_selects_as_read_afresh(op_input: Any) -> None:
    events = _pushed_events(op_input["pushes"])
    assert list(prefix_selections(events)) == _afresh(events)


@given(st.lists(_EVENTS, max_size=12))
def test_every_prefix_of_a_log_of_deciding_events_selects_as_read_afresh(
        events: list[Any]) -> None:
    assert list(prefix_selections(events)) == _afresh(events)


def _an_empty_message_resets_the_text(events: Sequence[Any]) -> Iterator[list[Any] | None]:
    """Wrong: an empty message resets what streamed before it."""
    text = ""
    last = None
    yield None
    for event in events:
        content = message_content(event)
        if content is not None and not content:
            text = ""
        if content:
            last = content
        text += delta_text(event) or ""
        yield last if last is not None else ([{"type": "text", "text": text}] if text else None)


def _an_empty_message_counts(events: Sequence[Any]) -> Iterator[list[Any] | None]:
    """Wrong: the last message counts even when its content is empty."""
    text = ""
    last = None
    yield None
    for event in events:
        content = message_content(event)
        if content is not None:
            last = content
        text += delta_text(event) or ""
        yield last if last is not None else ([{"type": "text", "text": text}] if text else None)


@pytest.mark.parametrize("wrong", [_an_empty_message_resets_the_text, _an_empty_message_counts])
def test_a_wrong_one_pass_reading_is_told_apart(wrong: Any) -> None:
    """The comparison above would catch a one-pass reading wrong in one kind of event."""
    find(st.lists(_EVENTS, max_size=12), lambda events: list(wrong(events)) != _afresh(events),
         settings=settings(database=None, max_examples=500))
