"""Classification and projection of agent events (spec/wire.md §3-4, §7)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from eventproof.reference import (
    MARKER,
    InvalidInput,
    Reference,
    canonical_bytes,
    classify_event,
    project_event,
)
from eventproof.reference._backstop import BoundStats
from hypothesis import given, settings
from hypothesis import strategies as st

USAGE = {"input": 10, "output": 5, "cost": {"total": 0.0001, "input": 30.0}}
TOOL_CALL = {"type": "toolCall", "id": "call_7", "name": "read", "arguments": {"path": "a"}}
PARTIAL = {"role": "assistant", "content": [{"type": "text", "text": "Let me read."}, TOOL_CALL],
           "usage": USAGE}
KNOWN_FACTS = ["agent_start", "turn_start", "message_start", "message_end",
               "tool_execution_start", "tool_execution_end"]


def message_update(ame: dict[str, Any], message: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "message_update", "message": PARTIAL if message is None else message,
            "assistantMessageEvent": ame}


def project(event: Any, **options: Any) -> Any:
    """The projected line parsed back, or None."""
    options.setdefault("include_live_events", True)
    line = project_event(event, **options)
    return None if line is None else json.loads(line)


# -- §3 classification -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "expected"),
    [("message_update", "frame"), ("tool_execution_update", "frame"),
     *[(kind, "fact") for kind in KNOWN_FACTS],
     ("turn_end", "fact"), ("agent_end", "fact"), ("compaction_start", "fact"), ("", "fact"),
     ("Message_Update", "fact"), ("message_update ", "fact")],
)
def test_classify(kind: str, expected: str) -> None:
    """Exactly message_update and tool_execution_update are frames; everything else is a fact."""
    assert classify_event({"type": kind, "anything": [1]}) == expected


@pytest.mark.parametrize(("event", "path"), [
    (None, "$.event"), ([], "$.event"), ("agent_start", "$.event"),
    ({}, "$.event.type"), ({"type": 3}, "$.event.type"), ({"type": None}, "$.event.type"),
])
def test_classify_refuses_events_without_a_type(event: Any, path: str) -> None:
    """An event that is not an object with a string type is refused with its path."""
    with pytest.raises(InvalidInput) as caught:
        classify_event(event)
    assert caught.value.path == path


# -- §4.1 opt-in -------------------------------------------------------------------------------


@pytest.mark.parametrize("event", [
    message_update({"type": "text_delta", "contentIndex": 0, "delta": "x", "partial": PARTIAL}),
    {"type": "tool_execution_update", "toolCallId": "c", "toolName": "n", "args": {},
     "partialResult": "x" * 300_000},
    # erroneous frames (§4.5) are never looked at when nobody opted in
    message_update({"type": "text_delta", "partial": PARTIAL}, {"role": "user", "content": "q"}),
    message_update({"type": "toolcall_start", "contentIndex": 9, "partial": PARTIAL}),
])
def test_frames_without_opt_in_project_to_nothing(event: dict[str, Any]) -> None:
    """A frame projects to nothing unless includeLiveEvents is true."""
    assert project_event(event, include_live_events=False) is None


# -- §4.2 facts pass through -------------------------------------------------------------------


def test_fact_passes_through_byte_for_byte() -> None:
    """A fact is written unchanged: every member, in its order, canonically serialized."""
    event = {"type": "tool_execution_end", "toolCallId": "c", "toolName": "bash",
             "result": {"content": [{"type": "text", "text": "ok\n"}], "details": {"2": 2.0,
                                                                                 "10": -0.0}},
             "isError": False, "z": None, "a": [1e21, 1e-7]}
    assert project_event(event, include_live_events=False) == (
        b'{"type":"tool_execution_end","toolCallId":"c","toolName":"bash","result":{"content":'
        b'[{"type":"text","text":"ok\\n"}],"details":{"2":2,"10":0}},"isError":false,"z":null,'
        b'"a":[1e+21,1e-7]}'
    )


JSON_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-(2**53) + 1, 2**53 - 1),
                        st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8),
                        st.sampled_from(["\ud800", "\x00", "\u2028", "\U0001f600"]))
JSON = st.recursive(JSON_LEAVES, lambda c: st.one_of(
    st.lists(c, max_size=3),
    st.dictionaries(st.one_of(st.text(max_size=4), st.sampled_from(["1", "01", "4294967295"])),
                    c, max_size=3)), max_leaves=12)


@given(st.one_of(st.sampled_from(KNOWN_FACTS), st.text(max_size=12)).filter(
           lambda kind: kind not in ("message_update", "tool_execution_update", "turn_end",
                                     "agent_end")),
       st.dictionaries(st.text(max_size=6).filter(lambda key: key != "type"), JSON, max_size=4),
       st.booleans())
def test_facts_pass_through_unchanged(kind: str, extra: dict[str, Any], opted_in: bool) -> None:
    """Every fact but turn_end and agent_end is its own canonical line, opted in or not."""
    event = {"type": kind, **extra}
    assert project_event(event, include_live_events=opted_in, max_bytes=4096) == \
        canonical_bytes(event)


def test_tool_execution_end_is_never_bounded() -> None:
    """A tool_execution_end far over maxBytes is still written whole."""
    event = {"type": "tool_execution_end", "toolCallId": "c", "toolName": "n",
             "result": "\x00" * 10_000, "isError": False}
    line = project_event(event, include_live_events=True, max_bytes=4096)
    assert line == canonical_bytes(event)
    assert line is not None
    assert len(line) > 60_000


@given(st.sampled_from([*KNOWN_FACTS, "turn_end", "agent_end", "custom"]),
       st.integers(1, 30_000))
@settings(max_examples=30)
def test_no_fact_is_ever_bounded(kind: str, size: int) -> None:
    """The backstop applies to no type but tool_execution_update, whatever the size."""
    event: dict[str, Any] = {"type": kind, "toolCallId": "c", "toolName": "n",
                             "message": {"role": "assistant", "content": []}, "messages": [],
                             "toolResults": [], "partialResult": "p" * size}
    line = project_event(event, include_live_events=True, max_bytes=4096)
    assert line is not None
    assert MARKER.encode()[:-1] not in line


# -- §4.3 message_update -----------------------------------------------------------------------


def test_message_update_projection() -> None:
    """message_update keeps type, the message's usage and the event without partial."""
    event = message_update({"type": "text_delta", "contentIndex": 0, "delta": "Let",
                            "partial": PARTIAL, "extra": [1]})
    assert project_event(event, include_live_events=True) == (
        b'{"type":"message_update","usage":{"input":10,"output":5,"cost":{"total":0.0001,'
        b'"input":30}},"assistantMessageEvent":{"type":"text_delta","contentIndex":0,'
        b'"delta":"Let","extra":[1]}}'
    )


