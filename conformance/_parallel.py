"""Running one check on several cores, or one slice of it per machine.

A check is made of family searches: for each operation, rounds of searches of its input families
in order, a round ending at the first family that finds a violation (:class:`._engine.OpSearch`).
In deterministic mode a family search is a function of the implementation, the operation, the
family, its share of the examples and the rules set aside, so it can run in any process.

- :class:`Workers` runs the family searches of every selected operation in ``jobs`` worker
  processes (``--jobs``), each with its own copy of the implementation, started once (a
  worker's start answers the handshake). This process drives the rounds: it runs the families
  of an operation's round at once, *ahead* of knowing whether an earlier family finds something,
  and counts the searches in family order up to the first that found a violation, exactly those
  one process would have run; the later families' work is dropped, and stopped as soon as an
  earlier family meets a violation (a search reports the rule it first meets before Hypothesis
  shrinks it). While that search shrinks, the next round starts on the guess that the rule it
  met is the one it will report; a wrong guess is dropped. So the verdicts, counterexamples,
  coverage, notes and the count of calls are those of one process. What one process carries
  from one search to the next about a *hanging* implementation (a shorter deadline after a first
  hang, an input that hung is not sent again) stays in each worker, so a hanging implementation
  may see other deadlines. The restart limit is the run's, shared by every worker
  (:class:`._adapters.restarts.RestartCount`): an implementation that can no longer answer is
  given up on in all of them at once, the requests under way abandoned.

What a worker sends back is pickled flat (:mod:`._flat`), so no answer's depth can stop it; a
signal that ends the run reaches every worker (:meth:`Workers.interrupt`), whose request under
way is abandoned at once; and every worker's start must succeed, as one process's must.

A run's progress (:mod:`._progress`) is one process's too: the driver's :class:`OpSearch` tells
each round begun, rule broken and search ended, and each worker's search sends the count of
examples it judged as it goes (a few times a second, on the channel of first violations), which
the driver hands on at once (:meth:`Workers.forward`), with each search's final count from its
result; so several operations searched at once are each seen to move.

Slices of a run for a CI matrix (``--shard``) and their merge are :mod:`._shard`'s.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import pickle
import queue
import signal
import sys
import threading
import time
from collections.abc import Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing import util as multiprocessing_util
from types import FrameType
from typing import Any

from . import _adapters, _flat
from ._adapters.restarts import RestartCount, SeqCounter
from ._adapters.subprocess import SubprocessAdapter
from ._engine import (
    ABANDONED_REASON,
    EARLY_STOPS,
    INTERRUPTED_REASON,
    MAX_TIME_REASON,
    Engine,
    FamilySearch,
    OpSearch,
    RuleResult,
    _OpState,
)
from ._errors import HarnessError
from ._model import Family
from ._operations import operation
from ._options import CheckOptions, RunSettings
from ._progress import ExamplesJudged, ProgressEvent
from ._protocol import StartResponse, handshake_difference
from ._shard import WEIGHT as _WEIGHT
from ._signals import Terminated, stop_reason


@dataclass(frozen=True)
class _Task:
    """One family search for a worker: ``slot`` and ``number`` name it for being stopped."""

    #: The run's settings, whole: a worker's engine reads every setting here, as the driver's.
    settings: RunSettings
    op: str
    family: str
    examples: int
    excluded: frozenset[str]
    slot: int
    number: int
    #: Seconds left of the run's bound when the task was sent (None: no bound).
    remaining: float | None


class _Worker:
    """A worker process's implementation, engine and per-operation deadline state."""

    def __init__(self) -> None:
        self.adapter: _adapters.Adapter | None = None
        self.handshake: StartResponse | None = None
        #: Why the implementation did not start here (raised again by every task).
        self.failed: Exception | None = None
        self.engine: Engine | None = None
        self.settings: RunSettings | None = None
        self.states: dict[str, _OpState] = {}
        self.families: dict[str, dict[str, Family]] = {}
        self.stop_flags: Any = None
        self.notices: Any = None
        #: Where each worker waits, at the end of a run, until every worker has stopped its
        #: implementation (so that each stops its own, once).
        self.finishing: Any = None
        self.in_task = False


