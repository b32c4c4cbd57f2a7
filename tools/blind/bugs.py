"""Wrong variants of the blind port: each plants ONE bug a porter could write from the spec.

Every class names, in its docstring, the spec section and the rule id it breaks, and in ``OP`` the
operation the bug shows in. ``BUGS`` lists them all, in file order. A bug is a subclass of the
clean port (``port.Port`` or ``port.MaximalPort``) that replaces one small method, or of one of
its helpers (``Fold``, ``Canon``) plugged in through ``batch_class``/``fold_class``/``canon_class``.

The bugs are modelled on how ports go wrong: a JavaScript slice on UTF-16 code units, a Go
encoder's HTML escapes, Python's ``json.dumps`` defaults, a Rust enum that has no room for an
unknown variant, an off-by-one at a bound, a condition that reads "empty" as "blank".
"""

from __future__ import annotations

import json
import math
from typing import Any, ClassVar

from .port import (
    ARRAY_INDEX_LIMIT,
    ID_CLIP,
    MARKER,
    MAX_SAFE_INTEGER,
    MIN_MAX_BYTES,
    Canon,
    Fold,
    MaximalPort,
    Port,
    PortError,
)

KNOWN_SESSION_EVENTS = frozenset({"assistant/message", "assistant/chunk", "tool/call",
                                  "tool/result", "turn/start", "turn/end", "step/start",
                                  "step/end", "user/message"})
KNOWN_CHUNKS = frozenset({"block-start", "text-delta", "reasoning-delta", "tool-call-delta",
                          "block-end", "usage", "finish"})
KNOWN_BLOCKS = frozenset({"text", "reasoning", "image", "tool-call", "tool-result"})
KNOWN_AGENT_EVENTS = frozenset({"agent_start", "agent_end", "turn_start", "turn_end",
                                "message_start", "message_update", "message_end",
                                "tool_execution_start", "tool_execution_update",
                                "tool_execution_end"})


class Bug(Port):
    """Base of every bug: the op it shows in."""

    OP: ClassVar[str] = ""


class MaximalBug(MaximalPort):
    """Base of the bugs of the maximal fit."""

    OP: ClassVar[str] = "project"


# =============================================================================================
# select (spec/selection.md §2-3)
# =============================================================================================


class _EmptyResetsFold(Fold):
    def on_message(self, content: list[Any], data: dict[str, Any]) -> None:
        self.last_content = content if self.message_counts(content, data) else None


class EmptyMessageResetsSelection(Bug):
    """selection.md §3.2, rule `select.never-empty` (and `select.last-message`): an empty
    message "replaces an earlier message" — the port stores every message and forgets the earlier
    non-empty one when an empty one follows, falling back to streamed text or null."""

    OP = "select"
    batch_class = fold_class = _EmptyResetsFold


class _FirstMessageFold(Fold):
    def on_message(self, content: list[Any], data: dict[str, Any]) -> None:
        if self.last_content is None and self.message_counts(content, data):
            self.last_content = content


class FirstMessageWins(Bug):
    """selection.md §3.1, rule `select.last-message`: keeps the first non-empty message instead
    of the last (a `find` where a `findLast` was meant)."""

    OP = "select"
    batch_class = fold_class = _FirstMessageFold


class _LaterTextFold(Fold):
    def on_text_delta(self, text: str, chunk: dict[str, Any]) -> None:
        super().on_text_delta(text, chunk)
        if text:
            self.last_content = None


class LaterTextWins(Bug):
    """selection.md §3.1 (second bullet), rule `select.last-message`: text streamed after the
    last complete message is taken as newer and replaces it."""

    OP = "select"
    batch_class = fold_class = _LaterTextFold


class _InterruptedFold(Fold):
    def message_counts(self, content: list[Any], data: dict[str, Any]) -> bool:
        return len(content) > 0 and data.get("interrupted") is not True


class InterruptedMessageIgnored(Bug):
    """selection.md §3.1 (first bullet), rule `select.last-message`: a message marked
    `interrupted: true` is skipped as incomplete, although it counts like any other."""

    OP = "select"
    batch_class = fold_class = _InterruptedFold


class _ReasoningFold(Fold):
    def on_other_chunk(self, chunk: dict[str, Any]) -> None:
        if chunk.get("type") == "reasoning-delta" and isinstance(chunk.get("text"), str):
            self.pieces.append(chunk["text"])


class ReasoningDeltaJoined(Bug):
    """selection.md §3.4, rule `select.text-fallback`: reasoning deltas, which also carry a
    `text`, are joined into the streamed text."""

    OP = "select"
    batch_class = fold_class = _ReasoningFold


class _TextlessFold(Fold):
    def message_counts(self, content: list[Any], data: dict[str, Any]) -> bool:
        return any(isinstance(b, dict) and b.get("type") == "text" for b in content)


class TextlessMessageSkipped(Bug):
    """selection.md §3.1 (third bullet), rule `select.last-message`: "has text" decides instead
    of content length, so a reasoning-only or tool-call-only message loses to streamed text."""

    OP = "select"
    batch_class = fold_class = _TextlessFold


class _BlankFold(Fold):
    def collect(self) -> list[Any] | None:
        if self.last_content is None and self.streamed_text().strip() == "":
            return None
        return super().collect()


class BlankTextIsNoOutput(Bug):
    """selection.md §3.3, rule `select.text-fallback`: streamed text of white space only is read
    as "empty" and answered null; only the empty string is no output."""

    OP = "select"
    batch_class = fold_class = _BlankFold


