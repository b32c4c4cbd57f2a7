"""In-process implementations are fenced (spec/protocol.md §8): whatever an implementation
raises, returns, prints or sets becomes an outcome of that request, on every face.

Misbehaviours are drawn, not listed one test each: which misbehaviour
(tests/integration/programs/fenced_impl.py: an exception that is not an Exception, a message
that raises or never ends, a container holding itself, a generator, an integer of 5,000 digits,
its own SIGALRM handler, an alarm, a printing thread, a recursion limit, a replaced stdout …),
from which call on, and through which face (the adapter, ``check_implementation`` with an object
or a ``python:`` spec on its defaults, the command line on its defaults and ``--in-process
--jobs 1``). Each must give the outcome of its class on that request, the same outcome when
asked again (the harness's own words hold no memory address), and leave the harness whole.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from eventproof.conformance import check_implementation
from eventproof.conformance._adapters import Crashed, InProcessAdapter, Ok, TimedOut
from eventproof.conformance._model import ImplErrored
from eventproof.reference import Reference
from helpers import run_marked
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent / "programs"))
from fenced_impl import ACTIONS, CHATTER, SIDE_EFFECTS, misbehaving

ROOT = Path(__file__).resolve().parents[2]
#: A deadline short enough for hangs to be cheap.
TIMEOUT = 0.5
EVENT = {"event": {"type": "turn_start"}}

CRASHES = {"own-base-exception", "keyboard-interrupt", "system-exit-object", "generator-exit"}
HANGS = {"endless-message", "hang"}
#: Every misbehaviour, and the outcome class it must have in process.
#: Lowering the recursion limit is refused in process (the limit is the harness's too).
REFUSED = {"recursion-limit"}
EXPECTED: dict[str, type] = {
    what: (Crashed if what in CRASHES else TimedOut if what in HANGS
           else Ok if what in SIDE_EFFECTS - REFUSED else ImplErrored)
    for what in ACTIONS}
#: What answers as the reference in a process of its own but not in the harness's (an alarm
#: ends the worker; a lowered recursion limit is refused in process).
FACE_DEPENDENT = {"alarm", "recursion-limit"}
#: What a second copy of the harness must find unchanged after each call.
_ALARM_BEFORE = signal.getsignal(signal.SIGALRM)


def _harness_state() -> tuple[Any, ...]:
    return (sys.stdout, sys.stderr, sys.getrecursionlimit(), signal.getsignal(signal.SIGALRM),
            signal.getitimer(signal.ITIMER_REAL)[0] == 0.0)


def test_every_misbehaviour_has_an_expected_class() -> None:
    """The catalogue and the table of outcome classes name the same misbehaviours."""
    assert set(EXPECTED) == set(ACTIONS)


@settings(max_examples=40, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(what=st.sampled_from(sorted(ACTIONS)), start_at=st.integers(1, 3))
def test_each_misbehaviour_is_an_outcome_of_that_request(what: str, start_at: int) -> None:
    """Called through the in-process adapter, a misbehaviour from call N on leaves calls before
    N answered, makes call N an outcome of its class, gives an equal outcome when asked again,
    leaves the harness's streams, recursion limit and SIGALRM as they were, and leaves no
    thread of a call running."""
    before = _harness_state()
    adapter = InProcessAdapter(misbehaving(what, start_at), timeout=TIMEOUT)
    expected_answer = Reference().run("classify", EVENT)
    for _ in range(start_at - 1):
        assert adapter.run("classify", EVENT) == Ok(expected_answer)
    first = adapter.run("classify", EVENT)
    assert isinstance(first, EXPECTED[what]), (what, first)
    if isinstance(first, Ok):
        assert first.output == expected_answer
    again = adapter.run("classify", EVENT)
    assert again == first, (what, first, again)
    assert "0x" not in json.dumps(str(first)), first
    assert _harness_state() == before
    # The harness goes on: another implementation is called as usual.
    assert InProcessAdapter(Reference(), timeout=TIMEOUT).run("classify", EVENT) == Ok(
        expected_answer)
    # No call's thread outlives its deadline by more than the unwinding (one that never ended,
    # printing an exception whose __str__ never ends, would burn a core for ever).
    for thread in threading.enumerate():
        if thread.name == "eventproof-call":
            thread.join(1.0)
            assert not thread.is_alive(), what
    # A printing thread outlives its call; the next example must not hear it.
    for thread in threading.enumerate():
        if thread.name == CHATTER:
            thread.join()


#: The faces of the library (the command line's are below), with their defaults.
FACES = ("object", "python-spec", "python-spec-in-process")
#: Misbehaviours that do not hang (a face runs a whole search, so hangs stay in the adapter test).
QUICK = sorted(set(ACTIONS) - HANGS - {"set-sigalrm"})


@settings(max_examples=3, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(what=st.sampled_from(QUICK), face=st.sampled_from(FACES))
def test_check_implementation_on_its_defaults_judges_every_misbehaviour(
        what: str, face: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``check_implementation`` on its defaults (an object in process; a ``python:`` spec
    isolated; or in process when asked) returns a report for every misbehaviour: the
    side effects conform, the rest do not, and none is called unstable."""
    monkeypatch.setenv("EVENTPROOF_MISBEHAVIOUR", f"{what}:1")
    spec = "python:tests.integration.programs.fenced_impl:Misbehaves"
    impl: Any = (misbehaving(what) if face == "object" else spec)
    options: dict[str, Any] = {"isolate": False} if face == "python-spec-in-process" else {}
    report = check_implementation(impl, ops=["classify"], effort="quick", max_examples=2,
                                  timeout=5.0, **options)
    outcomes = {result.outcome for result in report.results}
    assert "unstable" not in outcomes, (what, face, outcomes)
    if what in FACE_DEPENDENT:
        assert report.verdict.exit_code in (0, 1), (what, face, outcomes)
    elif what in SIDE_EFFECTS:
        assert report.verdict.exit_code == 0, (what, face, outcomes)
    else:
        assert report.verdict.exit_code == 1, (what, face, outcomes)


