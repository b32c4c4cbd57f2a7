"""The selection profile's strategies: built logs of the texts a delegation tool result carries
(selection.md §3.3, §5.4-5.6), asked of every operation that reads a text.

Each log holds one class of text a port reads otherwise:

- a ``block-end`` whose block disagrees with the deltas streamed before it (the fallback joins
  the deltas, §3.3, §3.4: a ``block-end`` never contributes);
- texts of white space only (not empty: the output is not ``null``, the partial-output line is
  written, §3.3, §5.6);
- texts with combining marks, a base and its mark in separate deltas (joined as given, never
  normalized: the text is the child's, code point for code point);
- text nested in other blocks (a tool result's content, a reasoning block, a block of an unknown
  type with a ``text`` member): the tool text reads only top-level ``text`` blocks (§5.6);

and every log carries a failure message where no diagnostic was given (a ``turn/end`` error and
a ``finish`` failure): the tool result's diagnostic line comes from the request only (§5.6).
``select`` and ``fold`` get each log, ``settle`` each log on both paths, completed and failed,
with no diagnostic and with an empty one.
"""

from __future__ import annotations

from typing import Any

from .events import (
    _chunk,
    _message,
    _step_end,
    _step_start,
    _turn_end,
    _turn_start,
    _with_envelope,
)
from .values import Block, Event

#: A failure message a log carries, which is never the tool result's diagnostic (§5.6).
FAILURE_MESSAGE = "rate limited by provider"
#: Text deltas of one block and, after them, the block-end block that says something else.
STREAMED = ("The answer ", "is 42.")
BLOCK_END_TEXT = "The answer is 42, and the block-end says more."
#: White space only: spaces, a tab, a line feed, a no-break space, an ideographic space.
WHITE_SPACE = " \t\n\u00a0\u3000 "
#: Bases and combining marks that NFC composes (e + U+0301 is é, n + U+0303 is ñ, Hangul jamo),
#: and one it does not (a mark alone at the start).
COMBINING = ("\u0301e\u0301", "n\u0303", "\u1100\u1161\u11a8")
#: A message whose only top-level text is "top": the rest is nested or not text.
NESTED_CONTENT: tuple[Block, ...] = (
    {"type": "tool-result", "toolCallId": "call_1",
     "content": [{"type": "text", "text": "nested in a tool result"}]},
    {"type": "text", "text": "top"},
    {"type": "reasoning", "text": "reasoning text"},
    {"type": "x-note", "text": "text of an unknown block",
     "content": [{"type": "text", "text": "deeper"}]},
)


def _deltas(pieces: tuple[str, ...]) -> list[Event]:
    return [_chunk({"type": "text-delta", "index": 0, "text": piece}) for piece in pieces]


def _streams() -> dict[str, list[Event]]:
    """What each log's step holds, between its step/start and its finish chunk."""
    block_end = _chunk({"type": "block-end", "index": 0,
                        "block": {"type": "text", "text": BLOCK_END_TEXT}})
    return {
        "block-end": [_chunk({"type": "block-start", "index": 0, "blockType": "text"}),
                      *_deltas(STREAMED), block_end],
        "white-space-message": [_message([{"type": "text", "text": WHITE_SPACE}])],
        "white-space-deltas": _deltas((WHITE_SPACE[:2], WHITE_SPACE[2:])),
        "combining-message": [_message([{"type": "text", "text": "".join(COMBINING)}])],
        # Each base in one delta and its mark in the next.
        "combining-deltas": _deltas(tuple(part for text in COMBINING
                                          for part in (text[:-1], text[-1:]))),
        "nested": [_message([dict(block) for block in NESTED_CONTENT])],
    }


#: The classes of :func:`_streams`, in order.
CLASSES = ("block-end", "white-space-message", "white-space-deltas", "combining-message",
           "combining-deltas", "nested")


def tool_text_log(name: str, kind: str) -> list[Event]:
    """The log of class ``name``: one turn whose step streams it, a ``finish`` chunk with a
    failure message, and a ``turn/end`` of ``kind`` (an ``error`` end carries its message)."""
    finish = _chunk({"type": "finish", "reason": {
        "kind": "error", "failure": {"message": FAILURE_MESSAGE, "code": "RATE_LIMIT"}}})
    drafts = [_turn_start(1), _step_start(1), *_streams()[name], finish, _step_end(1),
              _turn_end(1, kind)]
    for draft in drafts:
        if "turn" in draft["data"]:
            draft["data"]["turn"] = 1
    return [_with_envelope(draft, seq, {}) for seq, draft in enumerate(drafts)]


def tool_text_selects() -> tuple[dict[str, Any], ...]:
    """``select`` inputs: each class's log."""
    return tuple({"events": tool_text_log(name, "completed")} for name in CLASSES)


def tool_text_folds() -> tuple[dict[str, Any], ...]:
    """``fold`` inputs: each class's log, pushed as events."""
    return tuple({"pushes": [{"event": event} for event in tool_text_log(name, "completed")]}
                 for name in CLASSES)


def tool_text_settles() -> tuple[dict[str, Any], ...]:
    """``settle`` inputs: each class's log, one-shot completed and failed (no diagnostic, and
    an empty one), and continuable."""
    requests: list[dict[str, Any]] = []
    for name in CLASSES:
        requests.append({"events": tool_text_log(name, "completed"), "cancelled": False})
        requests.append({"events": tool_text_log(name, "error"), "cancelled": False})
        requests.append({"events": tool_text_log(name, "error"), "cancelled": False,
                         "diagnostic": ""})
        requests.append({"events": tool_text_log(name, "completed"), "mode": "continuable"})
    return tuple(requests)
