"""Running one check on several cores, or one slice of it per machine.

A check is made of family searches: for each operation, rounds of searches of its input families
in order, a round ending at the first family that finds a violation (:class:`._engine.OpSearch`).
In deterministic mode a family search is a function of the implementation, the operation, the
family, its budget and the rules set aside, so it can run in any process.

- :class:`Workers` runs the family searches of every selected operation in ``jobs`` worker
  processes (``--jobs``), each with its own copy of the implementation, started once. This
  process drives the rounds: it runs every family of an operation's round at once, *ahead* of
  knowing whether the earlier families find something, and counts the searches in family order
  up to the first that found a violation, exactly those one process would have run; the later
  families' work is dropped (and stopped, if still under way). So the verdicts, counterexamples,
  coverage and notes are those of one process. What one process carries from one search to the
  next about a *hanging* implementation (a shorter deadline after a first hang, an input that
  hung is not sent again) stays in each worker, so a hanging implementation may see other
  deadlines, and an implementation that can no longer be restarted is given up on in one
  worker at a time.
- :func:`shard_ops` picks the operations of slice ``K/N`` (``--shard``): a CI matrix of N jobs
  checks one slice each, and ``eventproof report --merge`` joins their JSON reports. A slice
  holds whole operations: an operation's rounds need one driver.
"""

from __future__ import annotations

import atexit
import multiprocessing
import pickle
import signal
import time
from collections.abc import Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from pathlib import Path
from types import FrameType
from typing import Any

from hypothesis.database import DirectoryBasedExampleDatabase

from . import _adapters
from ._engine import (
    INTERRUPTED_REASON,
    Abandoned,
    Engine,
    FamilySearch,
    OpSearch,
    RuleResult,
    RunReport,
    _OpState,
    check_implementation,
)
from ._errors import HarnessError
from ._model import Capabilities, Family
from ._operations import OPS, operation

#: Rough relative cost of each operation's search, for balancing the slices of ``--shard`` and
#: for starting the heaviest operations' searches first under ``--jobs`` (project holds the
#: byte-bound families and is the heaviest by far).
_WEIGHT = {"project": 6, "settle": 2, "details": 2, "select": 1, "fold": 1, "classify": 1,
           "roster": 1, "lane": 1, "publish": 1}


def parse_shard(value: str) -> tuple[int, int]:
    """``"2/3"`` -> ``(2, 3)``; :class:`HarnessError` naming the value otherwise."""
    index, _, total = value.partition("/")
    try:
        k, n = int(index), int(total)
    except ValueError:
        k, n = 0, 0
    if not (n >= 1 and 1 <= k <= n):
        raise HarnessError(f"--shard {value!r} is not K/N with 1 <= K <= N (e.g. --shard 1/3): "
                           "give the slice number and the number of slices")
    return k, n


def split_ops(ops: tuple[str, ...], parts: int) -> list[tuple[str, ...]]:
    """``ops`` in ``parts`` groups of about equal cost (heaviest first, each to the lightest
    group), each group in table order; empty groups are dropped."""
    groups: list[list[str]] = [[] for _ in range(max(1, parts))]
    cost = [0] * len(groups)
    for op in sorted(ops, key=lambda name: (-_WEIGHT.get(name, 1), OPS.index(name)
                                            if name in OPS else 0)):
        lightest = cost.index(min(cost))
        groups[lightest].append(op)
        cost[lightest] += _WEIGHT.get(op, 1)
    order = {name: index for index, name in enumerate(OPS)}
    return [tuple(sorted(group, key=lambda name: order.get(name, len(order))))
            for group in groups if group]


def shard_ops(ops: tuple[str, ...], shard: tuple[int, int]) -> tuple[str, ...]:
    """The operations of slice ``K`` of ``N`` (the same split on every machine)."""
    k, n = shard
    groups = split_ops(ops, n)
    return groups[k - 1] if k <= len(groups) else ()


