"""Projection throughput against plain serialization of the same events (docs/benchmark.md).

pytest-benchmark times each subject on its own, for ``--benchmark-compare`` between two runs of
the same machine; the published ratios come from ``run.py``, which interleaves the subjects
within each round (docs/benchmark.md). Every round serializes fresh objects (pedantic
``setup``). The only assertions are counts: how many serializations the backstop made
(spec/wire.md §5.5-5.6), never how long anything took.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import pytest

pytest.importorskip("pytest_benchmark")
orjson = pytest.importorskip("orjson")

from eventproof.reference import (  # noqa: E402
    DEFAULT_MAX_BYTES,
    MARKER,
    canonical_bytes,
)
from eventproof.reference._backstop import (  # noqa: E402
    BoundStats,
    bound_live_update,
    extract_text,
)
from paired import orjson_stream, project_stream  # noqa: E402
from workloads import (  # noqa: E402
    WORKLOAD_KINDS,
    BenchSettings,
    build_workload,
    fresh,
    json_size,
    live_update,
    sized_events,
    text_of_size,
)

KiB, MiB = 1024, 1024 * 1024
#: The whole projection: the reference with each fit strategy.
REFERENCE_SUBJECTS = ("reference-halving", "reference-maximal")
#: What plain serialization of the same events costs (the physical limit of writing them).
BASELINE_SUBJECTS = ("orjson", "json", "orjson-lines")
#: Backstop inputs of 1 MiB (UTF-8, before escaping) per text kind.
BACKSTOP_KINDS = ("ascii", "cjk", "emoji", "nul", "control")
BACKSTOP_SUBJECTS = ("halving", "maximal", "halving-clear", "maximal-clear", "orjson-update")
#: Input sizes of the linearity figure; maxBytes is below all of them so the bound always applies.
LINEARITY_SIZES = (128 * KiB, 512 * KiB, 2 * MiB, 8 * MiB)
LINEARITY_MAX_BYTES = 64 * KiB
#: Event sizes of the throughput plot (tool output facts, never bounded).
EVENT_SIZES = (256, KiB, 4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, MiB)
EVENT_SIZE_BYTES_PER_ROUND = 4 * MiB
EVENT_SIZE_SUBJECTS = ("reference", "orjson", "json")


# -- what is timed ---------------------------------------------------------------------------------


def json_stream(events: Sequence[Any]) -> list[bytes]:
    # A writer writes bytes, so the encode is part of the cost.
    return [json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            for event in events]


# -- cached per configuration (never timed) --------------------------------------------------------


@lru_cache(maxsize=8)
def stream_facts(kind: str, events: int, scale: float) -> dict[str, Any]:
    """The stream's size, its projected lines and how its events reach the canonical form."""
    stream = build_workload(kind, events=events, scale=scale)
    lines = tuple(project_stream("halving")(stream))
    return {
        "input_bytes": json_size(stream),
        "lines": lines,
        "events_with_floats": sum(1 for event in stream if _has_float(event)),
    }


def _has_float(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float):
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _stream_setup(subject: str, kind: str, settings: BenchSettings) -> Callable[[], Any]:
    if subject == "orjson-lines":
        lines = stream_facts(kind, settings.events, settings.scale)["lines"]
        # Parsing builds fresh strings: the values of exactly the lines the reference writes.
        return fresh(lambda: [json.loads(line) for line in lines])
    # orjson refuses lone surrogates outright, so the baselines serialize the same stream with
    # each one replaced by U+FFFD, which is what the canonical form writes (wire.md §6.1).
    well_formed = subject not in REFERENCE_SUBJECTS
    return fresh(lambda: build_workload(kind, events=settings.events, scale=settings.scale,
                                        well_formed=well_formed))


STREAM_TARGETS: dict[str, Callable[[Sequence[Any]], list[bytes]]] = {
    "reference-halving": project_stream("halving"),
    "reference-maximal": project_stream("maximal"),
    "orjson": orjson_stream,
    "json": json_stream,
    "orjson-lines": orjson_stream,
}


# -- (a) whole streams -----------------------------------------------------------------------------


@pytest.mark.parametrize("subject", REFERENCE_SUBJECTS + BASELINE_SUBJECTS)
@pytest.mark.parametrize("kind", [
    pytest.param(kind, marks=pytest.mark.benchmark(group=f"stream-{kind}"))
    for kind in WORKLOAD_KINDS
])
def test_stream(benchmark: Any, settings: BenchSettings, kind: str, subject: str) -> None:
    """The whole projection of a stream, or plain serialization of the same stream (a ratio)."""
    facts = stream_facts(kind, settings.events, settings.scale)
    setup = _stream_setup(subject, kind, settings)
    lines = benchmark.pedantic(STREAM_TARGETS[subject], setup=setup, rounds=settings.rounds)
    marker = json.dumps(MARKER, ensure_ascii=False)[1:-1].encode("utf-8")
    benchmark.extra_info.update({
        "figure": "stream", "stream": kind, "subject": subject, "events": settings.events,
        "scale": settings.scale, "input_bytes": facts["input_bytes"],
        "output_bytes": sum(len(line) for line in lines), "output_lines": len(lines),
        "bounded_lines": sum(1 for line in lines if marker in line and line.startswith(
            b'{"type":"tool_execution_update"')),
        "events_with_floats": facts["events_with_floats"],
    })
    if subject.startswith("reference"):
        bounded = [line for line in lines if line.startswith(b'{"type":"tool_execution_update"')]
        assert all(len(line) <= DEFAULT_MAX_BYTES for line in bounded)


