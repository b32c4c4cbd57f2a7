"""The entry point: check one implementation against the reference, as every face does (the
command line, the pytest plugin, a caller's own tests).

The way of a check reads top-down: :class:`CheckOptions` (validated once) and what the user named
as the implementation become an adapter (:mod:`._adapters`); a :class:`Scheduler` runs the
searches of the engine (:mod:`._engine`) in this process or in worker processes
(:mod:`._parallel`); the results become a :class:`~._results.RunReport`, whose verdict every
renderer (:mod:`._reports`, :mod:`._matrix`) states.
"""

from __future__ import annotations

import math
import random
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import InitVar, dataclass, field, fields
from pathlib import Path
from typing import Any, Protocol, TypeAlias, runtime_checkable

from . import _adapters
from ._engine import EFFORTS, Engine, Replays, default_max_time
from ._errors import HarnessError
from ._model import Capabilities
from ._operations import OPERATIONS, OPS, RULES_BY_ID
from ._progress import Listener, listener
from ._protocol import StartResponse
from ._results import Invocation, RuleResult, RunReport, group_byte_forms, group_refusals
from ._settings import SETTINGS
from ._shard import shard_ops

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


#: The Python face's default of every setting (:data:`._settings.SETTINGS`), by name.
_PYTHON: dict[str, Any] = SETTINGS.defaults("python")


class _Unset(str):
    """A default no caller passed, told apart from the same value passed (by identity)."""


#: The effort of a check that names none.
_DEFAULT_EFFORT = _Unset(_PYTHON["effort"])


@dataclass(frozen=True, kw_only=True)
class CheckOptions:
    """Every setting of one check, typed, validated once, shared by the command line, the pytest
    plugin and :func:`check_implementation`. Each field's default, meaning and validation are
    its entry of :data:`._settings.SETTINGS`."""

    #: The operations to check (None: every operation), and the slice of them (``--shard K/N``).
    ops: tuple[str, ...] | None = _PYTHON["ops"]
    shard: tuple[int, int] | None = _PYTHON["shard"]
    #: The effort of each operation search, by name (``--effort``: quick, default, thorough),
    #: which sets its number of examples; ``max_examples`` overrides the number.
    effort: str = _DEFAULT_EFFORT
    max_examples: int | None = _PYTHON["max_examples"]
    #: A derandomized search (CI), or a seeded one (``seed``, random when None).
    deterministic: bool = _PYTHON["deterministic"]
    seed: int | None = _PYTHON["seed"]
    #: Seconds one request may take (``--timeout``).
    timeout: float = _PYTHON["timeout"]
    use_shell: bool = _PYTHON["shell"]
    #: Where a random search keeps the failing examples it found (None: nowhere).
    database: Path | None = _PYTHON["database"]
    allow_untested: bool = _PYTHON["allow_untested"]
    #: Seconds the whole run may take (None: :func:`~._engine.default_max_time`).
    max_time: float | None = _PYTHON["max_time"]
    #: A ``python:`` implementation runs in a worker process behind spec/protocol.md (as on the
    #: command line): on every face by default (spec/protocol.md §8). An object or factory
    #: passed directly runs in this process, fenced.
    isolate: bool = _PYTHON["isolate"]
    exitfirst: bool = _PYTHON["exitfirst"]
    #: Shrink each failure to a minimal counterexample (off: reported as first found).
    shrink: bool = _PYTHON["shrink"]
    stop_after: frozenset[str] = field(default_factory=lambda: frozenset(_PYTHON["stop_after"]))
    #: Worker processes for the searches (1: this process).
    jobs: int = _PYTHON["jobs"]
    #: Only these rules (``--rule``): their operations are searched, the run ends once all of
    #: them are broken, and the report holds them alone. Empty: every rule.
    rules: frozenset[str] = field(default_factory=lambda: frozenset(_PYTHON["rules"]))
    #: The old name of :attr:`effort`, accepted with a :class:`DeprecationWarning`.
    examples: InitVar[str | None] = None

    def __post_init__(self, examples: str | None) -> None:
        if examples is not None:
            warnings.warn("CheckOptions(examples=...) is now CheckOptions(effort=...): examples "
                          "counts the inputs a search draws (max_examples)", DeprecationWarning,
                          stacklevel=3)
            if self.effort is not _DEFAULT_EFFORT and self.effort != examples:
                raise HarnessError(f"effort={self.effort!r} and examples={examples!r} disagree: "
                                   "pass effort only")
            object.__setattr__(self, "effort", examples)
        if self.effort is _DEFAULT_EFFORT:
            object.__setattr__(self, "effort", str(_DEFAULT_EFFORT))
        for entry in SETTINGS.on("python"):  # every setting, each by its entry's own kind
            assert entry.python is not None
            entry.check(getattr(self, entry.python), "python")
        unknown = [op for op in self.ops or () if op not in OPS]
        if unknown:
            raise HarnessError(f"unknown operation(s) {', '.join(map(repr, unknown))}: "
                               f"use one of {', '.join(OPS)}")
        strangers = sorted(set(self.rules) - set(RULES_BY_ID))
        if strangers:
            import difflib

            close = difflib.get_close_matches(strangers[0], RULES_BY_ID, n=3)
            hint = f" Did you mean {', '.join(close)}?" if close else ""
            raise HarnessError(f"--rule {strangers[0]!r} is not a rule id.{hint} "
                               "`eventproof rules` lists them")
        strangers = sorted(set(self.stop_after) - set(RULES_BY_ID))
        if strangers:
            raise HarnessError(f"stop_after names unknown rule(s) "
                               f"{', '.join(map(repr, strangers))}: give rule ids as "
                               "`eventproof rules` lists them")

    @property
    def example_count(self) -> int:
        """Examples per operation search."""
        return self.max_examples if self.max_examples is not None else EFFORTS[self.effort]

    @property
    def checked_ops(self) -> tuple[str, ...]:
        """The operations this check searches, in run order."""
        wanted = self.ops if self.ops is not None else OPS
        chosen = wanted if self.shard is None else shard_ops(wanted, self.shard)
        if self.rules:
            chosen = tuple(op for op in chosen
                           if any(RULES_BY_ID[rule].op == op for rule in self.rules))
        return tuple(op.name for op in OPERATIONS if op.name in chosen)