def merge_reports(reports: list[RunReport], *, duration: float | None = None) -> RunReport:
    """One report of the disjoint slices ``reports``, results in table order."""
    if not reports:
        raise HarnessError("nothing to merge: no report was given")
    first = reports[0]
    order = {op: index for index, op in enumerate(OPS)}
    results = sorted((result for report in reports for result in report.results),
                     key=lambda result: order.get(result.rule.op, len(order)))
    seen: set[str] = set()
    for result in results:
        if result.rule.id in seen:
            raise HarnessError(f"rule {result.rule.id} appears in more than one report: merge "
                               "the reports of disjoint slices (--shard K/N of one N)")
        seen.add(result.rule.id)
    cut = next((report.cut_short for report in reports if report.cut_short), "")
    checked = {result.rule.op for result in results}
    ops = None if checked >= set(OPS) else tuple(op for op in OPS if op in checked)
    return replace(
        first, results=results, calls=sum(report.calls for report in reports),
        duration=duration if duration is not None else max(r.duration for r in reports),
        cut_short=cut,
        invocation=None if first.invocation is None else replace(first.invocation, ops=ops),
    )


def check_in_parallel(impl: Any, *, ops: tuple[str, ...], jobs: int,
                      **options: Any) -> RunReport:
    """Check ``impl`` with the family searches spread over ``jobs`` worker processes (see
    :class:`Workers`); ``options`` are :func:`check_implementation`'s."""
    return check_implementation(impl, ops=ops, jobs=jobs, **options)


@dataclass(frozen=True)
class _Settings:
    """What a worker's engine needs besides its implementation (the same for every task)."""

    capabilities: Capabilities
    identity: str
    max_examples: int
    run_seed: int | None
    deterministic: bool
    database: str | None
    timeout: float


@dataclass(frozen=True)
class _Task:
    """One family search for a worker: ``slot`` and ``number`` name it for being stopped."""

    settings: _Settings
    op: str
    family: str
    budget: int
    excluded: frozenset[str]
    slot: int
    number: int
    #: Seconds left of the run's bound when the task was sent (None: no bound).
    remaining: float | None


class _Worker:
    """A worker process's implementation, engine and per-operation deadline state."""

    def __init__(self) -> None:
        self.adapter: _adapters.Adapter | None = None
        self.failed: str = ""
        self.engine: Engine | None = None
        self.settings: _Settings | None = None
        self.states: dict[str, _OpState] = {}
        self.families: dict[str, dict[str, Family]] = {}
        self.stop_flags: Any = None
        self.in_task = False


_WORKER = _Worker()


def _on_interrupt(_signum: int, _frame: FrameType | None) -> None:
    """Ctrl-C reaches every process of the terminal's group: a search under way ends as in one
    process (cut short, counted); an idle worker waits for the driver to close the pool."""
    if _WORKER.in_task:
        raise KeyboardInterrupt


def _start_worker(impl: Any, timeout: float, use_shell: bool, isolate: bool,
                  stop_flags: Any) -> None:
    """Pool initializer: start the implementation once for every task of this process."""
    signal.signal(signal.SIGINT, _on_interrupt)
    _WORKER.stop_flags = stop_flags
    try:
        adapter = _adapters.adapter_for(impl, timeout=timeout, use_shell=use_shell,
                                        isolate=isolate)
        atexit.register(adapter.stop)
        adapter.start()
    except Exception as error:  # reported by every task, as the driver's own start would be
        _WORKER.failed = str(error) or type(error).__name__
        return
    _WORKER.adapter = adapter


def _ready() -> None:
    """A task that does nothing: sent once per worker so that all of them start at once."""


def _engine_for(settings: _Settings) -> Engine:
    if _WORKER.engine is None or _WORKER.settings != settings:
        assert _WORKER.adapter is not None
        _WORKER.engine = Engine(
            _WORKER.adapter, capabilities=settings.capabilities,
            max_examples=settings.max_examples, run_seed=settings.run_seed,
            deterministic=settings.deterministic,
            database=(None if settings.database is None
                      else DirectoryBasedExampleDatabase(settings.database)),
            timeout=settings.timeout, identity=settings.identity)
        _WORKER.settings = settings
        _WORKER.states.clear()
        _WORKER.families.clear()
    return _WORKER.engine


