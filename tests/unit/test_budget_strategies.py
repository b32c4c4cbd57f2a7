"""The budget profile's strategies yield schema-valid inputs that reach what the rules judge, and
the reference breaks none of the profile's rules on them."""

from __future__ import annotations

from typing import Any

import pytest
from eventproof.conformance._model import Capabilities, Case
from eventproof.conformance._schemas import schema_issues
from eventproof.conformance.budget import OPERATIONS
from eventproof.conformance.budget.rules import RULES
from eventproof.conformance.budget.strategies.families import _prefix_sizes
from eventproof.reference import Reference
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

CAPABILITIES = Capabilities()
FAMILIES = [(operation, family) for operation in OPERATIONS
            for family in operation.families(CAPABILITIES)]


def counted(max_examples: int) -> Any:
    return settings(max_examples=max_examples, derandomize=True, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck))


def _sample(strategy: Any, n: int) -> list[Any]:
    drawn: list[Any] = []

    @counted(n)
    @given(strategy)
    def collect(value: Any) -> None:
        drawn.append(value)

    collect()
    return drawn


@pytest.mark.parametrize(("operation", "family"), FAMILIES,
                         ids=[f"{o.name}-{f.name}" for o, f in FAMILIES])
def test_family_inputs_are_schema_valid_and_the_reference_conforms(operation: Any,
                                                                   family: Any) -> None:
    """Every input a family yields validates against the op's input schema, the reference's
    answer validates against its output schema, and no check finds fault with the reference."""
    for op_input in _sample(family.strategy, 15 if family.name == "seed-scale" else 40):
        assert schema_issues(op_input, f"{operation.input_schema}#/$defs/input") == []
        answer = operation.reference(op_input, CAPABILITIES)
        assert schema_issues(answer, f"{operation.input_schema}#/$defs/output") == []
        case = Case(operation.name, op_input, answer, answer)
        found = [violation for check in operation.checks for violation in check(case)]
        assert found == [], found


def test_families_aim_at_rules_of_their_operation() -> None:
    """Each family names only rule ids of its own operation."""
    ids = {rule.id: rule.op for rule in RULES}
    for operation, family in FAMILIES:
        assert all(ids[rule] == operation.name for rule in family.aims), family.name


def test_edge_details_reach_allowances_of_zero_and_one() -> None:
    """The edge family has inputs whose shared budget and floors are all 0, and all 1."""
    family = next(f for o, f in FAMILIES if o.name == "details" and f.name == "edges")
    budgets = {(i["sharedBytes"], i["taskFloorBytes"], i["outputFloorBytes"])
               for i in _sample(family.strategy, 60)}
    assert (0, 0, 0) in budgets
    assert any(1 in budget for budget in budgets)


def test_seed_scale_reaches_the_measured_counts_and_spends_the_budget() -> None:
    """The seed-scale family reaches batches of 200 records and of 1,000 tasks, and every batch
    asks at least twice the host's shared budget, so that it runs out before the last record."""
    from eventproof.reference import DEFAULT_SHARED_BYTES
    from eventproof.reference._budget import cost

    family = next(f for o, f in FAMILIES if o.name == "details" and f.name == "seed-scale")
    inputs = _sample(family.strategy, 30)
    counts = {len(i["records"]) for i in inputs}
    assert {200, 1000} <= counts
    for op_input in inputs:
        assert op_input["sharedBytes"] == DEFAULT_SHARED_BYTES
        demand = sum(cost(r[name]) for r in op_input["records"]
                     for name in ("task", "output", "errorMessage", "stderr") if name in r)
        assert demand >= 2 * DEFAULT_SHARED_BYTES, (len(op_input["records"]), demand)


def test_exact_fit_rosters_land_on_a_prefix_size() -> None:
    """Most exact-fit rosters have a maxBytes equal to the size of a prefix of live records."""
    family = next(f for o, f in FAMILIES if o.name == "roster" and f.name == "exact-fit")
    inputs = _sample(family.strategy, 40)
    exact = [i for i in inputs if i["maxBytes"] in _prefix_sizes(i["records"])]
    assert len(exact) >= len(inputs) // 3


def test_lanes_recover_whole_rosters_and_publishes_land_one_window_apart() -> None:
    """Some lane merges recover every record of an update's total; some timelines have changes
    exactly intervalMs apart; some have late callbacks."""
    lanes = [i for o, f in FAMILIES if o.name == "lane" for i in _sample(f.strategy, 20)]
    states = [s for i in lanes for s in Reference().run("lane", i)["states"]]
    assert any("omittedResults" not in s and s["total"] > len(u["results"])
               for i in lanes for s, u in zip(Reference().run("lane", i)["states"],
                                              i["updates"], strict=True))
    assert any(s["total"] == 0 for s in states)
    timelines = [i for o, f in FAMILIES if o.name == "publish" for i in _sample(f.strategy, 30)]
    assert any(b["at"] - a["at"] == i["intervalMs"]
               for i in timelines for a, b in zip(i["events"], i["events"][1:], strict=False))
    assert any(e["kind"] != "return" and i["events"].index(e) > [x["kind"] for x in
               i["events"]].index("return") for i in timelines for e in i["events"])


@given(st.data())
@counted(5)
def test_every_operation_input_strategy_is_the_union_of_its_families(data: Any) -> None:
    """``inputs`` draws schema-valid inputs for every operation."""
    for operation in OPERATIONS:
        op_input = data.draw(operation.inputs(CAPABILITIES))
        assert schema_issues(op_input, f"{operation.input_schema}#/$defs/input") == []
