"""``eventproof bench``: how fast an implementation projects an event stream (docs/benchmark.md).

The protocol carries one ``project`` request per event (spec/protocol.md §5), so the command
sends a generated stream (:mod:`._workloads`) one event at a time and times it batch by batch;
every round builds the stream afresh, outside the timed batches. Beside the implementation it
measures three other subjects on the same events, so that its figure can be read:

- the reference, called directly in this process: what the Python reference itself costs;
- :class:`NoopImplementation` through the in-process path: the harness's own cost per request;
- a no-op program through the subprocess path: the protocol's own cost per request (encoding,
  schema checks, two pipes and a parse), which no implementation behind it can beat.

Figures are medians over rounds; MB/s counts the stream as compact UTF-8 JSON. ``--stream``
may be given more than once: the ``transcript`` and ``facts-256``/``facts-1k`` workloads are the
size of most real events, where a per-event cost shows (docs/benchmark.md).
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Final, NoReturn

import click
from eventproof.reference import DEFAULT_MAX_BYTES
from rich.console import JustifyMethod
from rich.table import Table
from rich.text import Text

from ._console import print_table
from ._model import FIT_STRATEGIES
from ._workloads import WORKLOAD_KINDS

#: The no-op implementation, in process.
NOOP_SPEC: Final = "python:eventproof.conformance._bench:NoopImplementation"
#: The no-op program: parses each request (any implementation must) and answers ``null``.
#: It imports nothing else so that it starts at once.
NOOP_SERVER_SOURCE: Final = """\
import json, sys
HANDSHAKE = (b'{"version":1,"implementation":{"name":"eventproof-noop-program",'
             b'"language":"python"},"capabilities":{"ops":["classify","project"],'
             b'"fitStrategy":"halving","variableMaxBytes":true}}\\n')
out = sys.stdout.buffer
for line in sys.stdin.buffer:
    request = json.loads(line)
    command = request.get("cmd")
    if command == "stop":
        break
    out.write(HANDSHAKE if command == "start" else b'{"seq":%d,"output":null}\\n' % request["seq"])
    out.flush()
"""
_DEFAULT_IMPL: Final = "python:eventproof.reference:Reference"
_MB: Final = 1_000_000


class NoopImplementation:
    """Answers every ``project`` with no line and every ``classify`` with ``"fact"``, unread.

    Its cost is the path's own: ``eventproof bench`` runs it beside the implementation so that
    the harness's share of a figure is visible. It is not conforming, and says so in its name.
    """

    def start(self) -> dict[str, Any]:
        return {
            "version": 1,
            "implementation": {"name": "eventproof-noop", "language": "python"},
            "capabilities": {"ops": ["classify", "project"], "fitStrategy": "halving",
                             "variableMaxBytes": True},
        }

    def run(self, op: str, input: Any) -> Any:
        if op == "project":
            return None
        if op == "classify":
            return "fact"
        raise NotImplementedError(f"the no-op implementation answers no {op!r} requests")


# -- measuring ----------------------------------------------------------------------------------


@dataclass
class Measurement:
    """One subject's rounds over the stream."""

    #: What was measured, for the table.
    subject: str
    #: How it was reached: ``direct call``, ``in process``, ``subprocess``.
    path: str
    events: int
    input_bytes: int
    #: Seconds each round took (the sum of its timed batches).
    rounds: list[float] = field(default_factory=list)
    #: How the requests were answered: ``line``, ``no line``, ``skipped``, ``errored``, ...
    answers: Counter[str] = field(default_factory=Counter)

    @property
    def seconds(self) -> float:
        return statistics.median(self.rounds)

    @property
    def events_per_second(self) -> float:
        return self.events / self.seconds

    @property
    def megabytes_per_second(self) -> float:
        return self.input_bytes / _MB / self.seconds

    @property
    def microseconds_per_event(self) -> float:
        return self.seconds / self.events * 1e6

    @property
    def failed(self) -> int:
        return sum(count for answer, count in self.answers.items()
                   if answer not in ("line", "no line"))


Answer = Callable[[Any], str]


