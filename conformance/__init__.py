"""eventproof's conformance harness: check any implementation against the reference.

The public surface is small on purpose: call :func:`check_implementation` from your own tests (or
run ``eventproof run`` / ``pytest --eventproof-impl``), read the :class:`RunReport`, and use the
strategies in :mod:`eventproof.conformance.strategies` to generate events for your own properties.
:data:`OPERATIONS` is the operation table (every operation with its rules, input families, checks
and reference answer); every error the harness raises is one of the exported error classes;
``check_implementation(on_event=...)`` hears the progress events (:class:`SearchBegan`,
:class:`ExamplesJudged`, :class:`RuleBroken`, :class:`SearchEnded`, :class:`GivenUp`), which
:class:`RunProgress` adds up. Everything else is private.

The search engine and the operation table are imported on first use of one of their names, so
that a process which only speaks the protocol (the worker of ``--isolate``) starts without
Hypothesis, jsonschema and rich.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ._errors import (
    EventproofError,
    ExpectationsError,
    HarnessError,
    ImplementationError,
    ProtocolError,
    ReplayError,
    VectorBuildError,
)
from ._model import Capabilities, Operation, Profile, Rule

if TYPE_CHECKING:
    from ._check import CheckOptions, Implementation, check, check_implementation
    from ._operations import OPERATIONS, PROFILES, RULES, RULES_BY_ID
    from ._progress import (
        ExamplesJudged,
        GivenUp,
        ProgressEvent,
        RuleBroken,
        RunProgress,
        SearchBegan,
        SearchEnded,
    )
    from ._results import Counterexample, RuleResult, RunReport, RunVerdict

#: The names imported on first use, and the module each comes from.
_LAZY = {
    **dict.fromkeys(("Counterexample", "RuleResult", "RunReport", "RunVerdict"), "._results"),
    **dict.fromkeys(("CheckOptions", "Implementation", "check", "check_implementation"),
                    "._check"),
    **dict.fromkeys(("OPERATIONS", "PROFILES", "RULES", "RULES_BY_ID"), "._operations"),
    **dict.fromkeys(("ExamplesJudged", "GivenUp", "ProgressEvent", "RuleBroken", "RunProgress",
                     "SearchBegan", "SearchEnded"), "._progress"),
}

__all__ = [
    "OPERATIONS",
    "PROFILES",
    "RULES",
    "RULES_BY_ID",
    "Capabilities",
    "CheckOptions",
    "Counterexample",
    "EventproofError",
    "ExamplesJudged",
    "ExpectationsError",
    "GivenUp",
    "HarnessError",
    "Implementation",
    "ImplementationError",
    "Operation",
    "Profile",
    "ProgressEvent",
    "ProtocolError",
    "ReplayError",
    "Rule",
    "RuleBroken",
    "RuleResult",
    "RunProgress",
    "RunReport",
    "RunVerdict",
    "SearchBegan",
    "SearchEnded",
    "VectorBuildError",
    "check",
    "check_implementation",
]


if not TYPE_CHECKING:
    # Hidden from type checkers, which see the imports above: to them, as before, a name this
    # module does not export is an error rather than an ``object``.

    def __getattr__(name: str) -> object:
        """The lazily imported names (PEP 562); each is imported once, then is a plain global."""
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, __name__), name)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})
