"""Paired, interleaved timing: every round runs every variant once, on fresh objects.

A shared machine drifts: another job starts, the clock of a core changes, the cache is cold
after a build. Two benchmarks measured one after the other, each over its own rounds, see
different machines, and the ratio of their medians carries that drift. Here every round runs
all variants back to back (in an order that rotates from round to round, so none is always
first), and a ratio is taken **within** a round, between times measured seconds apart; the
figure is the median of those per-round ratios, with their spread. Drift that lasts longer than
a round cancels out.

Each variant's input is built afresh before it runs (untimed), and the collector runs before
each timed call, so that no run reuses a string someone already encoded (CPython caches a
string's UTF-8 form) and none pays for the garbage of the one before.
"""

from __future__ import annotations

import gc
import statistics
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

Timer = Callable[[], float]


@dataclass(frozen=True)
class Variant:
    """One subject of a paired measurement: how to build its input and what is timed."""

    name: str
    #: Builds fresh input for one timed call (not timed).
    build: Callable[[], Any]
    #: The timed call.
    run: Callable[[Any], Any]


@dataclass
class Paired:
    """Times of every variant, round by round (``times[name][i]`` is round ``i``)."""

    times: dict[str, list[float]] = field(default_factory=dict)
    #: What each variant's last call returned (for the caller's checks).
    results: dict[str, Any] = field(default_factory=dict)

    def ratios(self, name: str, baseline: str) -> list[float]:
        """``name``'s time over ``baseline``'s, one ratio per round."""
        return [mine / base for mine, base in zip(self.times[name], self.times[baseline],
                                                   strict=True)]

    def median(self, name: str) -> float:
        return statistics.median(self.times[name])


# -- the subjects every comparison times --------------------------------------------------------


def project_stream(fit: str, reference: Any = None, *, include_live_events: bool = True
                   ) -> Callable[[Sequence[Any]], list[bytes]]:
    """A reference's whole projection of a stream: classify and project every event
    (``reference``: a module with ``classify_event`` and ``project_event``, by default
    :mod:`eventproof.reference`; another revision's, for a before/after comparison), live
    events opted in or, with ``include_live_events=False``, facts only."""
    if reference is None:
        import eventproof.reference as reference
    classify, project = reference.classify_event, reference.project_event

    def run(events: Sequence[Any]) -> list[bytes]:
        lines = []
        for event in events:
            classify(event)
            line = project(event, include_live_events=include_live_events, fit_strategy=fit)
            if line is not None:
                lines.append(line)
        return lines

    return run


def orjson_stream(events: Sequence[Any]) -> list[bytes]:
    """The baseline: each event serialized by ``orjson.dumps``."""
    return [orjson.dumps(event) for event in events]


def measure(variants: Sequence[Variant], *, rounds: int, warmup: int = 1,
            timer: Timer = time.process_time, batch: int | None = None) -> Paired:
    """Run every variant once per round, ``warmup`` unrecorded rounds first.

    With ``batch``, each variant's input is a sequence (a stream of events) and ``run`` takes a
    slice of it and answers a list: all inputs are built first, then the variants take turns
    batch by batch (``batch`` items each), so that two variants' times are never more than a
    batch apart; a variant's time for the round is the sum of its batches, and its result the
    concatenation of theirs. A burst of load on a shared machine then falls on both sides of a
    ratio instead of on one.
    """
    if rounds < 1:
        raise ValueError(f"rounds={rounds}: measure at least one round")
    if batch is not None and batch < 1:
        raise ValueError(f"batch={batch}: a batch holds at least one item")
    names = [variant.name for variant in variants]
    if len(set(names)) != len(names):
        raise ValueError(f"variant names repeat: {names}")
    paired = Paired({name: [] for name in names})
    for index in range(warmup + rounds):
        shift = index % len(variants)
        order = list(variants[shift:]) + list(variants[:shift])
        if batch is None:
            for variant in order:
                argument = variant.build()
                gc.collect()
                started = timer()
                result = variant.run(argument)
                elapsed = timer() - started
                if index >= warmup:
                    paired.times[variant.name].append(elapsed)
                paired.results[variant.name] = result
                del argument, result
            continue
        inputs = {variant.name: variant.build() for variant in order}
        lengths = {len(items) for items in inputs.values()}
        if len(lengths) != 1:
            raise ValueError(f"the variants' inputs differ in length: {sorted(lengths)}")
        totals = dict.fromkeys(names, 0.0)
        results: dict[str, list[Any]] = {name: [] for name in names}
        gc.collect()
        for start in range(0, lengths.pop(), batch):
            for variant in order:
                piece = inputs[variant.name][start:start + batch]
                started = timer()
                answer = variant.run(piece)
                totals[variant.name] += timer() - started
                results[variant.name].extend(answer)
        if index >= warmup:
            for name in names:
                paired.times[name].append(totals[name])
        paired.results.update(results)
        del inputs, results
    return paired


@dataclass(frozen=True)
class Spread:
    """The median of per-round ratios and how far the rounds strayed from it."""

    median: float
    low: float
    high: float
    q1: float
    q3: float
    rounds: int

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        ordered = sorted(values)
        if len(ordered) >= 2:
            q1, _, q3 = statistics.quantiles(ordered, n=4, method="inclusive")
        else:
            q1 = q3 = ordered[0]
        return cls(statistics.median(ordered), ordered[0], ordered[-1], q1, q3, len(ordered))

    def text(self) -> str:
        """``1.07x (IQR 1.05-1.09, range 1.01-1.14, 15 rounds)``."""
        return (f"{self.median:.2f}x (IQR {self.q1:.2f}-{self.q3:.2f}, "
                f"range {self.low:.2f}-{self.high:.2f}, {self.rounds} rounds)")


def peak_memory(build: Callable[[], Any], run: Callable[[Any], Any]) -> tuple[int, Any]:
    """Bytes ``run(build())`` allocated at its peak beyond its input, by tracemalloc.

    The input is built before tracing starts, so only what ``run`` itself holds at once counts
    (its result included, while it is alive).
    """
    argument = build()
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        result = run(argument)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, result