def _batches(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def measure(subject: str, path: str, answer: Answer, build: Callable[[], list[Any]], *,
            batch: int, rounds: int, input_bytes: int) -> Measurement:
    """Time ``answer`` over every event of a freshly built stream, ``rounds`` times.

    ``answer(request_input)`` sends one ``project`` request and names the kind of answer.
    Only the batches are timed: building the stream and counting answers are not.
    """
    events = build()
    result = Measurement(subject, path, len(events), input_bytes)
    for round_index in range(rounds):
        if round_index:
            events = build()  # fresh strings every round: none was encoded before
        elapsed = 0.0
        for chunk in _batches(events, batch):
            inputs = [{"event": event, "includeLiveEvents": True, "maxBytes": DEFAULT_MAX_BYTES}
                      for event in chunk]
            kinds: list[str] = []
            started = time.perf_counter()
            for request in inputs:
                kinds.append(answer(request))
            elapsed += time.perf_counter() - started
            if round_index == 0:
                result.answers.update(kinds)
        result.rounds.append(elapsed)
    return result


def _adapter_answer(adapter: Any) -> Answer:
    from ._adapters import Crashed, Ok, Skipped, TimedOut
    from ._model import ImplErrored

    def answer(request: Any) -> str:
        response = adapter.run("project", request)
        if isinstance(response, Ok):
            return "no line" if response.output is None else "line"
        if isinstance(response, Skipped):
            return "skipped"
        if isinstance(response, ImplErrored):
            return "errored"
        if isinstance(response, Crashed):
            return "crashed"
        if isinstance(response, TimedOut):
            return "timed out"
        return "broke the protocol"

    return answer


def _reference_answer(fit: str) -> Answer:
    from eventproof.reference import InvalidInput, project_event

    def answer(request: Any) -> str:
        try:
            line = project_event(request["event"], include_live_events=True,
                                 max_bytes=request["maxBytes"], fit_strategy=fit)
        except InvalidInput:
            return "errored"
        return "no line" if line is None else "line"

    return answer


# -- the command --------------------------------------------------------------------------------


def _fail(message: str) -> NoReturn:
    from ._console import console as _console

    _console(stderr=True).print(Text.assemble(("error:", "bold red"), " ", message))
    sys.exit(2)


@contextmanager
def _user_errors() -> Iterator[None]:
    from ._errors import ImplementationError, ProtocolError

    try:
        yield
    except (ImplementationError, ProtocolError) as error:
        _fail(str(error))


def _through_adapter(adapter: Any, path: str, build: Callable[[], list[Any]], batch: int,
                     rounds: int, input_bytes: int) -> tuple[Measurement, str]:
    """Handshake, check that ``project`` is declared, measure, stop; returns the fit strategy.

    The subject is the name the implementation gives in its handshake.
    """
    try:
        handshake = adapter.start()
        if "project" not in handshake.capabilities.ops:
            raise click.UsageError(
                f"{adapter.description} does not declare the 'project' operation in its "
                "handshake, so there is nothing to benchmark; add it to capabilities.ops "
                "(spec/protocol.md §4.2)")
        result = measure(str(handshake.implementation.name), path, _adapter_answer(adapter),
                         build, batch=batch, rounds=rounds, input_bytes=input_bytes)
        return result, str(handshake.capabilities.fit_strategy)
    finally:
        adapter.stop()


def _document(measurement: Measurement, reference: Measurement | None) -> dict[str, Any]:
    """One subject's figures as ``bench --json`` writes them (the table's, unrounded)."""
    return {
        "subject": measurement.subject, "path": measurement.path,
        "events": measurement.events, "inputBytes": measurement.input_bytes,
        "roundSeconds": list(measurement.rounds), "medianSeconds": measurement.seconds,
        "eventsPerSecond": measurement.events_per_second,
        "megabytesPerSecond": measurement.megabytes_per_second,
        "microsecondsPerEvent": measurement.microseconds_per_event,
        "timesReference": (None if reference is None
                           else measurement.seconds / reference.seconds),
        "answers": dict(sorted(measurement.answers.items())),
        "failed": measurement.failed,
    }


def _table(results: Sequence[Measurement], reference: Measurement | None) -> Table:
    table = Table(title="project, one request per event (median round)", title_justify="left")
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("subject", "left"), ("path", "left"), ("events/s", "right"), ("MB/s", "right"),
        ("µs/event", "right"), ("x reference", "right"), ("answers", "left"))
    for name, justify in columns:
        table.add_column(name, justify=justify, overflow="fold", no_wrap=True)
    for result in results:
        relative = ("" if reference is None
                    else f"{result.seconds / reference.seconds:.2f}")
        answers = ", ".join(f"{count} {kind}" for kind, count in sorted(result.answers.items()))
        table.add_row(result.subject, result.path, f"{result.events_per_second:,.0f}",
                      f"{result.megabytes_per_second:,.1f}",
                      f"{result.microseconds_per_event:,.1f}", relative, answers)
    return table


@click.command()
@click.option("--impl", "impl", metavar="SPEC", default=None,
              help="The implementation to measure: 'python:MODULE:ATTR' (in process) or a "
                   "command line speaking spec/protocol.md. Default: the bundled reference.")
@click.option("--fit", type=click.Choice(FIT_STRATEGIES), default="halving", show_default=True,
              help="Fit strategy of the bundled reference when --impl is not given.")
@click.option("--stream", "streams", type=click.Choice(WORKLOAD_KINDS), multiple=True,
              default=("light",), show_default=True,
              help="The generated workload (docs/benchmark.md); repeat it for one table per "
                   "workload, e.g. --stream transcript --stream facts-256.")
@click.option("--events", type=click.IntRange(min=1), default=2000, show_default=True,
              help="Events in the stream.")
