"""Language-neutral vectors: hand-written inputs that pin each rule, with the answers they demand.

The vectors are the suite's smoke test in a form any language can run with a JSON parser alone
(the idea of the JSON-Schema-Test-Suite). Their *sources* live here: every input and every
description is written by hand, one small builder per rule group, and the expected answers are
computed by the reference. ``spec/vectors/<group>.json`` is generated from them and shipped as
``eventproof.vectors``; ``python -m eventproof.conformance._vectors --write`` regenerates the
files (``nox -s vectors``) and ``--check`` says which are stale.

:func:`run_vectors` runs the shipped vectors against any implementation through the same adapters
as ``eventproof run``, and :func:`render` shows what disagreed.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from eventproof.reference import MARKER, InvalidInput, Reference, canonical_bytes

from ._model import DEFAULT_MAX_BYTES, FIT_STRATEGIES, Capabilities, FitStrategy, ImplErrored
from ._rules import RULES, RULES_BY_ID

if TYPE_CHECKING:
    from rich.console import Console

#: The vector file format this module writes and reads (schemas/vector-file.json).
FORMAT_VERSION = 1
#: The answer a vector demands for an input the spec calls erroneous.
ERRORED: dict[str, bool] = {"errored": True}
#: The rule groups, one vector file each, in the order the spec states them.
GROUPS: Mapping[str, str] = {
    "select": "The selection rule (spec/selection.md §3): which content a child's log produced.",
    "fold": "The incremental selection (spec/selection.md §4): collect() after every push.",
    "settle": "How a run settles (spec/selection.md §5): stop reason, result, lifecycle event "
              "and the delegation tool's result.",
    "classify": "Facts and frames (spec/wire.md §3).",
    "project": "Projection of agent events to wire lines (spec/wire.md §4).",
    "bound": "The backstop for oversized live updates (spec/wire.md §5), for both fit "
             "strategies.",
    "canon": "Canonical serialization (spec/wire.md §6): the exact bytes of a line.",
}

JSON = Any


def group_of(rule_id: str) -> str:
    """The rule group of a rule id: the part before the dot (``bound.tail`` → ``bound``)."""
    return rule_id.split(".", 1)[0]


# =================================================================================================
# Sources: what a vector is before the reference answered it
# =================================================================================================


@dataclass(frozen=True)
class VectorSource:
    """One hand-written vector: the rule it pins, a slug, a description and the input."""

    #: The id of the rule the vector pins.
    rule: str
    #: The part of the vector id after the rule: lowercase words joined by hyphens.
    slug: str
    #: What the vector checks, in words.
    description: str
    #: The operation input.
    input: JSON
    #: The fit strategies the vector is written for; one vector per strategy. Empty: the answer
    #: does not depend on the strategy (the build checks that it really does not).
    fits: tuple[FitStrategy, ...] = ()


BOTH: tuple[FitStrategy, ...] = FIT_STRATEGIES

# -- session events (spec/selection.md §2) --------------------------------------------------------

Event = tuple[str, JSON]


def _log(*events: Event) -> list[JSON]:
    """Session events with envelopes: ``seq`` counts from 0, one second apart."""
    return [
        {"type": kind, "seq": seq, "time": f"2025-01-01T00:{seq // 60:02d}:{seq % 60:02d}Z",
         "data": data}
        for seq, (kind, data) in enumerate(events)
    ]


def _text(text: str) -> JSON:
    return {"type": "text", "text": text}


def _reasoning(text: str) -> JSON:
    return {"type": "reasoning", "text": text}


def _image() -> JSON:
    return {"type": "image", "attachment": {"mediaType": "image/png", "data": "iVBORw0KGgo="}}


def _tool_call(call_id: str = "call_1", name: str = "search") -> JSON:
    return {"type": "tool-call", "id": call_id, "name": name, "arguments": {"query": "weather"}}


def _message(*blocks: JSON, usage: bool = False, interrupted: bool | None = None) -> Event:
    data: dict[str, JSON] = {"message": {"role": "assistant", "content": list(blocks)}}
    if usage:
        data["usage"] = {"inputTokens": 120, "outputTokens": 0}
    if interrupted is not None:
        data["interrupted"] = interrupted
    return ("assistant/message", data)


def _chunk(chunk: JSON) -> Event:
    return ("assistant/chunk", {"chunk": chunk})


def _delta(text: str, index: int = 0) -> Event:
    return _chunk({"type": "text-delta", "index": index, "text": text})


def _reasoning_delta(text: str, index: int = 0) -> Event:
    return _chunk({"type": "reasoning-delta", "index": index, "text": text})


def _tool_delta(index: int = 1) -> Event:
    return _chunk({"type": "tool-call-delta", "index": index, "id": "call_1", "name": "search",
                   "argumentsDelta": "{\"query\": \"wea"})


def _turn_start(turn: int = 1) -> Event:
    return ("turn/start", {"turn": turn})


def _turn_end(kind: str, turn: int = 1) -> Event:
    return ("turn/end", {"turn": turn, "reason": {"kind": kind}})


def _tool_result(text: str) -> Event:
    return ("tool/result", {"content": {"type": "tool-result", "toolCallId": "call_1",
                                        "content": [_text(text)]}})


def _user(text: str) -> Event:
    return ("user/message", {"message": {"role": "user", "content": [_text(text)]}})


def _streamed_turn(*pieces: str, kind: str = "completed") -> tuple[Event, ...]:
    """A turn that streamed ``pieces`` as text deltas and then ended with ``kind``."""
    return (
        _turn_start(),
        _chunk({"type": "block-start", "index": 0, "blockType": "text"}),
        *(_delta(piece) for piece in pieces),
        _turn_end(kind),
    )


def _select(*events: Event) -> JSON:
    return {"events": _log(*events)}


def _settle(*events: Event, cancelled: bool = False, diagnostic: str | None = None) -> JSON:
    request: dict[str, JSON] = {"events": _log(*events), "cancelled": cancelled}
    if diagnostic is not None:
        request["diagnostic"] = diagnostic
    return request


def _fold(*pushes: Event | str) -> JSON:
    """A fold input: a string is pushed as raw text, an event as an event (seq in push order)."""
    out: list[JSON] = []
    for seq, push in enumerate(pushes):
        if isinstance(push, str):
            out.append({"text": push})
        else:
            out.append({"event": _log(*[("_", None)] * seq, push)[seq]})
    return {"pushes": out}


# -- selection.md §3 ------------------------------------------------------------------------------

def _select_sources() -> Iterator[VectorSource]:
    rule = "select.never-empty"
    yield VectorSource(rule, "only-empty-message", "a log whose only message has empty content "
                       "has no output (null), never []",
                       _select(_turn_start(), _message(usage=True), _turn_end("max-tokens")))
    yield VectorSource(rule, "empty-terminal-after-text", "an empty usage-only message after "
                       "streamed text does not hide the text",
                       _select(*_streamed_turn("Half an ans", "wer", kind="max-tokens")[:-1],
                               _message(usage=True), _turn_end("max-tokens")))
    yield VectorSource(rule, "empty-after-message", "an empty message after a non-empty one "
                       "does not replace it",
                       _select(_message(_text("The answer.")), _message(usage=True)))
    yield VectorSource(rule, "empty-text-deltas", "text deltas that are all empty give null, "
                       "not a block with empty text",
                       _select(_delta(""), _delta(""), _turn_end("completed")))

    rule = "select.last-message"
    yield VectorSource(rule, "two-messages", "of two non-empty messages the last one is the "
                       "output", _select(_message(_text("first")), _message(_text("second"))))
    yield VectorSource(rule, "reasoning-only-beats-text", "a reasoning-only message beats "
                       "streamed text: content length decides, not the presence of text",
                       _select(_delta("streamed "), _delta("text"),
                               _message(_reasoning("thinking only"))))
    yield VectorSource(rule, "message-beats-later-text", "a non-empty message beats text "
                       "streamed after it", _select(_message(_text("kept")), _delta("later")))
    yield VectorSource(rule, "interrupted-counts", "an interrupted message counts like any "
                       "other", _select(_delta("par"), _message(_text("par"), interrupted=True)))
    yield VectorSource(rule, "tool-call-only", "a message holding only a tool call is non-empty "
                       "and is the output", _select(_delta("x"), _message(_tool_call())))
    yield VectorSource(rule, "verbatim-blocks", "the content is returned block for block, extra "
                       "keys and block order kept",
                       _select(_message(_reasoning("why"), _image(),
                                        {"type": "text", "text": "a", "cacheHint": {"ttl": 5}},
                                        {"type": "citation", "url": "https://example.org"})))

    rule = "select.text-fallback"
    yield VectorSource(rule, "concatenated-in-order", "without a message, every text delta is "
                       "concatenated in log order as one text block",
                       _select(_delta("Hel", 0), _delta("lo, ", 0), _delta("world", 2)))
    yield VectorSource(rule, "reasoning-deltas-never", "reasoning deltas alone give no output",
                       _select(_reasoning_delta("hmm"), _reasoning_delta("..."),
                               _turn_end("completed")))
    yield VectorSource(rule, "interleaved-noise", "tool-call deltas, tool results and reasoning "
                       "deltas between text deltas do not contribute",
                       _select(_delta("a"), _tool_delta(), _tool_result("ignored"),
                               _reasoning_delta("no"), _delta("b")))
    yield VectorSource(rule, "control-and-astral-text", "control characters, astral characters "
                       "and line separators are concatenated unchanged",
                       _select(_delta("\u0000\t"), _delta("\U0001f600\u2028"), _delta("\u007f")))

    rule = "select.agrees"
    yield VectorSource(rule, "empty-log", "an empty log has no output", _select())
    yield VectorSource(rule, "unknown-types-ignored", "unknown event and chunk types are ignored",
                       _select(("compaction/start", {"reason": "budget"}),
                               _chunk({"type": "citation-delta", "index": 0, "text": "no"}),
                               _delta("yes")))
    yield VectorSource(rule, "user-and-tool-results-never", "user messages and tool results "
                       "never contribute, even with text",
                       _select(_user("question"), _tool_result("tool text"),
                               _turn_end("completed")))
    yield VectorSource(rule, "block-end-never", "a block-end chunk's block does not contribute: "
                       "only text deltas do",
                       _select(_chunk({"type": "block-end", "index": 0,
                                       "block": _text("whole block")})))


# -- selection.md §4 ------------------------------------------------------------------------------

def _fold_sources() -> Iterator[VectorSource]:
    rule = "fold.shape"
    yield VectorSource(rule, "no-pushes", "a fold without pushes answers one collect(): null",
                       _fold())
    yield VectorSource(rule, "one-text-push", "one push answers two results: before and after",
                       _fold("hello"))
    yield VectorSource(rule, "three-pushes", "three pushes answer four results, an empty text "
                       "push included", _fold("a", "", _message(_text("b"))))

    rule = "fold.prefix"
    yield VectorSource(rule, "text-then-message", "streamed text is replaced by a later message "
                       "and survives a later empty message",
                       _fold(_delta("draft"), _message(_text("final")), _message(usage=True)))
    yield VectorSource(rule, "push-text-equals-delta", "raw text pushes and text-delta events "
                       "concatenate alike", _fold("Hel", _delta("lo"), "!"))
    yield VectorSource(rule, "empty-text-noop", "an empty text push changes nothing: the answer "
                       "stays null", _fold("", _delta(""), ""))
    yield VectorSource(rule, "reasoning-only-after-text", "a reasoning-only message replaces "
                       "streamed text at the push that brings it",
                       _fold("visible", _message(_reasoning("r")), "more"))
    yield VectorSource(rule, "unknown-and-turns", "turns and unknown events leave every prefix "
                       "unchanged", _fold(_turn_start(), ("mystery", {}), "t", _turn_end("error")))


# -- selection.md §5 ------------------------------------------------------------------------------

_ANSWER = _message(_text("The answer."))


def _settle_sources() -> Iterator[VectorSource]:
    rule = "settle.stop-reason"
    for kind, reason in (("completed", "completed"), ("max-tokens", "max-tokens"),
                         ("aborted", "aborted"), ("blocked", "refusal"), ("error", "error"),
                         ("interrupted", "error")):
        yield VectorSource(rule, f"kind-{kind}", f"a last turn/end of kind {kind} stops with "
                           f"{reason}", _settle(_turn_start(), _ANSWER, _turn_end(kind)))
    yield VectorSource(rule, "unknown-kind", "a kind nobody has seen yet stops with error",
                       _settle(_ANSWER, _turn_end("context-overflow")))
    yield VectorSource(rule, "no-turn-end", "a log without turn/end stops with error",
                       _settle(_turn_start(), _ANSWER))
    yield VectorSource(rule, "last-turn-end-wins", "only the last turn/end counts (error then "
                       "completed)", _settle(_turn_end("error", 1), _ANSWER,
                                             _turn_end("completed", 2)))
    yield VectorSource(rule, "last-turn-end-loses", "only the last turn/end counts (completed "
                       "then max-tokens)", _settle(_ANSWER, _turn_end("completed", 1),
                                                   _turn_end("max-tokens", 2)))

    rule = "settle.cancelled"
    yield VectorSource(rule, "completed-stays", "a cancelled run whose last turn completed stays "
                       "completed", _settle(_ANSWER, _turn_end("completed"), cancelled=True))
    yield VectorSource(rule, "chunks-only", "a cancelled run with streamed chunks only is "
                       "aborted and reports the partial text",
                       _settle(_turn_start(), _delta("partial "), _delta("answer"),
                               cancelled=True))
    yield VectorSource(rule, "error-becomes-aborted", "a cancelled run that ended in error is "
                       "aborted", _settle(_ANSWER, _turn_end("error"), cancelled=True))
    yield VectorSource(rule, "max-tokens-becomes-aborted", "a cancelled run that hit its token "
                       "limit is aborted",
                       _settle(_ANSWER, _turn_end("max-tokens"), cancelled=True,
                               diagnostic="parent cancelled"))
    yield VectorSource(rule, "blocked-becomes-aborted", "a cancelled run that was refused is "
                       "aborted", _settle(_turn_end("blocked"), cancelled=True))

    rule = "settle.output"
    yield VectorSource(rule, "none-is-empty-list", "without a selection result.output is []",
                       _settle(_turn_end("completed")))
    yield VectorSource(rule, "selection", "result.output is the selection, here streamed text",
                       _settle(*_streamed_turn("stream", "ed")))

    rule = "settle.last-assistant"
    yield VectorSource(rule, "absent-when-none", "end.lastAssistantMessage is absent (not []) "
                       "when there is no selection",
                       _settle(_message(usage=True), _turn_end("max-tokens")))
    yield VectorSource(rule, "present-is-selection", "end.lastAssistantMessage is the selection "
                       "of an interrupted message",
                       _settle(_message(_text("cut"), interrupted=True), _turn_end("interrupted"),
                               cancelled=True))
    yield VectorSource(rule, "absent-empty-text", "empty text deltas give no selection: the key "
                       "is absent", _settle(_delta(""), _turn_end("completed")))

    rule = "settle.tool-result"
    yield VectorSource(rule, "completed-joins-text", "a completed run's text is its text blocks "
                       "joined with nothing; reasoning and images are left out",
                       _settle(_message(_text("one "), _reasoning("hidden"), _image(),
                                        _text("two")), _turn_end("completed")))
    yield VectorSource(rule, "completed-no-output", "a completed run without output is not an "
                       "error and has empty text", _settle(_turn_end("completed")))
    yield VectorSource(rule, "error-diagnostic-partial", "an error carries the headline, the "
                       "diagnostic and the partial output, in that order",
                       _settle(_delta("so far"), _turn_end("error"), diagnostic="HTTP 500"))
    yield VectorSource(rule, "empty-diagnostic-omitted", "an empty diagnostic adds no line",
                       _settle(_ANSWER, _turn_end("error"), diagnostic=""))
    yield VectorSource(rule, "max-tokens-headline", "a run that hit its token limit has its own "
                       "headline and no partial line without text",
                       _settle(_message(_reasoning("r")), _turn_end("max-tokens")))
    yield VectorSource(rule, "refusal-headline", "a refused run has its own headline",
                       _settle(_turn_end("blocked"), diagnostic="policy"))
    yield VectorSource(rule, "aborted-headline", "a cancelled run has its own headline and the "
                       "streamed text as partial output",
                       _settle(_delta("line 1\nline 2"), cancelled=True))

    rule = "settle.agrees"
    yield VectorSource(rule, "tool-call-only-completed", "a completed run whose output is a tool "
                       "call has empty tool-result text",
                       _settle(_message(_tool_call()), _turn_end("completed")))
    yield VectorSource(rule, "noise-ignored", "unknown events, user messages and tool results "
                       "change nothing", _settle(_user("q"), ("mystery", {"x": 1}),
                                                 _tool_result("t"), _ANSWER,
                                                 _turn_end("completed")))
    yield VectorSource(rule, "empty-log", "an empty log settles as error without output",
                       _settle())


# -- wire.md: agent events ------------------------------------------------------------------------

def _assistant(*blocks: JSON, usage: bool = True) -> JSON:
    message: dict[str, JSON] = {"role": "assistant", "content": list(blocks)}
    if usage:
        message["usage"] = {"input": 12, "output": 3, "totalTokens": 15}
    return message


def _wire_text(text: str) -> JSON:
    return {"type": "text", "text": text}


def _wire_call(call_id: str = "toolu_01", name: str = "bash") -> JSON:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": {"command": "ls"}}


def _tool_result_message(call_id: str) -> JSON:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": "bash",
            "content": [_wire_text("ok")], "isError": False}


def _message_update(event_type: str, *, message: JSON | None = None, content_index: int = 0,
                    delta: str | None = None, partial: JSON | None = None,
                    **extra: JSON) -> JSON:
    partial = partial if partial is not None else _assistant(_wire_text("Hel"), usage=False)
    ame: dict[str, JSON] = {"type": event_type, "contentIndex": content_index}
    if delta is not None:
        ame["delta"] = delta
    ame.update(extra)
    ame["partial"] = partial
    return {"type": "message_update", "message": message or _assistant(_wire_text("Hel")),
            "assistantMessageEvent": ame}


def _update(text: JSON, *, call_id: str = "toolu_01", name: str = "bash",
            args: JSON | None = None, details: JSON | None = None) -> JSON:
    """A tool_execution_update whose partialResult carries ``text`` (a string: the usual form)."""
    partial: JSON
    if isinstance(text, str):
        partial = {"content": [{"type": "text", "text": text}],
                   "details": details if details is not None else {"exitCode": None}}
    else:
        partial = text
    return {"type": "tool_execution_update", "toolCallId": call_id, "toolName": name,
            "args": args if args is not None else {"command": "cat big.log"},
            "partialResult": partial}


def _project(event: JSON, *, live: bool = True, max_bytes: int = DEFAULT_MAX_BYTES) -> JSON:
    return {"event": event, "includeLiveEvents": live, "maxBytes": max_bytes}


def _line_size(value: JSON) -> int:
    return len(canonical_bytes(value))


def _update_of_size(size: int, *, unit: str = "x") -> JSON:
    """A tool_execution_update whose unbounded line is exactly ``size`` bytes (wire.md §6.5)."""
    base = _update("")
    overhead = _line_size(base)
    cost = _line_size(unit) - 2  # the unit's cost inside a JSON string, quotes excluded
    count, rest = divmod(size - overhead, cost)
    text = unit * count + "y" * rest
    event = _update(text)
    assert _line_size(event) == size, (size, _line_size(event))
    return event


def _exact_fit_text(max_bytes: int) -> str:
    """ASCII text whose bounded line, with a tail of half its length, is exactly ``max_bytes``.

    With N = 2k + 1 code points, halving tries N (too long) and then k, whose line is exactly
    ``max_bytes``: it fits (``<=``, wire.md §5.5), and it is also the largest tail that fits.
    """
    empty = {"type": "tool_execution_update", "toolCallId": "toolu_01", "toolName": "bash",
             "partialResult": {"content": [{"type": "text", "text": MARKER}]}}
    k = max_bytes - _line_size(empty)
    return "x" * (2 * k + 1)


# -- wire.md §3 -----------------------------------------------------------------------------------

def _classify_sources() -> Iterator[VectorSource]:
    rule = "classify.kind"
    frames = {
        "message-update": _message_update("text_delta", delta="lo"),
        "tool-execution-update": _update("progress"),
    }
    for slug, event in frames.items():
        yield VectorSource(rule, f"frame-{slug}", f"{event['type']} is a frame",
                           {"event": event})
    facts: dict[str, JSON] = {
        "agent-start": {"type": "agent_start"},
        "agent-end": {"type": "agent_end", "messages": []},
        "turn-start": {"type": "turn_start"},
        "turn-end": {"type": "turn_end", "message": _assistant(), "toolResults": []},
        "message-start": {"type": "message_start", "message": _assistant()},
        "message-end": {"type": "message_end", "message": _assistant(_wire_text("x"))},
        "tool-execution-start": {"type": "tool_execution_start", "toolCallId": "toolu_01",
                                 "toolName": "bash", "args": {}},
        "tool-execution-end": {"type": "tool_execution_end", "toolCallId": "toolu_01",
                               "toolName": "bash", "result": {"content": []}, "isError": False},
        "unknown-type": {"type": "auto_compaction_start", "reason": "threshold"},
        "near-miss-case": {"type": "Message_Update"},
        "near-miss-suffix": {"type": "tool_execution_update_v2", "partialResult": "x"},
    }
    for slug, event in facts.items():
        yield VectorSource(rule, f"fact-{slug}", f"{event['type']} is a fact", {"event": event})


# -- wire.md §4 -----------------------------------------------------------------------------------

def _project_sources() -> Iterator[VectorSource]:
    rule = "project.frame-opt-in"
    yield VectorSource(rule, "message-update-dropped", "a message_update without opt-in "
                       "projects to nothing",
                       _project(_message_update("text_delta", delta="lo"), live=False))
    yield VectorSource(rule, "tool-update-dropped", "a tool_execution_update without opt-in "
                       "projects to nothing", _project(_update("progress"), live=False))
    yield VectorSource(rule, "oversized-update-dropped", "an oversized tool_execution_update "
                       "without opt-in projects to nothing, not to a bounded form",
                       _project(_update("z" * 5000), live=False, max_bytes=4096))

    rule = "project.fact-passthrough"
    yield VectorSource(rule, "extra-keys-kept", "a fact keeps every key, in its order, with or "
                       "without opt-in",
                       _project({"type": "agent_start", "zeta": 1, "alpha": {"b": [2], "a": None}},
                                live=False))
    yield VectorSource(rule, "tool-execution-start", "tool_execution_start is written unchanged",
                       _project({"type": "tool_execution_start", "toolCallId": "toolu_01",
                                 "toolName": "bash", "args": {"command": "ls -la", "timeout": 30}}))
    yield VectorSource(rule, "message-end", "message_end is written unchanged, partial-looking "
                       "keys included",
                       _project({"type": "message_end",
                                 "message": _assistant(_wire_text("done"),
                                                       {"type": "thinking", "thinking": "t"}),
                                 "partial": {"kept": True}}))
    yield VectorSource(rule, "unknown-type", "an unknown type is a fact and is written unchanged",
                       _project({"type": "auto_retry_start", "attempt": 2, "delayMs": 1500,
                                 "errorMessage": "overloaded"}, live=False))

    rule = "project.message-update"
    yield VectorSource(rule, "text-delta", "message_update keeps type, usage and the event "
                       "without partial, in that order",
                       _project(_message_update("text_delta", delta="lo")))
    yield VectorSource(rule, "no-usage", "a message without usage gives a line without the "
                       "usage key", _project(_message_update(
                           "thinking_delta", delta="hm", message=_assistant(usage=False))))
    yield VectorSource(rule, "toolcall-start", "toolcall_start also carries the id and name of "
                       "the tool call at contentIndex, appended",
                       _project(_message_update(
                           "toolcall_start", content_index=1,
                           partial=_assistant(_wire_text("Let me look."),
                                              _wire_call("toolu_9", "read"), usage=False))))
    yield VectorSource(rule, "toolcall-start-existing-id", "an id already in the event keeps its "
                       "position and takes the tool call's value",
                       _project(_message_update(
                           "toolcall_start", content_index=0, id="stale", note="kept",
                           partial=_assistant(_wire_call("toolu_7", "grep"), usage=False))))
    yield VectorSource(rule, "key-order-fixed", "the line's keys are type, usage, "
                       "assistantMessageEvent whatever the event's key order",
                       _project({"assistantMessageEvent": {"type": "done", "reason": "stop",
                                                           "message": _assistant(usage=False)},
                                 "message": _assistant(_wire_text("ok")),
                                 "type": "message_update"}))
    yield VectorSource(rule, "content-index-as-float", "a contentIndex written 1.0 is the index "
                       "1 (JSON has one number type)",
                       _project(_message_update(
                           "toolcall_start", content_index=1.0,  # type: ignore[arg-type]
                           partial=_assistant(_wire_text("a"), _wire_call("toolu_5", "ls"),
                                              usage=False))))
    yield VectorSource(rule, "toolcall-delta-no-ids", "only toolcall_start gains id and toolName",
                       _project(_message_update(
                           "toolcall_delta", content_index=0, delta="{\"co",
                           partial=_assistant(_wire_call(), usage=False))))

    rule = "project.turn-end"
    yield VectorSource(rule, "two-results", "turn_end gives the message role and the number of "
                       "tool results",
                       _project({"type": "turn_end", "message": _assistant(_wire_call()),
                                 "toolResults": [_tool_result_message("a"),
                                                 _tool_result_message("b")]}))
    yield VectorSource(rule, "extra-keys-dropped", "turn_end drops every other key",
                       _project({"type": "turn_end", "turn": 3, "toolResults": [],
                                 "message": {"role": "user", "content": "hi"}}, live=False))

    rule = "project.agent-end"
    yield VectorSource(rule, "will-retry-absent", "agent_end without willRetry writes false",
                       _project({"type": "agent_end",
                                 "messages": [_assistant(), {"role": "user", "content": "hi"},
                                              _assistant()]}))
    yield VectorSource(rule, "will-retry-true", "agent_end keeps willRetry true and counts "
                       "messages", _project({"type": "agent_end", "messages": [],
                                             "willRetry": True, "extra": 1}, live=False))

    rule = "project.erroneous"
    yield VectorSource(rule, "user-message", "a message_update of a user message is erroneous",
                       _project(_message_update("text_delta", delta="x",
                                                message={"role": "user", "content": []})))
    yield VectorSource(rule, "toolcall-start-missing", "a toolcall_start whose contentIndex is "
                       "past the partial content is erroneous",
                       _project(_message_update("toolcall_start", content_index=3,
                                                partial=_assistant(_wire_call(), usage=False))))
    yield VectorSource(rule, "toolcall-start-text-block", "a toolcall_start pointing at a text "
                       "block is erroneous",
                       _project(_message_update("toolcall_start", content_index=0,
                                                partial=_assistant(_wire_text("t"),
                                                                   usage=False))))

    yield VectorSource(rule, "toolcall-start-text-block-with-ids", "a toolcall_start pointing at "
                       "a text block is erroneous even when the block has an id and a name",
                       _project(_message_update("toolcall_start", content_index=0,
                                                partial=_assistant(
                                                    {"type": "text", "text": "t", "id": "x",
                                                     "name": "y"}, usage=False))))

    rule = "project.agrees"
    yield VectorSource(rule, "update-that-fits", "an opted-in tool_execution_update that fits is "
                       "written as it is", _project(_update("line 1\nline 2\n")))
    yield VectorSource(rule, "nested-unicode-fact", "a nested fact with non-ASCII text passes "
                       "through", _project({"type": "tool_execution_end", "toolCallId": "t",
                                            "toolName": "read", "isError": True,
                                            "result": {"content": [_wire_text("café — 東京 🚀")]}}))
    yield VectorSource(rule, "odd-partial-result-fits", "an update whose partialResult has no "
                       "content list is written as it is when it fits",
                       _project(_update({"progress": 0.5, "content": "not a list"})))


# -- wire.md §5 -----------------------------------------------------------------------------------

_SMALL = 4096


def _bound_sources() -> Iterator[VectorSource]:
    rule = "bound.fits"
    yield VectorSource(rule, "ascii-over", "an ASCII update over maxBytes is bounded to fit",
                       _project(_update("x" * 6000), max_bytes=_SMALL), BOTH)
    yield VectorSource(rule, "one-byte-over", "an update one byte over maxBytes is bounded",
                       _project(_update_of_size(_SMALL + 1), max_bytes=_SMALL), BOTH)
    yield VectorSource(rule, "control-characters", "control characters cost six bytes each and "
                       "the bounded line still fits",
                       _project(_update("\u0000\u0001\u001f" * 300), max_bytes=_SMALL), BOTH)

    yield VectorSource(rule, "max-bytes-as-float", "a maxBytes written 5000.0 is the integer "
                       "5000", _project(_update("f" * 6000), max_bytes=5000.0),  # type: ignore[arg-type]
                       BOTH)

    rule = "bound.only-when-over"
    yield VectorSource(rule, "exactly-max-bytes", "an update of exactly maxBytes bytes is "
                       "written unchanged", _project(_update_of_size(_SMALL), max_bytes=_SMALL))
    yield VectorSource(rule, "one-byte-under", "an update one byte under maxBytes is written "
                       "unchanged, args and details kept",
                       _project(_update_of_size(_SMALL - 1), max_bytes=_SMALL))
    yield VectorSource(rule, "escapes-counted", "size is measured after escaping: 600 NULs "
                       "(3600 bytes) fit in 4096",
                       _project(_update("\u0000" * 600), max_bytes=_SMALL))

    rule = "bound.only-updates"
    big = "y" * 6000
    yield VectorSource(rule, "tool-execution-end", "an oversized tool_execution_end is never "
                       "bounded",
                       _project({"type": "tool_execution_end", "toolCallId": "toolu_01",
                                 "toolName": "bash", "isError": False,
                                 "result": {"content": [_wire_text(big)], "details": {}}},
                                max_bytes=_SMALL))
    yield VectorSource(rule, "message-end", "an oversized message_end is never bounded",
                       _project({"type": "message_end", "message": _assistant(_wire_text(big))},
                                max_bytes=_SMALL))
    yield VectorSource(rule, "message-update", "an oversized message_update is never bounded",
                       _project(_message_update("text_delta", delta=big), max_bytes=_SMALL))
    yield VectorSource(rule, "unknown-type", "an oversized event of an unknown type is never "
                       "bounded", _project({"type": "tool_execution_progress", "text": big},
                                           max_bytes=_SMALL))

    rule = "bound.shape"
    yield VectorSource(rule, "drops-args-details-extra", "the bounded form drops args, details "
                       "and every other key",
                       _project({**_update("w" * 5000, args={"command": "make", "env": {"A": "1"}},
                                           details={"truncated": True}),
                                 "sessionId": "s1"}, max_bytes=_SMALL), BOTH)
    yield VectorSource(rule, "fixed-key-order", "the bounded form's keys come in the spec's "
                       "order whatever the event's order",
                       _project({"partialResult": {"details": {},
                                                   "content": [_wire_text("v" * 5000)]},
                                 "args": {}, "toolName": "bash", "toolCallId": "toolu_02",
                                 "type": "tool_execution_update"}, max_bytes=_SMALL), BOTH)

    rule = "bound.text"
    huge_args = {"blob": "a" * 5000}
    yield VectorSource(rule, "marker-before-tail", "the marker comes first and the tail is the "
                       "end of the text, the newest output",
                       _project(_update("".join(f"line {n}\n" for n in range(1000))),
                                max_bytes=_SMALL), BOTH)
    yield VectorSource(rule, "string-partial-result", "a partialResult that is a string is its "
                       "own text", _project({"type": "tool_execution_update", "toolCallId": "t1",
                                             "toolName": "bash", "args": {},
                                             "partialResult": "plain " * 1000},
                                            max_bytes=_SMALL), BOTH)
    for slug, partial, what in (
        ("null-partial-result", None, "null"),
        ("number-partial-result", 42, "a number"),
        ("array-partial-result", [_wire_text("not read")], "an array"),
        ("object-without-content", {"details": {"x": 1}}, "an object without a content array"),
    ):
        yield VectorSource(rule, slug, f"a partialResult that is {what} gives empty text: the "
                           "marker alone",
                           _project({"type": "tool_execution_update", "toolCallId": "t1",
                                     "toolName": "bash", "args": huge_args,
                                     "partialResult": partial}, max_bytes=_SMALL))
    yield VectorSource(rule, "non-text-elements", "only elements with type text and a string "
                       "text contribute, joined in order",
                       _project({"type": "tool_execution_update", "toolCallId": "t1",
                                 "toolName": "bash", "args": huge_args,
                                 "partialResult": {"content": [
                                     _wire_text("A"), {"type": "image", "data": "x"},
                                     {"type": "text", "text": 7}, "loose string",
                                     {"type": "text"}, _wire_text("B")]}},
                                max_bytes=_SMALL), BOTH)

    rule = "bound.ids"
    long_id, long_name = "toolu_" + "i" * 300, "n" * 300
    yield VectorSource(rule, "clipped-to-256", "ids longer than 256 code points keep their first "
                       "256", _project(_update("q" * 5000, call_id=long_id, name=long_name),
                                       max_bytes=_SMALL), BOTH)
    yield VectorSource(rule, "exactly-256-kept", "ids of exactly 256 code points are unchanged",
                       _project(_update("q" * 5000, call_id="c" * 256, name="m" * 256),
                                max_bytes=_SMALL), BOTH)
    yield VectorSource(rule, "astral-counted-as-one", "an astral character counts as one code "
                       "point when clipping, never two",
                       _project(_update("q" * 5000, call_id="\U0001f527" * 260,
                                        name="é" * 260), max_bytes=_SMALL), BOTH)
    yield VectorSource(rule, "not-clipped-when-fits", "long ids are not clipped when the update "
                       "fits", _project(_update("short", call_id=long_id, name=long_name),
                                        max_bytes=_SMALL))

    rule = "bound.converges"
    yield VectorSource(rule, "worst-case-ids", "ids of 256 control characters each (the worst "
                       "escape cost) still leave room: the loop ends",
                       _project(_update("\u0001" * 1000, call_id="\u0002" * 300,
                                        name="\u0003" * 300), max_bytes=_SMALL), BOTH)
    yield VectorSource(rule, "id-longer-than-max-bytes", "an id longer than maxBytes is "
                       "clipped, so even the shortest tail fits and the loop ends",
                       _project(_update("tail " * 200, call_id="toolu_" + "z" * 5000),
                                max_bytes=_SMALL), BOTH)
    yield VectorSource(rule, "long-text", "a 12000 code point text at the smallest maxBytes "
                       "converges", _project(_update("ab" * 6000), max_bytes=_SMALL), BOTH)

    rule = "bound.tail"
    yield VectorSource(rule, "ascii", "the tail length follows the declared fit strategy",
                       _project(_update("0123456789" * 1000), max_bytes=5000), BOTH)
    yield VectorSource(rule, "exact-fit", "a tail whose line is exactly maxBytes fits: the "
                       "bound is inclusive",
                       _project(_update(_exact_fit_text(_SMALL)), max_bytes=_SMALL), BOTH)
    yield VectorSource(rule, "alternating-costs", "one- and six-byte code points alternate: the "
                       "last code point that fits is kept",
                       _project(_update("a\u0001" * 3000), max_bytes=4126), BOTH)
    yield VectorSource(rule, "astral-text", "the tail is counted in code points: astral "
                       "characters are never split",
                       _project(_update("😀🚀" * 600), max_bytes=_SMALL), BOTH)
    yield VectorSource(rule, "two-byte-escapes", "quotes, backslashes and newlines cost two "
                       "bytes each", _project(_update("\"\\\n" * 1000), max_bytes=_SMALL), BOTH)
    yield VectorSource(rule, "mixed-widths", "one-, two-, three- and four-byte characters and "
                       "six-byte controls in one text",
                       _project(_update("aé東😀\u0007" * 300), max_bytes=_SMALL), BOTH)


# -- wire.md §6 -----------------------------------------------------------------------------------

def _canon_sources() -> Iterator[VectorSource]:
    rule = "canon.utf8"
    yield VectorSource(rule, "lone-high-surrogate", "a lone high surrogate in a string becomes "
                       "U+FFFD", _project({"type": "custom_note", "text": "a\ud800b"}))
    yield VectorSource(rule, "lone-low-surrogate-key", "a lone low surrogate in a key becomes "
                       "U+FFFD", _project({"type": "custom_note", "k\udc00": 1}))
    yield VectorSource(rule, "colliding-keys", "keys equal after replacement: the later value "
                       "at the first key's position",
                       _project(dict([("type", "custom_note"), ("a\ud800", 1), ("mid", 2),
                                      ("a\udfff", 3)])))
    yield VectorSource(rule, "surrogate-key-beside-floats", "a lone surrogate in a key does not "
                       "change how the numbers beside it are written",
                       _project({"type": "custom_note", "a\ud800": [1e-6, {"b": 30.0}]}))
    yield VectorSource(rule, "surrogates-in-bounded-form", "lone surrogates in the id and the "
                       "text are replaced before clipping and before the tail is taken",
                       _project(_update("\udbff" + "s\udc01" * 3000, call_id="id\ud834"),
                                max_bytes=_SMALL), BOTH)
    yield VectorSource(rule, "message-update-delta", "a lone surrogate in a message_update delta "
                       "becomes U+FFFD", _project(_message_update("text_delta", delta="\ud83d")))

    rule = "canon.bytes"
    yield VectorSource(rule, "integral-floats", "integral floats are written as integers and "
                       "-0 as 0", _project({"type": "custom_numbers", "a": 30.0, "b": -0.0,
                                            "c": 1e16, "d": 2.0**53 - 1, "e": -(2**53 - 1)}))
    yield VectorSource(rule, "exponents", "numbers use ECMAScript's shortest form and exponent "
                       "rules", _project({"type": "custom_numbers",
                                          "v": [1e-7, 1.5e-7, 1e21, 1.2345678901234568e20, 0.1,
                                                123.456, 1e-6, 5e-324, 1.7976931348623157e308,
                                                1.5, 2.25, 0.001234, 1.5e21]}))
    yield VectorSource(rule, "floats-beside-an-index-key", "floats of every layout in an object "
                       "that also has an array-index key",
                       _project({"type": "custom_numbers", "0": True,
                                 "v": [0.30000000000000004, -0.0, 0.0, 1.0000000000000002,
                                       123456789.123, 0.5, 1e-7, 1e21, 5e-6, 30.0, 1.5]}))
    yield VectorSource(rule, "literals-beside-an-index-key", "true, false, null and the "
                       "largest safe integers in an object that also has an array-index key",
                       _project({"type": "custom_misc", "0": None, "t": True, "f": False,
                                 "max": 2**53 - 1, "min": -(2**53 - 1)}))
    yield VectorSource(rule, "integral-beside-fractional", "an integral float next to a "
                       "fractional one: 30, not 30.0",
                       _project({"type": "custom_numbers", "v": [30.0, 0.30000000000000004]}))
    yield VectorSource(rule, "negative-zero-alone", "-0 alone is written 0",
                       _project({"type": "custom_numbers", "v": -0.0}))
    yield VectorSource(rule, "between-one-and-ten-millionths", "numbers from 1e-6 up to 1e-5 "
                       "are written in decimal, never with an exponent",
                       _project({"type": "custom_numbers", "v": [1e-6, 5e-6, 9.99e-6]}))
    yield VectorSource(rule, "one-millionth-alone", "1e-6 alone is written 0.000001",
                       _project({"type": "custom_numbers", "v": 1e-6}))
    yield VectorSource(rule, "negative-numbers", "negative numbers keep their sign in every "
                       "form", _project({"type": "custom_numbers",
                                         "v": [-1.5, -0.25, -1e-7, -1e21, -30.0, -7]}))
    yield VectorSource(rule, "integer-like-keys", "array-index keys come first in ascending "
                       "order, the rest in insertion order",
                       _project({"type": "custom_keys", "b": 1, "2": 2, "1": 3, "01": 4, "-1": 5,
                                 "4294967295": 6, "4294967294": 7, "1.0": 8, "0": 9}))
    yield VectorSource(rule, "unicode-digit-keys", "keys of non-ASCII digits are ordinary names, "
                       "not array indices",
                       _project({"type": "custom_keys", "\u0663": 1, "\u00b2": 2, "\uff11": 3,
                                 "5": 4, "12345678901": 5}))
    yield VectorSource(rule, "string-escapes", "the short escapes, lowercase \\u00xx for other "
                       "controls, and DEL, U+2028, U+2029 and / raw",
                       _project({"type": "custom_text",
                                 "s": "\b\t\n\f\r\u0000\u001f\u007f\u2028\u2029\"\\/é😀"}))
    yield VectorSource(rule, "args-integer-like-keys", "integer-like keys inside args of an "
                       "opted-in update are reordered too",
                       _project(_update("ok", args={"10": "a", "9": "b", "x": 1.0})))
    yield VectorSource(rule, "empty-containers", "empty objects and arrays, true, false and null "
                       "are written compactly",
                       _project({"type": "custom_misc", "o": {}, "a": [], "t": True, "f": False,
                                 "n": None, "nested": [[], [{}]]}))


SOURCE_BUILDERS: Mapping[str, Callable[[], Iterable[VectorSource]]] = {
    "select": _select_sources,
    "fold": _fold_sources,
    "settle": _settle_sources,
    "classify": _classify_sources,
    "project": _project_sources,
    "bound": _bound_sources,
    "canon": _canon_sources,
}


def vector_sources() -> list[VectorSource]:
    """Every hand-written vector, in group order."""
    return [source for group in GROUPS for source in SOURCE_BUILDERS[group]()]


# =================================================================================================
# Building the files
# =================================================================================================


class VectorBuildError(Exception):
    """A vector source is inconsistent (a message for whoever edits the sources)."""


def _roundtrip(value: JSON) -> JSON:
    # The answer must be computed on exactly what a reader of the file gets back.
    return json.loads(json.dumps(value, ensure_ascii=True, allow_nan=False))


def _answer(fit: FitStrategy, op: str, op_input: JSON) -> JSON:
    try:
        return _roundtrip(Reference(fit).run(op, op_input))
    except InvalidInput:
        return dict(ERRORED)


def build_vectors(source: VectorSource) -> list[dict[str, JSON]]:
    """The vector(s) of one source: one per declared fit strategy, or one for both."""
    rule = RULES_BY_ID.get(source.rule)
    if rule is None:
        raise VectorBuildError(f"vector {source.slug!r} names rule {source.rule!r}, which is not "
                               "in conformance/_rules.py")
    op_input = _roundtrip(source.input)
    base = {"id": f"{source.rule}/{source.slug}", "description": source.description,
            "rule": rule.id, "section": rule.section, "op": rule.op}
    if not source.fits:
        answers = [_answer(fit, rule.op, op_input) for fit in FIT_STRATEGIES]
        if answers[0] != answers[1]:
            raise VectorBuildError(
                f"vector {base['id']}: the answer depends on the fit strategy; declare "
                "fits=BOTH (or one strategy) so that each strategy gets its own vector")
        return [{**base, "input": op_input, "expected": answers[0]}]
    return [
        {**base, "id": f"{base['id']}-{fit}", "description": f"{source.description} ({fit})",
         "capabilities": {"fitStrategy": fit}, "input": op_input,
         "expected": _answer(fit, rule.op, op_input)}
        for fit in source.fits
    ]


def build_files() -> dict[str, dict[str, JSON]]:
    """Every vector file by group, as the JSON values ``--write`` stores."""
    out: dict[str, dict[str, JSON]] = {
        group: {"version": FORMAT_VERSION, "group": group, "description": description,
                "vectors": []}
        for group, description in GROUPS.items()
    }
    for source in vector_sources():
        group = group_of(source.rule)
        if group not in out:
            raise VectorBuildError(f"rule {source.rule!r} belongs to no known group "
                                   f"({', '.join(GROUPS)})")
        out[group]["vectors"].extend(build_vectors(source))
    return out


def render_file(content: Mapping[str, JSON]) -> str:
    """The text of a vector file: ASCII-only JSON (lone surrogates survive as escapes)."""
    return json.dumps(content, indent=2, ensure_ascii=True, allow_nan=False) + "\n"


def rendered_files() -> dict[str, str]:
    """Every vector file's text by file name (``select.json`` …)."""
    return {f"{group}.json": render_file(content) for group, content in build_files().items()}


