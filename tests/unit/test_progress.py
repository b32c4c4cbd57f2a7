"""A check's progress: typed events, one model that adds them up, and the status line.

The model (:class:`RunProgress`) is judged on every interleaving of the events of several
operations that a scheduler may deliver (rounds, family searches run ahead of their round,
counts told more than once and out of order, events after an operation's end), against counts
kept here the plain way; wrong models show that each property can fail.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

import pytest
from eventproof.conformance import HarnessError, check_implementation, cli
from eventproof.conformance._check import CheckOptions, RunSettings
from eventproof.conformance._engine import Engine, FamilySearch, Finding, OpSearch
from eventproof.conformance._model import Capabilities, Violation
from eventproof.conformance._operations import OPS
from eventproof.conformance._progress import (
    EXAMPLES_EVERY,
    ExamplesJudged,
    GivenUp,
    ProgressEvent,
    RuleBroken,
    RunProgress,
    SearchBegan,
    SearchEnded,
)
from eventproof.conformance._shard import WEIGHT
from eventproof.reference import Reference
from hypothesis import given, settings
from hypothesis import strategies as st
from miniatures.selection import LastMessageUnfiltered


@dataclass(frozen=True)
class Run:
    """The events of one check's operations: one stream per operation (its rounds begun, rules
    broken and end) and one per family search (its counts), each stream in its own order."""

    ops: tuple[str, ...]
    streams: tuple[tuple[ProgressEvent, ...], ...]


@st.composite
def runs(draw: st.DrawFn) -> tuple[Run, list[ProgressEvent]]:
    """A run's events, and one interleaving of them a scheduler may deliver."""
    ops = tuple(draw(st.lists(st.sampled_from(OPS), min_size=1, max_size=4, unique=True)))
    streams: list[tuple[ProgressEvent, ...]] = []
    number = 0
    for op in ops:
        rounds = draw(st.integers(1, 3))
        planned = draw(st.integers(1, 40))
        control: list[ProgressEvent] = []
        examples = 0
        for round_ in range(1, rounds + 1):
            control.append(SearchBegan(op, round_, planned, round_ - 1))
            # The round's family searches; before a later round, one may run ahead into it
            # (on a guess of the rule this round breaks, right or wrong).
            searches = [round_] * draw(st.integers(1, 3))
            if round_ < rounds:
                searches += [round_ + 1] * draw(st.integers(0, 2))
            for family, family_round in enumerate(searches):
                number += 1
                budget = draw(st.integers(1, 20))
                counts = draw(st.lists(st.integers(0, 30), min_size=1, max_size=4))
                if draw(st.booleans()):
                    counts.sort()  # told in order (else as two channels may deliver them)
                streams.append(tuple(ExamplesJudged(op, f"f{family}", family_round, number,
                                                    count, budget) for count in counts))
                examples += max(counts)
            if round_ < rounds:
                control.append(RuleBroken(op, f"{op}.rule-{round_}", "fail"))
        if draw(st.booleans()):
            control.append(GivenUp(op, "the program can no longer be restarted"))
        control.append(SearchEnded(op, rounds, examples))
        streams.append(tuple(control))
    order = draw(st.permutations([i for i, stream in enumerate(streams) for _ in stream]))
    position = [0] * len(streams)
    delivered = []
    for index in order:
        delivered.append(streams[index][position[index]])
        position[index] += 1
    return Run(ops, tuple(streams)), delivered


