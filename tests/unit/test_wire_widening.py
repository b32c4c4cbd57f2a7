"""The wire generators reach every shape the schemas allow where it decides an answer: for each
class of shape the widened generators draw, a wrong implementation that only such a shape shows,
caught by a quick search (``--budget quick``) on several seeds.

Each wrong implementation is the reference with one mistake a port makes (wire.md names the
rule): refusing ``maxBytes`` written ``4096.0`` or beyond 2^53 - 1, keeping an update's own
members, rebuilding a fact's content blocks, requiring a tool result's optional members, reading
``contentIndex`` as a 32-bit integer or refusing it written ``1.0``, measuring a long tail in
pieces that stop when the cost reaches the room, refusing assistant event types §2 does not
name, keeping the first of two member names that collide once well-formed, measuring ``-0`` as
two bytes, and classifying by a part of the type name or by the event's shape.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from eventproof.reference import InvalidInput, Reference, _backstop, canonical_bytes, well_formed
from helpers import conforms_on_a_quick_run

#: Seeds of the default run; ``nox -s slow`` (``-m slow``) checks the others.
DEFAULT_SEEDS = (0,)
SLOW_SEEDS = (1, 2, 3, 4, 5, 6, 7)
#: The members of a message_update the projection reads (wire.md §4.3).
UPDATE_MEMBERS = ("type", "message", "assistantMessageEvent")
#: The members of a content block the schemas name.
BLOCK_MEMBERS = ("type", "text", "thinking", "id", "name", "arguments")
#: Assistant event types wire.md §2 names.
NAMED_STEPS = ("start", "text_start", "text_delta", "text_end", "thinking_start", "thinking_delta",
               "thinking_end", "toolcall_start", "toolcall_delta", "toolcall_end", "done",
               "error")


class _Wrong(Reference):
    """The reference with one mistake in ``project`` or ``classify``."""

    def run(self, op: str, input: Any) -> Any:
        if op == "project":
            return self.project(input)
        if op == "classify":
            return self.classify(input)
        return super().run(op, input)

    def project(self, request: dict[str, Any]) -> Any:
        return super().run("project", request)

    def classify(self, request: dict[str, Any]) -> Any:
        return super().run("classify", request)


def _refuse(path: str, value: Any, reason: str) -> InvalidInput:
    return InvalidInput(value=value, path=path, reason=reason, fix="-")


class MaxBytesDoubleRefused(_Wrong):
    """wire.md §1, §8: ``maxBytes`` 4096.0 is the integer 4096; this port wants an int."""

    def project(self, request: dict[str, Any]) -> Any:
        if isinstance(request.get("maxBytes"), float):
            raise _refuse("$.maxBytes", request["maxBytes"], "is not an integer")
        return super().project(request)


class MaxBytesInt64(_Wrong):
    """wire.md §8 bounds ``maxBytes`` only below; this port parses it as a signed 64-bit
    integer, or as a double it must hold exactly."""

    def project(self, request: dict[str, Any]) -> Any:
        bound = request.get("maxBytes")
        if isinstance(bound, int) and bound > 2**53 - 1:
            raise _refuse("$.maxBytes", bound, "does not fit")
        return super().project(request)


class UpdateKeepsOwnMembers(_Wrong):
    """wire.md §4.3: a message_update projects to {type, usage, assistantMessageEvent}; this
    port copies the event's other members too."""

    def project(self, request: dict[str, Any]) -> Any:
        answer = super().project(request)
        event = request["event"]
        if answer is None or event.get("type") != "message_update":
            return answer
        extra = {k: v for k, v in event.items() if k not in UPDATE_MEMBERS}
        if not extra:
            return answer
        import json
        value = json.loads(answer["line"])
        return {"line": canonical_bytes({**value, **extra}).decode("utf-8")}


class FactBlocksRebuilt(_Wrong):
    """wire.md §4.2: a fact passes through unchanged; this port rebuilds the content blocks of a
    fact's message from the members it knows, losing a block's own members."""

    def project(self, request: dict[str, Any]) -> Any:
        event = request["event"]
        message = event.get("message")
        if event.get("type") in ("message_start", "message_end") and isinstance(
                message, dict) and isinstance(message.get("content"), list):
            content = [{k: v for k, v in block.items() if k in BLOCK_MEMBERS}
                       if isinstance(block, dict) else block for block in message["content"]]
            event = {**event, "message": {**message, "content": content}}
            request = {**request, "event": event}
        return super().project(request)


