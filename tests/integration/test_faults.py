"""The harness under faults: programs in bash, Node and Python that misbehave at start, on the
Nth request, on large requests and on stop. Every run ends in bounded time with the outcome it
should have, writes strict JSON (RFC 8259) reports, and leaves no process behind.

Each run is ``eventproof run`` in a subprocess whose environment carries a marker; every process
the run starts inherits it, so a process still alive afterwards with the marker survived the run.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from eventproof.conformance._adapters import Crashed, SubprocessAdapter, TimedOut
from helpers import run_marked

PROGRAMS = Path(__file__).resolve().parent / "programs"
ROOT = Path(__file__).resolve().parents[2]
BASH = str(PROGRAMS / "faulty.sh")
NODE = f"node {PROGRAMS / 'faulty.mjs'}"
#: Starting Python and the harness, and stopping a program, on a slow shared machine.
SLACK = 8.0

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
needs_bash = pytest.mark.skipif(shutil.which("bash") is None or shutil.which("node") is None,
                                reason="bash and node are needed")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (RFC 8259)")


def strict_json(text: str) -> Any:
    """Parse as strict JSON: NaN, Infinity and -Infinity are refused."""
    return json.loads(text, parse_constant=_refuse_constant)


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    seconds: float
    report: Any
    cases: list[Any]


def run(tmp_path: Path, impl: str, *args: str, bound: float, env: dict[str, str] | None = None,
        send: signal.Signals | None = None, ready: Path | None = None,
        to_group: bool = False) -> Run:
    """``eventproof run --impl IMPL ARGS`` with a JSON report; asserts the wall time bound, that
    every file written is strict JSON and that nothing of the run is still alive.

    With ``send``, the signal is sent once the file ``ready`` exists (the program under test
    creates it when the run is under way: an event, not a guess of how long starting takes),
    to the harness alone or (``to_group``) to its whole process group, as a cancelled CI job's
    runner may; ``bound`` then counts from the signal."""
    report_path = tmp_path / "report.json"
    state = tmp_path / "state"
    command = [sys.executable, "-m", "eventproof.conformance", "run", "--impl", impl,
               "--deterministic", "--no-progress", "--json", str(report_path),
               "--state-dir", str(state), *args]
    code, stdout, stderr, seconds = run_marked(command, timeout=bound + 30, env=env, send=send,
                                               ready=ready, to_group=to_group, settle=2.0)
    assert seconds <= bound, f"the run took {seconds:.1f} s, over its bound of {bound} s"
    assert "Traceback" not in stderr, stderr
    report = strict_json(report_path.read_text()) if report_path.exists() else None
    cases = [strict_json(path.read_text()) for path in sorted(state.glob("failures/*/*.json"))]
    return Run(code, stdout, stderr, seconds, report, cases)


def outcomes(result: Run) -> dict[str, str]:
    assert result.report is not None, result.stderr
    return {rule["id"]: rule["outcome"] for rule in result.report["results"]}


def note(result: Run, rule_id: str) -> str:
    for rule in result.report["results"]:
        if rule["id"] == rule_id:
            return json.dumps(rule)
    raise KeyError(rule_id)


CLASSIFY = ("--ops", "classify", "--max-examples", "10")


# -- at start --------------------------------------------------------------------------------------


@needs_bash
def test_bash_program_that_exits_before_the_handshake_is_a_usage_error(tmp_path: Path) -> None:
    result = run(tmp_path, f"{BASH} exit-start", *CLASSIFY, bound=SLACK)
    assert result.code == 2
    assert "exited with code 3 before answering the start request" in result.stderr
    assert "faulty.sh: exiting before the handshake" in result.stderr


# -- on the Nth request ----------------------------------------------------------------------------


@needs_bash
def test_bash_program_that_crashes_on_the_nth_request(tmp_path: Path) -> None:
    result = run(tmp_path, f"{BASH} crash 3", *CLASSIFY, bound=SLACK + 5)
    assert result.code == 1
    assert outcomes(result) == {"classify.kind": "crash"}
    assert "exited with code 7" in note(result, "classify.kind")
    assert "faulty.sh: crashing on request 3" in note(result, "classify.kind")
    assert result.cases
    assert result.cases[0]["rule"] == "classify.kind"


@needs_bash
def test_leader_exit_with_a_grandchild_holding_stdout_is_a_crash_and_nothing_survives(
        tmp_path: Path) -> None:
    # The program leaves `sleep 300` holding its stdout and exits 5: no end of stream comes.
    result = run(tmp_path, f"{BASH} orphan 3", *CLASSIFY, "--timeout", "5", bound=SLACK + 5)
    assert result.code == 1
    assert outcomes(result) == {"classify.kind": "crash"}
    assert "exited with code 5" in note(result, "classify.kind")
    assert "timeout" not in note(result, "classify.kind")


@needs_node
def test_node_program_hanging_on_every_third_request_keeps_every_deadline(
        tmp_path: Path) -> None:
    result = run(tmp_path, f"{NODE} hang-every 3", *CLASSIFY, "--timeout", "1.5",
                 bound=SLACK + 15)
    assert result.code == 1
    assert outcomes(result) == {"classify.kind": "timeout"}
    limits = [float(part.split(" s")[0]) for part in
              note(result, "classify.kind").split("no answer within ")[1:]]
    assert limits
    assert all(limit <= 1.5 for limit in limits), limits


@needs_node
def test_node_program_answering_twice_names_the_request_it_answered_twice(
        tmp_path: Path) -> None:
    result = run(tmp_path, f"{NODE} twice 2", *CLASSIFY, bound=SLACK + 5)
    assert result.code == 1
    text = note(result, "classify.kind")
    assert "a second answer to run request seq" in text, text


# -- answers JSON cannot hold in a report ----------------------------------------------------------


@needs_node
def test_reports_stay_strict_json_whatever_the_answer_held(tmp_path: Path) -> None:
    # The answer holds 1e400 (an infinity to a double) and a list nested 500 deep.
    result = run(tmp_path, f"{NODE} unwritable 2", *CLASSIFY, bound=SLACK + 5)
    assert result.code == 1
    # Only the second request gets that answer: asked again, the input is answered otherwise,
    # so the failure is unstable (spec/protocol.md §5.6), its first answer kept.
    assert outcomes(result) == {"classify.kind": "unstable"}
    assert result.cases, "the failure was saved as a case file"
    actual = json.dumps(result.cases[0]["actual"])
    assert "the number 1e400, beyond any double" in actual
    assert "nested deeper than 200 levels" in actual


# -- on large requests, and the whole-run bound ----------------------------------------------------


@needs_node
def test_node_program_hanging_on_large_requests_ends_at_max_time(tmp_path: Path) -> None:
    result = run(tmp_path, f"{NODE} hang-large 20000", "--ops", "project", "--effort", "quick",
                 "--timeout", "1", "--max-time", "4", bound=4 + 1 + SLACK)
    assert result.code == 1
    found = outcomes(result)
    assert set(found.values()) <= {"untested", "timeout", "pass", "fail"}
    assert "untested" in found.values()
    assert "the run reached --max-time" in json.dumps(result.report)
    assert "reached --max-time" in result.stderr


@needs_node
def test_a_slow_program_is_cut_at_max_time_and_every_report_is_written(tmp_path: Path) -> None:
    junit = tmp_path / "report.xml"
    result = run(tmp_path, f"{NODE} slow 200", "--ops", "select,classify", "--timeout", "2",
                 "--max-time", "2", "--junit", str(junit), bound=2 + 2 + SLACK)
    assert result.code == 1
    assert set(outcomes(result).values()) == {"untested"}
    assert junit.read_text().startswith("<?xml")


# -- on stop ---------------------------------------------------------------------------------------


@needs_node
def test_node_program_ignoring_stop_and_sigterm_is_killed(tmp_path: Path) -> None:
    result = run(tmp_path, f"{NODE} ignore-stop", *CLASSIFY, bound=SLACK + 3)
    assert result.code == 0
    assert outcomes(result) == {"classify.kind": "pass"}


@needs_bash
def test_bash_program_leaving_a_child_on_stop_leaves_nothing(tmp_path: Path) -> None:
    result = run(tmp_path, f"{BASH} linger-on-stop", *CLASSIFY, bound=SLACK)
    assert result.code == 0


# -- Python implementations, isolated or in process ------------------------------------------------


@pytest.mark.parametrize(("target", "said"), [
    ("ExitsHard", "exited with code 9"),
    ("KillsItself", "killed by signal SIGKILL"),
])
def test_isolated_python_implementation_faults_are_crashes(tmp_path: Path, target: str,
                                                           said: str) -> None:
    impl = f"python:tests.integration.programs.misbehaving_impl:{target}"
    result = run(tmp_path, impl, "--ops", "classify", "--max-examples", "4", "--isolate",
                 bound=SLACK + 5)
    assert result.code == 1
    assert outcomes(result) == {"classify.kind": "crash"}
    assert said in note(result, "classify.kind")


def test_in_process_print_is_captured_not_in_the_report(tmp_path: Path) -> None:
    impl = "python:tests.integration.programs.misbehaving_impl:Prints"
    result = run(tmp_path, impl, *CLASSIFY, "--in-process", bound=SLACK)
    assert result.code == 0, result.stdout + result.stderr
    assert "debug output from the implementation" not in result.stdout


def test_in_process_keyboard_interrupt_raised_is_a_crash_of_that_request(
        tmp_path: Path) -> None:
    """KeyboardInterrupt raised by an in-process run() is the implementation's: a crash of that
    request (spec/protocol.md §8), the run goes on and its verdict is the exit code."""
    impl = "python:tests.integration.programs.misbehaving_impl:Interrupts"
    result = run(tmp_path, impl, *CLASSIFY, "--in-process", bound=SLACK)
    assert result.code == 1, result.stderr
    assert outcomes(result) == {"classify.kind": "crash"}
    assert "KeyboardInterrupt" in note(result, "classify.kind")


def test_sigint_during_an_in_process_call_writes_the_partial_report_and_exits_130(
        tmp_path: Path) -> None:
    """SIGINT reaching the harness while an in-process call runs (Ctrl-C) ends the run."""
    impl = "python:tests.integration.programs.misbehaving_impl:SignalsTheHarness"
    result = run(tmp_path, impl, *CLASSIFY, "--in-process", bound=SLACK)
    assert result.code == 130
    assert set(outcomes(result).values()) == {"untested"}
    assert "the run was interrupted" in json.dumps(result.report)


FAULT_PROGRAM = f"{shlex.quote(sys.executable)} {PROGRAMS / 'fault_program.py'}"
ENDINGS = [(signal.SIGINT, 130, "the run was interrupted"),
           (signal.SIGTERM, 143, "the run was terminated")]


@pytest.mark.parametrize(("sent", "code", "said"), ENDINGS)
def test_a_signal_writes_the_partial_reports_and_stops_the_program(
        tmp_path: Path, sent: signal.Signals, code: int, said: str) -> None:
    """Ctrl-C and SIGTERM (timeout, kill, a cancelled CI job) end a run alike: the program's
    process group is stopped (run() holds that nothing of the run survives), the partial reports
    are written, every rule not judged is untested, and the exit code names the signal."""
    state = tmp_path / "program"
    result = run(tmp_path, f"{FAULT_PROGRAM} {state} signal - 2", "--ops", "select",
                 "--timeout", "2", "--junit", str(tmp_path / "junit.xml"), send=sent,
                 ready=state / "ready", bound=SLACK)
    assert result.code == code, result.stderr
    assert set(outcomes(result).values()) == {"untested"}
    assert result.report["verdict"]["ending"] == said
    assert result.report["verdict"]["exitCode"] == code
    assert said in (tmp_path / "junit.xml").read_text()


def test_sigterm_to_the_process_group_ends_an_isolated_run_as_ctrl_c_does(
        tmp_path: Path) -> None:
    """A cancelled CI job's runner may signal the whole group; the worker of --isolate runs in a
    session of its own and is stopped by the harness."""
    ready = tmp_path / "ready"
    result = run(tmp_path, "python:tests.integration.programs.misbehaving_impl:SlowOnceReady",
                 "--ops", "classify", "--isolate", send=signal.SIGTERM, ready=ready,
                 to_group=True, env={"EVENTPROOF_READY_FILE": str(ready)}, bound=SLACK)
    assert result.code == 143, result.stderr
    assert set(outcomes(result).values()) == {"untested"}
    assert "terminated" in result.stderr


# -- usage errors: exit 2, one message, no traceback -----------------------------------------------


@pytest.mark.parametrize(("args", "said"), [
    (("--timeout", "inf"), "--timeout: inf is not a positive, finite number"),
    (("--timeout", "nan"), "--timeout: nan is not a positive, finite number"),
    (("--max-time", "0"), "--max-time: 0.0 is not a positive, finite number"),
    (("--markdown", "/dev/null/summary.md"), "--markdown /dev/null/summary.md: cannot be written"),
    (("--state-dir", "/dev/null/state"), "--state-dir /dev/null/state: cannot be written"),
])
def test_bad_flags_are_usage_errors(tmp_path: Path, args: tuple[str, ...], said: str) -> None:
    result = run(tmp_path, "python:eventproof.reference:Reference", *args, bound=SLACK)
    assert result.code == 2
    assert said in " ".join(result.stderr.split()), result.stderr


def test_a_directory_as_the_program_is_named_a_directory(tmp_path: Path) -> None:
    result = run(tmp_path, str(PROGRAMS), bound=SLACK)
    assert result.code == 2
    assert "is a directory" in result.stderr
    assert "does not exist" not in result.stderr


def test_a_corrupt_case_file_is_a_usage_error(tmp_path: Path) -> None:
    case = tmp_path / "case.json"
    case.write_text('{"formatVersion": 1, "rule": ')
    process = subprocess.run([sys.executable, "-m", "eventproof.conformance", "replay", str(case)],
                             capture_output=True, text=True, cwd=ROOT, timeout=60,
                             env={**os.environ, "COLUMNS": "1000"})
    assert process.returncode == 2
    assert f"replay case {case}: is not JSON" in " ".join(process.stderr.split())
    assert "Traceback" not in process.stderr


# -- the adapter itself ----------------------------------------------------------------------------


def test_the_environment_is_inherited_unchanged() -> None:
    probe = ("import json, os, sys\n"
             "sys.stderr.write(json.dumps(dict(os.environ)) + '\\n'); sys.stderr.flush()\n"
             "sys.exit(0)\n")
    adapter = SubprocessAdapter([sys.executable, "-c", probe], timeout=5)
    with pytest.raises(Exception):  # noqa: B017, PT011 - it exits before the handshake
        adapter.start()
    seen = json.loads(adapter.stderr_tail().strip().splitlines()[-1])
    # What a program started directly from here sees (a runtime may add to os.environ what a
    # child inherits, e.g. a terminal size): the adapter must add, drop and change nothing.
    direct = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            timeout=60, check=False)
    assert seen == json.loads(direct.stderr.strip().splitlines()[-1])


@needs_bash
def test_a_hang_is_a_timeout_and_restart_time_never_counts(tmp_path: Path) -> None:
    adapter = SubprocessAdapter(["bash", str(PROGRAMS / "faulty.sh"), "hang", "2"], timeout=1.0)
    try:
        adapter.start()
        event = {"event": {"type": "turn_start"}}
        assert not isinstance(adapter.run("classify", event), TimedOut | Crashed)
        hung = adapter.run("classify", event)
        assert isinstance(hung, TimedOut)
        assert hung.seconds == 1.0
        # The next request restarts the program first; only the exchange is timed.
        started = time.monotonic()
        adapter.run("classify", event)
        assert adapter.last_exchange_seconds < time.monotonic() - started
    finally:
        adapter.stop()