def test_message_update_without_usage_omits_the_key() -> None:
    """A message without usage gives a projection without the usage key (not null)."""
    message: dict[str, Any] = {"role": "assistant", "content": []}
    event = message_update({"type": "start", "partial": message}, message)
    assert project(event) == {"type": "message_update", "assistantMessageEvent": {"type": "start"}}


def test_message_update_keeps_a_null_usage() -> None:
    """A usage member that is present is copied as it is, null included."""
    message: dict[str, Any] = {"role": "assistant", "content": [], "usage": None}
    assert project(message_update({"type": "start"}, message))["usage"] is None


def test_message_update_keeps_the_event_key_order() -> None:
    """The projected event keeps the original member order, partial removed wherever it was."""
    ame = {"partial": PARTIAL, "delta": "d", "type": "text_delta", "contentIndex": 0}
    assert list(project(message_update(ame))["assistantMessageEvent"]) == [
        "delta", "type", "contentIndex"]


def test_toolcall_start_gains_id_and_tool_name() -> None:
    """A toolcall_start carries the id and name of the tool call at contentIndex, appended."""
    ame = {"type": "toolcall_start", "contentIndex": 1, "partial": PARTIAL}
    projected = project(message_update(ame))["assistantMessageEvent"]
    assert projected == {"type": "toolcall_start", "contentIndex": 1, "id": "call_7",
                         "toolName": "read"}
    assert list(projected) == ["type", "contentIndex", "id", "toolName"]


