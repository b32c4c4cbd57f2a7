"""A program's faults, drawn as properties and run under the defaults users get (``--jobs auto``,
the CLI's default) as well as ``--jobs 1``: which fault (it hangs, stops reading its stdin,
exits, ends its line with CR alone, writes half a line and hangs or exits, answers 500 deep,
writes a 5,000-digit integer in a member no schema names, writes a line nobody asked for, or the
harness gets SIGINT, SIGTERM or SIGHUP while a request hangs), when (at the handshake, at the
run's request k whichever worker gets it, mid-line, after answering), once or for good
(tests/integration/programs/channel_fault.py).

Every run holds the invariants of the program's channels (docs/threat-model.md): a bounded time
(spec/protocol.md §7.4: a program that cannot answer costs at most 8 x --timeout in all; a
signal ends a run at once), an exit code true to the verdict, the report written (but for a
handshake that fails, a usage error), a message naming the program and the fix, what the
program wrote said as it was, no traceback from the kit, and no process left behind
(test_faults.run).
"""

from __future__ import annotations

import json
import shlex
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from eventproof.conformance import check_implementation
from eventproof.conformance._engine import _REQUESTS_TO_SHRINK_A_FAULT
from eventproof.conformance._schemas import schema_issues
from eventproof.conformance.cli import _jobs
from helpers import run_marked
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_faults import PROGRAMS, SLACK, Run, run

PROGRAM = f"{shlex.quote(sys.executable)} {PROGRAMS / 'channel_fault.py'}"
TIMEOUT = 2.0
#: What a program that cannot answer may cost a run in all (spec/protocol.md §7.4), plus the
#: search of a dozen examples, a shrink and the stopping of each program on a busy machine.
BOUND = 8 * TIMEOUT + 16.0
#: A deadline no signal may wait for: a run that waited for the request under way would
#: overrun the bound of a signal (SLACK).
SIGNAL_TIMEOUT = 60.0
START_FAULTS = ("hang", "noread", "exit", "cr", "halfline", "halfexit", "bigint")
RUN_FAULTS = (*START_FAULTS, "deep", "stray")
#: What the report or the error says of each fault (the program's own bytes, or the cause).
SAID = {
    "hang": "no answer within", "noread": "no answer within", "exit": "exited with code 3",
    "cr": "carriage return (\\r) alone, which does not end a line",
    "halfline": "but no line feed (\\n) after them",
    "halfexit": "but no line feed (\\n) after them",
    "bigint": "$.note.n: expected integers of at most 4300 digits",
    # Said between requests (out of step) or as the late answer to the next one: a race.
    "stray": "a second answer to run request seq",
}
#: What the usage error says of each fault at the handshake.
SAID_AT_START = {
    **SAID, "hang": "did not answer the start request within 2 s (it wrote nothing on stdout)",
    "noread": "did not answer the start request within 2 s (it wrote nothing on stdout)",
    "exit": "exited with code 3 before answering the start request",
    "halfexit": "exited with code 4 before answering the start request; it wrote",
}
ENDINGS = {signal.SIGINT: (130, "interrupted"), signal.SIGTERM: (143, "terminated"),
           signal.SIGHUP: (143, "terminated")}


@dataclass(frozen=True)
class Fault:
    kind: str
    #: 0: the handshake; k: the kth run request.
    when: int
    #: Whether the program commits the fault for good (every later life, from its first request).
    lasting: bool
    jobs: str
    #: A signal sent to the harness once the program reached its fault (a hang).
    sent: signal.Signals | None = None

    def command(self, state: Path) -> str:
        return f"{PROGRAM} {state} {self.kind} {self.when} {int(self.lasting)}"


jobs = st.sampled_from(["auto", "1"])
faults = st.one_of(
    st.builds(Fault, st.sampled_from(START_FAULTS), st.just(0), st.just(False), jobs),
    st.builds(Fault, st.sampled_from(RUN_FAULTS), st.integers(1, 4), st.booleans(), jobs),
    st.builds(Fault, st.just("hang"), st.integers(0, 3), st.just(False), jobs,
              st.sampled_from(list(ENDINGS))),
)


def check(fault: Fault, directory: Path) -> Run:
    """Run the fault once and hold every invariant of its class."""
    state = directory / "program"
    timeout = SIGNAL_TIMEOUT if fault.sent is not None else TIMEOUT
    result = run(directory, fault.command(state), "--ops", "select", "--max-examples", "12",
                 "--timeout", f"{timeout:g}", "--jobs", fault.jobs,
                 bound=SLACK if fault.sent is not None else BOUND, send=fault.sent,
                 ready=state / "ready" if fault.sent is not None else None)
    said = " ".join((result.stdout + result.stderr).split())
    # The fault came (the Nth request of the run always comes): a run that met no fault would
    # prove nothing of its channel.
    assert (state / "ready").exists(), said
    if fault.sent is not None:
        # At once, whatever the request under way (the handshake too), with the program and
        # every worker stopped (run() holds that nothing survives).
        code, word = ENDINGS[fault.sent]
        assert result.code == code, said
        assert word in said
        if fault.when > 0:  # once there is a handshake, the partial report
            assert result.report is not None, said
            assert result.report["verdict"]["exitCode"] == code
            assert f"the run was {word}" in said
        return result
    if fault.when == 0:
        # The handshake failed: a usage error that names the program, what it did and the fix.
        assert result.code == 2, said
        assert result.report is None
        assert f"--impl {shlex.quote(fault.command(state))}" in said, said
        assert "spec/protocol.md §" in said, said
        assert SAID_AT_START[fault.kind] in said, said
        return result
    report = result.report
    assert report is not None, said
    assert schema_issues(report, "report.json") == []
    assert result.code == report["verdict"]["exitCode"] == 1, said
    written = json.dumps(report, ensure_ascii=False)
    if fault.kind in SAID:
        assert SAID[fault.kind] in written or SAID[fault.kind] in said, said
    # The console names the program in the command that replays the failure.
    assert f"--impl {shlex.quote(fault.command(state))}" in said, said
    return result