# -- (b) the backstop alone on 1 MiB texts ---------------------------------------------------------


def _serialization_bound(strategy: str, n: int) -> int:
    """The most serializations a strategy may make for a text of n code points (wire.md §5.6)."""
    if strategy in ("halving", "maximal"):
        return 2  # the empty-tail line, then the answer (or the search's own last line)
    if strategy == "halving-clear":
        return (math.floor(math.log2(n)) if n else 0) + 2  # n, n/2, ..., 1, 0
    return math.ceil(math.log2(n + 1)) + 1  # binary search over [0, n], then the answer


def _bound_target(strategy: str, max_bytes: int,
                  record: list[BoundStats]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    fit, _, method = strategy.partition("-")
    method = method or "fast"

    def run(update: dict[str, Any]) -> dict[str, Any]:
        stats = BoundStats()
        record.append(stats)
        return bound_live_update(update, max_bytes=max_bytes, fit_strategy=fit, stats=stats,
                                 method=method)

    return run


def _check_and_record(benchmark: Any, strategy: str, update: dict[str, Any], form: Any,
                      record: list[BoundStats], max_bytes: int) -> None:
    n = len(extract_text(update["partialResult"]))
    counts = {stats.serializations for stats in record}
    assert len(counts) == 1, f"rounds made different numbers of serializations: {counts}"
    (serializations,) = counts
    assert serializations <= _serialization_bound(strategy, n), record[-1].candidates
    assert len(canonical_bytes(form)) <= max_bytes
    tail = len(form["partialResult"]["content"][0]["text"]) - len(MARKER)
    benchmark.extra_info.update({
        "serializations": serializations, "serialization_bound": _serialization_bound(strategy, n),
        "code_points": n, "tail_code_points": tail, "candidates": record[-1].candidates,
    })


@pytest.mark.benchmark(group="backstop-1MiB")
@pytest.mark.parametrize("subject", BACKSTOP_SUBJECTS)
@pytest.mark.parametrize("text_kind", BACKSTOP_KINDS)
def test_backstop(benchmark: Any, settings: BenchSettings, text_kind: str, subject: str) -> None:
    """The backstop on one 1 MiB update, with the number of serializations it made."""
    benchmark.extra_info.update({"figure": "backstop", "text_kind": text_kind,
                                 "subject": subject, "text_bytes": MiB,
                                 "max_bytes": DEFAULT_MAX_BYTES})
    _bound_one_update(benchmark, settings, subject, lambda: live_update(text_kind, MiB),
                      DEFAULT_MAX_BYTES)


def _bound_one_update(benchmark: Any, settings: BenchSettings, subject: str,
                      make_update: Callable[[], dict[str, Any]], max_bytes: int) -> None:
    """Time ``subject`` on fresh copies of one update: a plain orjson serialization of it
    (``orjson-update``), or the backstop, whose answer and serializations are then checked."""
    setup = fresh(make_update)
    if subject == "orjson-update":  # one plain serialization of the whole update
        benchmark.pedantic(orjson.dumps, setup=setup, rounds=settings.small_rounds,
                           warmup_rounds=1)
        return
    record: list[BoundStats] = []
    form = benchmark.pedantic(_bound_target(subject, max_bytes, record), setup=setup,
                              rounds=settings.small_rounds, warmup_rounds=1)
    _check_and_record(benchmark, subject, make_update(), form, record, max_bytes)


# -- (c) linearity ---------------------------------------------------------------------------------


@pytest.mark.benchmark(group="backstop-linearity")
@pytest.mark.parametrize("subject", ["halving", "maximal", "orjson-update"])
@pytest.mark.parametrize("size", LINEARITY_SIZES)
def test_backstop_linearity(benchmark: Any, settings: BenchSettings, size: int,
                            subject: str) -> None:
    """The backstop's cost over four input sizes: time per byte must not grow (linear)."""
    benchmark.extra_info.update({"figure": "linearity", "subject": subject, "size": size,
                                 "text_bytes": len(text_of_size("tool-output", size)
                                                   .encode("utf-8")),
                                 "max_bytes": LINEARITY_MAX_BYTES})
    _bound_one_update(benchmark, settings, subject, lambda: live_update("tool-output", size),
                      LINEARITY_MAX_BYTES)


# -- (d) throughput against event size -------------------------------------------------------------


EVENT_SIZE_TARGETS: dict[str, Callable[[Sequence[Any]], list[bytes]]] = {
    "reference": project_stream("halving"),
    "orjson": orjson_stream,
    "json": json_stream,
}


@pytest.mark.benchmark(group="event-size")
@pytest.mark.parametrize("subject", EVENT_SIZE_SUBJECTS)
@pytest.mark.parametrize("size", EVENT_SIZES)
def test_event_size(benchmark: Any, settings: BenchSettings, size: int, subject: str) -> None:
    """Projection of facts of one size next to plain serialization (the throughput plot)."""
    count = max(4, EVENT_SIZE_BYTES_PER_ROUND // size)
    setup = fresh(lambda: sized_events(size, count))
    lines = benchmark.pedantic(EVENT_SIZE_TARGETS[subject], setup=setup,
                               rounds=settings.small_rounds, warmup_rounds=1)
    input_bytes = json_size(sized_events(size, count))
    benchmark.extra_info.update({
        "figure": "event-size", "subject": subject, "size": size, "events": count,
        "input_bytes": input_bytes, "output_bytes": sum(len(line) for line in lines),
    })
    assert len(lines) == count
