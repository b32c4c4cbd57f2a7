"""The selection profile's vector sources (spec/selection.md): hand-written inputs, one builder
per rule group; the reference computes the answers when ``spec/vectors/`` is generated."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .._model import VectorSource

JSON = Any

# -- session events (spec/selection.md §2) --------------------------------------------------------
# Events are written in the shape the agent loop writes them (§2): a numeric time, turn and step
# on the events of a step, message ids and sources. Events of a step belong to turn 1, step 0
# unless a vector says otherwise.

Event = tuple[str, JSON]

#: ``time`` of the first event: 2026-01-01T00:00:00Z in Unix epoch milliseconds.
BASE_TIME = 1767225600000
SOURCE = {"kind": "model", "provider": "deepseek", "model": "deepseek-chat"}


def _log(*events: Event) -> list[JSON]:
    """Session events with envelopes: ``seq`` counts from 0, one second apart; message ids."""
    log = []
    for seq, (kind, data) in enumerate(events):
        if kind == "assistant/message" and data["message"].get("id") == "":
            data = {**data, "message": {**data["message"], "id": f"msg_a{seq}"}}
        log.append({"type": kind, "seq": seq, "time": BASE_TIME + 1000 * seq, "data": data})
    return log


def _text(text: str) -> JSON:
    return {"type": "text", "text": text}


def _reasoning(text: str) -> JSON:
    return {"type": "reasoning", "text": text}


def _image() -> JSON:
    return {"type": "image", "attachment": {"mediaType": "image/png", "data": "iVBORw0KGgo="}}


def _tool_call(call_id: str = "call_1", name: str = "search") -> JSON:
    return {"type": "tool-call", "id": call_id, "name": name, "arguments": '{"query": "weather"}'}


def _message(*blocks: JSON, usage: bool = False, interrupted: bool = False, turn: int = 1,
             step: int = 0) -> Event:
    data: dict[str, JSON] = {"turn": turn, "step": step, "message": {
        "id": "", "role": "assistant", "content": list(blocks), "source": SOURCE}}
    if usage:
        data["usage"] = {"inputTokens": 120, "outputTokens": 4096}
    if interrupted:
        data["interrupted"] = True
    return ("assistant/message", data)


def _chunk(chunk: JSON, turn: int = 1, step: int = 0) -> Event:
    return ("assistant/chunk", {"turn": turn, "step": step, "chunk": chunk})


def _delta(text: str, index: int = 0) -> Event:
    return _chunk({"type": "text-delta", "index": index, "text": text})


def _reasoning_delta(text: str, index: int = 0) -> Event:
    return _chunk({"type": "reasoning-delta", "index": index, "text": text})


def _tool_delta(index: int = 1) -> Event:
    return _chunk({"type": "tool-call-delta", "index": index, "id": "call_1", "name": "search",
                   "argumentsDelta": "{\"query\": \"wea"})


def _turn_start(turn: int = 1) -> Event:
    return ("turn/start", {"turn": turn})


def _step_start(turn: int = 1, step: int = 0) -> Event:
    return ("step/start", {"turn": turn, "step": step})


def _step_end(turn: int = 1, step: int = 0) -> Event:
    return ("step/end", {"turn": turn, "step": step})


def _reason(kind: str) -> JSON:
    if kind == "aborted":
        return {"kind": kind, "reason": {"kind": "user"}}
    if kind == "error":
        return {"kind": kind, "error": {"message": "upstream 500", "code": "PROVIDER_ERROR"}}
    return {"kind": kind}


def _turn_end(kind: str, turn: int = 1) -> Event:
    return ("turn/end", {"turn": turn, "reason": _reason(kind)})


def _user_value(text: str, ident: str = "usr_1") -> JSON:
    return {"id": ident, "role": "user", "content": [_text(text)], "source": {"kind": "user"}}


def _claim() -> Event:
    """The loop claiming the pending input of its open turn (§2.4)."""
    return ("agent/inbox/spliced", {"target": "next-turn", "start": 0, "removedCount": 1,
                                    "inserted": []})


def _cancel(replacement: str | None = None) -> Event:
    """Pending input cancelled; with ``replacement``, replaced by a new message (§2.4)."""
    inserted = [_user_value(replacement, "usr_r")] if replacement is not None else []
    return ("agent/inbox/spliced", {"target": "next-turn", "start": 0, "removedCount": 1,
                                    "inserted": inserted, "outcome": "canceled"})


def _insert(text: str = "one more thing") -> Event:
    return ("agent/inbox/spliced", {"target": "next-turn", "start": 0,
                                    "inserted": [_user_value(text, "usr_i")]})


def _tool_result(text: str) -> Event:
    return ("tool/result", {"turn": 1, "step": 0, "message": {
        "id": "msg_t1", "role": "user",
        "content": [{"type": "tool-result", "toolCallId": "call_1", "content": [_text(text)]}],
        "source": {"kind": "tool", "callId": "call_1"}}})


def _user(text: str) -> Event:
    return ("user/message", _user_value(text))


def _streamed_turn(*pieces: str, kind: str = "completed") -> tuple[Event, ...]:
    """A turn that streamed ``pieces`` as text deltas in one step and then ended with ``kind``."""
    return (
        _turn_start(), _step_start(),
        _chunk({"type": "block-start", "index": 0, "blockType": "text"}),
        *(_delta(piece) for piece in pieces),
        _turn_end(kind),
    )


def _stepped(*events: Event, kind: str = "completed", turn: int = 1,
             claimed: bool = True) -> tuple[Event, ...]:
    """One turn as the loop writes it: turn/start, its claim, one step holding ``events``."""
    return (_turn_start(turn), *((_claim(),) if claimed else ()), _step_start(turn), *events,
            _step_end(turn), _turn_end(kind, turn))


def _select(*events: Event) -> JSON:
    return {"events": _log(*events)}


def _settle(*events: Event, cancelled: bool = False, diagnostic: str | None = None) -> JSON:
    request: dict[str, JSON] = {"events": _log(*events), "cancelled": cancelled}
    if diagnostic is not None:
        request["diagnostic"] = diagnostic
    return request


def _epoch(*events: Event) -> JSON:
    """A continuable settle request: one epoch's log (§5.3)."""
    return {"events": _log(*events), "mode": "continuable"}


