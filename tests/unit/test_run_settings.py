"""Every setting of a check has one owner on its way through a run: the engine, each worker
process of ``--jobs`` and the report's :class:`Invocation` read :class:`RunSettings`, made once
from :class:`CheckOptions`, so that no setting can be dropped or given another value between
them; every option either states itself in the invocation or says why it does not
(:data:`NOT_INVOKED`)."""

from __future__ import annotations

import dataclasses
import math
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest
from eventproof.conformance import HarnessError, _parallel, check_implementation
from eventproof.conformance._engine import Engine
from eventproof.conformance._model import Capabilities
from eventproof.conformance._operations import OPS, RULES_BY_ID
from eventproof.conformance._options import (
    NOT_INVOKED,
    CheckOptions,
    RunSettings,
    default_max_time,
)
from eventproof.conformance._protocol import Identity, StartResponse
from eventproof.conformance._reports import report_document
from eventproof.conformance._results import Invocation
from eventproof.conformance._settings import EFFORTS, SETTINGS
from eventproof.reference import Reference
from helpers import without_duration
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from miniatures.selection import LastMessageUnfiltered

RULE_IDS = sorted(RULES_BY_ID)

#: A value of every field of CheckOptions, defaults and others alike.
OPTION_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "ops": st.none() | st.lists(st.sampled_from(OPS), min_size=1, unique=True).map(tuple),
    "shard": st.none() | st.integers(1, 4).flatmap(
        lambda n: st.tuples(st.integers(1, n), st.just(n))),
    "effort": st.sampled_from(EFFORTS),
    "max_examples": st.none() | st.integers(1, 500),
    "deterministic": st.booleans(),
    "seed": st.none() | st.integers(0, 2**32),
    "timeout": st.floats(0.01, 100.0),
    "use_shell": st.booleans(),
    "database": st.none() | st.just(Path("examples-db")),
    "allow_untested": st.booleans(),
    "max_time": st.none() | st.floats(1.0, 1000.0) | st.just(math.inf),
    "isolate": st.booleans(),
    "exitfirst": st.booleans(),
    "shrink": st.booleans(),
    "stop_after": st.frozensets(st.sampled_from(RULE_IDS), max_size=3),
    "jobs": st.integers(1, 4),
    "rules": st.frozensets(st.sampled_from(RULE_IDS), max_size=3),
}

OPTIONS = st.fixed_dictionaries(OPTION_VALUES).map(lambda values: CheckOptions(**values))

HANDSHAKE = StartResponse(implementation=Identity(name="port", language="js"),
                          capabilities=Capabilities(ops=frozenset(OPS)))


def _option_names() -> set[str]:
    return {each.name for each in dataclasses.fields(CheckOptions)}


def _run_settings(options: CheckOptions) -> RunSettings:
    return RunSettings.resolve(options, HANDSHAKE, started=100.0,
                               run_seed=RunSettings.seed_for(options))


def test_every_option_is_drawn_here() -> None:
    """The options these tests draw are every field of CheckOptions, so a new one is drawn."""
    assert set(OPTION_VALUES) == _option_names()


def test_every_option_is_a_setting_of_the_table() -> None:
    """Every field of CheckOptions is the Python spelling of an entry of SETTINGS."""
    assert {entry.python for entry in SETTINGS.on("python")} == _option_names()


@settings(max_examples=60, deadline=None)
@given(OPTIONS)
def test_a_run_resolves_its_seed_database_and_deadline_from_the_options(
        options: CheckOptions) -> None:
    """A derandomized run has no seed and no database; a random one searches from the seed
    given (a random one otherwise) with the database given; the run ends ``max_time`` (or the
    default bound) after it began, or never for an infinite bound."""
    run = _run_settings(options)
    assert run.options is options
    assert run.capabilities == HANDSHAKE.capabilities
    assert run.identity == HANDSHAKE.identity_key()
    if options.deterministic:
        assert (run.run_seed, run.database) == (None, None)
    else:
        assert run.run_seed is not None
        assert options.seed is None or run.run_seed == options.seed
        assert run.database == options.database
    bound = (options.max_time if options.max_time is not None
             else default_max_time(options.example_count, options.timeout))
    assert run.deadline == (None if math.isinf(bound) else 100.0 + bound)
    assert run.stop_after == options.stop_after | options.rules