@click.option("--batch", type=click.IntRange(min=1), default=100, show_default=True,
              help="Requests timed together; the stream is rebuilt between rounds, untimed.")
@click.option("--rounds", type=click.IntRange(min=1), default=3, show_default=True,
              help="Passes over the stream; the table shows the median.")
@click.option("--scale", type=click.FloatRange(min=0, min_open=True), default=1.0,
              show_default=True, help="Factor on every text length of the stream.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the stream.")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=10.0, show_default=True,
              help="Seconds one request may take before the implementation is restarted.")
@click.option("--shell", "use_shell", is_flag=True,
              help="Start --impl through the shell (pipes, env assignments); off by default.")
@click.option("--no-baselines", is_flag=True,
              help="Measure only --impl (no reference, no no-op paths).")
@click.option("--json", "json_path", metavar="FILE", default=None,
              help="Also write every figure as JSON to FILE (unrounded, each round's seconds); "
                   "'-' writes it to stdout and the tables to stderr.")
def bench(impl: str | None, fit: str, streams: tuple[str, ...], events: int, batch: int,
          rounds: int, scale: float, seed: int, timeout: float, use_shell: bool,
          no_baselines: bool, json_path: str | None) -> None:
    """Measure events/s and MB/s of IMPL's project answers beside the reference and no-ops."""
    from ._console import console as _console

    console = _console(stderr=json_path == "-")
    spec = impl or (_DEFAULT_IMPL if fit == "halving"
                    else "python:eventproof.reference:maximal_reference")
    console.print(f"implementation: {spec}", markup=False)
    failed = 0
    documents = []
    for stream in dict.fromkeys(streams):
        missed, document = _bench_stream(
            console, spec, stream, events=events, batch=batch, rounds=rounds, scale=scale,
            seed=seed, timeout=timeout, use_shell=use_shell, no_baselines=no_baselines)
        failed += missed
        documents.append(document)
    if json_path is not None:
        _write_json(json_path, {
            "implementation": spec, "events": events, "batch": batch, "rounds": rounds,
            "scale": scale, "seed": seed, "python": sys.version.split()[0],
            "streams": documents})
    if failed:
        sys.exit(1)


def _write_json(path: str, document: dict[str, Any]) -> None:
    """``document`` as JSON to ``path`` ('-': stdout); an unwritable path is a usage error."""
    from pathlib import Path

    from ._json import dumps_json

    text = dumps_json(document, indent=2) + "\n"
    if path == "-":
        sys.stdout.write(text)
        return
    try:
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except OSError as error:
        _fail(f"--json {path}: cannot be written ({error.strerror or error}); give a writable "
              "file path")


def _bench_stream(console: Any, spec: str, stream: str, *, events: int, batch: int, rounds: int,
                  scale: float, seed: int, timeout: float, use_shell: bool,
                  no_baselines: bool) -> tuple[int, dict[str, Any]]:
    """One workload's table; answers how many of its requests to ``spec`` failed, and the
    workload's figures as ``--json`` writes them."""
    from ._adapters import SubprocessAdapter, adapter_for
    from ._workloads import build_workload, json_size

    def build() -> list[Any]:
        return build_workload(stream, events=events, seed=seed, scale=scale)

    input_bytes = json_size(build())
    console.print(f"\nstream {stream}: {events:,} events, {input_bytes / _MB:,.1f} MB as "
                  f"compact JSON; {rounds} round(s) in batches of {batch}", markup=False)
    results: list[Measurement] = []
    with _user_errors():
        adapter = adapter_for(spec, timeout=timeout, use_shell=use_shell)
        path = "in process" if spec.startswith("python:") else "subprocess"
        measured, declared_fit = _through_adapter(adapter, path, build, batch, rounds,
                                                  input_bytes)
        results.append(measured)
        reference = None
        if not no_baselines:
            reference = measure(f"reference ({declared_fit})", "direct call",
                                _reference_answer(declared_fit), build, batch=batch,
                                rounds=rounds, input_bytes=input_bytes)
            results.append(reference)
            noop = adapter_for(NOOP_SPEC, timeout=timeout)
            results.append(_through_adapter(noop, "in process", build, batch, rounds,
                                            input_bytes)[0])
            program = SubprocessAdapter([sys.executable, "-c", NOOP_SERVER_SOURCE],
                                        timeout=timeout, description="no-op program")
            results.append(_through_adapter(program, "subprocess", build, batch, rounds,
                                            input_bytes)[0])
    print_table(console, _table(results, reference))
    if measured.failed:
        console.print(
            f"{measured.failed} of {measured.events} requests to {spec} got no answer or an "
            "errored one, so its figures are not comparable; run `eventproof run --ops project "
            f"--impl {spec!r}` to see why.", markup=False)
    return measured.failed, {
        "stream": stream, "events": events, "inputBytes": input_bytes,
        "results": [_document(result, reference) for result in results]}