def _fold(*pushes: Event | str) -> JSON:
    """A fold input: a string is pushed as raw text, an event as an event (seq in push order)."""
    out: list[JSON] = []
    for seq, push in enumerate(pushes):
        if isinstance(push, str):
            out.append({"text": push})
        else:
            out.append({"event": _log(*[("_", {})] * seq, push)[seq]})
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
    yield VectorSource(rule, "unknown-block-message-counts", "a message whose only block is of "
                       "a type this version does not know is still the last non-empty message",
                       _select(_message(_text("A")),
                               _message({"type": "citation", "url": "https://example.com/a"})))
    yield VectorSource(rule, "empty-texts-count", "a message of empty text blocks is non-empty "
                       "(content length decides, not its text) and replaces an earlier one",
                       _select(_message(_text("earlier")), _message(_text(""), _text(""))))
    yield VectorSource(rule, "usage-on-a-tool-call", "a message carrying usage is empty only when "
                       "its content is: a tool call with usage is the output",
                       _select(_message(_text("earlier")), _message(_tool_call(), usage=True)))
    yield VectorSource(rule, "unknown-members-kept", "members a block carries beyond the pinned "
                       "ones are returned with it",
                       _select(_message({"type": "text", "text": "A", "cacheControl": {"ttl": 60}},
                                        {"type": "tool-call", "id": "call_1", "name": "x",
                                         "arguments": "{\"q\": ", "partial": True})))

    rule = "select.text-fallback"
    yield VectorSource(rule, "concatenated-in-order", "without a message, every text delta is "
                       "concatenated in log order as one text block",
                       _select(_delta("Hel", 0), _delta("lo, ", 0), _delta("world", 2)))
    yield VectorSource(rule, "log-order-not-index", "text deltas are joined in log order, "
                       "whatever their index: a later delta with a smaller index comes after",
                       _select(_delta("B", 1), _delta("A", 0), _delta("C", 2), _delta("D", 0)))
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
    yield from _consumed_work_sources()
    yield from _stop_reason_sources()
    yield from _contract_sources()


