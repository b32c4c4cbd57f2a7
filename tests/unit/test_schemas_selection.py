"""The selection profile's JSON Schemas: well-formed, identified, and right about their examples."""

from __future__ import annotations

import json
import re
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest
from eventproof.conformance._schemas import all_schemas, schema_issues
from eventproof.reference._selection import fold_results, select_output
from eventproof.reference._settle import settle_run

SCHEMAS = (
    "session-event.json",
    "content-block.json",
    "chunk.json",
    "op-select.json",
    "op-fold.json",
    "op-settle.json",
)
OPS = ("select", "fold", "settle")
SPEC = Path(__file__).resolve().parents[2] / "spec" / "selection.md"


def _examples() -> list[Any]:
    """One pytest.param per example of schemas/examples/<schema>, valid and invalid alike."""
    params = []
    for name in SCHEMAS:
        document = json.loads((files("eventproof.schemas") / "examples" / name).read_text("utf-8"))
        for verdict in ("valid", "invalid"):
            for number, entry in enumerate(document[verdict]):
                params.append(pytest.param(
                    name + entry.get("ref", ""), verdict == "valid", entry,
                    id=f"{name}-{verdict}-{number}",
                ))
    return params


EXAMPLES = _examples()



@pytest.mark.parametrize("name", [n for n in SCHEMAS if n.startswith("op-")])
def test_op_schema_has_input_and_output(name: str) -> None:
    """Each operation schema defines $defs/input and $defs/output."""
    assert {"input", "output"} <= set(all_schemas()[name]["$defs"])




def test_settle_output_with_empty_last_assistant_message_is_invalid() -> None:
    """op-settle output refuses lastAssistantMessage: [] (spec/selection.md §5.4)."""
    output: dict[str, Any] = {
        "result": {"output": [], "stopReason": "error"},
        "end": {"stopReason": "error", "lastAssistantMessage": []},
        "toolResult": {"isError": True, "text": "Error: subagent run failed"},
    }
    assert schema_issues(output, "op-settle.json#/$defs/output")
    del output["end"]["lastAssistantMessage"]
    assert schema_issues(output, "op-settle.json#/$defs/output") == []


# -- the reference's outputs conform to the output schemas ----------------------------------------


def _event(type_: str, data: Any, seq: int = 0) -> dict[str, Any]:
    return {"type": type_, "seq": seq, "time": 1767225600000 + seq, "data": data}


def _message(*content: Any) -> dict[str, Any]:
    return _event("assistant/message", {
        "turn": 1, "step": 0,
        "message": {"id": "msg_1", "role": "assistant", "content": list(content),
                    "source": {"kind": "model", "provider": "deepseek", "model": "deepseek-chat"}},
    })


def _delta(text: str) -> dict[str, Any]:
    return _event("assistant/chunk", {"turn": 1, "step": 0,
                                      "chunk": {"type": "text-delta", "index": 0, "text": text}})


def _turn_end(kind: str) -> dict[str, Any]:
    reason: dict[str, Any] = {"kind": kind}
    if kind == "aborted":
        reason["reason"] = {"kind": "parent"}
    return _event("turn/end", {"turn": 1, "reason": reason})


_STEP = _event("step/start", {"turn": 1, "step": 0})
_CANCEL = _event("agent/inbox/spliced", {"target": "next-turn", "start": 0, "removedCount": 1,
                                         "inserted": [], "outcome": "canceled"})


_LOGS: dict[str, list[dict[str, Any]]] = {
    "empty": [],
    "usage-only": [_STEP, _message(), _turn_end("max-tokens")],
    "message-then-empty": [
        _message({"type": "text", "text": "Found it."}), _message(), _turn_end("max-tokens"),
    ],
    "streamed-only": [_delta("Hel"), _delta("lo"), _turn_end("aborted")],
    "reasoning-only": [_message({"type": "reasoning", "text": "r"}), _turn_end("blocked")],
    "completed-mixed": [
        _delta("draft"),
        _message({"type": "reasoning", "text": "r"}, {"type": "text", "text": "Done."},
                 {"type": "tool-call", "id": "c", "name": "n", "arguments": "{}"}),
        _event("subagent/heartbeat", {}),
        _turn_end("completed"),
    ],
    "unknown-kind": [_delta("x"), _STEP, _turn_end("a-kind-from-the-future")],
    "dropped-after-completed": [_STEP, _message({"type": "text", "text": "a"}),
                                _turn_end("completed"), _CANCEL],
}


@pytest.mark.parametrize("log", list(_LOGS.values()), ids=list(_LOGS))
def test_reference_select_and_fold_outputs_conform(log: list[dict[str, Any]]) -> None:
    """On hand-built logs, select and fold inputs and the reference's outputs match op-select.json
    and op-fold.json."""
    assert schema_issues({"events": log}, "op-select.json#/$defs/input") == []
    assert schema_issues(select_output(log), "op-select.json#/$defs/output") == []
    pushes = [{"event": e} for e in log] + [{"text": ""}, {"text": "tail"}]
    assert schema_issues({"pushes": pushes}, "op-fold.json#/$defs/input") == []
    assert schema_issues(fold_results(pushes), "op-fold.json#/$defs/output") == []


@pytest.mark.parametrize("log", list(_LOGS.values()), ids=list(_LOGS))
@pytest.mark.parametrize("flags", [
    {"cancelled": False}, {"cancelled": True}, {"cancelled": False, "diagnostic": ""},
    {"cancelled": True, "diagnostic": "boom"}, {"mode": "one-shot", "cancelled": False},
    {"mode": "continuable"},
])
def test_reference_settle_outputs_conform(log: list[dict[str, Any]], flags: dict[str, Any]) -> None:
    """On hand-built logs, the settle input and the reference's output match op-settle.json, in
    both modes: a one-shot answer has a tool result, a continuable one has none."""
    request: dict[str, Any] = {"events": log, **flags}
    assert schema_issues(request, "op-settle.json#/$defs/input") == []
    output = settle_run(log, **flags)
    assert schema_issues(output, "op-settle.json#/$defs/output") == []
    assert schema_issues({"input": request, "output": output}, "op-settle.json") == []
    assert ("toolResult" in output) == (flags.get("mode") != "continuable")


_EXAMPLE = re.compile(r"Input \(`(\w+)`\):\s*```json\n(.*?)```\s*Output:\s*```json\n(.*?)```", re.S)
_SPEC_EXAMPLES = _EXAMPLE.findall(SPEC.read_text("utf-8"))


@pytest.mark.parametrize(("op", "given_input", "stated_output"), _SPEC_EXAMPLES,
                         ids=[f"{op}-{n}" for n, (op, _, _) in enumerate(_SPEC_EXAMPLES)])
def test_spec_worked_example_is_schema_valid(op: str, given_input: str, stated_output: str) -> None:
    """Each worked example of spec/selection.md is a valid exchange of its operation schema."""
    assert op in OPS
    exchange = {"input": json.loads(given_input), "output": json.loads(stated_output)}
    assert schema_issues(exchange, f"op-{op}.json") == []