_WORKER = _Worker()


#: The signals that end a run (spec/protocol.md §6): SIGHUP ends it as SIGTERM does.
ENDING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                       if hasattr(signal, name))


def _on_interrupt(signum: int, _frame: FrameType | None) -> None:
    """Ctrl-C reaches every process of the terminal's group, a cancelled CI job's SIGTERM often
    does too, and the driver sends its own signal on to every worker: a search under way (or
    the implementation's start) ends at once, the request under way abandoned, as in one
    process (cut short, counted); an idle worker waits for the driver to close the pool, which
    stops its implementation. Raised once per task: a second signal finds the task ending."""
    if _WORKER.in_task:
        _WORKER.in_task = False
        raise KeyboardInterrupt if signum == signal.SIGINT else Terminated


def _quiet_signals(unraisable: Any) -> None:
    """``sys.unraisablehook`` of a worker: an interrupt that could not be raised is dropped;
    anything else is reported as Python reports it."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        return
    sys.__unraisablehook__(unraisable)


def share_run_counts(adapter: _adapters.Adapter, restarts: RestartCount,
                     seqs: SeqCounter) -> None:
    """Make ``adapter`` count its restarts in the run's shared ``restarts`` (spec/protocol.md
    §7.4: one restart limit per run, whatever the number of worker processes) and number its
    requests from the run's shared ``seqs`` (§5.1: one seq per request over the whole run)."""
    if isinstance(adapter, SubprocessAdapter):
        adapter.restart_count = restarts
        adapter.seqs = seqs


def _start_worker(impl: Any, options: CheckOptions, stop_flags: Any, notices: Any,
                  restarts: RestartCount, seqs: SeqCounter, starts: Any,
                  finishing: Any) -> None:
    """Pool initializer: start the implementation once for every task of this process, and
    tell the driver on ``starts`` how it went (None, or the error its start raised)."""
    starts.cancel_join_thread()  # an entry the driver no longer reads never holds up an exit
    _WORKER.finishing = finishing
    try:
        _start_implementation(impl, options, stop_flags, notices, restarts, seqs)
    finally:
        failed = _WORKER.failed
        try:
            pickle.dumps(failed)
        except Exception:  # what the driver can read: the message, as a harness error
            failed = HarnessError(str(failed))
        starts.put(failed)


def _start_implementation(impl: Any, options: CheckOptions, stop_flags: Any, notices: Any,
                          restarts: RestartCount, seqs: SeqCounter) -> None:
    """Start the implementation once for every task of this worker process."""
    for number in ENDING_SIGNALS:
        if signal.getsignal(number) is not signal.SIG_IGN:  # as the driver: nohup's SIGHUP
            signal.signal(number, _on_interrupt)
    # A signal may land while Python runs a callback that cannot raise (a gc callback): the
    # search it ends is stopped by the driver anyway, so it is not printed as a traceback.
    sys.unraisablehook = _quiet_signals
    _WORKER.stop_flags = stop_flags
    _WORKER.notices = notices
    notices.cancel_join_thread()  # a notice the driver no longer reads never holds up an exit
    _WORKER.in_task = True  # a signal ends the start too, not only a search
    try:
        adapter = options.adapter_for(impl)
        threading.Thread(target=_watch_driver, args=(os.getppid(), adapter), daemon=True,
                         name="eventproof-driver-watch").start()
        # Run when the worker process ends, however it was started (a forked process skips
        # atexit).
        multiprocessing_util.Finalize(adapter, adapter.stop, exitpriority=10)
        share_run_counts(adapter, restarts, seqs)
        _WORKER.handshake = adapter.start()
    except Exception as error:  # raised by every task, as one process's start would raise it
        _WORKER.failed = error
        return
    except KeyboardInterrupt as signalled:  # the run is ending: no task will be wanted
        _WORKER.failed = HarnessError(f"the run ended while a worker process of --jobs started "
                                      f"the implementation ({stop_reason(signalled)})")
        return
    finally:
        _WORKER.in_task = False
    _WORKER.adapter = adapter


