"""The audit's shortcuts answer what the long way answers: a line's facts-only size, read without
asking the reference where the line cannot be projected again."""

from __future__ import annotations

from typing import Any

import orjson
from eventproof.conformance.audit._findings import Tallies
from eventproof.conformance.audit._lines import LineJudge, WireSettings, read_wire
from eventproof.reference import DEFAULT_MAX_BYTES, InvalidInput, project_event
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

_TEXT = st.text(max_size=12) | st.sampled_from(["\u2028", "é" * 40, '"\\', "\x01"])
_MESSAGE = st.fixed_dictionaries({"role": st.sampled_from(["assistant", "user", "toolResult"])
                                  | _TEXT},
                                 optional={"content": st.lists(st.fixed_dictionaries(
                                     {"type": st.just("text"), "text": _TEXT}), max_size=3)})
_COUNT = st.integers(0, 5) | st.sampled_from([-1, 1.5, "2", None, True])


@st.composite
def _boundaries(draw: st.DrawFn) -> dict[str, Any]:
    """A turn_end or agent_end as a harness may write it: projected (right or with a wrong
    member), unprojected (holding its message, tool results or messages), or in between."""
    if draw(st.booleans()):
        event: dict[str, Any] = {"type": "turn_end"}
        if draw(st.booleans()):
            event.update(messageRole=draw(_TEXT | st.none()), toolResultCount=draw(_COUNT))
        else:
            event.update(message=draw(_MESSAGE), toolResults=draw(st.lists(_MESSAGE,
                                                                            max_size=2)))
    else:
        event = {"type": "agent_end"}
        if draw(st.booleans()):
            event.update(willRetry=draw(st.booleans() | st.none()), messageCount=draw(_COUNT))
        else:
            event.update(messages=draw(st.lists(_MESSAGE, max_size=3)))
            if draw(st.booleans()):
                event["willRetry"] = draw(st.booleans())
    if draw(st.integers(0, 5)) == 0:
        event["extra"] = draw(_TEXT)
    return event


def _reference_facts(value: dict[str, Any], written: int) -> int:
    """The long way: the reference's facts-only projection of the event, or the line itself
    where the reference refuses it."""
    try:
        line = project_event(value, include_live_events=False, max_bytes=DEFAULT_MAX_BYTES)
    except InvalidInput:
        return written + 1
    return 0 if line is None else len(line) + 1


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(_boundaries())
def test_a_boundary_lines_facts_only_size_is_the_references(event: dict[str, Any]) -> None:
    """The facts-only bytes the audit counts for a turn_end or agent_end line are the
    reference's projection of it (the line itself when the reference refuses it), whether the
    line is projected already, unprojected or neither."""
    body = orjson.dumps(event)
    parsed, known = read_wire(body)
    judge = LineJudge(Tallies(5), "run.jsonl", WireSettings(False, DEFAULT_MAX_BYTES))
    judge.line = body + b"\n"
    facts = judge.wire(parsed.value, parsed, body, known)
    canonical = known or body
    assert facts == _reference_facts(parsed.value, len(canonical))
