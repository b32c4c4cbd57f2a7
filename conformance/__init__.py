"""eventproof's conformance harness: check any implementation against the reference.

The public surface is small on purpose: call :func:`check_implementation` from your own tests (or
run ``eventproof run`` / ``pytest --eventproof-impl``), read the :class:`RunReport`, and use the
strategies in :mod:`eventproof.conformance.strategies` to generate events for your own properties.
Everything else is private (``_engine``, ``_adapters``, ``_checks`` …).
"""

from ._engine import (
    Counterexample,
    HarnessError,
    RuleResult,
    RunReport,
    check_implementation,
)
from ._model import Capabilities, Rule
from ._rules import RULES, RULES_BY_ID

__all__ = [
    "RULES",
    "RULES_BY_ID",
    "Capabilities",
    "Counterexample",
    "HarnessError",
    "Rule",
    "RuleResult",
    "RunReport",
    "check_implementation",
]