class _PerIndexFold(Fold):
    def __init__(self) -> None:
        super().__init__()
        self.index: Any = None

    def on_text_delta(self, text: str, chunk: dict[str, Any]) -> None:
        if self.pieces and chunk.get("index") != self.index:
            self.pieces.append("\n")
        self.index = chunk.get("index")
        super().on_text_delta(text, chunk)


class DeltasJoinedPerBlock(Bug):
    """selection.md §3.3 (first bullet), rule `select.text-fallback`: deltas of different
    `index` are treated as different blocks and joined with a line feed; the index is not
    consulted."""

    OP = "select"
    batch_class = fold_class = _PerIndexFold


class _StrictEventFold(Fold):
    def on_other_event(self, event: dict[str, Any]) -> None:
        if event["type"] not in KNOWN_SESSION_EVENTS:
            raise PortError("$.events[*].type", event["type"], "is not a known event type",
                            "send a known type")


class UnknownEventRefused(Bug):
    """selection.md §2.6 and §6, rule `select.agrees`: an unknown event type is answered
    errored (a closed enum of event types), where it MUST be ignored."""

    OP = "select"
    batch_class = fold_class = _StrictEventFold


class _StrictChunkFold(Fold):
    def on_other_chunk(self, chunk: dict[str, Any]) -> None:
        if chunk["type"] not in KNOWN_CHUNKS:
            raise PortError("$.events[*].data.chunk.type", chunk["type"],
                            "is not a known chunk type", "send a known chunk type")


class UnknownChunkRefused(Bug):
    """selection.md §2.3 and §6, rule `select.agrees`: an unknown chunk type is answered
    errored, where it is accepted and ignored."""

    OP = "select"
    batch_class = fold_class = _StrictChunkFold


_BLOCK_MEMBERS = {"text": ("type", "text"), "reasoning": ("type", "text"),
                  "image": ("type", "attachment"),
                  "tool-call": ("type", "id", "name", "arguments"),
                  "tool-result": ("type", "toolCallId", "content", "isError")}


class _RebuiltFold(Fold):
    def collect(self) -> list[Any] | None:
        selected = super().collect()
        if selected is None or self.last_content is None:
            return selected
        rebuilt = []
        for block in selected:
            kind = str(block.get("type")) if isinstance(block, dict) else ""
            members = _BLOCK_MEMBERS.get(kind)
            if members is None:
                rebuilt.append(block)
            else:
                rebuilt.append({m: block[m] for m in members if m in block})
        return rebuilt


class BlocksRebuilt(Bug):
    """selection.md §3.1 and §2.5, rule `select.last-message`: the selected blocks are decoded
    into typed records and re-encoded, so members beyond the listed ones are lost; content is
    returned as given."""

    OP = "select"
    batch_class = fold_class = _RebuiltFold


class _KnownBlocksFold(Fold):
    def collect(self) -> list[Any] | None:
        selected = super().collect()
        if selected is None:
            return None
        kept = [b for b in selected if isinstance(b, dict) and b.get("type") in KNOWN_BLOCKS]
        return kept or None


class UnknownBlocksDropped(Bug):
    """selection.md §2.5, rule `select.last-message`: blocks of unknown type are filtered out of
    the selected content (a block enum without an "other" case)."""

    OP = "select"
    batch_class = fold_class = _KnownBlocksFold


class _DraftDroppedFold(Fold):
    def on_message(self, content: list[Any], data: dict[str, Any]) -> None:
        self.pieces.clear()
        super().on_message(content, data)


class DraftDroppedByMessage(Bug):
    """selection.md §3.2, rule `select.text-fallback`: every message, empty ones included, is
    taken to close the stream and clears the streamed text, so an empty message hides it."""

    OP = "select"
    batch_class = fold_class = _DraftDroppedFold


class _UserMessageFold(Fold):
    def on_other_event(self, event: dict[str, Any]) -> None:
        if event["type"] == "user/message":
            data = event.get("data")
            message = data.get("message") if isinstance(data, dict) else None
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, list) and content:
                self.last_content = content


class UserMessageSelected(Bug):
    """selection.md §3.4, rule `select.last-message`: any event carrying `data.message` is read
    as a message, so a user message becomes the output."""

    OP = "select"
    batch_class = fold_class = _UserMessageFold


# =============================================================================================
# fold (spec/selection.md §4)
# =============================================================================================


class FoldNoInitialCollect(Bug):
    """selection.md §4.1, rule `fold.shape`: no collect() before the first push, so the answer
    has len(pushes) entries."""

    OP = "fold"

    def fold(self, input: Any) -> Any:
        return super().fold(input)[1:]


class FoldCollectsBeforePush(Bug):
    """selection.md §4.2, rule `fold.prefix`: collect() is taken before each push instead of
    after it; the length is right but every entry lags one push behind."""

    OP = "fold"

    def fold(self, input: Any) -> Any:
        results = super().fold(input)
        return [results[0], *results[:-1]]


class _RawFlagFold(Fold):
    def __init__(self) -> None:
        super().__init__()
        self.saw_raw = False

    def push_text(self, text: str) -> None:
        self.pieces.append(text)
        self.saw_raw = True

    def collect(self) -> list[Any] | None:
        if self.last_content is None and self.saw_raw:
            return [{"type": "text", "text": self.streamed_text()}]
        return super().collect()