#: Seconds between a worker's looks at whether the driver process is still there.
DRIVER_WATCH_SECONDS = 0.25


def _watch_driver(driver: int, adapter: _adapters.Adapter) -> None:
    """A worker's watch over the driver: once the driver process is gone without closing its
    pool (SIGKILL, an out-of-memory kill, a crash), the worker stops its implementation with
    its whole process group and ends. An orphaned worker would otherwise wait for tasks that
    never come, its program under test with it (docs/threat-model.md: nothing of a run outlives
    it)."""
    while os.getppid() == driver:
        time.sleep(DRIVER_WATCH_SECONDS)
    with contextlib.suppress(BaseException):
        adapter.stop()
    os._exit(1)


def _ready() -> None:
    """A task that does nothing: sent once per worker so that all of them start at once."""


def _handshake() -> StartResponse:
    """The implementation's handshake in this worker, or the error it failed to start with."""
    if _WORKER.failed is not None:
        raise _WORKER.failed
    assert _WORKER.handshake is not None
    return _WORKER.handshake


def _engine_for(settings: RunSettings) -> Engine:
    """This worker's engine for a run of ``settings`` (made at its first task)."""
    if _WORKER.engine is None or _WORKER.settings != settings:
        assert _WORKER.adapter is not None
        _WORKER.engine = Engine(_WORKER.adapter, settings)
        _WORKER.settings = settings
        _WORKER.states.clear()
        _WORKER.families.clear()
    return _WORKER.engine


#: Seconds a worker waits at the end of a run for every other to have stopped its
#: implementation (each stop takes at most two grace periods, spec/protocol.md §6).
FINISH_SECONDS = 10.0


def _stop_and_report() -> bytes:
    """Stop this worker's implementation at the end of a run; what it wrote after its last
    answer (:class:`._adapters.AfterLastAnswer`, or None), pickled flat. The task then waits
    until every worker has taken one, so that each worker takes exactly one."""
    adapter, found = _WORKER.adapter, None
    if adapter is not None:
        adapter.stop()
        found = adapter.after_last_answer()
    if _WORKER.finishing is not None:
        with contextlib.suppress(threading.BrokenBarrierError):
            _WORKER.finishing.wait(timeout=FINISH_SECONDS)
    return _flat.dumps(found)


def _search(task: _Task) -> bytes:
    """Run one family search in this worker (it ends early once it is no longer wanted); its
    result pickled flat (:mod:`._flat`), so that no answer's depth can stop it crossing back."""
    return _flat.dumps(_searched(task))


def _searched(task: _Task) -> FamilySearch:
    """The result of one family search in this worker."""
    if _WORKER.adapter is None:
        raise HarnessError(f"the implementation did not start in a worker process of --jobs: "
                           f"{_WORKER.failed}")
    assert _WORKER.handshake is not None
    if _WORKER.handshake.identity_key() != task.settings.identity:
        implementation, capabilities = json.loads(task.settings.identity)
        first = {"version": _WORKER.handshake.version, "implementation": implementation,
                 "capabilities": capabilities}
        difference = handshake_difference(first, _WORKER.handshake.to_json())
        raise HarnessError(
            "the implementation's handshake changed when a worker process of --jobs started "
            f"it: {difference}. A run judges one implementation with one set of capabilities: "
            "every start request must get the same handshake (spec/protocol.md §7.4). Make the "
            "program's handshake a constant, or run with --jobs 1")
    engine = _engine_for(task.settings)
    engine.ends_at = None if task.remaining is None else time.monotonic() + task.remaining
    flags, slot, number = _WORKER.stop_flags, task.slot, task.number
    engine.abandoned = lambda: bool(flags[slot] == number or flags[-1])
    notices = _WORKER.notices
    engine.on_violation = lambda rule: notices.put((number, rule))
    # The examples judged reach the driver as the search goes, on the same channel: the
    # engine tells them at most every EXAMPLES_EVERY seconds.
    engine.on_event = lambda event: notices.put((number, event))
    op = operation(task.op)
    families = _WORKER.families.get(task.op)
    if families is None:
        families = {family.name: family for family in op.families(engine.capabilities)}
        _WORKER.families[task.op] = families
    state = _WORKER.states.setdefault(task.op, _OpState(timeout=engine.timeout))
    _WORKER.in_task = True
    try:
        return engine.search_family(op, families[task.family], task.examples, task.excluded,
                                    state, number=task.number)
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


