"""``jobs=N``: the family searches run in worker processes, and the report is one process's.

Each comparison runs the same deterministic check with ``jobs=1`` and ``jobs=2`` and holds the
JSON reports (schemas/report.json) equal but for the duration: verdicts, counterexamples,
coverage, notes and the count of calls. The wrong implementations here break several rules in
several operations, so their searches run many rounds, and the rounds run ahead (families after
the one that finds a violation are searched too, then dropped).
"""

from __future__ import annotations

import math
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest
from eventproof.conformance import (
    HarnessError,
    ImplementationError,
    RunReport,
    _parallel,
    check_implementation,
)
from eventproof.conformance import _engine as engine_module
from eventproof.conformance._check import CheckOptions, RunSettings
from eventproof.conformance._engine import (
    Engine,
    FamilySearch,
    Finding,
    OpSearch,
    RuleResult,
    _Counts,
)
from eventproof.conformance._model import Capabilities, Violation
from eventproof.conformance._operations import OPS
from eventproof.conformance._progress import (
    ExamplesJudged,
    ProgressEvent,
    RuleBroken,
    RunProgress,
    SearchEnded,
)
from eventproof.conformance._reports import report_document
from eventproof.conformance._shard import parse_shard, shard_ops, split_ops
from eventproof.reference import Reference
from helpers import without_duration
from miniatures import Miniature
from miniatures.budget import FirstComeBudget, LaneCountsShown, RosterWithoutCount
from miniatures.selection import FoldIgnoresPushText, LastMessageUnfiltered, ResultOutputNull
from miniatures.wire import KeepsPartial, UnknownTypeIsFrame

REFERENCE = "python:eventproof.reference:Reference"


class SelectionBugs(LastMessageUnfiltered, FoldIgnoresPushText, ResultOutputNull):
    """Three selection bugs at once: ``select``, ``fold`` and ``settle`` each break rules."""

    name = "several-selection-bugs"


class BudgetAndWireBugs(FirstComeBudget, RosterWithoutCount, LaneCountsShown, KeepsPartial,
                        UnknownTypeIsFrame):
    """Budget and wire bugs at once: ``classify``, ``project``, ``roster`` and ``lane`` (and
    ``details``, not searched here: its rounds shrink for a long time)."""

    name = "several-budget-wire-bugs"


class NeverStarts(Reference):
    """The reference, except that it cannot start."""

    def start(self) -> dict[str, Any]:
        raise RuntimeError("no licence for this machine")


class RaisesOnSelect(Miniature):
    """Raises on every ``select`` request: a crash on each one, judged in every process alike."""

    name = "raises-on-select"

    def select(self, _input: Any) -> Any:
        raise MemoryError("out of memory while selecting")


def document(report: RunReport) -> dict[str, Any]:
    """The JSON report without its duration (the only thing --jobs may change)."""
    return without_duration(report_document(report))


def both(impl: Any, **options: Any) -> tuple[RunReport, RunReport]:
    """The report of ``impl`` with one process and with two worker processes."""
    return (check_implementation(impl, jobs=1, **options),
            check_implementation(impl, jobs=2, **options))


def test_the_reference_reports_the_same_with_two_jobs() -> None:
    # The quick effort: the smallest named one, on which every answer class is met (a smaller
    # custom count may leave a class unmet, and its rules untested).
    one, two = both(REFERENCE, effort="quick")
    assert one.conforms
    assert one.calls >= 9 * 60  # every operation's every family was searched
    assert document(two) == document(one)


# The default run compares the wrong implementation of two profiles (four operations over the
# workers); the selection one is a second copy of that comparison (nox -s slow).
@pytest.mark.parametrize(("impl", "ops", "broken"), [
    pytest.param(SelectionBugs, ("select", "fold", "settle"), {"select", "fold", "settle"},
                 marks=pytest.mark.slow),
    (BudgetAndWireBugs, ("classify", "project", "roster", "lane"),
     {"classify", "project", "roster", "lane"}),
])
def test_wrong_implementations_report_the_same_with_two_jobs(
        impl: type[Miniature], ops: tuple[str, ...], broken: set[str]) -> None:
    one, two = both(impl, ops=ops, max_examples=30, timeout=2.0)
    failed_ops = Counter(result.rule.op for result in one.results if result.counterexample)
    assert set(failed_ops) == broken
    assert sum(failed_ops.values()) >= len(broken) + 2  # several rules, several rounds
    assert document(two) == document(one)


