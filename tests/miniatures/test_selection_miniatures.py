"""The selection checks bite: each deliberately wrong implementation is rejected by the rule that
names its bug, with a small counterexample, while the reference passes every check."""

from __future__ import annotations

from functools import cache
from typing import Any, cast

import pytest
from eventproof.conformance import RULES_BY_ID, RunReport, check_implementation
from eventproof.conformance._clip import clip_value
from eventproof.conformance._model import (
    Capabilities,
    Case,
    Check,
    Errored,
    ImplErrored,
    Op,
    rules_of,
)
from eventproof.conformance.selection import OPERATIONS as SELECTION_OPERATIONS
from eventproof.reference import InvalidInput, Reference
from hypothesis import given
from hypothesis import strategies as st

from miniatures.selection import MINIATURES

CHECKS = {op.name: list(op.checks) for op in SELECTION_OPERATIONS}
STRATEGIES = {op.name: op.inputs for op in SELECTION_OPERATIONS}

#: A counterexample this small shows the bug and nothing else.
MAX_EVENTS = 4
#: Outcomes that mean the implementation broke the rule.
BROKEN = {"fail", "error"}


@cache
def report_for(name: str) -> RunReport:
    """The engine's verdict on one miniature, for the operation of its bug (default budget). The
    run stops once the miniature's rule is broken: the rounds until then, and so every rule they
    broke, are those of a whole run."""
    cls, rule = MINIATURES[name]
    return check_implementation(cls, ops=[RULES_BY_ID[rule].op], stop_after=[rule])


def _size(op_input: Any) -> int:
    return len(op_input.get("events", op_input.get("pushes", [])))


@pytest.mark.parametrize("name", list(MINIATURES))
def test_miniature_is_rejected_first_by_its_rule(name: str) -> None:
    """A miniature fails first on the rule of its bug, with a counterexample of <= 4 events: of
    the rules the search breaks until it breaks the miniature's own, none comes before it in the
    table (the order a report lists them in)."""
    _, rule = MINIATURES[name]
    report = report_for(name)
    broken = [result for result in report.results if result.outcome in BROKEN]
    assert broken, f"{name} passed every {RULES_BY_ID[rule].op} rule; its bug went unnoticed"
    first = broken[0]
    assert first.rule.id == rule, (
        f"{name}: the first broken rule is {first.rule.id}, expected {rule}; "
        f"broken: {[result.rule.id for result in broken]}")
    counterexample = first.counterexample
    assert counterexample is not None
    assert _size(counterexample.input) <= MAX_EVENTS, (
        f"{name}: the counterexample is not minimal: {counterexample.input}")
    # The explanation cites the spec section of the rule it names.
    assert RULES_BY_ID[rule].section.replace("#", " §") in counterexample.message
    # The rule's own check, on its own, bites on the counterexample, and the report shows the
    # answer to this very input.
    cls, _ = MINIATURES[name]
    op = RULES_BY_ID[rule].op
    actual = _answer(cls(), op, counterexample.input)
    if isinstance(actual, ImplErrored):
        assert counterexample.actual["errored"].endswith(actual.message), name
    else:
        assert counterexample.actual == clip_value(actual), name  # as reports show it
    case = Case(cast(Op, op), counterexample.input, _expected(op, counterexample.input), actual)
    (check,) = [check for check in CHECKS[op] if rule in rules_of(check)]
    assert {violation.rule for violation in check(case)} == {rule}, (name, counterexample.input)


@pytest.mark.parametrize("name", list(MINIATURES))
def test_miniature_names_its_bug_and_rule(name: str) -> None:
    """Each miniature says in its docstring which rule catches it, under a name of its own."""
    cls, rule = MINIATURES[name]
    assert f"``{rule}``" in (cls.__doc__ or "")
    assert cls().start()["implementation"]["name"] == name


def _answer(implementation: Any, op: str, op_input: Any) -> Any:
    try:
        return implementation.run(op, op_input)
    except Exception as error:  # in process, any exception is an 'errored' answer
        return ImplErrored(f"{type(error).__name__}: {error}")


def _expected(op: str, op_input: Any) -> Any:
    try:
        return Reference().run(op, op_input)
    except InvalidInput as error:
        return Errored(str(error))


def _all_checks() -> list[tuple[str, Check]]:
    return [(op, check) for op, checks in CHECKS.items() for check in checks]


def test_every_check_bites_some_miniature() -> None:
    """Each selection check judges one rule, and some miniature must be rejected first by that
    rule, on a counterexample the check itself flags (``test_miniature_is_rejected_first_by_its_
    rule``): none is vacuous."""
    caught = {rule for _, rule in MINIATURES.values()}
    for op, check in _all_checks():
        rules = set(rules_of(check))
        assert len(rules) == 1, (check.__name__, rules)
        assert rules <= caught, f"{check.__name__}: no miniature is caught by {rules}; add one"
        assert {RULES_BY_ID[rule].op for rule in rules} == {op}


@pytest.mark.parametrize("op", list(STRATEGIES))
def test_reference_passes_every_selection_check(op: str) -> None:
    """On generated inputs, no selection check finds fault with the reference's own answers."""
    reference = Reference()

    @given(STRATEGIES[op](Capabilities()))
    def judged(op_input: Any) -> None:
        answer = reference.run(op, op_input)
        case = Case(cast(Op, op), op_input, answer, answer)
        violations = [violation for check in CHECKS[op] for violation in check(case)]
        assert not violations, violations

    judged()


#: Any JSON value, leaning toward the keys of a settle answer: what a broken port might answer.
_ANSWERS = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=3),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(
        st.sampled_from(("result", "end", "toolResult", "output", "stopReason",
                         "lastAssistantMessage", "isError", "text", "type")) | st.text(max_size=2),
        children, max_size=4),
    max_leaves=10,
)



@pytest.mark.parametrize("op", list(STRATEGIES))
@given(data=st.data())
def test_checks_explain_any_answer_without_raising(op: str, data: st.DataObject) -> None:
    """Every check judges any answer, however malformed, and only ever names its op's rules."""
    op_input = data.draw(STRATEGIES[op](Capabilities()), label="input")
    actual = data.draw(_ANSWERS | st.builds(ImplErrored, st.text(max_size=5)), label="answer")
    case = Case(cast(Op, op), op_input, _expected(op, op_input), actual)
    for check in CHECKS[op]:
        for violation in check(case):
            assert RULES_BY_ID[violation.rule].op == op
            assert violation.message


def test_reference_conforms_through_the_engine() -> None:
    """The engine finds no selection rule the reference breaks, at the default budget."""
    report = check_implementation(Reference, ops=["select", "fold", "settle"])
    assert report.conforms, [
        (result.rule.id, result.counterexample) for result in report.results
        if result.outcome != "pass"
    ]
