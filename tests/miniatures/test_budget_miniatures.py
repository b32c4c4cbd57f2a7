"""The budget profile's deliberately wrong implementations are each caught by the rules they
break, and the unplanted pipeline by none.

Until the engine reads ``eventproof.conformance.budget.OPERATIONS``, the search is done here the
way the engine does it: each operation's example budget (200, derandomized) is shared out over its
input families by weight, the families aimed at the rule first; each drawn input is answered by
the reference and by the miniature, and the rule's own check judges the case.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest
from eventproof.conformance._model import Capabilities, Case, Errored, ImplErrored, Operation
from eventproof.conformance.budget import OPERATIONS
from eventproof.conformance.budget.checks import CHECK_BY_RULE
from eventproof.conformance.budget.rules import RULES
from eventproof.reference import InvalidInput
from hypothesis import HealthCheck, Phase, given, settings

from miniatures import Miniature
from miniatures.budget import MINIATURES, BudgetPipeline

#: Examples per operation, as in the engine's default profile.
BUDGET = 200
CAPABILITIES = Capabilities()
OPERATION = {operation.name: operation for operation in OPERATIONS}


def case_for(impl: Miniature, operation: Operation, op_input: Any) -> Case:
    """The case the checks judge: the reference's answer and ``impl``'s, for ``op_input``."""
    try:
        expected: Any = operation.reference(op_input, CAPABILITIES)
    except InvalidInput as error:
        expected = Errored(str(error))
    try:
        actual: Any = impl.run(operation.name, op_input)
    except Exception as error:  # in process, any exception is the answer "errored"
        actual = ImplErrored(str(error))
    return Case(operation.name, op_input, expected, actual, CAPABILITIES)


def shares(operation: Operation, rule: str | None) -> list[tuple[Any, int]]:
    """Each family's strategy and share of the budget; the families aimed at ``rule`` first."""
    families = sorted(operation.families(CAPABILITIES), key=lambda f: rule not in f.aims)
    total = sum(family.weight for family in families)
    return [(family.strategy, max(1, BUDGET * family.weight // total)) for family in families]


def search(impl_class: type[Miniature], op: str, rule: str | None = None) -> Case | None:
    """The first case, within the operation's budget, on which ``rule``'s check bites (any of
    the operation's checks when ``rule`` is None)."""
    operation = OPERATION[op]
    checks = operation.checks if rule is None else (CHECK_BY_RULE[rule],)
    impl = impl_class()
    found: list[Case] = []
    for strategy, examples in shares(operation, rule):

        @settings(max_examples=examples, derandomize=True, database=None, deadline=None,
                  phases=[Phase.generate], suppress_health_check=list(HealthCheck))
        @given(strategy)
        def probe(op_input: Any) -> None:
            if found:
                return  # no exception: Hypothesis would print a repr of a 60 MB input
            case = case_for(impl, operation, op_input)
            if any(True for check in checks for _ in check(case)):
                found.append(case)

        probe()
        if found:
            return found[0]
    return None


@functools.cache
def caught(name: str, rule: str) -> Case | None:
    return search(MINIATURES[name][0], next(r.op for r in RULES if r.id == rule), rule)


@pytest.mark.parametrize(("name", "rule"), [(name, rule) for name, (_, rules) in
                                            sorted(MINIATURES.items()) for rule in rules])
def test_miniature_is_caught_by_its_rule(name: str, rule: str) -> None:
    """Each miniature breaks each rule it names on an input the strategies reach, and the
    violation is explained with the case's own values."""
    case = caught(name, rule)
    assert case is not None, f"{name} was not caught by {rule} within {BUDGET} examples"
    violations = list(CHECK_BY_RULE[rule](case))
    assert violations
    assert {violation.rule for violation in violations} == {rule}
    assert all("budget.md §" in violation.message for violation in violations), violations


@pytest.mark.parametrize("op", sorted(OPERATION))
def test_unplanted_pipeline_conforms(op: str) -> None:
    """The miniatures' pipeline, unplanted, breaks no rule of any operation within the budget:
    each miniature differs from a conforming port by its bug alone."""
    case = search(BudgetPipeline, op)
    assert case is None, [v.message for check in OPERATION[op].checks for v in check(case)]


def test_every_budget_rule_has_a_check_and_a_miniature() -> None:
    """Each rule has exactly one check, and every rule but the catch-alls is named by at least
    one miniature, so no check is vacuous."""
    ids = {rule.id for rule in RULES}
    assert set(CHECK_BY_RULE) == ids
    named = {rule for _, rules in MINIATURES.values() for rule in rules}
    assert named == {rule for rule in ids if not rule.endswith(".agrees")}
