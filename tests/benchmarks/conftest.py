"""Fixtures of the projection benchmarks (docs/benchmark.md).

The benchmarks run only when asked (``nox -s bench``, or ``pytest tests/benchmarks``); they are
not in the default test paths. Sizes and rounds come from the environment (see
``workloads.BenchSettings``) so that a quick look and a careful measurement use the same code.
"""

from __future__ import annotations

import pytest
from workloads import SETTINGS, BenchSettings


@pytest.fixture(scope="session")
def settings() -> BenchSettings:
    """The sizes and rounds of this run (EVENTPROOF_BENCH_EVENTS, _SCALE, _ROUNDS)."""
    return SETTINGS