@settings(max_examples=3, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@example(fault=Fault("deep", 1, True, "auto"))
@example(fault=Fault("hang", 2, False, "auto", signal.SIGHUP))
@example(fault=Fault("hang", 0, False, "1", signal.SIGTERM))
@given(fault=faults)
def test_each_drawn_fault_of_a_program_keeps_the_invariants_of_its_channel(
        fault: Fault, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Whatever the fault, when it comes and under either scheduler, the run ends within its
    bound with an exit code true to its verdict, its report (or a usage error naming the
    program), what the program did said as it was, and nothing left running."""
    check(fault, tmp_path_factory.mktemp("fault"))


@pytest.mark.slow
@settings(max_examples=40, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(fault=faults)
def test_every_fault_of_a_program_keeps_the_invariants_of_its_channel(
        fault: Fault, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The wide sweep of the property above."""
    check(fault, tmp_path_factory.mktemp("fault"))


def test_a_program_that_hangs_on_every_request_costs_the_stated_bound_and_is_given_up(
        tmp_path: Path) -> None:
    """Every operation, under the default scheduler, against a program that answers its
    handshake and then no request: within 8 x --timeout of waiting (spec/protocol.md §7.4),
    every rule not found reported 'not checked' with when and why the program was given up."""
    state = tmp_path / "program"
    # The bound stated is of waiting: each request the program got is one deadline waited, so
    # the count of its requests holds it on a machine of any load; the wall-time bound (three
    # times the slack for starting up) only guards against a run that waits far longer.
    result = run(tmp_path, f"{PROGRAM} {state} hang 1 1", "--effort", "quick", "--timeout",
                 "1", bound=8 * 1.0 + 3 * SLACK)
    waited = int((state / "requests").read_text())
    assert 1 <= waited <= 8, f"the program was sent {waited} requests, each a deadline waited"
    assert result.report is not None, result.stderr
    assert result.code == result.report["verdict"]["exitCode"] == 1
    notes = [rule.get("note", "") for rule in result.report["results"]]
    given_up = [note for note in notes if "restart limit reached" in note]
    assert given_up, notes
    assert "given up on " in given_up[0]
    assert "s into the run" in given_up[0]
    assert "counted across the whole run" in given_up[0]
    # One count for the run: a restart limit per worker or per operation would start more
    # lives than one per worker and the 3 restarts of the run.
    assert len(list(state.glob("life-*"))) <= _jobs("auto") + 3


def test_a_harness_killed_under_jobs_leaves_no_worker_and_no_program_behind(
        tmp_path: Path) -> None:
    """SIGKILL (an out-of-memory kill, a runner that will not wait) ends the harness with no
    chance to stop anything: its worker processes notice that their driver is gone, stop their
    programs with their whole process groups, and end, within a few seconds, whatever each was
    doing (one waits on the program's hang, the other for a task that will never come)."""
    state = tmp_path / "program"
    command = [sys.executable, "-m", "eventproof.conformance", "run", "--impl",
               Fault("hang", 2, False, "2").command(state), "--ops", "select",
               "--timeout", f"{SIGNAL_TIMEOUT:g}", "--jobs", "2", "--no-progress",
               "--state-dir", str(tmp_path / "state")]
    code, _, _, _ = run_marked(command, timeout=2 * SLACK, send=signal.SIGKILL,
                               ready=state / "ready", settle=SLACK)
    assert code == -signal.SIGKILL


@pytest.mark.parametrize("kind", ["exit", "halfexit", "cr", "deep"])
def test_a_fault_that_comes_once_costs_a_bounded_shrink(kind: str, tmp_path: Path) -> None:
    """A program that crashes, breaks its line or answers wrongly on one request only: the
    shrinker's attempts never meet the fault again, so the search stops shrinking a crash or a
    broken line after _REQUESTS_TO_SHRINK_A_FAULT requests (spec/protocol.md §7.4), and does not
    shrink a wrong answer that differs when asked once more (§5.6), and reports it as found,
    rather than trying a thousand inputs that all pass (40 s for the wrong answer)."""
    def calls(fault: str, when: int) -> int:
        command = f"{PROGRAM} {tmp_path / str(when)} {fault} {when} 0"
        return check_implementation(command, ops=("select",), max_examples=12,
                                    timeout=TIMEOUT).calls
    clean = calls(kind, 10**6)  # a fault that never comes
    once = calls(kind, 2)
    assert clean < once <= clean + _REQUESTS_TO_SHRINK_A_FAULT + 2, (clean, once)
