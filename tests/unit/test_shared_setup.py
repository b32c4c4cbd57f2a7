"""The suite's own xdist scheduling (tests/helpers.py, used by tests/conftest.py): a module of
SHARED_SETUP runs whole on one worker, every other test is scheduled on its own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import SHARED_SETUP, shared_setup_scheduler, slow_catchers, unit_of_work

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


class _Item:
    def __init__(self, nodeid: str, *marks: str) -> None:
        self.nodeid, self.marks = nodeid, marks

    def get_closest_marker(self, name: str) -> object | None:
        return name if name in self.marks else None


def test_a_test_that_catches_a_miniature_cannot_be_slow() -> None:
    items = [_Item("tests/miniatures/test_wire_miniatures.py::test_miniature_is_caught[x]",
                   "slow"),
             _Item("tests/unit/test_vacuity.py::test_rule_can_fail[select.agrees]", "slow"),
             _Item("tests/miniatures/test_budget_miniatures.py::test_a"),
             _Item("tests/integration/test_js_planted_bugs.py::test_planted_bug_is_caught[x]",
                   "slow")]
    assert slow_catchers(items) == [items[0].nodeid, items[1].nodeid]
