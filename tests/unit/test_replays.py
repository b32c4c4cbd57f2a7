"""Replays of deterministic searches that found nothing (``_engine.Replays``).

A later deterministic search with the same digest and settings asks the inputs the first one
drew, in order, without drawing: it must come to exactly the report a search under Hypothesis
gives (verdicts, counterexamples, coverage, notes and the count of calls), and the
implementation must receive exactly the same requests. Each comparison checks the reference
first, so that the wrong implementation after it replays the reference's traces until its
answers part from them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from eventproof.conformance import _engine, check_implementation
from eventproof.conformance._engine import Replays, _Trace
from eventproof.conformance._reports import report_document
from eventproof.reference import Reference
from helpers import without_duration
from miniatures import Miniature
from miniatures.budget import RosterWithoutCount
from miniatures.selection import LastMessageUnfiltered
from miniatures.wire import CountsCharacters, KeepsPartial, SliceMinusZeroLoop

#: The traces one test's run keeps (a run owns its traces: there is no process-wide store).
REPLAYS = Replays()


@pytest.fixture(autouse=True)
def _fresh_replays() -> Iterator[None]:
    REPLAYS.clear()
    yield
    REPLAYS.clear()


def document(report: Any) -> dict[str, Any]:
    return without_duration(report_document(report))


class Recording(Miniature):
    """Delegates to ``inner`` and keeps every request it receives, in order."""

    def __init__(self, inner: Any) -> None:
        super().__init__()
        self.inner = inner
        self.requests: list[tuple[str, Any]] = []

    def start(self) -> dict[str, Any]:
        return self.inner.start()  # type: ignore[no-any-return]

    def run(self, op: str, input: Any) -> Any:
        self.requests.append((op, input))
        return self.inner.run(op, input)


#: (wrong implementation, operations, rules the run stops after, examples per operation): a bug of
#: each profile, and a hang (a replay of a search that hangs must learn the same deadlines; the
#: run ends once the hang is reported, the rounds until then being a whole run's). The default
#: run compares two operations of the wire profile, a budget one and the hang; the one-operation
#: selection and wire comparisons are second copies (nox -s slow).
WRONG = [
    pytest.param(LastMessageUnfiltered, ("select",), (), 24, id="selection",
                 marks=pytest.mark.slow),
    pytest.param(CountsCharacters, ("project",), (), 24, id="wire", marks=pytest.mark.slow),
    pytest.param(KeepsPartial, ("classify", "project"), (), 24, id="wire-two-ops"),
    pytest.param(RosterWithoutCount, ("roster",), (), 24, id="budget"),
    pytest.param(SliceMinusZeroLoop, ("project",), ("bound.converges",), 60, id="hang"),
]


def _check(impl: Any, ops: tuple[str, ...], stop_after: tuple[str, ...] = (),
           examples: int = 24, replays: Replays | None = REPLAYS) -> Any:
    return check_implementation(impl, ops=ops, max_examples=examples, timeout=1.0,
                                stop_after=stop_after, replays=replays)


@pytest.mark.parametrize(("wrong", "ops", "stop_after", "examples"), WRONG)
def test_after_a_replay_the_report_and_the_requests_are_a_search_s(
        wrong: type, ops: tuple[str, ...], stop_after: tuple[str, ...], examples: int,
        monkeypatch: pytest.MonkeyPatch) -> None:
    searched = Recording(wrong())
    expected = document(_check(searched, ops, stop_after, examples, replays=None))
    assert not expected["conforms"]
    _check(Reference(), ops, examples=examples)
    assert len(REPLAYS) > 0
    parted = []
    replay = _engine.Engine._replay

    def counted(self: Any, op: Any, trace: Any, excluded: Any, search: Any) -> bool:
        done: bool = replay(self, op, trace, excluded, search)
        parted.append(not done)
        return done

    monkeypatch.setattr(_engine.Engine, "_replay", counted)
    replayed = Recording(wrong())
    assert document(_check(replayed, ops, stop_after, examples)) == expected
    assert replayed.requests == searched.requests
    assert any(parted)  # some replay met the bug and handed over to a search


def test_a_conforming_run_after_another_draws_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The second run of the reference replays every search: Hypothesis runs none."""
    first = document(_check(Reference(), ("select", "project", "details")))
    searches = 0
    real = _engine.isolated_constants

    def counting() -> Any:
        nonlocal searches
        searches += 1
        return real()

    monkeypatch.setattr(_engine, "isolated_constants", counting)
    assert document(_check(Reference(), ("select", "project", "details"))) == first
    assert searches == 0


