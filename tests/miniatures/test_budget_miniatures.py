"""The budget profile's deliberately wrong implementations are each caught by the rule they break,
and the unplanted pipeline by none.

Every miniature of ``miniatures.budget`` goes through the engine users run
(``check_implementation`` on its operation, the default budget, deterministic), so these tests
hold the budget strategies and checks together to catching each of the seed's defects within the
default example budget, with a message that names the defect.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest
from eventproof.conformance import RunReport, check_implementation
from eventproof.conformance._clip import clip_value
from eventproof.conformance._model import Capabilities, Case, Errored, ImplErrored, rules_of
from eventproof.conformance._operations import RULES, RULES_BY_ID
from eventproof.conformance.budget import OPERATIONS
from eventproof.reference import InvalidInput, Reference

from miniatures.budget import ALSO, MINIATURES, BudgetPipeline

#: Seconds one request may take before the harness calls it hung.
TIMEOUT = 5.0
CHECK_BY_RULE = {rule: check for op in OPERATIONS for check in op.checks
                 for rule in rules_of(check)}
#: A phrase each counterexample's explanation must contain: the defect, in the words a port's
#: author would recognise it by.
EXPLAINED = {
    "zero-allowance-keeps-whole": "kept whole",
    "first-come-budget": "never renders as \"(no output)\"",
    "first-come-with-floors": "divide what is left by the records left",
    "uncharged-fields": "Charge every field you render to the budget",
    "failures-lose-reason": "the failure's reason",
    "diagnostics-after-output": "claims its errorMessage and stderr before its output",
    "spreads-final-record": "which a final record never carries",
    "ids-not-clipped": "keeps its first 256 code points",
    "task-keeps-tail": "task keeps its head",
    "cuts-in-utf16-units": "count code points, not UTF-16 units",
    "cut-counts-characters": "measured in escaped UTF-8 bytes",
    "task-without-floor": "a row is never unnamed",
    "empty-batch-refused": "a batch has at least one task",
    "roster-without-count": "omittedResults is \"absent\"",
    "unbounded-roster": "over maxBytes",
    "roster-counts-characters": "after JSON escaping",
    "roster-skips-to-fit": "stops at the first record that does not fit",
    "spreads-live-record": "spread instead of built member by member",
    "roster-refuses-small-bound": "below 4096",
    "lane-counts-shown": "the real task count is",
    "lane-clears-count": "Recompute the count",
    "lane-keeps-update-count": "must not survive the merge",
    "lane-uncapped": "cap the merged roster at the update's total",
    "lane-reads-first-record": "reading 'id'",
    "status-published-immediately": "status transitions included",
    "late-callbacks-published": "callbacks after the return are dropped",
    "no-terminal-flush": "flush the pending state",
    "stale-publish": "never a stale one",
    "publish-without-trailing-edge": ".at: yours is",
}


@functools.cache
def run(name: str) -> RunReport:
    """The engine's verdict on one miniature's operation (once per test process). The run stops
    once the rules the test asks about are broken: the rounds until then, and so their verdicts,
    are those of a whole run."""
    cls, rule = MINIATURES[name]
    return check_implementation(cls, ops=[RULES_BY_ID[rule].op], timeout=TIMEOUT,
                                stop_after=[rule, *ALSO.get(name, ())])


def case_for(impl: Any, op: str, op_input: Any) -> Case:
    """The case the checks judge: the reference's answer and ``impl``'s, for ``op_input``."""
    try:
        expected: Any = Reference().run(op, op_input)
    except InvalidInput as error:
        expected = Errored(str(error))
    try:
        actual: Any = impl.run(op, op_input)
    except Exception as error:  # in process, any exception is the answer "errored"
        actual = ImplErrored(str(error))
    return Case(op, op_input, expected, actual, Capabilities())


@pytest.mark.parametrize("name", sorted(MINIATURES))
def test_miniature_is_caught_by_its_rule(name: str) -> None:
    """The run rejects the miniature by its rule, with a counterexample whose message names the
    defect and on which the rule's own check bites; the other rules it breaks (``ALSO``) fail
    too."""
    cls, rule = MINIATURES[name]
    result = run(name).result_for(rule)
    assert result.outcome in {"fail", "error"}, (name, result.outcome, result.note)
    counterexample = result.counterexample
    assert counterexample is not None
    assert EXPLAINED[name] in counterexample.message, counterexample.message
    if not rule.endswith(".agrees"):
        assert "budget.md §" in counterexample.message, counterexample.message
    case = case_for(cls(), counterexample.op, counterexample.input)
    if isinstance(case.actual, ImplErrored):
        assert counterexample.actual["errored"].endswith(case.actual.message), name
    else:
        assert clip_value(case.actual) == counterexample.actual, name  # as reports show it
    violations = list(CHECK_BY_RULE[rule](case))
    assert violations, (name, counterexample.input)
    assert {violation.rule for violation in violations} == {rule}
    # The other rules the defect breaks fail in the same run.
    for other in ALSO.get(name, ()):
        assert RULES_BY_ID[other].op == RULES_BY_ID[rule].op
        outcome = run(name).result_for(other).outcome
        assert outcome in {"fail", "error"}, (name, other, outcome)


@pytest.mark.parametrize("op", [op.name for op in OPERATIONS])
def test_unplanted_pipeline_conforms(op: str) -> None:
    """Without a planted bug the miniatures' pipeline breaks no rule and leaves none untested:
    each miniature differs from a conforming port by its bug alone."""
    report = check_implementation(BudgetPipeline, ops=[op], timeout=TIMEOUT)
    assert report.conforms, [(r.rule.id, r.outcome, r.counterexample.message
                              if r.counterexample else r.note)
                             for r in report.results if r.outcome != "pass"]


def test_every_budget_rule_has_a_check_and_a_miniature() -> None:
    """Each budget rule has exactly one check and at least one miniature that must be caught by
    it, so no check is vacuous."""
    ids = {rule.id for rule in RULES if rule.profile == "budget"}
    assert set(CHECK_BY_RULE) == ids
    assert {rule for _, rule in MINIATURES.values()} == ids
    assert set(EXPLAINED) == set(MINIATURES)
