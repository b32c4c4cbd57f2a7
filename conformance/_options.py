"""The settings of a check: :class:`CheckOptions`, every setting as a face gives it, validated
once, and :class:`RunSettings`, the one set of them a run derives from the options with what it
resolved, which the engine, every worker process and the report's invocation read whole.
"""

from __future__ import annotations

import math
import random
import warnings
from collections.abc import Mapping
from dataclasses import InitVar, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._errors import HarnessError
from ._model import Capabilities
from ._operations import OPERATIONS, OPS, RULES_BY_ID
from ._protocol import StartResponse
from ._results import Invocation
from ._settings import SETTINGS
from ._shard import shard_ops

if TYPE_CHECKING:
    from ._adapters import Adapter

__all__ = ["EFFORTS", "NOT_INVOKED", "CheckOptions", "RunSettings", "default_max_time"]

#: Examples per operation search, by effort (``--effort``).
EFFORTS: Mapping[str, int] = {"quick": 60, "default": 200, "thorough": 2000}


def default_max_time(max_examples: int, timeout: float) -> float:
    """The whole-run bound when none is given: 120 s, plus 1 s per example of the effort, plus
    20 deadlines (``--max-time``, docs in README.md)."""
    return 120.0 + max_examples + 20.0 * timeout


#: The Python face's default of every setting (:data:`._settings.SETTINGS`), by name.
_PYTHON: dict[str, Any] = SETTINGS.defaults("python")


class _Unset(str):
    """A default no caller passed, told apart from the same value passed (by identity)."""


#: The effort of a check that names none.
_DEFAULT_EFFORT = _Unset(_PYTHON["effort"])


@dataclass(frozen=True, kw_only=True)
class CheckOptions:
    """Every setting of one check, typed, validated once, shared by the command line, the pytest
    plugin and :func:`check_implementation`. Each field's default, meaning and validation are
    its entry of :data:`._settings.SETTINGS`."""

    #: The operations to check (None: every operation), and the slice of them (``--shard K/N``).
    ops: tuple[str, ...] | None = _PYTHON["ops"]
    shard: tuple[int, int] | None = _PYTHON["shard"]
    #: The effort of each operation search, by name (``--effort``: quick, default, thorough),
    #: which sets its number of examples; ``max_examples`` overrides the number.
    effort: str = _DEFAULT_EFFORT
    max_examples: int | None = _PYTHON["max_examples"]
    #: A derandomized search (CI), or a seeded one (``seed``, random when None).
    deterministic: bool = _PYTHON["deterministic"]
    seed: int | None = _PYTHON["seed"]
    #: Seconds one request may take (``--timeout``).
    timeout: float = _PYTHON["timeout"]
    use_shell: bool = _PYTHON["shell"]
    #: Where a random search keeps the failing examples it found (None: nowhere).
    database: Path | None = _PYTHON["database"]
    allow_untested: bool = _PYTHON["allow_untested"]
    #: Seconds the whole run may take (None: :func:`default_max_time`).
    max_time: float | None = _PYTHON["max_time"]
    #: A ``python:`` implementation runs in a worker process behind spec/protocol.md (as on the
    #: command line): on every face by default (spec/protocol.md §8). An object or factory
    #: passed directly runs in this process, fenced.
    isolate: bool = _PYTHON["isolate"]
    exitfirst: bool = _PYTHON["exitfirst"]
    #: Shrink each failure to a minimal counterexample (off: reported as first found).
    shrink: bool = _PYTHON["shrink"]
    stop_after: frozenset[str] = field(default_factory=lambda: frozenset(_PYTHON["stop_after"]))
    #: Worker processes for the searches (1: this process).
    jobs: int = _PYTHON["jobs"]
    #: Only these rules (``--rule``): their operations are searched, the run ends once all of
    #: them are broken, and the report holds them alone. Empty: every rule.
    rules: frozenset[str] = field(default_factory=lambda: frozenset(_PYTHON["rules"]))
    #: The old name of :attr:`effort`, accepted with a :class:`DeprecationWarning`.
    examples: InitVar[str | None] = None

    def __post_init__(self, examples: str | None) -> None:
        if examples is not None:
            warnings.warn("CheckOptions(examples=...) is now CheckOptions(effort=...): examples "
                          "counts the inputs a search draws (max_examples)", DeprecationWarning,
                          stacklevel=3)
            if self.effort is not _DEFAULT_EFFORT and self.effort != examples:
                raise HarnessError(f"effort={self.effort!r} and examples={examples!r} disagree: "
                                   "pass effort only")
            object.__setattr__(self, "effort", examples)
        if self.effort is _DEFAULT_EFFORT:
            object.__setattr__(self, "effort", str(_DEFAULT_EFFORT))
        for entry in SETTINGS.on("python"):  # every setting, each by its entry's own kind
            assert entry.python is not None
            entry.check(getattr(self, entry.python), "python")
        if self.ops is not None and not self.ops:
            raise HarnessError(f"ops={self.ops!r} names no operation, so the check would judge "
                               f"nothing: give some of {', '.join(OPS)}, or leave ops out (None) "
                               "to check every operation")
        unknown = [op for op in self.ops or () if op not in OPS]
        if unknown:
            raise HarnessError(f"unknown operation(s) {', '.join(map(repr, unknown))}: "
                               f"use one of {', '.join(OPS)}")
        strangers = sorted(set(self.rules) - set(RULES_BY_ID))
        if strangers:
            import difflib

            close = difflib.get_close_matches(strangers[0], RULES_BY_ID, n=3)
            hint = f" Did you mean {', '.join(close)}?" if close else ""
            raise HarnessError(f"--rule {strangers[0]!r} is not a rule id.{hint} "
                               "`eventproof rules` lists them")
        strangers = sorted(set(self.stop_after) - set(RULES_BY_ID))
        if strangers:
            raise HarnessError(f"stop_after names unknown rule(s) "
                               f"{', '.join(map(repr, strangers))}: give rule ids as "
                               "`eventproof rules` lists them")

    @property
    def example_count(self) -> int:
        """Examples per operation search."""
        return self.max_examples if self.max_examples is not None else EFFORTS[self.effort]

    @property
    def checked_ops(self) -> tuple[str, ...]:
        """The operations this check searches, in run order."""
        wanted = self.ops if self.ops is not None else OPS
        chosen = wanted if self.shard is None else shard_ops(wanted, self.shard)
        if self.rules:
            chosen = tuple(op for op in chosen
                           if any(RULES_BY_ID[rule].op == op for rule in self.rules))
        return tuple(op.name for op in OPERATIONS if op.name in chosen)

    def adapter_for(self, impl: Any) -> Adapter:
        """The adapter for ``impl`` under these options (their timeout, shell and isolation):
        how every scheduler and the command line start an implementation."""
        from ._adapters import adapter_for

        return adapter_for(impl, timeout=self.timeout, use_shell=self.use_shell,
                           isolate=self.isolate)