def vectors_directory() -> Path:
    """The directory of the shipped vector files (spec/vectors/ in a checkout)."""
    return Path(str(files("eventproof.vectors")))


def stale_files(directory: Path | None = None) -> list[str]:
    """File names whose content differs from what the sources generate (missing ones included)."""
    directory = directory or vectors_directory()
    stale = []
    for name, text in rendered_files().items():
        path = directory / name
        if not path.is_file() or path.read_text("utf-8") != text:
            stale.append(name)
    return stale


def write_files(directory: Path | None = None) -> list[str]:
    """Write every vector file; returns the names written."""
    directory = directory or vectors_directory()
    written = []
    for name, text in rendered_files().items():
        (directory / name).write_text(text, encoding="utf-8")
        written.append(name)
    return written


# =================================================================================================
# Loading and running the shipped vectors
# =================================================================================================


@dataclass(frozen=True)
class Vector:
    """One vector as shipped."""

    id: str
    description: str
    rule: str
    section: str
    op: str
    input: JSON
    #: The demanded output, or :data:`ERRORED`.
    expected: JSON
    #: The fit strategy the vector is written for; None when it holds for both.
    fit_strategy: str | None
    #: The file it came from, e.g. ``select.json``.
    file: str

    @property
    def group(self) -> str:
        """The rule group (the file's group)."""
        return group_of(self.rule)

    @property
    def erroneous(self) -> bool:
        """True when the spec calls the input erroneous."""
        return bool(self.expected == ERRORED)


