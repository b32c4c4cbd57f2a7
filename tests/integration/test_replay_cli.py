"""`eventproof replay` through the real command line, on a port with a planted bug.

A run of the JavaScript port with a planted bug saves its failures; a bare replay replays them
against THAT port (still failing, exit 1), never against the bundled reference; a case that
cannot say which implementation it came from, or whose command now starts another one, is
refused (exit 2) unless --impl names the implementation, which then says so on each case; the
fixed port replays them as fixed, and --prune removes their files.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.node

# The JavaScript port with the bugs named in EVENTPROOF_JS_BUG planted (programs/js-bugs/); with
# none named, the clean port.
PORT = Path(__file__).resolve().parent / "programs" / "js-bugs" / "eventproof-port-bugs.mjs"
EVENTPROOF = [sys.executable, "-m", "eventproof.conformance"]
REFERENCE = "python:eventproof.reference:Reference"
if shutil.which("node") is None:
    pytest.skip("node is not on PATH: the JavaScript port cannot run (install Node.js 20+)",
                allow_module_level=True)


def eventproof(*args: str, bug: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "EVENTPROOF_JS_BUG"}
    if bug is not None:
        env["EVENTPROOF_JS_BUG"] = bug
    return subprocess.run([*EVENTPROOF, *args], capture_output=True, text=True, timeout=300,
                          env={**env, "NO_COLOR": "1", "COLUMNS": "200"}, check=False)


@pytest.fixture(scope="module")
def failed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    """The state directory of a failed run of the port with a planted select bug."""
    state = tmp_path_factory.mktemp("state")
    result = eventproof("run", "--impl", f"node {PORT}", "--ops", "select", "--effort",
                        "quick", "--deterministic", "-x", "--no-progress", "--state-dir",
                        str(state), bug="unfiltered-last-message")
    assert result.returncode == 1, result.stdout + result.stderr
    files = sorted((state / "failures").glob("*/*.json"))
    assert files, result.stdout
    for path in files:
        origin = json.loads(path.read_text("utf-8"))["origin"]
        assert origin["impl"] == f"node {PORT}"
    return state, files


def copy_state(state: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "state"
    shutil.copytree(state, copy)
    return copy


def test_bare_replay_replays_against_the_port_that_failed(
        failed: tuple[Path, list[Path]]) -> None:
    """Without --impl the saved failures go back to the port (the bug still planted): still
    failing, exit 1, and the summary line and exit code agree."""
    state, files = failed
    result = eventproof("replay", "--state-dir", str(state), bug="unfiltered-last-message")
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"against --impl 'node {PORT}'" in result.stdout
    assert "fixed  " not in result.stdout
    assert result.stdout.count("still failing  ") == len(files)
    assert result.stdout.splitlines()[-1] == (
        f"0 fixed, {len(files)} still failing, 0 unstable (exit code 1)")


def test_another_implementation_only_when_named_and_then_said(
        failed: tuple[Path, list[Path]]) -> None:
    """--impl of the reference replays the port's cases against the reference, and says on
    each line that they were saved from the port."""
    state, files = failed
    result = eventproof("replay", "--state-dir", str(state), "--impl", REFERENCE)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = [line for line in result.stdout.splitlines() if line.startswith("fixed  ")]
    assert len(lines) == len(files)
    assert all("saved from eventproof-js-example" in line and f"against --impl {REFERENCE}"
               in line for line in lines)


def test_a_case_that_cannot_name_its_implementation_is_refused(
        failed: tuple[Path, list[Path]], tmp_path: Path) -> None:
    """A version 1 case (no origin) and a case whose command now starts an implementation of
    another name are refused by a bare replay (exit 2), naming the implementation and the fix;
    --impl replays them."""
    state = copy_state(failed[0], tmp_path)
    [first, *_rest] = sorted((state / "failures").glob("*/*.json"))
    document = json.loads(first.read_text("utf-8"))
    old = {key: value for key, value in document.items()
           if key not in ("origin", "outcome", "savedAt")}
    first.write_text(json.dumps(dict(old, formatVersion=1)), encoding="utf-8")
    refused = eventproof("replay", str(first))
    assert refused.returncode == 2, refused.stdout + refused.stderr
    message = " ".join(refused.stderr.split())
    assert "eventproof-js-example" in message
    assert "--impl" in message
    assert "fixed" not in refused.stdout
    renamed = dict(document, origin=dict(document["origin"], impl=REFERENCE, isolate=False))
    first.write_text(json.dumps(renamed), encoding="utf-8")
    refused = eventproof("replay", str(first))
    assert refused.returncode == 2, refused.stdout + refused.stderr
    message = " ".join(refused.stderr.split())
    assert "eventproof-js-example" in message
    assert "'eventproof-reference-halving'" in message
    named = eventproof("replay", str(first), "--impl", f"node {PORT}",
                       bug="unfiltered-last-message")
    assert named.returncode == 1, named.stdout + named.stderr


def test_the_fixed_port_reports_fixed_and_prune_removes_the_files(
        failed: tuple[Path, list[Path]], tmp_path: Path) -> None:
    """The same port without the bug: every case fixed (exit 0), and --prune removes each
    case file and names it."""
    state = copy_state(failed[0], tmp_path)
    files = sorted((state / "failures").glob("*/*.json"))
    result = eventproof("replay", "--state-dir", str(state), "--prune")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == (
        f"{len(files)} fixed, 0 still failing, 0 unstable (exit code 0)")
    for path in files:
        assert f"removed {path} (fixed)" in result.stdout
        assert not path.exists()
    again = eventproof("replay", "--state-dir", str(state))
    assert again.returncode == 2
    assert "no saved failures" in again.stderr
