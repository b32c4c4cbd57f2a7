"""The wire profile's strategies: one event of every shape the agent-event schemas allow.

:func:`every_shape` lists agent events that together meet every shape of agent-event.json and
assistant-message-event.json (wire.md §2): each optional member present in one event and absent
in another, members no schema names on every open object, every message role and block type,
arrays empty and long, ``contentIndex`` at 0, at 2^53 - 1, beyond it and as an integral double,
``maxBytes`` at its edges. An event holds one object at a time where an array does not nest
them, so it takes many events: their family draws them as a choice among them
(:func:`every_shape_inputs`), and a search of as many examples as there are shapes tries each
one once (Hypothesis never repeats an input it has tried), on every seed.
"""

from __future__ import annotations

from copy import deepcopy
from functools import cache
from typing import Any

from eventproof.reference import DEFAULT_MAX_BYTES, MIN_MAX_BYTES
from hypothesis import strategies as st

from ..._model import Capabilities
from ..._reused import Cycle
from .values import MAX_SAFE_INTEGER, Event, OpInput

#: A member no schema names, as a later version or another harness adds it.
EXTRA = "x-origin"
_TEXTS = ("Hello", "", "naïve 😀", "\ud800", "a\x00b", "\u2028")


def _block(cycle: Cycle, kind: str) -> dict[str, Any]:
    """A content block of ``kind``, with a member no schema names in every other one."""
    if kind == "text":
        block: dict[str, Any] = {"type": "text", "text": cycle.pick(_TEXTS)}
    elif kind == "thinking":
        block = {"type": "thinking", "thinking": cycle.pick(_TEXTS),
                 "thinkingSignature": "sig"}
    elif kind == "toolCall":
        block = {"type": "toolCall", "id": "toolu_01", "name": "bash",
                 "arguments": {"command": "ls", "10": [1, 2.5, None]}}
    else:
        block = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    if cycle.pick((True, False), kind):
        block[EXTRA] = kind
    return block


_KINDS = ("text", "thinking", "toolCall", "image")


def _blocks(cycle: Cycle, count: int) -> list[dict[str, Any]]:
    """``count`` blocks, their kinds in turn: every kind with and without an extra member."""
    return [_block(cycle, cycle.pick(_KINDS, "kind")) for _ in range(count)]


def _assistant(cycle: Cycle, count: int, *, usage: bool) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": _blocks(cycle, count)}
    if usage:
        message["usage"] = {"input": 12, "output": 3, "cost": {"total": 0.5}}
        message[EXTRA] = "assistant"
    return message


def _messages(cycle: Cycle) -> list[dict[str, Any]]:
    """A message of every role and shape: assistant with many blocks and with none, user with
    text, with no blocks and with many, tool results with every optional member and with
    none, a role no schema pins."""
    return [
        _assistant(cycle, 6, usage=True),
        _assistant(cycle, 0, usage=False),
        {"role": "user", "content": "run the tests", "timestamp": 1767225600000},
        {"role": "user", "content": []},
        {"role": "user", "content": _blocks(cycle, 5), EXTRA: "user"},
        _tool_result(cycle, dense=True),
        _tool_result(cycle, dense=False),
        {"role": "system", "content": "be brief", EXTRA: "role"},
    ]


def _tool_result(cycle: Cycle, *, dense: bool) -> dict[str, Any]:
    if not dense:
        return {"role": "toolResult", "toolCallId": "toolu_01", "content": []}
    return {"role": "toolResult", "toolCallId": "toolu_02", "toolName": "bash",
            "content": _blocks(cycle, 5), "isError": True, EXTRA: "result"}


def _update(event: dict[str, Any], message: dict[str, Any] | None = None,
            extra: dict[str, Any] | None = None) -> Event:
    """A ``message_update`` carrying the assistant message event ``event`` (and ``extra``
    members of its own)."""
    return {"type": "message_update",
            "message": message or {"role": "assistant", "content": [{"type": "text",
                                                                     "text": "Hi"}]},
            "assistantMessageEvent": event, **(extra or {})}