def _consumed_work_sources() -> Iterator[VectorSource]:
    rule = "settle.accounting-turn"
    yield VectorSource(rule, "unstepped-turn-after-end", "a turn that opens and closes without a "
                       "step or a claim accounts for no work: the end stays the stepped turn's "
                       "max-tokens", _settle(*_stepped(_ANSWER, kind="max-tokens"),
                                             _turn_start(2), _turn_end("completed", 2)))
    yield VectorSource(rule, "unstepped-turn-after-end-continuable", "the same log as one epoch: "
                       "the later completed turn/end does not replace the end",
                       _epoch(*_stepped(_ANSWER, kind="max-tokens"), _turn_start(2),
                              _turn_end("completed", 2)))
    yield VectorSource(rule, "claimed-blocked", "a turn that claimed its input and was rejected "
                       "before its first step accounts for that input: refusal",
                       _settle(_turn_start(), _claim(), _turn_end("blocked")))
    yield VectorSource(rule, "claimed-aborted", "a claimed turn cancelled before its first step "
                       "accounts for work: aborted", _epoch(_turn_start(), _claim(),
                                                            _turn_end("aborted")))
    yield VectorSource(rule, "claimed-error", "a claimed turn that failed before its first step "
                       "accounts for work: error, on the continuable path too",
                       _epoch(*_stepped(_ANSWER), _turn_start(2), _claim(), _turn_end("error", 2)))
    yield VectorSource(rule, "claimed-completed-counts-nothing", "a claimed turn that completed "
                       "without a step accounts for nothing: the earlier max-tokens end stays",
                       _settle(*_stepped(_ANSWER, kind="max-tokens"), _turn_start(2), _claim(),
                               _turn_end("completed", 2)))
    yield VectorSource(rule, "claimed-completed-only", "a run whose only turn claimed and "
                       "completed without a step has no end: error one-shot",
                       _settle(_turn_start(), _claim(), _turn_end("completed")))
    yield VectorSource(rule, "claim-outside-turn", "a claim outside any turn marks nothing: the "
                       "blocked turn after it accounts for no work",
                       _settle(_claim(), _turn_start(), _turn_end("blocked")))
    yield VectorSource(rule, "repeated-turn-number", "a repeated turn number inherits the stepped "
                       "mark left by the earlier turn/start of that number",
                       _settle(_turn_start(), _step_start(), _turn_start(), _turn_end("blocked")))
    yield VectorSource(rule, "claim-outlives-stepped-end", "a turn stepped and claimed uses its "
                       "stepped mark; the claim stays for the next turn/end of its number",
                       _settle(*_stepped(_ANSWER, kind="completed"), _turn_end("blocked")))
    yield VectorSource(rule, "turn-end-without-start", "a turn/end without turn/start still "
                       "consumes its number's marks; a step/start of a turn not open marks it",
                       _settle(_step_start(2), _turn_end("max-tokens", 2)))

    rule = "settle.dropped-unrun"
    yield VectorSource(rule, "dropped-after-end", "a follow-up cancelled out of the inbox after "
                       "the end, with nothing inserted, drops work: the epoch is aborted",
                       _epoch(*_stepped(_message(_text("Draft ready.")), kind="completed"),
                              _cancel()))
    yield VectorSource(rule, "replacement-keeps-pending", "a cancellation that inserts a "
                       "replacement keeps the work pending: completed",
                       _epoch(*_stepped(_ANSWER), _cancel("do this instead")))
    yield VectorSource(rule, "cleared-by-later-end", "a drop before the end is that end's to "
                       "report: the accounting turn/end clears it",
                       _epoch(_cancel(), *_stepped(_ANSWER)))
    yield VectorSource(rule, "not-cleared-by-unstepped-end", "a turn/end that accounts for no "
                       "work does not clear dropped unrun",
                       _epoch(*_stepped(_ANSWER), _cancel(), _turn_start(2),
                              _turn_end("completed", 2)))
    yield VectorSource(rule, "dropped-without-end", "without an end, a cancellation with nothing "
                       "inserted drops work from the start: aborted",
                       _epoch(_insert(), _cancel()))
    yield VectorSource(rule, "insertion-consumes-nothing", "an insertion without removedCount "
                       "neither claims nor drops: completed", _epoch(_insert(), _turn_start(),
                                                                     _insert(),
                                                                     _turn_end("blocked")))
    yield VectorSource(rule, "one-shot-ignores-drops", "the one-shot path does not read dropped "
                       "work: a completed run stays completed",
                       _settle(*_stepped(_ANSWER), _cancel()))


