"""The console, the standard streams, the environment and the working directory: whatever they
are, ``eventproof run`` writes its reports, exits with its verdict's code, never shows a
traceback of its own, shows every outside string escaped, and writes nothing into the directory
it starts in.

Faults are drawn (which stream fault, which face: the defaults users get, ``--jobs auto`` and
isolation, or ``--jobs 1``), each run in a fresh working directory.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
CONTROL_NAME = "python:tests.integration.programs.fenced_impl:ControlName"
REFERENCE = "python:eventproof.reference:Reference"
#: The defaults users get (``--jobs auto``: the tests' own EVENTPROOF_JOBS=1 is set aside), and
#: one process.
FACES = {"defaults": (), "jobs-1": ("--jobs", "1")}
#: What no console line may hold as itself (tests/unit: _console.escape_controls).
RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e]")


@dataclass(frozen=True)
class Fault:
    kind: str
    value: str = ""


faults = st.one_of(
    st.just(Fault("stdout-closed")),
    st.just(Fault("stderr-closed")),
    st.just(Fault("reader-gone")),
    st.just(Fault("ascii")),
    st.builds(Fault, st.just("columns"), st.sampled_from(["0", "1", "-3", "abc", "", "10" * 6])),
    st.builds(Fault, st.just("control-name"), st.text(
        st.sampled_from("ab\x1b[]2J;\x07\t\r\n\x7f\x9b\u202e\u200b"), min_size=1,
        max_size=12)),
)


@dataclass
class Ran:
    code: int
    stdout: str | None
    stderr: str | None
    report: dict[str, object] | None


def run_with(fault: Fault, face: str, directory: Path) -> Ran:
    """``eventproof run`` from ``directory`` with the fault applied to its streams or
    environment; a JSON report to a file."""
    work = directory / "work"
    work.mkdir()
    report = directory / "report.json"
    impl = CONTROL_NAME if fault.kind == "control-name" else REFERENCE
    command = [sys.executable, "-m", "eventproof.conformance", "run", "--impl", impl,
               "--ops", "classify", "--max-examples", "3", "--timeout", "5", "--deterministic",
               "--no-progress", "--json", str(report), "--state-dir", str(directory / "state"),
               *FACES[face]]
    env = {key: value for key, value in os.environ.items()
           if key not in ("COLUMNS", "LINES", "NO_COLOR", "TERM", "HYPOTHESIS_STORAGE_DIRECTORY",
                          "EVENTPROOF_JOBS")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    if fault.kind == "columns":
        env["COLUMNS"] = fault.value
    if fault.kind == "ascii":
        env.update(PYTHONIOENCODING="ascii", LANG="C", LC_ALL="C")
    if fault.kind == "control-name":
        env["EVENTPROOF_NAME"] = fault.value
    stdout: int | None = subprocess.PIPE
    stderr: int | None = subprocess.PIPE
    gone_write = None
    if fault.kind == "reader-gone":
        read_end, gone_write = os.pipe()
        os.close(read_end)  # the reader went away (`| head -1` after its line)
        stdout = gone_write
    wrapper: list[str] = []
    if fault.kind in ("stdout-closed", "stderr-closed"):
        closed = "1" if fault.kind == "stdout-closed" else "2"
        wrapper = ["sh", "-c", f'exec "$@" {closed}>&-', "sh"]
    process = subprocess.run([*wrapper, *command], stdout=stdout, stderr=stderr, cwd=work,
                             env=env, timeout=180, check=False)
    if gone_write is not None:
        os.close(gone_write)
    assert not (work / ".hypothesis").exists(), "Hypothesis wrote into the working directory"
    assert list(work.iterdir()) == [], list(work.iterdir())
    said = [None if (number == 1 and fault.kind == "stdout-closed")
            or (number == 2 and fault.kind == "stderr-closed") or not isinstance(text, bytes)
            else text.decode("utf-8", "replace")
            for number, text in ((1, process.stdout), (2, process.stderr))]
    return Ran(process.returncode, said[0], said[1],
               json.loads(report.read_text("utf-8")) if report.exists() else None)


@settings(max_examples=2, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(fault=faults, face=st.sampled_from(sorted(FACES)))
def test_a_stream_fault_never_costs_a_report_or_a_true_exit_code(
        fault: Fault, face: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Whatever the streams or the console are, the report is written, the exit code is its
    verdict's, no traceback or internal error is shown, the console is not empty when it can
    be read, every control character from outside is escaped, and the working directory is left
    as it was."""
    ran = run_with(fault, face, tmp_path_factory.mktemp("streams"))
    assert ran.report is not None, ran.stderr
    verdict = ran.report["verdict"]
    assert isinstance(verdict, dict)
    assert ran.code == verdict["exitCode"], (ran.code, verdict, ran.stderr)
    for text in (ran.stdout, ran.stderr):
        if text is None:
            continue
        assert "internal error" not in text, text
        assert not any(line.startswith("Traceback") for line in text.splitlines()), text
        assert not RAW_CONTROL.search(text), ascii(text)
    if ran.stdout is not None:
        assert "classify" in ran.stdout, ran.stdout
    if fault.kind == "control-name" and ran.stdout is not None:
        assert "\\x1b" in ran.stdout or "\x1b" not in fault.value
        # A line break in the name cannot start a line of its own and pass for the kit's.
        assert "\\n" in ran.stdout or "\n" not in fault.value


def test_json_to_a_closed_stdout_is_a_usage_error(tmp_path: Path) -> None:
    """``--json -`` with standard output closed: refused before the run, naming the fix."""
    command = [sys.executable, "-m", "eventproof.conformance", "run", "--ops", "classify",
               "--json", "-", "--state-dir", str(tmp_path / "state")]
    done = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *command], cwd=ROOT,
                          stderr=subprocess.PIPE, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert "--json -: standard output is closed" in done.stderr


def test_a_deleted_working_directory_is_a_clear_error(tmp_path: Path) -> None:
    """Started in a directory that no longer exists: one clear error, exit 2, no traceback."""
    gone = tmp_path / "gone"
    gone.mkdir()
    command = [sys.executable, "-m", "eventproof.conformance", "run", "--ops", "classify",
               "--state-dir", str(tmp_path / "state")]
    script = f'cd {gone} && rmdir {gone} && exec "$@"'
    done = subprocess.run(["sh", "-c", script, "sh", *command], stderr=subprocess.PIPE,
                          text=True, timeout=60, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2, done.stderr
    assert "the working directory no longer exists" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
@settings(max_examples=25, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(fault=faults, face=st.sampled_from(sorted(FACES)))
def test_every_stream_fault_on_every_face(
        fault: Fault, face: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The wide sweep of the property above."""
    test_a_stream_fault_never_costs_a_report_or_a_true_exit_code.hypothesis.inner_test(  # type: ignore[attr-defined]
        fault, face, tmp_path_factory)
