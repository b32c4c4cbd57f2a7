"""Checks of the ``project`` rules (spec/wire.md §4): what each event projects to."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

from ..._json import MISSING, member_path
from ..._model import Case, Violation, judges
from ..explain import (
    ProjectView,
    compact,
    difference_text,
    project_view,
    same_json,
    shown,
)

#: The largest integer every double-based reader holds exactly (wire.md §7).
MAX_SAFE_INTEGER = 2**53 - 1


def unfaithful_number(value: Any, path: str = "$") -> tuple[str, Any] | None:
    """The first number a line cannot carry faithfully in ``value`` (an integer literal beyond
    2^53 - 1, an infinity or NaN), with its path; None when there is none. Iterative: a deep
    value never exhausts the stack."""
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, bool):
            continue
        if isinstance(item, int) and abs(item) > MAX_SAFE_INTEGER:
            return where, item
        if isinstance(item, float) and not math.isfinite(item):
            return where, item
        if isinstance(item, Mapping):
            stack.extend((member_path(where, key), child)
                         for key, child in reversed(list(item.items())) if isinstance(key, str))
        elif isinstance(item, list):
            stack.extend((f"{where}[{index}]", child)
                         for index, child in reversed(list(enumerate(item))))
    return None


def _literal(number: Any) -> str:
    if isinstance(number, float):
        return "an overflowing number (sent as 1e400)" if number > 0 else (
            "an overflowing number (sent as -1e400)") if number < 0 else "NaN"
    return f"the integer literal {number}"


def _read_back(line: Any, path: str) -> Any:
    """The value at ``path`` ("$.a.b[0]") of a parsed line, or MISSING."""
    item = line
    for part in re.findall(r"\.([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\[(\"(?:[^\"\\]|\\.)*\")\]",
                           path[1:]):
        name, index, quoted = part
        if index:
            position = int(index)
            if not (isinstance(item, list) and position < len(item)):
                return MISSING
            item = item[position]
        else:
            member = name or json.loads(quoted)
            if not (isinstance(item, Mapping) and member in item):
                return MISSING
            item = item[member]
    return item


@judges("project.numbers")
def check_numbers(case: Case) -> Iterator[Violation]:
    """project.numbers (wire.md §7): a number a line cannot carry is refused, and only there."""
    view = project_view(case)
    if view is None:
        return
    kind, value = view.restated()
    if kind != "line":
        return
    found = unfaithful_number(value)
    if found is None:
        if (view.actual.kind == "errored" and view.expected.kind != "errored"
                and unfaithful_number(view.event) is not None):
            where, number = unfaithful_number(view.event) or ("$", None)
            yield Violation("project.numbers", (
                f"you answered errored ({view.actual.message[:200]}), but {_literal(number)} at "
                f"{where.replace('$', '$.event', 1)} sits in a member the projection drops "
                "(partial, message content, turn_end.message, agent_end.messages): the line "
                "never carries it, so it is not refused (wire.md §7)"),
                kind="refused a number in a dropped member")
        return
    if view.actual.kind == "errored":
        return
    where, number = found
    said = f"you answered {view.actual.describe()}"
    failure = "number carried unfaithfully"
    line = view.actual.line
    if view.actual.kind == "line" and line is not None and line.parsed:
        back = _read_back(line.value, where)
        if back is None:
            failure = "overflow written as null"
            said = f"your line writes it as null at {where}"
        elif isinstance(back, int | float) and not isinstance(back, bool) and back != number:
            failure = "integer rounded"
            said = f"your line carries {back} at {where} instead: a rounded value"
    yield Violation("project.numbers", (
        f"the projected value holds {_literal(number)} at {where}, which a line cannot carry "
        "faithfully: a reader built on doubles rounds such an integer (9007199254740993 reads as "
        "9007199254740992), and JSON.stringify writes an infinity as null. Answer errored, "
        f"naming the value's path (wire.md §7); {said}"), kind=failure)


@judges("project.erroneous")
def check_erroneous(case: Case) -> Iterator[Violation]:
    """project.erroneous (wire.md §4.5): an erroneous event is answered with an error."""
    view = project_view(case)
    if view is None or view.expected.kind != "errored" or view.actual.kind == "errored":
        return
    kind, reason = view.restated()
    if kind == "line" and unfaithful_number(reason) is not None:
        return  # project.numbers says what is wrong
    why = reason if kind == "erroneous" else f"the reference refuses it: {view.expected.message}"
    yield Violation("project.erroneous", (
        f"this {view.type} is erroneous: {why} (wire.md §4.5). Answer errored, never a line; "
        f"you answered {view.actual.describe()}. The reference's message: "
        f"{view.expected.message[:300]}"))


@judges("project.frame-opt-in")
def check_frame_opt_in(case: Case) -> Iterator[Violation]:
    """project.frame-opt-in (wire.md §4.1): a frame is written only when opted into."""
    view = project_view(case)
    if view is None or not view.is_frame or view.expected.kind == "errored":
        return
    if not view.include and view.actual.kind == "line":
        yield Violation("project.frame-opt-in", (
            f"includeLiveEvents is false, so this {view.type} (a frame: ephemeral progress) "
            f"projects to nothing: answer null. You wrote {view.actual.describe()}. Frames reach "
            "the wire only when the caller opts in (wire.md §4.1)"))
    elif view.include and view.actual.kind == "null":
        yield Violation("project.frame-opt-in", (
            f"includeLiveEvents is true, so this {view.type} is written; you answered null. The "
            f"reference writes {view.expected.describe()} (wire.md §4.1)"))


def _projection_difference(case: Case, kind: str) -> tuple[ProjectView, Any, Any] | None:
    """For an event of type ``kind`` whose line parses to something other than its projection:
    the view, the parsed line and the projection it should be."""
    view = project_view(case)
    if view is None or view.type != kind:
        return None
    line = view.judged_line()
    if line is None or view.restated()[0] != "line" or (view.is_update and view.over):
        return None
    want = view.want()
    return None if same_json(line.value, want) else (view, line.value, want)


@judges("project.message-update")
def check_message_update(case: Case) -> Iterator[Violation]:
    """project.message-update (wire.md §4.3)."""
    found = _projection_difference(case, "message_update")
    if found is None:
        return
    view, got, want = found
    notes = []
    got_event = got.get("assistantMessageEvent") if isinstance(got, Mapping) else None
    want_event = want["assistantMessageEvent"]
    if isinstance(got_event, Mapping) and "partial" in got_event:
        notes.append(f"your assistantMessageEvent still carries partial "
                     f"({len(compact(got_event['partial']))} characters of the cumulative message "
                     "snapshot): drop it")
    if want_event.get("type") == "toolcall_start" and isinstance(got_event, Mapping):
        index = view.event["assistantMessageEvent"].get("contentIndex")
        for key in ("id", "toolName"):
            if not same_json(got_event.get(key), want_event[key]):
                source = "id" if key == "id" else "name"
                notes.append(f"a toolcall_start carries {key} = partial.content[{index}]."
                             f"{source} = {shown(want_event[key])}; yours "
                             + ("has none" if key not in got_event else
                                f"is {shown(got_event[key])}"))
    if isinstance(got, Mapping):
        if "usage" in want and "usage" not in got:
            notes.append("the message has usage, so the line carries it as \"usage\"")
        elif "usage" not in want and "usage" in got:
            notes.append(f"the message has no usage, so the member is omitted (yours is "
                         f"{shown(got['usage'])})")
        for key in got:
            if key not in want and key not in ("usage",):
                notes.append(f"drop {compact(key)}")
    if not notes:
        notes.append(difference_text(got, want))
    yield Violation("project.message-update", (
        "a message_update projects to {\"type\",\"usage\" (when the message has one),"
        "\"assistantMessageEvent\": the event's assistantMessageEvent without partial}, and a "
        "toolcall_start adds the id and toolName of its tool call (wire.md §4.3): "
        + "; ".join(notes)))


@judges("project.turn-end")
def check_turn_end(case: Case) -> Iterator[Violation]:
    """project.turn-end (wire.md §4.4)."""
    found = _projection_difference(case, "turn_end")
    if found is None:
        return
    _, got, want = found
    notes = []
    if isinstance(got, Mapping):
        for key in ("message", "toolResults"):
            if key in got:
                notes.append(f"your line still carries {key} ({len(compact(got[key]))} characters "
                             "of JSON) that message_end and tool_execution_end already wrote")
    if not notes:
        notes.append(difference_text(got, want))
    yield Violation("project.turn-end", (
        f"a turn_end projects to exactly {compact(want)} (wire.md §4.4): " + "; ".join(notes)))


@judges("project.agent-end")
def check_agent_end(case: Case) -> Iterator[Violation]:
    """project.agent-end (wire.md §4.4)."""
    found = _projection_difference(case, "agent_end")
    if found is None:
        return
    view, got, want = found
    notes = []
    if isinstance(got, Mapping):
        if "messages" in got:
            notes.append(f"your line still carries messages ({len(compact(got['messages']))} "
                         "characters of JSON): write messageCount instead")
        if "willRetry" not in got and "willRetry" not in view.event:
            notes.append("the event has no willRetry, and the line says \"willRetry\":false "
                         "(absent reads as false; never leave the member out)")
    if not notes:
        notes.append(difference_text(got, want))
    yield Violation("project.agent-end", (
        f"an agent_end projects to exactly {compact(want)} (wire.md §4.4): " + "; ".join(notes)))


@judges("project.fact-passthrough")
def check_fact_passthrough(case: Case) -> Iterator[Violation]:
    """project.fact-passthrough (wire.md §4.2): other facts are written unchanged."""
    view = project_view(case)
    if view is None or view.is_frame or view.type in ("turn_end", "agent_end"):
        return
    if view.expected.kind != "line":
        return
    unknown = "" if view.type in {"agent_start", "turn_start", "message_start", "message_end",
                                  "tool_execution_start", "tool_execution_end"} else (
        f" ({compact(view.type)} is not a type spec/wire.md names: unknown types are facts too)")
    if view.actual.kind == "null":
        yield Violation("project.fact-passthrough", (
            f"you answered null for a {compact(view.type)} event; a fact is always written, "
            f"unchanged{unknown} (wire.md §4.2)"))
        return
    line = view.judged_line()
    if line is None or view.over:
        return  # an oversized fact that was altered is bound.only-updates
    want = view.want()
    if not same_json(line.value, want):
        yield Violation("project.fact-passthrough", (
            f"a {compact(view.type)} fact is written unchanged{unknown} (wire.md §4.2): "
            f"{difference_text(line.value, want)}"))


@judges("project.agrees")
def check_project_agrees(case: Case) -> Iterator[Violation]:
    """project.agrees (wire.md §4): the line parses to the reference's value."""
    view = project_view(case)
    if view is None or view.expected.kind == "errored":
        return
    expected, actual = view.expected, view.actual
    if actual.kind == "errored":
        yield Violation("project.agrees", (
            f"you answered errored ({actual.message[:200]}), but the event is valid: the "
            f"reference writes {expected.describe()}"), kind="errored on a valid input")
    elif actual.kind == "bad":
        yield Violation("project.agrees", (
            f"your answer is {actual.describe()}: project answers {{\"line\": <the line as a "
            "string>}} or null (wire.md §8)"))
    elif actual.kind != expected.kind:
        yield Violation("project.agrees", (
            f"you answered {actual.describe()}; the reference answers {expected.describe()}"))
    elif actual.kind == "line" and actual.line is not None and expected.line is not None:
        if not actual.line.parsed:
            yield Violation("project.agrees", (
                f"your line is not JSON ({actual.line.error}): {shown(actual.line.text)}"),
                kind="line is not JSON")
        elif not same_json(actual.line.value, expected.line.value):
            yield Violation("project.agrees", (
                f"your line parses to a different value than the reference's: "
                f"{difference_text(actual.line.value, expected.line.value)}"))


