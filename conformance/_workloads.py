"""Deterministic agent-event streams for measuring projection throughput (docs/benchmark.md).

Every generator is seeded (``random.Random``, never hypothesis) and builds **fresh objects on
every call**: the same seed gives equal events, but never the same string objects. That matters
because CPython caches a string's UTF-8 form the first time it is encoded, so serializing the same
objects a second time looks about twice as fast as serializing what a reader just parsed. Each
string is therefore a new slice of a cached corpus (a slice shorter than its source is always a
copy) or a new repetition, never a reused object.

Four streams share one shape (pi-style agent events, spec/wire.md §2) and differ in their text:

- ``light``: prose deltas and tool output with ANSI escape sequences, a few other controls and
  some non-ASCII punctuation; tool results of 1-40 KB and a few ~300 KB live tool updates (the
  ones the backstop of spec/wire.md §5 bounds): about one event in 1,200 is bounded;
- ``heavy``: the ``light`` stream where long-running tools are common and stream 300 KB to
  4 MiB of ASCII, CJK, emoji or control characters as live updates, about one event in 200
  over the bound; a tool's result keeps only its last 16,000 code points, as harnesses
  truncate tool results, so the big texts travel only in updates;
- ``escape``: quotes, backslashes, NUL, ESC and the other C0 controls everywhere (each costs 2 or
  6 bytes once escaped, spec/wire.md §6.2);
- ``astral``: emoji, CJK and a few lone surrogates (the canonical form writes U+FFFD for them,
  spec/wire.md §6.1).

Three more workloads (:data:`WORKLOAD_KINDS`, built by :func:`build_workload`) are the size of
most real events rather than of their largest texts:

- ``transcript``: a child agent's own stream, the shape of seed 002 (:func:`child_transcript`):
  per turn 150 text deltas whose ``message_update`` carries the growing partial message (in
  ``message`` and in ``assistantMessageEvent.partial``), one tool whose live updates grow by
  1 KiB each, and ``turn_end`` and ``agent_end`` carrying their messages;
- ``facts-256``, ``facts-1k``: ``tool_execution_end`` facts with 256 or 1,024 code points of
  tool output (:func:`sized_events`).
"""

from __future__ import annotations

import itertools
import json
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final, Literal

StreamKind = Literal["light", "heavy", "escape", "astral"]
TextKind = Literal["ascii", "cjk", "emoji", "nul", "control", "tool-output"]

#: The streams :func:`build_stream` builds.
STREAM_KINDS: Final[tuple[StreamKind, ...]] = ("light", "heavy", "escape", "astral")
#: The single-text kinds :func:`live_update` builds.
TEXT_KINDS: Final[tuple[TextKind, ...]] = ("ascii", "cjk", "emoji", "nul", "control",
                                           "tool-output")
#: The text kinds of the heavy stream's big live updates.
HEAVY_TEXT_KINDS: Final[tuple[TextKind, ...]] = ("ascii", "cjk", "emoji", "control")
#: UTF-8 sizes (before escaping) between which a heavy stream's long-running tool output lies.
HEAVY_UPDATE_BYTES: Final = (300_000, 4 * 1024 * 1024)
#: Code points of the end of its output that a tool's result keeps in the heavy stream.
HEAVY_RESULT_CHARS: Final = 16_000
#: Events in a stream unless told otherwise.
DEFAULT_EVENTS: Final = 10_000
#: The size of a long-running tool's last live update (before ``scale``): over the default
#: maxBytes of 262144, so the backstop bounds it (spec/wire.md §5.1).
BIG_UPDATE_CHARS: Final = 300_000
_CORPUS_CHARS: Final = 1 << 20
#: How often a heavy stream's tool runs long (about one event in 200 is then bounded).
_HEAVY_LONG_RUNNING: Final = 0.05
#: UTF-8 bytes per code point of each single-text kind, before escaping.
_BYTES_PER_CHAR: Final[dict[str, int]] = {"ascii": 1, "cjk": 3, "emoji": 4, "nul": 1,
                                          "control": 1, "tool-output": 1}
_EPOCH_MS: Final = 1_761_571_622_000

Fragments = tuple[tuple[str, float], ...]

# -- alphabets: fragments and their weights ------------------------------------------------------

