"""Ports that fall into a language trap (docs/port-checklist.md, "Traps every run plants") are
caught by a quick search of each operation they answer wrongly, on every seed.

The default run asks the first operation of each trap; the others run under ``-m slow``
(``helpers.tiered``), as the other seeds do (test_trap_seeds.py). That the trap is planted in
every one of those operations, with an answer the misreading changes, is what the plan check
holds (``python -m tools.trap_build --check``, in ``nox -s spec``)."""

from __future__ import annotations

import pytest
from eventproof.reference import Reference
from helpers import conforms_on_a_quick_run, tiered

from miniatures.traps import TRAP_MINIATURES

DEFAULT_SEEDS = (0,)
CASES = [(wrong, op) for wrong, ops in TRAP_MINIATURES.items() for op in ops]
each_case = pytest.mark.parametrize(("wrong", "op"), tiered(
    CASES, key=lambda wrong, op: wrong.__name__, variant=lambda wrong, op: op))


def _assert_caught(wrong: type[Reference], op: str, seed: int) -> None:
    assert not conforms_on_a_quick_run(wrong(), op, seed), (
        f"{wrong.__name__} conforms on a quick {op} run, seed {seed}")


@pytest.mark.parametrize("seed", DEFAULT_SEEDS)
@each_case
def test_a_quick_search_catches_each_trap(wrong: type[Reference], op: str, seed: int) -> None:
    """A quick search of ``op`` from seed 0 finds the port that falls into the trap."""
    _assert_caught(wrong, op, seed)
