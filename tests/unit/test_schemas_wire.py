"""The wire profile's JSON Schemas: well-formed, in step with the spec and the reference."""

from __future__ import annotations

import json
import re
from importlib.resources import files
from typing import Any

import pytest
from eventproof.conformance._schemas import all_schemas, schema_issues
from eventproof.reference import (
    ID_CLIP_CODE_POINTS,
    MARKER,
    MIN_MAX_BYTES,
    InvalidInput,
    Reference,
    bound_live_update,
)
from hypothesis import given, settings
from hypothesis import strategies as st

SCHEMAS = (
    "agent-event.json",
    "assistant-message-event.json",
    "wire-line.json",
    "op-classify.json",
    "op-project.json",
)


def _document(name: str) -> dict[str, Any]:
    text = (files("eventproof.schemas") / "examples" / name).read_text("utf-8")
    document: dict[str, Any] = json.loads(text)
    return document


def _examples() -> list[Any]:
    """One pytest.param per example of schemas/examples/<schema>, valid and invalid alike."""
    params = []
    for name in SCHEMAS:
        document = _document(name)
        for verdict in ("valid", "invalid"):
            for number, entry in enumerate(document[verdict]):
                params.append(pytest.param(
                    name + entry.get("ref", ""), verdict == "valid", entry,
                    id=f"{name}-{verdict}-{number}",
                ))
    return params



@pytest.mark.parametrize("name", ["op-classify.json", "op-project.json"])
def test_op_schema_has_input_and_output(name: str) -> None:
    """Each operation schema defines $defs/input and $defs/output."""
    assert {"input", "output"} <= set(all_schemas()[name]["$defs"])




# -- the schemas and the reference say the same thing ------------------------------------------


def test_schema_constants_match_the_reference() -> None:
    """The schemas' 3215 minimum, 256 clip and marker pattern are the reference's constants."""
    project = all_schemas()["op-project.json"]["$defs"]["input"]["properties"]
    assert project["maxBytes"]["minimum"] == MIN_MAX_BYTES
    bounded = all_schemas()["wire-line.json"]["$defs"]["boundedUpdate"]
    assert bounded["properties"]["toolCallId"]["maxLength"] == ID_CLIP_CODE_POINTS
    assert bounded["properties"]["toolName"]["maxLength"] == ID_CLIP_CODE_POINTS
    text = bounded["properties"]["partialResult"]["properties"]["content"]["items"]
    pattern = text["properties"]["text"]["pattern"]
    assert re.search(pattern, MARKER)
    assert not re.search(pattern, MARKER[:-1])
    assert not re.search(pattern, "x" + MARKER)
    form = bound_live_update({"toolCallId": "c", "toolName": "n", "partialResult": "x"},
                             max_bytes=MIN_MAX_BYTES, fit_strategy="halving")
    assert list(form) == bounded["required"] == list(bounded["properties"])


@pytest.mark.parametrize("instance", [
    {"type": "message_update", "message": {"role": "user", "content": "q"},
     "assistantMessageEvent": {"type": "start", "partial": {"role": "assistant",
                                                            "content": []}}},
    {"type": "message_update",
     "message": {"role": "assistant", "content": [{"type": "text", "text": "x"}]},
     "assistantMessageEvent": {"type": "toolcall_start", "contentIndex": 0,
                               "partial": {"role": "assistant",
                                           "content": [{"type": "text", "text": "x"}]}}},
    {"type": "message_update",
     "message": {"role": "assistant", "content": []},
     "assistantMessageEvent": {"type": "toolcall_start", "contentIndex": 3,
                               "partial": {"role": "assistant", "content": []}}},
])
def test_erroneous_events_are_schema_valid(instance: dict[str, Any]) -> None:
    """§4.5's erroneous events validate: the harness sends them, and the answer is errored."""
    project_input = {"event": instance, "includeLiveEvents": True, "maxBytes": 262144}
    assert schema_issues(project_input, "op-project.json#/$defs/input") == []
    with pytest.raises(InvalidInput, match=r"§4\.5"):
        Reference().run("project", project_input)


# -- generated events --------------------------------------------------------------------------

NUMBERS = st.one_of(st.integers(-(2**53) + 1, 2**53 - 1),
                    st.floats(allow_nan=False, allow_infinity=False))
WORDS = st.one_of(st.text(max_size=8), st.sampled_from(["\x00", "\u2028", "\ud800", "é"]))
JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), NUMBERS, WORDS),
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(st.one_of(WORDS, st.sampled_from(["1", "01", "4294967295"])),
                        children, max_size=3),
    ),
    max_leaves=10,
)
OBJECTS = st.dictionaries(WORDS, JSON, max_size=3)
IDS = st.one_of(WORDS, st.builds(lambda piece, n: piece * n, WORDS, st.integers(1, 2000)))
BLOCKS = st.one_of(
    st.builds(lambda text: {"type": "text", "text": text}, WORDS),
    st.builds(lambda text: {"type": "thinking", "thinking": text}, WORDS),
    st.builds(lambda id_, name, args: {"type": "toolCall", "id": id_, "name": name,
                                       "arguments": args}, WORDS, WORDS, OBJECTS),
    st.just({"type": "image", "data": "AAAA", "mimeType": "image/png"}),
)
USAGES = st.fixed_dictionaries({"input": NUMBERS, "output": NUMBERS},
                               optional={"cost": st.dictionaries(WORDS, NUMBERS, max_size=3)})


