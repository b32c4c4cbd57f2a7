"""A verdict is earned: a rule judged on no answer is never ``pass`` (spec/protocol.md §5.6)."""

from __future__ import annotations

import sys
import time
from typing import Any

from eventproof.conformance import check_implementation
from eventproof.conformance._json import holds_lone_surrogate
from eventproof.conformance._reports import report_document
from eventproof.conformance._schemas import schema_issues
from eventproof.reference import Reference


class SkipsEverything(Reference):
    """Answers every request ``skipped``."""

    def run(self, op: str, input: Any) -> Any:
        raise NotImplementedError("not implemented yet")


class SkipsHalf(Reference):
    """Skips every other request and answers the rest like the reference."""

    calls = 0

    def run(self, op: str, input: Any) -> Any:
        type(self).calls += 1
        if type(self).calls % 2:
            raise NotImplementedError("odd requests are not supported")
        return super().run(op, input)


class HangsAfterFirst(Reference):
    """Answers the first request, then never answers again."""

    calls = 0

    def run(self, op: str, input: Any) -> Any:
        type(self).calls += 1
        if type(self).calls > 1:
            time.sleep(60)
        return super().run(op, input)


class ErrorsOnEverything(Reference):
    """Answers every request ``errored``."""

    def run(self, op: str, input: Any) -> Any:
        raise ValueError("cannot do that")


class CrashesOnEverything(Reference):
    """Exits on every request."""

    def run(self, op: str, input: Any) -> Any:
        sys.exit(3)


def test_skipping_everything_is_untested_not_pass() -> None:
    """A program that skips every request conforms to nothing: each rule is untested, with the
    skip reason, and the run does not conform unless untested rules are allowed."""
    report = check_implementation(SkipsEverything, ops=["fold"], examples="quick")
    assert {result.outcome for result in report.results} == {"untested"}
    assert not report.conforms
    for result in report.results:
        assert "answered skipped" in result.note
        assert "not implemented yet" in result.note
        assert result.coverage is not None
        assert result.coverage.judged == 0
        assert result.coverage.skipped > 0
    document = report_document(report)
    assert schema_issues(document, "report.json") == []
    assert document["judgedRules"] == 0
    allowed = check_implementation(SkipsEverything, ops=["fold"], examples="quick",
                                   allow_untested=True)
    # --allow-untested lets an untested rule through, but a run that judged no rule at all
    # checked nothing: it never conforms (spec/protocol.md §5.6).
    assert not allowed.conforms
    assert allowed.verdict.exit_code == 1
    assert any("no rule was judged" in reason for reason in allowed.verdict.reasons)


def test_skipping_some_requests_passes_with_the_skips_counted() -> None:
    """Skipped requests are counted in the coverage of rules that were judged on the rest."""
    SkipsHalf.calls = 0
    report = check_implementation(SkipsHalf, ops=["select"], examples="quick")
    assert report.conforms
    for result in report.results:
        assert result.outcome == "pass"
        assert result.coverage is not None
        assert result.coverage.judged > 0
        assert result.coverage.skipped > 0


def test_hanging_after_the_first_answer_leaves_the_rest_untested() -> None:
    """After a hang every later request is set aside: the rules it would have judged are
    untested (the search stopped after the timeout), not passed."""
    HangsAfterFirst.calls = 0
    report = check_implementation(HangsAfterFirst, ops=["select"], examples="quick", timeout=0.5)
    assert not report.conforms
    outcomes = {result.rule.id: result.outcome for result in report.results}
    assert outcomes.pop("select.agrees") == "timeout"
    assert set(outcomes.values()) == {"untested"}
    assert all("timed out" in result.note for result in report.results
               if result.outcome == "untested")


def test_errored_answers_judge_only_the_rule_they_break() -> None:
    """A program that errors on every valid request breaks the agreement rule; the rules an
    errored answer cannot judge are untested, never passed."""
    report = check_implementation(ErrorsOnEverything, ops=["fold"], examples="quick")
    outcomes = {result.rule.id: result.outcome for result in report.results}
    assert outcomes == {"fold.shape": "untested", "fold.prefix": "error"}
    shape = report.result_for("fold.shape")
    assert "answered errored" in shape.note


def test_crashing_on_every_request_does_not_conform() -> None:
    """A program that crashes on every request is non-conforming on every rule it declares."""
    report = check_implementation(CrashesOnEverything, ops=["select"], examples="quick")
    assert not report.conforms
    assert "pass" not in {result.outcome for result in report.results}
    assert report.result_for("select.agrees").outcome == "crash"


class NoLoneSurrogates(Reference):
    """Declares ``loneSurrogates: false`` and breaks on any request that holds one."""

    def start(self) -> dict[str, Any]:
        handshake = super().start()
        handshake["capabilities"]["loneSurrogates"] = False
        return handshake

    def run(self, op: str, input: Any) -> Any:
        if holds_lone_surrogate(input):
            return [{"type": "text", "text": "wrong on purpose"}]
        return super().run(op, input)


def test_a_declared_limit_reduces_coverage_and_is_reported() -> None:
    """With loneSurrogates false no request holds a lone surrogate, the rules still pass on the
    other requests, and each says how many requests the limit set aside."""
    report = check_implementation(NoLoneSurrogates, ops=["select"], examples="quick")
    assert report.conforms
    assert report.capabilities.lone_surrogates is False
    for result in report.results:
        assert result.outcome == "pass"
        assert result.coverage is not None
        assert result.coverage.limited > 0
        assert result.coverage.judged > 0
        assert "loneSurrogates: false" in result.note
    document = report_document(report)
    assert schema_issues(document, "report.json") == []
    assert document["capabilities"]["loneSurrogates"] is False


def test_without_the_declaration_the_same_program_fails() -> None:
    """The limit is what makes the difference: the same answers, undeclared, break a rule."""

    class Undeclared(NoLoneSurrogates):
        def start(self) -> dict[str, Any]:
            return Reference.start(self)

    assert not check_implementation(Undeclared, ops=["select"], examples="quick").conforms