class ToolResultMembersRequired(_Wrong):
    """wire.md §4.4 counts a turn's tool results; the schema requires neither ``toolName`` nor
    ``isError`` of one, this port refuses a result without them."""

    def project(self, request: dict[str, Any]) -> Any:
        event = request["event"]
        if event.get("type") == "turn_end" and isinstance(event.get("toolResults"), list):
            for i, result in enumerate(event["toolResults"]):
                if isinstance(result, dict) and not {"toolName", "isError"} <= result.keys():
                    raise _refuse(f"$.event.toolResults[{i}]", result, "lacks toolName")
        return super().project(request)


class ContentIndexInt32(_Wrong):
    """wire.md §2.4 bounds ``contentIndex`` only below (a line carries up to 2^53 - 1); this
    port reads it into a 32-bit integer."""

    def project(self, request: dict[str, Any]) -> Any:
        step = request["event"].get("assistantMessageEvent")
        index = step.get("contentIndex") if isinstance(step, dict) else None
        if isinstance(index, int | float) and index > 2**31 - 1:
            raise _refuse("$.event.assistantMessageEvent.contentIndex", index, "overflows")
        return super().project(request)


class ToolCallIndexExact(_Wrong):
    """wire.md §1: ``contentIndex`` ``1.0`` is the integer 1; this port reads a tool call's
    index with an integer-only parser and refuses a double (``isinstance(i, int)``)."""

    def project(self, request: dict[str, Any]) -> Any:
        step = request["event"].get("assistantMessageEvent")
        if (isinstance(step, dict) and step.get("type") == "toolcall_start"
                and isinstance(step.get("contentIndex"), float)):
            raise _refuse("$.event.assistantMessageEvent.contentIndex", step["contentIndex"],
                          "is not an integer")
        return super().project(request)


def _measure_stopping_at_the_limit(self: Any, start: int, stop: int, limit: int | None) -> int:
    total, end = 0, stop
    while end > start:
        begin = max(start, end - _backstop._MEASURE_PIECE)
        self.stats.measured += end - begin
        total += _backstop.escaped_size(self.text[begin:end])
        if limit is not None and total >= limit:  # the mistake: >= where > is meant
            break
        end = begin
    return total


class MeasureStopsAtTheRoom(_Wrong):
    """wire.md §5.5, §5.6: a tail fits when its cost is at most the room left; this port
    measures a long text in pieces and stops as soon as the cost *reaches* the room, so a
    tail whose first pieces cost exactly the room is taken whole, and the line is over."""

    def project(self, request: dict[str, Any]) -> Any:
        right = _backstop._Measure.cost_within
        _backstop._Measure.cost_within = _measure_stopping_at_the_limit  # type: ignore[method-assign]
        try:
            return super().project(request)
        finally:
            _backstop._Measure.cost_within = right  # type: ignore[method-assign]


class UnnamedStepsRefused(_Wrong):
    """wire.md §2.4: assistant events of other types are accepted and projected like the
    others; this port refuses any type but the twelve."""

    def project(self, request: dict[str, Any]) -> Any:
        step = request["event"].get("assistantMessageEvent")
        if request["event"].get("type") == "message_update" and isinstance(step, dict) and \
                step.get("type") not in NAMED_STEPS:
            raise _refuse("$.event.assistantMessageEvent.type", step.get("type"), "is unknown")
        return super().project(request)


def _first_value_kept(value: Any) -> Any:
    """``value`` with each set of member names that collide once well-formed reduced to its
    first member (the reference keeps the first one's position and the last one's value)."""
    if isinstance(value, list):
        return [_first_value_kept(item) for item in value]
    if not isinstance(value, dict):
        return value
    kept: dict[str, Any] = {}
    for name, item in value.items():
        if well_formed(name) not in kept:
            kept[well_formed(name)] = _first_value_kept(item)
    return kept


class CollidingNamesKeepFirst(_Wrong):
    """wire.md §6.1: names that become equal once well-formed keep the last value; this port
    keeps the first."""

    def project(self, request: dict[str, Any]) -> Any:
        return super().project({**request, "event": _first_value_kept(request["event"])})


def _negative_zeros(value: Any) -> int:
    if isinstance(value, float):
        return int(value == 0 and math.copysign(1.0, value) < 0)
    if isinstance(value, dict):
        return sum(_negative_zeros(item) for item in value.values())
    if isinstance(value, list):
        return sum(_negative_zeros(item) for item in value)
    return 0


