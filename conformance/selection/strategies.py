"""Hypothesis strategies for the selection profile: session logs, and select/fold/settle inputs.

Logs are drawn from the *shapes* real runs take (spec/selection.md §2), not from uniform noise, so
that every rule's boundary is met within a hundred examples:

- a max-tokens step whose tool calls were dropped leaves an empty, usage-only ``assistant/message``,
  often the last event of the log, after real text (§3.2);
- a cancelled run: ``interrupted: true`` message prefixes, aborted turns, streams cut mid-block
  (``block-start`` and deltas without ``block-end``), no ``turn/end`` at all (§3.3, §5.2);
- reasoning-only and tool-call-only messages before streamed text: content length decides (§3.1);
- tool calls, tool results, user messages and unknown event and chunk types, none of which
  contribute (§3.4, §2.6);
- and two *mixtures*, the workhorses: every kind of message competing with streamed text, and
  everything that surrounds streamed text when no message has content. Each holds most kinds at
  once, so one log meets many rules.

Every event has the shape the agent loop of the system this profile comes from writes
(selection.md §2, Appendix A): numeric ``time``, ``{turn, step}`` on step, chunk and message
events, message ``id`` and ``source``, tool-call ``arguments`` as a raw JSON string (sometimes cut
short), tool results as user-role messages holding one ``tool-result`` block, and inbox splices.
A port's adapter can pass them through untouched. Unknown event, chunk and block types and extra
members appear throughout (§2.1, §2.6): they must be carried, never dropped.

Hypothesis explores far fewer independent cases than it runs examples (it mutates earlier ones),
so each region where a rule can break is made likely on its own, not merely possible. Every
decoration of a shape (framing, streaming, usage chunks, trailing events) is optional and shrinks
away, so a counterexample comes out as the few events that matter. Strings stay short: the
selection profile is about which text wins, not how big it is.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from hypothesis import strategies as st

from .._model import Capabilities, Family
from .._reused import BOOLEANS, integers, sampled

Event = dict[str, Any]
Block = dict[str, Any]

#: The ``turn/end`` reason kinds the spec names (selection.md §2.4).
REASON_KINDS: tuple[str, ...] = (
    "completed", "aborted", "blocked", "error", "max-tokens", "interrupted",
)
#: Kinds nobody has seen yet; they settle as ``error`` (selection.md §5.1). ``Completed`` is a
#: near miss: kinds are compared exactly.
UNKNOWN_REASON_KINDS: tuple[str, ...] = ("paused", "timeout", "Completed", "")
#: The content block types the spec pins (selection.md §2.5).
BLOCK_KINDS: tuple[str, ...] = ("text", "reasoning", "image", "tool-call", "tool-result")
#: Event types that are not session event types of the spec (selection.md §2.6). The near misses
#: (a plural, another case) must be ignored like any other unknown type even though their data
#: looks like an assistant message.
UNKNOWN_EVENT_TYPES: tuple[str, ...] = (
    "subagent/start", "session/compact", "x-vendor/trace", "assistant/messages",
    "Assistant/Message",
)

_WORDS = ("Hi", "Hello", " world", "Done.", "\n", "The answer is 42.", "naïve café", "日本語")
#: Pieces that encoders and string builders get wrong: C0 controls, astral code points (two UTF-16
#: units), lone surrogates (no UTF-8 form), the JSON-significant characters, and the two halves of
#: U+1F600 on their own, so that two consecutive deltas can join into one astral code point.
_TRICKY = (
    "\x00", "\x1f", "\t", "\r\n", "😀", "𝄞", "\ud800", "\udfff", "\ud83d", "\ude00", "\u2028",
    "\u007f", '"', "\\", "\ufffd", "a\x00b",
)
_TOOL_NAMES = ("read_file", "search", "run_tests", "x")
_CALL_IDS = ("call_1", "call_2", "toolu_01")
#: 2026-01-01T00:00:00Z in Unix epoch milliseconds: ``time`` of the first event of a log.
BASE_TIME = 1767225600000
#: The source of every generated assistant message (selection.md §2.2).
_MODEL_SOURCE: dict[str, Any] = {"kind": "model", "provider": "deepseek", "model": "deepseek-chat"}


# -- small values ----------------------------------------------------------------------------------
# Drawing is kept cheap (sampled values over recursive strategies): a run draws thousands of logs.

@cache
def text_pieces() -> st.SearchStrategy[str]:
    """Pieces of streamed text: ``""``, words, tricky characters, and arbitrary short text."""
    return st.one_of(
        st.sampled_from(_WORDS),
        st.just(""),
        st.sampled_from(_TRICKY),
        st.characters(categories=["Cs"]),  # any lone surrogate
        st.text(max_size=4),
    )


@cache
def _texts() -> st.SearchStrategy[str]:
    # Mostly one piece; sometimes several joined (a surrogate pair split across two pieces).
    return st.one_of(text_pieces(), st.lists(text_pieces(), min_size=2, max_size=3).map("".join))


def _copied(value: Any) -> Any:
    """A fresh copy of a JSON value: drafts share blocks (a message and its block-end chunk)."""
    # Scalars are returned in place without a call: most members of an event are scalars.
    if isinstance(value, dict):
        return {key: _copied(item) if isinstance(item, dict | list) else item
                for key, item in value.items()}
    if isinstance(value, list):
        return [_copied(item) if isinstance(item, dict | list) else item for item in value]
    return value


#: JSON objects with the values a port may mangle: integer-like keys (JavaScript orders them
#: first), integral and tiny floats, nulls, nesting, the largest integer a double holds exactly.
_OBJECTS: tuple[dict[str, Any], ...] = (
    {},
    {"path": "src/app.py"},
    {"10": "ten", "2": "two", "a": None},
    {"limit": 30.0, "ratio": 1e-7, "big": 2**53 - 1},
    {"beyond": 2**53 + 1, "far": -(2**63) - 1, "whole": 1.0, "zero": -0.0},
    {"nested": {"list": [1, "two", False, {"0": []}]}},
    {"query": "\ud800 \u2028 😀"},
)
#: Integers at the edges the exact number rule decides (selection.md §1): 0, negatives, the
#: largest a double holds exactly, and beyond it, where a double-based port echoes another value.
EDGE_INTEGERS: tuple[int, ...] = (0, -1, 2**53 - 1, 2**53, 2**53 + 1, -(2**53) - 1, 2**64 + 1)
#: Integral doubles: the same numbers as 1 and 2^53 under the exact rule, written as doubles.
INTEGRAL_DOUBLES: tuple[float, ...] = (1.0, 0.0, -0.0, 9007199254740992.0, 1e21)
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 2**53 - 1), st.text(max_size=3),
                     st.sampled_from(EDGE_INTEGERS), st.sampled_from(INTEGRAL_DOUBLES))


@cache
def json_objects() -> st.SearchStrategy[dict[str, Any]]:
    """Small JSON objects (tool arguments, attachments, unknown payloads)."""
    return st.one_of(
        st.sampled_from(_OBJECTS).map(_copied),
        st.dictionaries(st.sampled_from(("path", "0", "x")), _SCALARS, max_size=2),
    )


@cache
def usages() -> st.SearchStrategy[dict[str, Any]]:
    """A usage record, as a usage-only message or a ``usage`` chunk carries it."""
    return st.fixed_dictionaries(
        {"inputTokens": st.integers(0, 5000), "outputTokens": st.integers(0, 5000)},
        optional={"cacheReadTokens": st.integers(0, 100)},
    )


# Composite strategies draw from these cached combinators: building a strategy inside a draw
# costs more than drawing from it.

@cache
def _some(element: st.SearchStrategy[Any], min_size: int, max_size: int) -> st.SearchStrategy[
        list[Any]]:
    return st.lists(element, min_size=min_size, max_size=max_size)


@cache
def _maybe(element: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), element)


@cache
def _either(first: st.SearchStrategy[Any], second: st.SearchStrategy[Any]) -> st.SearchStrategy[
        Any]:
    return st.one_of(first, second)


@cache
def _pair(first: st.SearchStrategy[Any], second: st.SearchStrategy[Any]) -> st.SearchStrategy[
        tuple[Any, Any]]:
    return st.tuples(first, second)


# -- content blocks (selection.md §2.5) ------------------------------------------------------------

#: Members a block may carry beyond those the spec pins (selection.md §2.1): a port that rebuilds
#: blocks from fixed fields loses them.
_EXTRA_BLOCK_KEYS: Mapping[str, st.SearchStrategy[Any]] = {
    "providerMetadata": st.sampled_from(_OBJECTS).map(_copied),
    "cacheControl": st.just({"type": "ephemeral", "ttl": 300}),
}


def _block(
    required: Mapping[str, st.SearchStrategy[Any]],
    optional: Mapping[str, st.SearchStrategy[Any]] | None = None,
) -> st.SearchStrategy[Block]:
    # Extra keys are allowed everywhere (forward compatible) and must survive selection verbatim.
    return st.fixed_dictionaries(dict(required), optional={**_EXTRA_BLOCK_KEYS, **(optional or {})})


@cache
def _text_blocks(kind: str = "text") -> st.SearchStrategy[Block]:
    return _block({"type": st.just(kind), "text": _texts()})


@cache
def _image_blocks() -> st.SearchStrategy[Block]:
    return _block({
        "type": st.just("image"),
        "attachment": st.fixed_dictionaries({
            "mediaType": st.sampled_from(("image/png", "image/jpeg")),
            "data": st.sampled_from(("iVBORw0KGgo=", "")),
        }),
    })


#: Raw arguments a model may leave behind: cut short, empty, not JSON at all (selection.md §2.4).
_RAW_ARGUMENTS = ('{"path": "src/ma', "", "{}", "not json", '{"q": "\\ud800"}')


@cache
def raw_arguments() -> st.SearchStrategy[str]:
    """Tool-call arguments as the model produced them: a JSON text, or a broken one."""
    return st.one_of(
        json_objects().map(lambda value: json.dumps(value, ensure_ascii=False)),
        st.sampled_from(_RAW_ARGUMENTS),
    )


@cache
def _tool_call_blocks() -> st.SearchStrategy[Block]:
    return _block({
        "type": st.just("tool-call"),
        "id": st.sampled_from(_CALL_IDS),
        "name": st.sampled_from(_TOOL_NAMES),
        "arguments": raw_arguments(),
    })


@cache
def _tool_result_blocks() -> st.SearchStrategy[Block]:
    return _block(
        {
            "type": st.just("tool-result"),
            "toolCallId": st.sampled_from(_CALL_IDS),
            "content": st.lists(st.one_of(_text_blocks(), _image_blocks()), max_size=2),
        },
        {"isError": st.booleans()},
    )


@cache
def _unknown_blocks() -> st.SearchStrategy[Block]:
    # A block type added later: with text (a reader may take it for a text block) or without.
    return st.one_of(
        _block({"type": st.sampled_from(("citation", "x-vendor-block")), "text": _texts()}),
        _block({"type": st.just("citation"), "url": st.just("https://example.com/a")}),
    )


_BLOCKS: Mapping[str, Callable[[], st.SearchStrategy[Block]]] = {
    "text": _text_blocks,
    "reasoning": lambda: _text_blocks("reasoning"),
    "image": _image_blocks,
    "tool-call": _tool_call_blocks,
    "tool-result": _tool_result_blocks,
    "unknown": _unknown_blocks,
}


def content_blocks(kinds: Sequence[str] = (*BLOCK_KINDS, "unknown")) -> st.SearchStrategy[Block]:
    """Content blocks of the given kinds (``"unknown"``: a type the spec does not pin).

    Text may be ``""``: a message holding one empty text block still has non-empty content.
    """
    return _content_blocks(tuple(kinds))


@cache
def _content_blocks(kinds: tuple[str, ...]) -> st.SearchStrategy[Block]:
    return st.one_of([_BLOCKS[kind]() for kind in kinds])


# -- chunks (selection.md §2.3) --------------------------------------------------------------------

_INDEXES = st.integers(0, 3)


def chunks(index: st.SearchStrategy[int] = _INDEXES) -> st.SearchStrategy[dict[str, Any]]:
    """Any streaming chunk, known or not; text deltas first so that noise shrinks toward them."""
    return st.one_of(
        st.fixed_dictionaries(
            {"type": st.just("text-delta"), "index": index, "text": text_pieces()}),
        st.fixed_dictionaries(
            {"type": st.just("reasoning-delta"), "index": index, "text": text_pieces()}),
        st.fixed_dictionaries(
            {"type": st.just("tool-call-delta"), "index": index,
             "id": st.sampled_from(_CALL_IDS), "argumentsDelta": text_pieces()},
            optional={"name": st.sampled_from(_TOOL_NAMES)}),
        st.fixed_dictionaries({"type": st.just("block-start"), "index": index,
                               "blockType": st.sampled_from((*BLOCK_KINDS, "x-vendor-block"))}),
        st.fixed_dictionaries(
            {"type": st.just("block-end"), "index": index, "block": content_blocks()}),
        st.fixed_dictionaries({"type": st.just("usage"), "usage": usages()}),
        st.fixed_dictionaries({"type": st.just("finish"), "reason": st.one_of(
            st.fixed_dictionaries({"kind": st.sampled_from(("stop", "max-tokens", "tool-calls"))}),
            st.fixed_dictionaries({"kind": st.sampled_from(("aborted", "error")),
                                   "failure": st.just({"message": "stream closed",
                                                       "code": "ABORTED"})}),
        )}),
        # An unknown chunk type that carries text: it never contributes (selection.md §2.3).
        st.fixed_dictionaries({"type": st.sampled_from(("text-replace", "x-vendor-delta")),
                               "index": index, "text": text_pieces()}),
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
    removed: int = 1

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
            if "removedCount" in data:
                data["removedCount"] = self.removed


_LOG_FORMS = st.builds(
    LogForm, sampled(TURN_FORMS), sampled(ENVELOPE_FORMS), st.sampled_from(SOURCE_EXTRAS),
    sampled(SPLICE_STARTS), sampled(SPLICE_REMOVALS))


_FAR_TURN_FORMS = ("huge", "beyond")


def _numbered(draw: st.DrawFn, drafts: list[Event], *, far_turns: bool = False) -> list[Event]:
    """Give a log its envelope: seq in log order, times, ids, sometimes extra members, and one
    :class:`LogForm` for its numbers, sources and splices (with ``far_turns``, turn numbers
    beyond 2^53 - 1 that a double-based reader merges)."""
    first = draw(_FIRST_SEQS)
    extra = draw(_ENVELOPE_EXTRA_DRAWS)
    form = draw(_LOG_FORMS)
    if far_turns:
        form = replace(form, turns=draw(sampled(_FAR_TURN_FORMS)))
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


def _streamed_block(
    draw: st.DrawFn, kind: str, index: int, framed: bool,
) -> tuple[Block, list[Event]]:
    """A block and the chunks that stream it: deltas, inside block-start/block-end if framed."""
    if kind in ("text", "reasoning"):
        pieces = draw(_some(text_pieces(), 1, 3))
        block: Block = {"type": kind, "text": "".join(pieces)}
        delta = "text-delta" if kind == "text" else "reasoning-delta"
        deltas = [_chunk({"type": delta, "index": index, "text": piece}) for piece in pieces]
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
    start = _chunk({"type": "block-start", "index": index, "blockType": kind})
    end = _chunk({"type": "block-end", "index": index, "block": block})
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
    for index, kind in enumerate(kinds):
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


# -- log shapes ------------------------------------------------------------------------------------
# Each shape is a run users hit; every part of it is optional (absent is the shrink target), so a
# counterexample found in a long run shrinks to the two or three events that matter.

@cache
def _kinds(*choices: str, max_size: int = 2) -> st.SearchStrategy[list[str]]:
    return st.lists(st.sampled_from(choices), min_size=1, max_size=max_size)


def _step_of(
    draw: st.DrawFn, kinds: st.SearchStrategy[list[str]], endings: Sequence[str],
) -> list[Event]:
    return _step(draw, draw(kinds), draw(sampled(endings)))


def _maybe_step(
    draw: st.DrawFn, kinds: st.SearchStrategy[list[str]], endings: Sequence[str],
) -> list[Event]:
    return _step_of(draw, kinds, endings) if _likely(draw) else []


@cache
def _trailing() -> st.SearchStrategy[list[Event]]:
    """Events after the interesting part: unknown types, step ends, usage chunks (or none)."""
    return st.lists(st.one_of(
        _unknown_event_drafts(),
        st.just(_step_end(0, 1)),
        usages().map(lambda usage: _chunk({"type": "usage", "usage": usage})),
    ), max_size=2)


def _turn(draw: st.DrawFn, steps: list[list[Event]], kind: str | None, number: int = 1) -> list[
        Event]:
    """Wrap steps in an optional turn/start and a turn/end of ``kind`` (None: no turn/end).

    The events of the n-th non-empty step become events of turn ``number``, step n.
    """
    events = [_in_turn(e, number, index)
              for index, step in enumerate(step for step in steps if step) for e in step]
    if _likely(draw):
        events = [_turn_start(number), *events]
    if kind is not None:
        events.append(_turn_end(number, kind))
    return events


@cache
def _essential_events() -> dict[str, st.SearchStrategy[Event]]:
    """One strategy per kind of event the selection rules name (§3.1-3.4)."""
    def delta(kind: str, key: str = "text") -> st.SearchStrategy[Event]:
        return text_pieces().map(lambda text: _chunk({"type": kind, "index": 0, key: text}))

    textless = content_blocks(("reasoning", "tool-call", "image", "unknown"))
    return {
        "answer": st.lists(_text_blocks(), min_size=1, max_size=3).map(_message),
        "usage-only": usages().map(lambda usage: _message([], usage=usage)),
        "text-delta": delta("text-delta"),
        "textless": st.lists(textless, min_size=1, max_size=2).map(_message),
        "interrupted": st.lists(content_blocks(("text", "reasoning")), min_size=1, max_size=2).map(
            lambda blocks: _message(blocks, interrupted=True)),
        "interrupted-empty": st.builds(lambda: _message([], interrupted=True)),
        "undecodable": st.lists(content_blocks(("unknown", "text")), min_size=1, max_size=2).map(
            lambda blocks: _message(blocks, extra={"providerMessageId": "resp_9"})),
        "reasoning-delta": delta("reasoning-delta"),
        "tool-call-delta": delta("tool-call-delta", "argumentsDelta").map(
            lambda event: {**event, "data": {**event["data"],
                                             "chunk": {**event["data"]["chunk"], "id": "call_1"}}}),
        "tool-result": st.lists(_text_blocks(), min_size=1, max_size=2).map(lambda blocks: (
            _tool_result({"type": "tool-result", "toolCallId": "call_1", "content": blocks}))),
        "unknown-event": _unknown_event_drafts(),
        "unknown-chunk": delta("x-vendor-delta"),  # an unknown chunk type that carries text
    }


#: Kinds that compete to be the output (§3.1, §3.2): messages of every sort and streamed text,
#: with the most of each a log holds.
_COMPETING: tuple[tuple[str, int], ...] = (
    ("answer", 2), ("text-delta", 3), ("usage-only", 2), ("textless", 2), ("interrupted", 2),
    ("undecodable", 1),
)
#: Kinds met when no message has content (§3.3, §3.4): what the fallback must and must not count.
_FALLBACK: tuple[tuple[str, int], ...] = (
    ("text-delta", 3), ("reasoning-delta", 2), ("tool-call-delta", 2), ("tool-result", 2),
    ("usage-only", 2), ("interrupted-empty", 1), ("unknown-event", 2), ("unknown-chunk", 1),
)


@cache
def _keyed(kind: str, most: int) -> st.SearchStrategy[list[tuple[int, Event]]]:
    return st.lists(st.tuples(st.integers(0, 7), _essential_events()[kind]), max_size=most)


def _mixture(draw: st.DrawFn, family: tuple[tuple[str, int], ...]) -> list[Event]:
    """A few events of each kind of ``family``, in any order.

    Most kinds are present in most logs, so one log meets many rules at once (a fallback log
    with reasoning deltas *and* tool results *and* unknown events). Each event carries its own
    sort key, so a failure shrinks by deleting events (down to the two or three it needs) and
    the rest keep their order; keys shrink to 0, the order of ``family``.
    """
    keyed = [pair for kind, most in family for pair in draw(_keyed(kind, most))]
    keyed.sort(key=lambda pair: pair[0])
    return [event for _, event in keyed]


@st.composite
def _competing_outputs(draw: st.DrawFn) -> list[Event]:
    """Messages (answers, usage-only, textless, interrupted) among streamed text (§3.1-3.3)."""
    return _mixture(draw, _COMPETING)


@st.composite
def _fallback_material(draw: st.DrawFn) -> list[Event]:
    """What surrounds streamed text when no message has content (§3.3, §3.4)."""
    return _mixture(draw, _FALLBACK)


@st.composite
def _noise(draw: st.DrawFn) -> list[Event]:
    """Any session events in any order: turn and step framing, user messages, all of it."""
    return draw(_some(_event_drafts(), 0, 6))


@st.composite
def _text_then_empty_message(draw: st.DrawFn) -> list[Event]:
    """The seed's run: text, then a max-tokens step whose tool calls were dropped (§3.2).

    The tool-call-only step leaves an empty usage-only message, last or nearly so.
    """
    answer = _maybe_step(draw, _kinds("text", "reasoning", "tool-call"),
                         ("message", "stream-only", "interrupted"))
    truncated = _maybe_step(draw, _kinds("tool-call"), ("empty-message",))
    more_empty = [_message([], usage=draw(usages())) for _ in range(draw(integers(0, 1)))]
    kind = draw(sampled((None, "max-tokens", "completed", "aborted")))
    return _turn(draw, [answer, truncated, more_empty], kind) + draw(_trailing())


@st.composite
def _only_chunks(draw: st.DrawFn) -> list[Event]:
    """A cancelled child that never finished a message: chunks only, cut mid-block (§3.3)."""
    steps = [
        _step_of(draw, _kinds("text", "reasoning", "tool-call", max_size=3), ("cut", "stream-only"))
        for _ in range(draw(integers(0, 2)))
    ]
    kind = draw(sampled((None, "aborted", "interrupted", "error")))
    return _turn(draw, steps, kind) + draw(_trailing())


@st.composite
def _textless_message_then_text(draw: st.DrawFn) -> list[Event]:
    """A reasoning-only (or tool-call-only) message, then streamed text: the message wins (§3.1)."""
    message = _maybe_step(draw, _kinds("reasoning", "tool-call"), ("message", "interrupted"))
    if draw(BOOLEANS):
        blocks = draw(_some(content_blocks(("image", "unknown", "reasoning")), 1, 2))
        message.append(_message(blocks))
    text = _maybe_step(draw, _kinds("text", "reasoning"), ("cut", "stream-only", "empty-message"))
    return _turn(draw, [message, text], draw(sampled((None, "aborted", "completed"))))


@st.composite
def _message_then_cut_stream(draw: st.DrawFn) -> list[Event]:
    """A complete message, then a later step cancelled while streaming (§3.1, §5.2)."""
    first = _maybe_step(draw, _kinds("text", "reasoning"), ("message",))
    later = _maybe_step(draw, _kinds("text", "reasoning"), ("cut", "interrupted", "stream-only"))
    kind = draw(sampled((None, "aborted", "interrupted")))
    return _turn(draw, [first, later], kind) + draw(_trailing())


@st.composite
def _empty_messages_and_text(draw: st.DrawFn) -> list[Event]:
    """Streamed text among empty messages only: the text is the output (§3.2, §3.3)."""
    return draw(_text_among_empty_messages())


@cache
def _text_among_empty_messages() -> st.SearchStrategy[list[Event]]:
    return st.lists(st.one_of(
        text_pieces().map(lambda text: _chunk({"type": "text-delta", "index": 0, "text": text})),
        usages().map(lambda usage: _message([], usage=usage)),
        text_pieces().map(lambda text: _chunk(
            {"type": "reasoning-delta", "index": 1, "text": text})),
        st.just(_message([], interrupted=True)),
    ), max_size=6)


@st.composite
def _tool_round_trip(draw: st.DrawFn) -> list[Event]:
    """Tool calls and their results, then text: tool results never contribute (§3.4).

    The calls may never be messaged (a cut step) or end in the usage-only message, so tool
    results also meet the streamed-text fallback.
    """
    calls = _maybe_step(draw, _kinds("tool-call", "text"),
                        ("stream-only", "message", "empty-message", "cut"))
    results = [
        _tool_result({**result, "content": texts})
        for result, texts in draw(_some(_pair(_tool_result_blocks(), _some(_text_blocks(), 1, 2)),
                                        0, 2))
    ]
    after = _maybe_step(draw, _kinds("text", "reasoning"),
                        ("stream-only", "cut", "message", "empty-message"))
    return _turn(draw, [calls, results, after], draw(sampled((None, *REASON_KINDS))))


@st.composite
def _answer_with_many_blocks(draw: st.DrawFn) -> list[Event]:
    """A final answer of several blocks: text, reasoning, tool calls, images, text again.

    Its text blocks are joined with nothing in the delegation tool's text (§5.5); its other
    blocks are left out of it.
    """
    text = _text_blocks()
    others = content_blocks(("reasoning", "image", "tool-call", "unknown"))
    blocks = draw(_some(_either(text, others), 1, 2))
    blocks = [draw(text), *blocks, draw(text)] if _likely(draw) else blocks
    answer = [_message(blocks, usage=draw(_maybe(usages())))]
    later = _maybe_step(draw, _kinds("text", "tool-call"), ("cut", "empty-message", "interrupted"))
    return _turn(draw, [answer, later], draw(sampled((None, *REASON_KINDS))))


@st.composite
def _many_turns(draw: st.DrawFn) -> list[Event]:
    """A realistic multi-turn run: user messages, several steps a turn, every reason kind."""
    events: list[Event] = []
    for number in range(draw(integers(2, 4))):
        if draw(BOOLEANS):
            events.append(_user_message(draw(_some(_text_blocks(), 1, 1))))
        steps = [
            _step_of(draw, _kinds("text", "reasoning", "tool-call"), STEP_ENDINGS)
            for _ in range(draw(integers(0, 2)))
        ]
        kind = draw(_maybe(_reason_kinds()))
        events += _turn(draw, steps, kind, number + 1)
    return events + draw(_trailing())


#: The log shapes with their weights, simplest first (a counterexample shrinks toward the first).
#: Weights favour the shapes that reach the most rule boundaries per example.
_SHAPES: tuple[tuple[st.SearchStrategy[list[Event]], int], ...] = (
    (_competing_outputs(), 4),
    (_fallback_material(), 4),
    (_noise(), 1),
    (_text_then_empty_message(), 2),
    (_only_chunks(), 1),
    (_textless_message_then_text(), 1),
    (_message_then_cut_stream(), 2),
    (_empty_messages_and_text(), 1),
    (_tool_round_trip(), 2),
    (_answer_with_many_blocks(), 1),
    (_many_turns(), 1),
)
_WEIGHTED_SHAPES = tuple(index for index, (_, weight) in enumerate(_SHAPES) for _ in range(weight))


@cache
@st.composite
def _log_drafts(draw: st.DrawFn) -> list[Event]:
    shape, _ = _SHAPES[draw(sampled(_WEIGHTED_SHAPES))]
    return draw(shape)


def session_logs() -> st.SearchStrategy[list[Event]]:
    """Whole session logs in the shapes runs take (see the module docstring), numbered."""
    return _session_logs()


@st.composite
def _session_logs(draw: st.DrawFn) -> list[Event]:
    return _numbered(draw, draw(_log_drafts()))


# -- operation inputs (selection.md §7) ------------------------------------------------------------

def _is_text_delta(event: Any) -> bool:
    return (isinstance(event, dict) and event.get("type") == "assistant/chunk"
            and isinstance(event.get("data"), dict) and isinstance(event["data"].get("chunk"), dict)
            and event["data"]["chunk"].get("type") == "text-delta")


@st.composite
def _streamed_text_logs(draw: st.DrawFn) -> dict[str, Any]:
    """Logs without a message with content but with streamed text (§3.3): the fallback's
    material with at least one non-empty text delta, anywhere."""
    drafts = draw(_fallback_material())
    text = draw(text_pieces()) or "partial answer"
    drafts.insert(draw(integers(0, len(drafts))),
                  _chunk({"type": "text-delta", "index": 0, "text": text}))
    return {"events": _numbered(draw, drafts)}


@st.composite
def _answered_logs(draw: st.DrawFn) -> dict[str, Any]:
    """Messages and streamed text competing (§3.1, §3.2) with at least one message with content,
    anywhere: the output is the content of the last one."""
    drafts = draw(_competing_outputs())
    answer = draw(_essential_events()["answer"])
    drafts.insert(draw(integers(0, len(drafts))), answer)
    return {"events": _numbered(draw, drafts)}


@st.composite
def _outputless_logs(draw: st.DrawFn) -> dict[str, Any]:
    """Logs with neither a message with content nor streamed text (§3.3): the output is null,
    whatever else the log holds."""
    drafts = [event for event in draw(_fallback_material()) if not _is_text_delta(event)]
    return {"events": _numbered(draw, drafts)}


def select_families(capabilities: Capabilities | None = None) -> tuple[Family, ...]:
    """The kinds of ``select`` input a run covers: logs of every shape, and one family aimed at
    each answer class (a message's content, streamed text, no output), so that every run meets
    all three."""
    return (
        Family("logs", 3, select_inputs(capabilities)),
        Family("message-content", 1, _answered_logs(),
               aims=("select.last-message", "select.never-empty")),
        Family("streamed-text", 1, _streamed_text_logs(),
               aims=("select.text-fallback", "select.never-empty")),
        Family("no-output", 1, _outputless_logs(),
               aims=("select.text-fallback", "select.never-empty")),
    )


def select_inputs(capabilities: Capabilities | None = None) -> st.SearchStrategy[dict[str, Any]]:
    """Inputs of the ``select`` operation: ``{"events": <log>}``."""
    return st.fixed_dictionaries({"events": session_logs()})


@st.composite
def _pushes(draw: st.DrawFn) -> list[dict[str, Any]]:
    # Three transports (selection.md §4): session events only, raw text only (push_text), and a
    # mix where some text arrives as raw text and extra pieces (incl. "") are pushed in between.
    transport = draw(sampled(("events", "text", "mixed")))
    if transport == "text":
        return [{"text": piece} for piece in draw(_some(text_pieces(), 0, 6))]
    events = draw(session_logs())
    if transport == "events":
        return [{"event": event} for event in events]
    pushes: list[dict[str, Any]] = []
    for event in events:
        if _is_text_delta(event) and draw(BOOLEANS):
            pushes.append({"text": event["data"]["chunk"]["text"]})
        else:
            pushes.append({"event": event})
        if draw(BOOLEANS):
            pushes.append({"text": draw(text_pieces())})
    return pushes


def fold_inputs(capabilities: Capabilities | None = None) -> st.SearchStrategy[dict[str, Any]]:
    """Inputs of the ``fold`` operation: ``{"pushes": [{"event": …} | {"text": …}]}``."""
    return st.fixed_dictionaries({"pushes": _pushes()})


# -- settle inputs (selection.md §5, §7) -----------------------------------------------------------
# The settle families: each generates the logs one wrong reading of §5 gets wrong, in both modes.

#: Kinds a turn that ends before its first step may have: rejected (blocked), cancelled (aborted),
#: failed (error), rewritten away (completed), closed on reload (interrupted) or not known yet.
_UNSTEPPED_ENDS: tuple[str, ...] = (
    "blocked", "completed", "aborted", "error", "blocked", "completed", "aborted", "error",
    "interrupted", "paused",
)
#: Kinds a stepped turn ends with, the ones whose mappings differ between the paths first.
#: Kinds a claimed turn ends with before its first step: rejected first of all (§5.1).
_CLAIMED_ENDS: tuple[str, ...] = (
    "blocked", "completed", "blocked", "aborted", "error", "completed", "blocked", "interrupted",
    "paused",
)
_STEPPED_ENDS: tuple[str, ...] = (
    "completed", "max-tokens", "aborted", "error", "interrupted", "blocked", "completed",
    "max-tokens", "interrupted", "error", "aborted", "completed", "paused", "Completed",
)
_DIAGNOSTICS = ("exit code 137", "context window exceeded\nafter 3 retries", "\ud800 😀")


_KEEP = st.sampled_from((False, *[True] * 15))  # shrinks to False: the event goes


@cache
def _diagnostics() -> st.SearchStrategy[str | None]:
    # Absent, empty (its line is still shown, §5.6) and non-empty, each about a third of the time.
    return st.one_of(st.none(), st.just(""),
                     st.one_of(st.sampled_from(_DIAGNOSTICS), text_pieces()))


#: The mode of a request: absent (one-shot), continuable, or an explicit one-shot.
_MODES = st.sampled_from((None, "continuable", "one-shot", "continuable"))
#: The same, for families whose logs matter most on the continuable path.
_MOSTLY_CONTINUABLE = st.sampled_from((None, "continuable", "continuable", "continuable"))
#: A one-shot run is cancelled a third of the time: its mapping is read without the override.
_CANCELLED = st.sampled_from((False, True, False))


def _request(draw: st.DrawFn, drafts: list[Event], *, thinned: bool = True,
             modes: st.SearchStrategy[str | None] = _MODES,
             far_turns: bool = False) -> dict[str, Any]:
    """A settle request over ``drafts``: one-shot (``mode`` absent or explicit) or continuable.

    When ``thinned``, each event is kept unless its own draw says no: rarely while generating (an
    event gone now and then is one more irregular log), and event by event while shrinking, so
    a counterexample sheds the scaffolding its family built around the events that matter.
    """
    if thinned:
        drafts = [event for event in drafts if draw(_KEEP)]
    events = _numbered(draw, drafts, far_turns=far_turns)
    mode = draw(modes)
    # Drawn on both paths, so that the shrinker can move a counterexample from one path to the
    # other without the draws after it changing meaning.
    cancelled = draw(_CANCELLED)
    diagnostic = draw(_diagnostics())
    if mode == "continuable":
        return {"events": events, "mode": "continuable"}
    request: dict[str, Any] = {"events": events}
    if mode is not None:
        request["mode"] = mode
    request["cancelled"] = cancelled
    if diagnostic is not None:
        request["diagnostic"] = diagnostic
    return request


@cache
def _answers() -> st.SearchStrategy[list[Block]]:
    """The content of a step's message: an answer, textless blocks, or the usage-only []."""
    return st.one_of(
        st.lists(_text_blocks(), min_size=1, max_size=2),
        st.just([]),
        st.lists(content_blocks(("reasoning", "tool-call", "unknown", "text")), min_size=1,
                 max_size=2),
    )


def _model_step(draw: st.DrawFn, turn: int, step: int) -> list[Event]:
    """One model step of ``turn``: step/start, maybe streamed text, maybe a message, step/end.

    The step/start is what makes its turn account for work (§5.1); what follows it may be cut
    anywhere.
    """
    events = [_step_start(turn, step)]
    if draw(BOOLEANS):
        events.append(_in_turn(_chunk({"type": "text-delta", "index": 0,
                                       "text": draw(text_pieces())}), turn, step))
    if _likely(draw):
        events.append(_in_turn(_message(draw(_answers()), usage=draw(_maybe(usages())),
                                        interrupted=not _likely(draw)), turn, step))
    if _likely(draw):
        events.append(_step_end(turn, step))
    return events


def _unstepped_turn(draw: st.DrawFn, turn: int, kinds: Sequence[str] = _UNSTEPPED_ENDS,
                    claim: bool | None = None) -> list[Event]:
    """A turn that opens and closes before any step: claimed or not (§5.1)."""
    claimed = draw(BOOLEANS) if claim is None else claim
    return [_turn_start(turn), *([_claim()] if claimed else []),
            _turn_end(turn, draw(sampled(kinds)))]


def _stepped_turn(draw: st.DrawFn, turn: int, kind: str | None = None) -> list[Event]:
    """A turn that claims its input (usually), runs 1-2 steps and ends with ``kind``."""
    events = [_turn_start(turn)]
    if _likely(draw):
        events.append(_claim())
    for step in range(draw(integers(1, 2))):
        events += _model_step(draw, turn, step)
        if not _likely(draw):
            events.append(_claim("next-step"))  # a steering message claimed at a step boundary
    events.append(_turn_end(turn, kind or draw(sampled(_STEPPED_ENDS))))
    return events


@st.composite
def _irregular_turns(draw: st.DrawFn) -> dict[str, Any]:
    """Turn, step and inbox events in any order over turns 1 and 2: repeated turn numbers,
    turn/end without turn/start, step/start outside the open turn, splices outside any turn
    (§5.1). Short, so that a counterexample is the two or three events that matter."""
    return _request(draw, draw(_some(_irregular_events(), 0, 6)), thinned=False)


@st.composite
def _far_irregular_turns(draw: st.DrawFn) -> dict[str, Any]:
    """Two turns numbered beyond 2^53 - 1, where turns 1 and 2 are one double (selection.md §1:
    numbers compare exactly, so they are two turns): one steps and is left open, the other ends,
    maybe claimed, among irregular events. Whether the end accounts for work depends on the two
    turns being told apart (§5.1)."""
    first, second = draw(sampled(((1, 2), (2, 1))))
    core = [_turn_start(first), _step_start(first)]
    if draw(BOOLEANS):
        core.append(_in_turn(_message([{"type": "text", "text": "draft"}]), first))
    core.append(_turn_start(second))
    if draw(BOOLEANS):
        core.append(_claim())
    core.append(_turn_end(second, draw(_reason_kinds())))
    for event in draw(_some(_irregular_events(), 0, 2)):
        core.insert(draw(integers(0, len(core))), event)
    return _request(draw, core, thinned=False, far_turns=True)


@cache
def _irregular_events() -> st.SearchStrategy[Event]:
    turns = st.sampled_from((1, 2))
    return st.one_of(
        st.builds(_step_start, turns),
        st.builds(_turn_end, turns, _reason_kinds()),
        st.just(_claim()),
        st.builds(_turn_start, turns),
        st.booleans().map(_cancellation),
        st.builds(_insertion),
        st.lists(_text_blocks(), min_size=1, max_size=1).map(lambda blocks: _in_turn(
            _message(blocks), 1)),
    )


@st.composite
def _stepped_then_unstepped(draw: st.DrawFn) -> dict[str, Any]:
    """A stepped turn, then balanced turns that never reach a step (§5.1): the later turn/end
    events account for work only when claimed and not completed."""
    first = draw(integers(1, 2))
    events = [_insertion()] if draw(BOOLEANS) else []
    events += _stepped_turn(draw, first)
    for turn in range(first + 1, first + 1 + draw(integers(1, 2))):
        if draw(BOOLEANS):
            events.append(_insertion())
        events += _unstepped_turn(draw, turn)
    if not _likely(draw):
        events.append(_cancellation(draw(BOOLEANS)))
    return _request(draw, events)


@st.composite
def _claimed_unstepped(draw: st.DrawFn) -> dict[str, Any]:
    """Turns that claim their input and end before the first step: rejected (blocked), cancelled,
    failed or rewritten away (completed), maybe after a stepped turn (§5.1)."""
    events = _stepped_turn(draw, 1) if draw(BOOLEANS) else []
    for _ in range(draw(integers(1, 2))):
        turn = draw(integers(1, 3))  # may repeat an earlier turn's number
        events += _unstepped_turn(draw, turn, _CLAIMED_ENDS, claim=True)
    return _request(draw, events)


@st.composite
def _cancelled_work(draw: st.DrawFn) -> dict[str, Any]:
    """A run with inbox cancellations at any point: before its first turn, between turns, after
    the end; with a replacement or none (§5.1 settle.dropped-unrun); and claims at any point,
    inside a turn or outside all."""
    turns: list[list[Event]] = []
    for turn in range(1, 1 + draw(integers(1, 2))):
        # Dropped work is read only after a clean end or none (§5.3): mostly completed turns.
        kind = draw(sampled(("completed", "completed", None)))
        turns.append(_stepped_turn(draw, turn, kind) if _likely(draw)
                     else _unstepped_turn(draw, turn))
    for _ in range(draw(integers(1, 2))):
        at = draw(sampled(range(len(turns) + 1)))  # before a turn, or after the last
        splice = draw(sampled(("cancel", "replace", "cancel", "claim")))
        turns.insert(at, [_claim() if splice == "claim" else _cancellation(splice == "replace")])
    if not _likely(draw):
        inside = draw(sampled(range(len(turns))))  # a cancellation inside a turn
        turns[inside] = [*turns[inside][:1], _cancellation(), *turns[inside][1:]]
    events = [event for part in turns for event in part]
    if draw(BOOLEANS):
        events.append(_insertion())
    return _request(draw, events, modes=_MOSTLY_CONTINUABLE)


#: Ends whose reading differs between the paths (§5.3): interrupted, no end, completed with and
#: without dropped work, kinds nobody knows; and the rest, for the mappings they share.
_PATH_ENDS: tuple[str | None, ...] = (
    "interrupted", None, "completed", "interrupted", "error", "max-tokens", "paused", "blocked",
    "aborted", "completed", "interrupted", "max-tokens", None, "max-tokens", "max-tokens",
    "error", "blocked",
)


@st.composite
def _path_differences(draw: st.DrawFn) -> dict[str, Any]:
    """One stepped turn ending where the two paths part (§5.2, §5.3), maybe with no turn/end,
    maybe followed by a cancellation: the same kinds of log on both paths."""
    kind = draw(sampled(_PATH_ENDS))
    events = _stepped_turn(draw, 1, kind or "completed")
    if kind is None:
        events = events[:-1]  # torn down before the loop recorded its end
    if not _likely(draw):
        events.append(_cancellation(draw(BOOLEANS)))
    return _request(draw, events)


def _agent_loop_run(draw: st.DrawFn) -> list[Event]:
    """A run as the agent loop writes it, cut at any point and maybe cancelled afterwards."""
    events = [_insertion()]
    for turn in range(1, 1 + draw(integers(1, 3))):
        if not _likely(draw):
            events.append(_cancellation(draw(BOOLEANS)))
        events += (_stepped_turn(draw, turn) if _likely(draw) else
                   _unstepped_turn(draw, turn, claim=_likely(draw)))
        if draw(BOOLEANS):
            events.append(_insertion())
    if draw(BOOLEANS):
        events = events[:draw(integers(0, len(events)))]  # torn down mid-run
    ending = draw(sampled((None, None, "cancel", "replace")))
    if ending is not None:
        events.append(_cancellation(ending == "replace"))
    return events


@st.composite
def _agent_loop_runs(draw: st.DrawFn) -> dict[str, Any]:
    """Runs as the agent loop writes them (§2, §5.1), cut and cancelled anywhere."""
    return _request(draw, _agent_loop_run(draw))


#: How an output-heavy log ends: its own turn/end events, one stepped accounting end of a kind,
#: or none at all.
_OUTPUT_ENDS: tuple[str | None, ...] = (
    "as-logged", "completed", "completed", "max-tokens", "blocked", "aborted", "error",
    "interrupted", None, "paused", "completed", "max-tokens", "max-tokens",
)


@st.composite
def _outputs(draw: st.DrawFn) -> dict[str, Any]:
    """The selection's log shapes (§3) as runs that end every way (§5.4-§5.6)."""
    drafts = draw(_log_drafts())
    end = draw(sampled(_OUTPUT_ENDS))
    if end != "as-logged":
        drafts = [e for e in drafts if e["type"] != "turn/end"]
        if end is not None:
            # A step/start of turn 1 makes the end account for work, wherever it sits.
            drafts = [_step_start(1), *drafts, _turn_end(1, end)]
    return _request(draw, drafts)


#: The rules each settle family is built to reach (every family reaches the catch-all
#: ``settle.agrees``; tests/unit/test_where.py holds every rule to at least one family).
SETTLE_FAMILY_AIMS: dict[str, tuple[str, ...]] = {
    "irregular-turns": ("settle.accounting-turn", "settle.dropped-unrun",
                        "settle.one-shot-reason", "settle.continuable-reason"),
    "far-turns": ("settle.accounting-turn", "settle.dropped-unrun"),
    "stepped-then-unstepped": ("settle.accounting-turn", "settle.one-shot-reason",
                               "settle.continuable-reason"),
    "claimed-unstepped": ("settle.accounting-turn", "settle.one-shot-reason",
                          "settle.continuable-reason", "settle.cancelled"),
    "cancelled-work": ("settle.dropped-unrun", "settle.continuable-reason", "settle.cancelled"),
    "path-differences": ("settle.one-shot-reason", "settle.continuable-reason",
                         "settle.cancelled", "settle.tool-result"),
    "agent-loop-runs": (),
    "outputs": ("settle.output", "settle.last-assistant", "settle.tool-result",
                "settle.one-shot-reason", "settle.cancelled"),
}


#: The end kinds (None: no end) that settle to each stop reason on each path (§5.2, §5.3).
#: "paused" is a kind this version does not know; "aborted" one-shot also comes from the
#: cancelled flag, and continuable from work dropped after a clean end.
SETTLE_CLASS_ENDS: dict[tuple[str, str], tuple[str | None, ...]] = {
    ("one-shot", "completed"): ("completed",),
    ("one-shot", "max-tokens"): ("max-tokens",),
    ("one-shot", "aborted"): ("aborted", "cancelled"),
    ("one-shot", "refusal"): ("blocked",),
    ("one-shot", "error"): ("error", "interrupted", None, "paused"),
    ("continuable", "completed"): ("completed", None),
    ("continuable", "max-tokens"): ("max-tokens",),
    ("continuable", "aborted"): ("aborted", "interrupted", "dropped"),
    ("continuable", "refusal"): ("blocked",),
    ("continuable", "error"): ("error", "paused"),
}
_OUTPUT_EVENTS = frozenset({"assistant/message", "assistant/chunk"})


def _settled_as(path: str, reason: str, output: bool, diagnostic: bool
                ) -> st.SearchStrategy[dict[str, Any]]:
    """Settle requests whose answer is ``reason`` on ``path``, with or without output (and, one
    shot, with or without a diagnostic), by construction: one stepped turn ending with a kind
    that maps to ``reason``, maybe after other turns that end before a step."""

    @st.composite
    def requests(draw: st.DrawFn) -> dict[str, Any]:
        how = draw(sampled(SETTLE_CLASS_ENDS[path, reason]))
        kind = {"cancelled": draw(sampled(("error", "max-tokens", "blocked", None))),
                "dropped": "completed"}.get(how, how) if how is not None else None
        # Every part but the step and the end shrinks away: a counterexample is the two or three
        # events that matter.
        before = [event for turn in range(1, 1 + draw(integers(0, 1)))
                  for event in _unstepped_turn(draw, turn, claim=False)]
        turn = len(before) // 2 + 1
        events = [_turn_start(turn)] if draw(BOOLEANS) else []
        events.append(_step_start(turn))
        if draw(BOOLEANS):
            events.append(_in_turn(_chunk({"type": "text-delta", "index": 0,
                                           "text": draw(text_pieces())}), turn, 0))
        if output:
            block = {"type": "text", "text": draw(text_pieces()) or "done"}
            events.append(_in_turn(_message([block]), turn, 0))
        else:
            events = [event for event in events if event["type"] not in _OUTPUT_EVENTS]
        if draw(BOOLEANS):
            events.append(_step_end(turn))
        if kind is not None:
            events.append(_turn_end(turn, kind))
        if how == "dropped":
            events.append(_cancellation(False))
        elif path == "continuable" and draw(BOOLEANS):
            events.append(_insertion())
        request: dict[str, Any] = {"events": _numbered(draw, before + events)}
        if path == "continuable":
            request["mode"] = "continuable"
            return request
        if draw(BOOLEANS):
            request["mode"] = "one-shot"
        # Cancelled only where the flag gives the reason: aborted, or completed (which it
        # leaves completed).
        request["cancelled"] = how == "cancelled" or (reason == "completed" and draw(BOOLEANS))
        if diagnostic:
            request["diagnostic"] = draw(st.one_of(st.just(""), text_pieces()))
        return request

    return requests()


def _settle_class_families() -> tuple[Family, ...]:
    """One family per stop reason on each path (selection.md §5.2, §5.3): every run meets every
    one, alternately with and without output and diagnostic, so that each of those classes is
    met on both paths too."""
    families = []
    for i, (path, reason) in enumerate(SETTLE_CLASS_ENDS):
        output, diagnostic = i % 2 == 0, i % 4 < 2
        families.append(Family(f"settles-{path}-{reason}", 1,
                               _settled_as(path, reason, output, diagnostic),
                               aims=SETTLE_CLASS_AIMS))
    return tuple(families)


#: The rules the answer-class families aim at.
SETTLE_CLASS_AIMS = ("settle.one-shot-reason", "settle.cancelled", "settle.continuable-reason",
                     "settle.output", "settle.last-assistant", "settle.tool-result")


def settle_families(capabilities: Capabilities | None = None) -> tuple[Family, ...]:
    """The kinds of ``settle`` input a run covers, simplest first, and their shares; then one
    family per answer class (:func:`_settle_class_families`)."""
    strategies: tuple[tuple[str, int, st.SearchStrategy[dict[str, Any]]], ...] = (
        ("irregular-turns", 2, _irregular_turns()),
        ("stepped-then-unstepped", 2, _stepped_then_unstepped()),
        ("claimed-unstepped", 2, _claimed_unstepped()),
        ("cancelled-work", 2, _cancelled_work()),
        ("path-differences", 2, _path_differences()),
        ("agent-loop-runs", 1, _agent_loop_runs()),
        ("outputs", 2, _outputs()),
        # After the simpler families: a counterexample is shrunk in the first family showing it.
        ("far-turns", 2, _far_irregular_turns()),
    )
    return tuple(Family(name, weight, strategy, SETTLE_FAMILY_AIMS[name])
                 for name, weight, strategy in strategies) + _settle_class_families()


def settle_inputs(capabilities: Capabilities | None = None) -> st.SearchStrategy[dict[str, Any]]:
    """Inputs of the ``settle`` operation, drawn from every family of :func:`settle_families`:
    a log and ``mode``; for a one-shot run ``cancelled`` and maybe a ``diagnostic``."""
    return st.one_of([family.strategy for family in settle_families(capabilities)])


# -- observations for hypothesis.target ------------------------------------------------------------

def _data(event: Any) -> Mapping[str, Any]:
    data = event.get("data") if isinstance(event, Mapping) else None
    return data if isinstance(data, Mapping) else {}


def _content_length(event: Any) -> int | None:
    """The content length of an assistant/message, or None for any other event."""
    if not isinstance(event, Mapping) or event.get("type") != "assistant/message":
        return None
    message = _data(event).get("message")
    content = message.get("content") if isinstance(message, Mapping) else None
    return len(content) if isinstance(content, list) else None


def _chunk_type(event: Any) -> str | None:
    if not isinstance(event, Mapping) or event.get("type") != "assistant/chunk":
        return None
    chunk = _data(event).get("chunk")
    kind = chunk.get("type") if isinstance(chunk, Mapping) else None
    return kind if isinstance(kind, str) else None


#: Observations saturate here: two empty messages after the last non-empty one already make the
#: boundary case, and a bounded score lets Hypothesis stop hill-climbing and keep generating
#: diverse logs instead of ever longer ones.
TARGET_CAP = 2.0


def _capped(count: int) -> float:
    return min(float(count), TARGET_CAP)


def log_observations(events: Sequence[Any]) -> dict[str, float]:
    """What steers a log toward the selection's boundaries (selection.md §3).

    Empty messages and streamed text *after* the last non-empty message are where a wrong rule
    picks the wrong output (both are 0 when no message has content); non-text deltas with no
    non-empty message are where a wrong fallback counts what it must not.
    """
    last = max((i for i, e in enumerate(events) if (_content_length(e) or 0) > 0), default=-1)
    after = events[last + 1:] if last >= 0 else []
    return {
        "empty messages after the last non-empty one": _capped(
            sum(1 for e in after if _content_length(e) == 0)),
        "text deltas after the last non-empty message": _capped(
            sum(1 for e in after if _chunk_type(e) == "text-delta")),
        "non-text deltas without a non-empty message": _capped(
            sum(1 for e in events if _chunk_type(e) in ("reasoning-delta", "tool-call-delta"))
            if last < 0 else 0),
    }


def observe_select(op_input: Any) -> dict[str, float]:
    events = op_input.get("events") if isinstance(op_input, Mapping) else None
    return log_observations(events if isinstance(events, list) else [])


def observe_fold(op_input: Any) -> dict[str, float]:
    pushes = op_input.get("pushes") if isinstance(op_input, Mapping) else None
    pushes = pushes if isinstance(pushes, list) else []
    events = [
        _chunk({"type": "text-delta", "index": 0, "text": push["text"]}) if "text" in push
        else push.get("event")
        for push in pushes if isinstance(push, Mapping)
    ]
    observations = log_observations(events)
    observations["text pushes"] = _capped(
        sum(1 for p in pushes if isinstance(p, Mapping) and "text" in p))
    return observations


def observe_settle(op_input: Any) -> dict[str, float]:
    events = op_input.get("events") if isinstance(op_input, Mapping) else None
    events = events if isinstance(events, list) else []
    observations = log_observations(events)
    # Several turn/end events: only the last one decides the stop reason (selection.md §5.1).
    observations["turn/end events"] = _capped(
        sum(1 for e in events if isinstance(e, Mapping) and e.get("type") == "turn/end"))
    return observations
