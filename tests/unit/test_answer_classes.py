"""Power by construction: every run meets every answer class of every operation, and a rule
counts only the answers it applies to (a rule that applied to none is ``untested``, never
``pass``)."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import pytest
from eventproof.conformance import RunReport, check_implementation
from eventproof.conformance import _engine as engine_module
from eventproof.conformance._engine import isolated_constants
from eventproof.conformance._model import Capabilities, Errored, Operation, Rule, scoped
from eventproof.conformance._operations import OPERATIONS, OPS, operation
from eventproof.conformance._verdict import expected_answer, shown
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from miniatures.wire import EverythingIsAFact

REFERENCE = "python:eventproof.reference:Reference"
CAPABILITIES = Capabilities()
#: Seeds the default test run checks; nox -s slow checks 0-20.
DEFAULT_SEEDS = (3,)
SLOW_SEEDS = tuple(seed for seed in range(21) if seed not in DEFAULT_SEEDS)


@functools.cache
def quick_run(seed: int) -> RunReport:
    """The reference checked with --budget quick --seed ``seed`` (random mode)."""
    return check_implementation(REFERENCE, effort="quick", seed=seed, deterministic=False)


def _assert_every_class_met(report: RunReport) -> None:
    for op in OPERATIONS:
        met = report.classes[op.name]
        assert list(met) == [item.name for item in op.classes]
        unmet = [name for name, count in met.items() if not count]
        assert not unmet, f"{op.name}: no answer in class(es) {unmet} (seed {report.seed})"
    untested = [(result.rule.id, result.note) for result in report.results
                if result.outcome != "pass"]
    assert not untested, untested


@pytest.mark.parametrize("seed", DEFAULT_SEEDS)
def test_a_quick_run_meets_every_answer_class(seed: int) -> None:
    _assert_every_class_met(quick_run(seed))


@pytest.mark.slow
@pytest.mark.parametrize("seed", SLOW_SEEDS)
def test_a_quick_run_meets_every_answer_class_on_every_seed(seed: int) -> None:
    _assert_every_class_met(quick_run(seed))


def _catches_everything_is_a_fact(seed: int) -> None:
    report = check_implementation(EverythingIsAFact, ops=["classify"], effort="quick", seed=seed,
                                  deterministic=False, stop_after=["classify.kind"])
    result = report.result_for("classify.kind")
    assert result.outcome == "fail", (seed, result.note)
    assert result.counterexample is not None
    assert result.counterexample.expected == "frame"


@pytest.mark.parametrize("seed", [0, 3, 6])
def test_a_classify_that_calls_everything_a_fact_is_caught_quick(seed: int) -> None:
    """The issue's seed 3 let it conform (60 calls, not one frame drawn)."""
    _catches_everything_is_a_fact(seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(21))
def test_a_classify_that_calls_everything_a_fact_is_caught_on_every_seed(seed: int) -> None:
    _catches_everything_is_a_fact(seed)


# -- the declarations -----------------------------------------------------------------------

def test_every_class_a_rule_needs_is_a_class_of_its_operation() -> None:
    for op in OPERATIONS:
        names = [item.name for item in op.classes]
        assert len(set(names)) == len(names), op.name
        for rule in op.rules:
            strangers = set(rule.needs) - set(names)
            assert not strangers, f"{rule.id} needs unknown class(es) {strangers}"


def test_every_operation_but_fold_declares_answer_classes() -> None:
    """fold answers one selection per push: its classes are select's, met by its own pushes."""
    assert {op.name for op in OPERATIONS if not op.classes} == {"fold"}


def test_scoped_refuses_a_rule_it_does_not_know() -> None:
    rule = Rule("x.y", "MUST", "wire", "project", "wire.md#1", "A rule.")
    with pytest.raises(ImportError, match=r"x\.z"):
        scoped((rule,), {"x.z": lambda op_input, expected: True}, {})


def test_the_reference_answer_is_read_back_from_its_shown_form() -> None:
    erroneous = engine_module._reference_answer(shown(Errored("bad")))
    assert isinstance(erroneous, Errored)
    assert erroneous.message == "bad"
    for output in (None, "fact", {"line": "{}"}, {"errored": 1}, {"results": []}, [], [{}]):
        assert engine_module._reference_answer(output) == output


# -- every rule applies to some inputs and not to others ---------------------------------------

_SCOPED = [rule for op in OPERATIONS for rule in op.rules if rule.applies is not None]


def _answers(op: Operation) -> st.SearchStrategy[tuple[Any, Any]]:
    return op.inputs(CAPABILITIES).map(
        lambda op_input: (op_input, expected_answer(op, op_input, CAPABILITIES)))


@pytest.mark.parametrize("op_name", [name for name in OPS
                                     if any(rule.op == name for rule in _SCOPED)])
def test_every_scoped_rule_meets_inputs_it_applies_to_and_inputs_it_does_not(
        op_name: str) -> None:
    """A predicate that is always true counts what the rule never judged; one that is never true
    leaves the rule untested on every run. The operation's own inputs meet both sides of each."""
    op = operation(op_name)
    scoped_rules = [rule for rule in op.rules if rule.applies is not None]
    seen: dict[str, set[bool]] = {rule.id: set() for rule in scoped_rules}

    @settings(max_examples=200, database=None, derandomize=True, deadline=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(_answers(op))
    def collect(answer: tuple[Any, Any]) -> None:
        for rule in scoped_rules:
            seen[rule.id].add(rule.judges_answer(*answer))

    with isolated_constants():
        collect()
    one_sided = {rule: sides for rule, sides in seen.items() if sides != {True, False}}
    assert not one_sided, one_sided


def test_a_rule_whose_inputs_are_never_drawn_is_untested(monkeypatch: pytest.MonkeyPatch) -> None:
    """project searched with its facts family only: no turn_end is drawn, so project.turn-end
    judged nothing (it was reported "judged" on every project answer before), and the bound
    rules, whose answer class no answer met, say so."""
    project = operation("project")

    def facts_only(capabilities: Capabilities) -> Any:
        return tuple(family for family in project.families(capabilities)
                     if family.name == "facts")

    restricted = dataclasses.replace(project, families=facts_only)
    monkeypatch.setattr(engine_module, "operation",
                        lambda name: restricted if name == "project" else operation(name))
    report = check_implementation(REFERENCE, ops=["project"], effort="quick")
    turn_end = report.result_for("project.turn-end")
    assert turn_end.outcome == "untested"
    assert turn_end.coverage is not None
    assert turn_end.coverage.judged == 0
    assert "no input it applies to was drawn" in turn_end.note
    shape = report.result_for("bound.shape")
    assert shape.outcome == "untested"
    assert "'bounded line'" in shape.note
    assert report.classes["project"]["bounded line"] == 0
    assert report.result_for("project.fact-passthrough").outcome == "pass"
    assert not report.conforms
