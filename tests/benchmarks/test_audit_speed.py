"""The audit's speed and memory targets (docs/audit.md), outside the default test run:

- the audit of a facts-only log takes at most 3x, and of a naive (amplified) log at most 4x, the
  time of ``orjson.loads`` of the same lines (median of paired, interleaved rounds);
- auditing a 1 GiB naive log grows the process by at most 8x its largest line plus 100 bytes per
  digest of a distinct heavy value: the log is read a line at a time, never loaded.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from audit_speed import GIB, TARGETS, memory, speed, write_big_log, write_logs
from workloads import SETTINGS

pytest.importorskip("orjson")


def test_the_audit_is_within_its_speed_targets(tmp_path: Path) -> None:
    paths = write_logs(tmp_path, SETTINGS.events)
    figures = speed(paths, rounds=max(5, SETTINGS.rounds))
    for name, spread in figures.items():
        assert spread.median <= TARGETS[name], f"{name}: {spread.text()}"


def test_a_1_gib_log_is_audited_at_bounded_memory(tmp_path: Path) -> None:
    size, largest = write_big_log(tmp_path / "big.jsonl", GIB)
    figures = memory(tmp_path / "big.jsonl")
    assert figures["lines"] > 100_000
    grown = figures["peak"] - figures["baseline"]
    bound = 8 * largest + 100 * figures["digests"]
    assert grown <= bound, (f"grew {grown / 2**20:.0f} MiB auditing {size / GIB:.2f} GiB; the "
                            f"bound is {bound / 2**20:.0f} MiB")
