"""Wrong accounts of consumed work that only an order of events shows (tests/miniatures/
sequences.py) are caught by a quick settle search on every seed."""

from __future__ import annotations

import pytest
from helpers import conforms_on_a_quick_run

from miniatures.sequences import SEQUENCE_MINIATURES

DEFAULT_SEEDS = (0,)
each = pytest.mark.parametrize("wrong", SEQUENCE_MINIATURES,
                               ids=[wrong.__name__ for wrong in SEQUENCE_MINIATURES])


@pytest.mark.parametrize("seed", DEFAULT_SEEDS)
@each
def test_a_quick_settle_search_catches_each_order(wrong: type, seed: int) -> None:
    """A quick settle search from seed 0 finds the wrong account."""
    assert not conforms_on_a_quick_run(wrong(), "settle", seed), wrong.__name__