def _holds(model: Callable[[tuple[str, ...]], RunProgress]) -> Callable[[], None]:
    """The property, for the model ``model`` makes: after every event, the counts are those
    kept here (operations begun, ended and under way, examples judged, rules broken) and the
    share done never went back; once every event is heard, the share is 1."""

    @settings(max_examples=300, derandomize=True, database=None, deadline=None)
    @given(runs())
    def holds(drawn: tuple[Run, list[ProgressEvent]]) -> None:
        run, delivered = drawn
        progress = model(run.ops)
        assert progress.done() == 0.0
        begun: list[str] = []
        ended: set[str] = set()
        broken: set[str] = set()
        judged: dict[int, int] = {}
        share = 0.0
        for event in delivered:
            progress.hear(event)
            if isinstance(event, SearchBegan) and event.op not in begun:
                begun.append(event.op)
            elif isinstance(event, SearchEnded):
                ended.add(event.op)
            elif isinstance(event, RuleBroken):
                broken.add(event.rule)
            elif isinstance(event, ExamplesJudged):
                judged[event.search] = max(judged.get(event.search, 0), event.judged)
            assert list(progress.begun) == begun
            assert progress.ended == ended
            assert progress.under_way == [op for op in begun if op not in ended]
            assert set(progress.broken) == broken
            assert progress.examples == sum(judged.values())
            now = progress.done()
            assert share <= now <= 1.0, (event, share, now)
            share = now
        assert share == 1.0
        assert progress.seconds_left(10.0) == 0.0

    return holds


def test_the_counts_are_exact_and_the_share_grows_to_one_for_any_interleaving() -> None:
    """For any interleaving of the events of several operations, the model's counts are exact,
    its share done never goes back, and it is 1 at the end."""
    _holds(RunProgress)()


class ShareOfBegun(RunProgress):
    """Wrong: the share of the operations *begun* (before the current one, and half of it),
    as the status line once counted; under --jobs every operation begins at once."""

    def done(self) -> float:
        total = sum(op.weight for op in self.ops.values())
        begun = [op for op in self.begun if op in self.ops]
        finished = sum(self.ops[op].weight for op in begun[:-1])
        current = self.ops[begun[-1]].weight / 2 if begun else 0
        return min(1.0, (finished + current) / total)


class ShareOfAllRounds(RunProgress):
    """Wrong: the examples judged in every round of the plan of every round begun, which falls
    back each time a round begins."""

    def done(self) -> float:
        total = sum(op.weight for op in self.ops.values())
        shares = []
        for op in self.ops.values():
            ran = sum(min(count, op.planned) for count in op.judged.values())
            shares.append(1.0 if op.ended else ran / max(1, op.planned * op.round))
        return sum(op.weight * share for op, share in zip(self.ops.values(), shares,
                                                           strict=True)) / total


class AddsEveryCount(RunProgress):
    """Wrong: each count of examples added to the total, as if it were the examples judged since
    the last (a search that tells its count twice is counted twice)."""

    def _count(self, event: ExamplesJudged, op: Any) -> None:
        before = self.examples
        super()._count(event, op)
        self.examples = before + event.judged


class KeepsTheLastCount(RunProgress):
    """Wrong: a search's last count heard, even when it is older than one heard before."""

    def _count(self, event: ExamplesJudged, op: Any) -> None:
        before = self.searches.pop(event.search, None)
        if before is not None:
            self.examples -= before.judged
        super()._count(event, op)


@pytest.mark.parametrize("wrong", [ShareOfBegun, ShareOfAllRounds, AddsEveryCount,
                                   KeepsTheLastCount])
def test_wrong_models_are_caught(wrong: Callable[[tuple[str, ...]], RunProgress]) -> None:
    """The property above fails for each wrong model."""
    with pytest.raises(AssertionError):
        _holds(wrong)()


@given(st.integers(1, 500), st.data())
def test_one_round_is_done_in_proportion_to_its_examples(planned: int, data: Any) -> None:
    """A search of one round (an implementation that breaks nothing) is done in proportion to
    the examples judged of those planned, counted up to each family search's own plan."""
    progress = RunProgress(("select",))
    progress.hear(SearchBegan("select", 1, planned, 0))
    budgets = data.draw(st.lists(st.integers(1, planned), min_size=1, max_size=5))
    done = 0
    for number, budget in enumerate(budgets):
        judged = data.draw(st.integers(0, 2 * budget))
        progress.hear(ExamplesJudged("select", "f", 1, number, judged, budget))
        done += min(judged, budget)
    assert progress.done() == pytest.approx(min(1.0, done / planned))