def _stop_reason_sources() -> Iterator[VectorSource]:
    rule = "settle.one-shot-reason"
    for kind, reason in (("completed", "completed"), ("max-tokens", "max-tokens"),
                         ("aborted", "aborted"), ("blocked", "refusal"), ("error", "error"),
                         ("interrupted", "error")):
        yield VectorSource(rule, f"kind-{kind}", f"a one-shot end of kind {kind} stops with "
                           f"{reason}", _settle(*_stepped(_ANSWER, kind=kind)))
    yield VectorSource(rule, "unknown-kind", "a kind nobody has seen yet stops with error",
                       _settle(*_stepped(_ANSWER, kind="context-overflow")))
    yield VectorSource(rule, "no-end", "a one-shot log without an end stops with error",
                       _settle(_turn_start(), _step_start(), _ANSWER))
    yield VectorSource(rule, "explicit-mode", "\"mode\": \"one-shot\" is the same as no mode",
                       {**_settle(*_stepped(_ANSWER, kind="interrupted")), "mode": "one-shot"})

    rule = "settle.cancelled"
    yield VectorSource(rule, "completed-stays", "a cancelled run whose end completed stays "
                       "completed", _settle(*_stepped(_ANSWER), cancelled=True))
    yield VectorSource(rule, "no-end-becomes-aborted", "a cancelled run torn down before its "
                       "end is aborted and reports the partial text",
                       _settle(_turn_start(), _step_start(), _delta("partial "), _delta("answer"),
                               cancelled=True))
    yield VectorSource(rule, "error-becomes-aborted", "a cancelled run that ended in error is "
                       "aborted", _settle(*_stepped(_ANSWER, kind="error"), cancelled=True))
    yield VectorSource(rule, "max-tokens-becomes-aborted", "a cancelled run that hit its token "
                       "limit is aborted",
                       _settle(*_stepped(_ANSWER, kind="max-tokens"), cancelled=True,
                               diagnostic="parent cancelled"))
    yield VectorSource(rule, "refusal-becomes-aborted", "a cancelled run that was refused is "
                       "aborted", _settle(_turn_start(), _claim(), _turn_end("blocked"),
                                          cancelled=True))

    rule = "settle.continuable-reason"
    for kind, reason in (("max-tokens", "max-tokens"), ("aborted", "aborted"),
                         ("interrupted", "aborted"), ("error", "error"), ("blocked", "refusal"),
                         ("completed", "completed"), ("paused", "error")):
        yield VectorSource(rule, f"kind-{kind}", f"a continuable end of kind {kind} stops with "
                           f"{reason}", _epoch(*_stepped(_ANSWER, kind=kind)))
    yield VectorSource(rule, "no-end-completed", "an epoch without an end and without dropped "
                       "work is completed", _epoch(_turn_start(), _step_start(), _ANSWER))
    yield VectorSource(rule, "failure-beats-later-cancel", "a recorded failure wins over a later "
                       "cancellation", _epoch(*_stepped(_ANSWER, kind="error"), _cancel()))
    yield VectorSource(rule, "interrupted-without-message", "a turn a backend closed as "
                       "interrupted is aborted, with its streamed text",
                       _epoch(_turn_start(4), _step_start(4), _chunk(
                           {"type": "text-delta", "index": 0, "text": "Half of the rep"}, 4),
                           _turn_end("interrupted", 4)))


