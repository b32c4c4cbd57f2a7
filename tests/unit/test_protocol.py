"""The protocol messages: the schema and its examples, encoding, decoding, and the errors."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import pickle
from collections.abc import Iterator
from importlib.resources import files
from typing import Any

import pytest
from eventproof.conformance._model import Capabilities
from eventproof.conformance._operations import OPS
from eventproof.conformance._protocol import (
    PROTOCOL_VERSION,
    START,
    STOP,
    Identity,
    ProtocolError,
    RunErrored,
    RunOutput,
    RunRequest,
    RunResponse,
    RunSkipped,
    StartRequest,
    StartResponse,
    decode_request,
    decode_run_response,
    decode_start_response,
    dumps_literal,
    encode,
)
from eventproof.conformance._schemas import all_schemas, schema_issues
from hypothesis import given
from hypothesis import strategies as st

SCHEMAS = files("eventproof.schemas")
EXAMPLES = json.loads(SCHEMAS.joinpath("examples/protocol.json").read_text("utf-8"))
SCHEMA = all_schemas()["protocol.json"]
#: The $defs that are whole messages, one direction or the other.
MESSAGE_DEFS = (
    "startRequest", "runRequest", "stopRequest", "startResponse", "startRefusal",
    "outputResponse", "skippedResponse", "erroredResponse",
)

HANDSHAKE: dict[str, Any] = {
    "version": 1,
    "implementation": {"name": "my-port", "language": "go", "version": "0.3.1",
                       "homepage": "https://example.com/my-port"},
    "capabilities": {"ops": ["select", "project"], "fitStrategy": "maximal",
                     "variableMaxBytes": False},
}
PROJECT_17 = RunRequest(seq=17, op="project", input={"event": {"type": "agent_start"}})


def _line(value: Any) -> bytes:
    return json.dumps(value).encode() + b"\n"


def _error_for(answer: Any, request: RunRequest = PROJECT_17) -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        decode_run_response(answer if isinstance(answer, bytes) else _line(answer), request)
    return caught.value


# -- the schema and its examples -------------------------------------------------------------


def _example_id(example: dict[str, Any]) -> str:
    return f"{example['ref']} {json.dumps(example['instance'])[:60]}"


@pytest.mark.parametrize("example", EXAMPLES["valid"], ids=_example_id)
def test_valid_example_validates(example: dict[str, Any]) -> None:
    """Every example labelled valid is accepted by the definition it names."""
    assert schema_issues(example["instance"], "protocol.json" + example["ref"]) == []


@pytest.mark.parametrize("example", EXAMPLES["invalid"], ids=_example_id)
def test_invalid_example_fails(example: dict[str, Any]) -> None:
    """Every example labelled invalid is refused by the definition it names, and says why."""
    assert example["why"]
    assert schema_issues(example["instance"], "protocol.json" + example["ref"]) != []


@pytest.mark.parametrize("name", MESSAGE_DEFS)
def test_every_message_has_valid_and_invalid_examples(name: str) -> None:
    """Each message definition is illustrated both ways, so none is left untested."""
    refs = {kind: [example["ref"] for example in EXAMPLES[kind]] for kind in ("valid", "invalid")}
    assert f"#/$defs/{name}" in refs["valid"]
    assert f"#/$defs/{name}" in refs["invalid"]


def test_schema_identity() -> None:
    """The schema is draft 2020-12 with the $id every other file uses to refer to it."""
    assert SCHEMA["$id"] == "https://eventproof.dev/schemas/v1/protocol.json"
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert set(MESSAGE_DEFS) <= set(SCHEMA["$defs"])


def test_version_constant_matches_schema() -> None:
    """The version the code speaks is the one the schema pins."""
    assert SCHEMA["$defs"]["version"]["const"] == PROTOCOL_VERSION == START.version


# -- encoding and decoding ---------------------------------------------------------------------

json_text = st.text(st.characters(codec=None, categories=None), max_size=8)  # surrogates too
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | json_text
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(json_text, inner, max_size=4),
    max_leaves=12,
)


@given(seq=st.integers(0, 2**31), op=st.sampled_from(["select", "project", "budget"]),
       value=json_values)
def test_run_request_round_trips(seq: int, op: str, value: Any) -> None:
    """A run request survives encoding as one ASCII line, lone surrogates included."""
    request = RunRequest(seq=seq, op=op, input=value)
    line = encode(request)
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
    assert line.isascii()
    assert decode_request(line) == request


@given(value=json_values)
def test_run_answers_round_trip(value: Any) -> None:
    """Every kind of run answer decodes to what was encoded."""
    request = RunRequest(seq=3, op="select", input=None)
    answers: list[RunResponse] = [
        RunOutput(seq=3, output=value),
        RunSkipped(seq=3, reason="not ported", issue_url="https://example.com/1"),
        RunSkipped(seq=3, reason="not ported"),
        RunErrored(seq=3, message="bad input", context=value if value is not None else {}),
        RunErrored(seq=3, message=""),
    ]
    for answer in answers:
        assert decode_run_response(encode(answer), request) == answer


def test_start_and_stop_requests_encode_as_specified() -> None:
    """The start and stop requests are exactly the lines spec/protocol.md §4.1 and §6 show."""
    assert json.loads(encode(START)) == {"cmd": "start", "version": 1}
    assert json.loads(encode(STOP)) == {"cmd": "stop"}
    assert decode_request(encode(START)) == START
    assert decode_request(encode(STOP)) == STOP


def test_handshake_decodes_to_identity_and_capabilities() -> None:
    """A handshake becomes an Implementation and the shared Capabilities, and encodes back."""
    handshake = decode_start_response(_line(HANDSHAKE))
    assert handshake.implementation == Identity(
        name="my-port", language="go", version="0.3.1", homepage="https://example.com/my-port"
    )
    assert handshake.capabilities == Capabilities(
        ops=frozenset({"select", "project"}), fit_strategy="maximal", variable_max_bytes=False
    )
    assert json.loads(encode(handshake)) == HANDSHAKE
    assert handshake.implementation_dict() == HANDSHAKE["implementation"]


def test_capabilities_default_when_left_out() -> None:
    """Without fitStrategy and variableMaxBytes the defaults apply; unknown members are ignored."""
    answer = {"version": 1, "implementation": {"name": "x", "language": "go", "os": "linux"},
              "capabilities": {"ops": ["classify", "budget"], "budgets": True}}
    handshake = decode_start_response(_line(answer))
    assert handshake.capabilities == Capabilities(
        ops=frozenset({"classify", "budget"}), fit_strategy="halving", variable_max_bytes=True
    )


def test_identity_key_separates_fit_strategies() -> None:
    """Two handshakes that differ only in fit strategy have different identity keys."""
    maximal = decode_start_response(_line(HANDSHAKE))
    halving = dataclasses.replace(
        maximal, capabilities=dataclasses.replace(maximal.capabilities, fit_strategy="halving")
    )
    assert maximal.identity_key() != halving.identity_key()
    assert maximal.identity_key() == decode_start_response(_line(HANDSHAKE)).identity_key()


def test_encode_refuses_what_is_not_json() -> None:
    """A request holding NaN is refused before it reaches a program, naming the request."""
    with pytest.raises(ProtocolError) as caught:
        encode(RunRequest(seq=1, op="select", input={"x": float("nan")}))
    assert caught.value.message == "run request seq 1 (op select)"
    assert "NaN" in caught.value.received


def test_encode_refuses_a_request_the_schema_rejects() -> None:
    """A negative seq breaks the schema, and encoding says where."""
    with pytest.raises(ProtocolError) as caught:
        encode(RunRequest(seq=-1, op="select", input={}))
    assert caught.value.field == "$.seq"


def test_decode_request_refuses_unknown_commands() -> None:
    """An unknown command is named in the error, as a request from the harness."""
    with pytest.raises(ProtocolError) as caught:
        decode_request(b'{"cmd": "dialect"}\n')
    assert caught.value.message == "a request from the harness"
    assert caught.value.field == "$.cmd"
    assert "dialect" in str(caught.value)


# -- what a broken answer is told ------------------------------------------------------------


def test_wrong_seq_names_the_request_both_seqs_and_the_fix() -> None:
    """An answer with another seq says which request, which field, both values, and the fix."""
    error = _error_for({"seq": 18, "output": None})
    text = str(error)
    assert text.startswith("The answer to run request seq 17 (op project) breaks the protocol")
    assert error.field == "$.seq"
    assert "17" in error.expected
    assert error.received == "18"
    assert "Echo the seq" in error.fix
    assert "spec/protocol.md §5.1" in text


@pytest.mark.parametrize(
    ("line", "field", "fragment"),
    [
        (b"debug: computing\n", "the line", "one JSON object on one line"),
        (b'{"seq": 17, "output": NaN}\n', "the line", "one JSON object on one line"),
        (b'{"seq": 17, "output": "\xff"}\n', "the line", "UTF-8"),
        (b"[17, null]\n", "$", "JSON object"),
        (b'{"seq": 17}\n', "$", "exactly one of"),
        (b'{"seq": 17, "output": 1, "errored": {"message": "x"}}\n', "$", "exactly one of"),
        (b'{"output": 1}\n', "$", '"seq"'),
        (b'{"seq": 17, "output": 1, "ok": true}\n', "$", '"ok"'),
        (b'{"seq": 17, "skipped": {}}\n', "$.skipped", '"reason"'),
        (b'{"seq": 17, "skipped": {"reason": "x", "issue_url": "u"}}\n', "$.skipped", "issueUrl"),
        (b'{"seq": 17, "errored": "boom"}\n', "$.errored", "object"),
        (b'{"seq": "17", "output": 1}\n', "$.seq", "integer"),
    ],
)
def test_broken_answers_are_located(line: bytes, field: str, fragment: str) -> None:
    """Each way an answer can break the protocol is reported at the right place, with the fix."""
    error = _error_for(line)
    assert error.field == field
    assert fragment in f"{error.expected} {error.received}"
    assert error.message == "the answer to run request seq 17 (op project)"
    assert "spec/protocol.md §" in error.fix


def test_deeply_nested_answer_is_a_protocol_error() -> None:
    """An answer nested past the parser's depth is Broken, not a crash of the harness."""
    line = b'{"seq": 17, "output": ' + b"[" * 200_000 + b"]" * 200_000 + b"}\n"
    error = _error_for(line)
    assert error.field == "the line"
    assert "nested" in error.received