def test_toolcall_start_existing_keys_keep_their_position() -> None:
    """An id or toolName the event already has keeps its position; its value is replaced."""
    ame = {"toolName": "stale", "type": "toolcall_start", "id": "old", "contentIndex": 1,
           "partial": PARTIAL}
    projected = project(message_update(ame))["assistantMessageEvent"]
    assert list(projected.items()) == [("toolName", "read"), ("type", "toolcall_start"),
                                       ("id", "call_7"), ("contentIndex", 1)]


def test_toolcall_start_index_may_be_an_integral_float() -> None:
    """contentIndex 1.0 is the JSON number 1 and finds the same block."""
    ame = {"type": "toolcall_start", "contentIndex": 1.0, "partial": PARTIAL}
    assert project(message_update(ame))["assistantMessageEvent"]["id"] == "call_7"


@pytest.mark.parametrize("kind", ["toolcall_delta", "toolcall_end", "text_start", "done", "x"])
def test_other_events_gain_nothing(kind: str) -> None:
    """Only toolcall_start gains id and toolName; other types are copied minus partial."""
    ame = {"type": kind, "contentIndex": 1, "partial": PARTIAL}
    assert project(message_update(ame))["assistantMessageEvent"] == {"type": kind,
                                                                     "contentIndex": 1}


# -- §4.4 turn_end and agent_end ---------------------------------------------------------------


def test_turn_end_projection() -> None:
    """turn_end projects to its message's role and the number of tool results."""
    event = {"type": "turn_end", "message": PARTIAL, "toolResults": [{"role": "toolResult"}] * 3,
             "extra": "dropped"}
    assert project_event(event, include_live_events=False) == \
        b'{"type":"turn_end","messageRole":"assistant","toolResultCount":3}'


@pytest.mark.parametrize(("will_retry", "written"), [(None, "false"), (False, "false"),
                                                     (True, "true")])
def test_agent_end_projection(will_retry: bool | None, written: str) -> None:
    """agent_end projects to willRetry (false when absent) and the number of messages."""
    event: dict[str, Any] = {"type": "agent_end", "messages": [PARTIAL, PARTIAL]}
    if will_retry is not None:
        event["willRetry"] = will_retry
    assert project_event(event, include_live_events=False) == \
        f'{{"type":"agent_end","willRetry":{written},"messageCount":2}}'.encode()


def test_boundary_projections_ignore_numbers_they_drop() -> None:
    """A number the projection drops (a NaN deep in turn_end's message) refuses nothing."""
    event = {"type": "turn_end", "message": {"role": "assistant", "content": [], "x": 2**60,
                                             "y": float("nan")}, "toolResults": []}
    assert project(event) == {"type": "turn_end", "messageRole": "assistant",
                              "toolResultCount": 0}
    update = message_update({"type": "start", "partial": {"role": "assistant", "content": [],
                                                          "n": 2**64}})
    assert project(update)["assistantMessageEvent"] == {"type": "start"}


# -- §4.5 erroneous events ---------------------------------------------------------------------


@pytest.mark.parametrize("role", ["user", "toolResult", "system", ""])
def test_non_assistant_message_update_is_erroneous(role: str) -> None:
    """A message_update whose message is not an assistant message is an error, never a line."""
    event = message_update({"type": "text_delta", "partial": PARTIAL},
                           {"role": role, "content": []})
    with pytest.raises(InvalidInput) as caught:
        project_event(event, include_live_events=True)
    assert caught.value.path == "$.event.message.role"
    assert "§4.5" in caught.value.reason


