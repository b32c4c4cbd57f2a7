"""The selection profile's strategies: head, small values, content blocks, chunks."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

from hypothesis import strategies as st

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


@cache
def failures() -> st.SearchStrategy[dict[str, Any]]:
    """The facts of a failure: message and code, and each optional member present or absent
    (an HTTP status, the provider's retry hint, a request id)."""
    return st.fixed_dictionaries(
        {"message": st.sampled_from(("stream closed", "rate limited")),
         "code": st.sampled_from(("ABORTED", "RATE_LIMIT"))},
        optional={"status": st.sampled_from((429, 500, 0)),
                  "providerRetryAfterMs": st.sampled_from((0, 1500, 2.5, 2**53 - 1)),
                  "requestId": st.just("req_01")})

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
                                   "failure": failures()}),
        )}),
        # An unknown chunk type that carries text: it never contributes (selection.md §2.3).
        st.fixed_dictionaries({"type": st.sampled_from(("text-replace", "x-vendor-delta")),
                               "index": index, "text": text_pieces()}),
    )


