"""The suite's own layout: its xdist scheduling (tests/helpers.py, used by tests/conftest.py),
where a module of SHARED_SETUP runs whole on one worker and every other test on its own; and the
slow marker, which never takes the last case of a miniature out of the default run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import (
    SHARED_SETUP,
    VARIANT_MARK,
    quick_start,
    shared_setup_scheduler,
    tiered,
    unit_of_work,
)

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


#: Where the tests that catch each miniature live: the default run keeps a case of each
#: miniature they catch (the slow marker takes out only its other seeds and operations).
CATCHES_MINIATURES = ("tests/miniatures", "tests/unit/test_vacuity.py")


def _collected(marker: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", marker, "-p", "no:xdist",
         *CATCHES_MINIATURES], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    # pytest exits 5 when it collects nothing.
    assert done.returncode in (0, 5), done.stdout + done.stderr
    return [line for line in done.stdout.splitlines() if "::" in line]


def _function_and_key(nodeid: str) -> tuple[str, str | None]:
    """A test's function and, for a case of ``helpers.tiered``, the miniature it catches."""
    function, _, params = nodeid.partition("[")
    key, mark, _ = params.partition(VARIANT_MARK)
    return function, key if mark else None


def test_the_default_run_catches_every_miniature_the_slow_run_does() -> None:
    """The slow marker takes a test out of the default run. In the tests that catch miniatures
    it may only take out another seed or operation of a miniature (a case of
    ``helpers.tiered``) whose first case the default run keeps; anything else there is made
    cheaper instead. (Also: the suite collects under -p no:xdist, its xdist hook being
    optional.)"""
    kept = {_function_and_key(nodeid) for nodeid in _collected("not slow")}
    slow = _collected("slow")
    lost = [nodeid for nodeid in slow
            if _function_and_key(nodeid)[1] is None or _function_and_key(nodeid) not in kept]
    assert not lost, ("these tests catch miniatures, are marked slow, and the default run "
                      "keeps no case of their miniature; make them cheaper instead:\n"
                      + "\n".join(lost))
    assert slow, "no case is left to the slow run: the check above judged nothing"


def test_tiered_keeps_the_first_case_of_each_key_and_marks_the_rest_slow() -> None:
    cases = [("a", 0), ("a", 1), ("b", 1), ("a", 2), ("b", 0)]
    params = tiered(cases, key=lambda name, seed: name, variant=lambda name, seed: seed)
    assert [param.id for param in params] == ["a@0", "a@1", "b@1", "a@2", "b@0"]
    assert [bool(param.marks) for param in params] == [False, True, False, True, True]
    assert [param.values for param in params] == cases
    with pytest.raises(ValueError, match="'a@b'"):
        tiered([("a@b",)], key=lambda name: name, variant=lambda name: 0)


def test_ci_runs_the_readmes_test_command() -> None:
    """The Quick start block holds exactly two commands, and .ci/run runs the second, the test
    command, as a line of its own, and no other command a user could not run."""
    commands = quick_start()
    assert len(commands) == 2, commands
    script = [line.strip() for line in (ROOT / ".ci" / "run").read_text("utf-8").splitlines()
              if line.strip() and not line.lstrip().startswith("#")]
    assert commands[1] in script, (commands[1], script)
    assert "nox" in commands[1]
