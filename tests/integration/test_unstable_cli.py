"""An implementation wrong at random, through the real command line and the protocol.

``miniatures.unstable:WrongAtRandom`` (seeded per call) runs in a worker process behind
spec/protocol.md (--isolate): the run reports ``unstable``, never ``fail`` or ``pass``, in the
console, the JSON report and JUnit; a bare replay of its cases says ``unstable``, never
``fixed``, and the summary line and exit code agree.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

EVENTPROOF = [sys.executable, "-m", "eventproof.conformance"]
TESTS = Path(__file__).resolve().parents[1]
SPEC = "python:miniatures.unstable:WrongAtRandom"


def eventproof(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*EVENTPROOF, *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200",
                               "PYTHONPATH": str(TESTS)}, check=False)


def test_wrong_at_random_is_unstable_in_every_output_and_in_replay(tmp_path: Path) -> None:
    state, report, junit = tmp_path / "state", tmp_path / "r.json", tmp_path / "r.xml"
    run = eventproof("run", "--impl", SPEC, "--ops", "select", "--effort", "quick",
                     "--deterministic", "-x", "--no-progress", "--state-dir", str(state),
                     "--json", str(report), "--junit", str(junit))
    assert run.returncode == 1, run.stdout + run.stderr
    assert "UNSTABLE  select." in run.stdout
    document = json.loads(report.read_text("utf-8"))
    outcomes = {result["outcome"] for result in document["results"]
                if "counterexample" in result}
    assert outcomes == {"unstable"}
    assert document["verdict"]["exitCode"] == 1
    errors = [case.find("error") for case in ET.parse(junit).getroot().iter("testcase")]
    assert "unstable" in {error.get("type") for error in errors if error is not None}
    files = sorted((state / "failures").glob("*/*.json"))
    assert files
    replay = eventproof("replay", "--state-dir", str(state))
    assert replay.returncode == 1, replay.stdout + replay.stderr
    assert f"against --impl {SPEC}" in replay.stdout
    assert replay.stdout.count("unstable  ") == len(files)
    assert "fixed  " not in replay.stdout
    assert replay.stdout.splitlines()[-1] == (
        f"0 fixed, 0 still failing, {len(files)} unstable (exit code 1)")