def parse_vector_file(name: str, content: Mapping[str, JSON]) -> list[Vector]:
    """The vectors of one parsed file."""
    return [
        Vector(id=raw["id"], description=raw["description"], rule=raw["rule"],
               section=raw["section"], op=raw["op"], input=raw["input"],
               expected=raw["expected"],
               fit_strategy=(raw.get("capabilities") or {}).get("fitStrategy"), file=name)
        for raw in content["vectors"]
    ]


def load_vectors(directory: Path | None = None) -> list[Vector]:
    """Every shipped vector, file by file in group order."""
    if directory is None:
        root = files("eventproof.vectors")
        texts = {entry.name: entry.read_text("utf-8") for entry in root.iterdir()
                 if entry.name.endswith(".json")}
    else:
        texts = {path.name: path.read_text("utf-8") for path in directory.glob("*.json")}
    order = {f"{group}.json": index for index, group in enumerate(GROUPS)}
    vectors: list[Vector] = []
    for name in sorted(texts, key=lambda n: (order.get(n, len(order)), n)):
        vectors.extend(parse_vector_file(name, json.loads(texts[name])))
    return vectors


Status = Literal["pass", "fail", "bytes", "skip"]


@dataclass(frozen=True)
class VectorResult:
    """The verdict on one vector."""

    vector: Vector
    #: ``pass``; ``fail`` (a MUST failure); ``bytes`` (the same value as the expected line but
    #: other bytes: a ``canon.bytes`` SHOULD failure); ``skip``.
    status: Status
    #: The implementation's answer, as shown to the user.
    actual: JSON = None
    #: Why it failed or was skipped.
    message: str = ""


