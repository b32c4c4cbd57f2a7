"""eventproof's conformance harness: check any implementation against the reference.

The public surface is small on purpose: call :func:`check_implementation` from your own tests (or
run ``eventproof run`` / ``pytest --eventproof-impl``), read the :class:`RunReport`, and use the
strategies in :mod:`eventproof.conformance.strategies` to generate events for your own properties.
:data:`OPERATIONS` is the operation table (every operation with its rules, input families, checks
and reference answer); every error the harness raises is one of the exported error classes.
Everything else is private.
"""

from ._engine import (
    Counterexample,
    RuleResult,
    RunReport,
    check_implementation,
)
from ._errors import (
    ExpectationsError,
    HarnessError,
    ProtocolError,
    ReplayError,
    UsageError,
    VectorBuildError,
)
from ._model import Capabilities, Operation, Profile, Rule
from ._operations import OPERATIONS, PROFILES, RULES, RULES_BY_ID

__all__ = [
    "OPERATIONS",
    "PROFILES",
    "RULES",
    "RULES_BY_ID",
    "Capabilities",
    "Counterexample",
    "ExpectationsError",
    "HarnessError",
    "Operation",
    "Profile",
    "ProtocolError",
    "ReplayError",
    "Rule",
    "RuleResult",
    "RunReport",
    "UsageError",
    "VectorBuildError",
    "check_implementation",
]
