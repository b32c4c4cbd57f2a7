"""The operation table: every profile, operation and rule the harness knows, in one place.

Each profile package exports its ``PROFILE``; this module lists them in the order a run visits
them. The engine, replay, the vectors, the vacuity probes, the public strategies, the pytest
plugin and the mutation driver read these names and nothing private of a profile.
"""

from __future__ import annotations

from eventproof.reference import OPS as REFERENCE_OPS

from ._model import Operation, Profile, Rule, RuleGroup
from .budget import PROFILE as BUDGET
from .selection import PROFILE as SELECTION
from .wire import PROFILE as WIRE

#: Every profile, in the order a run visits them.
PROFILES: tuple[Profile, ...] = (SELECTION, WIRE, BUDGET)
#: Every operation, in the order a run visits them.
OPERATIONS: tuple[Operation, ...] = tuple(op for profile in PROFILES for op in profile.operations)
OPERATIONS_BY_NAME: dict[str, Operation] = {op.name: op for op in OPERATIONS}
#: Every operation's name, in order.
OPS: tuple[str, ...] = tuple(OPERATIONS_BY_NAME)
#: Every rule, in the order the spec states them.
RULES: tuple[Rule, ...] = tuple(rule for op in OPERATIONS for rule in op.rules)
RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}
#: Every rule group (one checks module and one vector file each), in order.
GROUPS: tuple[RuleGroup, ...] = tuple(group for profile in PROFILES for group in profile.groups)
GROUPS_BY_NAME: dict[str, RuleGroup] = {group.name: group for group in GROUPS}

if set(OPS) != set(REFERENCE_OPS):  # pragma: no cover - a table out of step with the reference
    raise ImportError(f"the operation table lists {OPS}, the reference answers {REFERENCE_OPS}")


def operation(name: str) -> Operation:
    """The operation called ``name``; raises KeyError naming the known ones."""
    try:
        return OPERATIONS_BY_NAME[name]
    except KeyError:
        raise KeyError(f"{name!r} is not an operation; use one of {', '.join(OPS)}") from None


def rules_for(op: str) -> tuple[Rule, ...]:
    """The rules that judge answers to ``op``, in the order the spec states them."""
    return operation(op).rules


def group_of(rule_id: str) -> str:
    """The rule group of a rule id: the part before the dot (``bound.tail`` → ``bound``)."""
    return rule_id.split(".", 1)[0]