def _search(task: _Task) -> FamilySearch | None:
    """Run one family search in this worker; None when it was stopped as no longer wanted."""
    if _WORKER.adapter is None:
        raise HarnessError(f"the implementation did not start in a worker process of --jobs: "
                           f"{_WORKER.failed}")
    engine = _engine_for(task.settings)
    engine.ends_at = None if task.remaining is None else time.monotonic() + task.remaining
    flags, slot, number = _WORKER.stop_flags, task.slot, task.number
    engine.abandoned = lambda: bool(flags[slot] == number)
    op = operation(task.op)
    families = _WORKER.families.get(task.op)
    if families is None:
        families = {family.name: family for family in op.families(engine.capabilities)}
        _WORKER.families[task.op] = families
    state = _WORKER.states.setdefault(task.op, _OpState(timeout=engine.timeout))
    _WORKER.in_task = True
    try:
        return engine.search_family(op, families[task.family], task.budget, task.excluded,
                                    state)
    except Abandoned:
        return None
    finally:
        _WORKER.in_task = False


def _picklable(impl: Any) -> None:
    try:
        pickle.dumps(impl)
    except Exception as error:
        raise HarnessError(
            f"--jobs cannot hand {impl!r} to its worker processes ({error}): name the "
            "implementation by a spec string (python:MODULE:ATTR or a command line), or pass "
            "a class or factory defined at the top level of an importable module; or run "
            "with jobs=1") from None


@dataclass
class _Sent:
    """A task under way: whose search, which round and family, and its worker slot."""

    search: int
    round: int
    family: int
    slot: int
    number: int


class Workers:
    """``jobs`` worker processes, each with the implementation started once, that run family
    searches for :meth:`check_ops`. The processes start at once (while the driver's own copy of
    the implementation answers the handshake)."""

    def __init__(self, impl: Any, *, jobs: int, timeout: float, use_shell: bool, isolate: bool,
                 database: Path | None) -> None:
        _picklable(impl)
        self.jobs = jobs
        self.database = None if database is None else str(database)
        context = multiprocessing.get_context("spawn")
        self._flags = context.Array("q", [-1] * jobs, lock=False)
        self._pool = ProcessPoolExecutor(
            max_workers=jobs, mp_context=context, initializer=_start_worker,
            initargs=(impl, timeout, use_shell, isolate, self._flags))
        for _ in range(jobs):
            self._pool.submit(_ready)
        self._numbers = 0

    def close(self) -> None:
        for slot in range(self.jobs):
            self._flags[slot] = -2  # no task number: nothing more is wanted from any slot
        self._pool.shutdown(wait=True, cancel_futures=True)

    def check_ops(self, engine: Engine, names: Iterable[str]) -> list[RuleResult]:
        """Search every operation of ``names`` as :meth:`Engine.check_op` would, the family
        searches in the workers; the results of every rule, operation by operation."""
        settings = _Settings(
            capabilities=engine.capabilities, identity=engine.identity,
            max_examples=engine.max_examples, run_seed=engine.run_seed,
            deterministic=engine.deterministic, database=self.database, timeout=engine.timeout)
        searches = [OpSearch(engine, name) for name in names]
        #: Per search: the next family of its round to send, and the results not yet counted.
        unsent = [0] * len(searches)
        received: list[dict[int, FamilySearch | BaseException]] = [{} for _ in searches]
        running: dict[Future[FamilySearch | None], _Sent] = {}
        free = list(range(self.jobs))

        def begin(index: int) -> None:
            unsent[index] = 0
            received[index].clear()
            searches[index].next_round()

        def drop_round(index: int) -> None:
            """Stop the tasks of ``index``'s round still under way: their work is not wanted."""
            for sent in running.values():
                if sent.search == index:
                    self._flags[sent.slot] = sent.number

        def send() -> None:
            while free:
                open_rounds = [index for index, search in enumerate(searches)
                               if search.excluded is not None
                               and unsent[index] < len(search.families)]
                if not open_rounds:
                    return
                # The first family not yet counted is needed for sure; later ones run ahead,
                # the nearer the likelier to be needed. Heavy operations first among equals.
                index = min(open_rounds, key=lambda i: (
                    unsent[i] - searches[i].applied, -_WEIGHT.get(searches[i].op.name, 1), i))
                search, family = searches[index], unsent[index]
                unsent[index] += 1
                slot = free.pop()
                self._numbers += 1
                assert search.excluded is not None
                task = _Task(settings=settings, op=search.op.name,
                             family=search.families[family].name,
                             budget=search.budgets[family], excluded=search.excluded,
                             slot=slot, number=self._numbers,
                             remaining=(None if engine.ends_at is None
                                        else engine.ends_at - time.monotonic()))
                future = self._pool.submit(_search, task)
                running[future] = _Sent(index, search.rounds, family, slot, self._numbers)

        def count(index: int) -> None:
            """Count the results of ``index``'s round in family order, as far as they came."""
            search = searches[index]
            while search.excluded is not None and search.applied in received[index]:
                result = received[index].pop(search.applied)
                if isinstance(result, BaseException):
                    raise result
                if search.apply(result):
                    drop_round(index)
                    begin(index)

        try:
            for index in range(len(searches)):
                begin(index)
            while any(search.excluded is not None for search in searches):
                send()
                if not running:
                    raise HarnessError("the searches under --jobs stalled with a round open")
                done, _ = wait(list(running), return_when=FIRST_COMPLETED)
                for future in done:
                    sent = running.pop(future)
                    free.append(sent.slot)
                    search = searches[sent.search]
                    if sent.round != search.rounds or search.excluded is None:
                        continue  # a round already over: this search ran ahead in vain
                    try:
                        result = future.result()
                    except BrokenProcessPool:
                        raise HarnessError(
                            f"a worker process of --jobs {self.jobs} ended while searching "
                            f"'{search.op.name}' (family {search.families[sent.family].name!r})"
                            ": an implementation run in process (--in-process) can end it "
                            "(os._exit, a signal), and a script that starts a run must guard "
                            "it with `if __name__ == '__main__':`. Run the implementation "
                            "isolated (--isolate, the default for python: implementations), "
                            "or with --jobs 1") from None
                    except Exception as error:  # raised when one process would raise it
                        received[sent.search][sent.family] = error
                    else:
                        if result is None:  # only a round already over stops its tasks
                            raise HarnessError(f"the search of '{search.op.name}' lost the "
                                               "result of a family it still needs")
                        received[sent.search][sent.family] = result
                    count(sent.search)
        except KeyboardInterrupt:
            for index, search in enumerate(searches):
                if search.excluded is not None:
                    drop_round(index)
                    search.stop(INTERRUPTED_REASON)
        return [result for search in searches for result in engine.verdicts(search)]