class FoldEmptyTextPushCounts(Bug):
    """selection.md §4.1, rule `fold.prefix`: push_text has its own path that records "text was
    seen", so push_text("") yields a text block with empty text; it must change nothing."""

    OP = "fold"
    fold_class = _RawFlagFold


class _SharedBlockFold(Fold):
    def __init__(self) -> None:
        super().__init__()
        self.block: dict[str, Any] = {"type": "text", "text": ""}

    def on_text_delta(self, text: str, chunk: dict[str, Any]) -> None:
        super().on_text_delta(text, chunk)
        self.block["text"] += text

    def collect(self) -> list[Any] | None:
        if self.last_content is None and self.block["text"]:
            return [self.block]
        return super().collect()


class FoldSharedTextBlock(Bug):
    """selection.md §4.2, rule `fold.prefix`: collect() hands out the fold's own text block,
    which later pushes extend in place, so earlier results show later text."""

    OP = "fold"
    fold_class = _SharedBlockFold


class _RawTextOverridesFold(Fold):
    def push_text(self, text: str) -> None:
        if text:
            self.last_content = None
        super().push_text(text)


class FoldRawTextOverridesMessage(Bug):
    """selection.md §4.1, rule `fold.prefix`: raw text pushed after a message is taken as the
    newest output and replaces the message; push_text is exactly a text-delta chunk."""

    OP = "fold"
    fold_class = _RawTextOverridesFold


class _RawOnlyFold(Fold):
    def on_text_delta(self, text: str, chunk: dict[str, Any]) -> None:
        pass

    def push_text(self, text: str) -> None:
        self.pieces.append(text)


class FoldEventChunksIgnored(Bug):
    """selection.md §4.1-4.2, rule `fold.prefix`: the incremental form reads text only from
    push_text and ignores text-delta chunks pushed as events."""

    OP = "fold"
    fold_class = _RawOnlyFold


# =============================================================================================
# classify (spec/wire.md §3)
# =============================================================================================


class ClassifyLoose(Bug):
    """wire.md §3, rule `classify.kind`: the type is compared case-insensitively and trimmed, so
    `Message_Update` and `message_update ` are frames; the comparison is on the exact string."""

    OP = "classify"

    def classify(self, input: Any) -> str:
        event = self._member(input, "event", "$")
        return self.kind(self._event_type(event).strip().lower())


class ClassifyBySuffix(Bug):
    """wire.md §3, rule `classify.kind`: every type ending in `_update` is a frame, so an
    unknown `*_update` type is dropped instead of written."""

    OP = "classify"

    def classify(self, input: Any) -> str:
        event = self._member(input, "event", "$")
        return "frame" if self._event_type(event).endswith("_update") else "fact"


class ClassifyUnknownRefused(Bug):
    """wire.md §2.5 and §3, rule `classify.kind`: an unknown event type is answered errored
    instead of classified as a fact."""

    OP = "classify"

    def classify(self, input: Any) -> str:
        event = self._member(input, "event", "$")
        event_type = self._event_type(event)
        if event_type not in KNOWN_AGENT_EVENTS:
            raise PortError("$.event.type", event_type, "is not a known type",
                            "send a known type")
        return self.kind(event_type)


# =============================================================================================
# project: opt-in, projections (spec/wire.md §2, §4)
# =============================================================================================


class OptInAfterChecks(Bug):
    """wire.md §4.1, rule `project.frame-opt-in`: the event is projected and checked before the
    opt-in, so an erroneous frame nobody opted into is answered errored instead of null."""

    OP = "project"

    def project(self, input: Any) -> Any:
        event = self._member(input, "event", "$")
        include = self._member(input, "includeLiveEvents", "$")
        max_bytes = self._member(input, "maxBytes", "$")
        self.check_options(include, max_bytes)
        event_type = self._event_type(event)
        value, path = self.projected_value(event, event_type)
        self.check_numbers(value, path)
        if self.kind(event_type) == "frame" and include is not True:
            return None
        return {"line": self.project_line(event, event_type, int(max_bytes))}


class ProjectUnknownTypeRefused(Bug):
    """wire.md §2.5, rule `project.fact-passthrough`: an event of unknown type is answered
    errored (no enum variant for it) instead of written unchanged."""

    OP = "project"

    def projected_value(self, event: dict[str, Any], event_type: str) -> tuple[Any, str]:
        if event_type not in KNOWN_AGENT_EVENTS:
            raise PortError("$.event.type", event_type, "is not a known type",
                            "send a known type")
        return super().projected_value(event, event_type)


_FACT_MEMBERS = {"agent_start": ("type",), "turn_start": ("type",),
                 "message_start": ("type", "message"), "message_end": ("type", "message"),
                 "tool_execution_start": ("type", "toolCallId", "toolName", "args"),
                 "tool_execution_update": ("type", "toolCallId", "toolName", "args",
                                           "partialResult"),
                 "tool_execution_end": ("type", "toolCallId", "toolName", "result", "isError")}


class FactExtraMembersDropped(Bug):
    """wire.md §2.1 and §4.2, rule `project.fact-passthrough`: known events are decoded into
    typed records and re-encoded, so members beyond those of §2.2 are dropped."""

    OP = "project"

    def projected_value(self, event: dict[str, Any], event_type: str) -> tuple[Any, str]:
        members = _FACT_MEMBERS.get(event_type)
        if members is not None:
            return {m: event[m] for m in members if m in event}, "$.event"
        return super().projected_value(event, event_type)


