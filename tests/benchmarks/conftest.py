"""Fixtures of the projection benchmarks (docs/benchmark.md).

The benchmarks run only when asked (``nox -s bench``, or ``pytest tests/benchmarks``); they are
not in the default test paths. Sizes and rounds come from the environment (see
``workloads.BenchSettings``) so that a quick look and a careful measurement use the same code.
The measuring apparatus they share (workloads, the paired measurement, the figures) lives in
tools/bench/, and these tests import it from there as its scripts do.
"""

from __future__ import annotations

import sys
from pathlib import Path

APPARATUS = Path(__file__).resolve().parents[2] / "tools" / "bench"
if str(APPARATUS) not in sys.path:
    sys.path.insert(0, str(APPARATUS))

import pytest  # noqa: E402
from workloads import SETTINGS, BenchSettings  # noqa: E402


@pytest.fixture(scope="session")
def settings() -> BenchSettings:
    """The sizes and rounds of this run (EVENTPROOF_BENCH_EVENTS, _SCALE, _ROUNDS)."""
    return SETTINGS