def merge_documents(documents: list[dict[str, Any]], names: list[str]) -> dict[str, Any]:
    """One JSON report (schemas/report.json) of the reports of disjoint slices of one run (one
    per ``--shard K/N``), each named by its file for messages."""
    from ._reports import OUTCOMES

    if not documents:
        raise HarnessError("nothing to merge: give the JSON reports of every slice")
    first = documents[0]
    for name, document in zip(names[1:], documents[1:], strict=True):
        for key in ("reportVersion", "specVersion", "implementation", "capabilities", "budget",
                    "seed", "deterministic"):
            if document.get(key) != first.get(key):
                raise HarnessError(
                    f"{name}: $.{key} is {document.get(key)!r} but {names[0]} has "
                    f"{first.get(key)!r}: merge only the slices of one run (the same "
                    "implementation, budget and seed, --shard K/N of one N)")
    order = {op: index for index, op in enumerate(OPS)}
    results = sorted((result for document in documents for result in document["results"]),
                     key=lambda result: order.get(result["op"], len(order)))
    seen: dict[str, str] = {}
    for name, document in zip(names, documents, strict=True):
        for result in document["results"]:
            if result["id"] in seen:
                raise HarnessError(f"{name}: rule {result['id']} is also in {seen[result['id']]}: "
                                   "merge the reports of disjoint slices")
            seen[result["id"]] = name
    totals = dict.fromkeys(OUTCOMES, 0)
    for result in results:
        totals[result["outcome"]] += 1
    merged = dict(first)
    merged.update(
        durationSeconds=max(document["durationSeconds"] for document in documents),
        calls=sum(document["calls"] for document in documents), totals=totals,
        judgedRules=sum(document.get("judgedRules", 0) for document in documents),
        conforms=all(document["conforms"] for document in documents), results=results,
    )
    merged.pop("rerun", None)
    return merged
