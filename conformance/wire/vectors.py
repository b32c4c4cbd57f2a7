"""The wire profile's vector sources (spec/wire.md): hand-written inputs, one builder per rule
group; the reference computes the answers when ``spec/vectors/`` is generated."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from eventproof.reference import DEFAULT_MAX_BYTES, MARKER, canonical_bytes

from .._model import FIT_STRATEGIES, FitStrategy, VectorSource

JSON = Any
BOTH: tuple[FitStrategy, ...] = FIT_STRATEGIES


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

def classify_sources() -> Iterator[VectorSource]:
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

def project_sources() -> Iterator[VectorSource]:
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

    rule = "project.numbers"
    beyond = 2**53 + 1
    yield VectorSource(rule, "integer-past-safe-in-args", "an integer literal one past 2^53 in an "
                       "update's args cannot be carried: errored, never a rounded line",
                       _project(_update("ok", args={"seed": beyond})))
    yield VectorSource(rule, "negative-integer-past-safe-in-fact", "-(2^53) in a fact that passes "
                       "through is refused too",
                       _project({"type": "custom_metrics", "payload": {"n": -(2**53)}},
                                live=False))
    yield VectorSource(rule, "integer-past-safe-in-usage", "an integer past 2^53 - 1 in a "
                       "message_update's usage is carried, so it is refused",
                       _project(_message_update("text_delta", delta="x", message={
                           "role": "assistant", "content": [_wire_text("x")],
                           "usage": {"input": 10**21 + 1}})))
    yield VectorSource(rule, "overflow-in-details", "an overflowing number (1e400 on the wire, "
                       "read as infinity) in an update's details is refused, never written as "
                       "null", _project(_update("ok", details={"ratio": float("inf")})))
    yield VectorSource(rule, "negative-overflow-in-fact", "-1e400 in a fact is refused",
                       _project({"type": "custom_metrics", "payload": {"n": float("-inf")}}))
    yield VectorSource(rule, "safe-integer-carried", "2^53 - 1 itself and a double written with a "
                       "fraction are carried exactly",
                       _project(_update("ok", args={"max": 2**53 - 1, "big": 9007199254740992.0,
                                                    "e": 1e21})))
    yield VectorSource(rule, "integer-past-safe-in-partial", "a number in partial, which the "
                       "projection drops, is not refused",
                       _project(_message_update("text_delta", delta="x", partial={
                           "role": "assistant", "content": [_wire_text("x")], "seed": beyond})))
    yield VectorSource(rule, "overflow-in-turn-end-message", "an overflowing number in turn_end's "
                       "message, which the projection drops, is not refused",
                       _project({"type": "turn_end", "message": {
                           "role": "assistant", "content": [], "score": float("inf")},
                                 "toolResults": []}))
    yield VectorSource(rule, "integer-past-safe-in-agent-end", "agent_end's messages are dropped: "
                       "a number past 2^53 - 1 in them is not refused",
                       _project({"type": "agent_end", "messages": [
                           {"role": "user", "content": [], "id": beyond}]}))

    rule = "project.message-update"
    yield VectorSource(rule, "text-delta", "message_update keeps type, usage and the event "
                       "without partial, in that order",
                       _project(_message_update("text_delta", delta="lo")))
    yield VectorSource(rule, "no-usage", "a message without usage gives a line without the "
                       "usage key", _project(_message_update(
                           "thinking_delta", delta="hm", message=_assistant(usage=False))))
    yield VectorSource(rule, "empty-usage-kept", "a message whose usage is {} gives a line "
                       "with usage {}: an empty object is a value, not an absence",
                       _project(_message_update("text_delta", delta="lo", message={
                           "role": "assistant", "content": [_wire_text("Hello")], "usage": {}})))
    yield VectorSource(rule, "usage-of-the-message", "usage is the message's, never the "
                       "partial's, when the two differ",
                       _project(_message_update("text_delta", delta="lo", partial={
                           "role": "assistant", "content": [_wire_text("Hel")],
                           "usage": {"input": 99, "output": 1, "totalTokens": 100}})))
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


def bound_sources() -> Iterator[VectorSource]:
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

    yield VectorSource(rule, "text-member-of-other-types", "elements of another type carrying "
                       "a text member do not contribute: only type text does",
                       _project({"type": "tool_execution_update", "toolCallId": "t1",
                                 "toolName": "bash", "args": huge_args,
                                 "partialResult": {"content": [
                                     {"type": "thinking", "text": "not read"}, _wire_text("A"),
                                     {"type": "image", "text": "nor this", "data": "x"},
                                     {"type": "Text", "text": "nor this"}, _wire_text("B")]}},
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
    yield VectorSource(rule, "no-code-point-fits", "ids of 256 control characters at the smallest "
                       "maxBytes (3215): not one code point of tail fits, the empty tail does, and "
                       "the loop ends there (a tail taken as slice(-k) spins at k = 0)",
                       _project(_update("\u0001" * 1000, call_id="\u0002" * 300,
                                        name="\u0003" * 300), max_bytes=3215), BOTH)

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

def canon_sources() -> Iterator[VectorSource]:
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
