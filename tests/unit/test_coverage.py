"""A verdict is earned: a rule judged on no answer is never ``pass`` (spec/protocol.md §5.6)."""

from __future__ import annotations

import io
import sys
import time
from typing import Any

import pytest
from eventproof.conformance import check_implementation
from eventproof.conformance._engine import _SET_ASIDE_BEFORE_ANY_JUDGED
from eventproof.conformance._json import holds_lone_surrogate
from eventproof.conformance._model import Capabilities
from eventproof.conformance._operations import operation
from eventproof.conformance._reports import (
    limits_line,
    markdown_summary,
    render_console,
    report_document,
    skips_line,
)
from eventproof.conformance._schemas import schema_issues
from eventproof.reference import Reference
from rich.console import Console


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
    report = check_implementation(SkipsEverything, ops=["fold"], effort="quick")
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
    allowed = check_implementation(SkipsEverything, ops=["fold"], effort="quick",
                                   allow_untested=True)
    # --allow-untested lets an untested rule through, but a run that judged no rule at all
    # checked nothing: it never conforms (spec/protocol.md §5.6).
    assert not allowed.conforms
    assert allowed.verdict.exit_code == 1
    assert any("no rule was judged" in reason for reason in allowed.verdict.reasons)


def test_skipping_some_requests_passes_with_the_skips_counted() -> None:
    """Skipped requests are counted in the coverage of rules that were judged on the rest."""
    SkipsHalf.calls = 0
    report = check_implementation(SkipsHalf, ops=["select"], effort="quick")
    assert report.conforms
    for result in report.results:
        assert result.outcome == "pass"
        assert result.coverage is not None
        assert result.coverage.judged > 0
        assert result.coverage.skipped > 0
    # The console and the Markdown summary say how many requests were skipped, per operation.
    skipped = max(result.coverage.skipped for result in report.results if result.coverage)
    line = skips_line(report)
    assert line.startswith(f"answered skipped: {skipped} requests (select {skipped})"), line
    assert "§5.3" in line
    console = io.StringIO()
    render_console(report, Console(file=console, width=400, color_system=None))
    assert line in console.getvalue()
    assert line in markdown_summary(report)


def test_a_run_without_skips_says_nothing_of_them() -> None:
    assert skips_line(check_implementation(Reference, ops=["classify"], effort="quick")) == ""


def test_hanging_after_the_first_answer_leaves_the_rest_untested() -> None:
    """After a hang every later request is set aside: the rules it would have judged are
    untested (the search stopped after the timeout), not passed."""
    HangsAfterFirst.calls = 0
    report = check_implementation(HangsAfterFirst, ops=["select"], effort="quick", timeout=0.5)
    assert not report.conforms
    outcomes = {result.rule.id: result.outcome for result in report.results}
    assert outcomes.pop("select.agrees") == "timeout"
    assert set(outcomes.values()) == {"untested"}
    assert all("timed out" in result.note for result in report.results
               if result.outcome == "untested")


def test_errored_answers_judge_only_the_rule_they_break() -> None:
    """A program that errors on every valid request breaks the agreement rule; the rules an
    errored answer cannot judge are untested, never passed."""
    report = check_implementation(ErrorsOnEverything, ops=["fold"], effort="quick")
    outcomes = {result.rule.id: result.outcome for result in report.results}
    assert outcomes == {"fold.shape": "untested", "fold.prefix": "error"}
    shape = report.result_for("fold.shape")
    assert "answered errored" in shape.note


def test_crashing_on_every_request_does_not_conform() -> None:
    """A program that crashes on every request is non-conforming on every rule it declares;
    once the crash is reported, each family search stops after its first answers were all set
    aside (spec/protocol.md §7.4), rather than drawing some 600 inputs it can never judge."""
    report = check_implementation(CrashesOnEverything, ops=["select"], effort="quick",
                                  shrink=False)
    assert not report.conforms
    assert "pass" not in {result.outcome for result in report.results}
    assert report.result_for("select.agrees").outcome == "crash"
    families = operation("select").families(Capabilities())
    assert report.calls <= 1 + _SET_ASIDE_BEFORE_ANY_JUDGED * len(families), report.calls


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


def _holds_unsafe_integer(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_holds_unsafe_integer(item) for item in value.values())
    if isinstance(value, list):
        return any(_holds_unsafe_integer(item) for item in value)
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**53 - 1


class DoubleReader(Reference):
    """Declares ``numbers: "double"`` and breaks on any request holding an integer a double
    cannot hold, which a double reader never sees."""

    def start(self) -> dict[str, Any]:
        handshake = super().start()
        handshake["capabilities"]["numbers"] = "double"
        return handshake

    def run(self, op: str, input: Any) -> Any:
        if _holds_unsafe_integer(input):
            return [{"type": "text", "text": "wrong on purpose"}]
        return super().run(op, input)


#: Each declared limit: the implementation declaring it, and the rule it leaves partly unjudged.
LIMITED = {"loneSurrogates: false": (NoLoneSurrogates, "canon.utf8"),
           'numbers: "double"': (DoubleReader, "project.numbers")}


@pytest.mark.parametrize("limit", sorted(LIMITED))
def test_a_declared_limit_costs_no_input_and_says_what_it_left_unjudged(limit: str) -> None:
    """With a declared limit every drawn input is sent as the implementation reads it (none
    concerns the limit any more, none is set aside): each operation's agreement rule judges as
    many answers as without the limit, every rule passes, and the rule the limit leaves partly
    unjudged says so, as does the report's one line."""
    implementation, rule_id = LIMITED[limit]
    ops = ["select", "project"]
    report = check_implementation(implementation, ops=ops, effort="quick")
    plain = check_implementation(Reference, ops=ops, effort="quick")
    assert report.conforms
    assert report.capabilities.limits == (limit,)
    judged = {result.rule.id: result.coverage.judged for result in plain.results
              if result.coverage is not None}
    for result in report.results:
        assert result.outcome == "pass"
        assert result.coverage is not None
        assert result.coverage.judged > 0
        if result.rule.id.endswith(".agrees"):
            assert result.coverage.judged == judged[result.rule.id]
        assert (limit in result.note) == (result.rule.id == rule_id and
                                          result.coverage.limited > 0)
    assert sum(result.coverage.limited for result in report.results
               if result.rule.id in ("select.agrees", "project.agrees")) > 0
    assert limit in limits_line(report)
    assert rule_id in limits_line(report)
    assert limits_line(plain) == ""
    document = report_document(report)
    assert schema_issues(document, "report.json") == []
    assert document["capabilities"]["loneSurrogates"] is (limit != "loneSurrogates: false")
    assert document["capabilities"]["numbers"] == (
        "double" if limit == 'numbers: "double"' else "exact")


def test_without_the_declaration_the_same_program_fails() -> None:
    """The limit is what makes the difference: the same answers, undeclared, break a rule."""

    class Undeclared(NoLoneSurrogates):
        def start(self) -> dict[str, Any]:
            return Reference.start(self)

    assert not check_implementation(Undeclared, ops=["select"], effort="quick").conforms