@pytest.mark.parametrize(("ame", "path"), [
    ({"type": "toolcall_start", "contentIndex": 2, "partial": PARTIAL},
     "$.event.assistantMessageEvent.contentIndex"),
    ({"type": "toolcall_start", "contentIndex": -1, "partial": PARTIAL},
     "$.event.assistantMessageEvent.contentIndex"),
    ({"type": "toolcall_start", "partial": PARTIAL},
     "$.event.assistantMessageEvent.contentIndex"),
    ({"type": "toolcall_start", "contentIndex": 0.5, "partial": PARTIAL},
     "$.event.assistantMessageEvent.contentIndex"),
    ({"type": "toolcall_start", "contentIndex": True, "partial": PARTIAL},
     "$.event.assistantMessageEvent.contentIndex"),
    ({"type": "toolcall_start", "contentIndex": 0, "partial": PARTIAL},
     "$.event.assistantMessageEvent.partial.content[0]"),
    ({"type": "toolcall_start", "contentIndex": 0,
      "partial": {"role": "assistant", "content": ["toolCall"]}},
     "$.event.assistantMessageEvent.partial.content[0]"),
    ({"type": "toolcall_start", "contentIndex": 0,
      "partial": {"role": "assistant", "content": []}},
     "$.event.assistantMessageEvent.contentIndex"),
])
def test_toolcall_start_without_its_tool_call_is_erroneous(ame: dict[str, Any],
                                                           path: str) -> None:
    """A toolcall_start whose partial.content[contentIndex] is missing or not a toolCall errs."""
    with pytest.raises(InvalidInput) as caught:
        project_event(message_update(ame), include_live_events=True)
    assert caught.value.path == path


@pytest.mark.parametrize(("event", "path"), [
    ({"type": "message_update", "assistantMessageEvent": {"type": "start"}}, "$.event.message"),
    ({"type": "message_update", "message": {"content": []},
      "assistantMessageEvent": {"type": "start"}}, "$.event.message.role"),
    ({"type": "message_update", "message": PARTIAL}, "$.event.assistantMessageEvent"),
    (message_update({"type": "toolcall_start", "contentIndex": 0}),
     "$.event.assistantMessageEvent.partial"),
    (message_update({"type": "toolcall_start", "contentIndex": 0,
                     "partial": {"role": "assistant", "content": {}}}),
     "$.event.assistantMessageEvent.partial.content"),
    (message_update({"type": "toolcall_start", "contentIndex": 0,
                     "partial": {"role": "assistant", "content": [{"type": "toolCall",
                                                                    "name": "x"}]}}),
     "$.event.assistantMessageEvent.partial.content[0].id"),
    (message_update({"type": "toolcall_start", "contentIndex": 0,
                     "partial": {"role": "assistant", "content": [{"type": "toolCall",
                                                                    "id": "x", "name": 1}]}}),
     "$.event.assistantMessageEvent.partial.content[0].name"),
    ({"type": "turn_end", "toolResults": []}, "$.event.message"),
    ({"type": "turn_end", "message": {"role": 1}, "toolResults": []}, "$.event.message.role"),
    ({"type": "turn_end", "message": PARTIAL, "toolResults": {}}, "$.event.toolResults"),
    ({"type": "agent_end"}, "$.event.messages"),
    ({"type": "agent_end", "messages": [], "willRetry": "yes"}, "$.event.willRetry"),
    ({"type": "agent_end", "messages": [], "willRetry": None}, "$.event.willRetry"),
    ({"type": 5}, "$.event.type"),
    ("agent_start", "$.event"),
])
def test_schema_breaking_values_it_reads_are_refused(event: Any, path: str) -> None:
    """A value the projection must read and that breaks the schema is refused with its path."""
    with pytest.raises(InvalidInput) as caught:
        project_event(event, include_live_events=True)
    assert caught.value.path == path


# -- §7 numbers --------------------------------------------------------------------------------