def test_received_value_is_cut_to_a_readable_length() -> None:
    """A huge wrong answer is shown truncated, with its full size, not dumped whole."""
    error = _error_for({"seq": 17, "output": 1, "junk": "x" * 100_000})
    assert len(str(error)) < 2000
    assert "characters in all" in error.received


def test_version_mismatch_names_both_versions() -> None:
    """A handshake in another protocol version is refused with both version numbers."""
    with pytest.raises(ProtocolError) as caught:
        decode_start_response(_line({**HANDSHAKE, "version": 2}))
    text = str(caught.value)
    assert caught.value.field == "$.version"
    assert "protocol version 1" in text
    assert "protocol version 2" in text


def test_version_refusal_quotes_the_program() -> None:
    """A program refusing the version has its own explanation quoted in the error."""
    with pytest.raises(ProtocolError) as caught:
        decode_start_response(_line({"version": 3, "error": "I speak version 3 only"}))
    assert "I speak version 3 only" in str(caught.value)
    assert "protocol version 3" in str(caught.value)


def test_same_version_refusal_is_an_error() -> None:
    """A program that cannot start says why, and the error carries its reason."""
    with pytest.raises(ProtocolError) as caught:
        decode_start_response(_line({"version": 1, "error": "cannot load the port"}))
    assert caught.value.field == "$.error"
    assert "cannot load the port" in str(caught.value)


