"""How a check's searches go, as typed events, and the one model of a run's progress built on
them.

The engine emits the events. :class:`._engine.OpSearch` (the driver of an operation's rounds, in
the process that counts them) emits :class:`SearchBegan` at each round, :class:`RuleBroken`,
:class:`GivenUp` and one :class:`SearchEnded`; :meth:`._engine.Engine.search_family` emits
:class:`ExamplesJudged` while a family search runs, at most every :data:`EXAMPLES_EVERY`
seconds, and once more with its final count. Under ``--jobs`` the family searches run in worker
processes, which send their :class:`ExamplesJudged` to the driver as they happen
(:mod:`._parallel`); every other event comes from the driver, as in one process, so a run emits
the same begin, broken and end events under every scheduler.

:class:`RunProgress` adds the events up: the operations begun and ended, the examples judged, the
rules broken, and the share of the run's work done, each operation weighted by its cost
(:data:`._shard.WEIGHT`), from which a status line tells the time left. Its counts are exact
for any interleaving of the events of several operations, and its share never goes back.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from ._shard import WEIGHT

#: Seconds between two :class:`ExamplesJudged` of one family search (its last count is always
#: told): a fast search never floods the listener, or the pipe from a worker process.
EXAMPLES_EVERY = 0.1


@dataclass(frozen=True)
class SearchBegan:
    """A search round of ``op`` began (round 1 begins its search): it plans ``planned`` examples
    over the operation's input families, ``broken`` rules of it being broken already."""

    op: str
    round: int
    planned: int
    broken: int

    @property
    def message(self) -> str:
        return f"searching ({self.broken} rule(s) broken so far)"


@dataclass(frozen=True)
class ExamplesJudged:
    """Family search number ``search`` (of ``op``'s round ``round``, family ``family``) has
    judged ``judged`` examples so far of the ``planned`` its budget gives it. The count only
    grows from one event of a search to the next; a search's examples may run past its plan
    (shrinking a counterexample)."""

    op: str
    family: str
    round: int
    search: int
    judged: int
    planned: int


@dataclass(frozen=True)
class RuleBroken:
    """A search of ``op`` broke ``rule`` with ``outcome`` (``fail``, ``crash``, ``unstable``...)."""

    op: str
    rule: str
    outcome: str

    @property
    def message(self) -> str:
        return f"{self.rule}: {self.outcome}"


@dataclass(frozen=True)
class SearchEnded:
    """The search of ``op`` is over after ``rounds`` rounds, having judged ``examples`` examples
    in the family searches it counted (an operation the implementation does not declare, or a
    run cut short before it began, ends after none)."""

    op: str
    rounds: int
    examples: int


@dataclass(frozen=True)
class GivenUp:
    """The run gave the implementation up while searching ``op``: no rule is judged from here
    on, for ``reason``."""

    op: str
    reason: str


#: Every event a check emits.
ProgressEvent = SearchBegan | ExamplesJudged | RuleBroken | SearchEnded | GivenUp
#: What hears a check's events.
Listener = Callable[[ProgressEvent], None]


def listener(on_event: Listener | None, on_progress: Callable[[str, str], None] | None,
             *, stacklevel: int = 3) -> Listener | None:
    """The listener of a check given ``on_event``, and the old ``on_progress(op, message)``
    callback (deprecated, with a :class:`DeprecationWarning`): it still hears each round's
    ``searching (N rule(s) broken so far)`` and each ``RULE: OUTCOME``, as it always did."""
    if on_progress is None:
        return on_event
    warnings.warn("on_progress(op, message) is deprecated: pass on_event, which hears typed "
                  "events (eventproof.conformance.SearchBegan, RuleBroken, ExamplesJudged, "
                  "SearchEnded, GivenUp)", DeprecationWarning, stacklevel=stacklevel)
    old = on_progress

    def hear(event: ProgressEvent) -> None:
        if on_event is not None:
            on_event(event)
        if isinstance(event, SearchBegan | RuleBroken):
            old(event.op, event.message)

    return hear


