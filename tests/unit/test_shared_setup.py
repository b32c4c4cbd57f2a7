"""The suite's own layout: its xdist scheduling (tests/helpers.py, used by tests/conftest.py),
where a module of SHARED_SETUP runs whole on one worker and every other test on its own; and the
slow marker, which never takes a test that catches a miniature out of the default run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import SHARED_SETUP, quick_start, shared_setup_scheduler, unit_of_work

ROOT = Path(__file__).resolve().parents[2]


class _Config:
    def __init__(self, dist: str) -> None:
        self.dist = dist

    def getvalue(self, name: str) -> Any:
        return {"dist": self.dist}.get(name)


def test_every_shared_setup_module_exists() -> None:
    """A renamed module would otherwise quietly lose its grouping."""
    missing = [path for path in SHARED_SETUP if not (ROOT / path).is_file()]
    assert not missing


def test_a_shared_setup_module_is_one_unit_and_other_tests_are_their_own() -> None:
    shared = sorted(SHARED_SETUP)[0]
    assert unit_of_work(f"{shared}::test_a[x]") == shared
    assert unit_of_work(f"{shared}::test_b") == shared
    other = "tests/unit/test_engine.py::test_a[x]"
    assert unit_of_work(other) == other


@pytest.mark.parametrize("dist", ["loadscope", "loadfile", "worksteal", "no"])
def test_another_dist_mode_is_left_to_xdist(dist: str) -> None:
    assert shared_setup_scheduler(_Config(dist), None) is None


#: Where the tests that catch each miniature live: none of them may be marked slow, so the
#: default test run (the README's test command) catches every miniature.
CATCHES_MINIATURES = ("tests/miniatures", "tests/unit/test_vacuity.py")


def test_no_test_that_catches_a_miniature_is_marked_slow() -> None:
    """The slow marker takes a test out of the default run; a test that catches a miniature must
    stay in it. (Also: the suite collects under -p no:xdist, its xdist hook being optional.)"""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "slow", "-p", "no:xdist",
         *CATCHES_MINIATURES], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    # pytest exits 5 when nothing is collected: here, when no such test is marked slow.
    assert done.returncode == 5, (
        "these tests catch miniatures but are marked slow; make them cheaper instead:\n"
        + done.stdout + done.stderr)



def test_ci_runs_the_readmes_test_command() -> None:
    """The Quick start block holds exactly two commands, and .ci/run runs the second, the test
    command, as a line of its own, and no other command a user could not run."""
    commands = quick_start()
    assert len(commands) == 2, commands
    script = [line.strip() for line in (ROOT / ".ci" / "run").read_text("utf-8").splitlines()
              if line.strip() and not line.lstrip().startswith("#")]
    assert commands[1] in script, (commands[1], script)
    assert "nox" in commands[1]
