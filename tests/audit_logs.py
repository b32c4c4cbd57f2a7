"""Logs for the audit's tests: one hand-written broken log per auditable rule, each with the
line that breaks it, and helpers that audit bytes written to a temporary directory."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from eventproof.conformance.audit import AuditReport, Settings, audit, expand
from eventproof.reference import MARKER, canonical_bytes, project_event, settle_run


def line(value: Any) -> bytes:
    """The canonical line of ``value`` with its line feed."""
    return canonical_bytes(value) + b"\n"


def audit_bytes(data: bytes | dict[str, bytes], **settings: Any) -> AuditReport:
    """Audit ``data`` written as one log (or as the files of a directory, by relative name)."""
    with tempfile.TemporaryDirectory(prefix="eventproof-audit-") as directory:
        files = data if isinstance(data, dict) else {"run.jsonl": data}
        for name, content in files.items():
            path = Path(directory) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        return audit(expand((directory,)), Settings(**settings))


def counts(report: AuditReport) -> dict[str, int]:
    """Findings per rule id (rules without findings left out)."""
    return {rule_id: tally.count for rule_id, tally in report.tallies.by_rule.items()
            if tally.count}


ASSISTANT = {"role": "assistant", "content": [{"type": "text", "text": "Done."}],
             "usage": {"input": 10, "output": 2}}
START = {"type": "agent_start"}
TOOL_START = {"type": "tool_execution_start", "toolCallId": "call_1", "toolName": "bash",
              "args": {"command": "make"}}


def _bounded(text: str, **changes: Any) -> dict[str, Any]:
    update = {"type": "tool_execution_update", "toolCallId": "call_1", "toolName": "bash",
              "partialResult": {"content": [{"type": "text", "text": text}]}}
    update.update(changes)
    return update


def _records(*records: dict[str, Any], kind: str = "end") -> dict[str, Any]:
    holder = "result" if kind == "end" else "partialResult"
    event = {"type": f"tool_execution_{kind}", "toolCallId": "call_9", "toolName": "delegate",
             holder: {"content": [{"type": "text", "text": "batch"}],
                      "details": {"results": list(records)}}}
    if kind == "end":
        event["isError"] = False
    else:
        event["args"] = {}
    return event


_FINAL = {"id": "t1", "agent": "worker", "status": "completed", "task": "Read it.",
          "output": "ok"}
_LIVE = {"id": "t1", "agent": "worker", "status": "running", "task": "Read it."}

#: rule id → (settings, log lines, the 1-based number of the line that breaks the rule)
WireCase = tuple[dict[str, Any], list[bytes], int]

WIRE_CASES: dict[str, WireCase] = {
    "log.json": ({}, [line(START), b'{"type": "turn_start",}\n', line(START)], 2),
    "log.truncated": ({}, [line(START), b'{"type":"turn_start","turn'], 2),
    "log.event": ({}, [line(START), b'[1,2,3]\n'], 2),
    "project.frame-opt-in": ({}, [line(START), line({
        "type": "message_update", "assistantMessageEvent": {"type": "text_delta",
                                                            "contentIndex": 0, "delta": "a"}})],
                             2),
    "project.message-update": ({"live_events": True}, [line(START), line({
        "type": "message_update", "message": ASSISTANT,
        "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0, "delta": "Done.",
                                  "partial": ASSISTANT}})], 2),
    "project.turn-end": ({}, [line(START), line({"type": "turn_end", "message": ASSISTANT,
                                                 "toolResults": []})], 2),
    "project.agent-end": ({}, [line(START), line({"type": "agent_end",
                                                  "messages": [ASSISTANT]})], 2),
    "project.numbers": ({}, [line(START), b'{"type":"tool_execution_start","toolCallId":"c",'
                         b'"toolName":"x","args":{"seed":9007199254740993}}\n'], 2),
    "bound.fits": ({"live_events": True, "max_bytes": 4096},
                   [line(TOOL_START), line({**_bounded("x" * 5000), "args": {}})], 2),
    "bound.shape": ({"live_events": True},
                    [line(TOOL_START), line({**_bounded(MARKER + "tail"),
                                             "args": {"command": "make"}})], 2),
    "bound.text": ({"live_events": True},
                   [line(TOOL_START), line(_bounded("tail\n[live output truncated]"))], 2),
    "bound.ids": ({"live_events": True},
                  [line(TOOL_START), line(_bounded(MARKER + "tail", toolCallId="c" * 300))], 2),
    "bound.only-updates": ({}, [line(TOOL_START), line({
        "type": "tool_execution_end", "toolCallId": "call_1", "toolName": "bash",
        "result": {"content": [{"type": "text", "text": MARKER + "the end"}]},
        "isError": False})], 2),
    "canon.utf8": ({}, [line(START), b'{"type":"agent_start","note":"\\ud800"}\n'], 2),
    "canon.bytes": ({}, [line(START), b'{"type": "turn_start"}\n'], 2),
    "details.allowlist": ({}, [line(START), line(_records({**_FINAL, "messages": []}))], 2),
    "details.identity": ({}, [line(START), line(_records({**_FINAL, "id": "i" * 300}))], 2),
    "details.cut": ({}, [line(START), line(_records({**_FINAL, "truncated": ["stderr"]}))], 2),
    "details.task": ({}, [line(START), line(_records({**_FINAL, "task": "",
                                                      "truncated": ["task"]}))], 2),
    "details.output": ({}, [line(START), line(_records({**_FINAL, "output": "",
                                                        "truncated": ["output"]}))], 2),
    "details.reason": ({}, [line(START), line(_records({
        **_FINAL, "status": "failed", "errorMessage": "", "truncated": ["errorMessage"]}))], 2),
    "details.bounded": ({}, [line(START), line(_records(*(
        {**_FINAL, "id": f"t{index}", "output": "o" * 20_000} for index in range(8))))], 2),
    "roster.allowlist": ({"live_events": True}, [line(START), line(_records(
        {**_LIVE, "messages": [ASSISTANT]}, kind="update"))], 2),
    "roster.bounded": ({"live_events": True}, [line(START), line(_records(*(
        {**_LIVE, "id": f"t{index}"} for index in range(1200)), kind="update"))], 2),
    "roster.count": ({"live_events": True}, [line(START), line({
        **_records(_LIVE, kind="update"),
        "partialResult": {"content": [], "details": {"results": [_LIVE],
                                                     "omittedResults": 0}}})], 2),
}


# -- session logs (spec/selection.md) ----------------------------------------------------------


def session_event(kind: str, data: dict[str, Any], seq: int = 0) -> dict[str, Any]:
    return {"type": kind, "seq": seq, "time": 1767225600000 + seq, "data": data}


def message(content: list[Any], seq: int = 0, turn: int = 1, step: int = 0) -> dict[str, Any]:
    return session_event("assistant/message", {
        "turn": turn, "step": step,
        "message": {"id": f"msg_{seq}", "role": "assistant", "content": content,
                    "source": {"kind": "model", "provider": "deepseek",
                               "model": "deepseek-chat"}}}, seq)


def child_run(answer: str = "Found 3 call sites.") -> list[dict[str, Any]]:
    """The seed's run: an answer, then a max-tokens step that left an empty message."""
    return [
        session_event("turn/start", {"turn": 1}, 0),
        session_event("agent/inbox/spliced", {"target": "next-turn", "start": 0,
                                              "removedCount": 1, "inserted": []}, 1),
        session_event("step/start", {"turn": 1, "step": 0}, 2),
        message([{"type": "text", "text": answer}], 3),
        session_event("step/end", {"turn": 1, "step": 0}, 4),
        session_event("step/start", {"turn": 1, "step": 1}, 5),
        message([], 6, step=1),
        session_event("step/end", {"turn": 1, "step": 1}, 7),
        session_event("turn/end", {"turn": 1, "reason": {"kind": "max-tokens"}}, 8),
    ]