def test_handshake_schema_errors_are_located() -> None:
    """A handshake without the implementation's language is refused at that member."""
    answer = {**HANDSHAKE, "implementation": {"name": "x"}}
    with pytest.raises(ProtocolError) as caught:
        decode_start_response(_line(answer))
    assert caught.value.field == "$.implementation"
    assert '"language"' in caught.value.expected
    assert caught.value.message == "the answer to the start request"


# -- the exception itself ----------------------------------------------------------------------


def test_protocol_error_is_frozen() -> None:
    """Its fields cannot be reassigned."""
    error = _error_for({"seq": 18, "output": None})
    with pytest.raises(dataclasses.FrozenInstanceError):
        error.field = "$"  # type: ignore[misc]


def test_protocol_error_survives_pythons_exception_machinery() -> None:
    """It can pass through a context manager, take notes, chain, and pickle."""

    @contextlib.contextmanager
    def passthrough() -> Iterator[None]:
        yield

    error = _error_for({"seq": 18, "output": None})
    with pytest.raises(ProtocolError) as caught, passthrough():
        raise error from ValueError("cause")
    caught.value.add_note("seen by a test")
    assert caught.value.__notes__ == ["seen by a test"]
    assert pickle.loads(pickle.dumps(error)) == error


def test_start_response_to_json_is_schema_valid() -> None:
    """A handshake built in code encodes to a schema-valid answer (encode checks it)."""
    handshake = StartResponse(
        implementation=Identity(name="x", language="python"),
        capabilities=Capabilities(),
    )
    assert json.loads(encode(handshake))["capabilities"]["ops"] == list(OPS)
    assert StartRequest().describe() == "the start request"


