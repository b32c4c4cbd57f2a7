"""The benchmark workloads and settings.

The generators ship in the package (:mod:`eventproof.conformance._workloads`) so that
``eventproof bench`` runs the same streams; every one builds fresh objects on each call, and a
benchmark calls it in pedantic mode's ``setup`` (:func:`fresh`) so that every round serializes
strings nobody has encoded yet.

Sizes and rounds come from the environment:

- ``EVENTPROOF_BENCH_EVENTS``: events per stream (default 10000);
- ``EVENTPROOF_BENCH_SCALE``: factor on every text length (default 1.0);
- ``EVENTPROOF_BENCH_ROUNDS``: measured rounds of a whole-stream benchmark (default 5; the
  smaller benchmarks run twice as many).
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from eventproof.conformance._workloads import (
    BIG_UPDATE_CHARS,
    DEFAULT_EVENTS,
    STREAM_KINDS,
    TEXT_KINDS,
    WORKLOAD_KINDS,
    build_stream,
    build_workload,
    child_transcript,
    corpus,
    fresh_text,
    json_size,
    live_update,
    sized_events,
    text_of_size,
)

__all__ = [
    "BIG_UPDATE_CHARS",
    "DEFAULT_EVENTS",
    "SETTINGS",
    "STREAM_KINDS",
    "TEXT_KINDS",
    "WORKLOAD_KINDS",
    "BenchSettings",
    "build_stream",
    "build_workload",
    "child_transcript",
    "corpus",
    "fresh",
    "fresh_text",
    "json_size",
    "live_update",
    "sized_events",
    "text_of_size",
]


def _env_number(name: str, default: float, kind: type[int] | type[float]) -> Any:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise pytest.UsageError(
            f"{name}={raw!r} is not a {kind.__name__}; set it to a positive number or unset it"
        ) from None
    if value <= 0:
        raise pytest.UsageError(f"{name}={raw!r} must be positive; set a positive number")
    return value


@dataclass(frozen=True)
class BenchSettings:
    """How big the workloads are and how often each is measured."""

    events: int
    scale: float
    rounds: int

    @property
    def small_rounds(self) -> int:
        """Rounds of the single-update and single-size benchmarks (cheaper, so more of them)."""
        return 2 * self.rounds


SETTINGS = BenchSettings(
    events=_env_number("EVENTPROOF_BENCH_EVENTS", DEFAULT_EVENTS, int),
    scale=_env_number("EVENTPROOF_BENCH_SCALE", 1.0, float),
    rounds=_env_number("EVENTPROOF_BENCH_ROUNDS", 5, int),
)


def fresh(build: Callable[[], Any]) -> Callable[[], tuple[tuple[Any, ...], dict[str, Any]]]:
    """A pedantic ``setup``: build fresh arguments, then collect garbage.

    Each round gets objects nobody has serialized yet (CPython caches a string's UTF-8 form on
    first encode), and starts from the same collector state, so the previous round's garbage is
    not charged to this one.
    """

    def setup() -> tuple[tuple[Any, ...], dict[str, Any]]:
        value = build()
        gc.collect()
        return (value,), {}

    return setup
