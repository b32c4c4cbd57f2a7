"""A member name given twice, anywhere in a message, is a protocol error that names the member,
its path and depth, and the message (spec/protocol.md §2.1): drawn over every kind of message,
every object in it and every member of that object."""

from __future__ import annotations

import json
from typing import Any

import pytest
from eventproof.conformance._protocol import (
    DuplicateMember,
    ProtocolError,
    RunRequest,
    decode_request,
    decode_run_response,
    decode_start_response,
    parse_line,
)
from hypothesis import given
from hypothesis import strategies as st

names = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=8)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | names,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(names, inner, max_size=3),
    max_leaves=10,
)

REQUEST = RunRequest(seq=17, op="project", input={"event": {"type": "agent_start"}})
HANDSHAKE = {
    "version": 1,
    "implementation": {"name": "port", "language": "go", "version": "1.0"},
    "capabilities": {"ops": ["select", "project"], "fitStrategy": "maximal"},
}


@st.composite
def messages(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A valid message the harness reads: a handshake, or an answer of each kind."""
    kind = draw(st.sampled_from(["start", "output", "skipped", "errored"]))
    if kind == "start":
        return kind, HANDSHAKE
    if kind == "output":
        return kind, {"seq": REQUEST.seq, "output": draw(json_values)}
    if kind == "skipped":
        return kind, {"seq": REQUEST.seq, "skipped": {"reason": "not ported"}}
    return kind, {"seq": REQUEST.seq, "errored": {"message": "no", "context": draw(json_values)}}


def _objects(value: Any, path: str, depth: int) -> list[tuple[str, int, dict[str, Any]]]:
    """Every non-empty object in ``value``: its JSONPath, its depth and itself."""
    found = [(path, depth, value)] if isinstance(value, dict) and value else []
    items = (value.items() if isinstance(value, dict)
             else enumerate(value) if isinstance(value, list) else [])
    for key, each in items:
        inner = _member(path, key) if isinstance(value, dict) else f"{path}[{key}]"
        found.extend(_objects(each, inner, depth + 1))
    return found


def _member(path: str, name: str) -> str:
    if name.isidentifier() and name.isascii() and len(name) <= 64:
        return f"{path}.{name}"
    return f"{path}[{json.dumps(name, ensure_ascii=False)}]"


def _text(value: Any, path: str, target: str, name: str, extra: Any) -> str:
    """``value`` as JSON text in which the object at ``target`` repeats the member ``name``
    (with the value ``extra`` before the real one)."""
    if isinstance(value, dict):
        parts = [f"{json.dumps(key)}:{_text(each, _member(path, key), target, name, extra)}"
                 for key, each in value.items()]
        if path == target:
            parts.insert(0, f"{json.dumps(name)}:{json.dumps(extra)}")
        return "{" + ",".join(parts) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_text(each, f"{path}[{index}]", target, name, extra)
                              for index, each in enumerate(value)) + "]"
    return json.dumps(value)


def _decode(kind: str, line: str) -> Any:
    if kind == "start":
        return decode_start_response(line)
    return decode_run_response(line, REQUEST)


@given(message=messages(), data=st.data())
def test_a_repeated_name_anywhere_is_named_with_its_path_depth_and_message(
        message: tuple[str, dict[str, Any]], data: st.DataObject) -> None:
    kind, value = message
    _decode(kind, json.dumps(value))  # the message itself is valid
    path, depth, target = data.draw(st.sampled_from(_objects(value, "$", 1)))
    name = data.draw(st.sampled_from(sorted(target)))
    extra = data.draw(json_values)
    with pytest.raises(DuplicateMember) as caught:
        _decode(kind, _text(value, "$", path, name, extra))
    error = caught.value
    assert error.field == _member(path, name)
    assert f"{json.dumps(name, ensure_ascii=False)} 2 times" in error.received
    assert f"at {path} (depth {depth})" in error.received
    which = ("the answer to the start request" if kind == "start"
             else "the answer to run request seq 17 (op project)")
    assert error.message == which
    # In step exactly when the top-level seq was given once (spec/protocol.md §7.3).
    assert error.seq == (REQUEST.seq if kind != "start" and (path, name) != ("$", "seq")
                         else None)


@pytest.mark.parametrize("line", [
    '{"seq":1017,"seq":17,"output":1}',
    '{"seq":17,"output":"WRONG","output":"RIGHT"}',
    '{"seq":17,"output":[{"a":1,"b":2,"a":1}]}',
])
def test_first_wins_and_last_wins_readers_never_disagree_silently(line: str) -> None:
    """The lines issue 25 names: each reading of them is refused, neither is judged."""
    with pytest.raises(DuplicateMember):
        decode_run_response(line, REQUEST)


def test_a_repeated_name_in_a_request_is_refused_on_the_program_side() -> None:
    """The worker behind --isolate reads requests through the same parser."""
    with pytest.raises(DuplicateMember):
        decode_request('{"cmd":"run","seq":1,"op":"select","op":"fold","input":null}')


def test_other_errors_of_a_line_with_a_repeated_name_stay_protocol_errors() -> None:
    """A repeated name next to a huge integer or a non-JSON token is still one clear error."""
    for line in ('{"a":1,"a":2,"b":' + "9" * 5000 + "}", '{"a":1,"a":2,"b":NaN}',
                 '{"a":1,"a":2,"b":'):
        with pytest.raises(ProtocolError):
            parse_line(line, "a line")