def test_a_number_beyond_any_double_keeps_its_literal_for_reports() -> None:
    from eventproof.conformance._json import dumps_json
    from eventproof.conformance._protocol import BeyondDouble, parse_line

    value = parse_line(b'{"seq": 1, "output": [1e400, -1e999]}', "the answer")
    assert isinstance(value["output"][0], BeyondDouble)
    assert value["output"][0].literal == "1e400"
    assert "Infinity" not in dumps_json(value)
    assert "the number 1e400, beyond any double" in dumps_json(value)


def test_a_huge_integer_is_refused_in_words_for_any_language() -> None:
    from eventproof.conformance._protocol import parse_line

    with pytest.raises(ProtocolError) as caught:
        parse_line(b'{"seq": 1, "output": ' + b"7" * 5000 + b"}", "the answer to seq 1")
    text = str(caught.value)
    assert "an integer literal of 5000 digits" in text
    assert "set_int_max_str_digits" not in text


def _no_constant(name: str) -> Any:
    raise AssertionError(f"{name} is not JSON")


_LEAVES = (st.none() | st.booleans() | st.integers() | st.text(max_size=8)
           | st.floats(allow_nan=False))  # infinities included: wire.md §7's overflow


@given(st.recursive(_LEAVES, lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=4), inner, max_size=4), max_leaves=12))
def test_a_literal_reads_back_as_the_value_with_every_infinity_an_overflow(value: Any) -> None:
    """Compact ASCII JSON a parser reads back as ``value``; an infinity is the literal 1e400 or
    -1e400, never the token Infinity; a value without one is written as json.dumps writes it."""
    text = dumps_literal(value)
    assert text.isascii()
    assert json.loads(text, parse_constant=_no_constant) == value
    if "1e400" not in text:
        assert text == json.dumps(value, ensure_ascii=True, separators=(",", ":"))


@pytest.mark.parametrize("value", [float("nan"), [1, {"a": float("nan")}],
                                   [float("inf"), float("nan")]])
def test_a_literal_refuses_nan(value: Any) -> None:
    with pytest.raises(ValueError, match="not JSON compliant"):
        dumps_literal(value)