class TurnEndKeepsExtraMembers(Bug):
    """wire.md §4.4, rule `project.turn-end`: the projection drops the heavy members
    (`message`, `toolResults`) and adds the counts, keeping every other member of the event."""

    OP = "project"

    def turn_end(self, event: dict[str, Any]) -> dict[str, Any]:
        projected = super().turn_end(event)
        rest = {k: v for k, v in event.items() if k not in ("type", "message", "toolResults")}
        return {**projected, **rest}


class WillRetryOmitted(Bug):
    """wire.md §4.4, rule `project.agent-end`: `willRetry: event.willRetry` with the member
    absent is `undefined`, which JSON.stringify drops; absent reads as `false`."""

    OP = "project"

    def agent_end(self, event: dict[str, Any]) -> dict[str, Any]:
        projected = super().agent_end(event)
        if "willRetry" not in event:
            del projected["willRetry"]
        return projected


class AgentEndCountsAssistantOnly(Bug):
    """wire.md §4.4, rule `project.agent-end`: `messageCount` counts only the assistant messages;
    it is the length of `messages`."""

    OP = "project"

    def message_count(self, messages: list[Any]) -> int:
        return sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")


class UsageNullWhenAbsent(Bug):
    """wire.md §4.3, rule `project.message-update`: `message.get("usage")` writes
    `"usage": null` for a message without usage; the member is omitted."""

    OP = "project"

    def add_usage(self, value: dict[str, Any], message: dict[str, Any]) -> None:
        value["usage"] = message.get("usage")


class UsageEmptyDropped(Bug):
    """wire.md §4.3, rule `project.message-update`: a truthiness test drops an empty `usage`
    object; a present usage is copied whatever its value."""

    OP = "project"

    def add_usage(self, value: dict[str, Any], message: dict[str, Any]) -> None:
        if message.get("usage"):
            value["usage"] = message["usage"]


class PartialKeptOnNonDeltas(Bug):
    """wire.md §4.3, rule `project.message-update`: `partial` is dropped only from the `*_delta`
    events (the ones that "grow"); every streaming type carries it and it never reaches the
    wire."""

    OP = "project"

    def step_without_partial(self, step: dict[str, Any]) -> dict[str, Any]:
        if str(step.get("type", "")).endswith("_delta"):
            return super().step_without_partial(step)
        return dict(step)


class ToolcallNameKey(Bug):
    """wire.md §4.3, rule `project.message-update`: the tool name is written as `name` (the
    block's member name) instead of `toolName`."""

    OP = "project"

    def add_tool_call(self, projected: dict[str, Any], block: dict[str, Any]) -> None:
        projected["id"] = block["id"]
        projected["name"] = block["name"]


class ToolcallSpreadReversed(Bug):
    """wire.md §4.3, rule `project.message-update`: `{id, toolName, ...event}` instead of
    `{...event, id, toolName}`: an event that already has an `id` or `toolName` keeps its own
    value, and the announced members come first."""

    OP = "project"

    def add_tool_call(self, projected: dict[str, Any], block: dict[str, Any]) -> None:
        merged = {"id": block["id"], "toolName": block["name"], **projected}
        projected.clear()
        projected.update(merged)


class ToolcallBlockTypeUnchecked(Bug):
    """wire.md §4.5 (second case), rule `project.erroneous`: the block at `contentIndex` is used
    whatever its type; when it is not a toolCall its `id`/`name` are undefined and dropped, and
    a line is written instead of an error."""

    OP = "project"

    def announced_block(self, step: dict[str, Any]) -> dict[str, Any]:
        partial = step.get("partial")
        content = partial.get("content") if isinstance(partial, dict) else None
        if not isinstance(content, list):
            return super().announced_block(step)
        index = self.content_index(step, len(content))
        block = content[index]
        return block if isinstance(block, dict) else {}

    def add_tool_call(self, projected: dict[str, Any], block: dict[str, Any]) -> None:
        for source, target in (("id", "id"), ("name", "toolName")):
            if source in block:
                projected[target] = block[source]


class NonAssistantUpdateWritten(Bug):
    """wire.md §4.5 (first case), rule `project.erroneous`: the role of a message_update's
    message is not checked, so a user message_update is written."""

    OP = "project"

    def check_role(self, role: str) -> None:
        pass


class ContentIndexFloatRefused(Bug):
    """wire.md §1 (integers) and §4.3, rule `project.message-update`: `contentIndex` 1.0 is
    refused as "not an integer" (an `isinstance(i, int)` test); 1 and 1.0 are the same
    integer."""

    OP = "project"

    def content_index(self, step: dict[str, Any], length: int) -> int:
        index = step.get("contentIndex")
        if not isinstance(index, int) or isinstance(index, bool):
            raise PortError("$.event.assistantMessageEvent.contentIndex", index,
                            "is not an integer", "send an integer")
        return super().content_index(step, length)


class MaxBytesFloatRefused(Bug):
    """wire.md §1 and §8, rule `project.agrees`: `maxBytes` 4096.0 is refused as not an
    integer; JSON does not tell 4096 and 4096.0 apart."""

    OP = "project"

    def check_options(self, include: Any, max_bytes: Any) -> None:
        if not isinstance(max_bytes, int):
            raise PortError("$.maxBytes", max_bytes, "is not an int", "send an integer")
        super().check_options(include, max_bytes)


