"""The engine: drive an implementation with Hypothesis, judge every answer, and shrink failures.

One engine serves every face (the CLI, the pytest plugin, :func:`check_implementation`). For each
operation the implementation declares, the engine searches for an input on which some check yields
a violation; Hypothesis shrinks that input to a minimal counterexample; the violated rule is then
set aside and the search repeats, so every broken rule gets its own minimal counterexample.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
import warnings
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from functools import partial
from typing import Any, NoReturn

from hypothesis import HealthCheck, Phase, given, reject, seed, settings, target
from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase
from hypothesis.errors import Flaky, HypothesisWarning, Unsatisfiable, UnsatisfiedAssumption
from hypothesis.strategies import SearchStrategy

from . import _adapters
from ._errors import HarnessError
from ._hypothesis_compat import digest_of, isolated_constants, set_digest
from ._model import (
    FAILING,
    LIMIT_LEAVES,
    Capabilities,
    Errored,
    Family,
    ImplErrored,
    Operation,
    Outcome,
    Rule,
    Violation,
)
from ._operations import RULES_BY_ID, operation
from ._options import EFFORTS, RunSettings
from ._progress import (
    EXAMPLES_EVERY,
    ExamplesJudged,
    GivenUp,
    Listener,
    ProgressEvent,
    RuleBroken,
    SearchBegan,
    SearchEnded,
)
from ._results import (
    ABANDONED_REASON,
    EARLY_STOPS,
    EXITFIRST_REASON,
    INTERRUPTED_REASON,
    MAX_TIME_REASON,
    STOP_AFTER_REASON,
    Counterexample,
    Coverage,
    Invocation,
    RuleResult,
    RunReport,
    apply_expectations,
    iter_failures,
)
from ._signals import stop_reason
from ._verdict import (
    STABILITY_ASKS,
    Verdict,
    answers_agree,
    expected_answer,
    judge,
    shown,
    unstable_message,
)

__all__ = [
    "ABANDONED_REASON",
    "EARLY_STOPS",
    "EFFORTS",
    "EXITFIRST_REASON",
    "FAILING",
    "INTERRUPTED_REASON",
    "MAX_TIME_REASON",
    "STOP_AFTER_REASON",
    "Counterexample",
    "Coverage",
    "HarnessError",
    "Invocation",
    "Outcome",
    "RuleResult",
    "RunReport",
    "apply_expectations",
    "iter_failures",
]

#: Runs with at least this many examples per operation (the thorough effort) also spend some
#: on Hypothesis' target phase.
TARGET_PHASE_EXAMPLES = 1000


class _Found(Exception):
    """Raised inside a Hypothesis example when a check was violated; Hypothesis shrinks it."""

    def __init__(
        self, violation: Violation, outcome: Outcome, actual: Any, stderr: str, op_input: Any,
        verdict: Verdict | None = None,
    ) -> None:
        super().__init__(f"{violation.rule}: {violation.message}")
        self.op_input = op_input
        self.violation = violation
        self.outcome = outcome
        self.actual = actual
        self.stderr = stderr
        #: How the answer was judged (to compare with the answer to the same input asked again).
        self.verdict = verdict


def _reference_answer(expected: Any) -> Any:
    """The reference's answer from its shown form: ``{"errored": …}`` is :class:`Errored` (no
    operation's output is an object with the one member ``errored``)."""
    if isinstance(expected, dict) and len(expected) == 1 and isinstance(
            expected.get("errored"), str):
        return Errored(expected["errored"])
    return expected