def test_random_runs_are_never_replayed() -> None:
    check_implementation(Reference(), ops=("select",), effort="quick", deterministic=False,
                         seed=7, replays=REPLAYS)
    assert len(REPLAYS) == 0


def test_a_replay_that_trusts_its_trace_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above fails for a replay that takes a trace's verdicts instead of judging
    the new answers: the wrong implementation then passes."""
    expected = document(_check(LastMessageUnfiltered(), ("select",), replays=None))
    _check(Reference(), ("select",))
    monkeypatch.setattr(_engine.Engine, "_replay", lambda self, op, trace, excluded, search: True)
    assert document(_check(LastMessageUnfiltered(), ("select",))) != expected


def test_a_replay_that_parts_from_its_trace_and_asks_again_is_caught(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above fails for a replay that, once it parts from its trace, lets the
    search ask the implementation again what it already answered: the same verdicts, but the
    implementation receives requests a search would not have sent."""
    searched = Recording(LastMessageUnfiltered())
    expected = document(_check(searched, ("select",), replays=None))
    _check(Reference(), ("select",))
    replay = _engine.Engine._replay

    def asks_again(self: Any, op: Any, trace: Any, excluded: Any, search: Any) -> bool:
        done: bool = replay(self, op, trace, excluded, search)
        search.exchanges = None
        return done

    monkeypatch.setattr(_engine.Engine, "_replay", asks_again)
    replayed = Recording(LastMessageUnfiltered())
    assert document(_check(replayed, ("select",)))["results"] == expected["results"]
    assert len(replayed.requests) > len(searched.requests)


def test_traces_are_kept_up_to_the_byte_bound_oldest_first() -> None:
    replays = Replays(max_bytes=100)
    replays.put(("a",), _Trace((), 60))
    replays.put(("b",), _Trace((), 30))
    assert len(replays) == 2
    assert replays.get(("a",)) is not None  # now the most recently used
    replays.put(("c",), _Trace((), 30))
    assert replays.get(("b",)) is None
    assert replays.get(("a",)) is not None
    assert replays.get(("c",)) is not None
    replays.put(("d",), _Trace((), 101))  # over the bound on its own: never kept
    assert replays.get(("d",)) is None
    replays.put(("a",), _Trace((), 10))  # a new trace for a key replaces the old one
    assert len(replays) == 2


@pytest.mark.parametrize(("impls", "kept"), [(1, False), (2, True)])
def test_the_command_keeps_traces_only_for_an_implementation_after_the_first(
        tmp_path: Any, impls: int, kept: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """``eventproof run`` with one ``--impl`` has nothing to replay: it keeps no trace; with
    several, the run owns one store of traces, shared by its implementations."""
    from click.testing import CliRunner
    from eventproof.conformance.cli import main

    made: list[Replays] = []

    class Owned(Replays):
        def __init__(self) -> None:
            super().__init__()
            made.append(self)

    monkeypatch.setattr(_engine, "Replays", Owned)

    specs = ["--impl", "python:eventproof.reference:Reference"] * impls
    result = CliRunner().invoke(main, ["run", *specs, "--ops", "classify", "--effort", "quick",
                                       "--deterministic", "--no-progress",
                                       "--state-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert (len(made) == 1 and len(made[0]) > 0) is kept