@pytest.mark.parametrize(("event", "path"), [
    ({"type": "agent_start", "n": 2**53}, "$.event.n"),
    ({"type": "tool_execution_start", "toolCallId": "c", "toolName": "n",
      "args": {"a b": [float("inf")]}}, '$.event.args["a b"][0]'),
    (message_update({"type": "start"}, {"role": "assistant", "content": [],
                                        "usage": {"tokens": -(2**60)}}),
     "$.event.message.usage.tokens"),
    (message_update({"type": "text_delta", "x": [float("nan")], "partial": PARTIAL}),
     "$.event.assistantMessageEvent.x[0]"),
    ({"type": "tool_execution_update", "toolCallId": "c", "toolName": "n",
      "args": {"seed": 2**63}, "partialResult": "x" * 300_000}, "$.event.args.seed"),
])
def test_numbers_a_line_would_carry_are_refused(event: dict[str, Any], path: str) -> None:
    """A big integer or non-finite number in the projected value is refused, named in the input."""
    with pytest.raises(InvalidInput) as caught:
        project_event(event, include_live_events=True)
    assert caught.value.path == path


# -- §5.1 when the backstop applies ------------------------------------------------------------


def _update_of_size(size: int) -> dict[str, Any]:
    event = {"type": "tool_execution_update", "toolCallId": "c", "toolName": "n",
             "args": {"k": 1}, "partialResult": ""}
    overhead = len(canonical_bytes(event))
    event["partialResult"] = "x" * (size - overhead)
    assert len(canonical_bytes(event)) == size
    return event


@pytest.mark.parametrize("strategy", ["halving", "maximal"])
def test_update_exactly_at_the_bound_is_unchanged(strategy: str) -> None:
    """A tool_execution_update line of exactly maxBytes bytes is written unchanged."""
    event = _update_of_size(5000)
    assert project_event(event, include_live_events=True, max_bytes=5000,
                         fit_strategy=strategy) == canonical_bytes(event)


@pytest.mark.parametrize("strategy", ["halving", "maximal"])
def test_update_one_byte_over_is_bounded(strategy: str) -> None:
    """One byte over maxBytes and the update is replaced by its bounded form."""
    event = _update_of_size(5001)
    stats = BoundStats()
    line = project_event(event, include_live_events=True, max_bytes=5000,
                         fit_strategy=strategy, stats=stats)
    assert line is not None
    form = json.loads(line)
    assert "args" not in form
    assert form["partialResult"]["content"][0]["text"].startswith(MARKER)
    assert len(line) <= 5000
    assert stats.serializations >= 1


def test_default_bound_is_262144() -> None:
    """Without max_bytes, the bound is 262144 bytes."""
    assert project_event(_update_of_size(262144), include_live_events=True) == \
        canonical_bytes(_update_of_size(262144))
    over = project_event(_update_of_size(262145), include_live_events=True)
    assert over is not None
    assert len(over) <= 262144
    assert b"args" not in over


# -- arguments and the operation ---------------------------------------------------------------


@pytest.mark.parametrize(("options", "path"), [
    ({"include_live_events": "yes"}, "$.includeLiveEvents"),
    ({"include_live_events": True, "max_bytes": 3214}, "$.maxBytes"),
    ({"include_live_events": True, "max_bytes": True}, "$.maxBytes"),
    ({"include_live_events": True, "fit_strategy": "binary"}, "fitStrategy"),
])
def test_bad_options_are_refused(options: dict[str, Any], path: str) -> None:
    """includeLiveEvents, maxBytes and the fit strategy are checked before anything else."""
    with pytest.raises(InvalidInput) as caught:
        project_event({"type": "agent_start"}, **options)
    assert caught.value.path == path