def delegated(prompt: str, label: str, seq: int = 0) -> list[dict[str, Any]]:
    """What a child's log holds of the call that started it, as a dsh-style provider writes
    it: the descriptor (its label the call's ``description``) and the task as the first user
    message (the call's ``prompt``)."""
    return [
        session_event("subagent/descriptor", {"version": 2, "mode": "one-shot",
                                              "provider": "spawn", "label": label}, seq),
        session_event("user/message", {"id": f"msg_u{seq}", "role": "user",
                                       "content": [{"type": "text", "text": prompt}],
                                       "source": {"kind": "user"}}, seq),
    ]


def delegation_arguments(prompt: str, label: str, **more: Any) -> str:
    """A delegation call's raw arguments, as the model wrote them."""
    return json.dumps({"description": label, "prompt": prompt, **more})


def end_record(events: list[dict[str, Any]], **changes: Any) -> dict[str, Any]:
    """The ``subagent/end`` record the reference's settle gives for ``events``."""
    end = settle_run(events, cancelled=False)["end"]
    end.update(changes)
    return session_event("subagent/end", end, len(events))


def lines(*values: Any) -> bytes:
    return b"".join(json.dumps(value).encode() + b"\n" for value in values)


SESSION_CASES: dict[str, Callable[[], bytes]] = {
    "settle.last-assistant": lambda: lines(*child_run(), end_record(
        child_run(), lastAssistantMessage=[])),
    "settle.one-shot-reason": lambda: lines(*child_run(), end_record(
        child_run(), stopReason="completed")),
    "settle.output": lambda: lines(*child_run(), end_record(child_run(), output=[])),
    "log.utf8": lambda: lines(*child_run())[:-1] + b'\n{"type":"step/end","note":"\xff"}\n',
    "settle.continuable-reason": lambda: lines(
        session_event("subagent/descriptor", {"version": 2, "mode": "continuable",
                                              "provider": "local", "label": "review"}),
        *child_run(), session_event("subagent/end", {"stopReason": "completed",
                                                     "lastAssistantMessage": [
                                                         {"type": "text",
                                                          "text": "Found 3 call sites."}]})),
}


