"""The budget profile (spec/budget.md): its operations, as the harness reads them.

``OPERATIONS`` holds one :class:`~eventproof.conformance._model.Operation` per operation:
``details`` (the final details of a batch under its budget), ``roster`` (the live roster under
its bound), ``lane`` (a lane merging rosters) and ``publish`` (the publish schedule of a
timeline).
"""

from __future__ import annotations

from typing import Any

from eventproof.reference import Reference

from .._model import Capabilities, Operation
from .checks import CHECKS
from .rules import RULES
from .strategies import FAMILIES, inputs_for

_REFERENCE = Reference()


def _reference(op: str) -> Any:
    def answer(op_input: Any, capabilities: Capabilities) -> Any:
        del capabilities  # no budget operation depends on the fit strategy
        return _REFERENCE.run(op, op_input)
    return answer


def _operation(name: str) -> Operation:
    return Operation(
        name=name,
        profile="budget",
        rules=tuple(rule for rule in RULES if rule.op == name),
        families=FAMILIES[name],
        inputs=inputs_for(name),
        reference=_reference(name),
        checks=CHECKS[name],
        observer=None,
        agreement_rule=f"{name}.agrees",
        hang_rule=f"{name}.agrees",
        input_schema=f"op-{name}.json",
    )


OPERATIONS: tuple[Operation, ...] = tuple(
    _operation(name) for name in ("details", "roster", "lane", "publish"))

__all__ = ["OPERATIONS", "RULES"]