class Recorder(_parallel.Workers):
    """The worker pool, kept for the test to look at afterwards."""

    last: Recorder | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        Recorder.last = self


#: A directory where worker processes mark a right answer (see WaitsForARunAhead).
ANSWERED = "EVENTPROOF_TEST_ANSWERED_DIR"
#: The process that drives the run: it never waits.
DRIVER = "EVENTPROOF_TEST_DRIVER_PID"


class WaitsForARunAhead(BudgetAndWireBugs):
    """BudgetAndWireBugs, except that in a worker process the first wrong answer waits (at most
    5 s, well within a request's deadline) until another worker process has answered a request
    of its own. The search that finds the bug is then always joined by a search run beside it
    that judged an answer, whatever the scheduling: the test waits on that event, not on luck.
    One process waits at most, so two never wait on each other. The answers are the same."""

    name = "waits-for-a-run-ahead"

    def run(self, op: str, input: Any) -> Any:
        answer = _answer_or_error(lambda: super(WaitsForARunAhead, self).run(op, input))
        directory = os.environ.get(ANSWERED)
        if directory and str(os.getpid()) != os.environ.get(DRIVER):
            here = Path(directory)
            if answer != _answer_or_error(lambda: self.reference.run(op, input)) and _claim(
                    here / "waiter"):
                deadline = time.monotonic() + 5.0
                while (not [path for path in here.glob("answered-*")
                            if path.name != f"answered-{os.getpid()}"]
                       and time.monotonic() < deadline):
                    time.sleep(0.01)
            (here / f"answered-{os.getpid()}").touch()
        if isinstance(answer, _Raised):
            raise answer.error
        return answer


def _claim(path: Path) -> bool:
    """Create ``path``; False when another process created it first."""
    try:
        path.touch(exist_ok=False)
    except FileExistsError:
        return False
    return True


@dataclass(frozen=True)
class _Raised:
    error: Exception

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Raised) and type(other.error) is type(self.error)

    def __hash__(self) -> int:
        return hash(type(self.error))


