"""The selection profile's strategies: a tour of every shape the session-event schema allows.

One log holds :data:`TOUR_TURNS` turns, and each turn every event type (selection.md §2), every
chunk type (§2.3), blocks of every type (§2.5) and a splice (§2.4). What varies from one event
of a type to the next is taken in turn (:class:`..._reused.Cycle`): the chunk and block
types, the optional members each object may carry (present in one, absent in the next, and a
member no schema names), content from empty to long, every splice form and every ``turn/end``
kind. Its numbers are then written at their edges (:mod:`.settle_forms`): the turns relabelled
one to one onto every number of :data:`.settle_forms.EDGE_TURNS` (one turn each), every other
event of a type with its numbers as integral doubles, seq and time, counts and indexes at
theirs, each envelope with or without the members the spec names and one it does not.

Nothing here is drawn at random but where the cycles start and which turn gets which number
(a rotation of the edges), so every draw, the simplest one first, meets every shape: every
run on every seed and effort draws each of them, however few inputs its tour family gets. The
log means whatever it means: the reference decides the answer, as for any other log.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from ..._reused import Cycle, integers
from .events import (
    _MESSAGE_EXTRAS,
    MAX_SAFE_INTEGER,
    SOURCE_EXTRAS,
    _chunk,
    _event,
    _in_turn,
    _message,
    _splice,
    _step_end,
    _step_start,
    _tool_call,
    _tool_result,
    _turn_end,
    _turn_start,
    _user_value,
    _with_envelope,
)
from .settle_forms import (
    EDGE_STEPS,
    EDGE_TURNS,
    EXTRA,
    _relabel,
    doubled_by_type,
    widened,
)
from .values import (
    _OBJECTS,
    _RAW_ARGUMENTS,
    _TRICKY,
    _WORDS,
    BLOCK_KINDS,
    REASON_KINDS,
    UNKNOWN_EVENT_TYPES,
    UNKNOWN_REASON_KINDS,
    Block,
    Event,
    _copied,
)

#: One turn for each turn number a relabelled log is put on: every event type meets each.
TOUR_TURNS = len(EDGE_TURNS)
#: The chunk types of a step, in stream order: the seven the spec pins and one it does not.
CHUNK_TYPES: tuple[str, ...] = (
    "block-start", "text-delta", "reasoning-delta", "tool-call-delta", "block-end", "usage",
    "finish", "x-vendor-delta",
)
#: Block types in turn: the five the spec pins and two it does not (with text, and without).
_BLOCK_TYPES: tuple[str, ...] = (*BLOCK_KINDS, "citation", "x-vendor-block")
#: How many blocks a message holds, in turn: none, one, a few, many.
CONTENT_COUNTS: tuple[int, ...] = (0, 1, 2, 5, 3, 6)
#: How many blocks a tool result's own content holds.
_RESULT_COUNTS: tuple[int, ...] = (1, 0, 2)
#: How a finish chunk ends a stream: each kind, one nobody has seen yet, and the failing
#: ones (two in three, so that a tour holds a failure for every edge of its members) with
#: their failure.
_ABORTED = {"kind": "aborted", "failure": {"message": "stream closed", "code": "ABORTED"}}
_ERRORED = {"kind": "error", "failure": {"message": "rate limited", "code": "RATE_LIMIT"}}
_FINISHES: tuple[dict[str, Any], ...] = (
    {"kind": "stop"}, _ABORTED, _ERRORED, {"kind": "max-tokens"}, _ERRORED, _ABORTED,
    {"kind": "tool-calls"}, _ABORTED, _ERRORED, {"kind": "content-filter"}, _ERRORED, _ABORTED,
)
#: What a finish chunk carries beyond its reason, in turn: nothing, the adapter's replay
#: state (any JSON value), a member no schema names on its reason.
_FINISH_EXTRAS: tuple[str, ...] = ("none", "replay-state", "reason-member")
#: The splice forms of §2.4: claims on either target, cancellations with and without a
#: replacement, insertions of one, of many and of none.
SPLICE_FORMS: tuple[str, ...] = (
    "claim-next-turn", "insertion", "cancellation", "claim-next-step", "replacement",
    "insertion-many", "insertion-none",
)
#: The ``turn/end`` kinds in turn: the spec's and ones nobody has seen yet.
_END_KINDS: tuple[str, ...] = (*REASON_KINDS, *UNKNOWN_REASON_KINDS)
#: Block members no schema pins, in turn (none, then each).
_BLOCK_EXTRAS: tuple[dict[str, Any], ...] = (
    {}, {"providerMetadata": {"10": 1, "a": None}}, {EXTRA: "block"},
    {"cacheControl": {"type": "ephemeral"}},
)
_TEXTS: tuple[str, ...] = (*_WORDS, *_TRICKY)
#: Raw tool-call arguments: broken ones and JSON texts of awkward objects.
_ARGUMENTS: tuple[str, ...] = (*_RAW_ARGUMENTS, *(json.dumps(value, ensure_ascii=False)
                                                  for value in _OBJECTS))
#: Where a user message came from: the user, or another kind with a member of its own.
_USER_SOURCES: tuple[dict[str, Any], ...] = ({"kind": "user"}, {"kind": "subagent", EXTRA: 1})
_CALL_IDS: tuple[str, ...] = ("call_1", "toolu_01", "")
_TOOL_NAMES: tuple[str, ...] = ("read_file", "search", "")
_MEDIA: tuple[dict[str, Any], ...] = (
    {"mediaType": "image/png", "data": "iVBORw0KGgo="}, {"mediaType": "image/jpeg", "data": ""},
    {"url": "https://example.com/a.png", EXTRA: 1},
)


def _text(cycle: Cycle) -> str:
    text: str = cycle.pick(_TEXTS, "text")
    return text


def _block(cycle: Cycle, kind: str, depth: int = 0) -> Block:
    """A block of ``kind``, its optional members present or absent in turn."""
    if kind in ("text", "reasoning", "x-vendor-block"):
        block: Block = {"type": kind, "text": _text(cycle)}
    elif kind == "image":
        block = {"type": "image", "attachment": _copied(cycle.pick(_MEDIA))}
    elif kind == "tool-call":
        block = {"type": "tool-call", "id": cycle.pick(_CALL_IDS), "name": cycle.pick(_TOOL_NAMES),
                 "arguments": cycle.pick(_ARGUMENTS)}
    elif kind == "tool-result":
        # A tool result's content holds text and images (a nested result only one level deep).
        inner = ("text", "image") if depth else ("text", "image", "tool-result")
        block = {"type": "tool-result", "toolCallId": cycle.pick(_CALL_IDS),
                 "content": [_block(cycle, cycle.pick(inner, "inner"), depth + 1)
                             for _ in range(cycle.pick(_RESULT_COUNTS))]}
        if cycle.pick((True, False), "isError"):
            block["isError"] = cycle.pick((False, True), "isError value")
    else:
        block = {"type": "citation", "url": "https://example.com/a"}
    block.update(_copied(cycle.pick(_BLOCK_EXTRAS, kind)))
    return block


def _content(cycle: Cycle, member: str) -> list[Block]:
    return [_block(cycle, cycle.pick(_BLOCK_TYPES, "block"))
            for _ in range(cycle.pick(CONTENT_COUNTS, member))]


def _stream(cycle: Cycle) -> list[dict[str, Any]]:
    """One chunk of each type, in stream order (their indexes are widened later)."""
    chunks: list[dict[str, Any]] = []
    for kind in CHUNK_TYPES:
        if kind in ("text-delta", "reasoning-delta", "x-vendor-delta"):
            chunk: dict[str, Any] = {"type": kind, "index": 0, "text": _text(cycle)}
        elif kind == "tool-call-delta":
            chunk = {"type": kind, "index": 1, "id": cycle.pick(_CALL_IDS),
                     "argumentsDelta": cycle.pick(('{"pa', "", "th\": 1}"))}
            if cycle.pick((True, False), "delta name"):
                chunk["name"] = cycle.pick(_TOOL_NAMES)
        elif kind == "block-start":
            chunk = {"type": kind, "index": 0, "blockType": cycle.pick(_BLOCK_TYPES, kind)}
        elif kind == "block-end":
            chunk = {"type": kind, "index": 0,
                     "block": _block(cycle, cycle.pick(_BLOCK_TYPES, kind))}
        elif kind == "usage":
            chunk = {"type": kind, "usage": {"inputTokens": 0, "outputTokens": 0}}
        else:
            chunk = {"type": kind, "reason": _copied(cycle.pick(_FINISHES))}
            extra = cycle.pick(_FINISH_EXTRAS)
            if extra == "replay-state":
                chunk["replayState"] = {"cursor": 3, "opaque": [1, None]}
            elif extra == "reason-member":
                chunk["reason"][EXTRA] = "finish"
        chunks.append(chunk)
    return chunks


def _spliced(cycle: Cycle) -> Event:
    form = cycle.pick(SPLICE_FORMS)
    if form.startswith("claim"):
        return _splice(removed=1, target=form.removeprefix("claim-"))
    if form in ("cancellation", "replacement"):
        inserted = [_user_value(_content(cycle, "inserted"))] if form == "replacement" else []
        return _splice(removed=1, inserted=inserted, canceled=True,
                       target=cycle.pick(("next-turn", "next-step"), "canceled target"))
    count = {"insertion": 1, "insertion-many": 5, "insertion-none": 0}[form]
    return _splice(removed=None, inserted=[_user_value(_content(cycle, "inserted"))
                                           for _ in range(count)],
                   target=cycle.pick(("next-step", "next-turn"), "inserted target"))


def _turn(cycle: Cycle, turn: int) -> list[Event]:
    """Turn ``turn`` with one step (numbered ``turn`` modulo the step edges) and every event
    type: each type's drafts carry the turn's numbers where the type has them."""
    step = turn % len(EDGE_STEPS)
    message = _message(_content(cycle, "message"),
                       usage=({"inputTokens": 1, "outputTokens": 1}
                              if cycle.pick((True, False), "usage") else None),
                       interrupted=cycle.pick((False, True), "interrupted"),
                       extra=cycle.pick(_MESSAGE_EXTRAS))
    source_extra = cycle.pick(SOURCE_EXTRAS)
    message["data"]["message"]["source"].update(source_extra)
    call = _block(cycle, "tool-call")
    result = _block(cycle, "tool-result")
    user_source = cycle.pick(_USER_SOURCES)
    user = _event("user/message", {**_user_value(_content(cycle, "user")),
                                   "source": dict(user_source)})
    unknown = _event(cycle.pick(UNKNOWN_EVENT_TYPES), {"turn": turn, "step": step})
    in_step = [_chunk(chunk) for chunk in _stream(cycle)] + [
        message, _tool_call(call), _tool_result(result)]
    return [_turn_start(turn), _spliced(cycle), _step_start(turn, step),
            *(_in_turn(event, turn, step) for event in in_step), _step_end(turn, step),
            user, unknown, _turn_end(turn, cycle.pick(_END_KINDS))]


#: Envelope members beyond the four every event has, in turn (selection.md §2.1).
_ENVELOPE_EXTRAS: tuple[dict[str, Any], ...] = ({}, {"ignorable": True}, {"x-host": "worker-3"})
#: How an event's seq and time are written, each in turn (never consulted, §2): as numbered,
#: 0, the largest integer a double holds exactly, beyond it, as an integral double.
_ENVELOPE_WRITINGS: tuple[str, ...] = ("as-numbered", "zero", "max-safe", "beyond", "double")


def _written_envelope(cycle: Cycle, event: Event, index: int) -> None:
    for key in ("seq", "time"):
        writing = cycle.pick(_ENVELOPE_WRITINGS, key)
        if writing == "zero":
            event[key] = 0
        elif writing == "max-safe":
            event[key] = MAX_SAFE_INTEGER
        elif writing == "beyond":
            event[key] = MAX_SAFE_INTEGER + 1 + index
        elif writing == "double":
            event[key] = float(event[key])


@st.composite
def tour_logs(draw: st.DrawFn) -> list[Event]:
    """A log of every shape (see the module docstring), numbered and written at its edges."""
    cycle = Cycle(draw(integers(0, 11)))
    drafts = [event for turn in range(TOUR_TURNS) for event in _turn(cycle, turn)]
    events = [_with_envelope(event, seq, cycle.pick(_ENVELOPE_EXTRAS))
              for seq, event in enumerate(drafts)]
    # Rotations, not permutations, of the edge numbers: each turn meets another edge from one
    # draw to the next, and a counterexample has four small integers to shrink, not two orders.
    turns = draw(integers(0, len(EDGE_TURNS) - 1))
    steps = draw(integers(0, len(EDGE_STEPS) - 1))
    _relabel(events, EDGE_TURNS[turns:] + EDGE_TURNS[:turns], "turn")
    _relabel(events, EDGE_STEPS[steps:] + EDGE_STEPS[:steps], "step")
    doubled_by_type(events, draw(integers(0, 1)))
    for index, event in enumerate(events):
        _written_envelope(cycle, event, index)
    widened(cycle, events)
    return events