class MinMaxBytesExclusive(Bug):
    """wire.md §5.6, rule `project.agrees`: `maxBytes` must be "at least 3215" but the check is
    `> 3215`, so the smallest allowed bound is refused."""

    OP = "project"

    def check_options(self, include: Any, max_bytes: Any) -> None:
        super().check_options(include, max_bytes)
        if max_bytes <= MIN_MAX_BYTES:
            raise PortError("$.maxBytes", max_bytes, "is too small", "send more than 3215")


# =============================================================================================
# project: the backstop (spec/wire.md §5)
# =============================================================================================


class ToolEndBounded(Bug):
    """wire.md §5.1, rule `bound.only-updates`: the bound is applied to `tool_execution_end`
    too (its `result` taken as the payload); the end event is never bounded."""

    OP = "project"

    def bounds(self, event_type: str) -> bool:
        return event_type in ("tool_execution_update", "tool_execution_end")

    def payload(self, event: dict[str, Any]) -> Any:
        if event.get("type") == "tool_execution_end":
            return event.get("result")
        return super().payload(event)


class BoundAtEqualSize(Bug):
    """wire.md §5.1, rule `bound.only-when-over`: a line of exactly `maxBytes` bytes is bounded
    (`>=`); equal fits."""

    OP = "project"

    def over(self, size: int, max_bytes: int) -> bool:
        return size >= max_bytes


class _CodePointCanon(Canon):
    def size(self, line: str) -> int:
        return len(line)


class SizeInCodePoints(Bug):
    """wire.md §5.1 and §6.5, rule `bound.fits`: sizes are counted in code points (the
    string's length) instead of UTF-8 bytes."""

    OP = "project"
    canon_class = _CodePointCanon


