"""The budget profile's figures (tools/bench/budget_figures.py): byte counts, not timings.

The seed's measured batches, naive (its defective behaviours, from tests/miniatures/budget.py)
against bounded (the reference): the naive bytes grow with the children's output, the bounded
ones do not, and the bounded details keep every task, output and reason.
"""

from __future__ import annotations

import functools

import budget_figures as bf
import pytest
from eventproof.reference import canonical_bytes

KiB = 1024


@functools.cache
def row(label: str) -> bf.Figure:
    """One row, made once per process (the live row takes seconds; the others do not)."""
    figure = bf.builders()[label]()
    assert figure.label == label, (figure.label, label)
    return figure


def table() -> dict[str, bf.Figure]:
    return {label: row(label) for label in bf.builders()}


def _bounded_details(records: list[dict[str, object]]) -> int:
    return len(canonical_bytes(bf.REFERENCE.run("details", {"records": records, **bf.DEFAULTS})))


@pytest.mark.parametrize(("batch", "bigger"), [
    (lambda: bf.answers_batch(200, 300_000), lambda: bf.answers_batch(200, 600_000)),
    (lambda: bf.control_batch(1000, 3000), lambda: bf.control_batch(1000, 30_000)),
    (lambda: bf.review_batch(20, 12_000), lambda: bf.review_batch(20, 120_000)),
    (lambda: bf.review_batch(200, 5_000), lambda: bf.review_batch(200, 50_000)),
], ids=["200x300KB", "1000-control", "20x12KB", "200x5KB"])
def test_bounded_details_do_not_depend_on_the_output_size(batch: object, bigger: object) -> None:
    """Ten times (twice, for 300 KB answers) the child output: the same bytes of details."""
    assert _bounded_details(batch()) == _bounded_details(bigger())  # type: ignore[operator]


def test_bounded_details_stay_within_the_budget_plus_floors_and_identity() -> None:
    """Every bounded row is at most 128 KiB plus about 400 bytes a record (floors, identity and
    member names), and keeps every task, output and reason."""
    for label, records in (("200 tasks x 300 KB answers", 200),
                           ("1,000 tasks, control-character output", 1000),
                           ("20 tasks x 12 KB", 20), ("200 tasks x 5 KB", 200)):
        figure = row(label)
        assert figure.bounded_bytes <= 128 * KiB + 400 * records, figure
        assert figure.bounded_note == "every record keeps its task, output and reason", figure


def test_naive_rows_reproduce_the_seed_defects() -> None:
    """The seed's orders of magnitude: tens of MiB for 200 x 300 KB (48.94 MiB measured there),
    MiB for 1,000 control-character tasks (9.13 MiB), half of 20 records without output, most of
    200 without a task, a live payload two orders of magnitude over the bounded one, a lane that
    never counts 600."""
    rows = table()
    assert rows["200 tasks x 300 KB answers"].naive_bytes > 40 * 1024 * KiB
    assert rows["1,000 tasks, control-character output"].naive_bytes > 8 * 1024 * KiB
    assert "9 of 20 lose their output" in rows["20 tasks x 12 KB"].naive_note
    assert "174 of 200 lose their task" in rows["200 tasks x 5 KB"].naive_note
    live = rows["600-task batch, live payload"]
    assert live.naive_bytes > 40 * live.bounded_bytes
    assert "1200 publishes" in live.naive_note
    lane = rows["600-task lane, 12 roster updates"]
    assert "never 600" in lane.naive_note
    assert lane.bounded_note == "header total [600]"


def test_live_publishes_are_bounded_by_the_elapsed_windows() -> None:
    """One publish per 100 ms of the batch (plus the flush), each roster within 48 KiB."""
    _, events = bf.live_timeline(600)
    publishes = bf.REFERENCE.run("publish", {"intervalMs": 100, "events": events})["publishes"]
    elapsed = events[-2]["at"] - events[0]["at"]
    assert len(publishes) <= elapsed // 100 + 2
    assert row("600-task batch, live payload").bounded_bytes <= len(publishes) * (48 * KiB
                                                                                      + 32)


def test_table_has_one_row_per_batch() -> None:
    text = bf.format_table(list(table().values()))
    assert text.count("\n") == len(table()) + 1
    assert "200 tasks x 300 KB answers" in text