@pytest.mark.parametrize("strategy", ["halving", "maximal"])
def test_reference_project_operation(strategy: str) -> None:
    """Reference.run('project') answers {"line": str} or null, with its declared strategy."""
    reference = Reference(strategy)
    big = {"type": "tool_execution_update", "toolCallId": "c", "toolName": "n", "args": {},
           "partialResult": "é" * 5000}
    answer = reference.run("project", {"event": big, "includeLiveEvents": True,
                                       "maxBytes": 4096})
    expected = project_event(big, include_live_events=True, max_bytes=4096,
                             fit_strategy=strategy)
    assert expected is not None
    assert answer == {"line": expected.decode("utf-8")}
    assert reference.run("project", {"event": big, "includeLiveEvents": False,
                                     "maxBytes": 4096}) is None
    assert reference.run("classify", {"event": big}) == "frame"


# -- the spec's worked examples are the reference's answers ------------------------------------

SPEC = Path(__file__).resolve().parents[2] / "spec" / "wire.md"


def _spec_text() -> str:
    return SPEC.read_text("utf-8")


def test_spec_fact_example() -> None:
    """The fact of wire.md §4.2's example is written exactly as the spec shows it."""
    event = {"type": "tool_execution_end", "toolCallId": "call_01", "toolName": "bash",
             "result": {"content": [{"type": "text", "text": "ok\u0007\u2028"}],
                        "details": {"exitCode": 0, "10": 30.0, "2": -0.0, "elapsed": 1.5e-07}},
             "isError": False}
    line = project_event(event, include_live_events=False)
    assert line is not None
    assert line.decode("utf-8").replace("\u2028", "<U+2028>") in _spec_text()


def test_spec_message_update_example() -> None:
    """The message_update of wire.md §4.3's example projects to the line the spec shows."""
    message = {"role": "assistant",
               "content": [{"type": "text", "text": "Let me read it."},
                           {"type": "toolCall", "id": "call_01", "name": "read",
                            "arguments": {"path": "README.md"}}],
               "usage": {"input": 1200, "output": 85, "cost": {"total": 0.004875}}}
    event = message_update({"type": "toolcall_start", "contentIndex": 1, "partial": message},
                           message)
    line = project_event(event, include_live_events=True)
    assert line is not None
    assert line.decode("utf-8") in _spec_text()
    assert project_event(event, include_live_events=False) is None


def test_spec_boundary_examples() -> None:
    """The turn_end and agent_end lines of wire.md §4.4's example are the reference's."""
    turn_end = {"type": "turn_end", "message": PARTIAL, "toolResults": [{"role": "toolResult"}]}
    agent_end = {"type": "agent_end", "messages": [PARTIAL] * 3}
    for event in (turn_end, agent_end):
        line = project_event(event, include_live_events=False)
        assert line is not None
        assert f"`{line.decode()}`" in _spec_text()


def test_spec_bounded_examples() -> None:
    """The envelope of §5.6 and the bounded lines of §5.5's example are the reference's."""
    text = "".join(f"line {number:04d}\n" for number in range(1, 601))
    event = {"type": "tool_execution_update", "toolCallId": "call_01", "toolName": "bash",
             "args": {"command": "make test"},
             "partialResult": {"content": [{"type": "text", "text": text}],
                               "details": {"exitCode": None}}}
    spec = _spec_text()
    assert len(canonical_bytes(event)) == 6788
    assert "6,788 bytes" in spec
    halving = project_event(event, include_live_events=True, max_bytes=4096)
    maximal = project_event(event, include_live_events=True, max_bytes=4096,
                            fit_strategy="maximal")
    assert halving is not None
    assert maximal is not None
    assert len(halving) == 3454
    assert len(maximal) == 4096
    shown = halving.decode().replace(
        "\\n".join(f"line {number:04d}" for number in range(303, 600)), " … line 0599")
    assert shown.replace("line 0599\\nline 0600", "line 0600") in spec
    assert json.loads(maximal)["partialResult"]["content"][0]["text"].startswith(
        MARKER + "42\nline 0243\n")
    empty = canonical_bytes({"type": "tool_execution_update", "toolCallId": "", "toolName": "",
                             "partialResult": {"content": [{"type": "text", "text": MARKER}]}})
    assert len(empty) == 143
    assert empty.decode() in spec
