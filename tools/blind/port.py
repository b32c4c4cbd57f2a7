"""A port of the selection and wire profiles written from the spec text alone.

It answers ``select`` and ``fold`` (spec/selection.md §3-4, §6-7), ``classify`` and ``project``
(spec/wire.md §3-8) through the in-process interface of spec/protocol.md §8: an object with
``start()`` and ``run(op, input)``. Erroneous input raises :class:`PortError`, which the harness
reads as ``errored``; ``settle`` raises ``NotImplementedError`` (skipped).

Every step is a small method so that ``bugs.py`` can replace exactly one of them. Nothing here is
taken from the reference implementation: it is the kit's judge, not this file's source.
"""

from __future__ import annotations

import math
import re
from typing import Any, ClassVar

#: spec/wire.md §5.3: the marker that opens every bounded text.
MARKER = "[live output truncated]\n"
#: spec/wire.md §5.4: ids and names are clipped to this many code points in the bounded form.
ID_CLIP = 256
#: spec/wire.md §5.6: the smallest allowed maxBytes.
MIN_MAX_BYTES = 3215
#: spec/wire.md §7: the largest integer literal a line may carry.
MAX_SAFE_INTEGER = 2**53 - 1
#: spec/wire.md §6.4: array indices are below 2^32 - 1.
ARRAY_INDEX_LIMIT = 2**32 - 1
#: spec/wire.md §3: the two frame types.
FRAME_TYPES = frozenset({"message_update", "tool_execution_update"})

_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n",
                  "\f": "\\f", "\r": "\\r"}


class PortError(ValueError):
    """An input the port refuses: names the path, the value, the reason and the fix."""

    def __init__(self, path: str, value: Any, reason: str, fix: str) -> None:
        shown = repr(value)
        if len(shown) > 80:
            shown = shown[:77] + "..."
        super().__init__(f"{path}: {shown} {reason}; {fix}")
        self.path = path