class NegativeZeroMeasured(_Wrong):
    """wire.md §5.1, §6.3: the line is measured in its canonical bytes, where ``-0`` is ``0``;
    this port measures ``-0`` as two bytes, so a line of exactly ``maxBytes`` holding one is
    bounded."""

    def project(self, request: dict[str, Any]) -> Any:
        event, bound = request["event"], request["maxBytes"]
        if event.get("type") == "tool_execution_update" and isinstance(event.get("args"), dict):
            size = len(canonical_bytes(event))
            if size <= bound < size + _negative_zeros(event):
                # Its bounded form: the reference's for the event over the bound (args, which
                # the bounded form drops, padded).
                padded = {**event, "args": {"pad": "p" * (int(bound) + 1)}}
                return super().project({**request, "event": padded})
        return super().project(request)


class ClassifiedByEnding(_Wrong):
    """wire.md §3: a type is a frame by its exact name; this port takes every ``*_update``."""

    def classify(self, request: dict[str, Any]) -> Any:
        kind = request["event"].get("type")
        return "frame" if isinstance(kind, str) and kind.endswith("_update") else "fact"


class ClassifiedByShape(_Wrong):
    """wire.md §3: this port takes an event for a frame by its members (an
    ``assistantMessageEvent``, a ``partialResult``), not by its type."""

    def classify(self, request: dict[str, Any]) -> Any:
        event = request["event"]
        if "assistantMessageEvent" in event or "partialResult" in event:
            return "frame"
        return super().classify(request)


WRONG: dict[type[_Wrong], tuple[str, str]] = {
    MaxBytesDoubleRefused: ("project", "project.agrees"),
    MaxBytesInt64: ("project", "project.agrees"),
    UpdateKeepsOwnMembers: ("project", "project.message-update"),
    FactBlocksRebuilt: ("project", "project.fact-passthrough"),
    ToolResultMembersRequired: ("project", "project.agrees"),
    ContentIndexInt32: ("project", "project.agrees"),
    ToolCallIndexExact: ("project", "project.agrees"),
    MeasureStopsAtTheRoom: ("project", "bound.fits"),
    UnnamedStepsRefused: ("project", "project.agrees"),
    CollidingNamesKeepFirst: ("project", "project.fact-passthrough"),
    NegativeZeroMeasured: ("project", "bound.only-when-over"),
    ClassifiedByEnding: ("classify", "classify.kind"),
    ClassifiedByShape: ("classify", "classify.kind"),
}


def _assert_caught(wrong: type[_Wrong], seed: int) -> None:
    """A quick search finds the wrong implementation non-conforming (the first rule it breaks
    may be another one that judges the same answer)."""
    op, rule = WRONG[wrong]
    assert not conforms_on_a_quick_run(wrong(), op, seed), (
        f"{wrong.__name__} conforms on a quick run, seed {seed} (it breaks {rule})")


@pytest.mark.parametrize("seed", DEFAULT_SEEDS)
@pytest.mark.parametrize("wrong", list(WRONG), ids=lambda cls: cls.__name__)
def test_a_quick_search_catches_each_class_of_shape(wrong: type[_Wrong], seed: int) -> None:
    _assert_caught(wrong, seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SLOW_SEEDS)
@pytest.mark.parametrize("wrong", list(WRONG), ids=lambda cls: cls.__name__)
def test_a_quick_search_catches_each_class_of_shape_on_more_seeds(wrong: type[_Wrong],
                                                                  seed: int) -> None:
    _assert_caught(wrong, seed)


@pytest.mark.parametrize("wrong", list(WRONG), ids=lambda cls: cls.__name__)
def test_each_wrong_implementation_agrees_with_the_reference_elsewhere(
        wrong: type[_Wrong]) -> None:
    """Each mistake is narrow: on an ordinary input the wrong implementation answers as the
    reference does (so a catch is the widened shape's, not an accident)."""
    op = WRONG[wrong][0]
    request: dict[str, Any] = (
        {"event": {"type": "message_update", "message": {"role": "assistant", "content": []},
                   "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0,
                                             "delta": "hi", "partial": {
                                                 "role": "assistant", "content": []}}},
         "includeLiveEvents": True, "maxBytes": 4096}
        if op == "project" else {"event": {"type": "message_update"}})
    assert wrong().run(op, request) == Reference().run(op, request)