_PROSE: Fragments = (
    *((word, 6.0) for word in (
        "the ", "event ", "stream ", "a ", "of ", "to ", "and ", "is ", "in ", "that ", "we ",
        "function ", "returns ", "value ", "test ", "file ", "line ", "update ", "message ",
        "tool ", "result ", "should ", "will ", "this ", "it ", "for ", "with ", "output ",
    )),
    (". ", 3.0), (", ", 3.0), ("\n", 1.5), ("\n\n", 0.5), ("`", 0.8), ("```python\n", 0.05),
    ("def ", 0.5), ("(x)", 0.4), (": ", 0.6), ("- ", 0.5), ("**", 0.3), ("1. ", 0.2),
    ("’", 0.15), ("—", 0.1), ("é", 0.05), ("\t", 0.05),
)
_TOOL: Fragments = (
    *((word, 4.0) for word in (
        "src/", "tests/", "module", ".py", ".ts", "::", "PASSED", "FAILED", "error", "warning",
        "ok ", "npm ", "build ", "line ", "col ", "[", "]", "(", ")", "=", "-", "_", "/",
    )),
    *((str(digit), 1.0) for digit in range(10)),
    (" ", 8.0), ("\n", 3.0), ("  ", 2.0), ("\t", 0.4), ("\r", 0.3),
    ("\x1b[32m", 0.6), ("\x1b[31m", 0.3), ("\x1b[1;33m", 0.2), ("\x1b[0m", 0.9), ("\x1b[2K", 0.2),
    ("✓ ", 0.3), ("✗ ", 0.1), ("│", 0.2), ("…", 0.05), ("\x00", 0.01), ("\x07", 0.01),
)
_ESCAPE: Fragments = (
    ('"', 3.0), ("\\", 3.0), ("\x00", 2.0), ("\x1b", 2.0), ("\x1b[0m", 1.0), ("\n", 2.0),
    ("\r", 1.0), ("\t", 1.0), ("\b", 0.5), ("\f", 0.5), ("\x01", 0.5), ("\x0b", 0.5),
    ("\x1f", 0.5), ("\x7f", 0.3), ('{"key": "va\\"lue"}', 0.5), ("C:\\Users\\dev\\", 0.5),
    ("word ", 3.0), ("x", 2.0),
)
_LONE_SURROGATES = ("\ud83d", "\udc00", "\udbff", "\ude00")
_ASTRAL: Fragments = (
    ("😀", 2.0), ("🚀", 1.5), ("👍🏽", 1.0), ("👨‍👩‍👧", 0.5), ("🧪", 1.0), ("🎉", 1.0),
    ("𝔘𝔫𝔦", 0.5),
    ("漢字", 2.0), ("日本語のテキスト", 2.0), ("中文输出", 1.5), ("한국어", 1.0), ("。", 1.0),
    (" ", 2.0), ("ok ", 1.0), ("\n", 0.5),
    *((surrogate, 0.02) for surrogate in _LONE_SURROGATES),
)
_ASCII: Fragments = tuple(
    (text, weight) for text, weight in _PROSE + _TOOL if text.isascii() and "\x1b" not in text
    and all(" " <= char <= "~" or char == "\n" for char in text)
)
#: Terminal output that redraws itself: carriage returns, backspaces, erase-line, bells, NUL.
_CONTROL: Fragments = (
    ("\r", 3.0), ("\x08", 2.0), ("\x1b[2K", 1.0), ("\x1b[1A", 0.5), ("\x00", 1.0),
    ("\x07", 0.5), ("\x1b", 1.0), ("\x01", 0.5), ("\x1f", 0.5), ("\t", 0.5), ("#", 1.0),
    ("42%", 0.3),
)
_CJK: Fragments = (("漢字", 2.0), ("日本語", 2.0), ("中文输出", 1.0), ("한국어", 1.0), ("。", 0.5))
_EMOJI: Fragments = (("😀", 1.0), ("🚀", 1.0), ("🧪", 1.0), ("🎉", 1.0), ("𝔘", 1.0))
_ID_CHARS: Fragments = tuple(
    (char, 1.0) for char in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
)

_ALPHABETS: Final[dict[str, Fragments]] = {
    "prose": _PROSE, "tool": _TOOL, "escape": _ESCAPE, "astral": _ASTRAL, "ascii": _ASCII,
    "cjk": _CJK, "emoji": _EMOJI, "control": _CONTROL, "ids": _ID_CHARS,
}
#: Which alphabet a stream uses for assistant text and for tool output.
_STREAM_ALPHABETS: Final[dict[str, tuple[str, str]]] = {
    "light": ("prose", "tool"), "heavy": ("prose", "tool"), "escape": ("escape", "escape"),
    "astral": ("astral", "astral"),
}
#: The seed name of each stream: ``light`` keeps the one it had as ``realistic``, so that it is
#: still the same stream event for event.
_STREAM_SEED_NAMES: Final[dict[str, str]] = {"light": "realistic"}