CLI_FACES = {"defaults": (), "in-process": ("--in-process", "--jobs", "1")}


def _cli(what: str, face: str, tmp_path: Path, *, env: dict[str, str] | None = None
         ) -> tuple[int, str, str]:
    command = [sys.executable, "-m", "eventproof.conformance", "run", "--impl",
               "python:tests.integration.programs.fenced_impl:Misbehaves", "--ops", "classify",
               "--max-examples", "4", "--timeout", "5", "--deterministic", "--no-progress",
               "--state-dir", str(tmp_path / "state"), "--json", "-", *CLI_FACES[face]]
    # The defaults users get: --jobs auto (the tests' own EVENTPROOF_JOBS=1 set aside), and a
    # module that prints when imported, as some do.
    code, stdout, stderr, _ = run_marked(
        command, timeout=120, env={"EVENTPROOF_MISBEHAVIOUR": f"{what}:1",
                                   "EVENTPROOF_JOBS": "auto", "EVENTPROOF_PRINT_ON_IMPORT": "1",
                                   **(env or {})})
    return code, stdout, stderr


def _holds(code: int, stdout: str, stderr: str) -> dict[str, Any]:
    """``--json -`` wrote one JSON document and nothing else; the exit code is its verdict's."""
    # The implementation's own traceback may be quoted (indented, as its stderr); the
    # harness's never is.
    assert "internal error" not in stderr, stderr
    assert not any(line.startswith("Traceback") for line in stderr.splitlines()), stderr
    report: dict[str, Any] = json.loads(stdout)
    assert code == report["verdict"]["exitCode"], (code, report["verdict"], stderr)
    return report


@settings(max_examples=2, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(what=st.sampled_from(sorted({"thread-prints", "prints", "own-base-exception",
                                    "generator", "self-list", "huge-integer",
                                    "unprintable-error"})),
       face=st.sampled_from(sorted(CLI_FACES)))
def test_the_command_line_keeps_its_json_report_whole(
        what: str, face: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """``eventproof run --json -`` on its defaults (isolated, --jobs auto) and in process with
    --jobs 1: whatever the implementation does (and though its module prints when imported),
    standard output is the report alone, and the exit code is the report's verdict's."""
    code, stdout, stderr = _cli(what, face, tmp_path_factory.mktemp("cli"))
    report = _holds(code, stdout, stderr)
    outcomes = {rule["outcome"] for rule in report["results"]}
    assert "unstable" not in outcomes
    assert code == (0 if what in SIDE_EFFECTS else 1), (what, face, outcomes)


pytest_plugins = ["pytester"]
#: The plugin under its module name (the project's pytest configuration disables the entry point).
PLUGIN = ("-p", "no:eventproof", "-p", "eventproof.conformance.pytest_plugin")


@pytest.mark.parametrize("what", ["own-base-exception"])
def test_the_pytest_plugin_on_its_defaults_judges_a_misbehaviour(
        what: str, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pytest plugin on its defaults (a ``python:`` implementation isolated): a
    misbehaviour fails the rule it breaks, as a test failure, never an internal error."""
    monkeypatch.setenv("EVENTPROOF_MISBEHAVIOUR", f"{what}:1")
    pytester.syspathinsert(ROOT)
    result = pytester.runpytest(*PLUGIN, "--eventproof-effort", "quick", "--eventproof-impl",
                                "python:tests.integration.programs.fenced_impl:Misbehaves",
                                "-k", "classify")
    assert "INTERNALERROR" not in result.stdout.str()
    result.assert_outcomes(failed=1)
    assert "unstable" not in result.stdout.str()


@pytest.mark.slow
@settings(max_examples=40, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(what=st.sampled_from(sorted(ACTIONS)), face=st.sampled_from(sorted(CLI_FACES)))
def test_every_misbehaviour_on_every_command_line_face(
        what: str, face: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The wide sweep: every misbehaviour, both command-line faces."""
    code, stdout, stderr = _cli(what, face, tmp_path_factory.mktemp("cli"))
    report = _holds(code, stdout, stderr)
    assert "unstable" not in {rule["outcome"] for rule in report["results"]}
