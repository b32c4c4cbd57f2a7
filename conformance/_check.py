"""The entry point: check one implementation against the reference, as every face does (the
command line, the pytest plugin, a caller's own tests).

The way of a check reads top-down: :class:`CheckOptions` (validated once, :mod:`._options`, with
the :class:`RunSettings` a run derives from it) and what the user named
as the implementation become an adapter (:mod:`._adapters`); a :class:`Scheduler` runs the
searches of the engine (:mod:`._engine`) in this process or in worker processes
(:mod:`._parallel`); the results become a :class:`~._results.RunReport`, whose verdict every
renderer (:mod:`._reports`, :mod:`._matrix`) states.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeAlias, runtime_checkable

from . import _adapters
from ._engine import Engine, Replays
from ._errors import HarnessError
from ._options import _PYTHON, NOT_INVOKED, CheckOptions, RunSettings
from ._progress import Listener, listener
from ._protocol import StartResponse
from ._results import EARLY_STOPS, RuleResult, RunReport, group_byte_forms, group_refusals

__all__ = ["NOT_INVOKED", "CheckOptions", "Implementation", "RunSettings", "Scheduler", "check",
           "check_implementation"]


@runtime_checkable
class Implementation(Protocol):
    """What a Python implementation under test is (spec/protocol.md §8): an object answering
    the handshake and one request at a time."""

    def start(self) -> Mapping[str, Any]:
        """The handshake answer (spec/protocol.md §4.2)."""

    def run(self, op: str, input: Any) -> Any:
        """The output of operation ``op`` on ``input``; raise to answer ``errored``."""


#: What a check accepts as the implementation: an :class:`Implementation`, a zero-argument
#: factory of one, or a spec string (``python:MODULE:ATTR``, or a command line speaking
#: spec/protocol.md).
ImplementationLike: TypeAlias = "Implementation | Callable[[], Implementation] | str"


class Scheduler(Protocol):
    """Where the searches run: this process (:class:`Serial`) or worker processes
    (:class:`._parallel.Workers`)."""

    def handshake(self) -> StartResponse:
        """Start the implementation; its handshake (or the error it failed to start with)."""

    def check_ops(self, engine: Engine, names: Sequence[str]) -> list[RuleResult]:
        """The result of every rule of the operations ``names``, in order."""

    def finish(self) -> list[_adapters.AfterLastAnswer]:
        """At the end of a run: stop the implementation wherever the scheduler runs it, and
        say what each copy wrote after its last answer."""

    def close(self) -> None:
        """Stop every process the scheduler started."""


class Serial:
    """The searches in this process, one after the other, on one adapter."""

    def __init__(self, adapter: _adapters.Adapter) -> None:
        self.adapter = adapter

    def handshake(self) -> StartResponse:
        return self.adapter.start()

    def check_ops(self, engine: Engine, names: Sequence[str]) -> list[RuleResult]:
        return [result for name in names for result in engine.check_op(name)]

    def finish(self) -> list[_adapters.AfterLastAnswer]:
        self.adapter.stop()
        found = self.adapter.after_last_answer()
        return [] if found is None else [found]

    def close(self) -> None:
        self.adapter.stop()


def check(impl: ImplementationLike, options: CheckOptions, *,
          on_event: Listener | None = None,
          on_progress: Callable[[str, str], None] | None = None,
          replays: Replays | None = None) -> RunReport:
    """Check ``impl`` with ``options``: the one way every face runs a check.

    ``on_event`` hears how the searches go, as they go, under every ``jobs``: the events of
    :mod:`._progress` (``on_progress(op, message)`` is its deprecated form); ``replays`` keeps
    the traces of deterministic searches that found nothing so that a later check in the same
    run asks the recorded inputs again instead of drawing them (None: nothing kept).
    """
    on_event = listener(on_event, on_progress)
    started = time.perf_counter()
    started_at = time.time()
    begun = time.monotonic()
    run_seed = RunSettings.seed_for(options)
    adapter = options.adapter_for(impl)
    scheduler: Scheduler
    if options.jobs > 1:
        from ._parallel import Workers

        scheduler = Workers(impl, options)
    else:
        scheduler = Serial(adapter)
    try:
        handshake = scheduler.handshake()
        settings = RunSettings.resolve(options, handshake, started=begun, run_seed=run_seed)
        engine = Engine(adapter, settings, on_event=on_event,
                        replays=replays if options.jobs == 1 else None)
        results = scheduler.check_ops(engine, options.checked_ops)
        if not engine.cut_short or engine.cut_short in EARLY_STOPS:
            # A run that ran its course, or stopped at what it looked for: what the program
            # wrote after its last answer is judged with it. A run ended by a signal or
            # --max-time abandoned its program mid-answer: nothing after that is an answer.
            results = engine.judge_after_last_answers(results, scheduler.finish())
        if options.rules:
            results = [result for result in results if result.rule.id in options.rules]
        return RunReport(
            implementation=handshake.implementation_dict(), capabilities=settings.capabilities,
            results=group_byte_forms(group_refusals(results)), effort=options.effort,
            seed=run_seed, deterministic=options.deterministic,
            duration=time.perf_counter() - started, calls=engine.calls,
            allow_untested=options.allow_untested, cut_short=engine.cut_short,
            started_at=started_at, classes=engine.classes_met,
            invocation=settings.invocation(impl),
        )
    finally:
        if options.jobs > 1:
            adapter.stop()
        scheduler.close()


def check_implementation(
    impl: ImplementationLike,
    *,
    ops: Iterable[str] | None = _PYTHON["ops"],
    effort: str | None = None,
    max_examples: int | None = _PYTHON["max_examples"],
    seed: int | None = _PYTHON["seed"],
    deterministic: bool = _PYTHON["deterministic"],
    timeout: float = _PYTHON["timeout"],
    use_shell: bool = _PYTHON["shell"],
    database: str | Path | None = _PYTHON["database"],
    on_progress: Callable[[str, str], None] | None = None,
    on_event: Listener | None = None,
    allow_untested: bool = _PYTHON["allow_untested"],
    max_time: float | None = _PYTHON["max_time"],
    isolate: bool = _PYTHON["isolate"],
    exitfirst: bool = _PYTHON["exitfirst"],
    shrink: bool = _PYTHON["shrink"],
    stop_after: Iterable[str] = _PYTHON["stop_after"],
    jobs: int = _PYTHON["jobs"],
    shard: tuple[int, int] | None = _PYTHON["shard"],
    replays: Replays | None = None,
    rules: Iterable[str] = _PYTHON["rules"],
    examples: str | None = None,
    budget: str | None = None,
) -> RunReport:
    """Check ``impl`` against the reference and return the verdict on every rule.

    ``impl`` is an object with ``start()`` and ``run(op, input)``, a zero-argument factory of one,
    or a spec string: ``python:MODULE:ATTR``, or a command line started as a subprocess that speaks
    spec/protocol.md. ``effort`` names the effort of each operation search (``quick``,
    ``default``, ``thorough``: its number of examples; ``max_examples`` overrides the number;
    ``examples`` and ``budget`` are its old names, accepted with a DeprecationWarning). With
    ``deterministic`` (the default, for CI) the search is derandomized and uses no example
    database; otherwise ``seed`` (random when None) fixes it and failures are saved to
    ``database`` so the next run starts from them.

    ``max_time`` bounds the whole run in seconds (default :func:`default_max_time`): when it
    passes, the search ends, what was not judged is ``untested`` and the report says so
    (:attr:`RunReport.cut_short`). ``isolate`` (the default, as on the command line) runs a
    ``python:`` implementation in a worker process behind the protocol; ``isolate=False`` calls
    it in this process, fenced as an object passed directly is (spec/protocol.md §8).

    ``exitfirst`` ends the run at the first broken rule (``--exitfirst``); ``stop_after`` ends it
    once every rule it lists is broken (a test that only asks whether given rules break need not
    wait for the final round, which searches every family with nothing left to find). The rounds
    run until then are the same as a whole run's, so the rules found are too; the rules not yet
    settled are ``untested`` and :attr:`RunReport.cut_short` says why. ``shrink=False`` reports
    each failure as first found instead of shrinking it to a minimal counterexample: the same
    rules break and the verdict is the same, in a fraction of the time (a test that asks only
    whether rules break).

    ``jobs`` above 1 runs the family searches in that many worker processes, each with its own
    copy of ``impl`` (a spec string, or a class or factory worker processes can import): in
    deterministic mode the report is the one a single process gives, bar its duration
    (:mod:`._parallel`). ``calls`` then counts the requests of the searches one process would
    have run.

    ``on_event`` hears the check's progress as it goes, whatever ``jobs``: each search round
    begun (:class:`~._progress.SearchBegan`), the examples each family search judged so far
    (:class:`~._progress.ExamplesJudged`, a few times a second), each rule broken
    (:class:`~._progress.RuleBroken`), each operation's search ended
    (:class:`~._progress.SearchEnded`) and the implementation given up
    (:class:`~._progress.GivenUp`); :class:`~._progress.RunProgress` adds them up.
    ``on_progress(op, message)``, its older form, still hears each round's
    ``searching (N rule(s) broken so far)`` and each ``RULE: OUTCOME``, with a
    :class:`DeprecationWarning`.

    ``shard`` ``(K, N)`` checks slice K of N of ``ops`` (:func:`._shard.shard_ops`; the report
    records the slice, so that ``eventproof report --merge`` can tell a whole run from a part).

    A deterministic check replays the searches of earlier checks of the run that found nothing
    when given their ``replays`` (a :class:`~._engine.Replays` the caller owns): the same report
    and the same requests, without drawing the inputs again.
    """
    for old, value, why in (("examples", examples, "examples counts the inputs a search draws "
                             "(max_examples)"),
                            ("budget", budget, "budget names the budget profile only")):
        if value is None:
            continue
        warnings.warn(f"check_implementation({old}=...) is now effort=...: {why}",
                      DeprecationWarning, stacklevel=2)
        if effort is not None and effort != value:
            raise HarnessError(f"effort={effort!r} and {old}={value!r} disagree: pass effort "
                               "only")
        effort = value
    options = CheckOptions(
        ops=None if ops is None else tuple(ops), shard=shard,
        effort=effort or _PYTHON["effort"], max_examples=max_examples, seed=seed,
        deterministic=deterministic, timeout=timeout, use_shell=use_shell,
        database=None if database is None else Path(database), allow_untested=allow_untested,
        max_time=max_time, isolate=isolate, exitfirst=exitfirst, shrink=shrink,
        stop_after=frozenset(stop_after), jobs=jobs, rules=frozenset(rules))
    return check(impl, options, on_event=listener(on_event, on_progress), replays=replays)
