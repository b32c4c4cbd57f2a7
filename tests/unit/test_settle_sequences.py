"""Settle as a state machine: the ``event-pairs`` family meets every ordered pair of event kinds
and every splice form in every turn state on every run, read back from the logs a quick search
asks."""

from __future__ import annotations

import pytest
from eventproof.conformance.selection.strategies.sequences import (
    KINDS,
    SPLICES,
    STATES,
    coverage,
    sequence_requests,
)
from helpers import quick_inputs


def test_the_family_alone_meets_every_pair_and_splice_state() -> None:
    """The built requests meet each of the len(KINDS)^2 ordered pairs and each splice kind in
    each of the four turn states."""
    record = coverage(sequence_requests())
    assert not record.missing()
    assert len(record.pairs) == len(KINDS) ** 2
    assert len(record.splices) == len(SPLICES) * len(STATES)


def test_the_record_sees_a_missing_pair() -> None:
    """A record of fewer logs names what it lacks: the coverage record can fail."""
    missing = coverage(sequence_requests()[:3]).missing()
    assert missing
    assert any(" then " in each for each in missing)
    assert any(" while " in each for each in missing)


@pytest.mark.parametrize("seed", [None, 1, 2])
def test_a_quick_settle_search_meets_every_pair_and_splice_state(seed: int | None) -> None:
    """A quick settle search, derandomized or from a seed, meets every pair and splice state."""
    assert not coverage(quick_inputs("settle", seed)).missing()