@st.composite
def assistant_messages(draw: st.DrawFn, *, with_tool_call: bool = False) -> dict[str, Any]:
    content = draw(st.lists(BLOCKS, max_size=4))
    if with_tool_call:
        content.insert(draw(st.integers(0, len(content))),
                       {"type": "toolCall", "id": draw(WORDS), "name": draw(WORDS),
                        "arguments": {}})
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if draw(st.booleans()):
        message["usage"] = draw(USAGES)
    return message


MESSAGES = st.one_of(
    assistant_messages(),
    st.builds(lambda text: {"role": "user", "content": text}, WORDS),
    st.builds(lambda id_, text: {"role": "toolResult", "toolCallId": id_,
                                 "content": [{"type": "text", "text": text}]}, WORDS, WORDS),
)


@st.composite
def message_updates(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["start", "text_start", "text_delta", "thinking_end",
                                 "toolcall_start", "toolcall_delta", "done", "citation"]))
    partial = draw(assistant_messages(with_tool_call=kind == "toolcall_start"))
    ame: dict[str, Any] = {"type": kind}
    if kind == "done":
        ame.update(reason="stop", message=partial)
    elif kind in ("start", "citation"):
        ame["partial"] = partial
    else:
        if kind == "toolcall_start":
            indices = [i for i, block in enumerate(partial["content"])
                       if block["type"] == "toolCall"]
        else:
            indices = list(range(len(partial["content"]) + 2))
        ame["contentIndex"] = draw(st.sampled_from(indices))
        if kind.endswith("_delta"):
            ame["delta"] = draw(WORDS)
        ame["partial"] = partial
    return {"type": "message_update", "message": partial, "assistantMessageEvent": ame}


PARTIAL_RESULTS = st.one_of(
    st.builds(lambda text, n, details: {"content": [{"type": "text", "text": text * n}],
                                        "details": details},
              WORDS, st.integers(0, 3000), OBJECTS),
    st.builds(lambda text, n: text * n, WORDS, st.integers(0, 3000)),
    JSON,
)
EVENTS = st.one_of(
    st.builds(lambda extra: {"type": "agent_start", **extra}, st.just({})),
    st.just({"type": "turn_start"}),
    st.builds(lambda messages, retry: {"type": "agent_end", "messages": messages,
                                       **({} if retry is None else {"willRetry": retry})},
              st.lists(MESSAGES, max_size=3), st.none() | st.booleans()),
    st.builds(lambda message, results: {"type": "turn_end", "message": message,
                                        "toolResults": results},
              MESSAGES, st.lists(MESSAGES, max_size=3)),
    st.builds(lambda kind, message: {"type": kind, "message": message},
              st.sampled_from(["message_start", "message_end"]), MESSAGES),
    message_updates(),
    st.builds(lambda id_, name, args: {"type": "tool_execution_start", "toolCallId": id_,
                                       "toolName": name, "args": args}, IDS, IDS, OBJECTS),
    st.builds(lambda id_, name, args, result: {
        "type": "tool_execution_update", "toolCallId": id_, "toolName": name, "args": args,
        "partialResult": result}, IDS, IDS, OBJECTS, PARTIAL_RESULTS),
    st.builds(lambda id_, result, error: {"type": "tool_execution_end", "toolCallId": id_,
                                          "toolName": "bash", "result": result,
                                          "isError": error}, IDS, JSON, st.booleans()),
    st.builds(lambda kind, extra: {**extra, "type": kind},
              st.text(max_size=10).filter(lambda kind: kind not in (
                  "agent_end", "turn_end", "message_start", "message_end", "message_update",
                  "tool_execution_start", "tool_execution_update", "tool_execution_end")),
              OBJECTS),
)


@settings(max_examples=150)
@given(EVENTS, st.booleans(), st.integers(MIN_MAX_BYTES, 20_000),
       st.sampled_from(["halving", "maximal"]))
def test_reference_answers_fit_their_schemas(event: dict[str, Any], include: bool,
                                             max_bytes: int, strategy: str) -> None:
    """For schema-valid inputs, classify and project answer schema-valid outputs and lines."""
    project_input = {"event": event, "includeLiveEvents": include, "maxBytes": max_bytes}
    assert schema_issues(project_input, "op-project.json#/$defs/input") == []
    reference = Reference(strategy)
    kind = reference.run("classify", {"event": event})
    assert schema_issues({"input": {"event": event}, "output": kind}, "op-classify.json") == []
    answer = reference.run("project", project_input)
    assert schema_issues({"input": project_input, "output": answer}, "op-project.json") == []
    if answer is None:
        assert kind == "frame"
        assert not include
        return
    line = json.loads(answer["line"])
    assert schema_issues(line, "wire-line.json") == []
    if len(answer["line"].encode()) > max_bytes:
        assert event["type"] != "tool_execution_update"
    if event["type"] == "tool_execution_update" and "args" not in line:
        assert schema_issues(line, "wire-line.json#/$defs/boundedUpdate") == []
