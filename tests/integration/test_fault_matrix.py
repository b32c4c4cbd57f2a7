"""The fault matrix: misbehaviours are drawn, not listed. Each example draws which message, which
request and which fault a program commits (tests/integration/programs/fault_program.py), runs
``eventproof run`` on it, and holds the outcome of the fault's class:

- a member name written twice: a protocol error naming the member, its path, depth and the
  request (exit 1), or for the handshake a harness error naming it (exit 2);
- a huge string anywhere: every report, case file and the console within fixed sizes, the JSON
  valid against its schema, whatever size was sent;
- a handshake changed on restart: a harness error naming each changed member (exit 2);
- random answers: failures (exit 1) in valid reports;
- Ctrl-C or SIGTERM: the partial report, every rule untested, 130 or 143.

Every run leaves no process behind and writes strict JSON (test_faults.run).
"""

from __future__ import annotations

import json
import shlex
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from eventproof.conformance._clip import STDERR_CHARACTERS
from eventproof.conformance._schemas import schema_issues
from helpers import strings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_faults import PROGRAMS, Run, run

PROGRAM = f"{shlex.quote(sys.executable)} {PROGRAMS / 'fault_program.py'}"
#: One operation, a quick budget, a short deadline: a few seconds an example.
ARGS = ("--ops", "select", "--effort", "quick", "--timeout", "2")
#: How large any report of one operation may be, whatever the program sent.
REPORT_CHARACTERS = 400_000
ANSWER_SPOTS = ("seq", "output", "nested", "skipped", "errored", "context")
HANDSHAKE_SPOTS = ("top", "implementation", "capabilities")
HUGE_SPOTS = ("output", "nested", "skipped", "errored", "context", "stderr", "name", "issueUrl")
HANDSHAKE_MEMBERS = ("name", "version", "language", "fitStrategy", "ops", "loneSurrogates",
                     "variableMaxBytes")


@dataclass(frozen=True)
class Fault:
    kind: str
    where: str
    at: int
    size: int = 0
    sent: signal.Signals | None = None

    def command(self, state: Path) -> str:
        size = f" {self.size}" if self.size else ""
        return f"{PROGRAM} {state} {self.kind} {self.where} {self.at}{size}"


faults = st.one_of(
    st.builds(Fault, st.just("duplicate"), st.sampled_from(ANSWER_SPOTS), st.integers(1, 4)),
    st.builds(Fault, st.just("duplicate"), st.sampled_from(HANDSHAKE_SPOTS), st.just(0)),
    st.builds(lambda where, at, size: Fault("huge", where, 0 if where == "name" else at, size),
              st.sampled_from(HUGE_SPOTS), st.integers(1, 4),
              st.sampled_from([5_000, 3_000_000])),
    st.builds(Fault, st.just("handshake"), st.sampled_from(HANDSHAKE_MEMBERS),
              st.integers(1, 3)),
    st.builds(Fault, st.just("random"), st.just("-"), st.integers(1, 3)),
    st.builds(Fault, st.just("signal"), st.just("-"), st.integers(1, 3),
              sent=st.sampled_from([signal.SIGINT, signal.SIGTERM])),
)


def without_inputs(value: Any) -> Any:
    """A report or case file without the inputs (the kit's own, never clipped)."""
    if isinstance(value, dict):
        return {name: without_inputs(each) for name, each in value.items() if name != "input"}
    if isinstance(value, list):
        return [without_inputs(each) for each in value]
    return value


def assert_bounded(result: Run, directory: Path) -> None:
    """Everything the run wrote is within fixed sizes, whatever the program sent."""
    assert len(result.stdout) + len(result.stderr) <= REPORT_CHARACTERS
    documents = [result.report, *result.cases]
    for document in documents:
        assert all(len(text) <= STDERR_CHARACTERS for text in strings(without_inputs(document)))
    assert len(json.dumps(result.report, ensure_ascii=False)) <= REPORT_CHARACTERS
    for name in ("junit.xml", "summary.md"):
        assert len((directory / name).read_text("utf-8")) <= REPORT_CHARACTERS


def expect_class(fault: Fault, result: Run, directory: Path) -> None:
    said = " ".join(result.stderr.split())
    if fault.kind == "duplicate" and fault.at == 0:
        assert result.code == 2, said
        assert "The answer to the start request from --impl " in said
        assert " breaks the protocol at $." in said
        assert "2 times in the object at $" in said
        return
    if fault.kind == "handshake":
        assert result.code == 2, said
        assert "handshake changed when it was restarted" in said
        section = "implementation" if fault.where in ("name", "version", "language") \
            else "capabilities"
        assert f"$.{section}.{fault.where} was " in said
        return
    assert result.report is not None, said
    assert schema_issues(result.report, "report.json") == []
    verdict = result.report["verdict"]
    assert result.code == verdict["exitCode"]
    assert_bounded(result, directory)
    if fault.kind == "duplicate":
        assert result.code == 1, said
        messages = [rule["counterexample"]["message"] for rule in result.report["results"]
                    if rule["outcome"] == "error" and "counterexample" in rule]
        named = [message for message in messages if "2 times in the object at $" in message]
        assert named, messages
        assert "the answer to run request seq " in named[0].lower()
        assert "breaks the protocol at $." in named[0]
    elif fault.kind == "random":
        assert result.code == 1, said
    elif fault.kind == "signal":
        assert result.code == (130 if fault.sent == signal.SIGINT else 143), said
        assert {rule["outcome"] for rule in result.report["results"]} == {"untested"}


@settings(max_examples=6, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(fault=faults)
def test_each_drawn_misbehaviour_gets_the_outcome_of_its_class(
        fault: Fault, tmp_path_factory: pytest.TempPathFactory) -> None:
    directory = tmp_path_factory.mktemp("fault")
    state = directory / "program"
    result = run(directory, fault.command(state), *ARGS, "--junit",
                 str(directory / "junit.xml"), "--markdown", str(directory / "summary.md"),
                 bound=60.0, send=fault.sent, ready=state / "ready")
    expect_class(fault, result, directory)
