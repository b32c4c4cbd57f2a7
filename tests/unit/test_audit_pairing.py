"""Children are paired with the parent's tool calls that started them by what the logs hold (a
result naming the child's id, the task and label the call's arguments hold, the times), never by
position: whatever calls were rejected, whatever the delegation tool is named, however calls,
children and results interleave, a child is judged against its own call or named as not judged,
never against another's."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from audit_logs import (
    audit_bytes,
    child_run,
    counts,
    lines,
    message,
    session_directory,
    session_event,
)
from eventproof.conformance.audit import _sessions
from eventproof.reference import settle_run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))
T0 = 1767225600000
KINDS = ("foreground", "foreground", "rejected", "job", "continuable")


@dataclass
class Planned:
    """One tool call of the parent, and the child it started (if any)."""

    index: int
    kind: str
    tool: str
    prompt: str
    label: str
    answer: str
    wrong: bool
    fork: bool
    result_line: int = 0
    #: context injected into the child before its task (a project's notes)
    context: bool = False

    @property
    def child(self) -> str:
        return f"child-{self.index}"


@st.composite
def parents(draw: st.DrawFn) -> tuple[dict[str, bytes], list[Planned]]:
    """A dsh-style session directory: a parent whose turns each make one or more tool calls
    (delegations under drawn names, some rejected, some in the background, unrelated calls in
    between), the children those calls started (spawned or forked, one-shot or continuable),
    created and answered in a drawn order, some of the recorded results wrong."""
    turns = draw(st.lists(st.lists(st.integers(0, 4), min_size=1, max_size=3), min_size=1,
                          max_size=3))
    planned: list[Planned] = []
    for turn in turns:
        for kind_index in turn:
            index = len(planned)
            planned.append(Planned(
                index, KINDS[kind_index],
                draw(st.sampled_from(["subagent", "task", "spawn_worker", "ask-helper"])),
                draw(st.sampled_from(["Fix parse().", "Run the tests.", "Read README."])),
                draw(st.sampled_from(["fix", "tests", "read"])),
                draw(st.sampled_from(["Found 3 call sites.", "All 12 tests pass.", "Done."])),
                draw(st.booleans()), draw(st.booleans()), context=draw(st.booleans())))
    files: dict[str, bytes] = {}
    parent: list[Any] = [{"type": "session", "version": 0, "id": "parent", "createdAt": T0}]
    seq = 0
    clock = T0 + 10

    def event(kind: str, data: dict[str, Any]) -> dict[str, Any]:
        nonlocal seq, clock
        seq += 1
        clock += 10
        return {"type": kind, "seq": seq, "time": clock, "data": data}

    done = 0
    for number, turn in enumerate(turns, start=1):
        calls = planned[done:done + len(turn)]
        done += len(turn)
        parent.append(event("turn/start", {"turn": number}))
        parent.append(event("user/message", {"id": f"u{number}", "role": "user", "content": [
            {"type": "text", "text": calls[0].prompt}], "source": {"kind": "user"}}))
        for call in calls:
            arguments: dict[str, Any] = {"description": call.label, "prompt": call.prompt}
            if call.kind == "job":
                arguments["run_in_background"] = True
            parent.append(event("tool/call", {"turn": number, "step": 0,
                                              "callId": f"call_{call.index}", "name": call.tool,
                                              "arguments": json.dumps(arguments)}))
            if draw(st.booleans()):
                parent.append(event("tool/call", {"turn": number, "step": 0,
                                                  "callId": f"other_{call.index}",
                                                  "name": "bash",
                                                  "arguments": '{"command": "ls"}'}))
        seed = [dict(item) for item in parent[1:]]
        started = [call for call in calls if call.kind != "rejected"]
        for call in draw(st.permutations(started)):
            clock += 1
            _child(files, call, clock, seed)
        for call in draw(st.permutations(calls)):
            record = event("tool/result", {"turn": number, "step": 0, "message": {
                "id": f"msg_t{call.index}", "role": "user",
                "source": {"kind": "tool", "callId": f"call_{call.index}"},
                "content": [{"type": "tool-result", "toolCallId": f"call_{call.index}",
                             **_result(call)}]}})
            parent.append(record)
            call.result_line = len(parent)
        parent.append(event("turn/end", {"turn": number, "reason": {"kind": "completed"}}))
    files["--work--/parent/session.jsonl"] = lines(*parent)
    return files, planned


def _child(files: dict[str, bytes], call: Planned, created: int,
           seed: list[dict[str, Any]]) -> None:
    header: dict[str, Any] = {"type": "session", "version": 0, "id": call.child,
                              "createdAt": created, "parentSession": "parent",
                              "origin": "subagent", "delegationDepth": 1}
    inherited = seed if call.fork else []
    if inherited:
        header["seedLength"] = len(inherited)
    run = child_run(call.answer)
    mode = "continuable" if call.kind == "continuable" else "one-shot"
    injected = [session_event("user/message", {"id": "c", "role": "user", "content": [
        {"type": "text", "text": "AGENTS.md: keep answers short."}],
        "source": {"kind": "context"}}, 0)] if call.context else []
    own = [run[0], session_event("subagent/descriptor", {"version": 2, "mode": mode,
                                                         "provider": "spawn",
                                                         "label": call.label}, 0),
           *injected,
           session_event("user/message", {"id": "u", "role": "user", "content": [
               {"type": "text", "text": call.prompt}], "source": {"kind": "user"}}, 0),
           *run[1:]]
    files[f"--work--/{call.child}/session.jsonl"] = lines(header, *inherited, *own)


def _result(call: Planned) -> dict[str, Any]:
    if call.kind == "rejected":
        return {"isError": True, "content": [
            {"type": "text", "text": "subagent depth limit reached (maxDepth 1)"}]}
    if call.kind == "job":
        return {"content": [{"type": "text",
                             "text": f"started background subagent job job_{call.index}"}]}
    if call.kind == "continuable":
        return {"content": [{"type": "text", "text": f"started subagent {call.child}"}]}
    settled = settle_run(child_run(call.answer), cancelled=False)["toolResult"]
    text = "Wrong: " + settled["text"] if call.wrong else settled["text"]
    return {"isError": settled["isError"], "content": [{"type": "text", "text": text}]}


def _told(call: Planned, notices: list[str]) -> bool:
    return any(f"child session {call.child} " in notice for notice in notices)


@SETTINGS
@given(parents())
def test_each_child_is_judged_against_its_own_call(drawn: tuple[dict[str, bytes],
                                                                list[Planned]]) -> None:
    files, planned = drawn
    report = audit_bytes(files, kind="session", max_findings=1000)
    foreground = [call for call in planned if call.kind == "foreground"]
    tally = report.tallies.by_rule.get("settle.tool-result")
    lines_found = sorted(finding.line for finding in tally.examples) if tally else []
    wrong_lines = {call.result_line for call in foreground if call.wrong}
    # a finding only ever at the result of a child whose recorded result is wrong
    assert set(lines_found) <= wrong_lines
    # a foreground child is judged or named as not judged; the others are never judged
    judged = [call for call in foreground if not _told(call, report.notices)]
    assert report.records == len(judged)
    for call in judged:
        assert (call.result_line in lines_found) == call.wrong
    # a child whose task and label no other call holds is always identified
    for call in foreground:
        if sum((other.prompt, other.label) == (call.prompt, call.label)
               for other in planned) == 1:
            assert not _told(call, report.notices)
    assert counts(report).keys() <= {"settle.tool-result"}


def _positional(parent: Any, children: list[Any], notices: list[str]) -> list[Any]:
    """The historical pairing: children in creation order against calls in log order."""
    ordered = sorted(children, key=lambda child: (child.created, child.file))
    return list(zip(ordered, parent.calls, strict=False))


@pytest.mark.parametrize("first", ["rejected", "renamed"])
def test_positional_pairing_is_caught(first: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A call that started no child before a right one: pairing by position judges the right
    child against the rejected call, a false finding the property above rules out."""
    calls = [Planned(0, "rejected", "subagent", "Fix parse().", "fix", "Done.", False, False),
             Planned(1, "foreground", "subagent", "Run the tests.", "tests", "Done.", False,
                     False)]
    files: dict[str, bytes] = {}
    parent: list[Any] = [{"type": "session", "version": 0, "id": "parent", "createdAt": T0},
                         session_event("turn/start", {"turn": 1}, 0)]
    for call in calls:
        if first == "renamed":
            call.tool = "worker"
        parent.append(session_event("tool/call", {
            "turn": 1, "step": 0, "callId": f"call_{call.index}", "name": call.tool,
            "arguments": json.dumps({"description": call.label, "prompt": call.prompt})},
            call.index + 1))
    _child(files, calls[1], T0 + 50, [])
    for call in calls:
        parent.append(session_event("tool/result", {"turn": 1, "step": 0, "message": {
            "id": "m", "role": "user", "source": {"kind": "tool", "callId": f"call_{call.index}"},
            "content": [{"type": "tool-result", "toolCallId": f"call_{call.index}",
                         **_result(call)}]}}, 100 + call.index))
    parent.append(message([{"type": "text", "text": "ok"}], 200))
    files["--work--/parent/session.jsonl"] = lines(*parent)
    right = audit_bytes(files, kind="session")
    assert (counts(right), right.records, right.notices) == ({}, 1, [])
    monkeypatch.setattr(_sessions, "pair_children", _positional)
    wrong = audit_bytes(files, kind="session")
    assert counts(wrong) == {"settle.tool-result": 1}


def test_a_child_no_call_identifies_is_named_on_every_output(tmp_path: Any) -> None:
    """A child whose task no call of its parent holds is not judged, and every output says
    which child and why; no verdict changes."""
    from eventproof.conformance.audit._render import document, markdown, page, write_junit

    files = {name: content.replace(b"Find the call sites of parse().", b"Something else")
             if "child" in name else content
             for name, content in session_directory("a wrong text").items()}
    report = audit_bytes(files, kind="session")
    assert (counts(report), report.records, report.exit_code) == ({}, 0, 0)
    (notice,) = report.notices
    assert "child session child-1 " in notice
    assert "parent-1/session.jsonl" in notice
    junit = tmp_path / "audit.xml"
    write_junit(report, junit)
    for text in (str(document(report)["notices"]), markdown(report), page(report),
                 junit.read_text(encoding="utf-8")):
        assert "child session child-1 " in text
