"""Ports that write or measure one byte form otherwise (miniatures/byte_forms.py) break a MUST
rule on a quick search, on every seed: the ``byte-forms`` families build lines and fields a few
bytes either side of the bound that hold every such form, so the form decides the answer.

The default run searches each port from seed 0; seeds 1 and 2 run under ``-m slow``
(``helpers.tiered``). That the built inputs alone catch each port, whatever the search draws,
is held here in the default run."""

from __future__ import annotations

from typing import Any

import pytest
from eventproof.conformance._model import Capabilities, Case, Errored
from eventproof.conformance._operations import operation
from eventproof.conformance.budget.strategies.byte_forms import (
    byte_form_details_inputs,
    byte_form_rosters,
)
from eventproof.conformance.wire.strategies.byte_forms import (
    OFFSETS,
    PLACES,
    byte_form_inputs,
    byte_form_update,
)
from eventproof.conformance.wire.strategies.events import full_text_bounded_size
from eventproof.reference import InvalidInput, Reference, canonical_bytes
from helpers import conforms_on_a_quick_run, tiered

from miniatures.budget import BudgetPipeline
from miniatures.byte_forms import BUDGET_BYTE_FORMS, WIRE_BYTE_FORMS
from miniatures.wire import MaximalPipeline, Pipeline

SEEDS = (0, 1, 2)
BUDGET_CASES = [(cls, op) for cls, ops in BUDGET_BYTE_FORMS.items() for op in ops]


@pytest.mark.parametrize(("name", "seed"), tiered(
    [(name, seed) for name in sorted(WIRE_BYTE_FORMS) for seed in SEEDS],
    key=lambda name, seed: name, variant=lambda name, seed: f"seed{seed}"))
def test_a_quick_project_search_catches_each_byte_form(name: str, seed: int) -> None:
    """A quick ``project`` search from any seed finds a MUST rule the port's byte form breaks."""
    assert not conforms_on_a_quick_run(WIRE_BYTE_FORMS[name](), "project", seed), name


@pytest.mark.parametrize(("cls", "op", "seed"), tiered(
    [(cls, op, seed) for cls, op in BUDGET_CASES for seed in SEEDS],
    key=lambda cls, op, seed: f"{cls.name}-{op}", variant=lambda cls, op, seed: f"seed{seed}"))
def test_a_quick_budget_search_catches_each_measure(cls: type, op: str, seed: int) -> None:
    """A quick ``details`` or ``roster`` search from any seed finds a MUST rule the port's
    measure breaks."""
    assert not conforms_on_a_quick_run(cls(), op, seed), (cls.name, op)


def _must_violations(impl: Any, op: str, op_input: Any) -> set[str]:
    declared = impl.start()["capabilities"]
    capabilities = Capabilities(ops=frozenset(declared["ops"]),
                                fit_strategy=declared["fitStrategy"])
    try:
        expected: Any = Reference(capabilities.fit_strategy).run(op, op_input)
    except InvalidInput as error:
        expected = Errored(str(error))
    case = Case(op, op_input, expected, impl.run(op, op_input), capabilities)
    found = set()
    for check in operation(op).checks:
        for violation in check(case):
            if next(rule for rule in operation(op).rules
                    if rule.id == violation.rule).level == "MUST":
                found.add(violation.rule)
    return found


@pytest.mark.parametrize("name", sorted(WIRE_BYTE_FORMS))
def test_the_built_lines_alone_catch_each_byte_form(name: str) -> None:
    """The built inputs by themselves, whatever the search draws, break a MUST rule for each
    port: the catch comes from construction, not from luck."""
    impl = WIRE_BYTE_FORMS[name]()
    assert any(_must_violations(impl, "project", op_input)
               for op_input in byte_form_inputs(4096)), name


@pytest.mark.parametrize(("cls", "op"), BUDGET_CASES,
                         ids=[f"{cls.name}-{op}" for cls, op in BUDGET_CASES])
def test_the_built_fields_alone_catch_each_measure(cls: type, op: str) -> None:
    """The built ``details`` and ``roster`` inputs by themselves break a MUST rule for each
    port that measures a cost otherwise."""
    inputs = byte_form_details_inputs() if op == "details" else byte_form_rosters()
    assert any(_must_violations(cls(), op, op_input) for op_input in inputs), (cls.name, op)


@pytest.mark.parametrize("max_bytes", [3215, 4096, 262144])
def test_each_built_line_sits_at_its_offset(max_bytes: int) -> None:
    """The deciding size is ``maxBytes + k``: the line for "line", the bounded form with the
    whole text for "kept" and "cut", whose line is over the bound."""
    for place in PLACES:
        for offset in OFFSETS:
            event = byte_form_update(place, offset, max_bytes)
            line = len(canonical_bytes(event))
            if place == "line":
                assert line == max_bytes + offset
            else:
                assert full_text_bounded_size(event) == max_bytes + offset
                assert line > max_bytes + 100


@pytest.mark.parametrize("impl", [Pipeline, MaximalPipeline, BudgetPipeline])
def test_the_plain_ports_answer_every_built_input_like_the_reference(impl: type) -> None:
    """Without a planted measure the ports agree with the reference on every built input, so
    each byte-form port is caught by its form alone."""
    port = impl()
    cases = ([("project", op_input) for op_input in byte_form_inputs(4096)]
             if impl is not BudgetPipeline else
             [("details", op_input) for op_input in byte_form_details_inputs()]
             + [("roster", op_input) for op_input in byte_form_rosters()])
    for op, op_input in cases:
        assert port.run(op, op_input) == Reference(port.declared_strategy).run(op, op_input)