def _assistant_events(cycle: Cycle) -> list[Event]:
    """``message_update`` of every assistant message event shape (wire.md §2.4): each type's
    optional members present and absent, ``contentIndex`` at its edges (past the end of
    ``partial.content`` at 2^53 - 1: erroneous; beyond it: no line carries it, §7)."""
    partial: dict[str, Any] = {"role": "assistant", "content": [{"type": "text", "text": "Hi"},
                                                _block(cycle, "toolCall")]}
    final = _assistant(cycle, 2, usage=True)
    return [
        _update({"type": "start", "partial": partial}),
        _update({"type": "text_delta", "contentIndex": 0, "delta": "Hi", "partial": partial,
                 EXTRA: "delta"}, extra={EXTRA: "update"}),
        _update({"type": "text_end", "contentIndex": 0, "content": "Hi", "partial": partial,
                 EXTRA: "end"}),
        _update({"type": "thinking_end", "contentIndex": MAX_SAFE_INTEGER, "partial": partial}),
        _update({"type": "toolcall_end", "contentIndex": 1.0, "partial": partial,
                 "toolCall": {**partial["content"][1], EXTRA: "call"}, EXTRA: "end"}),
        _update({"type": "toolcall_end", "contentIndex": MAX_SAFE_INTEGER + 2,
                 "partial": partial}),
        _update({"type": "done", "reason": "stop", "message": final, EXTRA: "done"}),
        _update({"type": "done", "message": _assistant(cycle, 0, usage=False)}),
        _update({"type": "error", "reason": "aborted", "error": final, EXTRA: "error"}),
        _update({"type": "error", "error": _assistant(cycle, 1, usage=False)}),
        # Types that do not require them, with a block index and a snapshot all the same.
        _update({"type": "done", "reason": "stop", "message": final, "contentIndex": 0,
                 "partial": partial}),
        _update({"type": "citation_delta", "delta": "[1]", EXTRA: "later"},
                message={"role": "user", "content": "not the assistant's"}),
    ]


@cache
def every_shape() -> tuple[Event, ...]:
    """The events of the module docstring (built once; copy before changing one)."""
    cycle = Cycle()
    messages = _messages(cycle)
    results = [message for message in messages if message["role"] == "toolResult"]
    return (
        {"type": "agent_end", "messages": messages, "willRetry": True, EXTRA: "run"},
        {"type": "agent_end", "messages": []},
        {"type": "turn_end", "message": messages[0], "toolResults": results * 3, EXTRA: "turn"},
        {"type": "turn_end", "message": messages[2], "toolResults": []},
        {"type": "message_start", "message": messages[4], EXTRA: "start"},
        {"type": "message_end", "message": messages[5], EXTRA: "end"},
        {"type": "tool_execution_start", "toolCallId": "toolu_01", "toolName": "bash",
         "args": {"command": "ls", "0": None}, EXTRA: "start"},
        {"type": "tool_execution_update", "toolCallId": "toolu_01", "toolName": "bash",
         "args": {"command": "ls"}, "partialResult": {
             "content": [{"type": "text", "text": "a.py\n"}], "details": {"lines": 1}},
         EXTRA: "update"},
        {"type": "tool_execution_end", "toolCallId": "toolu_01", "toolName": "bash",
         "result": {"content": []}, "isError": False, EXTRA: "end"},
        {"type": "subagent_progress", "data": {"done": 1}, EXTRA: "vendor"},
        *_assistant_events(cycle),
    )


#: ``maxBytes`` at its edges, in turn (wire.md §5: never below the minimum, bounded only below):
#: the default, the minimum, one above it, an integral double, the largest integer a double
#: holds exactly, and beyond it.
EDGE_MAX_BYTES: tuple[int | float, ...] = (
    DEFAULT_MAX_BYTES, MIN_MAX_BYTES, MIN_MAX_BYTES + 1, float(DEFAULT_MAX_BYTES),
    MAX_SAFE_INTEGER, MAX_SAFE_INTEGER + 2,
)


def _project_inputs(variable: bool) -> tuple[OpInput, ...]:
    cycle = Cycle()
    inputs = []
    for event in every_shape():
        # Frames opted in, so that each projects (frames not opted in are another family's);
        # facts, which project either way, with and without.
        frame = event["type"] in ("message_update", "tool_execution_update")
        inputs.append({
            "event": event,
            "includeLiveEvents": frame or cycle.pick((False, True), "fact"),
            "maxBytes": cycle.pick(EDGE_MAX_BYTES) if variable else DEFAULT_MAX_BYTES})
    return tuple(inputs)


@cache
def _inputs(op: str, variable: bool) -> st.SearchStrategy[OpInput]:
    inputs = (tuple({"event": event} for event in every_shape()) if op == "classify"
              else _project_inputs(variable))
    return st.sampled_from(inputs).map(_fresh)


def _fresh(op_input: OpInput) -> OpInput:
    # The shapes are shared: each example gets its own copy.
    return deepcopy(op_input)


def every_shape_inputs(op: str, capabilities: Capabilities) -> st.SearchStrategy[OpInput]:
    """``op``'s inputs (``classify`` or ``project``) over :func:`every_shape`, one shape per
    example (``maxBytes`` at its edges when the implementation takes any). The engine sends each
    as the implementation declared it reads it (:meth:`Capabilities.reads`)."""
    return _inputs(op, capabilities.variable_max_bytes)


def shape_count() -> int:
    """How many examples a search of :func:`every_shape_inputs` needs to try every shape once."""
    return len(every_shape())
