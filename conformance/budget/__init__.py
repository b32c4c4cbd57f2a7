"""The budget profile (spec/budget.md): its operations, as the harness reads them.

``OPERATIONS`` holds one :class:`~eventproof.conformance._model.Operation` per operation:
``details`` (the final details of a batch under its budget), ``roster`` (the live roster under
its bound), ``lane`` (a lane merging rosters) and ``publish`` (the publish schedule of a
timeline).
"""

from __future__ import annotations

from typing import Any

from eventproof.reference import Reference

from .._model import Capabilities, Deferred, Operation, Profile, RuleGroup, judges
from .checks import CHECK_BY_RULE, CHECKS
from .rules import CLASSES, RULES
from .vectors import details_sources, lane_sources, publish_sources, roster_sources

_REFERENCE = Reference()


def _reference(op: str) -> Any:
    def answer(op_input: Any, capabilities: Capabilities) -> Any:
        del capabilities  # no budget operation depends on the fit strategy
        return _REFERENCE.run(op, op_input)
    return answer


def _inputs(op: str) -> Any:
    """Every input of ``op`` (the union of its families); .strategies is imported once a search
    or a public strategy needs it."""
    def inputs(capabilities: Capabilities) -> Any:
        from .strategies.families import inputs_for

        return inputs_for(op)(capabilities)
    return inputs


def _operation(name: str) -> Operation:
    return Operation(
        name=name,
        profile="budget",
        rules=tuple(rule for rule in RULES if rule.op == name),
        families=Deferred(f"{__name__}.strategies", f"{name}_families"),
        inputs=_inputs(name),
        reference=_reference(name),
        checks=CHECKS[name],
        observer=None,
        agreement_rule=f"{name}.agrees",
        hang_rule=f"{name}.agrees",
        input_schema=f"op-{name}.json",
        classes=CLASSES[name],
    )


# Each check is marked with the rule it judges (eventproof rules --where reads the mark).
for _rule_id, _check in CHECK_BY_RULE.items():
    judges(_rule_id)(_check)

OPERATIONS: tuple[Operation, ...] = tuple(
    _operation(name) for name in ("details", "roster", "lane", "publish"))


PROFILE = Profile(
    name="budget", spec="budget.md", operations=OPERATIONS,
    groups=(
        RuleGroup("details", "The final details of a batch under one shared budget "
                  "(spec/budget.md §3-5).", details_sources),
        RuleGroup("roster", "The live roster of a batch under its byte bound (spec/budget.md §6).",
                  roster_sources),
        RuleGroup("lane", "A lane merging rosters by index, and its count (spec/budget.md §7).",
                  lane_sources),
        RuleGroup("publish", "The publish cadence on a virtual clock (spec/budget.md §8).",
                  publish_sources),
    ),
)

__all__ = ["OPERATIONS", "PROFILE", "RULES"]