@lru_cache(maxsize=32)
def corpus(alphabet: str, seed: int = 0, *, well_formed: bool = False) -> str:
    """A cached source text of about a million code points drawn from ``alphabet``.

    Never hand it out as is: callers slice it (:func:`fresh_text`), which copies. With
    ``well_formed`` every lone surrogate is U+FFFD instead, drawn from the same random choices,
    so the two corpora have equal lengths and differ only there.
    """
    fragments = _ALPHABETS[alphabet]
    rng = random.Random(f"eventproof-corpus:{alphabet}:{seed}")
    texts = [text for text, _ in fragments]
    weights = [weight for _, weight in fragments]
    mean = sum(len(text) * weight for text, weight in fragments) / sum(weights)
    pieces = rng.choices(texts, weights, k=math.ceil(_CORPUS_CHARS / mean))
    text = "".join(pieces)
    if well_formed:
        for surrogate in _LONE_SURROGATES:
            text = text.replace(surrogate, "\ufffd")
    return text


def fresh_text(source: str, start: int, length: int) -> str:
    """``length`` code points of ``source`` from ``start`` (wrapping), as a new string object.

    A slice shorter than its source is a copy; longer texts are joined from several slices.
    Texts of fewer than two code points may be CPython's shared one-character strings, which
    is harmless: those are never cached in another encoding.
    """
    size = len(source)
    start %= size
    if length < size - start:
        return source[start:start + length]
    pieces: list[str] = []
    remaining = length
    while remaining > 0:
        take = min(remaining, size - start, size - 1)
        pieces.append(source[start:start + take])
        remaining -= take
        start = (start + take) % size
    return "".join(pieces)


@dataclass(frozen=True)
class _Text:
    """Where a text lives in a corpus; :meth:`make` builds a fresh copy each time it is used."""

    source: str
    start: int
    length: int

    def make(self, length: int | None = None) -> str:
        return fresh_text(self.source, self.start, self.length if length is None else length)


def _scaled(value: float, scale: float) -> int:
    return max(1, round(value * scale))


# -- one stream ---------------------------------------------------------------------------------


