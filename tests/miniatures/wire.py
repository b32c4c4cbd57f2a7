"""Deliberately wrong implementations of the wire profile, one planted bug each.

Each class answers the handshake like the reference (under its own name) and every request like
the reference, except where its docstring says. The ``project`` bugs are planted in
:class:`Pipeline`, a plain, independent port of spec/wire.md §4-6 in the shape a TypeScript port
takes (well-form the event on entry, project, serialize, measure, bound); a test holds the
unplanted pipeline byte for byte equal to the reference, so each miniature differs from it in
exactly one way. The bugs are the seed's historical ones (its review rounds) and the near misses a
port in another language is likely to write. ``MINIATURES`` maps each name to its class and the
rule id that must catch it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any, ClassVar

from miniatures import Miniature

MARKER = "[live output truncated]\n"
ID_CLIP = 256
FRAME_TYPES = frozenset({"message_update", "tool_execution_update"})
KNOWN_TYPES = frozenset({
    "agent_start", "agent_end", "turn_start", "turn_end", "message_start", "message_update",
    "message_end", "tool_execution_start", "tool_execution_update", "tool_execution_end",
})
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n",
                  "\f": "\\f", "\r": "\\r"}
_SURROGATE_PAIR = re.compile("([\ud800-\udbff])([\udc00-\udfff])")
_SURROGATE = re.compile("[\ud800-\udfff]")


# -- the pipeline: spec/wire.md §4-6 as a port writes it -----------------------------------------


def _join_pair(match: re.Match[str]) -> str:
    high, low = ord(match[1]), ord(match[2])
    return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))


def _number(x: float) -> str:
    """ECMAScript Number::toString for a finite double."""
    if x == 0:
        return "0"
    if x < 0:
        return "-" + _number(-x)
    mantissa, _, exponent = repr(x).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    point = len(whole) + int(exponent or 0) - (len(whole + fraction) - len(digits))
    digits = digits.rstrip("0")
    k = len(digits)
    if k <= point <= 21:
        return digits + "0" * (point - k)
    if 0 < point <= 21:
        return digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return "0." + "0" * -point + digits
    e = point - 1
    return (digits if k == 1 else digits[0] + "." + digits[1:]) + ("e+" if e >= 0 else "e-") + \
        str(abs(e))


def _is_array_index(key: str) -> bool:
    return (key.isascii() and key.isdigit() and (key == "0" or key[0] != "0")
            and int(key) < 2**32 - 1)


class Pipeline(Miniature):
    """``project`` by an independent port of the spec; subclasses override one step."""

    name = "miniature-wire-pipeline"
    #: The fit strategy ``project`` uses (the handshake's, unless a bug says otherwise).
    fit_strategy: ClassVar[str] = "halving"
    #: What the string encoder escapes besides '"', '\\' and U+0000-U+001F, and surrogates
    #: (never met once the event is well-formed; JSON.stringify writes them as \udxxx).
    extra_escapes: ClassVar[str] = ""
    _tables: ClassVar[dict[type, dict[int, str]]] = {}

    def project(self, input: dict[str, Any]) -> Any:
        event = self.well_formed(input["event"])
        line = self.project_line(event, input["includeLiveEvents"], input["maxBytes"])
        return None if line is None else {"line": line}

    # §6.1: every string well-formed on entry (String.prototype.toWellFormed).
    def well_formed_text(self, text: str) -> str:
        if text.isascii():
            return text
        return _SURROGATE.sub("\ufffd", _SURROGATE_PAIR.sub(_join_pair, text))

    def well_formed(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.well_formed_text(value)
        if isinstance(value, dict):
            out: dict[str, Any] = {}
            for key, item in value.items():
                out[self.well_formed_text(key)] = self.well_formed(item)
            return out
        if isinstance(value, list):
            return [self.well_formed(item) for item in value]
        return value

    # §3-4
    def is_frame(self, kind: str) -> bool:
        return kind in FRAME_TYPES

    def dropped(self, kind: str, include: bool) -> bool:
        return self.is_frame(kind) and not include

    def project_line(self, event: dict[str, Any], include: bool, max_bytes: int) -> str | None:
        kind = event["type"]
        if self.dropped(kind, include):
            return None
        value = self.projection(event)
        self.refuse_unfaithful(value)
        if self.bounds(kind) and self.over(self.measure(value), max_bytes):
            value = self.bounded(event, max_bytes)
        return self.encode(value)

    # §7: a number the line cannot carry faithfully is refused, in the projected value only.
    def refuse_unfaithful(self, value: Any) -> None:
        if isinstance(value, bool):
            return
        if isinstance(value, int) and abs(value) > 2**53 - 1:
            raise ValueError(f"the integer {value} is beyond 2^53 - 1")
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError("an overflowing number")
        for item in value.values() if isinstance(value, dict) else (
                value if isinstance(value, list) else ()):
            self.refuse_unfaithful(item)

    def projection(self, event: dict[str, Any]) -> Any:
        kind = event["type"]
        if kind == "message_update":
            return self.message_update(event)
        if kind == "turn_end":
            return self.turn_end(event)
        if kind == "agent_end":
            return self.agent_end(event)
        return event

    def check_role(self, message: dict[str, Any]) -> None:
        if message.get("role") != "assistant":
            raise ValueError(f"message_update of a {message.get('role')!r} message")

    def message_update(self, event: dict[str, Any]) -> dict[str, Any]:
        message = event["message"]
        self.check_role(message)
        ame = event["assistantMessageEvent"]
        projected = self.without_partial(ame)
        if ame.get("type") == "toolcall_start":
            projected.update(self.announced(ame))
        out: dict[str, Any] = {"type": event["type"]}
        out.update(self.usage(message))
        out["assistantMessageEvent"] = projected
        return out

    def without_partial(self, ame: dict[str, Any]) -> dict[str, Any]:
        return {key: value for key, value in ame.items() if key != "partial"}

    def usage(self, message: dict[str, Any]) -> dict[str, Any]:
        return {"usage": message["usage"]} if "usage" in message else {}

    def announced(self, ame: dict[str, Any]) -> dict[str, Any]:
        content = ame["partial"]["content"]
        index = ame.get("contentIndex")
        if isinstance(index, float) and index.is_integer():  # 1.0 is the integer 1 (wire.md §1)
            index = int(index)
        if not (isinstance(index, int) and 0 <= index < len(content)
                and isinstance(content[index], dict) and content[index].get("type") == "toolCall"):
            raise ValueError(f"toolcall_start without a toolCall at contentIndex {index!r}")
        return {"id": content[index]["id"], "toolName": content[index]["name"]}

    def turn_end(self, event: dict[str, Any]) -> dict[str, Any]:
        return {"type": event["type"], "messageRole": event["message"]["role"],
                "toolResultCount": len(event["toolResults"])}

    def agent_end(self, event: dict[str, Any]) -> dict[str, Any]:
        return {"type": event["type"], "willRetry": event.get("willRetry", False),
                "messageCount": len(event["messages"])}

    # §5
    def bounds(self, kind: str) -> bool:
        return kind == "tool_execution_update"

    def over(self, size: int, max_bytes: int) -> bool:
        return size > max_bytes

    def measure(self, value: Any) -> int:
        return len(self.encode(value).encode("utf-8"))

    def bounded(self, event: dict[str, Any], max_bytes: int) -> dict[str, Any]:
        call_id, name = self.clip(event["toolCallId"]), self.clip(event["toolName"])
        text = self.extract(self.source(event))

        def fits(tail: str) -> bool:
            return self.fits(self.form(event, call_id, name, tail), max_bytes)

        k = self.halving(text, fits) if self.fit_strategy == "halving" else \
            self.maximal(text, fits)
        return self.form(event, call_id, name, self.tail(text, k))

    def fits(self, form: dict[str, Any], max_bytes: int) -> bool:
        return not self.over(self.measure(form), max_bytes)

    def source(self, event: dict[str, Any]) -> Any:
        return event.get("partialResult")

    def extract(self, result: Any) -> str:
        if isinstance(result, str):
            return result
        if isinstance(result, dict) and isinstance(result.get("content"), list):
            return "".join(block["text"] for block in result["content"]
                           if isinstance(block, dict) and block.get("type") == "text"
                           and isinstance(block.get("text"), str))
        return ""

    def clip(self, value: str) -> str:
        return value[:ID_CLIP]

    def length(self, text: str) -> int:
        return len(text)

    def tail(self, text: str, k: int) -> str:
        return text[len(text) - k:]

    def halving(self, text: str, fits: Callable[[str], bool]) -> int:
        k = self.length(text)
        while not fits(self.tail(text, k)) and k > 0:
            k //= 2
        return k

    def maximal(self, text: str, fits: Callable[[str], bool]) -> int:
        low, high = 0, self.length(text)
        while low < high:
            middle = (low + high + 1) // 2
            if fits(self.tail(text, middle)):
                low = middle
            else:
                high = middle - 1
        return low

    def form(self, event: dict[str, Any], call_id: str, name: str, tail: str) -> dict[str, Any]:
        return {"type": "tool_execution_update", "toolCallId": call_id, "toolName": name,
                "partialResult": {"content": [{"type": "text", "text": self.text(tail)}]}}

    def text(self, tail: str) -> str:
        return MARKER + tail

    # §6
    def encode(self, value: Any) -> str:
        if value is None:
            return "null"
        if value is True:
            return "true"
        if value is False:
            return "false"
        if isinstance(value, str):
            return self.string(value)
        if isinstance(value, int):
            return str(value)
        if isinstance(value, float):
            return self.number(value)
        if isinstance(value, dict):
            return "{" + ",".join(self.string(key) + ":" + self.encode(value[key])
                                  for key in self.order(list(value))) + "}"
        return "[" + ",".join(self.encode(item) for item in value) + "]"

    def string(self, text: str) -> str:
        table = Pipeline._tables.get(type(self))
        if table is None:
            escaped = [chr(code) for code in (*range(0x20), *range(0xD800, 0xE000))]
            table = {ord(char): self.escape(char) for char in [*escaped, '"', "\\",
                                                                *self.extra_escapes]}
            Pipeline._tables[type(self)] = table
        return '"' + text.translate(table) + '"'

    def escape(self, char: str) -> str:
        return _SHORT_ESCAPES.get(char) or f"\\u{ord(char):04x}"

    def number(self, x: float) -> str:
        return _number(x)

    def order(self, keys: list[str]) -> list[str]:
        indices = sorted((key for key in keys if _is_array_index(key)), key=int)
        return indices + [key for key in keys if not _is_array_index(key)]


# -- the seed's backstop bugs (review rounds 1-3) ----------------------------------------------


class SliceMinusZeroLoop(Pipeline):
    """The seed's shrink loop: ``text.slice(-k)`` with ``k`` halved until the line fits. When
    ``k`` reaches 0, ``slice(-0)`` is the whole text again, which does not fit, so the loop spins
    forever (review round 2). It takes the smallest bound to get there: both ids at their worst
    cost and ``maxBytes`` within a few bytes of 3215, where not even one code point of tail
    fits (wire.md §5.6). Caught by the harness's timeout: ``bound.converges``.
    """

    name = "slice-minus-zero-loop"

    def halving(self, text: str, fits: Callable[[str], bool]) -> int:
        k = len(text)
        while not fits(text[-k:]):  # text[-0:] is the whole text: k stays 0 forever
            k //= 2
        return k

    def tail(self, text: str, k: int) -> str:
        return text[-k:] if k else ""


class CountsCharacters(Pipeline):
    """Measures the line in characters (code points) instead of UTF-8 bytes (review round 1).

    Caught by ``bound.fits``: non-ASCII text costs 2-4 bytes a character.
    """

    name = "counts-characters"

    def measure(self, value: Any) -> int:
        return len(self.encode(value))


class MeasuresBeforeEscaping(Pipeline):
    """Measures the raw UTF-8 of the strings, before JSON escaping: a NUL counted as 1 byte
    where the line spends 6 on ``\\u0000`` (review round 1: control-character tool output).

    Caught by ``bound.fits``.
    """

    name = "measures-before-escaping"

    def measure(self, value: Any) -> int:
        escaping = 0
        stack = [value]
        while stack:
            item = stack.pop()
            strings = [item] if isinstance(item, str) else list(item) if isinstance(item, dict) \
                else []
            for text in strings:
                escaping += len(self.string(text).encode("utf-8")) - 2 - len(text.encode("utf-8"))
            if isinstance(item, dict):
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
        return super().measure(value) - escaping


class NeverClipsIds(Pipeline):
    """Keeps both ids whole in the bounded form: with a huge id even the empty tail does not
    fit, so the loop gives up at 0 and writes an oversized line (review round 2).

    Caught by ``bound.ids``.
    """

    name = "never-clips-ids"

    def clip(self, value: str) -> str:
        return value


class BoundsToolExecutionEnd(Pipeline):
    """Applies the backstop to ``tool_execution_end`` too (the seed's terminal result must
    never be truncated). Caught by ``bound.only-updates``."""

    name = "bounds-tool-execution-end"

    def bounds(self, kind: str) -> bool:
        return kind in ("tool_execution_update", "tool_execution_end")

    def source(self, event: dict[str, Any]) -> Any:
        return event.get("partialResult", event.get("result"))

    def form(self, event: dict[str, Any], call_id: str, name: str, tail: str) -> dict[str, Any]:
        return {**super().form(event, call_id, name, tail), "type": event["type"]}


class KeepsDetails(Pipeline):
    """The bounded form keeps ``partialResult.details`` (the seed dropped ``args`` and
    ``details``: they are what re-sent the transcript). Caught by ``bound.shape``."""

    name = "keeps-details"

    def form(self, event: dict[str, Any], call_id: str, name: str, tail: str) -> dict[str, Any]:
        form = super().form(event, call_id, name, tail)
        result = event.get("partialResult")
        if isinstance(result, dict) and "details" in result:
            form["partialResult"]["details"] = result["details"]
        return form


class MarkerAfterTail(Pipeline):
    """Writes the marker after the tail instead of before it. Caught by ``bound.text``."""

    name = "marker-after-tail"

    def text(self, tail: str) -> str:
        return tail + MARKER


class ClipsIdsFromEnd(Pipeline):
    """Keeps the last 256 code points of an id (a tail, like the text) instead of the first.
    Caught by ``bound.ids``."""

    name = "clips-ids-from-end"

    def clip(self, value: str) -> str:
        return value[-ID_CLIP:]


class ClipsIdsInUtf16Units(Pipeline):
    """Clips ids at 256 UTF-16 units (JavaScript's ``id.slice(0, 256)``), dropping a split
    pair's orphan half: an astral id keeps 128 characters. Caught by ``bound.ids``."""

    name = "clips-ids-in-utf16-units"

    def clip(self, value: str) -> str:
        units = value.encode("utf-16-le", "surrogatepass")[: 2 * ID_CLIP]
        return units.decode("utf-16-le", "ignore")


class IgnoresMaxBytes(Pipeline):
    """Bounds at the default 262144 whatever ``maxBytes`` the request carries (a port that
    declares ``variableMaxBytes`` but hard-codes the constant). Caught by ``bound.fits``."""

    name = "ignores-max-bytes"

    def project_line(self, event: dict[str, Any], include: bool, max_bytes: int) -> str | None:
        return super().project_line(event, include, 262144)


class BoundsAtExactlyMaxBytes(Pipeline):
    """Bounds a line of exactly ``maxBytes`` bytes (``>=`` for ``>``).
    Caught by ``bound.only-when-over``."""

    name = "bounds-at-exactly-max-bytes"

    def over(self, size: int, max_bytes: int) -> bool:
        return size >= max_bytes


# -- fit strategies and code points (§5.5) -----------------------------------------------------


class HalvingSplitsPairs(Pipeline):
    """Halves the tail in UTF-16 units (``text.slice(-k)`` on a JavaScript string): a cut
    inside an astral character leaves its low half, written ``\\udc..``. The line is not
    well-formed UTF-8. Caught by ``canon.utf8``."""

    name = "halving-splits-pairs"

    def length(self, text: str) -> int:
        return len(text.encode("utf-16-le")) // 2

    def tail(self, text: str, k: int) -> str:
        units = text.encode("utf-16-le")
        return units[len(units) - 2 * k:].decode("utf-16-le", "surrogatepass")


class TailInUtf16Units(Pipeline):
    """Counts the text and halves the tail in UTF-16 units, but never splits a character (an
    orphan half is dropped): the tail lengths differ from the code-point ones on astral text.
    Caught by ``bound.tail``."""

    name = "tail-in-utf16-units"

    def length(self, text: str) -> int:
        return len(text.encode("utf-16-le")) // 2

    def tail(self, text: str, k: int) -> str:
        units = text.encode("utf-16-le")
        return units[len(units) - 2 * k:].decode("utf-16-le", "ignore")


class HalvingDeclaredMaximal(Pipeline):
    """Declares ``fitStrategy: "maximal"`` but halves. Caught by ``bound.tail``."""

    name = "halving-declared-maximal"
    declared_strategy = "maximal"
    fit_strategy = "halving"


# -- the maximal fit (§5.5), as a port that declares it writes it -------------------------------


class MaximalPipeline(Pipeline):
    """The pipeline with the maximal fit, declared and used (a binary search over tail lengths)."""

    name = "miniature-wire-pipeline-maximal"
    declared_strategy = "maximal"
    fit_strategy = "maximal"


class MaximalRejectsExactFit(MaximalPipeline):
    """Accepts a candidate only when its line is *under* ``maxBytes`` (``<`` for ``<=``): where
    the largest tail lands exactly on the bound, it keeps one code point less.
    Caught by ``bound.tail``."""

    name = "maximal-rejects-exact-fit"

    def fits(self, form: dict[str, Any], max_bytes: int) -> bool:
        return self.measure(form) < max_bytes


class MaximalForgetsMarker(MaximalPipeline):
    """Sizes each candidate without the marker, then writes the marker: the line is over
    ``maxBytes`` by up to the marker's 24 bytes. Caught by ``bound.fits``."""

    name = "maximal-forgets-marker"

    def fits(self, form: dict[str, Any], max_bytes: int) -> bool:
        block = form["partialResult"]["content"][0]
        bare = {**form, "partialResult": {"content": [
            {**block, "text": block["text"][len(MARKER):]}]}}
        return super().fits(bare, max_bytes)


class MaximalCountsCharacters(MaximalPipeline, CountsCharacters):
    """Maximal, measuring lines in characters instead of UTF-8 bytes. Caught by ``bound.fits``."""

    name = "maximal-counts-characters"


class MaximalSplitsPairs(MaximalPipeline, HalvingSplitsPairs):
    """Maximal over UTF-16 units (``text.slice(-k)`` in JavaScript). A cut inside an astral
    character costs six bytes (``\\udc..``) where the whole character costs four, so fit is no
    longer monotone and the binary search stops short. Caught by ``bound.tail``."""

    name = "maximal-splits-pairs"


class MaximalSliceMinusZero(MaximalPipeline):
    """Maximal, with ``text.slice(-k)`` for the tail: when not one code point fits (the smallest
    bound), the answer ``k = 0`` writes the whole text. Caught by ``bound.fits``."""

    name = "maximal-slice-minus-zero"

    def tail(self, text: str, k: int) -> str:
        return text[-k:]


# -- projection (§4) ---------------------------------------------------------------------------


class FramesWithoutOptIn(Pipeline):
    """Writes frames whether or not the caller opted in (the seed before #318).
    Caught by ``project.frame-opt-in``."""

    name = "frames-without-opt-in"

    def dropped(self, kind: str, include: bool) -> bool:
        return False


class KeepsPartial(Pipeline):
    """Leaves the cumulative ``partial`` snapshot in a message_update's event.
    Caught by ``project.message-update``."""

    name = "keeps-partial"

    def without_partial(self, ame: dict[str, Any]) -> dict[str, Any]:
        return dict(ame)


class ToolcallStartWithoutIds(Pipeline):
    """Forgets the ``id`` and ``toolName`` of a toolcall_start. Caught by
    ``project.message-update``."""

    name = "toolcall-start-without-ids"

    def announced(self, ame: dict[str, Any]) -> dict[str, Any]:
        super().announced(ame)  # still refuses the erroneous ones
        return {}


class UsageNullWhenAbsent(Pipeline):
    """Writes ``"usage": null`` when the message has none (a port's ``message.usage ?? null``).
    Caught by ``project.message-update``."""

    name = "usage-null-when-absent"

    def usage(self, message: dict[str, Any]) -> dict[str, Any]:
        return {"usage": message.get("usage")}


class TurnEndWhole(Pipeline):
    """Writes turn_end with its whole message and tool results (the seed's 40% duplicate
    bytes). Caught by ``project.turn-end``."""

    name = "turn-end-whole"

    def turn_end(self, event: dict[str, Any]) -> dict[str, Any]:
        return event


class AgentEndWhole(Pipeline):
    """Writes agent_end with every message of the run. Caught by ``project.agent-end``."""

    name = "agent-end-whole"

    def agent_end(self, event: dict[str, Any]) -> dict[str, Any]:
        return event


class WillRetryOmitted(Pipeline):
    """Leaves ``willRetry`` out when the event has none (JavaScript's ``{willRetry:
    event.willRetry}`` drops an undefined member). Caught by ``project.agent-end``."""

    name = "will-retry-omitted"

    def agent_end(self, event: dict[str, Any]) -> dict[str, Any]:
        out = super().agent_end(event)
        if "willRetry" not in event:
            del out["willRetry"]
        return out


class NonAssistantProjected(Pipeline):
    """Projects a message_update whose message is not an assistant's instead of refusing it.
    Caught by ``project.erroneous``."""

    name = "non-assistant-projected"

    def check_role(self, message: dict[str, Any]) -> None:
        return None


class ToolcallStartUnchecked(Pipeline):
    """Takes ``id``/``toolName`` from whatever sits at ``contentIndex`` (nothing when the index
    is past the end) instead of refusing a toolcall_start without its tool call.
    Caught by ``project.erroneous``."""

    name = "toolcall-start-unchecked"

    def announced(self, ame: dict[str, Any]) -> dict[str, Any]:
        content = ame["partial"]["content"]
        index = int(ame["contentIndex"])
        block = content[index] if index < len(content) else {}
        return {key: block[source] for key, source in (("id", "id"), ("toolName", "name"))
                if source in block}


class ToolcallStartReadsLastBlock(Pipeline):
    """Reads a toolcall_start's ``contentIndex`` past the end of ``partial.content`` as the last
    block (``content.at(-1)``, a clamped index): erroneous by wire.md §4.5, but answered with the
    last tool call's ids. Caught by ``project.erroneous``."""

    name = "toolcall-start-reads-last-block"

    def announced(self, ame: dict[str, Any]) -> dict[str, Any]:
        content = ame["partial"]["content"]
        index = int(ame["contentIndex"])
        if content and index >= len(content):
            ame = {**ame, "contentIndex": len(content) - 1}
        return super().announced(ame)


class FactsAllowlisted(Pipeline):
    """Writes the known facts through an allowlist of their documented members (the seed's
    live-record treatment applied to every fact): a member the spec does not name is lost, so
    the fact is no longer written unchanged. Caught by ``project.fact-passthrough``."""

    name = "facts-allowlisted"
    members: ClassVar[dict[str, tuple[str, ...]]] = {
        "tool_execution_start": ("type", "toolCallId", "toolName", "args"),
        "tool_execution_end": ("type", "toolCallId", "toolName", "result", "isError"),
        "message_start": ("type", "message"),
        "message_end": ("type", "message"),
    }

    def projection(self, event: dict[str, Any]) -> Any:
        allowed = self.members.get(event["type"])
        if allowed is None:
            return super().projection(event)
        return {key: value for key, value in event.items() if key in allowed}


class ErrorsOnUnknownTypes(Pipeline):
    """Refuses event types it does not know (an exhaustive ``switch`` with a throwing default).
    Caught by ``project.agrees``."""

    name = "errors-on-unknown-types"

    def projection(self, event: dict[str, Any]) -> Any:
        if event["type"] not in KNOWN_TYPES:
            raise ValueError(f"unknown event type {event['type']!r}")
        return super().projection(event)


class UnknownTypeIsFrame(Pipeline):
    """Treats every type it does not know as a frame: ``classify`` says "frame", and
    ``project`` drops unknown events unless live events are on. Caught by ``classify.kind``."""

    name = "unknown-type-is-frame"

    def is_frame(self, kind: str) -> bool:
        return kind in FRAME_TYPES or kind not in KNOWN_TYPES

    def classify(self, input: dict[str, Any]) -> str:
        return "frame" if self.is_frame(input["event"]["type"]) else "fact"


class EverythingIsAFact(Miniature):
    """Answers ``classify`` with "fact" for every event: right for every type but the two frame
    types. Caught by ``classify.kind`` on every seed and budget, because ``classify`` aims a
    family at each of its answer classes."""

    name = "everything-is-a-fact"

    def classify(self, input: dict[str, Any]) -> str:
        return "fact"


# -- canonical serialization (§6) ----------------------------------------------------------------


class PythonNumbers(Pipeline):
    """Formats numbers like Python's ``json.dumps``: ``30.0``, ``-0.0``, ``1e-07``, ``1e+16``.
    Caught by ``canon.bytes``."""

    name = "python-numbers"

    def number(self, x: float) -> str:
        return json.dumps(x)


class PythonKeyOrder(Pipeline):
    """Keeps insertion order for every member name (Python's ``dict``, Go's ordered maps): no
    array-index names first. Caught by ``canon.bytes``."""

    name = "python-key-order"

    def order(self, keys: list[str]) -> list[str]:
        return keys


class EnsureAscii(Pipeline):
    """Escapes every non-ASCII character as ``\\uXXXX`` (``json.dumps(ensure_ascii=True)``),
    astral ones as a surrogate pair. Caught by ``canon.bytes``."""

    name = "ensure-ascii"

    def string(self, text: str) -> str:
        return json.dumps(text, ensure_ascii=True)


class EscapesLineSeparators(Pipeline):
    """Escapes U+2028 and U+2029 as ``\\u2028``/``\\u2029`` (what Go's encoding/json and many
    "JavaScript-safe" encoders do). Caught by ``canon.bytes``."""

    name = "escapes-line-separators"
    extra_escapes = "\u2028\u2029"


class HtmlSafeEscapes(Pipeline):
    """Escapes ``<``, ``>`` and ``&`` as ``\\u003c``, ``\\u003e``, ``\\u0026`` (Go's default
    ``SetEscapeHTML(true)``). Caught by ``canon.bytes``."""

    name = "html-safe-escapes"
    extra_escapes = "<>&"


class UppercaseHexEscapes(Pipeline):
    """Writes control characters as ``\\u001B`` (uppercase hex). Caught by ``canon.bytes``."""

    name = "uppercase-hex-escapes"

    def escape(self, char: str) -> str:
        return _SHORT_ESCAPES.get(char) or f"\\u{ord(char):04X}"


class EscapesLoneSurrogates(Pipeline):
    """Writes an unpaired surrogate as its ``\\udxxx`` escape (what ``JSON.stringify`` does
    without ``toWellFormed()``) instead of U+FFFD. Caught by ``canon.utf8``."""

    name = "escapes-lone-surrogates"

    def well_formed_text(self, text: str) -> str:
        return _SURROGATE_PAIR.sub(_join_pair, text)


# -- numbers a line cannot carry (wire.md §7) -------------------------------------------------


class RoundsBigIntegers(Pipeline):
    """Reads numbers as doubles, like ``JSON.parse``, and writes what it read: 9007199254740993
    becomes 9007199254740992, silently (one real TypeScript projection does this). Caught by
    ``project.numbers``."""

    name = "rounds-big-integers"

    def project(self, input: dict[str, Any]) -> Any:
        return super().project({**input, "event": _as_doubles(input["event"])})

    def refuse_unfaithful(self, value: Any) -> None:
        pass  # a double cannot tell that it was rounded


class OverflowAsNull(Pipeline):
    """Writes an overflowing number (``1e400``, read as infinity) as ``null``, the way
    ``JSON.stringify`` does, instead of refusing it. Caught by ``project.numbers``."""

    name = "overflow-as-null"

    def refuse_unfaithful(self, value: Any) -> None:
        if isinstance(value, float) and not math.isfinite(value):
            return
        super().refuse_unfaithful(value)

    def number(self, x: float) -> str:
        return "null" if not math.isfinite(x) else super().number(x)


class RefusesDroppedNumbers(Pipeline):
    """Refuses every number beyond 2^53 - 1 anywhere in the event, even in members the projection
    drops (``partial``, ``turn_end.message``), so valid events get no line. Caught by
    ``project.numbers``."""

    name = "refuses-dropped-numbers"

    def project(self, input: dict[str, Any]) -> Any:
        self.refuse_unfaithful(input["event"])
        return super().project(input)


def _as_doubles(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int(float(value)) if abs(value) < 2**1023 else value
    if isinstance(value, dict):
        return {key: _as_doubles(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_doubles(item) for item in value]
    return value


#: Every miniature: name -> (class, the rule id that must catch it). The slice(-0) loop hangs,
#: so its rule is the harness's ``bound.converges`` with the outcome ``timeout``.
MINIATURES: dict[str, tuple[type[Miniature], str]] = {
    cls.name: (cls, rule)
    for cls, rule in (
        (SliceMinusZeroLoop, "bound.converges"),
        (CountsCharacters, "bound.fits"),
        (MeasuresBeforeEscaping, "bound.fits"),
        (NeverClipsIds, "bound.ids"),
        (BoundsToolExecutionEnd, "bound.only-updates"),
        (KeepsDetails, "bound.shape"),
        (MarkerAfterTail, "bound.text"),
        (ClipsIdsFromEnd, "bound.ids"),
        (ClipsIdsInUtf16Units, "bound.ids"),
        (IgnoresMaxBytes, "bound.fits"),
        (BoundsAtExactlyMaxBytes, "bound.only-when-over"),
        (HalvingSplitsPairs, "canon.utf8"),
        (TailInUtf16Units, "bound.tail"),
        (HalvingDeclaredMaximal, "bound.tail"),
        (MaximalRejectsExactFit, "bound.tail"),
        (MaximalForgetsMarker, "bound.fits"),
        (MaximalCountsCharacters, "bound.fits"),
        (MaximalSplitsPairs, "bound.tail"),
        (MaximalSliceMinusZero, "bound.fits"),
        (FramesWithoutOptIn, "project.frame-opt-in"),
        (KeepsPartial, "project.message-update"),
        (ToolcallStartWithoutIds, "project.message-update"),
        (UsageNullWhenAbsent, "project.message-update"),
        (TurnEndWhole, "project.turn-end"),
        (AgentEndWhole, "project.agent-end"),
        (WillRetryOmitted, "project.agent-end"),
        (NonAssistantProjected, "project.erroneous"),
        (ToolcallStartUnchecked, "project.erroneous"),
        (ToolcallStartReadsLastBlock, "project.erroneous"),
        (FactsAllowlisted, "project.fact-passthrough"),
        (ErrorsOnUnknownTypes, "project.agrees"),
        (UnknownTypeIsFrame, "classify.kind"),
        (EverythingIsAFact, "classify.kind"),
        (PythonNumbers, "canon.bytes"),
        (PythonKeyOrder, "canon.bytes"),
        (EnsureAscii, "canon.bytes"),
        (EscapesLineSeparators, "canon.bytes"),
        (HtmlSafeEscapes, "canon.bytes"),
        (UppercaseHexEscapes, "canon.bytes"),
        (EscapesLoneSurrogates, "canon.utf8"),
        (RoundsBigIntegers, "project.numbers"),
        (OverflowAsNull, "project.numbers"),
        (RefusesDroppedNumbers, "project.numbers"),
    )
}