@dataclass
class VectorOutcome:
    """What running the vectors found."""

    implementation: dict[str, JSON]
    capabilities: Capabilities
    results: list[VectorResult] = field(default_factory=list)

    @property
    def conforms(self) -> bool:
        """True when no vector failed; byte differences (SHOULD) and skips do not count."""
        return not any(result.status == "fail" for result in self.results)

    def count(self, status: Status) -> int:
        """How many vectors ended with ``status``."""
        return sum(result.status == status for result in self.results)

    def by_group(self) -> dict[str, Counter[str]]:
        """Status counts per rule group, in group order."""
        counts: dict[str, Counter[str]] = {}
        for result in self.results:
            counts.setdefault(result.vector.group, Counter())[result.status] += 1
        return counts

    @property
    def failed_rule_ids(self) -> set[str]:
        """Rules with at least one failing vector (``canon.bytes`` for byte differences)."""
        return ({r.vector.rule for r in self.results if r.status == "fail"}
                | {"canon.bytes" for r in self.results if r.status == "bytes"})


def json_equal(left: JSON, right: JSON) -> bool:
    """JSON value equality: numbers by value (1 == 1.0), true is not 1, member order ignored."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right or (isinstance(left, float) and isinstance(right, float)
                                 and math.isnan(left) and math.isnan(right))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(json_equal, left, right))
    return type(left) is type(right) and bool(left == right)


def _shown(value: JSON, limit: int = 300) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _first_difference(expected: bytes, actual: bytes) -> str:
    index = next((i for i, (a, b) in enumerate(zip(expected, actual, strict=False)) if a != b),
                 min(len(expected), len(actual)))
    start = max(0, index - 20)
    return (f"first difference at byte {index}: expected ...{expected[start:index + 20]!r}..., "
            f"got ...{actual[start:index + 20]!r}...")


def judge(vector: Vector, actual: JSON) -> tuple[Status, str]:
    """Compare an answer (or :class:`ImplErrored`) with what the vector demands."""
    if vector.erroneous:
        if isinstance(actual, ImplErrored):
            return "pass", ""
        return "fail", ("the input is erroneous: the spec demands an errored answer, never an "
                        f"output; got {_shown(actual)}")
    if isinstance(actual, ImplErrored):
        return "fail", f"answered errored ({actual.message}) where the spec demands an output"
    expected = vector.expected
    if vector.op != "project" or expected is None:
        if json_equal(expected, actual):
            return "pass", ""
        return "fail", "the answer differs from the expected value"
    if not (isinstance(actual, dict) and set(actual) == {"line"}
            and isinstance(actual["line"], str)):
        return "fail", 'a project answer is {"line": "<the line>"} or null'
    try:
        parsed = json.loads(actual["line"])
    except ValueError as error:
        return "fail", f"the line is not JSON: {error}"
    if not json_equal(json.loads(expected["line"]), parsed):
        return "fail", "the line parses to a different JSON value"
    want = expected["line"].encode("utf-8")
    got = actual["line"].encode("utf-8", "surrogatepass")
    if want != got:
        return "bytes", ("the same value, but not the canonical bytes (canon.bytes, wire.md §6): "
                         + _first_difference(want, got))
    return "pass", ""


def _skip_reason(vector: Vector, capabilities: Capabilities) -> str | None:
    if vector.op not in capabilities.ops:
        return f"the implementation does not declare the op {vector.op!r}"
    if vector.fit_strategy is not None and vector.fit_strategy != capabilities.fit_strategy:
        return (f"the vector pins fitStrategy {vector.fit_strategy}; the implementation "
                f"declares {capabilities.fit_strategy}")
    max_bytes = vector.input.get("maxBytes") if isinstance(vector.input, dict) else None
    if (vector.op == "project" and not capabilities.variable_max_bytes
            and max_bytes not in (None, DEFAULT_MAX_BYTES)):
        return (f"the vector uses maxBytes {max_bytes}; the implementation declares "
                f"variableMaxBytes false (only {DEFAULT_MAX_BYTES})")
    return None


def run_vectors(
    impl: Any, *, timeout: float = 10.0, use_shell: bool = False, rule_prefix: str | None = None,
) -> VectorOutcome:
    """Run every shipped vector (of rules starting with ``rule_prefix``) against ``impl``.

    ``impl`` is what ``eventproof run --impl`` accepts (a spec string, an object or a factory);
    one implementation process answers every vector.
    """
    from . import _adapters

    vectors = [v for v in load_vectors() if rule_prefix is None or v.rule.startswith(rule_prefix)]
    adapter = _adapters.adapter_for(impl, timeout=timeout, use_shell=use_shell)
    try:
        handshake = adapter.start()
        capabilities: Capabilities = handshake.capabilities
        outcome = VectorOutcome(implementation=dict(handshake.implementation_dict()),
                                capabilities=capabilities)
        for vector in vectors:
            outcome.results.append(_run_one(adapter, vector, capabilities, _adapters))
        return outcome
    finally:
        adapter.stop()


def _run_one(
    adapter: Any, vector: Vector, capabilities: Capabilities, adapters: Any,
) -> VectorResult:
    reason = _skip_reason(vector, capabilities)
    if reason is not None:
        return VectorResult(vector, "skip", message=reason)
    exhausted = getattr(adapter, "exhausted", None)
    if callable(exhausted) and exhausted():
        return VectorResult(vector, "fail", message="not run: the implementation stopped "
                            "answering (restart limit reached)")
    response = adapter.run(vector.op, vector.input)
    if isinstance(response, adapters.Skipped):
        issue = getattr(response, "issue_url", None)
        return VectorResult(vector, "skip", message=f"the implementation skipped it: "
                            f"{response.reason}" + (f" ({issue})" if issue else ""))
    if isinstance(response, adapters.TimedOut):
        return VectorResult(vector, "fail", {"timeout": response.seconds},
                            f"no answer within {response.seconds:g} s")
    if isinstance(response, adapters.Crashed):
        return VectorResult(vector, "fail", {"crashed": response.message},
                            f"the implementation crashed: {response.message}")
    if isinstance(response, adapters.Broken):
        return VectorResult(vector, "fail", {"protocolError": str(response.error)},
                            f"the answer broke the protocol: {response.error}")
    actual = response if isinstance(response, ImplErrored) else response.output
    status, message = judge(vector, actual)
    shown = {"errored": actual.message} if isinstance(actual, ImplErrored) else actual
    return VectorResult(vector, status, shown, message)


def render(outcome: VectorOutcome, console: Console) -> None:
    """A line per failing vector, the counts per group and a summary line."""
    from rich.markup import escape
    from rich.table import Table

    name = outcome.implementation.get("name", "the implementation")
    for result in outcome.results:
        if result.status not in ("fail", "bytes"):
            continue
        vector = result.vector
        level = "[red]FAIL[/]" if result.status == "fail" else "[yellow]SHOULD[/]"
        console.print(f"{level} [bold]{escape(vector.id)}[/]  rule {vector.rule} "
                      f"(spec/{vector.section.replace('#', ' §')})")
        console.print(f"    {vector.description}", markup=False)
        console.print(f"    {result.message}", markup=False)
        console.print(f"    expected: {_shown(vector.expected)}", markup=False)
        console.print(f"    actual:   {_shown(result.actual)}", markup=False)
    table = Table(title=f"vectors for {escape(str(name))}", title_justify="left")
    for column in ("group", "pass", "fail", "bytes (SHOULD)", "skip"):
        table.add_column(column, justify="left" if column == "group" else "right")
    for group, counts in outcome.by_group().items():
        table.add_row(group, *(str(counts[s]) for s in ("pass", "fail", "bytes", "skip")))
    console.print(table)
    skipped = Counter(r.message for r in outcome.results if r.status == "skip")
    for reason, count in skipped.most_common():
        console.print(f"  skipped {count}: {reason}", markup=False)
    verdict = "[green]conforms[/]" if outcome.conforms else "[red]does not conform[/]"
    console.print(
        f"{len(outcome.results)} vectors: {outcome.count('pass')} passed, "
        f"{outcome.count('fail')} failed, {outcome.count('bytes')} differ in bytes only "
        f"(SHOULD), {outcome.count('skip')} skipped — {verdict}")


# =================================================================================================
# python -m eventproof.conformance._vectors --write | --check
# =================================================================================================


def coverage_gaps(minimum: int = 2) -> list[str]:
    """Rule ids with fewer than ``minimum`` vector sources."""
    counts = Counter(source.rule for source in vector_sources())
    return [rule.id for rule in RULES if counts[rule.id] < minimum]


def main(argv: Sequence[str] | None = None) -> int:
    """Regenerate (``--write``) or check (``--check``) spec/vectors/."""
    parser = argparse.ArgumentParser(
        prog="python -m eventproof.conformance._vectors",
        description="Generate spec/vectors/ from the hand-written sources and the reference.")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite every vector file")
    mode.add_argument("--check", action="store_true", help="exit 1 when a file is stale")
    parser.add_argument("--dir", type=Path, default=None,
                        help="the vector directory (default: the eventproof.vectors package)")
    args = parser.parse_args(argv)
    try:
        if args.write:
            written = write_files(args.dir)
            counts = {name: len(json.loads((args.dir or vectors_directory()).joinpath(name)
                                           .read_text("utf-8"))["vectors"]) for name in written}
            print("wrote " + ", ".join(f"{name} ({n})" for name, n in counts.items()))
            return 0
        stale = stale_files(args.dir)
    except VectorBuildError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if stale:
        print("stale vector files (the sources in conformance/_vectors.py or the reference "
              f"changed): {', '.join(stale)}; run `nox -s vectors` and commit the result",
              file=sys.stderr)
        return 1
    print("every vector file is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
