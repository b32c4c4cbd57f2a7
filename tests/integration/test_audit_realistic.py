"""The audit on realistic logs whose defects and amplification are known by construction: the
kit's own workloads written naively (every event as it is) and facts-only (as the reference
projects it); a child's progress mirrored with its whole transcript, the seed's amplification;
and a dsh-style session directory, compressed and packed, where one child's recorded result is
wrong."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
from audit_logs import (
    child_run,
    counts,
    delegated,
    delegation_arguments,
    facts_only,
    lines,
    message,
    session_event,
)
from eventproof.conformance._workloads import build_stream
from eventproof.conformance.audit import Settings, audit, document, expand
from eventproof.reference import settle_run

EVENTS = 1500


@pytest.fixture(scope="module")
def stream() -> list[dict[str, Any]]:
    return build_stream("light", events=EVENTS, seed=3)


def _audit(path: Path, **options: Any) -> Any:
    return audit(expand((str(path),)), Settings(**options))


def test_the_facts_only_log_conforms(stream: list[dict[str, Any]], tmp_path: Path) -> None:
    path = tmp_path / "facts.jsonl"
    path.write_bytes(facts_only(stream))
    report = _audit(path)
    assert counts(report) == {}
    assert report.exit_code == 0
    facts = document(report)["bytes"]["factsOnly"]
    assert facts["bytes"] == facts["projectedBytes"] == path.stat().st_size


def test_the_naive_log_breaks_what_it_writes_and_its_amplification_is_exact(
        stream: list[dict[str, Any]], tmp_path: Path) -> None:
    naive = tmp_path / "naive.jsonl"
    naive.write_bytes(b"".join(orjson.dumps(event) + b"\n" for event in stream))
    report = _audit(naive)
    types = Counter(event["type"] for event in stream)
    found = counts(report)
    assert found["project.frame-opt-in"] == types["message_update"] + types[
        "tool_execution_update"]
    # A frame the log should not hold is that one finding: its projected form is not judged.
    assert "project.message-update" not in found
    assert "bound.fits" not in found
    assert found["project.turn-end"] == types["turn_end"]
    assert found["project.agent-end"] == types["agent_end"]
    # Read as a log of a consumer that opted in, each frame is judged in its projected form.
    opted_in = counts(_audit(naive, live_events=True))
    assert "project.frame-opt-in" not in opted_in
    assert opted_in["project.message-update"] == types["message_update"]
    oversized = sum(1 for event in stream if event["type"] == "tool_execution_update"
                    and len(orjson.dumps(event)) > 262144)
    assert oversized > 0
    assert opted_in["bound.fits"] == oversized
    figures = document(report)["bytes"]
    # what the spec's facts-only projection writes for the same events, known by construction
    assert figures["factsOnly"]["bytes"] == naive.stat().st_size
    assert figures["factsOnly"]["projectedBytes"] == len(facts_only(stream))
    assert sum(row["bytes"] for row in figures["byType"]) == naive.stat().st_size
    by_type = {row["type"]: row["lines"] for row in figures["byType"]}
    assert by_type == dict(types)
    assert report.exit_code == 1


def test_the_seeds_amplification_is_measured(tmp_path: Path) -> None:
    """A child's transcript mirrored into every progress update: 12 distinct snapshots, each
    emitted 25 times, at $.partialResult.details.messages."""
    transcript: list[dict[str, Any]] = []
    log = [b'{"type":"tool_execution_start","toolCallId":"call_1","toolName":"subagent",'
           b'"args":{}}\n']
    for turn in range(12):
        transcript.append({"role": "assistant", "content": [
            {"type": "text", "text": f"turn {turn}: " + "the child reads a file " * 180}]})
        for _ in range(25):
            update = {"type": "tool_execution_update", "toolCallId": "call_1",
                      "toolName": "subagent", "args": {},
                      "partialResult": {"content": [{"type": "text", "text": "working"}],
                                        "details": {"messages": transcript}}}
            log.append(orjson.dumps(update) + b"\n")
    path = tmp_path / "mirrored.jsonl"
    path.write_bytes(b"".join(log))
    figures = document(_audit(path, live_events=True))["bytes"]
    repeated = {row["path"]: row for row in figures["repeated"]
                if row["type"] == "tool_execution_update"}
    snapshots = repeated["$.partialResult.details.messages"]
    assert (snapshots["distinct"], snapshots["occurrences"]) == (12, 300)
    heaviest = figures["byPath"][0]
    assert heaviest["path"] == "$.partialResult"
    assert heaviest["share"] > 0.99
    # facts-only, none of the frames is written: only the start remains
    assert figures["factsOnly"]["projectedBytes"] == len(log[0])


def _session_directory(tmp_path: Path, wrong: int, background: bool = False) -> Path:
    """A parent that delegated three times, and its three children, as a dsh-style harness
    keeps them: one directory per session, Zstandard frames, text deltas packed into rows."""
    zstandard = pytest.importorskip("zstandard")
    root = tmp_path / "sessions" / "--home-dev-project--"
    answers = ["Found 3 call sites.", "Patched both files.", "All 12 tests pass"]
    parent = [{"type": "session", "version": 3, "id": "parent-1", "createdAt": 1767225600000,
               "delegationDepth": 0}]
    if background:  # a job started first, whose answer is its id: paired, never judged
        parent += [
            session_event("tool/call", {"turn": 1, "step": 9, "callId": "call_bg",
                                        "name": "subagent",
                                        "arguments": delegation_arguments(
                                            "index", "index", run_in_background=True)},
                          90),
            session_event("tool/result", {"turn": 1, "step": 9, "message": {
                "id": "msg_bg", "role": "user", "source": {"kind": "tool", "callId": "call_bg"},
                "content": [{"type": "tool-result", "toolCallId": "call_bg", "content": [
                    {"type": "text", "text": "started background subagent job job_1"}]}]}}, 91)]
        (root / "job-1").mkdir(parents=True)
        (root / "job-1" / "session.jsonl").write_bytes(lines(
            {"type": "session", "version": 3, "id": "job-1", "createdAt": 1767225600900,
             "parentSession": "parent-1", "origin": "subagent", "delegationDepth": 1},
            *delegated("index", "index"), *child_run("Indexed 40 files.")))
    for index, answer in enumerate(answers):
        child = child_run(answer) if index != 2 else [
            session_event("turn/start", {"turn": 1}, 0),
            session_event("step/start", {"turn": 1, "step": 0}, 1),
            {"type": "text-chunks", "seq0": 2, "time0": 1767225600002,
             "data": {"turn": 1, "step": 0, "index": 0, "dt": [1, 1],
                      "texts": ["All 12 ", "tests ", "pass"]}},
            message([], 5),
            session_event("turn/end", {"turn": 1, "reason": {"kind": "max-tokens"}}, 6)]
        expanded = [event for event in child if event["type"] != "text-chunks"] + [
            session_event("assistant/chunk", {"turn": 1, "step": 0, "chunk": {
                "type": "text-delta", "index": 0, "text": "All 12 tests pass"}}, 9)
        ] if index == 2 else child
        result = settle_run(expanded, cancelled=False)["toolResult"]
        text = result["text"]
        if index == wrong:
            text = text.replace(answer, "")  # the empty terminal message taken as the output
        call = f"call_{index}"
        parent += [
            session_event("tool/call", {"turn": 1, "step": index, "callId": call,
                                        "name": "subagent", "arguments": delegation_arguments(
                                            f"Task {index}: {answer}", f"task {index}")},
                          2 * index),
            session_event("tool/result", {"turn": 1, "step": index, "message": {
                "id": f"msg_t{index}", "role": "user",
                "source": {"kind": "tool", "callId": call},
                "content": [{"type": "tool-result", "toolCallId": call,
                             "isError": result["isError"],
                             "content": [{"type": "text", "text": text}]}]}}, 2 * index + 1)]
        header = {"type": "session", "version": 3, "id": f"child-{index}",
                  "createdAt": 1767225601000 + index, "parentSession": "parent-1",
                  "origin": "subagent", "delegationDepth": 1}
        directory = root / f"child-{index}"
        directory.mkdir(parents=True)
        compressor = zstandard.ZstdCompressor()
        (directory / "session.jsonl.zstd").write_bytes(
            compressor.compress(lines(header)) + compressor.compress(
                lines(*child[:1], *delegated(f"Task {index}: {answer}", f"task {index}"),
                      *child[1:])))
    (root / "parent-1").mkdir(parents=True)
    (root / "parent-1" / "session.jsonl").write_bytes(lines(*parent))
    return tmp_path / "sessions"


@pytest.mark.parametrize(("wrong", "background"), [(0, False), (2, False), (1, True)])
def test_one_child_with_a_wrong_recorded_output(tmp_path: Path, wrong: int,
                                                background: bool) -> None:
    report = audit(expand((str(_session_directory(tmp_path, wrong, background)),)), Settings())
    assert {entry["kind"] for entry in report.files} == {"session"}
    assert report.records == 3
    assert counts(report) == {"settle.tool-result": 1}
    finding = report.tallies.by_rule["settle.tool-result"].examples[0]
    assert finding.file.endswith("parent-1/session.jsonl")
    # the parent's tool/result line of that child
    assert finding.line == 2 * wrong + 3 + (2 if background else 0)
    assert f"child-{wrong}" in finding.message
    assert report.exit_code == 1


@pytest.mark.parametrize("background", [False, True])
def test_the_right_session_directory_conforms(tmp_path: Path, background: bool) -> None:
    report = audit(expand((str(_session_directory(tmp_path, -1, background)),)), Settings())
    assert counts(report) == {}
    assert report.records == 3
    assert report.exit_code == 0