def is_integer_value(value: Any) -> bool:
    """A JSON integer in JSON Schema's sense: ``4096`` and ``4096.0`` alike, never a boolean."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and math.isfinite(value) and value.is_integer()


# ---------------------------------------------------------------------------------------------
# Selection (spec/selection.md §3-4)
# ---------------------------------------------------------------------------------------------


class Fold:
    """The incremental selection of §4: the last non-empty content and the streamed text."""

    def __init__(self) -> None:
        self.last_content: list[Any] | None = None
        self.pieces: list[str] = []

    # -- pushes ---------------------------------------------------------------------------
    def push_event(self, event: Any, path: str) -> None:
        if not isinstance(event, dict):
            raise PortError(path, event, "is not a session event", "send an object")
        kind = event.get("type")
        if not isinstance(kind, str):
            raise PortError(f"{path}.type", kind, "is not a string", "give every event a type")
        if kind == "assistant/message":
            data = self._object(event.get("data"), f"{path}.data")
            message = self._object(data.get("message"), f"{path}.data.message")
            content = message.get("content")
            if not isinstance(content, list):
                raise PortError(f"{path}.data.message.content", content, "is not a list",
                                "send a list of content blocks ([] for a usage-only message)")
            self.on_message(content, data)
        elif kind == "assistant/chunk":
            data = self._object(event.get("data"), f"{path}.data")
            chunk = self._object(data.get("chunk"), f"{path}.data.chunk")
            chunk_type = chunk.get("type")
            if not isinstance(chunk_type, str):
                raise PortError(f"{path}.data.chunk.type", chunk_type, "is not a string",
                                "give every chunk a string type")
            if chunk_type == "text-delta":
                text = chunk.get("text")
                if not isinstance(text, str):
                    raise PortError(f"{path}.data.chunk.text", text, "is not a string",
                                    "a text-delta chunk carries its text as a string")
                self.on_text_delta(text, chunk)
            else:
                self.on_other_chunk(chunk)
        else:
            self.on_other_event(event)

    def push_text(self, text: str) -> None:
        """§4.1: exactly a text-delta chunk at index 0."""
        self.push_event({"type": "assistant/chunk", "seq": 0, "time": "",
                         "data": {"chunk": {"type": "text-delta", "index": 0, "text": text}}},
                        "$.text")

    # -- effects (the hooks a bug replaces) -------------------------------------------------
    def message_counts(self, content: list[Any], data: dict[str, Any]) -> bool:
        """§3.1-3.2: content length decides."""
        return len(content) > 0

    def on_message(self, content: list[Any], data: dict[str, Any]) -> None:
        if self.message_counts(content, data):
            self.last_content = content

    def on_text_delta(self, text: str, chunk: dict[str, Any]) -> None:
        self.pieces.append(text)

    def on_other_chunk(self, chunk: dict[str, Any]) -> None:
        """§3.4: no other chunk contributes."""

    def on_other_event(self, event: dict[str, Any]) -> None:
        """§2.6, §3.4: every other event is ignored."""

    # -- the answer ----------------------------------------------------------------------------
    def streamed_text(self) -> str:
        return "".join(self.pieces)

    def collect(self) -> list[Any] | None:
        """§3: the last non-empty content, else the streamed text, else no output."""
        if self.last_content is not None:
            return self.last_content
        text = self.streamed_text()
        if text == "":
            return None
        return [{"type": "text", "text": text}]

    @staticmethod
    def _object(value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise PortError(path, value, "is not an object", "send an object here")
        return value


# ---------------------------------------------------------------------------------------------
# Canonical serialization (spec/wire.md §6)
# ---------------------------------------------------------------------------------------------


class Canon:
    """``JSON.stringify`` of the well-formed value, as UTF-8 (§6.1-6.5)."""

    # -- §6.1 ----------------------------------------------------------------------------------
    def well_formed(self, text: str) -> str:
        out: list[str] = []
        i = 0
        n = len(text)
        while i < n:
            c = text[i]
            o = ord(c)
            if 0xD800 <= o <= 0xDBFF and i + 1 < n and 0xDC00 <= ord(text[i + 1]) <= 0xDFFF:
                out.append(chr(0x10000 + ((o - 0xD800) << 10) + (ord(text[i + 1]) - 0xDC00)))
                i += 2
                continue
            out.append("\ufffd" if 0xD800 <= o <= 0xDFFF else c)
            i += 1
        return "".join(out)

    def well_formed_key(self, key: str) -> str:
        return self.well_formed(key)

    # -- §6.2 ----------------------------------------------------------------------------------
    def escape_char(self, c: str) -> str:
        short = _SHORT_ESCAPES.get(c)
        if short is not None:
            return short
        if ord(c) < 0x20:
            return f"\\u{ord(c):04x}"
        return c

    def string(self, text: str) -> str:
        return '"' + "".join(self.escape_char(c) for c in self.well_formed(text)) + '"'

    def key(self, text: str) -> str:
        return '"' + "".join(self.escape_char(c) for c in text) + '"'

    # -- §6.3 ----------------------------------------------------------------------------------
    def integer(self, value: int) -> str:
        return str(value)

    @staticmethod
    def shortest_digits(x: float) -> tuple[str, int]:
        """The shortest round-trip digits ``s`` and exponent ``n``: ``x = 0.s × 10^n``."""
        text = repr(abs(x))
        mantissa, _, exponent = text.partition("e")
        whole, _, fraction = mantissa.partition(".")
        digits = whole + fraction
        n = len(whole) + (int(exponent) if exponent else 0)
        stripped = digits.lstrip("0")
        n -= len(digits) - len(stripped)
        return stripped.rstrip("0"), n

    def double(self, x: float) -> str:
        if x == 0:
            return "0"
        s, n = self.shortest_digits(x)
        k = len(s)
        sign = "-" if x < 0 else ""
        if k <= n <= 21:
            body = s + "0" * (n - k)
        elif 0 < n <= 21:
            body = s[:n] + "." + s[n:]
        elif -6 < n <= 0:
            body = "0." + "0" * (-n) + s
        else:
            e = n - 1
            body = s[0] + ("." + s[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-")
            body += str(abs(e))
        return sign + body

    # -- §6.4 ----------------------------------------------------------------------------------
    def is_array_index(self, key: str) -> bool:
        return bool(_ARRAY_INDEX.fullmatch(key)) and int(key) < ARRAY_INDEX_LIMIT

    def members(self, obj: dict[str, Any]) -> list[tuple[str, Any]]:
        merged: dict[str, Any] = {}
        for key, value in obj.items():
            merged[self.well_formed_key(key)] = value  # first position, last value (§6.1)
        indices = sorted((k for k in merged if self.is_array_index(k)), key=int)
        others = [k for k in merged if not self.is_array_index(k)]
        return [(k, merged[k]) for k in indices + others]

    # -- the whole value --------------------------------------------------------------------
    def serialize(self, value: Any) -> str:
        if value is None:
            return "null"
        if value is True:
            return "true"
        if value is False:
            return "false"
        if isinstance(value, int):
            return self.integer(value)
        if isinstance(value, float):
            return self.double(value)
        if isinstance(value, str):
            return self.string(value)
        if isinstance(value, list):
            return "[" + ",".join(self.serialize(v) for v in value) + "]"
        if isinstance(value, dict):
            return "{" + ",".join(self.key(k) + ":" + self.serialize(v)
                                  for k, v in self.members(value)) + "}"
        raise TypeError(f"not a JSON value: {value!r}")

    def size(self, line: str) -> int:
        """§6.5: bytes of UTF-8."""
        return len(line.encode("utf-8"))

    def cost(self, c: str) -> int:
        """§6.5: the bytes one code point of a string costs once escaped."""
        return len(self.escape_char(c).encode("utf-8"))


# ---------------------------------------------------------------------------------------------
# The implementation
# ---------------------------------------------------------------------------------------------


class Port:
    """select, fold, classify and project, with the halving fit (spec/wire.md §5.5)."""

    name: ClassVar[str] = "blind-port"
    fit_strategy: ClassVar[str] = "halving"
    #: The fold ``select`` runs over the whole log (the batch rule is the fold, §4.2).
    batch_class: ClassVar[type[Fold]] = Fold
    #: The fold the ``fold`` operation replays.
    fold_class: ClassVar[type[Fold]] = Fold
    canon_class: ClassVar[type[Canon]] = Canon

    def __init__(self) -> None:
        self.canon = self.canon_class()

    def start(self) -> dict[str, Any]:
        return {
            "version": 1,
            "implementation": {"name": self.name, "language": "python", "version": "0.1.0"},
            "capabilities": {"ops": ["select", "fold", "classify", "project"],
                             "fitStrategy": self.fit_strategy, "variableMaxBytes": True},
        }

    def run(self, op: str, input: Any) -> Any:
        if op == "select":
            return self.select(input)
        if op == "fold":
            return self.fold(input)
        if op == "classify":
            return self.classify(input)
        if op == "project":
            return self.project(input)
        raise NotImplementedError(f"{op} is not part of this port")

    # -- select and fold (spec/selection.md §3-4) ---------------------------------------------
    def select(self, input: Any) -> Any:
        events = self._member(input, "events", "$")
        if not isinstance(events, list):
            raise PortError("$.events", events, "is not a list", "send the log as a list")
        fold = self.batch_class()
        for i, event in enumerate(events):
            fold.push_event(event, f"$.events[{i}]")
        return fold.collect()

    def fold(self, input: Any) -> Any:
        pushes = self._member(input, "pushes", "$")
        if not isinstance(pushes, list):
            raise PortError("$.pushes", pushes, "is not a list", "send the pushes as a list")
        fold = self.fold_class()
        results = [fold.collect()]
        for i, push in enumerate(pushes):
            path = f"$.pushes[{i}]"
            if not isinstance(push, dict) or len(push) != 1 or not ({"event", "text"} & set(push)):
                raise PortError(path, push, "is not a push",
                                'send {"event": <session event>} or {"text": <string>}')
            if "text" in push:
                text = push["text"]
                if not isinstance(text, str):
                    raise PortError(f"{path}.text", text, "is not a string",
                                    "a text push carries a string")
                fold.push_text(text)
            else:
                fold.push_event(push["event"], f"{path}.event")
            results.append(fold.collect())
        return results

    # -- classify (spec/wire.md §3) -----------------------------------------------------------
    def kind(self, event_type: str) -> str:
        return "frame" if event_type in FRAME_TYPES else "fact"

    def classify(self, input: Any) -> str:
        event = self._member(input, "event", "$")
        return self.kind(self._event_type(event))

    # -- project (spec/wire.md §4-7) ----------------------------------------------------------
    def project(self, input: Any) -> Any:
        event = self._member(input, "event", "$")
        include = self._member(input, "includeLiveEvents", "$")
        max_bytes = self._member(input, "maxBytes", "$")
        self.check_options(include, max_bytes)
        event_type = self._event_type(event)
        if self.kind(event_type) == "frame" and include is not True:
            return None
        line = self.project_line(event, event_type, int(max_bytes))
        return {"line": line}

    def check_options(self, include: Any, max_bytes: Any) -> None:
        if not isinstance(include, bool):
            raise PortError("$.includeLiveEvents", include, "is not a boolean",
                            "send true or false")
        if not is_integer_value(max_bytes) or max_bytes < MIN_MAX_BYTES:
            raise PortError("$.maxBytes", max_bytes, "is not an integer of at least 3215",
                            "send 262144 (the default) or any integer >= 3215")

    def project_line(self, event: dict[str, Any], event_type: str, max_bytes: int) -> str:
        value, path = self.projected_value(event, event_type)
        self.check_numbers(value, path)
        line = self.canon.serialize(value)
        if self.bounds(event_type) and self.over(self.line_size(value, line), max_bytes):
            return self.bound(event, max_bytes)
        return line

    def line_size(self, value: Any, line: str) -> int:
        """§5.1: the size of the canonical line, in bytes."""
        return self.canon.size(line)

    def over(self, size: int, max_bytes: int) -> bool:
        """§5.1: bounded only when strictly greater; equal fits."""
        return size > max_bytes

    def bounds(self, event_type: str) -> bool:
        """§5.1: only tool_execution_update meets the backstop."""
        return event_type == "tool_execution_update"

    def projected_value(self, event: dict[str, Any], event_type: str) -> tuple[Any, str]:
        if event_type == "turn_end":
            return self.turn_end(event), "$.event"
        if event_type == "agent_end":
            return self.agent_end(event), "$.event"
        if event_type == "message_update":
            return self.message_update(event), "$.event"
        return event, "$.event"

    def turn_end(self, event: dict[str, Any]) -> dict[str, Any]:
        message = event.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise PortError("$.event.message", message, "is not a message with a string role",
                            "send the turn's message")
        results = event.get("toolResults")
        if not isinstance(results, list):
            raise PortError("$.event.toolResults", results, "is not a list",
                            "send the turn's tool results as a list")
        return {"type": "turn_end", "messageRole": message["role"],
                "toolResultCount": len(results)}

    def will_retry(self, event: dict[str, Any]) -> Any:
        return event.get("willRetry", False)

    def agent_end(self, event: dict[str, Any]) -> dict[str, Any]:
        messages = event.get("messages")
        if not isinstance(messages, list):
            raise PortError("$.event.messages", messages, "is not a list",
                            "send the run's messages as a list")
        if "willRetry" in event and not isinstance(event["willRetry"], bool):
            raise PortError("$.event.willRetry", event["willRetry"], "is not a boolean",
                            "send true, false, or leave it out")
        return {"type": "agent_end", "willRetry": self.will_retry(event),
                "messageCount": self.message_count(messages)}

    def message_count(self, messages: list[Any]) -> int:
        return len(messages)

    def message_update(self, event: dict[str, Any]) -> dict[str, Any]:
        message = event.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise PortError("$.event.message", message, "is not a message with a string role",
                            "send the streamed message")
        self.check_role(message["role"])
        step = event.get("assistantMessageEvent")
        if not isinstance(step, dict):
            raise PortError("$.event.assistantMessageEvent", step, "is not an object",
                            "send the streaming step as an object")
        projected = self.step_without_partial(step)
        if step.get("type") == "toolcall_start":
            block = self.announced_block(step)
            self.add_tool_call(projected, block)
        value: dict[str, Any] = {"type": "message_update"}
        self.add_usage(value, message)
        value["assistantMessageEvent"] = projected
        return value

    def check_role(self, role: str) -> None:
        if role != "assistant":
            raise PortError("$.event.message.role", role, "is not an assistant message",
                            "a message_update streams an assistant message")

    def step_without_partial(self, step: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in step.items() if k != "partial"}

    def add_usage(self, value: dict[str, Any], message: dict[str, Any]) -> None:
        if "usage" in message:
            value["usage"] = message["usage"]

    def content_index(self, step: dict[str, Any], length: int) -> int:
        index = step.get("contentIndex")
        if not is_integer_value(index) or not 0 <= index < length:  # type: ignore[operator]
            raise PortError("$.event.assistantMessageEvent.contentIndex", index,
                            f"is not an index of partial.content (length {length})",
                            "point contentIndex at the announced toolCall block")
        return int(index)  # type: ignore[arg-type]

    def announced_block(self, step: dict[str, Any]) -> dict[str, Any]:
        partial = step.get("partial")
        if not isinstance(partial, dict) or not isinstance(partial.get("content"), list):
            raise PortError("$.event.assistantMessageEvent.partial", partial,
                            "is not a message with a content list",
                            "a toolcall_start carries the partial message")
        content = partial["content"]
        index = self.content_index(step, len(content))
        block = content[index]
        path = f"$.event.assistantMessageEvent.partial.content[{index}]"
        if not isinstance(block, dict) or block.get("type") != "toolCall":
            raise PortError(path, block, "is not a toolCall block",
                            "point contentIndex at the announced toolCall block")
        for member in ("id", "name"):
            if not isinstance(block.get(member), str):
                raise PortError(f"{path}.{member}", block.get(member), "is not a string",
                                "a toolCall block has a string id and name")
        return block

    def add_tool_call(self, projected: dict[str, Any], block: dict[str, Any]) -> None:
        projected["id"] = block["id"]  # object spread: existing members keep their place
        projected["toolName"] = block["name"]

    # -- §7 numbers -------------------------------------------------------------------------------
    def number_refused(self, value: Any) -> bool:
        if isinstance(value, bool):
            return False
        if isinstance(value, int):
            return abs(value) > MAX_SAFE_INTEGER
        if isinstance(value, float):
            return not math.isfinite(value)
        return False

    def check_numbers(self, value: Any, path: str) -> None:
        stack: list[tuple[Any, str]] = [(value, path)]
        while stack:
            item, where = stack.pop()
            if isinstance(item, dict):
                stack.extend((v, f"{where}.{k}") for k, v in item.items())
            elif isinstance(item, list):
                stack.extend((v, f"{where}[{i}]") for i, v in enumerate(item))
            elif self.number_refused(item):
                raise PortError(where, item, "cannot be carried faithfully by a line",
                                "send integers within ±(2^53-1) and finite numbers only")

    # -- §5 backstop ------------------------------------------------------------------------------
    def clip_id(self, text: str) -> str:
        return self.canon.well_formed(text)[:ID_CLIP]

    def text_pieces(self, partial_result: Any) -> list[str]:
        if isinstance(partial_result, str):
            return [partial_result]
        if isinstance(partial_result, dict) and isinstance(partial_result.get("content"), list):
            return [block["text"] for block in partial_result["content"]
                    if isinstance(block, dict) and block.get("type") == "text"
                    and isinstance(block.get("text"), str)]
        return []

    def extract_text(self, partial_result: Any) -> str:
        return "".join(self.canon.well_formed(piece) for piece in self.text_pieces(partial_result))

    def tail(self, text: str, k: int) -> str:
        return text[len(text) - k:]

    def bounded_text(self, tail: str) -> str:
        return MARKER + tail

    def candidate(self, call_id: str, tool_name: str, tail: str) -> dict[str, Any]:
        return {"type": "tool_execution_update", "toolCallId": call_id, "toolName": tool_name,
                "partialResult": {"content": [{"type": "text", "text": self.bounded_text(tail)}]}}

    def bound(self, event: dict[str, Any], max_bytes: int) -> str:
        ids = []
        for member in ("toolCallId", "toolName"):
            value = event.get(member)
            if not isinstance(value, str):
                raise PortError(f"$.event.{member}", value, "is not a string",
                                "a tool_execution_update names its call and tool")
            ids.append(self.clip_id(value))
        text = self.extract_text(self.payload(event))
        k = self.choose_k(ids[0], ids[1], text, max_bytes)
        return self.canon.serialize(self.candidate(ids[0], ids[1], self.tail(text, k)))

    def payload(self, event: dict[str, Any]) -> Any:
        return event.get("partialResult")

    def candidate_size(self, call_id: str, tool_name: str, text: str, k: int) -> int:
        value = self.candidate(call_id, tool_name, self.tail(text, k))
        return self.line_size(value, self.canon.serialize(value))

    def text_length(self, text: str) -> int:
        """§5.5: N, in code points of the well-formed text."""
        return len(text)

    def halving_ks(self, n: int) -> list[int]:
        ks = [n]
        while ks[-1] > 0:
            ks.append(ks[-1] // 2)
        return ks

    def choose_k(self, call_id: str, tool_name: str, text: str, max_bytes: int) -> int:
        """§5.5 halving: the first of N, N/2, ..., 1, 0 that fits."""
        for k in self.halving_ks(self.text_length(text)):
            if self.candidate_size(call_id, tool_name, text, k) <= max_bytes:
                return k
        return 0

    # -- helpers --------------------------------------------------------------------------------
    @staticmethod
    def _member(input: Any, name: str, path: str) -> Any:
        if not isinstance(input, dict) or name not in input:
            raise PortError(f"{path}.{name}", None, "is missing", f"send the {name} member")
        return input[name]

    @staticmethod
    def _event_type(event: Any) -> str:
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise PortError("$.event", event, "is not an event with a string type",
                            "send an object with a string type")
        return str(event["type"])


class MaximalPort(Port):
    """The same port with the maximal fit (spec/wire.md §5.5)."""

    name: ClassVar[str] = "blind-port-maximal"
    fit_strategy: ClassVar[str] = "maximal"

    def choose_k(self, call_id: str, tool_name: str, text: str, max_bytes: int) -> int:
        """One serialization of candidate(0), then code point costs from the end (§5.6)."""
        budget = max_bytes - self.candidate_size(call_id, tool_name, text, 0)
        k = 0
        for c in reversed(text):
            cost = self.canon.cost(c)
            if cost > budget:
                break
            budget -= cost
            k += 1
        return k
