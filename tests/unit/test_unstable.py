"""Answers that change between two asks of one input are ``unstable``: in a run, and in replay.

The implementations are generated (``miniatures.unstable``): their answer to an input depends on
a call counter, on randomness seeded per call, or on the parity of a clock. Each must come out
``unstable`` — never ``pass``, never a plain ``fail`` — and a case saved from it must replay as
``unstable``, never ``fixed``. A stable wrong implementation stays a plain ``fail``.
"""

from __future__ import annotations

import json
import os
import random
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from eventproof.conformance import check_implementation
from eventproof.conformance._engine import STABILITY_ASKS
from eventproof.conformance._model import FAILING
from eventproof.conformance._replay import load_cases, replay, save_failures
from eventproof.conformance._reports import _STYLE, report_document
from eventproof.conformance._results import OUTCOMES, ExitCode, RunReport
from eventproof.conformance._schemas import schema_issues
from eventproof.reference import Reference
from miniatures.unstable import (
    AlwaysTheSameWrong,
    Unstable,
    WrongAtRandom,
    at_random,
    by_clock_parity,
    by_counter,
)

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


def _no_two_wrong_in_a_row(pattern: tuple[bool, ...]) -> bool:
    """Any STABILITY_ASKS consecutive calls include a right one (so asking again shows it)."""
    length = len(pattern)
    return any(pattern) and all(
        not all(pattern[(start + step) % length] for step in range(STABILITY_ASKS))
        for start in range(length))


def unstable_implementations(count: int, seed: int) -> list[Unstable]:
    """``count`` implementations whose answer to one input differs between consecutive asks,
    drawn from a generator seeded by ``seed``: by a counter pattern (no STABILITY_ASKS wrong
    calls in a row), at random (seeded per call, any rate), or by a clock's parity (odd ticks).
    Each search under them is a Hypothesis search of its own, so they are drawn here, not by
    a Hypothesis test around it (nested searches would share one example database)."""
    draw = random.Random(seed)
    made: list[Unstable] = []
    while len(made) < count:
        kind = ("counter", "random", "clock")[len(made) % 3]
        if kind == "counter":
            pattern = tuple(draw.random() < 0.5 for _ in range(draw.randint(2, 5)))
            if _no_two_wrong_in_a_row(pattern):
                made.append(Unstable(by_counter(pattern), f"counter {pattern}"))
        elif kind == "random":
            number, rate = draw.getrandbits(32), draw.choice([0.5, 0.7, 0.9, 1.0])
            made.append(Unstable(at_random(number, rate), f"random seed {number} rate {rate}"))
        else:
            start, tick = round(draw.uniform(0, 1000), 3), draw.choice([1, 3, 5, 7])
            made.append(Unstable(by_clock_parity(start, tick), f"clock from {start} tick {tick}"))
    return made


GENERATED = unstable_implementations(6, seed=20261203)


def _check(impl: object) -> RunReport:
    # -x: the run ends at its first broken rule, which is all each property needs.
    return check_implementation(impl, ops=["select"], effort="quick", max_examples=15,
                                timeout=5.0, exitfirst=True)


@pytest.mark.parametrize("impl", GENERATED, ids=repr)
def test_an_answer_that_changes_is_unstable_never_pass_or_fail(impl: Unstable) -> None:
    """Every rule the generated implementation broke is unstable, its counterexample shows both
    answers, and the run does not conform (exit code 1)."""
    report = _check(impl)
    broken = [result for result in report.results if result.counterexample is not None]
    assert broken, f"{impl!r} broke no rule: an answer that changes must not pass"
    for result in broken:
        assert result.outcome == "unstable", (impl, result.rule.id, result.outcome)
    first = broken[0].counterexample
    assert first is not None
    assert "first " in first.message
    assert ", then " in first.message
    assert first.kind == "unstable"
    assert not report.conforms
    assert report.verdict.exit_code == ExitCode.NONCONFORMING
    assert "unstable" in " ".join(report.verdict.reasons)
    document = report_document(report)
    assert schema_issues(document, "report.json") == []
    assert document["totals"]["unstable"] == len(broken)