def test_every_option_is_invoked_or_says_why_not() -> None:
    """Each field of CheckOptions is an Invocation field of its name or is listed, with a
    reason, as stated by no rerun command; never both, and the list names only fields."""
    invoked = {each.name for each in dataclasses.fields(Invocation)} - {"impl"}
    assert invoked <= _option_names()
    assert set(NOT_INVOKED) <= _option_names()
    assert not invoked & set(NOT_INVOKED)
    assert invoked | set(NOT_INVOKED) == _option_names()
    assert all(reason for reason in NOT_INVOKED.values())


def _invocation_differences(derive: Callable[[RunSettings, Any], Invocation],
                            options: CheckOptions) -> list[str]:
    """The Invocation fields ``derive`` words otherwise than the run's settings."""
    run = _run_settings(options)
    invocation = derive(run, "node port.mjs")
    wanted: dict[str, Any] = {"impl": "node port.mjs", "seed": run.run_seed,
                              "rules": tuple(sorted(options.rules))}
    return [each.name for each in dataclasses.fields(Invocation)
            if getattr(invocation, each.name) != (wanted[each.name] if each.name in wanted
                                                  else getattr(options, each.name))]


@settings(max_examples=60, deadline=None)
@given(OPTIONS)
def test_the_invocation_states_every_option_as_the_run_took_it(options: CheckOptions) -> None:
    """Every Invocation field is the option of its name (the seed is the one the run searched
    with, the rules in order)."""
    assert _invocation_differences(RunSettings.invocation, options) == []


def _invocation_copied_by_hand(run: RunSettings, impl: Any) -> Invocation:
    """A wrong derivation: the invocation copied field by field, one option forgotten."""
    options = run.options
    return Invocation(impl=impl, use_shell=options.use_shell, ops=options.ops,
                      timeout=options.timeout, effort=options.effort,
                      max_examples=options.max_examples, seed=run.run_seed,
                      deterministic=options.deterministic, allow_untested=options.allow_untested,
                      shard=options.shard, rules=tuple(sorted(options.rules)),
                      isolate=options.isolate)


def test_an_option_forgotten_by_the_invocation_is_caught() -> None:
    """A hand copy that forgets ``exitfirst`` words an --exitfirst run as a whole one."""
    options = CheckOptions(exitfirst=True)
    assert _invocation_differences(_invocation_copied_by_hand, options) == ["exitfirst"]


