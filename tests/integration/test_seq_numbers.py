"""Every run request of a run has a seq of its own, increasing in each program that gets them
(spec/protocol.md §5.1), whatever the scheduler: under ``--jobs`` the worker processes number
their requests from one shared count, so no two programs of a run see the same seq."""

from __future__ import annotations

import shlex
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from eventproof.conformance import check_implementation

PROGRAM = Path(__file__).resolve().parent / "programs" / "reference_port.py"


@pytest.mark.parametrize("jobs", [1, 2])
def test_every_run_request_of_a_run_has_its_own_seq(tmp_path: Path, jobs: int) -> None:
    log = tmp_path / "seqs"
    report = check_implementation(shlex.join([sys.executable, str(PROGRAM), "", "stop", str(log)]),
                                  ops=["classify", "select"], max_examples=20, jobs=jobs)
    assert report.verdict.conforms
    sent = [tuple(map(int, line.split())) for line in log.read_text("ascii").splitlines()]
    seqs = [seq for _, seq in sent]
    assert len(seqs) == len(set(seqs)), "a seq was sent twice in one run"
    by_program: dict[int, list[int]] = defaultdict(list)
    for pid, seq in sent:
        by_program[pid].append(seq)
    assert len(by_program) == jobs  # each worker's own program
    for numbers in by_program.values():
        assert numbers == sorted(numbers), "a program saw its seqs out of order"
