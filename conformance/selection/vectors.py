"""The selection profile's vector sources (spec/selection.md): hand-written inputs, one builder
per rule group; the reference computes the answers when ``spec/vectors/`` is generated."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .._model import VectorSource

JSON = Any

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

def select_sources() -> Iterator[VectorSource]:
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

def fold_sources() -> Iterator[VectorSource]:
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


def settle_sources() -> Iterator[VectorSource]:
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