#: The settings of a check that no rerun command states, each with the reason: every other
#: field of :class:`CheckOptions` is the :class:`~._results.Invocation` field of its name
#: (:meth:`RunSettings.invocation`; ``tests/unit/test_run_settings.py`` holds the two to this).
NOT_INVOKED: Mapping[str, str] = {
    "database": "a random search's store of failing examples, not how the run was asked for",
    "jobs": "a deterministic report is the same with any number of worker processes",
    "max_time": "a bound on the run's time; what it left untested the report says",
    "shrink": "the Python face's alone: the same rules break with the same verdict",
    "stop_after": "the Python face's alone: it ends the run, the rules broken stay broken",
}


@dataclass(frozen=True, kw_only=True)
class RunSettings:
    """One run's settings, derived once from its :class:`CheckOptions`: the options whole, and
    what the run resolved from them (the seed, the example database, when the run must end)
    and from the implementation's handshake (its capabilities and identity). The engine, every
    worker process of ``--jobs`` and the report's :class:`~._results.Invocation` read each
    setting here, never from a copy."""

    options: CheckOptions
    #: What the implementation declared (spec/protocol.md §4.2), and its handshake's key.
    capabilities: Capabilities
    identity: str
    #: The seed of a random search (None: derandomized).
    run_seed: int | None = None
    #: Where a random search keeps the failing examples it found (None: nowhere).
    database: Path | None = None
    #: When the run must end (``time.monotonic``), or None for no bound.
    deadline: float | None = None

    @classmethod
    def resolve(cls, options: CheckOptions, handshake: StartResponse, *, started: float,
                run_seed: int | None) -> RunSettings:
        """The settings of a run of ``options`` begun at ``started`` (``time.monotonic``),
        with ``run_seed``, on the implementation that answered ``handshake``."""
        max_time = (options.max_time if options.max_time is not None
                    else default_max_time(options.example_count, options.timeout))
        return cls(options=options, capabilities=handshake.capabilities,
                   identity=handshake.identity_key(), run_seed=run_seed,
                   database=None if options.deterministic else options.database,
                   deadline=None if math.isinf(max_time) else started + max_time)

    @staticmethod
    def seed_for(options: CheckOptions) -> int | None:
        """The seed a run of ``options`` searches with: None when derandomized, else the one
        given or a random one."""
        if options.deterministic:
            return None
        return options.seed if options.seed is not None else random.getrandbits(32)

    @property
    def stop_after(self) -> frozenset[str]:
        """The rules whose breaking ends the run: ``stop_after``'s and ``rules``'."""
        return frozenset(self.options.stop_after) | self.options.rules

    def invocation(self, impl: object) -> Invocation:
        """How this run was invoked, for the command that repeats it: each
        :class:`~._results.Invocation` field is the option of its name, but for the seed the
        run searched with, the rules in order, and ``isolate`` (only a spec string is ever
        isolated: an object passed in code ran here)."""
        resolved: dict[str, Any] = {
            "impl": impl if isinstance(impl, str) else None, "seed": self.run_seed,
            "rules": tuple(sorted(self.options.rules)),
            "isolate": self.options.isolate and isinstance(impl, str)}
        return Invocation(**{each.name: resolved[each.name] if each.name in resolved
                             else getattr(self.options, each.name)
                             for each in fields(Invocation)})
