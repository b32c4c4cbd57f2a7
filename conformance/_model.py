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
Op = Literal["select", "fold", "settle", "classify", "project"]
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