def _start_method() -> str:
    """``fork`` where it is safe and cheap (Linux, and no other thread of this process that
    could hold a lock the copy would inherit, such as a live status line's); else ``spawn``,
    which starts each worker afresh (about half a second of imports)."""
    return "fork" if sys.platform == "linux" and threading.active_count() == 1 else "spawn"


@dataclass(eq=False)
class _Round:
    """One round of one operation's search as sent to the workers: the current one, or the
    next one run ahead on a guess of the rule the current one will find."""

    excluded: frozenset[str]
    #: The next family to send.
    unsent: int = 0
    #: Results of families not yet counted, by family index.
    received: dict[int, FamilySearch | BaseException] = field(default_factory=dict)
    #: The first family said to have met a violation (no later family is needed), and the
    #: rule it met first (usually the rule its shrunk counterexample breaks). A worker says so
    #: before its search ends; the search's result decides (:meth:`Workers.check_ops`).
    finder: int | None = None
    guess: str = ""
    #: The tasks of this round stopped as not wanted: their results are never counted.
    stopped: set[int] = field(default_factory=set)


@dataclass
class _Sent:
    """A task under way: whose search, which round and family, and its worker slot."""

    search: int
    round: _Round
    family: int
    slot: int
    number: int


#: Seconds past --max-time the workers have to stop on their own (each search watches the same
#: deadline) before the run stops waiting for them.
MAX_TIME_GRACE = 1.0

