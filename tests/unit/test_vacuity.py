"""Every rule can fail: for each rule id some deliberately wrong implementation triggers it.

A check that no wrong implementation can trip is a check in name only. For every rule of the
registry this runs the miniatures declared for it (tests/miniatures/) over the shipped vectors and
judges each answer through the one verdict path, collecting every rule it breaks (not only the
first, as a report leads with); a timeout counts for the operation's hang rule. When the
vectors do not reach the rule, the miniature goes through the quick property run instead.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from typing import Any

import pytest
from eventproof.conformance import _adapters, check_implementation
from eventproof.conformance._operations import RULES
from eventproof.conformance._vectors import _skip_reason, judge_vector, load_vectors
from miniatures import budget, selection, timeout_for, wire

#: Every miniature: name -> (class, the rule it must break).
MINIATURES: dict[str, tuple[type[Any], str]] = {**selection.MINIATURES, **wire.MINIATURES,
                                                **budget.MINIATURES}
#: Rule id -> the names of the miniatures declared to break it.
BY_RULE: dict[str, list[str]] = defaultdict(list)
for _name, (_, _rule) in MINIATURES.items():
    BY_RULE[_rule].append(_name)


def _timeout(name: str) -> float:
    return timeout_for(MINIATURES[name][1])


@cache
def rules_tripped_by_vectors(name: str, op: str | None = None) -> frozenset[str]:
    """Every rule some check reports when the miniature ``name`` answers the shipped vectors
    (of operation ``op`` only, when given: the rules of ``op`` are judged on its vectors alone)."""
    adapter = _adapters.adapter_for(MINIATURES[name][0](), timeout=_timeout(name))
    tripped: set[str] = set()
    try:
        capabilities = adapter.start().capabilities
        for vector in load_vectors():
            if ((op is not None and vector.op != op)
                    or _skip_reason(vector, capabilities) is not None):
                continue
            response = adapter.run(vector.op, vector.input)
            tripped.update(judge_vector(vector, response, capabilities).broken)
    finally:
        adapter.stop()
    return frozenset(tripped)


@cache
def rules_tripped_by_property_run(name: str, op: str, rule: str) -> frozenset[str]:
    """The rules the quick deterministic property run finds broken in miniature ``name``, up
    to the moment it breaks ``rule`` (the run then ends: the rounds until then are a whole
    run's)."""
    report = check_implementation(MINIATURES[name][0](), ops=[op], effort="quick",
                                  deterministic=True, timeout=_timeout(name), stop_after=[rule])
    return frozenset(report.failed_rule_ids)


@pytest.mark.parametrize("rule", [pytest.param(rule, id=rule.id) for rule in RULES])
def test_rule_can_fail(rule: Any) -> None:
    """Some wrong implementation declared for the rule makes its check report a violation."""
    candidates = BY_RULE.get(rule.id, [])
    if not candidates:
        others = sorted(name for name in MINIATURES if rule.id in rules_tripped_by_vectors(name))
        pytest.fail(
            f"rule {rule.id} ({rule.section}) has no miniature of its own: add a wrong "
            f"implementation to tests/miniatures/ with MINIATURES[name] = (cls, {rule.id!r})"
            + (f" (miniatures declared for other rules trip it too: {', '.join(others)})"
               if others else " (no miniature trips it at all)"))
    if any(rule.id in rules_tripped_by_vectors(name, rule.op) for name in candidates):
        return
    tried = []
    for name in candidates:
        found = rules_tripped_by_property_run(name, rule.op, rule.id)
        if rule.id in found:
            return
        tried.append(f"{name}: {sorted(found) or 'nothing'}")
    pytest.fail(f"no miniature declared for {rule.id} triggers it, through the vectors or the "
                f"quick property run; what they trigger instead: {'; '.join(tried)}")


def test_every_declared_rule_exists() -> None:
    """Each miniature names a rule of the registry."""
    known = {rule.id for rule in RULES}
    assert {rule for _, rule in MINIATURES.values()} <= known
