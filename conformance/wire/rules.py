"""The rules of the wire profile (spec/wire.md): one entry per normative statement a check
enforces.

Rule ids are stable: reports, expectation files, replay files and the vectors cite them. The spec
states each rule in the section named here and mentions its id there; a unit test holds the two in
step.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._model import AnswerClass, Errored, Rule, scoped

PROFILE = "wire"

_FRAMES = frozenset({"message_update", "tool_execution_update"})
_PROJECTED = frozenset({"message_update", "turn_end", "agent_end"})
_UPDATE = "tool_execution_update"
_MARKER = "[live output truncated]\n"
_BOUNDED_KEYS = ["type", "toolCallId", "toolName", "partialResult"]


def _type(op_input: Any) -> Any:
    event = op_input.get("event") if isinstance(op_input, Mapping) else None
    return event.get("type") if isinstance(event, Mapping) else None


def _is_line(expected: Any) -> bool:
    return isinstance(expected, Mapping) and isinstance(expected.get("line"), str)


def _is_frame(op_input: Any, expected: Any) -> bool:
    return _type(op_input) in _FRAMES


def _is_fact(op_input: Any, expected: Any) -> bool:
    return _type(op_input) not in _FRAMES


def _bounded(op_input: Any, expected: Any) -> bool:
    """An opted-in update over maxBytes: its line is the bounded form (wire.md §5.2), which
    differs from the event (a line of an event that has that shape itself and fits is the
    event)."""
    if _type(op_input) != _UPDATE or not _is_line(expected):
        return False
    line = expected["line"]
    if _MARKER.replace("\n", "\\n") not in line:
        return False
    value = json.loads(line)
    if list(value) != _BOUNDED_KEYS:
        return False
    content = value["partialResult"].get("content") if isinstance(
        value["partialResult"], Mapping) else None
    text = content[0].get("text") if isinstance(content, list) and len(content) == 1 \
        and isinstance(content[0], Mapping) else None
    return isinstance(text, str) and text.startswith(_MARKER) and value != op_input["event"]


def _no_line(op_input: Any, expected: Any) -> bool:
    return expected is None


def _errored(op_input: Any, expected: Any) -> bool:
    return isinstance(expected, Errored)


def _as_given(op_input: Any, expected: Any) -> bool:
    return (_is_line(expected) and _type(op_input) not in _PROJECTED
            and not _bounded(op_input, expected))


def _projected(op_input: Any, expected: Any) -> bool:
    return _is_line(expected) and _type(op_input) in _PROJECTED


def _line_of(*types: str) -> Any:
    def applies(op_input: Any, expected: Any) -> bool:
        return _is_line(expected) and _type(op_input) in types

    applies.__name__ = applies.__qualname__ = f"line_of_{'_'.join(types)}"
    return applies


def _line(op_input: Any, expected: Any) -> bool:
    return _is_line(expected)


def _fact_as_given(op_input: Any, expected: Any) -> bool:
    return _is_line(expected) and _type(op_input) not in _FRAMES | {"turn_end", "agent_end"}


def _other_line(op_input: Any, expected: Any) -> bool:
    return _is_line(expected) and _type(op_input) != _UPDATE


def _update_as_given(op_input: Any, expected: Any) -> bool:
    return _type(op_input) == _UPDATE and _is_line(expected) and not _bounded(op_input, expected)


def _update_line(op_input: Any, expected: Any) -> bool:
    return _type(op_input) == _UPDATE and _is_line(expected)


def _frame_answer(op_input: Any, expected: Any) -> bool:
    return _type(op_input) in _FRAMES and not isinstance(expected, Errored)


def _answer_is(answer: str) -> Any:
    def member(op_input: Any, expected: Any) -> bool:
        return bool(expected == answer)

    member.__name__ = member.__qualname__ = f"answer_is_{answer}"
    return member


#: The classes of the reference's answers, by operation: the families aim at every one.
CLASSES: dict[str, tuple[AnswerClass, ...]] = {
    "classify": (AnswerClass("fact", _answer_is("fact")),
                 AnswerClass("frame", _answer_is("frame"))),
    "project": (
        AnswerClass("no line", _no_line),
        AnswerClass("line as given", _as_given),
        AnswerClass("projected line", _projected),
        AnswerClass("bounded line", _bounded),
        AnswerClass("errored", _errored),
    ),
}

_BOUNDED_RULES = ("bound.shape", "bound.text", "bound.ids", "bound.tail", "bound.converges")

#: The answers each rule judges (rules not named: every answer of their operation).
_APPLIES = {
    "project.frame-opt-in": _frame_answer,
    "project.fact-passthrough": _fact_as_given,
    "project.message-update": _line_of("message_update"),
    "project.turn-end": _line_of("turn_end"),
    "project.agent-end": _line_of("agent_end"),
    "project.erroneous": _errored,
    "bound.fits": _update_line,
    "bound.only-when-over": _update_as_given,
    "bound.only-updates": _other_line,
    **dict.fromkeys(_BOUNDED_RULES, _bounded),
    "canon.utf8": _line,
    "canon.bytes": _line,
}
#: The answer classes each rule depends on.
_NEEDS = {
    "classify.kind": ("fact", "frame"),
    "project.frame-opt-in": ("no line",),
    "project.fact-passthrough": ("line as given",),
    "project.erroneous": ("errored",),
    "project.agrees": tuple(item.name for item in CLASSES["project"]),
    "bound.only-when-over": ("line as given",),
    **dict.fromkeys(_BOUNDED_RULES, ("bounded line",)),
}

_RULES: tuple[Rule, ...] = (
    Rule("classify.kind", "MUST", PROFILE, "classify", "wire.md#3",
         "message_update and tool_execution_update are frames; every other type, unknown ones "
         "included, is a fact."),
    Rule("project.frame-opt-in", "MUST", PROFILE, "project", "wire.md#4.1",
         "A frame projects to nothing unless includeLiveEvents is true."),
    Rule("project.fact-passthrough", "MUST", PROFILE, "project", "wire.md#4.2",
         "A fact other than turn_end and agent_end is written unchanged."),
    Rule("project.message-update", "MUST", PROFILE, "project", "wire.md#4.3",
         "message_update projects to {type, usage, assistantMessageEvent without partial}, with "
         "id and toolName on toolcall_start."),
    Rule("project.turn-end", "MUST", PROFILE, "project", "wire.md#4.4",
         "turn_end projects to {type, messageRole, toolResultCount}."),
    Rule("project.agent-end", "MUST", PROFILE, "project", "wire.md#4.4",
         "agent_end projects to {type, willRetry, messageCount}."),
    Rule("project.erroneous", "MUST", PROFILE, "project", "wire.md#4.5",
         "An erroneous event (a non-assistant message_update, a toolcall_start without its tool "
         "call) is answered with an error, never a line."),
    Rule("project.numbers", "MUST", PROFILE, "project", "wire.md#7",
         "A projected value holding an integer literal beyond 2^53-1 or an overflowing number is "
         "answered errored; the same number in a member the projection drops is not refused."),
    Rule("project.agrees", "MUST", PROFILE, "project", "wire.md#4",
         "The projected line parses to the same JSON value as the reference's."),
    Rule("bound.fits", "MUST", PROFILE, "project", "wire.md#5.1",
         "A projected tool_execution_update line is at most maxBytes bytes."),
    Rule("bound.only-when-over", "MUST", PROFILE, "project", "wire.md#5.1",
         "A tool_execution_update whose projection fits is written unchanged."),
    Rule("bound.only-updates", "MUST", PROFILE, "project", "wire.md#5.1",
         "The backstop never applies to any type but tool_execution_update."),
    Rule("bound.shape", "MUST", PROFILE, "project", "wire.md#5.2",
         "The bounded form has exactly the keys, order and nesting of the spec; args and details "
         "are dropped."),
    Rule("bound.text", "MUST", PROFILE, "project", "wire.md#5.3",
         "The bounded text is the marker followed by a suffix of the original text."),
    Rule("bound.ids", "MUST", PROFILE, "project", "wire.md#5.4",
         "toolCallId and toolName are clipped to their first 256 code points, and only then."),
    Rule("bound.converges", "MUST", PROFILE, "project", "wire.md#5.6",
         "Projecting any event answers within the time limit: the shrink loop converges."),
    Rule("bound.tail", "MUST", PROFILE, "project", "wire.md#5.5",
         "The tail has exactly the length the declared fit strategy picks."),
    Rule("canon.utf8", "MUST", PROFILE, "project", "wire.md#6.1",
         "Every line is well-formed UTF-8: no unpaired surrogate survives."),
    Rule("canon.bytes", "SHOULD", PROFILE, "project", "wire.md#6",
         "The line is byte for byte the canonical serialization."),
)

RULES: tuple[Rule, ...] = scoped(_RULES, _APPLIES, _NEEDS)
RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}
