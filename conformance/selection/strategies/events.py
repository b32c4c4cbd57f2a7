"""The selection profile's strategies: session events, strategies drawn, one model step."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from hypothesis import strategies as st

from ..._reused import BOOLEANS, integers, sampled
from .values import (
    _MODEL_SOURCE,
    BASE_TIME,
    BLOCK_KINDS,
    REASON_KINDS,
    UNKNOWN_EVENT_TYPES,
    UNKNOWN_REASON_KINDS,
    Block,
    Event,
    _copied,
    _image_blocks,
    _maybe,
    _some,
    _text_blocks,
    _tool_call_blocks,
    _tool_result_blocks,
    chunks,
    content_blocks,
    json_objects,
    text_pieces,
    usages,
)

# -- session events (selection.md §2) --------------------------------------------------------------
# Drafts carry turn 0 and step 0; :func:`_turn` gives the events of a turn their turn and step
# numbers, and :func:`_numbered` their seq, time and message ids.

#: The event types whose data carries ``turn`` (and, except turn/*, ``step``) (selection.md §2.4).
_STEP_EVENTS = frozenset({
    "assistant/chunk", "assistant/message", "tool/call", "tool/result", "step/start", "step/end",
})


def _event(kind: str, data: dict[str, Any]) -> Event:
    # seq and time are assigned when the log is numbered (_numbered).
    return {"type": kind, "seq": 0, "time": 0, "data": data}


def _chunk(chunk: dict[str, Any]) -> Event:
    return _event("assistant/chunk", {"turn": 0, "step": 0, "chunk": chunk})


def _message(content: list[Block], *, usage: dict[str, Any] | None = None,
             interrupted: bool = False, extra: Mapping[str, Any] | None = None) -> Event:
    message = {"id": "", "role": "assistant", "content": content, "source": dict(_MODEL_SOURCE)}
    data: dict[str, Any] = {"turn": 0, "step": 0, "message": {**message, **(extra or {})}}
    if usage is not None:
        data["usage"] = usage
    if interrupted:
        data["interrupted"] = True  # the member is only ever true (selection.md §2.2)
    return _event("assistant/message", data)


def _user_value(content: list[Block]) -> dict[str, Any]:
    return {"id": "", "role": "user", "content": content, "source": {"kind": "user"}}


def _user_message(content: list[Block]) -> Event:
    return _event("user/message", _user_value(content))


def _tool_call(block: Block) -> Event:
    return _event("tool/call", {"turn": 0, "step": 0, "callId": block["id"], "name": block["name"],
                                "arguments": block["arguments"]})


def _tool_result(block: Block) -> Event:
    """A tool result: a user-role message holding exactly one tool-result block (§2.4)."""
    return _event("tool/result", {"turn": 0, "step": 0, "message": {
        "id": "", "role": "user", "content": [block],
        "source": {"kind": "tool", "callId": block["toolCallId"]}}})


def turn_end_reason(kind: str) -> dict[str, Any]:
    """A turn/end reason of ``kind``, with the members its kind requires (selection.md §2.4)."""
    if kind == "aborted":
        return {"kind": kind, "reason": {"kind": "user"}}
    if kind == "error":
        return {"kind": kind, "error": {"message": "upstream 500", "code": "PROVIDER_ERROR"}}
    return {"kind": kind}


def _turn_end(turn: int, kind: str) -> Event:
    return _event("turn/end", {"turn": turn, "reason": turn_end_reason(kind)})


def _turn_start(turn: int) -> Event:
    return _event("turn/start", {"turn": turn})


def _step_start(turn: int, step: int = 0) -> Event:
    return _event("step/start", {"turn": turn, "step": step})


def _step_end(turn: int, step: int = 0) -> Event:
    return _event("step/end", {"turn": turn, "step": step})


def _splice(*, removed: int | None, inserted: list[dict[str, Any]] | None = None,
            canceled: bool = False, target: str = "next-turn") -> Event:
    data: dict[str, Any] = {"target": target, "start": 0}
    if removed is not None:
        data["removedCount"] = removed
    data["inserted"] = inserted or []
    if canceled:
        data["outcome"] = "canceled"
    return _event("agent/inbox/spliced", data)


def _claim(target: str = "next-turn") -> Event:
    """The loop claiming pending input for its open turn (selection.md §2.4, §5.1)."""
    return _splice(removed=1, target=target)


def _cancellation(replaced: bool = False) -> Event:
    """Pending input discarded; with ``replaced`` a replacement takes its place (§2.4)."""
    inserted = [_user_value([{"type": "text", "text": "try again"}])] if replaced else []
    return _splice(removed=1, inserted=inserted, canceled=True)


def _insertion() -> Event:
    """New pending input: no removal, so it consumes no work (§5.1)."""
    return _splice(removed=None, inserted=[_user_value([{"type": "text", "text": "next"}])])


@cache
def _reason_kinds() -> st.SearchStrategy[str]:
    return st.sampled_from(REASON_KINDS + UNKNOWN_REASON_KINDS)


#: Members an assistant message may carry beyond those the spec pins (selection.md §2.1).
_MESSAGE_EXTRAS: tuple[dict[str, Any], ...] = (
    {}, {"providerMessageId": "resp_01"}, {"metadata": {"finish": "stop", "10": 1}},
)


@cache
def _message_drafts(
    *, empty: bool | None = None, interrupted: bool | None = None,
    kinds: tuple[str, ...] = (*BLOCK_KINDS, "unknown"),
) -> st.SearchStrategy[Event]:
    non_empty = st.lists(content_blocks(kinds), min_size=1, max_size=3)
    if empty is None:
        content: st.SearchStrategy[list[Block]] = st.one_of(non_empty, st.just([]))
    else:
        content = st.just([]) if empty else non_empty
    usage = usages() if empty else _maybe(usages())
    flag = st.booleans() if interrupted is None else st.just(interrupted)
    return st.builds(
        lambda blocks, used, cut, extra: _message(blocks, usage=used, interrupted=cut, extra=extra),
        content, usage, flag, st.sampled_from(_MESSAGE_EXTRAS))


@cache
def _unknown_event_drafts() -> st.SearchStrategy[Event]:
    looks_like_a_message = st.builds(
        lambda blocks: {"turn": 1, "step": 0, "message": {
            "id": "msg_x", "role": "assistant", "content": blocks, "source": dict(_MODEL_SOURCE)}},
        st.lists(_text_blocks(), min_size=1, max_size=1),
    )
    data = st.one_of(json_objects(), looks_like_a_message)
    return st.builds(_event, st.sampled_from(UNKNOWN_EVENT_TYPES), data)


#: Event types that carry an assistant-shaped message but contribute nothing (selection.md §3.4,
#: §2.6): input, tool traffic, framing, and look-alike types of no meaning.
_DECOY_CARRIERS: tuple[str, ...] = (
    "user/message", "tool/call", "turn/start", "turn/end", "step/start",
    "step/end", "agent/inbox/spliced", "assistant/chunk", *UNKNOWN_EVENT_TYPES,
)


def _assistant_value(blocks: list[Block]) -> dict[str, Any]:
    return {"id": "msg_decoy", "role": "assistant", "content": blocks,
            "source": dict(_MODEL_SOURCE)}


#: The forms of a decoy (see :func:`decoys`): a user message with text, a tool result with text,
#: a tool call, a splice inserting a message with text (new input, and a cancellation that
#: replaces input), and an event of each non-contributing type carrying an assistant message.
DECOY_FORMS: tuple[str, ...] = (
    "user-text", "tool-result-text", "tool-call", "splice-insert", "splice-replace",
    *(f"carried:{kind}" for kind in _DECOY_CARRIERS),
)


def _decoy(form: str, blocks: list[Block]) -> Event:
    if form == "user-text":
        return _user_message(blocks)
    if form == "tool-result-text":
        return _tool_result({"type": "tool-result", "toolCallId": "call_1", "content": blocks})
    if form == "tool-call":
        return _tool_call({"id": "call_1", "name": "answer",
                           "arguments": json.dumps({"text": blocks[0]["text"]})})
    if form == "splice-insert":
        return _splice(removed=None, inserted=[_user_value(blocks)])
    if form == "splice-replace":
        return _splice(removed=1, inserted=[_user_value(blocks)], canceled=True)
    return _carrying(form.removeprefix("carried:"), _assistant_value(blocks))


@st.composite
def decoys(draw: st.DrawFn, least: int = 0) -> list[Event]:
    """Events that carry text an output could be taken from and contribute nothing (§3.4), at
    least ``least`` of them: distinct forms of :data:`DECOY_FORMS` in any order, each with its
    own text, so that one log meets many careless readers at once (one that takes a user
    message's text, one that takes any ``data.message``, one that reads look-alike types) and
    a failure shrinks to the one decoy it needs."""
    forms = draw(st.permutations(DECOY_FORMS))
    count = draw(integers(least, len(forms)))
    texts = st.lists(_text_blocks(), min_size=1, max_size=2)
    return [_decoy(form, draw(texts)) for form in forms[:count]]


#: Each carrier's own shape, before a message is added to it (types the spec does not name
#: carry only a turn and a step).
_CARRIER_SHAPES: dict[str, Event] = {
    "user/message": _user_message([{"type": "text", "text": "not an answer"}]),
    "tool/call": _tool_call({"id": "call_1", "name": "read", "arguments": "{}"}),
    "turn/start": _turn_start(0),
    "turn/end": _turn_end(0, "completed"),
    "step/start": _step_start(0),
    "step/end": _step_end(0),
    "agent/inbox/spliced": _insertion(),
    "assistant/chunk": _chunk({"type": "reasoning-delta", "index": 0, "text": "thinking"}),
}


def _carrying(kind: str, message: dict[str, Any]) -> Event:
    """An event of ``kind`` in its own shape, with ``message`` added as ``data.message`` where
    the kind has no such member (an open object, selection.md §2.1)."""
    event: Event = _copied(_CARRIER_SHAPES.get(kind) or _event(kind, {"turn": 0, "step": 0}))
    event["data"]["message"] = message
    return event


@cache
def _splice_drafts() -> st.SearchStrategy[Event]:
    return st.one_of(
        st.sampled_from(("next-turn", "next-step")).map(_claim),
        st.booleans().map(_cancellation),
        st.builds(_insertion),
    )


@cache
def _event_drafts() -> st.SearchStrategy[Event]:
    """Any one session event, weighted toward what selection reads."""
    return st.one_of(
        _message_drafts(),
        chunks().map(_chunk),
        _message_drafts(empty=True),
        _tool_result_blocks().map(_tool_result),
        _tool_call_blocks().map(_tool_call),
        st.builds(_turn_end, st.integers(0, 3), _reason_kinds()),
        st.builds(_turn_start, st.integers(0, 3)),
        st.builds(lambda make, turn, step: make(turn, step),
                  st.sampled_from((_step_start, _step_end)), st.integers(0, 3), st.integers(0, 3)),
        st.lists(st.one_of(_text_blocks(), _image_blocks()), min_size=1, max_size=2).map(
            _user_message),
        _splice_drafts(),
        _unknown_event_drafts(),
    )


def _in_turn(event: Event, turn: int, step: int | None = None) -> Event:
    """``event`` (copied) as an event of ``turn`` (and ``step``), when its type carries them."""
    if event["type"] not in _STEP_EVENTS:
        return event
    data = {**event["data"], "turn": turn}
    if step is not None:
        data["step"] = step
    return {**event, "data": data}


def _with_envelope(event: Event, seq: int, extra: Mapping[str, Any],
                   form: LogForm | None = None) -> Event:
    numbered: Event = _copied(event)
    numbered["seq"] = seq
    numbered["time"] = BASE_TIME + 1000 * seq
    numbered.update(extra)
    data = numbered["data"]
    if form is not None:
        form.apply(numbered, seq)
    # Identities: every message gets its own id (selection.md §2.2, §2.4).
    if numbered["type"] in ("assistant/message", "tool/result") and isinstance(
            data.get("message"), dict) and data["message"].get("id") == "":
        data["message"]["id"] = f"msg_{seq}"
    elif numbered["type"] == "user/message" and data.get("id") == "":
        data["id"] = f"usr_{seq}"
    elif numbered["type"] == "agent/inbox/spliced":
        for number, message in enumerate(data.get("inserted", [])):
            if message.get("id") == "":
                message["id"] = f"usr_{seq}_{number}"
    return numbered


#: Envelope members beyond the four of selection.md §2.1: the optional ones the spec names and one
#: it does not. None of them changes an answer.
_ENVELOPE_EXTRAS: tuple[dict[str, Any], ...] = (
    {}, {}, {"ignorable": True}, {"x-host": "worker-3"},
)


_FIRST_SEQS = st.integers(0, 2)
_ENVELOPE_EXTRA_DRAWS = st.sampled_from(_ENVELOPE_EXTRAS)

#: The largest integer a double holds exactly, and its neighbours beyond it: a reader that keeps
#: numbers as doubles reads 2^53 + 1 as 2^53 and merges two turns (selection.md §1: numbers are
#: compared exactly).
MAX_SAFE_INTEGER = 2**53 - 1
#: How a log's turn (and step) numbers are written, one way per log, the same for every event so
#: that the log means what it meant: as built (1, 2 …); shifted to 0 and negatives; shifted to
#: straddle 2^53 - 1 or lie beyond it, where a double-based reader merges neighbouring turns; or
#: as integral doubles (``"turn": 1.0``, the same turn, selection.md §1).
TURN_FORMS: tuple[str, ...] = ("as-built", "as-built", "as-built", "as-built", "negative",
                               "huge", "double", "beyond")
#: How its seq and time are written (carried, never consulted, §2): in log order; repeated;
#: going backwards; straddling 2^53 - 1; as integral doubles.
ENVELOPE_FORMS: tuple[str, ...] = ("in-order", "in-order", "in-order", "repeated", "backwards",
                                   "huge", "double", "in-order")
#: Members a message source may carry beyond kind, provider and model (§2.1, §2.2).
SOURCE_EXTRAS: tuple[dict[str, Any], ...] = (
    {}, {}, {"replayState": {"cursor": 3, "opaque": [1, None]}}, {"region": "eu", "kind2": 1},
)
#: Where an inbox splice starts and how many messages it removes (§2.4: start ≥ 0, removedCount ≥
#: 1; neither decides what a splice means).
SPLICE_STARTS: tuple[int, ...] = (0, 0, 0, 1, 4)
SPLICE_REMOVALS: tuple[int, ...] = (1, 1, 1, 2, 5)
#: "huge" puts turn 0 at 2^53 - 1 and turns 1 and 2 on 2^53 and 2^53 + 1 (one double);
#: "beyond" puts turns 0, 1 and 2 on 2^54, 2^54 + 1 and 2^54 + 2 (one double).
_TURN_SHIFTS = {"as-built": 0, "double": 0, "negative": -3, "huge": MAX_SAFE_INTEGER,
                "beyond": 2**54}


@dataclass(frozen=True)
class LogForm:
    """How one log writes what the selection never decides on, or decides on only by equality:
    its numbers (see :data:`TURN_FORMS`, :data:`ENVELOPE_FORMS`), source members and splice
    positions."""

    turns: str = "as-built"
    envelope: str = "in-order"
    source: Mapping[str, Any] = field(default_factory=dict)
    start: int = 0
    #: None: every removal keeps the count it was built with.
    removed: int | None = 1

    def apply(self, event: Event, seq: int) -> None:
        data = event["data"]
        if self.envelope == "repeated":
            event["seq"], event["time"] = 7, BASE_TIME
        elif self.envelope == "backwards":
            event["time"] = BASE_TIME - 1000 * seq
        elif self.envelope == "huge":
            event["seq"] = MAX_SAFE_INTEGER - 1 + seq
            event["time"] = MAX_SAFE_INTEGER - 1 + seq
        elif self.envelope == "double":
            event["seq"], event["time"] = float(event["seq"]), float(event["time"])
        if not isinstance(data, dict):
            return
        if self.turns != "as-built":
            for key in ("turn", "step") if self.turns == "double" else ("turn",):
                number = data.get(key)
                if isinstance(number, int) and not isinstance(number, bool):
                    data[key] = (float(number) if self.turns == "double"
                                 else number + _TURN_SHIFTS[self.turns])
        message = data.get("message")
        if (self.source and event["type"] == "assistant/message" and isinstance(message, dict)
                and isinstance(message.get("source"), dict)):
            message["source"] = {**message["source"], **self.source}
        if event["type"] == "agent/inbox/spliced":
            data["start"] = self.start
            if "removedCount" in data and self.removed is not None:
                data["removedCount"] = self.removed


_LOG_FORMS = st.builds(
    LogForm, sampled(TURN_FORMS), sampled(ENVELOPE_FORMS), st.sampled_from(SOURCE_EXTRAS),
    sampled(SPLICE_STARTS), sampled(SPLICE_REMOVALS))


_FAR_TURN_FORMS = ("huge", "beyond")


def _numbered(draw: st.DrawFn, drafts: list[Event], *, far_turns: bool = False,
              as_built: bool = False) -> list[Event]:
    """Give a log its envelope: seq in log order, times, ids, sometimes extra members, and one
    :class:`LogForm` for its numbers, sources and splices (with ``far_turns``, turn numbers
    beyond 2^53 - 1 that a double-based reader merges; with ``as_built``, the turn numbers and
    removed counts of the drafts, which chose them)."""
    first = draw(_FIRST_SEQS)
    extra = draw(_ENVELOPE_EXTRA_DRAWS)
    form = draw(_LOG_FORMS)
    if far_turns:
        form = replace(form, turns=draw(sampled(_FAR_TURN_FORMS)))
    elif as_built:
        form = replace(form, turns="as-built", removed=None)
    return [_with_envelope(event, first + i, extra, form) for i, event in enumerate(drafts)]


def assistant_messages(
    *, empty: bool | None = None, interrupted: bool | None = None,
) -> st.SearchStrategy[Event]:
    """``assistant/message`` events; ``empty=True`` gives usage-only messages (content ``[]``)."""
    return st.tuples(_message_drafts(empty=empty, interrupted=interrupted), st.integers(0, 99)).map(
        lambda pair: _with_envelope(pair[0], pair[1], {}))


def session_events() -> st.SearchStrategy[Event]:
    """Any one session event, known types and unknown ones, with its envelope."""
    return st.tuples(_event_drafts(), st.integers(0, 99)).map(
        lambda pair: _with_envelope(pair[0], pair[1], {}))


# -- strategies drawn inside composites: built once and reused (conformance/_reused.py) -----------


# -- one model step: stream the blocks, then maybe a message ---------------------------------------

def _likely(draw: st.DrawFn) -> bool:
    """True three times in four, shrinking to False: for parts a shape usually has."""
    return draw(integers(0, 3)) > 0


#: How a step numbers its blocks' chunks (selection.md §2.3 bounds ``index`` only below, and §1
#: compares numbers exactly): from 0; ending at 2^53 - 1; beyond it (2^53 + i: a reader of
#: doubles makes two blocks one); from 0 written as integral doubles (``1.0``).
INDEX_SPELLINGS = ("zero", "double", "max-safe", "zero", "beyond", "double")
_INDEX_SPELLING_DRAWS = st.sampled_from(INDEX_SPELLINGS)
#: Members a chunk carries beyond those the schema names (a provider's log probabilities,
#: metadata): a chunk is an open object (§2.1).
_CHUNK_EXTRAS: tuple[dict[str, Any], ...] = (
    {}, {}, {}, {"logprobs": None}, {"providerMetadata": {"id": "x", "10": 2**53 + 1}},
    {"0": 1.0},
)
_CHUNK_EXTRA_DRAWS = st.sampled_from(_CHUNK_EXTRAS)


def _indexes(draw: st.DrawFn, count: int) -> list[int | float]:
    """``count`` block indexes of one step, spelled as :data:`INDEX_SPELLINGS` says."""
    spelling = draw(_INDEX_SPELLING_DRAWS)
    if spelling == "max-safe":
        return [2**53 - count + i for i in range(count)]
    if spelling == "beyond":
        return [2**53 + i for i in range(count)]
    if spelling == "double":
        return [float(i) for i in range(count)]
    return list(range(count))


#: One streamed delta's ``index``: 0 and each edge of :data:`INDEX_SPELLINGS`.
EDGE_INDEXES: tuple[int | float, ...] = (0, 0.0, 2**53 - 1, 0, 2**53 + 1, 1.0)
_EDGE_INDEX_DRAWS = st.sampled_from(EDGE_INDEXES)


def edge_index(draw: st.DrawFn) -> int | float:
    """An ``index`` for a lone delta: 0, or one of the edges (see :data:`EDGE_INDEXES`)."""
    return draw(_EDGE_INDEX_DRAWS)


def _open_chunk(draw: st.DrawFn, chunk: dict[str, Any]) -> Event:
    """``chunk`` as an event, sometimes with members of its own after the named ones."""
    return _chunk({**chunk, **_copied(draw(_CHUNK_EXTRA_DRAWS))})


def _streamed_block(
    draw: st.DrawFn, kind: str, index: int | float, framed: bool,
) -> tuple[Block, list[Event]]:
    """A block and the chunks that stream it: deltas, inside block-start/block-end if framed."""
    if kind in ("text", "reasoning"):
        pieces = draw(_some(text_pieces(), 1, 3))
        block: Block = {"type": kind, "text": "".join(pieces)}
        delta = "text-delta" if kind == "text" else "reasoning-delta"
        deltas = [_open_chunk(draw, {"type": delta, "index": index, "text": piece})
                  for piece in pieces]
    else:
        block = draw(_tool_call_blocks())
        encoded = block["arguments"]
        cut = draw(integers(0, len(encoded)))
        deltas = [
            _chunk({"type": "tool-call-delta", "index": index, "id": block["id"],
                    **({"name": block["name"]} if n == 0 else {}), "argumentsDelta": part})
            for n, part in enumerate((encoded[:cut], encoded[cut:]))
        ]
    if not framed:
        return block, deltas
    start = _open_chunk(draw, {"type": "block-start", "index": index, "blockType": kind})
    end = _open_chunk(draw, {"type": "block-end", "index": index, "block": block})
    return block, [start, *deltas, end]


def _interleaved(draw: st.DrawFn, streams: list[list[Event]]) -> list[Event]:
    """Merge the chunk streams of several blocks, each kept in order (interleaved indexes)."""
    pending = [list(stream) for stream in streams if stream]
    merged: list[Event] = []
    while pending:
        pick = draw(integers(0, len(pending) - 1)) if len(pending) > 1 else 0
        merged.append(pending[pick].pop(0))  # pick 0 (the shrink target): one block at a time
        pending = [stream for stream in pending if stream]
    return merged


#: How a step ends: a message with what it streamed, the usage-only message of a max-tokens step,
#: a cut stream without message, an ``interrupted`` prefix, or a finished stream never messaged.
STEP_ENDINGS = ("message", "empty-message", "cut", "interrupted", "stream-only")


def _step(draw: st.DrawFn, kinds: Sequence[str], ending: str) -> list[Event]:
    """One model step: optional framing, the streamed blocks, then what ``ending`` says."""
    framed = draw(BOOLEANS)
    # A message is often logged without its chunks; a stream mostly has block-start/block-end.
    streamed = ending != "message" or draw(BOOLEANS)
    framed_blocks = _likely(draw)
    blocks: list[Block] = []
    streams: list[list[Event]] = []
    for index, kind in zip(_indexes(draw, len(kinds)), kinds, strict=True):
        block, stream = _streamed_block(draw, kind, index, framed_blocks)
        blocks.append(block)
        streams.append(stream)
    events: list[Event] = []
    if streamed:
        chunk_events = _interleaved(draw, streams)
        if ending in ("cut", "interrupted", "empty-message"):
            # Cut mid-stream: with framing, some block-start and deltas without their block-end.
            chunk_events = chunk_events[: draw(integers(0, len(chunk_events) - 1))]
        events += chunk_events
        if ending not in ("cut", "interrupted") and draw(BOOLEANS):
            events.append(_chunk({"type": "usage", "usage": draw(usages())}))
    if ending == "message":
        events.append(_message(blocks, usage=draw(_maybe(usages()))))
        if draw(BOOLEANS):
            for block in blocks:
                if block["type"] == "tool-call":
                    events.append(_tool_call(block))
                    result = draw(_tool_result_blocks())
                    events.append(_tool_result({**result, "toolCallId": block["id"]}))
    elif ending == "empty-message":
        events.append(_message([], usage=draw(usages())))
    elif ending == "interrupted":
        events.append(_message(_kept_prefix(blocks, events), interrupted=True))
    if framed:
        events = [_step_start(0), *events, _step_end(0)]
    return events


def _kept_prefix(blocks: list[Block], chunk_events: list[Event]) -> list[Block]:
    """The content an interrupted message keeps: finished blocks, then streamed partial text."""
    finished = {e["data"]["chunk"]["index"] for e in chunk_events
                if e["type"] == "assistant/chunk" and e["data"]["chunk"]["type"] == "block-end"}
    partial: dict[int, str] = {}
    for e in chunk_events:
        chunk = e["data"]["chunk"] if e["type"] == "assistant/chunk" else {}
        if chunk.get("type") in ("text-delta", "reasoning-delta") and (
                chunk["index"] not in finished):
            partial[chunk["index"]] = partial.get(chunk["index"], "") + chunk["text"]
    kept: list[Block] = []
    for index, block in enumerate(blocks):
        if index in finished:
            kept.append(block)
        elif partial.get(index):
            kept.append({"type": block["type"], "text": partial[index]})
    return kept  # may be []: cancelled before anything finished