@dataclass
class _OpProgress:
    """Where one operation's search is: its round, the examples that round planned and judged,
    and the operation's share done when the round began."""

    weight: int
    round: int = 0
    planned: int = 0
    start: float = 0.0
    ended: bool = False
    #: The examples judged by each round's family searches, each search counted up to its plan.
    judged: dict[int, int] = field(default_factory=dict)

    def share(self) -> float:
        """The share of this operation's search done. A round covers what the rounds before it
        left: a search of one round (an implementation that breaks nothing) is done in
        proportion to the examples it judged of those it planned, and a round begun after a
        broken rule starts where the one before it stood, so the share never goes back."""
        if self.ended:
            return 1.0
        if self.round == 0:
            return 0.0
        ran = min(1.0, self.judged.get(self.round, 0) / max(1, self.planned))
        return self.start + (1.0 - self.start) * ran


class RunProgress:
    """How far a check is, from its events: the operations begun, under way and ended, the
    examples judged (by every family search, those run ahead under ``--jobs`` and dropped
    too: work done), the rules broken, and the share of the work done, each operation of
    ``ops`` weighted by ``weights`` (its measured cost, :data:`._shard.WEIGHT`, by default)."""

    def __init__(self, ops: Iterable[str], weights: Mapping[str, int] = WEIGHT) -> None:
        self.ops = {op: _OpProgress(max(1, weights.get(op, 10))) for op in ops}
        #: The operations whose search began, in the order they began.
        self.begun: dict[str, None] = {}
        self.ended: set[str] = set()
        #: Every rule broken, with its outcome.
        self.broken: dict[str, str] = {}
        #: The examples each family search judged (its highest count told).
        self.searches: dict[int, ExamplesJudged] = {}
        self.examples = 0
        self.given_up = ""
        #: The last event heard that was not a count of examples (what the status line names).
        self.last: ProgressEvent | None = None

    def hear(self, event: ProgressEvent) -> None:
        """Count ``event``."""
        op = self.ops.get(event.op)
        if isinstance(event, ExamplesJudged):
            self._count(event, op)
            return
        self.last = event
        if isinstance(event, SearchBegan):
            self.begun.setdefault(event.op, None)
            if op is not None and not op.ended:
                op.start, op.round, op.planned = op.share(), event.round, event.planned
        elif isinstance(event, RuleBroken):
            self.broken[event.rule] = event.outcome
        elif isinstance(event, SearchEnded):
            self.ended.add(event.op)
            if op is not None:
                op.ended = True
        else:
            self.given_up = event.reason

    def _count(self, event: ExamplesJudged, op: _OpProgress | None) -> None:
        before = self.searches.get(event.search)
        told = 0 if before is None else before.judged
        if event.judged <= told:
            return  # an older count of the search, arriving late
        self.searches[event.search] = event
        self.examples += event.judged - told
        if op is not None:
            planned = max(0, event.planned)
            counted = min(event.judged, planned) - min(told, planned)
            op.judged[event.round] = op.judged.get(event.round, 0) + counted

    @property
    def under_way(self) -> list[str]:
        """The operations begun and not yet ended, in the order they began."""
        return [op for op in self.begun if op not in self.ended]

    def done(self) -> float:
        """The share of the check's work done, from 0 to 1 (1 once every operation ended)."""
        total = sum(op.weight for op in self.ops.values())
        if not total:
            return 1.0
        return min(1.0, sum(op.weight * op.share() for op in self.ops.values()) / total)

    def seconds_left(self, elapsed: float) -> float | None:
        """The seconds left at the rate of the ``elapsed`` seconds so far; None while too little
        is done to tell."""
        share = self.done()
        if share >= 1.0:
            return 0.0
        if share < 0.02:
            return None
        return elapsed * (1.0 - share) / share
