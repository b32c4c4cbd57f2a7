"""The small frozen types every part of the harness shares.

A *check* is a function ``check(case) -> Iterator[Violation]``: it yields nothing when the
implementation's answer obeys the rule it stands for, and one :class:`Violation` per breach
otherwise (the generator style of ``jsonschema._keywords``). The engine raises; checks never do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Level = Literal["MUST", "SHOULD"]
#: An operation's name (``select``, ``project`` …): the table in ``_operations`` is the one list.
Op = str
FitStrategy = Literal["halving", "maximal"]

#: Every operation, in the order a run visits them.
OPS: tuple[Op, ...] = ("select", "fold", "settle", "classify", "project")
#: The fit strategies of spec/wire.md.
FIT_STRATEGIES: tuple[FitStrategy, ...] = ("halving", "maximal")
#: The default byte bound of a live update line (spec/wire.md).
DEFAULT_MAX_BYTES = 262144


@dataclass(frozen=True)
class Family:
    """One kind of input an operation's search covers, and its share of the example budget.

    The engine searches each family on its own, with ``weight / total weight`` of the budget:
    stratified, so a kind of input that only a few rules judge (an erroneous ``message_update``,
    a line of exactly ``maxBytes``) is tried as often in every run, whatever Hypothesis' own
    generation favours.
    """

    name: str
    weight: int
    #: A Hypothesis strategy of op inputs (typed loosely to keep this module import-light).
    strategy: Any
    #: The rule ids this family is built to reach (empty: every rule of the operation).
    aims: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rule:
    """One normative statement of the spec that a check enforces."""

    #: Stable identifier, cited by reports, expectation files and replay files.
    id: str
    #: ``MUST`` rules decide conformance; ``SHOULD`` rules are reported but never fail a run.
    level: Level
    #: ``selection`` or ``wire``.
    profile: str
    #: The operation whose answers the rule judges.
    op: Op
    #: The spec file and section that states the rule, e.g. ``selection.md#3.1``.
    section: str
    #: One sentence: what the rule demands.
    title: str


@dataclass(frozen=True)
class Capabilities:
    """What an implementation declared in its handshake."""

    #: The operations it answers; the rest are skipped, never failed.
    ops: frozenset[str] = frozenset(OPS)
    #: The fit strategy its backstop uses; agreement is judged against it.
    fit_strategy: FitStrategy = "halving"
    #: Whether ``maxBytes`` may differ from the default 262144.
    variable_max_bytes: bool = True


class Errored:
    """The reference's answer to an input the spec calls erroneous (it raised ``InvalidInput``)."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message

    def __repr__(self) -> str:
        return f"Errored({self.message!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Errored)

    def __hash__(self) -> int:
        return hash(Errored)


@dataclass(frozen=True)
class ImplErrored:
    """The implementation answered ``errored`` (or, in process, raised)."""

    message: str


@dataclass(frozen=True)
class Case:
    """One request and both answers to it, as the checks see them."""

    op: Op
    #: The operation input (a JSON value, schema-valid).
    input: Any
    #: The reference's output, or :class:`Errored` when the spec calls the input erroneous.
    expected: Any
    #: The implementation's output, or :class:`ImplErrored` when it answered ``errored``.
    actual: Any
    capabilities: Capabilities = field(default_factory=Capabilities)


@dataclass(frozen=True)
class Violation:
    """One breach of one rule, explained with the real values."""

    #: The id of the :class:`Rule` that was broken.
    rule: str
    #: What went wrong, with values, and where to look; never a bare "mismatch".
    message: str


Check = Callable[[Case], Iterator[Violation]]
StrategyFactory = Callable[[Capabilities], Any]  # -> hypothesis SearchStrategy of op inputs
Observer = Callable[[Any], Mapping[str, float]]  # input -> hypothesis.target observations
#: The reference's answer to one input under the declared capabilities; raises
#: ``eventproof.reference.InvalidInput`` when the spec calls the input erroneous.
ReferenceAnswer = Callable[[Any, Capabilities], Any]


@dataclass(frozen=True)
class Operation:
    """Everything the harness knows about one operation, in one place.

    Each profile package (``selection``, ``wire`` …) exports a tuple of these as ``OPERATIONS``;
    the engine, replay, vectors, vacuity probes, public strategies, the pytest plugin and the
    mutation driver read this table and nothing else. Adding an operation is adding one entry.
    """

    #: The name a request carries (``select``, ``project`` …).
    name: str
    #: The rule set it belongs to (``selection``, ``wire``, ``budget``).
    profile: str
    #: The rules that judge its answers, in the order the spec states them.
    rules: tuple[Rule, ...]
    #: The input families its search covers, for the declared capabilities.
    families: Callable[[Capabilities], tuple[Family, ...]]
    #: Every input the harness may send (the union of the families), for public strategies.
    inputs: StrategyFactory
    #: The reference's answer.
    reference: ReferenceAnswer
    #: The checks, in the order they judge; each yields violations of one or more ``rules``.
    checks: tuple[Check, ...]
    #: Hypothesis ``target`` observations of an input (used by the thorough budget).
    observer: Observer | None
    #: The catch-all rule a crash or a broken answer is reported under.
    agreement_rule: str
    #: The rule a hang is reported under.
    hang_rule: str
    #: The schema file (in ``schemas/``) every input is valid against.
    input_schema: str

    def rule_ids(self) -> tuple[str, ...]:
        """The ids of :attr:`rules`, in order."""
        return tuple(rule.id for rule in self.rules)