def test_operations_weigh_what_their_searches_cost() -> None:
    """An operation ended counts its weight (:data:`._shard.WEIGHT`) of the whole; one not
    begun counts nothing, and the time left is the rate so far."""
    progress = RunProgress(("details", "lane"))
    progress.hear(SearchBegan("details", 1, 10, 0))
    progress.hear(SearchEnded("details", 1, 10))
    share = WEIGHT["details"] / (WEIGHT["details"] + WEIGHT["lane"])
    assert progress.done() == pytest.approx(share)
    assert progress.seconds_left(30.0) == pytest.approx(30.0 * (1 - share) / share)


def test_the_status_line_shows_the_model() -> None:
    """The status line says how many operations are done and under way, the examples judged,
    the rules broken, the seconds gone and left (at the rate since the searches began), and
    the last thing the searches did."""
    now = [0.0]
    progress = cli.Progress(("select", "project"), clock=lambda: now[0])
    now[0] = 2.0  # the implementation started: the searches' rate is taken from here
    progress.hear(SearchBegan("select", 1, 100, 0))
    progress.hear(SearchBegan("project", 1, 100, 0))
    now[0] = 8.0
    progress.hear(ExamplesJudged("select", "logs", 1, 1, 1200, 100))
    progress.hear(RuleBroken("select", "select.last-message", "fail"))
    progress.hear(SearchEnded("select", 2, 1200))
    line = progress.line().plain
    assert line.startswith("1/2 operations done (1 under way), 1,200 examples, "
                           "1 rule(s) broken, 8 s, about 12 s left · select: done after 2 "
                           "round(s)")


def test_a_reason_given_up_stays_on_the_status_line() -> None:
    """The reason the implementation was given up, from outside, is shown on the one line."""
    progress = cli.Progress(("select",))
    progress.hear(GivenUp("select", "no answer\nEVENTPROOF: all rules pass\r"))
    assert progress.line().plain.endswith("given up: no answer\\nEVENTPROOF: all rules pass\\r")


def test_the_seconds_run_on_between_events() -> None:
    """The line is rendered at each refresh, so its seconds run on while no event comes."""
    now = [0.0]
    progress = cli.Progress(("select",), clock=lambda: now[0])
    progress.hear(SearchBegan("select", 1, 100, 0))
    now[0] = 7.0
    assert ", 7 s · select: round 1" in progress.__rich__().plain


def test_the_old_callback_still_hears_rounds_and_broken_rules() -> None:
    """``on_progress(op, message)``, deprecated, hears each round's ``searching (N rule(s)
    broken so far)`` and each ``RULE: OUTCOME``, in the order of the events."""
    events: list[ProgressEvent] = []
    said: list[tuple[str, str]] = []
    with pytest.warns(DeprecationWarning, match="on_progress.*on_event"):
        check_implementation(LastMessageUnfiltered, ops=("select",), max_examples=20,
                             on_event=events.append,
                             on_progress=lambda op, message: said.append((op, message)))
    began = [event for event in events if isinstance(event, SearchBegan)]
    broken = [event for event in events if isinstance(event, RuleBroken)]
    assert broken
    assert len(began) == len(broken) + 1
    assert said == [(event.op, f"searching ({event.broken} rule(s) broken so far)"
                     if isinstance(event, SearchBegan) else f"{event.rule}: {event.outcome}")
                    for event in events if isinstance(event, SearchBegan | RuleBroken)]


def test_a_check_without_the_old_callback_warns_nothing() -> None:
    """A check given ``on_event`` only warns nothing, and tells every operation's end."""
    events: list[ProgressEvent] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        check_implementation("python:eventproof.reference:Reference", ops=("classify", "lane"),
                             max_examples=10, on_event=events.append)
    ended = [event for event in events if isinstance(event, SearchEnded)]
    assert [event.op for event in ended] == ["classify", "lane"]
    model = RunProgress(("classify", "lane"))
    for event in events:
        model.hear(event)
    assert model.done() == 1.0
    assert model.examples == sum(event.examples for event in ended)