def session_directory(tool_text: str | None = None) -> dict[str, bytes]:
    """A dsh-style session directory: a parent that delegated once, and its child, whose
    parent's tool result holds ``tool_text`` (the right text when None)."""
    child_events = child_run()
    task = delegated("Find the call sites of parse().", "find call sites")
    right = settle_run(child_events, cancelled=False)["toolResult"]
    parent = [
        {"type": "session", "version": 3, "id": "parent-1", "createdAt": 1767225600000,
         "delegationDepth": 0},
        session_event("turn/start", {"turn": 1}, 0),
        session_event("tool/call", {"turn": 1, "step": 0, "callId": "call_7",
                                    "name": "subagent", "arguments": delegation_arguments(
                                        "Find the call sites of parse().", "find call sites")},
                      1),
        session_event("tool/result", {"turn": 1, "step": 0, "message": {
            "id": "msg_t1", "role": "user", "source": {"kind": "tool", "callId": "call_7"},
            "content": [{"type": "tool-result", "toolCallId": "call_7", "isError": True,
                         "content": [{"type": "text",
                                      "text": right["text"] if tool_text is None
                                      else tool_text}]}]}}, 2),
        session_event("turn/end", {"turn": 1, "reason": {"kind": "completed"}}, 3),
    ]
    header = {"type": "session", "version": 3, "id": "child-1", "createdAt": 1767225600500,
              "parentSession": "parent-1", "origin": "subagent", "delegationDepth": 1}
    return {"--work--/parent-1/session.jsonl": lines(*parent),
            "--work--/child-1/session.jsonl": lines(header, *child_events[:1], *task,
                                                    *child_events[1:])}


SESSION_CASES["settle.tool-result"] = lambda: session_directory("Found 3 call sites.")


def facts_only(events: list[dict[str, Any]], **options: Any) -> bytes:
    """What the reference writes for ``events`` on a facts-only transport."""
    written = [project_event(event, include_live_events=False, **options) for event in events]
    return b"".join(item + b"\n" for item in written if item is not None)
