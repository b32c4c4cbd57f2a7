"""The audit's speed and memory (docs/audit.md, docs/benchmark.md), outside the default test run.

Speed is a benchmark, never a pass or a fail: pytest-benchmark times the pair (``orjson.loads``
of a log's lines, and the audit of the same log) each on its own, for ``--benchmark-compare``
between two runs of one machine; the ratio that the goal speaks of (the audit at most 2x the
time of ``orjson.loads`` of the same lines) is measured in one run, in paired interleaved rounds
(tools/bench/paired.py), and kept in the benchmark's ``extra_info``. Memory is a bound:
auditing a 1 GiB naive log grows the process by at most 8x its largest line plus 100 bytes per
digest of a distinct heavy value (the log is read a line at a time, never loaded).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pytest_benchmark")
pytest.importorskip("orjson")

from audit_speed import GIB, GOAL, SUBJECTS, memory, speed, write_big_log, write_logs
from workloads import SETTINGS, BenchSettings

LOGS = ("facts-only", "naive")


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The light workload written facts-only and naively, once for the module."""
    return write_logs(tmp_path_factory.mktemp("audit-logs"), SETTINGS.events)


@pytest.mark.parametrize("subject", ["orjson.loads", "audit"])
@pytest.mark.parametrize("log", [
    pytest.param(log, marks=pytest.mark.benchmark(group=f"audit-{log}")) for log in LOGS
])
def test_audit_pair(benchmark: Any, settings: BenchSettings, logs: dict[str, Path], log: str,
                    subject: str) -> None:
    """The audit of a log, or orjson.loads of its lines: both read every line once."""
    path = logs[log]
    lines = benchmark.pedantic(SUBJECTS[subject], args=(path,), rounds=settings.rounds)
    benchmark.extra_info.update({"figure": "audit", "log": log, "subject": subject,
                                 "bytes": path.stat().st_size, "lines": lines})
    assert lines == sum(1 for _ in path.open("rb"))


@pytest.mark.benchmark(group="audit-ratio")
@pytest.mark.parametrize("log", LOGS)
def test_audit_ratio(benchmark: Any, settings: BenchSettings, logs: dict[str, Path],
                     log: str) -> None:
    """The audit's time over orjson.loads's of the same lines, the median of paired interleaved
    rounds (fresh objects every round), recorded against the goal, not asserted."""
    figures = benchmark.pedantic(speed, args=({log: logs[log]}, max(5, settings.rounds)),
                                 rounds=1, iterations=1)[log]
    spread = figures["audit"]
    benchmark.extra_info.update({
        "figure": "audit-ratio", "log": log, "goal": GOAL, "median": spread.median,
        "q1": spread.q1, "q3": spread.q3, "low": spread.low, "high": spread.high,
        "rounds": spread.rounds, "within_goal": spread.median <= GOAL, "text": spread.text()})
    print(f"\naudit of the {log} log: {spread.text()} the time of orjson.loads (goal "
          f"{GOAL:.0f}x)")


def test_a_1_gib_log_is_audited_at_bounded_memory(tmp_path: Path) -> None:
    """Auditing a 1 GiB naive log grows the process by at most 8x its largest line plus 100
    bytes per digest of a distinct heavy value."""
    size, largest = write_big_log(tmp_path / "big.jsonl", GIB)
    figures = memory(tmp_path / "big.jsonl")
    assert figures["lines"] > 100_000
    grown = figures["peak"] - figures["baseline"]
    bound = 8 * largest + 100 * figures["digests"]
    assert grown <= bound, (f"grew {grown / 2**20:.0f} MiB auditing {size / GIB:.2f} GiB; the "
                            f"bound is {bound / 2**20:.0f} MiB")