class _StreamBuilder:
    """Builds a pi-style agent event stream turn by turn (spec/wire.md §2)."""

    def __init__(self, kind: str, seed: int, scale: float, well_formed: bool) -> None:
        if kind not in _STREAM_ALPHABETS:
            raise ValueError(f"unknown stream {kind!r}; use one of {', '.join(STREAM_KINDS)}")
        prose, tool = _STREAM_ALPHABETS[kind]
        self.kind = kind
        self.seed = seed
        self.well_formed = well_formed
        self.rng = random.Random(
            f"eventproof-stream:{_STREAM_SEED_NAMES.get(kind, kind)}:{seed}")
        self.prose = corpus(prose, seed, well_formed=well_formed)
        self.tool = corpus(tool, seed, well_formed=well_formed)
        self.ids = corpus("ids", seed)
        self.scale = scale
        self.time = _EPOCH_MS
        self.events: list[dict[str, Any]] = []
        self.messages: list[Callable[[], dict[str, Any]]] = []

    # -- pieces --

    def text(self, source: str, low: float, high: float, *, log: bool = False) -> _Text:
        if log:
            length = math.exp(self.rng.uniform(math.log(low), math.log(high)))
        else:
            length = self.rng.uniform(low, high)
        return _Text(source, self.rng.randrange(len(source)), _scaled(length, self.scale))

    def identifier(self, prefix: str, length: int) -> str:
        return prefix + fresh_text(self.ids, self.rng.randrange(len(self.ids)), length)

    def tick(self) -> int:
        self.time += self.rng.randint(5, 400)
        return self.time

    def usage(self, output_tokens: int) -> dict[str, Any]:
        # Floats, as every provider reports cost: the canonical number form (spec/wire.md §6.3)
        # is part of what a projection costs.
        input_tokens = 1800 + 37 * len(self.messages)
        return {
            "input": input_tokens, "output": output_tokens, "cacheRead": 0, "cacheWrite": 0,
            "totalTokens": input_tokens + output_tokens,
            "cost": {"input": input_tokens * 3e-06, "output": output_tokens * 1.5e-05,
                     "cacheRead": 0, "cacheWrite": 0,
                     "total": input_tokens * 3e-06 + output_tokens * 1.5e-05},
        }

    @staticmethod
    def assistant(content: list[dict[str, Any]], usage: dict[str, Any], stop: str,
                  time: int) -> dict[str, Any]:
        return {"role": "assistant", "content": content, "api": "anthropic-messages",
                "provider": "anthropic", "model": "claude-sonnet-4-5", "usage": usage,
                "stopReason": stop, "timestamp": time}

    def emit(self, event: dict[str, Any]) -> None:
        self.events.append(event)

    # -- one turn --

    def turn(self, index: int, last: bool) -> None:
        rng = self.rng
        self.emit({"type": "turn_start"})
        if index == 0:
            task = self.text(self.prose, 200, 1200)
            time = self.tick()

            def user() -> dict[str, Any]:
                return {"role": "user", "content": [{"type": "text", "text": task.make()}],
                        "timestamp": time}

            self.emit({"type": "message_start", "message": user()})
            self.emit({"type": "message_end", "message": user()})
            self.messages.append(user)

        # The assistant message: optional thinking, text, then (unless last) tool calls.
        plan: list[tuple[str, _Text, list[int]]] = []
        if rng.random() < 0.3:
            thinking = self.text(self.prose, 300, 2500)
            plan.append(("thinking", thinking, self.cuts(thinking.length)))
        answer = self.text(self.prose, 100, 4000)
        plan.append(("text", answer, self.cuts(answer.length)))
        calls = [] if last else [self.tool_call() for _ in range(1 + (rng.random() < 0.2))]
        started = self.tick()
        stop = "stop" if last else "toolUse"

        def blocks(done: int, partial_len: int, call_args: int) -> list[dict[str, Any]]:
            """Content blocks when ``done`` blocks are complete and the next has a prefix."""
            content: list[dict[str, Any]] = []
            for position, (key, text, _) in enumerate(plan):
                if position < done:
                    content.append({"type": key, key: text.make()})
                elif position == done:
                    content.append({"type": key, key: text.make(partial_len)})
            for position, call in enumerate(calls, start=len(plan)):
                if position < done:
                    content.append(call.block(None))
                elif position == done:
                    content.append(call.block(call_args))
            return content

        tokens = 0

        def snapshot(done: int, partial_len: int = 0, call_args: int = 0) -> dict[str, Any]:
            return self.assistant(blocks(done, partial_len, call_args), self.usage(tokens),
                                  stop, started)

        self.emit({"type": "message_start",
                   "message": self.assistant([], self.usage(0), stop, started)})
        for position, (key, text, cuts) in enumerate(plan):
            self.update(snapshot, position, {"type": f"{key}_start"}, 0)
            previous = 0
            for cut in cuts:
                tokens += max(1, (cut - previous) // 4)
                delta = text.make(cut)[previous:]  # a fresh string: a slice of a fresh copy
                self.update(snapshot, position, {"type": f"{key}_delta", "delta": delta}, cut)
                previous = cut
            self.update(snapshot, position, {"type": f"{key}_end", "content": text.make()},
                        text.length)
        for position, call in enumerate(calls, start=len(plan)):
            self.update(snapshot, position, {"type": "toolcall_start"}, 0, call_args=0)
            for cut in call.cuts:
                self.update(snapshot, position,
                            {"type": "toolcall_delta", "delta": call.arguments_json()[:cut]},
                            0, call_args=cut)
            self.update(snapshot, position, {"type": "toolcall_end",
                                             "toolCall": call.block(None)}, 0, call_args=None)
        final_tokens = tokens
        ended = self.tick()

        def final() -> dict[str, Any]:
            content = blocks(len(plan) + len(calls), 0, 0)
            return self.assistant(content, self.usage(final_tokens), stop, ended)

        self.emit({"type": "message_end", "message": final()})
        self.messages.append(final)

        results: list[Callable[[], dict[str, Any]]] = []
        for call in calls:
            results.append(self.execute(call))
        self.emit({"type": "turn_end", "message": final(),
                   "toolResults": [result() for result in results]})

    def cuts(self, length: int) -> list[int]:
        """Where the deltas of a text of ``length`` code points end (20-200 code points each)."""
        ends: list[int] = []
        position = 0
        while position < length:
            position = min(length, position + _scaled(self.rng.randint(20, 200), self.scale))
            ends.append(position)
        return ends

    def update(self, snapshot: Callable[..., dict[str, Any]], position: int,
               message_event: dict[str, Any], partial_len: int,
               call_args: int | None = 0) -> None:
        # message and assistantMessageEvent.partial are separate objects, as a reader that
        # parsed the line would have them: no string is shared between the two.
        args = 0 if call_args is None else call_args
        done = position + 1 if call_args is None else position
        event_message = {**message_event, "contentIndex": position}
        event_message["partial"] = snapshot(done, partial_len, args)
        self.emit({"type": "message_update", "message": snapshot(done, partial_len, args),
                   "assistantMessageEvent": event_message})

    def tool_call(self) -> _ToolCall:
        rng = self.rng
        name = rng.choice(("bash", "read", "edit", "grep"))
        argument = self.text(self.tool, 20, 160)
        call = _ToolCall(self.identifier("toolu_01", 22), name, argument, [])
        size = len(call.arguments_json())
        call.cuts.extend(sorted({max(1, size * step // 4) for step in (1, 2, 3)}))
        return call

    def long_running_output(self) -> _Text:
        """A heavy stream's long-running output: 300 KB to 4 MiB of one big-text kind."""
        rng = self.rng
        kind = rng.choice(HEAVY_TEXT_KINDS)
        low, high = HEAVY_UPDATE_BYTES
        size = math.exp(rng.uniform(math.log(low), math.log(high)))
        length = _scaled(size / _BYTES_PER_CHAR[kind], self.scale)
        source = corpus(kind, self.seed, well_formed=self.well_formed)
        return _Text(source, rng.randrange(len(source)), length)

    def execute(self, call: _ToolCall) -> Callable[[], dict[str, Any]]:
        """tool_execution_start, live updates, tool_execution_end and the result message."""
        rng = self.rng
        output = self.text(self.tool, 1024, 40 * 1024, log=True)
        updates: list[int] = []
        if self.kind == "heavy" and rng.random() < _HEAVY_LONG_RUNNING:
            output = self.long_running_output()
            count = rng.randint(3, 5)
            updates = [output.length * (step + 1) // count for step in range(count)]
        elif rng.random() < 0.04:  # a long-running command: its last updates exceed maxBytes
            output = _Text(output.source, output.start,
                           _scaled(rng.uniform(0.93, 1.07) * BIG_UPDATE_CHARS, self.scale))
            count = rng.randint(3, 5)
            updates = [output.length * (step + 1) // count for step in range(count)]
        elif rng.random() < 0.3:
            updates = sorted(rng.sample(range(1, output.length + 1), min(3, output.length)))
        kept = output
        if self.kind == "heavy" and output.length > _scaled(HEAVY_RESULT_CHARS, self.scale):
            # The harness keeps the end of a long output as the tool's result.
            length = _scaled(HEAVY_RESULT_CHARS, self.scale)
            kept = _Text(output.source, output.start + output.length - length, length)
        is_error = rng.random() < 0.05
        common = {"toolCallId": call.id, "toolName": call.name}
        self.emit({"type": "tool_execution_start", **common, "args": call.arguments()})
        for length in updates:
            self.emit({"type": "tool_execution_update", **common, "args": call.arguments(),
                       "partialResult": {"content": [{"type": "text", "text": output.make(length)}],
                                         "details": {}}})
        details_time = self.tick()

        def result() -> dict[str, Any]:
            return {"content": [{"type": "text", "text": kept.make()}],
                    "details": {"exitCode": 1 if is_error else 0, "durationMs": 1840}}

        self.emit({"type": "tool_execution_end", **common, "result": result(),
                   "isError": is_error})

        def message() -> dict[str, Any]:
            return {"role": "toolResult", "toolCallId": call.id, "toolName": call.name,
                    **result(), "isError": is_error, "timestamp": details_time}

        self.emit({"type": "message_start", "message": message()})
        self.emit({"type": "message_end", "message": message()})
        self.messages.append(message)
        return message


@dataclass
class _ToolCall:
    id: str
    name: str
    argument: _Text
    cuts: list[int]

    def arguments(self) -> dict[str, Any]:
        key = "command" if self.name == "bash" else "path"
        return {key: self.argument.make()}

    def arguments_json(self) -> str:
        return json.dumps(self.arguments(), ensure_ascii=False)

    def block(self, args_len: int | None) -> dict[str, Any]:
        # While streaming, the arguments are whatever parses so far; pi shows {} until the end.
        arguments = self.arguments() if args_len is None else {}
        return {"type": "toolCall", "id": self.id, "name": self.name, "arguments": arguments}


def build_stream(kind: str = "light", *, events: int = DEFAULT_EVENTS, seed: int = 0,
                 scale: float = 1.0, well_formed: bool = False) -> list[dict[str, Any]]:
    """``events`` agent events of the ``kind`` stream, freshly built (see the module docstring).

    ``scale`` multiplies every text length (1.0: deltas of 20-200 code points, tool results of
    1-40 KB, a few ~300 KB live updates). ``well_formed`` replaces each lone surrogate of the
    ``astral`` stream by U+FFFD (for encoders that refuse lone surrogates, such as ``orjson``);
    the other streams have none. The last event is ``agent_end`` with every message of the run.
    """
    if events < 1:
        raise ValueError(f"events={events}: a stream has at least one event (agent_end)")
    if not scale > 0:
        raise ValueError(f"scale={scale}: use a positive factor")
    builder = _StreamBuilder(kind, seed, scale, well_formed)
    builder.emit({"type": "agent_start"})
    turn = 0
    while len(builder.events) < events - 1:
        builder.turn(turn, last=len(builder.events) > events * 0.97)
        turn += 1
    del builder.events[max(events - 1, 0):]
    builder.emit({"type": "agent_end", "messages": [make() for make in builder.messages]})
    return builder.events


# -- single texts and events --------------------------------------------------------------------




def text_of_size(kind: str, size: int, *, seed: int = 0) -> str:
    """A fresh text of ``kind`` whose UTF-8 form has about ``size`` bytes (before escaping).

    ``ascii`` is printable prose, ``cjk`` three-byte characters, ``emoji`` four-byte ones, ``nul``
    only U+0000 (six bytes each once escaped), ``control`` terminal redraws (carriage returns,
    backspaces, erase-line sequences: mostly C0 controls) and ``tool-output`` the realistic
    tool mix.
    """
    if kind not in _BYTES_PER_CHAR:
        raise ValueError(f"unknown text kind {kind!r}; use one of {', '.join(TEXT_KINDS)}")
    length = max(1, size // _BYTES_PER_CHAR[kind])
    if kind == "nul":
        return "\x00" * length  # repetition builds a new object every time
    source = corpus("tool" if kind == "tool-output" else kind, seed)
    start = random.Random(f"eventproof-text:{kind}:{size}:{seed}").randrange(len(source))
    text = fresh_text(source, start, length)
    # Mixed text has a few multi-byte characters: drop code points until the size is right
    # (str.encode leaves no cached copy behind, so the text stays fresh).
    excess = len(text.encode("utf-8", "surrogatepass")) - size
    while excess > 0 and length > 1:
        length -= max(1, excess // 4)
        text = fresh_text(source, start, length)
        excess = len(text.encode("utf-8", "surrogatepass")) - size
    return text


def live_update(kind: str, size: int, *, seed: int = 0) -> dict[str, Any]:
    """A fresh ``tool_execution_update`` whose text is :func:`text_of_size` (spec/wire.md §5)."""
    return {
        "type": "tool_execution_update", "toolCallId": "toolu_01" + "A" * 22 + str(seed),
        "toolName": "bash", "args": {"command": "make test 2>&1 | tee build.log"},
        "partialResult": {"content": [{"type": "text", "text": text_of_size(kind, size,
                                                                            seed=seed)}],
                          "details": {"truncated": False}},
    }


def sized_events(size: int, count: int, *, seed: int = 0) -> list[dict[str, Any]]:
    """``count`` fresh ``tool_execution_end`` facts, each carrying ``size`` bytes of tool output."""
    source = corpus("tool", seed)
    rng = random.Random(f"eventproof-sized:{size}:{seed}")
    return [
        {"type": "tool_execution_end", "toolCallId": f"toolu_01{index:022d}", "toolName": "bash",
         "result": {"content": [{"type": "text",
                                 "text": fresh_text(source, rng.randrange(len(source)), size)}],
                    "details": {"exitCode": 0}},
         "isError": False}
        for index in range(count)
    ]


def json_size(events: Sequence[Any]) -> int:
    """Bytes of ``events`` as compact UTF-8 JSON lines (the stream's size; newlines excluded)."""
    return sum(
        len(json.dumps(event, ensure_ascii=False, separators=(",", ":"))
            .encode("utf-8", "surrogatepass"))
        for event in events
    )


# -- the child's transcript and small facts ------------------------------------------------------

#: The shape of :func:`child_transcript` by default: seed 002's 20-turn child with 150 deltas.
TRANSCRIPT_TURNS: Final = 20
TRANSCRIPT_DELTAS: Final = 150
TRANSCRIPT_TOOL_UPDATES: Final = 20
#: Code points a tool's output grows by from one live update to the next.
TRANSCRIPT_UPDATE_STEP: Final = 1024

WorkloadKind = Literal["light", "heavy", "escape", "astral", "transcript", "facts-256",
                       "facts-1k"]
#: Every workload :func:`build_workload` builds: the streams, the child's transcript, and facts
#: of 256 and 1,024 code points of tool output.
WORKLOAD_KINDS: Final[tuple[WorkloadKind, ...]] = (*STREAM_KINDS, "transcript", "facts-256",
                                                    "facts-1k")
_FACT_SIZES: Final = {"facts-256": 256, "facts-1k": 1024}


def child_transcript(*, turns: int = TRANSCRIPT_TURNS, deltas: int = TRANSCRIPT_DELTAS,
                     tool_updates: int = TRANSCRIPT_TOOL_UPDATES, seed: int = 0,
                     scale: float = 1.0, events: int | None = None) -> list[dict[str, Any]]:
    """A child agent's event stream, freshly built: the shape seed 002's subagent streamed.

    Every turn: ``turn_start``, the assistant message streamed as ``deltas`` text deltas of 3 to
    8 code points (each ``message_update`` carries the partial message so far twice, as
    ``message`` and as ``assistantMessageEvent.partial``, separate objects), a tool call, the
    tool's ``tool_updates`` live updates whose output grows by 1,024 code points (times
    ``scale``) each, its ``tool_execution_end`` and result message, and ``turn_end`` with the
    assistant message and the tool result. The last event is ``agent_end`` with every message.
    With ``events``, turns are added until the stream has that many events (the last one
    ``agent_end``), as :func:`build_stream` does.
    """
    if turns < 1 or deltas < 1 or tool_updates < 1:
        raise ValueError(f"turns={turns}, deltas={deltas}, tool_updates={tool_updates}: each "
                         "must be at least 1")
    if events is not None and events < 1:
        raise ValueError(f"events={events}: a stream has at least one event (agent_end)")
    if not scale > 0:
        raise ValueError(f"scale={scale}: use a positive factor")
    rng = random.Random(f"eventproof-transcript:{seed}")
    prose, tool = corpus("prose", seed), corpus("tool", seed)
    ids = corpus("ids", seed)
    step = _scaled(TRANSCRIPT_UPDATE_STEP, scale)
    clock = _EPOCH_MS
    stream: list[dict[str, Any]] = [{"type": "agent_start"}]
    history: list[Callable[[], dict[str, Any]]] = []
    task = _Text(prose, rng.randrange(len(prose)), _scaled(400, scale))

    def user() -> dict[str, Any]:
        return {"role": "user", "content": [{"type": "text", "text": task.make()}],
                "timestamp": _EPOCH_MS}

    stream += [{"type": "turn_start"}, {"type": "message_start", "message": user()},
               {"type": "message_end", "message": user()}]
    history.append(user)
    turn = 0
    while turn < turns or (events is not None and len(stream) < events - 1):
        # The text: consecutive pieces of one corpus slice, so every prefix is fresh to build.
        cuts = list(itertools.accumulate(rng.randint(3, 8) for _ in range(deltas)))
        text = _Text(prose, rng.randrange(len(prose)), cuts[-1])
        call_id = "toolu_01" + fresh_text(ids, rng.randrange(len(ids)), 22)
        command = _Text(tool, rng.randrange(len(tool)), rng.randint(20, 120))
        output = _Text(tool, rng.randrange(len(tool)), step * tool_updates)
        started = clock = clock + 400
        input_tokens = 1800 + 600 * turn

        def usage(output_tokens: int, input_tokens: int = input_tokens) -> dict[str, Any]:
            return {"input": input_tokens, "output": output_tokens, "cacheRead": 0,
                    "cacheWrite": 0, "totalTokens": input_tokens + output_tokens,
                    "cost": {"input": input_tokens * 3e-06, "output": output_tokens * 1.5e-05,
                             "cacheRead": 0, "cacheWrite": 0,
                             "total": input_tokens * 3e-06 + output_tokens * 1.5e-05}}

        def assistant(length: int, call: str | None, tokens: int, started: int = started,
                      text: _Text = text, command: _Text = command,
                      call_id: str = call_id,
                      usage: Callable[[int], dict[str, Any]] = usage) -> dict[str, Any]:
            content: list[dict[str, Any]] = [{"type": "text", "text": text.make(length)}]
            if call is not None:
                arguments = {} if call == "open" else {"command": command.make()}
                content.append({"type": "toolCall", "id": call_id, "name": "bash",
                                "arguments": arguments})
            return {"role": "assistant", "content": content, "api": "anthropic-messages",
                    "provider": "anthropic", "model": "claude-sonnet-4-5",
                    "usage": usage(tokens), "stopReason": "toolUse", "timestamp": started}

        def update(message_event: dict[str, Any], length: int, call: str | None,
                   tokens: int) -> dict[str, Any]:
            message_event["partial"] = assistant(length, call, tokens)
            return {"type": "message_update", "message": assistant(length, call, tokens),
                    "assistantMessageEvent": message_event}

        stream += [{"type": "turn_start"},
                   {"type": "message_start", "message": assistant(0, None, 0)},
                   update({"type": "text_start", "contentIndex": 0}, 0, None, 0)]
        previous = 0
        for index, cut in enumerate(cuts):
            delta = text.make(cut)[previous:]
            stream.append(update({"type": "text_delta", "contentIndex": 0, "delta": delta}, cut,
                                 None, index + 1))
            previous = cut
        tokens = len(cuts)
        stream += [
            update({"type": "text_end", "contentIndex": 0, "content": text.make()}, cut, None,
                   tokens),
            update({"type": "toolcall_start", "contentIndex": 1}, cut, "open", tokens),
            update({"type": "toolcall_end", "contentIndex": 1,
                    "toolCall": {"type": "toolCall", "id": call_id, "name": "bash",
                                 "arguments": {"command": command.make()}}},
                   cut, "done", tokens + 10),
        ]

        def final(text: _Text = text, tokens: int = tokens + 10,
                  assistant: Callable[..., dict[str, Any]] = assistant) -> dict[str, Any]:
            return assistant(text.length, "done", tokens)

        stream += [{"type": "message_end", "message": final()},
                   {"type": "tool_execution_start", "toolCallId": call_id, "toolName": "bash",
                    "args": {"command": command.make()}}]
        for count in range(1, tool_updates + 1):
            stream.append({
                "type": "tool_execution_update", "toolCallId": call_id, "toolName": "bash",
                "args": {"command": command.make()},
                "partialResult": {"content": [{"type": "text", "text": output.make(step * count)}],
                                  "details": {}}})
        clock += 2000
        finished = clock

        def result(output: _Text = output) -> dict[str, Any]:
            return {"content": [{"type": "text", "text": output.make()}],
                    "details": {"exitCode": 0, "durationMs": 2000}}

        def tool_result(call_id: str = call_id, result: Callable[[], dict[str, Any]] = result,
                        finished: int = finished) -> dict[str, Any]:
            return {"role": "toolResult", "toolCallId": call_id, "toolName": "bash",
                    **result(), "isError": False, "timestamp": finished}

        stream += [{"type": "tool_execution_end", "toolCallId": call_id, "toolName": "bash",
                    "result": result(), "isError": False},
                   {"type": "message_start", "message": tool_result()},
                   {"type": "message_end", "message": tool_result()},
                   {"type": "turn_end", "message": final(), "toolResults": [tool_result()]}]
        history += [final, tool_result]
        turn += 1
    if events is not None:
        del stream[events - 1:]
    stream.append({"type": "agent_end", "messages": [make() for make in history]})
    return stream


def build_workload(kind: str, *, events: int = DEFAULT_EVENTS, seed: int = 0,
                   scale: float = 1.0, well_formed: bool = False) -> list[dict[str, Any]]:
    """``events`` fresh events of any workload of :data:`WORKLOAD_KINDS`.

    The streams are :func:`build_stream`'s; ``transcript`` is :func:`child_transcript` cut or
    extended to ``events``; ``facts-256`` and ``facts-1k`` are :func:`sized_events` (with
    ``scale`` on their size). ``well_formed`` matters only to ``astral``, the one workload with
    lone surrogates.
    """
    if kind in STREAM_KINDS:
        return build_stream(kind, events=events, seed=seed, scale=scale, well_formed=well_formed)
    if events < 1:
        raise ValueError(f"events={events}: a stream has at least one event")
    if not scale > 0:
        raise ValueError(f"scale={scale}: use a positive factor")
    if kind == "transcript":
        return child_transcript(turns=1, events=events, seed=seed, scale=scale)
    if kind in _FACT_SIZES:
        return sized_events(_scaled(_FACT_SIZES[kind], scale), events, seed=seed)
    raise ValueError(f"unknown workload {kind!r}; use one of {', '.join(WORKLOAD_KINDS)}")