class DefaultSeparatorsMeasured(Bug):
    """wire.md §5.1 and §6, rule `bound.only-when-over`: the size is measured on Python's
    `json.dumps(value, ensure_ascii=False)` (separators `", "` and `": "`) while the written
    line is canonical, so lines under the bound are bounded and tails come out short."""

    OP = "project"

    def line_size(self, value: Any, line: str) -> int:
        return len(json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass"))


class IdsClippedInUtf16(Bug):
    """wire.md §5.4, rule `bound.ids`: `id.slice(0, 256)` clips at 256 UTF-16 code units, which
    keeps fewer astral characters and can split a pair (written as U+FFFD)."""

    OP = "project"

    def clip_id(self, text: str) -> str:
        units = self.canon.well_formed(text).encode("utf-16-le", "surrogatepass")[: 2 * ID_CLIP]
        return self.canon.well_formed(units.decode("utf-16-le", "surrogatepass"))


class IdsClippedInBytes(Bug):
    """wire.md §5.4, rule `bound.ids`: ids are clipped to 256 bytes of UTF-8 (a Go `s[:256]`),
    dropping a character cut in half; the clip is 256 code points."""

    OP = "project"

    def clip_id(self, text: str) -> str:
        return self.canon.well_formed(text).encode("utf-8")[:ID_CLIP].decode("utf-8", "ignore")


class IdsNeverClipped(Bug):
    """wire.md §5.4 and §5.6, rule `bound.ids` (then `bound.fits`): ids are kept whole in the
    bounded form, so with long ids even the empty tail exceeds the bound."""

    OP = "project"

    def clip_id(self, text: str) -> str:
        return self.canon.well_formed(text)


class IdsClippedAlways(Bug):
    """wire.md §5.4, rule `bound.ids`: ids are clipped in every tool_execution_update line,
    including one written unchanged because it fits; they are clipped only in the bounded
    form."""

    OP = "project"

    def project_line(self, event: dict[str, Any], event_type: str, max_bytes: int) -> str:
        if event_type == "tool_execution_update":
            event = dict(event)
            for member in ("toolCallId", "toolName"):
                if isinstance(event.get(member), str):
                    event[member] = self.clip_id(event[member])
        return super().project_line(event, event_type, max_bytes)


class TailInUtf16Units(Bug):
    """wire.md §5.3 and §5.5, rule `bound.tail`: N and the tail are counted in UTF-16 code
    units (`text.slice(-k)`), so the tail can start with the low half of a pair (written as
    U+FFFD) and halving tries other k."""

    OP = "project"

    def text_length(self, text: str) -> int:
        return len(text.encode("utf-16-le")) // 2

    def tail(self, text: str, k: int) -> str:
        units = text.encode("utf-16-le")
        cut = units[len(units) - 2 * k:]
        return self.canon.well_formed(cut.decode("utf-16-le", "surrogatepass"))


class SliceMinusZeroTail(Bug):
    """wire.md §5.5, rule `bound.fits`: the tail is `text[-k:]`, which for k = 0 is the whole
    text; when no non-empty tail fits, the answer is the whole text, over the bound."""

    OP = "project"

    def tail(self, text: str, k: int) -> str:
        return text[-k:]


class MarkerAfterTail(Bug):
    """wire.md §5.3, rule `bound.text`: the marker is appended after the tail instead of placed
    before it."""

    OP = "project"

    def bounded_text(self, tail: str) -> str:
        return tail + MARKER


class MarkerWithoutLineFeed(Bug):
    """wire.md §5.3, rule `bound.text`: the marker is copied as the 23 visible characters
    `[live output truncated]`, without its line feed."""

    OP = "project"

    def bounded_text(self, tail: str) -> str:
        return MARKER.rstrip("\n") + tail


class HalvingSkipsFullText(Bug):
    """wire.md §5.5, rule `bound.tail` (halving): the search starts at N/2 ("the whole text did
    not fit"), but the whole text without args and details may fit; N is the first candidate."""

    OP = "project"

    def halving_ks(self, n: int) -> list[int]:
        return super().halving_ks(n)[1:] or [0]


class HalvingRoundsUp(Bug):
    """wire.md §5.5, rule `bound.tail` (halving): halves are rounded up (`Math.ceil(k / 2)`),
    trying N, ⌈N/2⌉, ...; the sequence is ⌊N/2⌋, ⌊N/4⌋, ..."""

    OP = "project"

    def halving_ks(self, n: int) -> list[int]:
        ks = [n]
        while ks[-1] > 1:
            ks.append((ks[-1] + 1) // 2)
        if ks[-1] != 0:
            ks.append(0)
        return ks


class TextJoinedWithLineFeeds(Bug):
    """wire.md §5.3, rule `bound.text`: the text blocks are joined with `"\\n"`; they are joined
    with `""`."""

    OP = "project"

    def extract_text(self, partial_result: Any) -> str:
        pieces = self.text_pieces(partial_result)
        return "\n".join(self.canon.well_formed(p) for p in pieces)


class TextFromAnyBlock(Bug):
    """wire.md §5.3, rule `bound.text`: every block with a string `text` contributes, whatever
    its type; only `"type": "text"` blocks do."""

    OP = "project"

    def text_pieces(self, partial_result: Any) -> list[str]:
        if isinstance(partial_result, dict) and isinstance(partial_result.get("content"), list):
            return [b["text"] for b in partial_result["content"]
                    if isinstance(b, dict) and isinstance(b.get("text"), str)]
        return super().text_pieces(partial_result)


class StringPayloadIgnored(Bug):
    """wire.md §5.3, rule `bound.text`: a `partialResult` that is a bare string is given the
    empty text; a string is its own text."""

    OP = "project"

    def text_pieces(self, partial_result: Any) -> list[str]:
        if isinstance(partial_result, str):
            return []
        return super().text_pieces(partial_result)


class TextBlockNonStringText(Bug):
    """wire.md §5.3, rule `bound.text`: text blocks are joined without checking that `text` is a
    string, so a block `{"type": "text", "text": 5}` makes the projection fail; it contributes
    nothing."""

    OP = "project"

    def text_pieces(self, partial_result: Any) -> list[str]:
        if isinstance(partial_result, dict) and isinstance(partial_result.get("content"), list):
            return [b["text"] for b in partial_result["content"]
                    if isinstance(b, dict) and b.get("type") == "text" and "text" in b]
        return super().text_pieces(partial_result)

    def extract_text(self, partial_result: Any) -> str:
        pieces = self.text_pieces(partial_result)
        if not all(isinstance(p, str) for p in pieces):
            raise TypeError("sequence item: expected str instance")
        return super().extract_text(partial_result)


class WellFormedAfterJoin(Bug):
    """wire.md §5.3 (third bullet), rule `bound.text`: the pieces are joined first and made
    well-formed after, so halves of a pair in two blocks become one astral character."""

    OP = "project"

    def extract_text(self, partial_result: Any) -> str:
        return self.canon.well_formed("".join(self.text_pieces(partial_result)))


class BoundedKeepsDetails(Bug):
    """wire.md §5.2, rule `bound.shape`: the bounded form keeps `partialResult.details` beside
    the content; no other member is allowed."""

    OP = "project"

    def bound(self, event: dict[str, Any], max_bytes: int) -> str:
        payload = event.get("partialResult")
        self._details = payload.get("details") if isinstance(payload, dict) else None
        self._has_details = isinstance(payload, dict) and "details" in payload
        return super().bound(event, max_bytes)

    def candidate(self, call_id: str, tool_name: str, tail: str) -> dict[str, Any]:
        value = super().candidate(call_id, tool_name, tail)
        if getattr(self, "_has_details", False):
            value["partialResult"]["details"] = self._details
        return value


def _sorted_deep(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted_deep(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted_deep(v) for v in value]
    return value


class BoundedFormAsSortedMap(Bug):
    """wire.md §5.2, rule `bound.shape`: the bounded form is built as a Go `map[string]any`,
    whose encoder sorts the keys (`partialResult` first, `type` last); the order is fixed."""

    OP = "project"

    def candidate(self, call_id: str, tool_name: str, tail: str) -> dict[str, Any]:
        return _sorted_deep(super().candidate(call_id, tool_name, tail))  # type: ignore[no-any-return]


class MaximalStopsOneShort(MaximalBug):
    """wire.md §5.5, rule `bound.tail` (maximal): the accumulation stops when the next code point
    would *reach* the remaining budget (`>=`), so a tail that fits exactly loses a code point."""

    def choose_k(self, call_id: str, tool_name: str, text: str, max_bytes: int) -> int:
        budget = max_bytes - self.candidate_size(call_id, tool_name, text, 0)
        k = 0
        for c in reversed(text):
            cost = self.canon.cost(c)
            if cost >= budget:
                break
            budget -= cost
            k += 1
        return k


class MaximalIdCostInCodePoints(MaximalBug):
    """wire.md §5.6, rule `bound.fits` (maximal): the empty-tail size is computed as
    143 + the ids' lengths in code points, not their escaped bytes, so non-ASCII or control
    characters in the ids push the line over the bound."""

    def choose_k(self, call_id: str, tool_name: str, text: str, max_bytes: int) -> int:
        budget = max_bytes - (143 + len(call_id) + len(tool_name))
        k = 0
        for c in reversed(text):
            cost = self.canon.cost(c)
            if cost > budget:
                break
            budget -= cost
            k += 1
        return k


class MaximalCostUnescaped(MaximalBug):
    """wire.md §6.5, rule `bound.fits` (maximal): a code point's cost is its UTF-8 length, not
    its escaped length (a control character costs 6, `"` and `\\` cost 2)."""

    def choose_k(self, call_id: str, tool_name: str, text: str, max_bytes: int) -> int:
        budget = max_bytes - self.candidate_size(call_id, tool_name, text, 0)
        k = 0
        for c in reversed(text):
            cost = len(c.encode("utf-8"))
            if cost > budget:
                break
            budget -= cost
            k += 1
        return k


# =============================================================================================
# project: canonical serialization (spec/wire.md §6)
# =============================================================================================


class _U2028Canon(Canon):
    def escape_char(self, c: str) -> str:
        if c in "\u2028\u2029":
            return f"\\u{ord(c):04x}"
        return super().escape_char(c)


class EscapesLineSeparators(Bug):
    """wire.md §6.2, rule `canon.bytes` (and `bound.tail` through sizes): U+2028 and U+2029 are
    escaped (as Go's encoder does); they are written raw."""

    OP = "project"
    canon_class = _U2028Canon


class _HtmlCanon(Canon):
    def escape_char(self, c: str) -> str:
        if c in "<>&":
            return f"\\u{ord(c):04x}"
        return super().escape_char(c)


class HtmlSafeEscapes(Bug):
    """wire.md §6.2, rule `canon.bytes` (and `bound.tail` through sizes): `<`, `>` and `&` are
    escaped as `\\u003c`... (Go's `json.Marshal` default); only the listed escapes exist."""

    OP = "project"
    canon_class = _HtmlCanon


class _AsciiCanon(Canon):
    def escape_char(self, c: str) -> str:
        o = ord(c)
        if o > 0xFFFF:
            o -= 0x10000
            return f"\\u{0xD800 + (o >> 10):04x}\\u{0xDC00 + (o & 0x3FF):04x}"
        if o > 0x7F:
            return f"\\u{o:04x}"
        return super().escape_char(c)


class NonAsciiEscaped(Bug):
    """wire.md §6.2, rule `canon.bytes` (and the bound rules through sizes): every non-ASCII
    character is escaped (`json.dumps`'s `ensure_ascii`), 6 or 12 bytes where 2-4 are meant."""

    OP = "project"
    canon_class = _AsciiCanon


class _UpperHexCanon(Canon):
    def escape_char(self, c: str) -> str:
        return super().escape_char(c).upper() if ord(c) < 0x20 else super().escape_char(c)

    def key(self, text: str) -> str:
        return '"' + "".join(self.escape_char(c) for c in text) + '"'


class UppercaseHexEscapes(Bug):
    """wire.md §6.2, rule `canon.bytes`: control characters are written `\\u001F`; the hex
    digits are lowercase."""

    OP = "project"
    canon_class = _UpperHexCanon


class _NoShortCanon(Canon):
    def escape_char(self, c: str) -> str:
        if c in "\b\t\n\f\r":
            return f"\\u{ord(c):04x}"
        return super().escape_char(c)


class NoShortControlEscapes(Bug):
    """wire.md §6.2 and §6.5, rule `canon.bytes` (and `bound.tail`): `\\b \\t \\n \\f \\r` are
    written as `\\u00xx`, six bytes where two are meant."""

    OP = "project"
    canon_class = _NoShortCanon


class _PairsOnlyCanon(Canon):
    """Pairs joined, lone surrogates left in place (what JSON.stringify does without
    toWellFormed): they are then written as \\udxxx escapes."""

    def well_formed(self, text: str) -> str:
        out: list[str] = []
        i = 0
        while i < len(text):
            o = ord(text[i])
            if 0xD800 <= o <= 0xDBFF and i + 1 < len(text) and 0xDC00 <= ord(text[i + 1]) <= 0xDFFF:
                out.append(chr(0x10000 + ((o - 0xD800) << 10) + (ord(text[i + 1]) - 0xDC00)))
                i += 2
                continue
            out.append(text[i])
            i += 1
        return "".join(out)

    def escape_char(self, c: str) -> str:
        if 0xD800 <= ord(c) <= 0xDFFF:
            return f"\\u{ord(c):04x}"
        return super().escape_char(c)


class LoneSurrogatesEscaped(Bug):
    """wire.md §6.1, rule `canon.utf8`: strings are not made well-formed; `JSON.stringify`
    writes a lone surrogate as `\\ud800`, which every reader decodes back to a lone surrogate."""

    OP = "project"
    canon_class = _PairsOnlyCanon


class _KeysRawCanon(Canon):
    def well_formed_key(self, key: str) -> str:
        return _PairsOnlyCanon.well_formed(self, key)  # type: ignore[arg-type]

    def key(self, text: str) -> str:
        return '"' + "".join(_PairsOnlyCanon.escape_char(self, c)  # type: ignore[arg-type]
                             for c in text) + '"'


class MemberNamesNotWellFormed(Bug):
    """wire.md §6.1, rule `canon.utf8`: string values are made well-formed but member names are
    not; every member name is too."""

    OP = "project"
    canon_class = _KeysRawCanon


class _FirstValueCanon(Canon):
    def members(self, obj: dict[str, Any]) -> list[tuple[str, Any]]:
        merged: dict[str, Any] = {}
        for key, value in obj.items():
            merged.setdefault(self.well_formed_key(key), value)
        return super().members(merged)


class DuplicateNamesKeepFirstValue(Bug):
    """wire.md §6.1 (last paragraph), rule `project.agrees`: when two member names become equal
    once well-formed, the first value is kept; the last one is."""

    OP = "project"
    canon_class = _FirstValueCanon


class _ReprCanon(Canon):
    def double(self, x: float) -> str:
        return repr(x)


class PythonFloatRepr(Bug):
    """wire.md §6.3, rule `canon.bytes` (and the bound rules through sizes): doubles are written
    with Python's `repr` (`30.0`, `1e-07`, `1e+16`)."""

    OP = "project"
    canon_class = _ReprCanon


class _NegZeroCanon(Canon):
    def double(self, x: float) -> str:
        if x == 0 and math.copysign(1.0, x) < 0:
            return "-0"
        return super().double(x)


class NegativeZeroWritten(Bug):
    """wire.md §6.3, rule `canon.bytes`: `-0` is written `-0`; `0` and `-0` are both `0`."""

    OP = "project"
    canon_class = _NegZeroCanon


class _IntegralCanon(Canon):
    def double(self, x: float) -> str:
        if x.is_integer() and abs(x) < 1e21:
            return str(int(x))
        return super().double(x)


class IntegralDoublesExact(Bug):
    """wire.md §6.3, rule `project.agrees`: an integral double below 1e21 is written as its
    exact integer (`str(int(x))`): 2^60 becomes `1152921504606846976`, where the shortest
    round-trip digits give `1152921504606847000`."""

    OP = "project"
    canon_class = _IntegralCanon


class _IsdigitCanon(Canon):
    def is_array_index(self, key: str) -> bool:
        return key.isdigit() and int(key) < ARRAY_INDEX_LIMIT


class ArrayIndexByIsdigit(Bug):
    """wire.md §6.4, rule `canon.bytes`: array indices are recognised with `str.isdigit()`, so
    `"01"` (and other digit strings that are not canonical) move to the front."""

    OP = "project"
    canon_class = _IsdigitCanon


class _InclusiveIndexCanon(Canon):
    def is_array_index(self, key: str) -> bool:
        return super().is_array_index(key) or key == str(ARRAY_INDEX_LIMIT)


class ArrayIndexBoundInclusive(Bug):
    """wire.md §6.4, rule `canon.bytes`: `"4294967295"` (2^32 − 1) is taken as an array index;
    indices are below 2^32 − 1."""

    OP = "project"
    canon_class = _InclusiveIndexCanon


class _InsertionOrderCanon(Canon):
    def is_array_index(self, key: str) -> bool:
        return False


class InsertionOrderOnly(Bug):
    """wire.md §6.4, rule `canon.bytes`: members are written in insertion order (Python's
    `json.dumps`); array-index names come first, ascending."""

    OP = "project"
    canon_class = _InsertionOrderCanon


# =============================================================================================
# project: numbers a line cannot carry (spec/wire.md §7)
# =============================================================================================


class LargeIntegersWritten(Bug):
    """wire.md §7, rule `project.agrees`: integer literals beyond 2^53 − 1 are written (Python
    integers have no limit); the answer is errored."""

    OP = "project"

    def number_refused(self, value: Any) -> bool:
        return isinstance(value, float) and not math.isfinite(value)


class SafeIntegerOffByOne(Bug):
    """wire.md §7, rule `project.agrees`: the limit test is `abs(n) > 2**53`, so 2^53 itself
    (9007199254740992) is written; the largest integer a line carries is 2^53 − 1."""

    OP = "project"

    def number_refused(self, value: Any) -> bool:
        if isinstance(value, int) and not isinstance(value, bool):
            return abs(value) > 2**53
        return super().number_refused(value)


class LargeDoublesRefused(Bug):
    """wire.md §7 (third note), rule `project.agrees`: doubles beyond 2^53 − 1 (`1e20`) are
    refused too; only integer literals are, doubles are carried exactly."""

    OP = "project"

    def number_refused(self, value: Any) -> bool:
        if isinstance(value, float) and math.isfinite(value) and abs(value) > MAX_SAFE_INTEGER:
            return True
        return super().number_refused(value)


class DroppedMembersChecked(Bug):
    """wire.md §7 (first note), rule `project.message-update`: the numbers of the whole event
    are checked, so a large integer inside `partial` or a turn's message refuses a line that
    does not carry it."""

    OP = "project"

    def project_line(self, event: dict[str, Any], event_type: str, max_bytes: int) -> str:
        self.check_numbers(event, "$.event")
        return super().project_line(event, event_type, max_bytes)


class BoundedNumbersUnchecked(Bug):
    """wire.md §7 (second note), rule `project.agrees`: a tool_execution_update over the bound
    is bounded before its numbers are checked, so a large integer in `args` is dropped with it
    instead of refusing the event."""

    OP = "project"

    def project_line(self, event: dict[str, Any], event_type: str, max_bytes: int) -> str:
        if event_type == "tool_execution_update":
            line = self.canon.serialize(event)
            if self.over(self.line_size(event, line), max_bytes):
                return self.bound(event, max_bytes)
        return super().project_line(event, event_type, max_bytes)


BUGS: list[type[Bug] | type[MaximalBug]] = [
    cls for cls in list(globals().values())
    if isinstance(cls, type) and issubclass(cls, (Bug, MaximalBug))
    and cls not in (Bug, MaximalBug)
]

__all__ = [cls.__name__ for cls in BUGS] + ["BUGS"]