def _answer_or_error(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except Exception as error:
        return _Raised(error)


def test_searches_run_ahead_of_the_finder_are_not_counted(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Families searched after the one that found a violation judged answers of their own; had
    they been counted, the coverage would differ from one process's."""
    monkeypatch.setattr(_parallel, "Workers", Recorder)
    monkeypatch.setenv(ANSWERED, str(tmp_path))
    monkeypatch.setenv(DRIVER, str(os.getpid()))
    one, two = both(WaitsForARunAhead, ops=("roster",), effort="quick")
    assert Recorder.last is not None
    dropped = Recorder.last.dropped
    assert any(sum(search.counts.judged.values()) for search in dropped), dropped
    coverage = {result.rule.id: result.coverage for result in one.results}
    assert {result.rule.id: result.coverage for result in two.results} == coverage
    # Counting one dropped search on top changes a rule's judged count, so the equality above
    # tells counted from dropped.
    ran_ahead = next(search for search in dropped if sum(search.counts.judged.values()))
    rule = next(rule for rule, judged in ran_ahead.counts.judged.items() if judged)
    judged = coverage[rule]
    assert judged is not None
    assert judged.judged + ran_ahead.counts.judged[rule] != judged.judged


def _says_it_met_a_violation(when: str) -> Callable[..., FamilySearch]:
    """Engine.search_family, except that in a worker process every family search says it met
    a violation (of its operation's first rule not set aside) ``before`` it searches, or
    ``after`` it searched and found none: a word its result does not bear out."""
    original = Engine.search_family

    def search_family(self: Engine, op: Any, family: Any, examples: int,
                      excluded: frozenset[str], state: Any, number: int | None = None,
                      ) -> FamilySearch:
        rules = [rule.id for rule in op.rules if rule.id not in excluded]
        say = self.on_violation if rules else None
        if say is not None and when == "before":
            say(rules[0])
            time.sleep(0.05)  # the word reaches the driver before the result
        result = original(self, op, family, examples, excluded, state, number=number)
        if say is not None and when == "after" and result.found is None:
            say(rules[0])
        return result

    return search_family


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_worker_saying_it_met_a_violation_its_result_does_not_hold_changes_nothing(
        monkeypatch: pytest.MonkeyPatch, when: str) -> None:
    """A worker tells the driver of the first violation its search meets, before the search
    ends, so that the families after it stop and the next round starts early; the result then
    decides. A search can end without the violation it met (cut short, or the program given up
    on mid-shrink): the families after it are then needed after all. Here every search of every
    worker says so, wrongly, before or after searching: the report is still one process's.
    (Once, such a word left a round with nothing to send and the run ended in 'the searches
    under --jobs stalled with a round open'; the workers are forked, so that they inherit the
    patch whatever threads earlier tests left in this process.)"""
    monkeypatch.setattr(Engine, "search_family", _says_it_met_a_violation(when))
    monkeypatch.setattr(_parallel, "_start_method", lambda: "fork")
    one, two = both(BudgetAndWireBugs, ops=("classify", "roster"), max_examples=30,
                    timeout=2.0)
    assert not one.conforms
    assert document(two) == document(one)


def _events(impl: Any, jobs: int, **options: Any) -> list[ProgressEvent]:
    """Every event a check of ``impl`` with ``jobs`` delivers, in the order delivered."""
    events: list[ProgressEvent] = []
    check_implementation(impl, jobs=jobs, on_event=events.append, **options)
    return events


def _told_before_the_end(events: list[ProgressEvent]) -> None:
    """Every example an operation's search counted was told before its search ended."""
    told: dict[int, ExamplesJudged] = {}
    for event in events:
        if isinstance(event, ExamplesJudged):
            before = told.get(event.search)
            if before is None or event.judged > before.judged:
                told[event.search] = event
        elif isinstance(event, SearchEnded):
            heard = sum(search.judged for search in told.values() if search.op == event.op)
            assert heard >= event.examples > 0, (event, heard)


def test_two_jobs_deliver_the_events_of_one_process_as_the_searches_go() -> None:
    """Under jobs=2 a run delivers the same begin, broken, given-up and end events as under
    jobs=1 (each operation's in the same order), and the examples each search judged before
    its operation's search ends."""
    runs = {jobs: _events(SelectionBugs, jobs, ops=("select", "settle"), max_examples=30)
            for jobs in (1, 2)}
    kept = {jobs: [event for event in events if not isinstance(event, ExamplesJudged)]
            for jobs, events in runs.items()}
    assert Counter(kept[2]) == Counter(kept[1])
    for op in ("select", "settle"):
        assert [e for e in kept[2] if e.op == op] == [e for e in kept[1] if e.op == op]
    assert sum(isinstance(event, RuleBroken) for event in kept[1]) >= 3  # several rounds
    for events in runs.values():
        _told_before_the_end(events)
        assert _model(("select", "settle"), events).done() == 1.0


def _model(ops: tuple[str, ...], events: list[ProgressEvent]) -> RunProgress:
    model = RunProgress(ops)
    for event in events:
        model.hear(event)
    return model


@pytest.mark.parametrize("stop", [{"exitfirst": True}, {"max_time": 1.0}])
def test_a_run_cut_short_ends_every_search(stop: dict[str, Any]) -> None:
    """A run cut short under jobs=2 (--exitfirst, --max-time) still ends every operation's
    search, so its progress reaches the whole."""
    ops = ("select", "fold", "settle")
    events = _events(SelectionBugs, 2, ops=ops, max_examples=200, **stop)
    assert sorted(event.op for event in events if isinstance(event, SearchEnded)) == sorted(ops)
    assert _model(ops, events).done() == 1.0


class EndOnly(_parallel.Workers):
    """A wrong scheduler: what the workers' searches tell reaches the listener only once every
    search is over (the run's status line stands still until the end)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.held: list[ProgressEvent] = []

    def forward(self, engine: Engine, event: ProgressEvent) -> None:
        self.held.append(event)

    def check_ops(self, engine: Engine, names: Iterable[str]) -> list[RuleResult]:
        results = super().check_ops(engine, names)
        for event in self.held:
            engine.tell(event)
        return results


def test_a_scheduler_telling_counts_at_the_end_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above fails on a scheduler that delivers the workers' events at the end."""
    monkeypatch.setattr(_parallel, "Workers", EndOnly)
    with pytest.raises(AssertionError):
        _told_before_the_end(_events(REFERENCE, 2, ops=("classify",), max_examples=20))


#: A directory where the driver marks that it heard a count of examples (see WaitsToBeHeard).
HEARD = "EVENTPROOF_TEST_HEARD_DIR"


class WaitsToBeHeard(Reference):
    """The reference, except that in a worker process the first request takes 0.2 s (so its
    search tells its count, at most every 0.1 s) and the next ones wait, at most 3 s, until the
    driver has heard a count of examples judged (it touches ``heard``); each wait leaves
    ``in-time-PID`` or ``too-late-PID``. No search can end before it is heard, so a driver
    that hears counts only when searches end, or when the run does, lets every wait time out."""

    slept = False
    heard = False

    def run(self, op: str, input: Any) -> Any:
        directory = os.environ.get(HEARD)
        if directory and str(os.getpid()) != os.environ.get(DRIVER) and not self.heard:
            here = Path(directory)
            if not self.slept:
                type(self).slept = True
                time.sleep(0.2)
            else:
                deadline = time.monotonic() + 3.0
                while not (here / "heard").exists() and time.monotonic() < deadline:
                    time.sleep(0.01)
                type(self).heard = True
                mark = "in-time" if (here / "heard").exists() else "too-late"
                (here / f"{mark}-{os.getpid()}").touch()
        return super().run(op, input)


def _heard_in_time(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> bool:
    """Whether, under jobs=2, the driver heard the workers' counts while their searches ran.
    The workers are forked, whatever threads earlier tests left in this process (which make
    the scheduler spawn them instead): a wrong scheduler patched into this process must reach
    them."""
    monkeypatch.setenv(HEARD, str(tmp_path))
    monkeypatch.setenv(DRIVER, str(os.getpid()))
    monkeypatch.setattr(_parallel, "_start_method", lambda: "fork")

    def hear(event: ProgressEvent) -> None:
        if isinstance(event, ExamplesJudged) and event.judged:
            (tmp_path / "heard").touch()

    check_implementation(WaitsToBeHeard, ops=("classify",), max_examples=40, jobs=2,
                         on_event=hear)
    assert list(tmp_path.glob("in-time-*")) or list(tmp_path.glob("too-late-*"))
    return not list(tmp_path.glob("too-late-*"))


def test_the_examples_judged_reach_the_driver_while_the_searches_run(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A worker's count of examples reaches the run's listener while its search still runs,
    not when the search (or the run) ends: the implementation waits for it, and is not kept
    waiting."""
    assert _heard_in_time(monkeypatch, tmp_path)


@pytest.mark.parametrize("wrong", ["events at the run's end", "counts at each search's end"])
def test_a_scheduler_telling_counts_late_keeps_the_workers_waiting(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, wrong: str) -> None:
    """The check above fails on a scheduler that delivers the workers' events at the end of the
    run, and on searches that tell their count only when they end (forked workers inherit the
    patch)."""
    if wrong == "events at the run's end":
        monkeypatch.setattr(_parallel, "Workers", EndOnly)
    else:
        monkeypatch.setattr(engine_module, "EXAMPLES_EVERY", math.inf)
    assert not _heard_in_time(monkeypatch, tmp_path)


def test_max_time_bounds_a_run_with_two_jobs() -> None:
    report = check_implementation(REFERENCE, effort="thorough", jobs=2, max_time=2.0)
    assert report.cut_short == "the run reached --max-time"
    assert report.duration < 2.0 + 10.0  # starting the workers, and one request each to end
    outcomes = Counter(result.outcome for result in report.results)
    assert outcomes["untested"] > 0
    assert set(outcomes) <= {"pass", "untested"}
    assert not report.conforms


def test_an_implementation_raising_in_a_worker_reports_the_same_crash() -> None:
    one, two = both(RaisesOnSelect, ops=("select", "classify"), effort="quick")
    assert one.result_for("select.agrees").outcome in ("crash", "error", "fail")
    assert document(two) == document(one)


def test_an_implementation_that_cannot_start_raises_what_one_process_raises() -> None:
    """Under jobs=2 a worker's start answers the handshake: its error is one process's."""
    raised = []
    for jobs in (1, 2):
        with pytest.raises(ImplementationError, match="no licence for this machine") as error:
            check_implementation(NeverStarts, ops=("classify",), max_examples=5, jobs=jobs)
        raised.append(str(error.value))
    assert raised[1] == raised[0]


def test_an_implementation_workers_cannot_import_is_refused_with_the_fix() -> None:
    class Local(Reference):
        pass

    with pytest.raises(HarnessError, match="python:MODULE:ATTR"):
        check_implementation(Local, ops=("classify",), max_examples=5, jobs=2)


@pytest.mark.parametrize("jobs", [0, -1, 1.5])
def test_jobs_must_be_a_positive_whole_number(jobs: Any) -> None:
    with pytest.raises(HarnessError, match=re.escape(f"jobs={jobs!r} is not a number of worker "
                                                     "processes; pass a whole number")):
        check_implementation(REFERENCE, ops=("classify",), max_examples=5, jobs=jobs)


# -- the round driver, without processes ---------------------------------------------------------


def _engine() -> Engine:
    settings = RunSettings(options=CheckOptions(max_examples=60), capabilities=Capabilities(),
                           identity="test")
    return Engine(cast(Any, None), settings)


def _searched(search: OpSearch, family: int, *, judged: int, found: str | None = None,
              calls: int = 5) -> FamilySearch:
    counts = _Counts(skipped=1)
    counts.judged.update({rule.id: judged for rule in search.op.rules})
    counts.skip_reasons["no reason"] += 1
    finding = None if found is None else Finding(
        op_input=[], violation=Violation(found, "planted"), outcome="fail", actual=None,
        stderr="")
    return FamilySearch(op=search.op.name, family=search.families[family].name, found=finding,
                        counts=counts, judged_this_search=judged, calls=calls, seconds=0.5)


def test_a_round_counts_the_families_up_to_the_finder_and_no_further() -> None:
    engine = _engine()
    search = OpSearch(engine, "settle")
    assert len(search.families) >= 3
    rule = search.op.rules[0].id
    assert search.next_round() == frozenset()
    assert not search.apply(_searched(search, 0, judged=7))
    assert search.apply(_searched(search, 1, judged=3, found=rule))
    # The round is over: a later family's search has nowhere to go.
    with pytest.raises(AssertionError, match="outside a round"):
        search.apply(_searched(search, 2, judged=100))
    assert search.state.judged[search.op.rules[1].id] == 10
    assert search.state.skipped == 2
    assert search.state.skip_reasons == Counter({"no reason": 2})
    assert engine.calls == 10
    assert search.round_seconds == [1.0]
    assert list(search.found) == [rule]
    # The next round sets the rule aside; a round that finds nothing ends the search, and a
    # family that judged under half of its examples is listed as starved.
    assert search.next_round() == frozenset({rule})
    last = len(search.families) - 1
    for family in range(last):
        assert not search.apply(_searched(search, family, judged=search.shares[family]))
    assert search.apply(_searched(search, last, judged=0))
    assert search.state.starved == [search.families[last].name]
    assert search.next_round() is None
    results = engine.verdicts(search)
    assert [result.rule.id for result in results] == [rule.id for rule in search.op.rules]
    assert results[0].outcome == "fail"


def test_families_must_be_counted_in_order() -> None:
    search = OpSearch(_engine(), "settle")
    search.next_round()
    with pytest.raises(AssertionError):
        search.apply(_searched(search, 1, judged=1))


# -- --shard ---------------------------------------------------------------------------------


def test_shards_are_disjoint_and_cover_every_operation() -> None:
    for parts in (1, 2, 3, 4, 9, 12):
        slices = [shard_ops(OPS, (k, parts)) for k in range(1, parts + 1)]
        every = [op for part in slices for op in part]
        assert sorted(every) == sorted(OPS)
        assert all(list(part) == [op for op in OPS if op in part] for part in slices)
    assert len(split_ops(OPS, 20)) == len(OPS)


@pytest.mark.parametrize("value", ["0/2", "3/2", "a/b", "2", "1/0", ""])
def test_a_bad_shard_names_the_value_and_the_form(value: str) -> None:
    with pytest.raises(HarnessError, match=re.escape(f"--shard: {value!r} is not K/N")):
        parse_shard(value)


def test_os_exit_in_a_worker_is_a_harness_error_not_a_traceback(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An implementation run in process that ends its process takes a worker with it: the run
    stops with an error naming the way out (one process would simply die)."""
    monkeypatch.setenv("EVENTPROOF_FAULT_AT", "2")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    monkeypatch.syspath_prepend(root)
    with pytest.raises(HarnessError, match=r"worker process of --jobs 2 ended .*--isolate"):
        check_implementation("python:tests.integration.programs.misbehaving_impl:ExitsHard",
                             ops=("classify", "select"), max_examples=10, jobs=2,
                             isolate=False)
