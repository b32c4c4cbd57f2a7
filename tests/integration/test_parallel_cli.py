"""``eventproof run --jobs N`` end to end: the same report as one process, faults in a worker
reported as one process reports them, --max-time and Ctrl-C honoured, nothing left running."""

from __future__ import annotations

import json
import shlex
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from eventproof.conformance._parallel import MAX_TIME_GRACE
from helpers import run_marked, without_duration

ROOT = Path(__file__).resolve().parents[2]
FAULTY = "python:tests.integration.programs.misbehaving_impl"
FAULT_PROGRAM = (f"{shlex.quote(sys.executable)} "
                 f"{Path(__file__).resolve().parent / 'programs' / 'fault_program.py'}")
#: Starting Python, the harness and its workers on a slow shared machine.
SLACK = 15.0


@dataclass
class Run:
    code: int
    stderr: str
    seconds: float
    report: Any


def run(tmp_path: Path, *args: str, send: signal.Signals | None = None,
        ready: Path | None = None, to_group: bool = False) -> Run:
    """``eventproof run ARGS``; with ``send``, that signal once the file ``ready`` exists (the
    program under test creates it once the run is under way), to the harness or to its group;
    ``seconds`` then counts from the signal."""
    report_path = tmp_path / "report.json"
    report_path.unlink(missing_ok=True)
    command = [sys.executable, "-m", "eventproof.conformance", "run", "--deterministic",
               "--no-progress", "--json", str(report_path), "--state-dir",
               str(tmp_path / "state"), *args]
    code, _, stderr, seconds = run_marked(command, timeout=240, send=send, ready=ready,
                                          to_group=to_group)
    report = json.loads(report_path.read_text()) if report_path.exists() else None
    assert "Traceback" not in stderr, stderr
    return Run(code, stderr, seconds, report)


def outcomes(result: Run) -> dict[str, str]:
    assert result.report is not None, result.stderr
    return {rule["id"]: rule["outcome"] for rule in result.report["results"]}


def test_the_cli_report_with_two_jobs_is_the_one_process_report(tmp_path: Path) -> None:
    args = ("--effort", "quick", "--ops", "select,settle,project")
    one = run(tmp_path, *args, "--jobs", "1")
    two = run(tmp_path, *args, "--jobs", "2")
    assert one.code == two.code == 0, one.stderr + two.stderr
    assert one.report is not None
    assert two.report is not None
    assert without_duration(two.report) == without_duration(one.report)


def test_an_isolated_implementation_crashing_in_a_worker_is_a_crash(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # It crashes on its first run call: with --jobs 2 each worker's process may get only a
    # call or two of the few examples, so a later call might never come.
    monkeypatch.setenv("EVENTPROOF_FAULT_AT", "1")
    args = ("--impl", f"{FAULTY}:ExitsHard", "--ops", "classify", "--max-examples", "4",
            "--isolate")
    one = run(tmp_path, *args)
    two = run(tmp_path, *args, "--jobs", "2")
    assert one.code == two.code == 1
    assert outcomes(two) == outcomes(one) == {"classify.kind": "crash"}
    assert "exited with code 9" in json.dumps(two.report)


def test_an_in_process_implementation_ending_a_worker_is_a_usage_error(tmp_path: Path) -> None:
    result = run(tmp_path, "--impl", f"{FAULTY}:ExitsHard", "--ops", "classify,select",
                 "--max-examples", "10", "--in-process", "--jobs", "2")
    assert result.code == 2
    said = " ".join(result.stderr.split())
    assert "a worker process of --jobs 2 ended" in said
    assert "--isolate" in said


def test_max_time_bounds_a_run_with_two_jobs(tmp_path: Path) -> None:
    """--max-time bounds the run as the run counts it, however loaded the machine: the workers
    have a grace of a second past it to stop on their own, and are then stopped (a worker still
    starting or waiting on an answer included). The wall clock, which also counts starting
    Python, only has to show the run ended."""
    result = run(tmp_path, "--effort", "thorough", "--max-time", "2", "--jobs", "2")
    assert result.code == 1
    assert result.report["durationSeconds"] < 2 + MAX_TIME_GRACE + 2
    assert result.seconds < 2 + 4 * SLACK
    assert "the run reached --max-time" in result.stderr
    assert "untested" in outcomes(result).values()


@pytest.mark.parametrize(("sent", "to_group", "code", "said"), [
    (signal.SIGINT, False, 130, "the run was interrupted"),
    (signal.SIGTERM, False, 143, "the run was terminated"),
    (signal.SIGTERM, True, 143, "the run was terminated"),
])
def test_a_signal_with_two_jobs_writes_the_partial_report(
        tmp_path: Path, sent: signal.Signals, to_group: bool, code: int, said: str) -> None:
    """Ctrl-C, and SIGTERM to the harness or to its whole group (the workers then get it too),
    end a run of two workers alike: each worker's program is stopped (run() holds that nothing
    survives), the partial report is written, and the exit code names the signal."""
    state = tmp_path / "program"
    result = run(tmp_path, "--impl", f"{FAULT_PROGRAM} {state} signal - 3", "--ops",
                 "select,settle", "--jobs", "2", send=sent, ready=state / "ready",
                 to_group=to_group)
    assert result.code == code, result.stderr
    assert result.seconds < SLACK
    assert said in result.stderr
    assert set(outcomes(result).values()) == {"untested"}
    assert result.report["verdict"]["ending"] == said