def _engine_differences(engine_for: Callable[[RunSettings], Engine],
                        options: CheckOptions, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The settings a worker's engine (its task pickled as the pool sends it) reads otherwise
    than the driver's engine: every property of Engine, and the settings whole."""
    run = _run_settings(options)
    driver = Engine(cast(Any, None), run)
    task = _parallel._Task(settings=driver.settings, op="select", family="any", examples=1,
                           excluded=frozenset(), slot=0, number=1, remaining=None)
    sent = pickle.loads(pickle.dumps(task))
    monkeypatch.setattr(_parallel._WORKER, "adapter", object())
    monkeypatch.setattr(_parallel._WORKER, "engine", None)
    monkeypatch.setattr(_parallel._WORKER, "settings", None)
    worker = engine_for(sent.settings)
    names = ["settings", *(name for name, value in vars(Engine).items()
                           if isinstance(value, property))]
    differ = [name for name in names if getattr(worker, name) != getattr(driver, name)]
    if (worker.database is None) != (driver.database is None):
        differ.append("database")
    return differ


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(options=OPTIONS)
def test_a_workers_engine_reads_every_setting_the_drivers_does(
        options: CheckOptions, monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine a worker process makes for a task reads every setting as the driver's does:
    the run's settings arrive whole."""
    assert _engine_differences(_parallel._engine_for, options, monkeypatch) == []


def _engine_for_copied_by_hand(run: RunSettings) -> Engine:
    """A wrong worker: its engine's settings rebuilt from some of the run's, ``shrink``
    forgotten (as a hand-copied list of a worker's settings once could)."""
    options = run.options
    copied = CheckOptions(max_examples=options.example_count, effort=options.effort,
                          deterministic=options.deterministic, timeout=options.timeout,
                          exitfirst=options.exitfirst, stop_after=options.stop_after,
                          rules=options.rules, seed=options.seed, database=options.database)
    assert _parallel._WORKER.adapter is not None
    return Engine(_parallel._WORKER.adapter, dataclasses.replace(run, options=copied))


def test_a_setting_dropped_on_the_way_to_the_workers_is_caught(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker whose engine forgets ``shrink`` is told apart from the driver's."""
    differ = _engine_differences(_engine_for_copied_by_hand, CheckOptions(shrink=False),
                                 monkeypatch)
    assert "shrink" in differ


def _document(**options: Any) -> dict[str, Any]:
    return cast(dict[str, Any], without_duration(report_document(check_implementation(
        LastMessageUnfiltered, ops=("select",), max_examples=20, timeout=2.0, **options))))


def _wrong_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Worker processes forked with the wrong engine (shrink forgotten)."""

    def engine_for(run: RunSettings) -> Engine:
        if _parallel._WORKER.engine is None or _parallel._WORKER.settings != run:
            _parallel._WORKER.engine = _engine_for_copied_by_hand(run)
            _parallel._WORKER.settings = run
            _parallel._WORKER.states.clear()
            _parallel._WORKER.families.clear()
        return _parallel._WORKER.engine

    monkeypatch.setattr(_parallel, "_engine_for", engine_for)
    monkeypatch.setattr(_parallel, "_start_method", lambda: "fork")


@pytest.mark.parametrize("wrong", [False, True], ids=["workers", "workers-forgetting-shrink"])
def test_two_jobs_report_as_one_with_a_setting_only_workers_act_on(
        wrong: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """``shrink=False`` reaches the worker processes: two jobs report what one does (the
    counterexample as first found); workers that drop it report a shrunk one instead."""
    one = _document(jobs=1, shrink=False)
    if wrong:
        _wrong_workers(monkeypatch)
    two = _document(jobs=2, shrink=False)
    assert (two != one) is wrong
    if not wrong:
        assert _document(jobs=1) != one  # shrinking changes this report: the setting is seen


def test_the_options_are_checked_by_every_entry_of_the_table() -> None:
    """CheckOptions checks each field by its entry's kind: none is left out of a list."""
    for entry in SETTINGS.on("python"):
        if entry.kind is None:
            continue
        assert entry.python is not None
        with pytest.raises(HarnessError, match=f"^{entry.python}="):
            CheckOptions(**{entry.python: object()})


@pytest.mark.parametrize("ops", [(), []])
def test_a_check_of_no_operation_is_refused_before_it_runs(ops: Any) -> None:
    """``ops`` naming no operation would judge nothing: it is refused naming the value and the
    fix, on the options and on ``check_implementation``, as the command line refuses
    ``--ops ''``."""
    with pytest.raises(HarnessError, match=r"^ops=.* names no operation.*leave ops out"):
        CheckOptions(ops=ops)
    with pytest.raises(HarnessError, match=r"names no operation"):
        check_implementation(Reference, ops=ops)


def _options_copied_into_calls(source: str) -> list[str]:
    """Each call in ``source`` that is handed a field of a ``CheckOptions`` named ``options``
    (``f(timeout=options.timeout)``), as ``f:field``."""
    import ast

    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "attr", getattr(node.func, "id", "?"))
        for argument in [*node.args, *(keyword.value for keyword in node.keywords)]:
            if (isinstance(argument, ast.Attribute) and isinstance(argument.value, ast.Name)
                    and argument.value.id == "options" and name == "adapter_for"):
                found.append(f"{name}:{argument.attr}")
    return found


def test_an_implementation_is_started_under_its_options_in_one_place() -> None:
    """How the options start an implementation (timeout, shell, isolation) is
    ``CheckOptions.adapter_for``; no scheduler or face copies those fields into its own call,
    where one could be left behind."""
    root = Path(__file__).resolve().parents[2] / "conformance"
    copies = {str(path.relative_to(root)): found for path in sorted(root.rglob("*.py"))
              if (found := _options_copied_into_calls(path.read_text("utf-8")))}
    assert copies == {}
    # The finder finds such a copy (the shape every call site had).
    assert _options_copied_into_calls(
        "adapter_for(impl, timeout=options.timeout, use_shell=options.use_shell)") == [
        "adapter_for:timeout", "adapter_for:use_shell"]


def test_the_options_adapter_carries_every_option_that_starts_an_implementation() -> None:
    from eventproof.conformance._adapters import InProcessAdapter, IsolatedAdapter

    adapter = CheckOptions(timeout=3.5, use_shell=True).adapter_for("true")
    assert adapter.timeout == 3.5
    assert adapter._use_shell is True  # type: ignore[attr-defined]
    spec = "python:eventproof.reference:Reference"
    assert isinstance(CheckOptions(isolate=True).adapter_for(spec), IsolatedAdapter)
    assert isinstance(CheckOptions(isolate=False).adapter_for(spec), InProcessAdapter)