def split_examples(total: int, families: tuple[Family, ...]) -> list[int]:
    """``total`` examples shared out: a family with a fixed share (:attr:`Family.examples`, a
    list of built inputs, each asked once) gets exactly it, counted within ``total`` where
    ``total`` allows; the weighted families share the rest by weight (largest remainders
    first), at least one each. The rest is never less than two thirds of ``total``, nor less
    than the quick effort's examples (or ``total``, when smaller): the drawn families, whose
    failures shrink to small counterexamples, keep most of every effort's examples and all of
    a quick one, and the built ones add to the smallest rather than take them over."""
    fixed = sum(max(family.examples, 1) for family in families if family.examples is not None)
    weighted = [i for i, family in enumerate(families) if family.examples is None]
    rest = max(total - fixed, min(total, max(total * 2 // 3, EFFORTS["quick"])))
    weights = [families[i].weight for i in weighted]
    exact = [rest * weight / sum(weights) for weight in weights] if weights else []
    shares = [int(share) for share in exact]
    by_remainder = sorted(range(len(shares)), key=lambda i: exact[i] - shares[i], reverse=True)
    for i in by_remainder[: rest - sum(shares)]:
        shares[i] += 1
    # Every family is tried: one example each for those the rounding left none, taken from the
    # largest shares while they can spare one (a total too small for that is overrun).
    for i, share in enumerate(shares):
        if share == 0:
            shares[i] = 1
            largest = max(range(len(shares)), key=shares.__getitem__)
            if shares[largest] > 1:
                shares[largest] -= 1
    result = [max(family.examples or 0, 1) for family in families]
    for i, share in zip(weighted, shares, strict=True):
        result[i] = share
    return result


@dataclass
class _Counts:
    """What an operation's requests came to (see :class:`Coverage`). A family search counts its
    own requests; a round adds up the counts of the families it ran."""

    #: Answers each rule judged (only the answers it applies to: :attr:`Rule.applies`).
    judged: Counter[str] = field(default_factory=Counter)
    #: Answers judged, whatever rules they applied to.
    answered: int = 0
    #: Answers met in each answer class of the operation (:attr:`Operation.classes`).
    classes: Counter[str] = field(default_factory=Counter)
    skipped: int = 0
    skip_reasons: Counter[str] = field(default_factory=Counter)
    errored: int = 0
    timeouts: int = 0
    crashes: int = 0
    not_sent: int = 0
    #: Requests not sent for a declared limit (``loneSurrogates: false``).
    limited: int = 0

    def add(self, other: _Counts) -> None:
        """Add ``other``'s counts to these (skip reasons keep the order they were first seen)."""
        self.judged.update(other.judged)
        self.answered += other.answered
        self.classes.update(other.classes)
        self.skip_reasons.update(other.skip_reasons)
        self.skipped += other.skipped
        self.errored += other.errored
        self.timeouts += other.timeouts
        self.crashes += other.crashes
        self.not_sent += other.not_sent
        self.limited += other.limited


@dataclass(kw_only=True)
class _OpState(_Counts):
    """Book-keeping for one operation across its search rounds: the counts of every family
    search a round ran, and what the deadlines learnt from the implementation's hangs."""

    timeout: float
    slowest: float = 0.0
    hung_inputs: set[str] = field(default_factory=set)
    #: Whether any request of this operation hung (then later ones get a shorter deadline).
    hung: bool = False
    #: Families of the last round whose search judged under half of its examples.
    starved: list[str] = field(default_factory=list)
    #: Catch-all rules whose violation an already-found rule explained: the first such input,
    #: the answer to it, and the explaining rule.
    explained: dict[str, tuple[Any, Any, str]] = field(default_factory=dict)
    #: Why the run ended during this operation's search ("" when it did not).
    cut_short: str = ""


@dataclass(frozen=True)
class Finding:
    """The minimal input a family search found breaking a rule, and how it broke it."""

    op_input: Any
    violation: Violation
    outcome: Outcome
    actual: Any
    stderr: str
    #: Why the failure is ``unstable`` (the minimal input, asked again, was answered otherwise);
    #: "" when every answer agreed.
    unstable: str = ""


@dataclass
class FamilySearch:
    """What one family search found and counted: everything a round needs from it, so that the
    search can run in another process (``--jobs``) and be counted as if it ran in this one."""

    op: str
    family: str
    #: The minimal counterexample, or None when the search found nothing.
    found: Finding | None = None
    counts: _Counts = field(default_factory=_Counts)
    #: Answers judged by this search: a search that judged under half of its examples starved.
    judged_this_search: int = 0
    #: Examples this search judged, whatever their answers (what its progress counted).
    examples: int = 0
    #: Catch-all rules an already-found rule explained, in the order met: ``(catch-all, input,
    #: answer, explaining rule)``, the first input for each.
    explained: list[tuple[str, Any, Any, str]] = field(default_factory=list)
    #: Requests sent to the implementation.
    calls: int = 0
    #: Why the search ended before drawing all its examples ("" when it did not).
    cut_short: str = ""
    #: Whether the implementation could no longer be restarted when the search ended.
    exhausted: bool = False
    #: Why, and when, the run gave the implementation up ("" while it did not).
    given_up: str = ""
    #: How long the search took (``time.perf_counter`` seconds).
    seconds: float = 0.0


@dataclass
class _Search:
    """The working state of one family search (never leaves the process that runs it)."""

    state: _OpState
    result: FamilySearch
    hangs: int = 0
    #: Answers set aside unjudged (a crash or broken answer under a rule already found).
    set_aside: int = 0
    #: Answers to inputs that broke a rule, so replaying the minimal example gives the same verdict.
    failing_answers: dict[str, Any] = field(default_factory=dict)
    met_violation: bool = False
    #: The newest violation met, the smallest so far while Hypothesis shrinks (what a shrink
    #: cut short reports), and the requests sent since a fault (a hang, a crash, a broken
    #: answer: nothing judged) was met.
    last_found: _Found | None = None
    after_fault: int = 0
    #: The trace being recorded for the run's :class:`Replays` (None when not recording): every
    #: input in the order asked, with whether its example passed or was rejected.
    trace: list[tuple[Any, bool]] | None = None
    trace_bytes: int = 0
    #: The JSON size of the input last asked (what it adds to a trace).
    last_size: int = 0
    #: Whether this is a replay (:meth:`Engine._replay`), which runs outside any Hypothesis test.
    replaying: bool = False
    #: The answers a replay received, by input key in the order received: when the replay parts
    #: from its trace, the search run after it takes them instead of asking again.
    exchanges: dict[str, deque[tuple[Any, float]]] | None = None
    #: The examples judged so far, and when they were last told (shared with a replay).
    meter: _Meter | None = None


@dataclass
class _Meter:
    """The examples one family search has judged, told to the engine's listener at most every
    :data:`._progress.EXAMPLES_EVERY` seconds (:meth:`Engine._count_example`)."""

    told: ExamplesJudged
    judged: int = 0
    told_at: float = field(default_factory=time.monotonic)
    #: What the listener raised when told a count: the search ends at its next request, and
    #: the error is raised from it as raised (never taken for an answer that failed).
    error: Exception | None = None


def _as_read_by(reads: Callable[[Any], Any], counts: _Counts, op_input: Any) -> Any:
    """``op_input`` as the implementation reads it, counted in ``counts.limited`` when a
    declared limit changed it."""
    read = reads(op_input)
    if read is not op_input:
        counts.limited += 1
    return read


def _first_found(error: BaseException) -> _Found | None:
    """The first :class:`_Found` inside ``error``, its exception groups and its causes."""
    if isinstance(error, _Found):
        return error
    nested = list(getattr(error, "exceptions", ()))
    nested += [cause for cause in (error.__cause__, error.__context__) if cause is not None]
    for inner in nested:
        found = _first_found(inner)
        if found is not None:
            return found
    return None


#: Hangs allowed per family search before further inputs are set aside unsent.
_HANGS_PER_SEARCH = 3
#: Requests a search may send to shrink a fault it met: a hang, a crash or a broken answer
#: (each shrink step that meets a hang again costs a deadline, a crash or a broken line costs a
#: restart; and a fault that came once, a program that crashed on one request only, never comes
#: again, however long the shrinker tries).
_REQUESTS_TO_SHRINK_A_FAULT = 100
#: Answers set aside before a search that judged none stops drawing: an implementation that
#: crashes on every input, under a rule already found, has nothing more to show this search.
_SET_ASIDE_BEFORE_ANY_JUDGED = 10
#: Stands for a request that was deliberately not sent (see ``Engine._ask``).
_NOT_SENT = object()


class _OutOfTime(BaseException):
    """Raised inside a Hypothesis example once the run's time is up. Not an ``Exception``, so
    Hypothesis passes it straight through instead of shrinking it."""


class _NothingToLearn(BaseException):
    """Raised inside a Hypothesis example when no further request of the search can be judged:
    the implementation was given up on (spec/protocol.md §7.4), or the search met no violation
    and every further input would be set aside after its hangs, or it judged none of its first
    answers (each a crash under a rule already found). The search ends at once, with the
    violation it met if any, instead of drawing inputs that are never sent or never judged."""


class _ShrinkOver(BaseException):
    """Raised inside a Hypothesis example when shrinking a fault can make no more progress (every
    further input would be set aside after the search's hangs) or has had its requests: the
    search reports the smallest failing input met so far."""


class Abandoned(BaseException):
    """Raised inside a Hypothesis example when the search's result is no longer wanted (see
    :attr:`Engine.abandoned`); the search ends with :data:`ABANDONED_REASON`."""


def _sized_key(op_input: Any) -> tuple[str, int]:
    """A digest of ``op_input`` that tells apart everything an answer may depend on: member
    order too (§6.4 writes members in insertion order), and ``30`` from ``30.0``; and the size
    of the JSON text it digests."""
    text = json.dumps(op_input, ensure_ascii=True).encode("ascii")
    return hashlib.sha256(text).hexdigest(), len(text)


def _key(op_input: Any) -> str:
    """The digest of :func:`_sized_key`."""
    return _sized_key(op_input)[0]


@dataclass(frozen=True)
class _Trace:
    """A deterministic family search that found nothing: every input its test was called with,
    in order, and whether the example passed (True) or was rejected (False)."""

    calls: tuple[tuple[Any, bool], ...]
    size: int


class Replays:
    """The traces of deterministic family searches that found nothing, kept for the process.

    A derandomized search is a function of its digest, its settings and what each example came
    to: while every example passes or is rejected as it did before, Hypothesis draws the very
    same inputs in the same order. So a later search with the same digest and settings (another
    implementation, another run in this process) asks the recorded inputs in turn and judges
    each answer, without drawing anything; the first example that comes to something else (a
    violation, or a rejection where the trace passed) ends the replay, and the search then runs
    under Hypothesis as it would have, taking the answers already received instead of asking
    again. The implementation receives the same requests in the same order either way, and the
    verdicts, counts and counterexamples are the same.

    Traces are kept up to ``max_bytes`` of input JSON in all (the oldest go first).
    """

    def __init__(self, max_bytes: int = 64 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        self._traces: OrderedDict[tuple[Any, ...], _Trace] = OrderedDict()
        self._bytes = 0

    def get(self, key: tuple[Any, ...]) -> _Trace | None:
        trace = self._traces.get(key)
        if trace is not None:
            self._traces.move_to_end(key)
        return trace

    def put(self, key: tuple[Any, ...], trace: _Trace) -> None:
        old = self._traces.pop(key, None)
        if old is not None:
            self._bytes -= old.size
        if trace.size > self.max_bytes:
            return  # over the bound on its own: never kept, and nothing else is dropped for it
        while self._traces and self._bytes + trace.size > self.max_bytes:
            self._bytes -= self._traces.popitem(last=False)[1].size
        self._traces[key] = trace
        self._bytes += trace.size

    def clear(self) -> None:
        self._traces.clear()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._traces)



class _SetAside(Exception):
    """A replayed example set aside (where a search calls ``hypothesis.reject``)."""


def _set_aside(working: _Search) -> NoReturn:
    """Set the example aside: ``hypothesis.reject`` in a search, :class:`_SetAside` in a replay
    (which runs outside any Hypothesis test)."""
    if working.replaying:
        raise _SetAside
    reject()


def _copy_result(source: FamilySearch, into: FamilySearch) -> None:
    """Everything a search counted, from ``source`` into ``into`` (its time aside)."""
    for item in fields(FamilySearch):
        if item.name not in ("op", "family", "seconds"):
            setattr(into, item.name, getattr(source, item.name))


class OpSearch:
    """The search rounds of one operation, driven one family search at a time.

    A round searches the operation's input families in order, each with its share of the
    examples, and the first family whose search finds a violation ends it; the next round sets
    the rules found so far aside; the search is over after a round that found nothing. A driver
    (:meth:`Engine.check_op` in one process, :mod:`._parallel` over worker processes) takes the
    excluded rules from :meth:`next_round`, runs the searches of :meth:`round_families` and
    hands each result to :meth:`apply`, in family order, until :meth:`apply` says the round is
    over. :meth:`apply` counts exactly the searches one process would have run, so the verdicts
    (:meth:`Engine.verdicts`) do not depend on the driver.
    """

    def __init__(self, engine: Engine, name: str) -> None:
        self.engine = engine
        self.op = operation(name)
        declared = name in engine.capabilities.ops
        self.state = _OpState(timeout=engine.timeout, cut_short=engine.cut_short)
        self.families: tuple[Family, ...] = self.op.families(engine.capabilities) if declared \
            else ()
        #: Each family's share of the examples (:func:`split_examples`), in search order.
        self.shares = split_examples(engine.max_examples, self.families) if self.families else []
        #: The result of every rule broken so far, in the order found.
        self.found: dict[str, RuleResult] = {}
        #: The rules the current round sets aside (None between rounds).
        self.excluded: frozenset[str] | None = None
        #: How many rounds began, and how many family searches the current one counted.
        self.rounds = 0
        self.applied = 0
        #: The seconds of each round: the sum of the family searches it counted.
        self.round_seconds: list[float] = []
        #: Examples judged by the family searches counted.
        self.examples = 0
        self.over = not declared
        self.ended = False

    def next_round(self) -> frozenset[str] | None:
        """Begin the next round and return the rules it sets aside; None when the search is
        over (a round found nothing, every rule is broken, the implementation is gone, or the
        run was cut short)."""
        if self.engine.cut_short in EARLY_STOPS and not self.state.cut_short:
            self.state.cut_short = self.engine.cut_short  # another operation ended the run
        if (self.over or not self.families or len(self.found) >= len(self.op.rules)
                or self.engine.unavailable is not None or self.state.cut_short):
            self.over = True
            self.excluded = None
            self._end()
            return None
        self.state.starved = []
        self.rounds += 1
        self.engine.tell(SearchBegan(op=self.op.name, round=self.rounds,
                                     planned=sum(self.shares), broken=len(self.found)))
        self.applied = 0
        self.round_seconds.append(0.0)
        self.excluded = frozenset(self.found)
        return self.excluded

    def round_families(self) -> list[tuple[Family, int]]:
        """Every family of a round with its share of the examples, in search order."""
        return list(zip(self.families, self.shares, strict=True))

    def apply(self, result: FamilySearch) -> bool:
        """Count ``result``, the search of the round's next family, as one process would;
        True when it ends the round (it found a violation, the run was cut short, or it was
        the last family)."""
        assert self.excluded is not None, "apply() outside a round"
        assert result.family == self.families[self.applied].name, (result.family, self.applied)
        assert result.cut_short != ABANDONED_REASON, "an abandoned search is never counted"
        engine, state = self.engine, self.state
        share = self.shares[self.applied]
        self.applied += 1
        state.add(result.counts)
        self.examples += result.examples
        for catch_all, op_input, actual, by in result.explained:
            state.explained.setdefault(catch_all, (op_input, actual, by))
        engine.calls += result.calls
        self.round_seconds[-1] += result.seconds
        if result.cut_short:
            engine.cut_short = state.cut_short = result.cut_short
        if result.given_up and engine.unavailable is None:
            # The run's restart limit is reached: no rule is judged from here on, and
            # every report says that the program was given up on, when and why (§7.4).
            self._give_up(result.given_up)
        hit = result.found
        if hit is not None:
            rule = RULES_BY_ID[hit.violation.rule]
            expected = expected_answer(self.op, hit.op_input, engine.capabilities)
            self.found[rule.id] = RuleResult(rule, hit.outcome, Counterexample(
                op=self.op.name, input=hit.op_input, expected=shown(expected),
                actual=hit.actual, message=hit.unstable or hit.violation.message,
                seed=engine.run_seed, stderr=hit.stderr,
                kind="unstable" if hit.unstable else hit.violation.kind,
            ))
            engine.tell(RuleBroken(op=self.op.name, rule=rule.id, outcome=hit.outcome))
            if hit.outcome == "crash" and result.exhausted and engine.unavailable is None:
                self._give_up(hit.violation.message)
            engine.broken.add(rule.id)
            if engine.exitfirst:
                engine.cut_short = state.cut_short = EXITFIRST_REASON
            elif engine.stop_after and engine.stop_after <= engine.broken:
                engine.cut_short = state.cut_short = STOP_AFTER_REASON
            self.excluded = None
            return True
        if result.judged_this_search * 2 < share:
            state.starved.append(result.family)
        if (state.cut_short or self.applied == len(self.families)
                or engine.unavailable is not None):
            self.over = True  # a round that found nothing ends the search
            self.excluded = None
            return True
        return False

    def stop(self, reason: str) -> None:
        """End the search here (the run was interrupted while a round was under way)."""
        self.engine.cut_short = self.state.cut_short = reason
        self.over = True
        self.excluded = None
        self._end()

    def _give_up(self, reason: str) -> None:
        """The implementation can no longer be judged, for ``reason``: the run gives it up."""
        self.engine.unavailable = reason
        self.engine.tell(GivenUp(op=self.op.name, reason=reason))

    def _end(self) -> None:
        """Tell the listener, once, that the search is over."""
        if not self.ended:
            self.ended = True
            self.engine.tell(SearchEnded(op=self.op.name, rounds=self.rounds,
                                         examples=self.examples))


class Engine:
    """Runs the property search for one implementation behind one adapter."""

    def __init__(self, adapter: _adapters.Adapter, settings: RunSettings, *,
                 on_event: Listener | None = None, replays: Replays | None = None) -> None:
        self.adapter = adapter
        #: Every setting of the run, whole (the properties below read them here).
        self.settings = settings
        #: The traces of earlier searches to replay, owned by the run (None: none kept).
        self.replays = replays
        #: The example database of a random search (None: none).
        self.database: ExampleDatabase | None = (
            None if settings.database is None
            else DirectoryBasedExampleDatabase(settings.database))
        #: Hears the events of the searches (:mod:`._progress`); None: nothing listens.
        self.on_event = on_event
        #: The family searches this engine ran (each is numbered for its progress events).
        self.searches = 0
        self.calls = 0
        self.unavailable: str | None = None
        #: When the run must end (``time.monotonic``), or None for no bound.
        self.ends_at = settings.deadline
        #: Why the run ended early ("" while it has not).
        self.cut_short = ""
        #: The rules broken so far, in every operation.
        self.broken: set[str] = set()
        #: Asked before every request: True ends the family search under way, uncounted (a
        #: search run ahead in a worker process whose round already ended).
        self.abandoned: Callable[[], bool] | None = None
        #: Called with the rule of the first violation a family search meets (before
        #: Hypothesis shrinks it): a driver running searches ahead learns the round's finder.
        self.on_violation: Callable[[str], None] | None = None
        #: The answers met in each answer class, by operation whose verdicts were given.
        self.classes_met: dict[str, dict[str, int]] = {}

    @property
    def capabilities(self) -> Capabilities:
        """What the implementation declared in its handshake."""
        return self.settings.capabilities

    @property
    def identity(self) -> str:
        """The handshake's key (a random search's database keys its examples by it)."""
        return self.settings.identity

    @property
    def max_examples(self) -> int:
        """Examples per operation search."""
        return self.settings.options.example_count

    @property
    def run_seed(self) -> int | None:
        """The seed of a random search (None: derandomized)."""
        return self.settings.run_seed

    @property
    def deterministic(self) -> bool:
        """Whether the search is derandomized."""
        return self.settings.options.deterministic

    @property
    def timeout(self) -> float:
        """Seconds one request may take."""
        return self.settings.options.timeout

    @property
    def exitfirst(self) -> bool:
        """Whether the run ends at the first broken rule."""
        return self.settings.options.exitfirst

    @property
    def stop_after(self) -> frozenset[str]:
        """The rules whose breaking, all of them, ends the run."""
        return self.settings.stop_after

    @property
    def shrink(self) -> bool:
        """Whether each failure found is shrunk (off: reported as first found)."""
        return self.settings.options.shrink

    def tell(self, event: ProgressEvent) -> None:
        """Tell the listener ``event``."""
        if self.on_event is not None:
            self.on_event(event)

    def _count_example(self, working: _Search) -> None:
        """Count one example judged by ``working``'s family search; tell the count when the
        last was told :data:`._progress.EXAMPLES_EVERY` seconds ago or more."""
        meter = working.meter
        if meter is None:
            return
        meter.judged += 1
        if self.on_event is not None and meter.error is None:
            now = time.monotonic()
            if now - meter.told_at >= EXAMPLES_EVERY:
                meter.told_at = now
                try:
                    self.on_event(replace(meter.told, judged=meter.judged))
                except Exception as error:  # raised inside a Hypothesis test, it would be shrunk
                    meter.error = error

    # -- one request --------------------------------------------------------------------------
    def _ask(self, op: Operation, op_input: Any, search: _Search,
             excluded: frozenset[str]) -> Any:
        """Send one request; returns the adapter's response (timeouts guarded, see below)."""
        if self.abandoned is not None and self.abandoned():
            raise Abandoned
        if search.meter is not None and search.meter.error is not None:
            raise Abandoned  # the listener failed: search_family raises its error
        remaining = math.inf if self.ends_at is None else self.ends_at - time.monotonic()
        if remaining <= 0:
            raise _OutOfTime
        if self.adapter.exhausted():
            raise _NothingToLearn
        state = search.state
        key, search.last_size = _sized_key(op_input)
        if key in search.failing_answers:
            return search.failing_answers[key]
        if key in state.hung_inputs:
            # An input that already hung is not sent again: replaying it would only wait again.
            return _adapters.TimedOut(state.timeout, "")
        # Enough hangs to shrink with: further inputs are set aside unsent, so a hanging
        # implementation costs a few timeouts per search, not one per shrink attempt. Once the
        # hang is reported, one more hang tells nothing new: a search then stops at the first.
        allowed = 1 if op.hang_rule in excluded else _HANGS_PER_SEARCH
        hang_met = (search.last_found is not None and search.last_found.outcome == "timeout"
                    and not search.replaying)
        if search.hangs >= allowed:
            if not search.met_violation:
                raise _NothingToLearn  # nothing to shrink: no input sent from here is judged
            if hang_met:
                raise _ShrinkOver  # no input sent from here could shrink the hang further
            return _NOT_SENT
        found = search.last_found
        if (found is not None and not search.replaying and found.verdict is not None
                and not found.verdict.judged):
            search.after_fault += 1
            if search.after_fault > _REQUESTS_TO_SHRINK_A_FAULT:
                raise _ShrinkOver
        # After a first hang, an input must be answered in 10x the slowest answer seen so far
        # (at least a second, at most the timeout): each later search round and family would
        # otherwise wait the whole timeout again before its own first hang.
        deadline = state.timeout
        if state.hung:
            deadline = min(deadline, max(1.0, 10 * state.slowest))
        shortened = deadline < state.timeout
        clipped = remaining < deadline
        deadline = min(deadline, remaining)
        response, elapsed = self._exchange(op, op_input, key, deadline, search)
        search.result.calls += 1
        if isinstance(response, _adapters.TimedOut):
            if clipped:
                raise _OutOfTime  # the run's bound passed, not the request's deadline
            state.hung_inputs.add(key)
            search.hangs += 1
            state.hung = True
            if shortened:
                response = replace(response, shortened_from=state.timeout)
        else:
            state.slowest = max(state.slowest, elapsed)
        return response

    def _exchange(self, op: Operation, op_input: Any, key: str, deadline: float,
                  search: _Search) -> tuple[Any, float]:
        """Send one request and wait for the answer, or take the answer a replay received for
        it; the answer and the seconds spent waiting for it."""
        exchanges = search.exchanges
        if exchanges is not None and not search.replaying:
            received = exchanges.get(key)
            if received:
                return received.popleft()
        started = time.perf_counter()
        response = self.adapter.run(op.name, op_input, timeout=deadline)
        # Only the wait for the answer counts, never a restart or handshake before it.
        elapsed = getattr(self.adapter, "last_exchange_seconds", None)
        if not isinstance(elapsed, float):
            elapsed = time.perf_counter() - started
        if exchanges is not None and search.replaying:
            exchanges.setdefault(key, deque()).append((response, elapsed))
        return response, elapsed

    def _judge(self, op: Operation, op_input: Any, response: Any, excluded: frozenset[str],
               working: _Search) -> None:
        """Raise :class:`_Found` when the response breaks a rule not yet found; count what was
        judged either way (and add the example to the trace being recorded)."""
        trace = working.trace
        if trace is None:
            self._judge_answer(op, op_input, response, excluded, working)
            return
        working.trace_bytes += working.last_size
        if self.replays is None or working.trace_bytes > self.replays.max_bytes:
            working.trace = None  # too big to keep: the search runs on unrecorded
            self._judge_answer(op, op_input, response, excluded, working)
            return
        try:
            self._judge_answer(op, op_input, response, excluded, working)
        except UnsatisfiedAssumption:
            trace.append((op_input, False))
            raise
        except BaseException:
            working.trace = None  # a search that found something is never replayed
            raise
        trace.append((op_input, True))

    def _judge_answer(self, op: Operation, op_input: Any, response: Any,
                      excluded: frozenset[str], working: _Search) -> None:
        """Judge and count one answer (:meth:`_judge` without the trace)."""
        search = working.result
        state = search.counts
        if response is _NOT_SENT:
            state.not_sent += 1
            _set_aside(working)
        self._count_example(working)
        verdict = judge(op, op_input, response, self.capabilities, excluded=excluded)
        if verdict.outcome == "skip":
            state.skipped += 1
            state.skip_reasons[verdict.skip_reason] += 1
            return
        if not verdict.judged:
            if verdict.outcome == "timeout":
                state.timeouts += 1
            else:
                state.crashes += 1
        elif isinstance(response, ImplErrored) and verdict.expected is not None and not (
                isinstance(verdict.expected, dict) and "errored" in verdict.expected):
            # An errored answer to a valid input judges nothing but the rule it breaks.
            state.errored += 1
            state.judged.update(violation.rule for violation in verdict.violations[:1])
            search.judged_this_search += bool(verdict.violations)
        else:
            state.answered += 1
            expected = _reference_answer(verdict.expected)
            state.classes.update(op.classes_of(op_input, expected))
            state.judged.update(rule.id for rule in op.rules if rule.id not in excluded
                                and rule.judges_answer(op_input, expected))
            search.judged_this_search += 1
        for catch_all, by in verdict.explained:
            if all(entry[0] != catch_all for entry in search.explained):
                search.explained.append((catch_all, op_input, verdict.actual, by))
        if verdict.first is not None:
            first_met = not working.met_violation
            if self.on_violation is not None and first_met:
                self.on_violation(verdict.first.rule)
            working.met_violation = True
            working.last_found = _Found(verdict.first, verdict.outcome, verdict.actual,
                                        verdict.stderr, op_input, verdict)
            if first_met and verdict.judged and not working.replaying and \
                    not self._same_again(op, op_input, verdict, excluded, working):
                # A wrong answer that does not come again: no shrink attempt would meet it, and
                # the search would try a thousand inputs that all pass. It is reported as met
                # (asked again below: unstable).
                raise _ShrinkOver
            raise working.last_found
        if not verdict.judged:
            # A hang or crash under a rule already found tells nothing new; a search that meets
            # only such answers stops drawing (spec/protocol.md §7.4).
            working.set_aside += 1
            if (working.set_aside >= _SET_ASIDE_BEFORE_ANY_JUDGED and not search.judged_this_search
                    and not working.met_violation and not working.replaying):
                raise _NothingToLearn
            _set_aside(working)

    # -- one family search ---------------------------------------------------------------------
    def search_family(
        self, op: Operation, family: Family, examples: int, excluded: frozenset[str],
        state: _OpState, number: int | None = None,
    ) -> FamilySearch:
        """Search ``family`` with ``examples`` examples for a rule of ``op`` not in ``excluded``.

        The result is a function of the implementation, ``op``, ``family``, ``examples`` and
        ``excluded`` alone in deterministic mode; ``state`` lends it only what the deadlines
        learnt from earlier hangs (and learns from this search's). Nothing is counted into
        ``state``: :meth:`OpSearch.apply` does that for the searches a round keeps. The
        listener hears the examples judged as the search goes, and their final count, under
        ``number`` (by default, this engine's count of its searches).
        """
        started = time.perf_counter()
        self.searches += 1
        result = FamilySearch(op=op.name, family=family.name)
        meter = _Meter(ExamplesJudged(
            op=op.name, family=family.name, round=len(excluded) + 1,
            search=self.searches if number is None else number, judged=0, planned=examples))
        search = _Search(state=state, result=result, meter=meter)
        try:
            found = self._run_family(op, family, examples, excluded, search)
        finally:
            result.seconds = time.perf_counter() - started
            result.examples = meter.judged
        if meter.error is not None:
            raise meter.error
        self.tell(replace(meter.told, judged=meter.judged))
        if found is not None:
            # Asked again unless the run is ending (a signal while the answer was asked again).
            changed = "" if result.cut_short else self._ask_again(op, found, excluded, search)
            result.found = Finding(op_input=found.op_input, violation=found.violation,
                                   outcome="unstable" if changed else found.outcome,
                                   actual=found.actual, stderr=found.stderr,
                                   unstable=changed)
        result.exhausted = self.adapter.exhausted()
        result.given_up = self.adapter.given_up() or ""
        return result

    def _asked_again(self, op: Operation, op_input: Any, excluded: frozenset[str],
                     search: _Search) -> Verdict | None:
        """Ask ``op_input`` once more and judge the answer; None when nothing could be asked
        (the search is not wanted, the implementation is gone, the run's bound has passed) or
        the run is ending on a signal (recorded: the failure stands as found, and the run ends
        here as it would have inside the search)."""
        if (self.abandoned is not None and self.abandoned()) or self.adapter.exhausted():
            return None
        remaining = math.inf if self.ends_at is None else self.ends_at - time.monotonic()
        if remaining <= 0:
            return None
        try:
            response = self.adapter.run(op.name, op_input,
                                        timeout=min(search.state.timeout, remaining))
        except KeyboardInterrupt as signalled:
            search.result.cut_short = stop_reason(signalled)
            return None
        search.result.calls += 1
        return judge(op, op_input, response, self.capabilities, excluded=excluded)

    def _same_again(self, op: Operation, op_input: Any, first: Verdict,
                    excluded: frozenset[str], working: _Search) -> bool:
        """Ask ``op_input``, whose judged answer just broke a rule for the first time in this
        search, once more before it is shrunk: False when the answer now differs
        (:func:`answers_agree`), True when it agrees or nothing could be asked. A signal while
        asking ends the search with the violation met."""
        again = self._asked_again(op, op_input, excluded, working)
        if again is None and working.result.cut_short:
            raise _ShrinkOver  # the run is ending on a signal
        return again is None or answers_agree(first, again)

    def _ask_again(self, op: Operation, found: _Found, excluded: frozenset[str],
                   search: _Search) -> str:
        """Ask the minimal input of ``found`` again, :data:`STABILITY_ASKS` times: the message
        of an ``unstable`` failure at the first answer that differs (:func:`answers_agree`),
        or "" when every answer agreed. Only a judged answer (an output, or ``errored``) is
        asked again: a hang, a crash or a broken message would cost the whole deadline, or a
        restart that counts toward the restart limit, each time; nor is anything asked once
        the run's bound has passed or the search is no longer wanted."""
        first = found.verdict
        if first is None or not first.judged:
            return ""
        for asks in range(2, STABILITY_ASKS + 2):
            again = self._asked_again(op, found.op_input, excluded, search)
            if again is None:
                return ""
            if not answers_agree(first, again):
                return unstable_message(first, again, asks)
        return ""

    def _run_family(
        self, op: Operation, family: Family, examples: int, excluded: frozenset[str],
        search: _Search,
    ) -> _Found | None:
        strategy: SearchStrategy[Any] = family.strategy
        observer = op.observer
        # Hypothesis seeds a derandomized search with the source of ``example`` below too: a
        # change to it, even of a name, changes every input a run tries.
        state = search

        if self.capabilities.limits:
            # Every input is sent, and judged, as the implementation declared it reads it (its
            # lone surrogates made well formed, its numbers doubles): a declared limit costs no
            # draw, and the requests it concerned are counted for the report (_ask).
            strategy = strategy.map(partial(_as_read_by, self.capabilities.reads,
                                            search.result.counts))

        def example(op_input: Any) -> None:
            if observer is not None:
                for label, value in observer(op_input).items():
                    target(value, label=label)
            response = self._ask(op, op_input, state, excluded)
            try:
                self._judge(op, op_input, response, excluded, state)
            except _Found:
                state.failing_answers[_key(op_input)] = response
                raise

        test: Any = given(strategy)(example)
        # Hypothesis keys its example database, and seeds a derandomized run, by the test
        # function; every search here shares one function, so the digest names the operation,
        # the family and the round, and (for the database) the implementation. A deterministic
        # run leaves the implementation out: every implementation is asked the same inputs
        # until its answers part from the reference's.
        who = "" if self.deterministic else self.identity
        set_digest(test,
                   f"eventproof:{who}:{op.name}:{family.name}:{','.join(sorted(excluded))}")
        # The target phase climbs toward the observed scores (hypothesis.target) with half of
        # a search of under 1000 examples. Below the thorough effort the families steer to the
        # boundaries directly and every example goes to generation, which finds more.
        phases = [Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink]
        if self.max_examples >= TARGET_PHASE_EXAMPLES:
            phases.insert(3, Phase.target)
        if family.examples is not None or not self.shrink:
            # A fixed share's inputs are wholes built to meet every shape (Family.examples):
            # shrinking one would only move which edge each part meets, one restart of a
            # crashing implementation per try. And a check run without shrinking wants only
            # to know which rules break.
            phases.remove(Phase.shrink)
        test = settings(
            max_examples=examples,
            database=self.database,
            derandomize=self.deterministic,
            deadline=None,
            report_multiple_bugs=False,
            print_blob=False,
            suppress_health_check=list(HealthCheck),
            phases=phases,
        )(test)
        if self.run_seed is not None and not self.deterministic:
            test = seed(self.run_seed)(test)
        # A deterministic search is a function of its digest and settings while its examples
        # come to what they came to before: such a search replays its trace (see Replays).
        replay_key = None
        replays = self.replays
        if self.deterministic and self.database is None and replays is not None:
            replay_key = (digest_of(test), examples,
                          tuple(phases), self.capabilities)
        trace = None if replay_key is None or replays is None else replays.get(replay_key)
        try:
            if trace is not None and self._replay(op, trace, excluded, search):
                return None
            if replay_key is not None:
                search.trace = []
            with isolated_constants(), warnings.catch_warnings():
                # Hypothesis warns when it writes out a long counterexample (a tour of every
                # shape is one): the report shows the input its own way, the warning is noise.
                warnings.filterwarnings("ignore", "Generating overly large repr",
                                        HypothesisWarning)
                test()
        except _Found as found:
            return found
        except _OutOfTime:
            search.result.cut_short = MAX_TIME_REASON
            return None
        except KeyboardInterrupt as signalled:  # Ctrl-C, or SIGTERM (Terminated)
            search.result.cut_short = stop_reason(signalled)
            return None
        except Abandoned:
            search.result.cut_short = ABANDONED_REASON
            return None
        except _NothingToLearn:
            # No further request can be judged: a violation met before stands as found.
            return search.last_found
        except _ShrinkOver:
            return search.last_found
        except Unsatisfiable:
            # Every remaining example was set aside (e.g. each one hangs on a rule already found).
            pass
        except Flaky as flaky:
            # The minimal example did not fail the same way when replayed (an implementation that
            # hangs or answers differently from one call to the next): keep what it did first.
            first = _first_found(flaky)
            if first is None:
                raise HarnessError(
                    f"the search on '{op.name}' was unstable: {flaky}. An implementation that "
                    "answers the same input differently between calls cannot be judged; make it "
                    "deterministic, or rerun with --seed to reproduce."
                ) from None
            return first
        if replay_key is not None and replays is not None and search.trace is not None:
            replays.put(replay_key, _Trace(tuple(search.trace), search.trace_bytes))
        return None

    def _replay(self, op: Operation, trace: _Trace, excluded: frozenset[str],
                search: _Search) -> bool:
        """Ask the inputs of ``trace`` in turn and judge each answer, counting into ``search``
        as the search would: True when every example came to what it came to before (the search
        is then done, having found nothing). Otherwise False, with what the replay learnt undone
        and its answers left in ``search.exchanges`` for the search that must now run."""
        state = search.state
        learnt = (set(state.hung_inputs), state.hung, state.slowest)
        # met_violation: a driver hears of a violation from the search that will report it.
        scratch = _Search(state=state, result=FamilySearch(op=op.name,
                                                           family=search.result.family),
                          met_violation=True, exchanges={}, replaying=True,
                          meter=search.meter)
        try:
            for op_input, passed in trace.calls:
                response = self._ask(op, op_input, scratch, excluded)
                try:
                    self._judge_answer(op, op_input, response, excluded, scratch)
                except _SetAside:
                    if passed:
                        break
                except _Found:
                    break
                else:
                    if not passed:
                        break
            else:
                _copy_result(scratch.result, search.result)
                return True
        except BaseException:
            # The run ended (--max-time, an interrupt, a search run ahead dropped) where the
            # search would have: what was counted until then is the search's.
            _copy_result(scratch.result, search.result)
            raise
        state.hung_inputs, state.hung, state.slowest = learnt
        search.exchanges = scratch.exchanges
        return False

    def check_op(self, name: str) -> list[RuleResult]:
        """Search one operation until no further rule can be broken."""
        search = OpSearch(self, name)
        while (excluded := search.next_round()) is not None:
            for family, share in search.round_families():
                result = self.search_family(search.op, family, share, excluded, search.state)
                if search.apply(result):
                    break
        return self.verdicts(search)

    def verdicts(self, search: OpSearch) -> list[RuleResult]:
        """The result of every rule of ``search``'s operation, once its rounds are over."""
        op, name, rules = search.op, search.op.name, search.op.rules
        if name not in self.capabilities.ops:
            return [RuleResult(rule, "skip", note=f"the implementation does not declare '{name}'")
                    for rule in rules]
        state, families, found = search.state, search.families, search.found
        self.classes_met[name] = {item.name: state.classes[item.name] for item in op.classes}
        stopped = self._why_stopped(op, state, found)
        coverage = {rule.id: Coverage(
            judged=state.judged[rule.id], skipped=state.skipped, errored=state.errored,
            unanswered=state.timeouts + state.crashes + state.not_sent, stopped=stopped,
            limited=state.limited)
            for rule in rules}
        limit_notes = {
            rule_id: (f"reduced coverage: {state.limited} request(s) of '{name}' were sent as "
                      f"the implementation reads them ({limit}), so this rule met no {what}")
            for limit in self.capabilities.limits
            for rule_id, what in [LIMIT_LEAVES[limit]] if state.limited}
        # Rule k was found in round k (before the catch-alls explained below join ``found``);
        # a round is timed by the family searches it counted.
        round_seconds = dict(zip(list(found), search.round_seconds, strict=False))
        self._explain_catch_alls(op, state, found)
        self._group_causes(op, found)
        results = []
        for rule in rules:
            if rule.id in found:
                results.append(replace(found[rule.id], coverage=coverage[rule.id]))
            elif self.unavailable is not None:
                results.append(RuleResult(rule, "error", note=f"not checked: {self.unavailable}",
                                          coverage=coverage[rule.id]))
            elif (state.judged[rule.id] == 0 or self._starved_for(rule, families, state)
                  or state.cut_short or self._unmet(rule, state)):
                results.append(RuleResult(rule, "untested", note=self._untested_reason(
                    op, rule, state), coverage=coverage[rule.id]))
            else:
                results.append(RuleResult(rule, "pass", note=limit_notes.get(rule.id, ""),
                                          coverage=coverage[rule.id]))
        return _settle_seconds(results, round_seconds, sum(search.round_seconds))

    def judge_after_last_answers(self, results: list[RuleResult],
                                 found: list[_adapters.AfterLastAnswer]) -> list[RuleResult]:
        """``results`` with what a program wrote after its last answer (found when it was
        stopped, at the end of the run) judged as that answer: a broken protocol message, which
        breaks its operation's agreement rule (outcome ``error``) unless a failure of that rule
        is already reported (spec/protocol.md §6)."""
        results = list(results)
        for written in found:
            op = operation(written.op)
            verdict = judge(op, written.input, written.broken, self.capabilities)
            for violation in verdict.violations:
                index = next((at for at, result in enumerate(results)
                              if result.rule.id == violation.rule), None)
                if index is None or results[index].outcome in FAILING:
                    continue
                expected = expected_answer(op, written.input, self.capabilities)
                results[index] = replace(results[index], outcome=verdict.outcome, note="",
                                         counterexample=Counterexample(
                    op=op.name, input=written.input, expected=shown(expected),
                    actual=verdict.actual, message=violation.message, seed=self.run_seed,
                    stderr=verdict.stderr, kind=violation.kind))
                self.broken.add(violation.rule)
        return results

    def _explain_catch_alls(self, op: Operation, state: _OpState,
                            found: dict[str, RuleResult]) -> None:
        """A catch-all rule whose violations a found rule explained is failed by that rule's
        cause, never passed: the answers did differ."""
        for catch_all, (op_input, actual, by) in state.explained.items():
            if catch_all in found or by not in found:
                continue
            expected = expected_answer(op, op_input, self.capabilities)
            # An answer of an implementation found unstable is no more stable here.
            outcome: Outcome = "unstable" if found[by].outcome == "unstable" else "fail"
            found[catch_all] = RuleResult(RULES_BY_ID[catch_all], outcome, Counterexample(
                op=op.name, input=op_input, expected=shown(expected), actual=actual,
                message=(f"the answer differs from the reference's, and {by} explains why (its "
                         "own failure, reported above)"),
                seed=self.run_seed, kind="differs from the reference"), cause=by)

    def _group_causes(self, op: Operation, found: dict[str, RuleResult]) -> None:
        """One wrong answer, one failure: mark each failure whose counterexample also breaks
        another found rule as "same cause" as that rule — the one that names a cause (a lone
        surrogate kept …) if any, else the most specific (the first in check order) — so that
        one bug is shown once, the rules it also broke listed under it. Outcomes (and so exit
        codes) do not change."""
        order = {rule.id: index for index, rule in enumerate(op.rules)}
        for rule_id, result in sorted(found.items(), key=lambda item: order.get(item[0], 0)):
            example = result.counterexample
            if result.cause or example is None or result.outcome != "fail":
                continue
            verdict = judge(op, example.input, _adapters.Ok(example.actual), self.capabilities)
            others = [v for v in verdict.violations if v.rule != rule_id and v.rule in found
                      and not found[v.rule].cause]
            primary = next((v for v in others if v.cause), None)
            if primary is None:
                ahead = [v for v in others
                         if verdict.violations.index(v) < next(
                             (i for i, w in enumerate(verdict.violations) if w.rule == rule_id),
                             len(verdict.violations))]
                primary = ahead[0] if ahead else None
            if primary is not None and primary.cause and op.repair is not None:
                # A cause explains a failure only if repairing it repairs the failure: an
                # unshrunk input can hold a lone surrogate and an independent bug at once.
                again = judge(op, example.input, _adapters.Ok(op.repair(example.actual)),
                              self.capabilities)
                if any(violation.rule == rule_id for violation in again.violations):
                    primary = None
            if primary is not None:
                found[rule_id] = replace(result, cause=primary.rule)

    @staticmethod
    def _starved_for(rule: Rule, families: tuple[Family, ...], state: _OpState) -> bool:
        """Whether every family aimed at ``rule`` judged under half its examples in the last round
        (a family with no aims is aimed at every rule)."""
        aimed = [family.name for family in families if not family.aims or rule.id in family.aims]
        return bool(aimed) and all(name in state.starved for name in aimed)

    @staticmethod
    def _why_stopped(op: Operation, state: _OpState, found: Mapping[str, RuleResult]) -> str:
        if len(found) == len(op.rules):
            return "every rule was broken"
        if state.cut_short:
            return state.cut_short
        if state.starved:
            return ("the last search round judged under half of its examples in the input "
                    f"famil{'y' if len(state.starved) == 1 else 'ies'} "
                    f"{', '.join(map(repr, state.starved))}")
        return "every example was drawn"

    @staticmethod
    def _unmet(rule: Rule, state: _OpState) -> tuple[str, ...]:
        """The answer classes ``rule`` depends on that no judged answer met."""
        return tuple(name for name in rule.needs if not state.classes[name])

    @staticmethod
    def _untested_reason(op: Operation, rule: Rule, state: _OpState) -> str:
        """Why ``rule`` has no verdict, in words a user can act on."""
        judged = state.judged[rule.id]
        causes = [state.cut_short] if state.cut_short else []
        unmet = Engine._unmet(rule, state)
        troubled = (state.cut_short or state.skipped or state.errored or state.timeouts
                    or state.not_sent or state.crashes)
        if unmet and not troubled:
            names = ", ".join(map(repr, unmet))
            return (f"the search met no answer of '{op.name}' in the answer "
                    f"class{'es' if len(unmet) > 1 else ''} {names}, which this rule depends on "
                    f"({judged} other answer(s) judged it)")
        if judged == 0 and state.answered and not troubled:
            return (f"no input it applies to was drawn ({state.answered} answer(s) of "
                    f"'{op.name}' were judged by other rules)")
        if state.skipped:
            reasons = "; ".join(reason for reason, _ in state.skip_reasons.most_common(2))
            causes.append(f"{state.skipped} request(s) were answered skipped ({reasons})")
        if state.errored:
            causes.append(f"{state.errored} valid request(s) were answered errored")
        if state.timeouts or state.not_sent:
            causes.append("the search stopped after the implementation timed out "
                          f"({state.timeouts} hang(s); {state.not_sent} request(s) set aside)")
        if state.crashes:
            causes.append(f"the implementation crashed or broke the protocol {state.crashes} "
                          "time(s)")
        if judged == 0 and state.skipped and not (state.errored or state.timeouts
                                                  or state.crashes):
            lead = f"every request of '{op.name}' this rule would judge was answered skipped"
        elif judged == 0:
            lead = f"no answer of '{op.name}' was judged by this rule"
        elif not state.starved:
            lead = f"its search did not run its course ({judged} answer(s) judged it)"
        else:
            lead = (f"only {judged} answer(s) judged it, and the last search round judged under "
                    f"half of its examples in {', '.join(map(repr, state.starved))}")
        return lead + (": " + "; ".join(causes) if causes else "")


def _settle_seconds(results: list[RuleResult], round_seconds: Mapping[str, float],
                    total: float) -> list[RuleResult]:
    """Give each result of one operation the seconds that settled it, adding up to ``total``.

    A rule broken by a search round gets that round (``round_seconds``). What is left of
    ``total`` (the last round, which found nothing new and judged every remaining rule at once,
    and the book-keeping after it) is shared equally among the rules no round of their own
    settled; when every rule had its own round, it goes to the last of them.
    """
    rest = [result.rule.id for result in results if result.rule.id not in round_seconds]
    remainder = max(0.0, total - sum(round_seconds.values()))
    seconds = dict(round_seconds)
    if rest:
        seconds.update(dict.fromkeys(rest, remainder / len(rest)))
    elif round_seconds:
        last = list(round_seconds)[-1]
        seconds[last] += remainder
    return [replace(result, seconds=seconds.get(result.rule.id, 0.0)) for result in results]