class ListenerStops(Exception):
    """What the listener below raises."""


def _stops_at_the_first_count(event: ProgressEvent) -> None:
    if isinstance(event, ExamplesJudged):
        raise ListenerStops("the listener stops the check")


def _tells_unguarded(self: Engine, working: Any) -> None:
    """Wrong: the count told from inside the search, what the listener raises left to it."""
    meter = working.meter
    meter.judged += 1
    if self.on_event is not None and time.monotonic() - meter.told_at >= EXAMPLES_EVERY:
        meter.told_at = time.monotonic()
        self.on_event(replace(meter.told, judged=meter.judged))


@pytest.mark.parametrize("jobs", [1, 2])
def test_what_the_listener_raises_ends_the_check_as_raised(jobs: int) -> None:
    """An error the listener raises on a count of examples ends the check as that error, under
    every scheduler: never shrunk as if an answer had failed, nor called an unstable
    implementation."""
    with pytest.raises(ListenerStops, match="the listener stops the check"):
        check_implementation(SlowReference, ops=("settle",), max_examples=200, jobs=jobs,
                             on_event=_stops_at_the_first_count)


def test_a_listener_error_left_to_the_search_is_misreported(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The test above fails when the count is told unguarded inside the search."""
    monkeypatch.setattr(Engine, "_count_example", _tells_unguarded)
    with pytest.raises(HarnessError, match="unstable"):
        check_implementation(SlowReference, ops=("settle",), max_examples=200,
                             on_event=_stops_at_the_first_count)


class SlowReference(Reference):
    """The reference, a hundredth of a second per answer: a search tells its count."""

    def run(self, op: str, input: Any) -> Any:
        time.sleep(0.01)
        return super().run(op, input)


def test_the_command_line_feeds_its_status_line_the_events_of_the_run(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``eventproof run`` with its defaults (``--jobs auto``) feeds the status line's model every
    event: each operation's search ends, the examples are counted, and the share reaches 1."""
    from click.testing import CliRunner

    lines: list[cli.Progress] = []

    def progress(_console: Any, _enabled: bool, ops: tuple[str, ...] = ()) -> Any:
        lines.append(cli.Progress(ops))
        return lines[-1].hear, lambda: None

    monkeypatch.setattr(cli, "_progress", progress)
    result = CliRunner().invoke(cli.main, ["run", "--ops", "classify,lane", "--effort", "quick",
                                           "--deterministic", "--state-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    [line] = lines
    assert line.model.ended == {"classify", "lane"}
    assert line.model.examples > 0
    assert line.model.done() == 1.0
    assert line.line().plain.startswith("2/2 operations done (0 under way), ")


def test_the_round_driver_tells_rounds_rules_give_up_and_one_end() -> None:
    """The driver of an operation's rounds tells each round begun (with the examples it plans
    and the rules broken before it), each rule broken, the implementation given up, and the
    search's end once, with the examples of the searches it counted."""
    events: list[ProgressEvent] = []
    settings = RunSettings(options=CheckOptions(max_examples=60), capabilities=Capabilities(),
                           identity="test")
    engine = Engine(cast(Any, None), settings, on_event=events.append)
    search = OpSearch(engine, "settle")
    rule, family = search.op.rules[0].id, search.families[0].name
    planned = sum(search.shares)
    assert search.next_round() == frozenset()
    found = Finding(op_input=[], violation=Violation(rule, "planted"), outcome="fail",
                    actual=None, stderr="")
    assert search.apply(FamilySearch(op="settle", family=family, found=found, examples=4))
    assert search.next_round() == frozenset({rule})
    assert search.apply(FamilySearch(op="settle", family=family, given_up="spent", examples=2))
    assert search.next_round() is None
    search.stop("interrupted")
    assert events == [SearchBegan("settle", 1, planned, 0), RuleBroken("settle", rule, "fail"),
                      SearchBegan("settle", 2, planned, 1), GivenUp("settle", "spent"),
                      SearchEnded("settle", 2, 6)]