@pytest.mark.parametrize("impl", GENERATED, ids=repr)
def test_a_case_saved_unstable_replays_unstable_never_fixed(
        impl: Unstable, tmp_path: Path) -> None:
    """The case files of such a run record the outcome; replaying them against the same
    implementation (its counter, generator or clock continuing) says unstable, never fixed;
    the reference, whose answers agree, fixes them."""
    report = _check(impl)
    written = save_failures(report, tmp_path)
    cases = load_cases(sorted(written.values()))
    assert cases
    assert {case.outcome for case in cases} == {"unstable"}
    statuses = {result.status for result in replay(cases, impl, timeout=5.0)}
    assert statuses == {"unstable"}, (impl, statuses)
    assert {result.status for result in replay(cases, Reference, timeout=5.0)} == {"fixed"}


def test_a_stable_wrong_answer_is_a_plain_failure(tmp_path: Path) -> None:
    """The same wrong answer on every ask is a plain fail (asking again found it stable), and
    replays as still failing: unstable is never said of a deterministic bug."""
    report = _check(AlwaysTheSameWrong())
    broken = [result for result in report.results if result.counterexample is not None]
    assert broken
    assert {result.outcome for result in broken} == {"fail"}
    cases = load_cases(sorted(save_failures(report, tmp_path).values()))
    assert {result.status for result in replay(cases, AlwaysTheSameWrong, timeout=5.0)} == {
        "still failing"}


def test_wrong_at_random_is_unstable_through_its_python_spec() -> None:
    """The named miniature (seeded per call) is unstable when run as python:MODULE:ATTR."""
    report = check_implementation("python:miniatures.unstable:WrongAtRandom", ops=["select"],
                                  effort="quick", max_examples=30, timeout=5.0)
    assert "unstable" in {result.outcome for result in report.results}
    assert "fail" not in {result.outcome for result in report.results}
    assert isinstance(WrongAtRandom(), Unstable)


def test_unstable_is_listed_everywhere_an_outcome_is() -> None:
    """The outcome is counted, styled and described by every output, and fails a run."""
    assert "unstable" in OUTCOMES
    assert "unstable" in FAILING
    assert set(_STYLE) == set(OUTCOMES)
    report = json.loads((SCHEMAS / "report.json").read_text("utf-8"))
    assert report["$defs"]["outcome"]["enum"] == list(OUTCOMES)
    assert report["$defs"]["totals"]["required"] == list(OUTCOMES)
    protocol = (SCHEMAS.parent / "spec" / "protocol.md").read_text("utf-8")
    assert "`unstable`" in protocol


class InterruptedWhenAskedAgain(Unstable):
    """Wrong on every call; the first ask after a wrong answer is interrupted (Ctrl-C: SIGINT
    to the process, which in process is the harness's)."""

    def __init__(self) -> None:
        super().__init__(lambda call: "always", "interrupted when asked again")
        self.wrong_seen = False

    def select(self, input: Any) -> Any:
        answer = super().select(input)
        if self.wrong_seen and not getattr(self, "interrupted", False):
            self.interrupted = True
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(2)
        self.wrong_seen = True
        return answer


def test_ctrl_c_while_asking_again_ends_the_run_and_keeps_the_failure() -> None:
    """An interrupt while a failure's input is asked again ends the run as an interrupt inside
    the search does: interrupted (exit code 130), the failure kept as found. (SIGINT raises
    KeyboardInterrupt here as at a terminal, even in a test session started in the background,
    which has it ignored.)"""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _ctrl_c_while_asking_again()
    finally:
        signal.signal(signal.SIGINT, previous)


def _ctrl_c_while_asking_again() -> None:
    report = check_implementation(InterruptedWhenAskedAgain(), ops=["select"], effort="quick",
                                  max_examples=15, timeout=5.0)
    assert report.cut_short == "the run was interrupted"
    assert report.verdict.exit_code == ExitCode.INTERRUPTED
    assert "fail" in {result.outcome for result in report.results}