#: The settings of a check that no rerun command states, each with the reason: every other
#: field of :class:`CheckOptions` is the :class:`~._results.Invocation` field of its name
#: (:meth:`RunSettings.invocation`; ``tests/unit/test_run_settings.py`` holds the two to this).
NOT_INVOKED: Mapping[str, str] = {
    "database": "a random search's store of failing examples, not how the run was asked for",
    "jobs": "a deterministic report is the same with any number of worker processes",
    "max_time": "a bound on the run's time; what it left untested the report says",
    "shrink": "the Python face's alone: the same rules break with the same verdict",
    "stop_after": "the Python face's alone: it ends the run, the rules broken stay broken",
}


@dataclass(frozen=True, kw_only=True)
class RunSettings:
    """One run's settings, derived once from its :class:`CheckOptions`: the options whole, and
    what the run resolved from them (the seed, the example database, when the run must end)
    and from the implementation's handshake (its capabilities and identity). The engine, every
    worker process of ``--jobs`` and the report's :class:`~._results.Invocation` read each
    setting here, never from a copy."""

    options: CheckOptions
    #: What the implementation declared (spec/protocol.md §4.2), and its handshake's key.
    capabilities: Capabilities
    identity: str
    #: The seed of a random search (None: derandomized).
    run_seed: int | None = None
    #: Where a random search keeps the failing examples it found (None: nowhere).
    database: Path | None = None
    #: When the run must end (``time.monotonic``), or None for no bound.
    deadline: float | None = None

    @classmethod
    def resolve(cls, options: CheckOptions, handshake: StartResponse, *, started: float,
                run_seed: int | None) -> RunSettings:
        """The settings of a run of ``options`` begun at ``started`` (``time.monotonic``),
        with ``run_seed``, on the implementation that answered ``handshake``."""
        max_time = (options.max_time if options.max_time is not None
                    else default_max_time(options.example_count, options.timeout))
        return cls(options=options, capabilities=handshake.capabilities,
                   identity=handshake.identity_key(), run_seed=run_seed,
                   database=None if options.deterministic else options.database,
                   deadline=None if math.isinf(max_time) else started + max_time)

    @staticmethod
    def seed_for(options: CheckOptions) -> int | None:
        """The seed a run of ``options`` searches with: None when derandomized, else the one
        given or a random one."""
        if options.deterministic:
            return None
        return options.seed if options.seed is not None else random.getrandbits(32)

    @property
    def stop_after(self) -> frozenset[str]:
        """The rules whose breaking ends the run: ``stop_after``'s and ``rules``'."""
        return frozenset(self.options.stop_after) | self.options.rules

    def invocation(self, impl: ImplementationLike) -> Invocation:
        """How this run was invoked, for the command that repeats it: each
        :class:`~._results.Invocation` field is the option of its name, but for the seed the
        run searched with, the rules in order, and ``isolate`` (only a spec string is ever
        isolated: an object passed in code ran here)."""
        resolved: dict[str, Any] = {
            "impl": impl if isinstance(impl, str) else None, "seed": self.run_seed,
            "rules": tuple(sorted(self.options.rules)),
            "isolate": self.options.isolate and isinstance(impl, str)}
        return Invocation(**{each.name: resolved[each.name] if each.name in resolved
                             else getattr(self.options, each.name)
                             for each in fields(Invocation)})


class Scheduler(Protocol):
    """Where the searches run: this process (:class:`Serial`) or worker processes
    (:class:`._parallel.Workers`)."""

    def handshake(self) -> StartResponse:
        """Start the implementation; its handshake (or the error it failed to start with)."""

    def check_ops(self, engine: Engine, names: Sequence[str]) -> list[RuleResult]:
        """The result of every rule of the operations ``names``, in order."""

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
    adapter = _adapters.adapter_for(impl, timeout=options.timeout, use_shell=options.use_shell,
                                    isolate=options.isolate)
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