def _contract_sources() -> Iterator[VectorSource]:
    rule = "settle.output"
    yield VectorSource(rule, "none-is-empty-list", "without a selection result.output is []",
                       _settle(*_stepped()))
    yield VectorSource(rule, "selection", "result.output is the selection, here streamed text",
                       _settle(*_streamed_turn("stream", "ed")))
    yield VectorSource(rule, "none-is-empty-list-continuable", "an epoch without a selection "
                       "has result.output [] too", _epoch(*_stepped(_message(usage=True))))

    rule = "settle.last-assistant"
    yield VectorSource(rule, "absent-when-none", "end.lastAssistantMessage is absent (not []) "
                       "when there is no selection",
                       _settle(*_stepped(_message(usage=True), kind="max-tokens")))
    yield VectorSource(rule, "present-is-selection", "end.lastAssistantMessage is the selection "
                       "of an interrupted message",
                       _settle(*_stepped(_message(_text("cut"), interrupted=True),
                                         kind="aborted"), cancelled=True))
    yield VectorSource(rule, "absent-empty-text", "empty text deltas give no selection: the key "
                       "is absent", _epoch(*_stepped(_delta(""))))

    rule = "settle.tool-result"
    yield VectorSource(rule, "completed-joins-text", "a completed run's text is its text blocks "
                       "joined with nothing; reasoning and images are left out",
                       _settle(*_stepped(_message(_text("one "), _reasoning("hidden"), _image(),
                                                  _text("two")))))
    yield VectorSource(rule, "completed-no-output", "a completed run without output is not an "
                       "error and has empty text", _settle(*_stepped()))
    yield VectorSource(rule, "completed-hides-diagnostic", "a diagnostic given for a completed "
                       "run is not shown", _settle(*_stepped(_ANSWER), diagnostic="retried once"))
    yield VectorSource(rule, "error-diagnostic-partial", "an error carries the headline, the "
                       "diagnostic and the partial output, in that order",
                       _settle(_turn_start(), _step_start(), _delta("so far"),
                               _turn_end("error"), diagnostic="HTTP 500"))
    yield VectorSource(rule, "empty-diagnostic-line", "an empty diagnostic still adds its line: "
                       "presence decides, not content",
                       _settle(*_stepped(_ANSWER, kind="error"), diagnostic=""))
    yield VectorSource(rule, "empty-diagnostic-empty-log", "an empty log with an empty "
                       "diagnostic: the headline and the empty Diagnostic line",
                       _settle(diagnostic=""))
    yield VectorSource(rule, "max-tokens-headline", "a run that hit its token limit has its own "
                       "headline and no partial line without text",
                       _settle(*_stepped(_message(_reasoning("r")), kind="max-tokens")))
    yield VectorSource(rule, "refusal-headline", "a refused run has its own headline",
                       _settle(_turn_start(), _claim(), _turn_end("blocked"),
                               diagnostic="policy"))
    yield VectorSource(rule, "aborted-headline", "a cancelled run has its own headline and the "
                       "streamed text as partial output",
                       _settle(_delta("line 1\nline 2"), cancelled=True))
    yield VectorSource(rule, "continuable-has-none", "a continuable answer has no toolResult",
                       _epoch(*_stepped(_ANSWER, kind="error")))

    rule = "settle.agrees"
    yield VectorSource(rule, "tool-call-only-completed", "a completed run whose output is a tool "
                       "call has empty tool-result text",
                       _settle(*_stepped(_message(_tool_call()))))
    yield VectorSource(rule, "noise-ignored", "unknown events, user messages and tool results "
                       "change nothing", _settle(_user("q"), ("mystery", {"x": 1}),
                                                 *_stepped(_tool_result("t"), _ANSWER)))
    yield VectorSource(rule, "empty-log", "an empty log settles as error without output",
                       _settle())
    yield VectorSource(rule, "empty-epoch", "an empty epoch settles as completed without output",
                       _epoch())
