"""The amplification table's byte counts (docs/benchmark.md): counts, not timings, so fast."""

from __future__ import annotations

import amplification
import pytest
from amplification import CHILDREN, Child, amplification_table, simulate

SMALL = (Child(2, 10, 3_000), Child(4, 10, 3_000), Child(8, 10, 3_000))


def test_facts_only_record_does_not_grow_with_the_child() -> None:
    """Facts only (b) writes the same bytes and lines for a 20-, 40- and 80-turn child."""
    rows = amplification_table(CHILDREN, verify_every=0)
    facts = {(row.facts.bytes, row.facts.lines) for row in rows}
    assert len(facts) == 1, [row.as_dict() for row in rows]
    (size, lines), = facts
    # Only the parent's facts: a few lines and the child's fixed-size final answer (x3).
    assert lines < 20
    assert size < 4 * amplification.FINAL_ANSWER_CHARS + 4096


def test_naive_record_grows_quadratically_and_live_record_stays_bounded() -> None:
    """(a) grows with the square of the child's turns; (c) lines never exceed maxBytes."""
    max_bytes = 16384
    rows = [simulate(child, max_bytes=max_bytes) for child in SMALL]
    naive = [row.naive.bytes for row in rows]
    # Doubling the turns doubles the updates and the transcript each carries.
    assert naive[1] > 3 * naive[0], naive
    assert naive[2] > 3 * naive[1], naive
    assert all(row.live.largest <= max_bytes for row in rows)
    assert rows[-1].naive.largest > max_bytes  # so the bound did apply
    assert len({(row.facts.bytes, row.facts.lines) for row in rows}) == 1


@pytest.mark.parametrize("max_bytes", [4096, 16384, 262144])
def test_counted_sizes_equal_the_reference_lines(max_bytes: int) -> None:
    """Every counted update size equals the real line the reference serializes and projects."""
    row = simulate(Child(5, 12, 5_000), max_bytes=max_bytes, verify_every=1)
    assert row.verified_lines == row.updates + 1  # each update, and the last one once more


def test_table_mentions_every_child() -> None:
    """The printed table has one row per child, with the seed's two reproductions first."""
    text = amplification.format_table(amplification_table(CHILDREN[:2], verify_every=0))
    assert "20 turns x 60 deltas, 20 KB" in text
    assert "40 turns x 150 deltas, 40 KB" in text
    assert text.count("\n") == 3
