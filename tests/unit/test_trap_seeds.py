"""The language-trap and order-of-events wrong implementations are caught on every seed, not
only on the default one (tests/miniatures/test_trap_miniatures.py and
test_sequence_miniatures.py catch each on seed 0 in the default run; these are the searches that
run leaves out: ``nox -s slow``)."""

from __future__ import annotations

import pytest
from eventproof.reference import Reference
from helpers import conforms_on_a_quick_run
from miniatures.sequences import SEQUENCE_MINIATURES
from miniatures.traps import TRAP_MINIATURES

SLOW_SEEDS = (1, 2, 3)
CASES = [(wrong, op) for wrong, ops in TRAP_MINIATURES.items() for op in ops]


@pytest.mark.slow
@pytest.mark.parametrize("seed", SLOW_SEEDS)
@pytest.mark.parametrize(("wrong", "op"), CASES,
                         ids=[f"{wrong.__name__}-{op}" for wrong, op in CASES])
def test_every_seed_catches_each_trap(wrong: type[Reference], op: str, seed: int) -> None:
    """A quick search of ``op`` from any seed finds the port that falls into the trap."""
    assert not conforms_on_a_quick_run(wrong(), op, seed), (
        f"{wrong.__name__} conforms on a quick {op} run, seed {seed}")


@pytest.mark.slow
@pytest.mark.parametrize("seed", SLOW_SEEDS)
@pytest.mark.parametrize("wrong", SEQUENCE_MINIATURES,
                         ids=[wrong.__name__ for wrong in SEQUENCE_MINIATURES])
def test_every_seed_catches_each_order(wrong: type, seed: int) -> None:
    """A quick settle search from any seed finds the wrong account."""
    assert not conforms_on_a_quick_run(wrong(), "settle", seed), wrong.__name__