class Workers:
    """``jobs`` worker processes, each with the implementation started once, that run family
    searches for :meth:`check_ops`. The processes start at once (while the driver's own copy of
    the implementation answers the handshake)."""

    def __init__(self, impl: Any, options: CheckOptions) -> None:
        _picklable(impl)
        self.jobs = jobs = options.jobs
        context = multiprocessing.get_context(_start_method())
        #: Per worker slot, the number of a task no longer wanted; the last entry, once set,
        #: stops every task.
        self._flags = context.Array("q", [-1] * jobs + [0], lock=False)
        #: Set once the run passed --max-time and stopped waiting for its workers.
        self._past_deadline = False
        #: ``(task number, rule)`` from a search that met its first violation (it goes on to
        #: shrink it): the families after it are not needed, and the next round can start;
        #: and ``(task number, event)``: the examples a search judged so far (:mod:`._progress`).
        self._notices = context.Queue()
        #: The run's restart limit, shared by every worker's implementation.
        self.restarts = RestartCount(context=context)
        #: The run's request numbers, shared by every worker's implementation.
        self.seqs = SeqCounter(context=context)
        #: How each worker's start went: None, or the error it raised (one entry per worker).
        self._starts = context.Queue()
        self._pool = ProcessPoolExecutor(
            max_workers=jobs, mp_context=context, initializer=_start_worker,
            initargs=(impl, options, self._flags, self._notices, self.restarts, self.seqs,
                      self._starts, context.Barrier(jobs)))
        self._readies = [self._pool.submit(_ready) for _ in range(jobs)]
        self._numbers = 0
        #: Family searches that ran ahead in vain (a family before them found a violation, or
        #: the rule guessed for their round was not the one found), finished or stopped part
        #: way: never counted.
        self.dropped: list[FamilySearch] = []

    def handshake(self) -> StartResponse:
        """The handshake of the implementation as a worker started it, once every worker has
        started it; raises what a worker's start raised, as one process's start would (a program
        whose first start fails is a usage error under every scheduler, spec/protocol.md §7.2,
        even when a later start would succeed)."""
        try:
            failure: BaseException | None = None
            for _ in range(self.jobs):
                while True:
                    try:
                        failed = self._starts.get(timeout=0.05)
                        break
                    except queue.Empty:
                        if any(ready.done() and ready.exception() is not None
                               for ready in self._readies):
                            raise BrokenProcessPool from None
                failure = failure or failed
            if failure is not None:
                raise failure
            return self._pool.submit(_handshake).result()
        except KeyboardInterrupt as signalled:
            self.interrupt(signalled)
            raise
        except BrokenProcessPool:
            raise HarnessError(f"a worker process of --jobs {self.jobs} ended while starting "
                               "the implementation") from None

    def interrupt(self, signalled: BaseException) -> None:
        """The run is ending on a signal: no task is wanted any more, and every worker gets the
        signal too (it may have come to this process alone), so that the request under way in
        each is abandoned at once rather than waited for; each worker then stops its
        implementation with its whole process group as the pool closes."""
        self._flags[self.jobs] = 1
        self._signal_workers(signal.SIGINT if stop_reason(signalled) == INTERRUPTED_REASON
                             else signal.SIGTERM)

    def _signal_workers(self, number: int) -> None:
        processes = getattr(self._pool, "_processes", None) or {}
        for process in list(processes.values()):
            if process.pid is not None and process.is_alive():
                with contextlib.suppress(OSError):
                    os.kill(process.pid, number)

    def forward(self, engine: Engine, event: ProgressEvent) -> None:
        """Hand ``event``, sent by a worker's search as it went, to the run's listener, at once."""
        engine.tell(event)

    def finish(self) -> list[_adapters.AfterLastAnswer]:
        """Stop the implementation in every worker, each its own once; what each wrote after
        its last answer. Nothing is asked of a run past --max-time (its workers are
        abandoned, not waited for)."""
        if self._past_deadline:
            return []
        futures = [self._pool.submit(_stop_and_report) for _ in range(self.jobs)]
        found = []
        for future in futures:
            try:
                written = _flat.loads(future.result(timeout=FINISH_SECONDS * 2))
            except (BrokenProcessPool, TimeoutError, HarnessError):
                continue  # a worker gone: its implementation went with it, unread
            if written is not None:
                found.append(written)
        return found

    def close(self) -> None:
        self._flags[self.jobs] = 1  # nothing more is wanted from any task
        if self._past_deadline:
            # Past --max-time: the request under way in each worker is abandoned, not waited
            # for (as on a signal, without its exit code).
            self._signal_workers(signal.SIGTERM)
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._notices.close()
        self._starts.close()

    def check_ops(self, engine: Engine, names: Iterable[str]) -> list[RuleResult]:
        """Search every operation of ``names`` as :meth:`Engine.check_op` would, the family
        searches in the workers; the results of every rule, operation by operation."""
        settings = engine.settings
        searches = [OpSearch(engine, name) for name in names]
        current: list[_Round | None] = [None] * len(searches)
        ahead: list[_Round | None] = [None] * len(searches)
        running: dict[Future[bytes], _Sent] = {}
        by_number: dict[int, _Sent] = {}
        free = list(range(self.jobs))

        def stop(round_: _Round | None, after: int = -1) -> None:
            """Stop the tasks of ``round_`` for families after ``after``: not wanted."""
            for sent in running.values():
                if sent.round is round_ and sent.family > after:
                    self._flags[sent.slot] = sent.number
                    sent.round.stopped.add(sent.number)

        def drop(round_: _Round | None) -> None:
            if round_ is not None:
                stop(round_)
                self.dropped.extend(result for result in round_.received.values()
                                    if isinstance(result, FamilySearch))
                round_.received.clear()

        def begin(index: int) -> None:
            """Begin ``index``'s next round: the one run ahead if its guess was right."""
            excluded = searches[index].next_round()
            guessed = ahead[index]
            ahead[index] = None
            if excluded is not None and guessed is not None and guessed.excluded == excluded:
                current[index] = guessed
                return
            drop(guessed)
            current[index] = None if excluded is None else _Round(excluded)

        def found_in(index: int, round_: _Round, family: int, rule: str) -> None:
            """A search of ``round_`` met a violation of ``rule``: later families are not
            needed; once every earlier family is counted, the next round can start."""
            if round_.finder is not None and round_.finder <= family:
                return
            if (round_ is current[index] and family < searches[index].applied) or (
                    isinstance(result := round_.received.get(family), FamilySearch)
                    and result.found is None):
                return  # its result came first, and found nothing: the result decides
            round_.finder, round_.guess = family, rule
            stop(round_, after=family)
            for later in [later for later in round_.received if later > family]:
                result = round_.received.pop(later)
                if isinstance(result, FamilySearch):
                    self.dropped.append(result)
            look_ahead(index)

        def look_ahead(index: int) -> None:
            round_, search = current[index], searches[index]
            if (round_ is None or ahead[index] is not None or round_.finder is None
                    or search.applied != round_.finder):
                return
            excluded = round_.excluded | {round_.guess}
            if len(excluded) < len(search.op.rules):
                ahead[index] = _Round(excluded)

        def wanted(index: int, round_: _Round | None) -> int | None:
            """The next family of ``round_`` to send, or None."""
            if round_ is None:
                return None
            last = (len(searches[index].families) - 1 if round_.finder is None
                    else round_.finder)
            return round_.unsent if round_.unsent <= last else None

        def send() -> None:
            while free:
                # The first family not yet counted is needed for sure; later ones run ahead,
                # the nearer the likelier to be needed, and a round begun on a guess ranks
                # after its current round's next family. Heavy operations first among equals.
                candidates = []
                for index, search in enumerate(searches):
                    family = wanted(index, current[index])
                    if family is not None:
                        candidates.append((family - search.applied, index, current[index]))
                    family = wanted(index, ahead[index])
                    if family is not None:
                        candidates.append((family + 1, index, ahead[index]))
                if not candidates:
                    return
                _, index, round_ = min(candidates, key=lambda candidate: (
                    candidate[0], -_WEIGHT.get(searches[candidate[1]].op.name, 1),
                    candidate[1]))
                assert round_ is not None
                search, family = searches[index], round_.unsent
                round_.unsent += 1
                slot = free.pop()
                self._numbers += 1
                task = _Task(settings=settings, op=search.op.name,
                             family=search.families[family].name,
                             examples=search.shares[family], excluded=round_.excluded,
                             slot=slot, number=self._numbers,
                             remaining=(None if engine.ends_at is None
                                        else engine.ends_at - time.monotonic()))
                future = self._pool.submit(_search, task)
                sent = _Sent(index, round_, family, slot, self._numbers)
                running[future] = sent
                by_number[sent.number] = sent

        def count(index: int) -> None:
            """Count the results of ``index``'s round in family order, as far as they came."""
            search = searches[index]
            while (round_ := current[index]) is not None and search.applied in round_.received:
                result = round_.received.pop(search.applied)
                if isinstance(result, BaseException):
                    raise result
                if search.apply(result):
                    drop(round_)
                    begin(index)
                elif round_.finder is not None and search.applied > round_.finder:
                    mistaken(index, round_)
            look_ahead(index)

        def mistaken(index: int, round_: _Round) -> None:
            """The family a worker said met a violation ended without one (its search was
            cut short, or what it met was set aside): the families after it are needed after
            all, sent again; what ran ahead on the guess is dropped."""
            round_.finder, round_.guess = None, ""
            round_.unsent = searches[index].applied
            drop(ahead[index])
            ahead[index] = None

        def judged(sent: _Sent, result: FamilySearch) -> None:
            """Tell the final count of examples of the search ``sent`` ran, from its result
            (its worker told it too, on a channel that may deliver it later)."""
            search = searches[sent.search]
            self.forward(engine, ExamplesJudged(
                op=search.op.name, family=result.family, round=len(sent.round.excluded) + 1,
                search=sent.number, judged=result.examples, planned=search.shares[sent.family]))

        def read_notices() -> None:
            while True:
                try:
                    number, rule = self._notices.get_nowait()
                except queue.Empty:
                    return
                if not isinstance(rule, str):  # a count of examples judged
                    self.forward(engine, rule)
                    continue
                sent = by_number.get(number)
                if sent is not None and sent.round in (current[sent.search],
                                                       ahead[sent.search]):
                    found_in(sent.search, sent.round, sent.family, rule)

        try:
            for index in range(len(searches)):
                begin(index)
            while any(round_ is not None for round_ in current):
                send()
                if not running:
                    raise HarnessError("the searches under --jobs stalled with a round open")
                done, _ = wait(list(running), timeout=0.05, return_when=FIRST_COMPLETED)
                read_notices()
                for future in done:
                    sent = running.pop(future)
                    del by_number[sent.number]
                    free.append(sent.slot)
                    search, round_ = searches[sent.search], sent.round
                    if ((round_ is not current[sent.search] and round_ is not ahead[sent.search])
                            or (round_.finder is not None and sent.family > round_.finder)
                            or sent.number in round_.stopped):
                        # A round over, a guess gone wrong, or a family after the finder.
                        if not future.exception():
                            self.dropped.append(_flat.loads(future.result()))
                            judged(sent, self.dropped[-1])
                        continue
                    try:
                        result = _flat.loads(future.result())
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
                        round_.received[sent.family] = error
                    else:
                        judged(sent, result)
                        if result.cut_short == ABANDONED_REASON:  # only a round over stops
                            raise HarnessError(f"the search of '{search.op.name}' lost the "
                                               "result of a family it still needs")
                        round_.received[sent.family] = result
                        if result.found is not None:
                            found_in(sent.search, round_, sent.family,
                                     result.found.violation.rule)
                    count(sent.search)
                if (engine.ends_at is not None and engine.cut_short not in EARLY_STOPS
                        and time.monotonic() >= engine.ends_at + MAX_TIME_GRACE):
                    # --max-time passed and the workers have had their grace to stop on their
                    # own: the run ends here, whatever a worker is still doing (starting on a
                    # loaded machine, waiting on an answer); close() stops them at once.
                    engine.cut_short = MAX_TIME_REASON
                    self._past_deadline = True
                if engine.cut_short in EARLY_STOPS or self._past_deadline:
                    # --exitfirst, stop_after or --max-time: the rounds under way are not
                    # wanted any more.
                    for index, search in enumerate(searches):
                        drop(current[index])
                        drop(ahead[index])
                        current[index] = ahead[index] = None
                        if not search.over:
                            search.stop(engine.cut_short)
        except KeyboardInterrupt as signalled:  # Ctrl-C, or SIGTERM (Terminated)
            self.interrupt(signalled)
            for index, search in enumerate(searches):
                if current[index] is not None:
                    drop(current[index])
                    drop(ahead[index])
                    search.stop(stop_reason(signalled))
        while True:  # the counts told since the last look
            try:
                _, notice = self._notices.get_nowait()
            except queue.Empty:
                break
            if not isinstance(notice, str):
                self.forward(engine, notice)
        return [result for search in searches for result in engine.verdicts(search)]
