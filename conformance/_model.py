"""The small frozen types every part of the harness shares.

A *check* is a function ``check(case) -> Iterator[Violation]``: it yields nothing when the
implementation's answer obeys the rule it stands for, and one :class:`Violation` per breach
otherwise (the generator style of ``jsonschema._keywords``). The engine raises; checks never do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from eventproof.reference import OPS as REFERENCE_OPS

from ._json import Numbers, as_read

Level = Literal["MUST", "SHOULD"]
#: The verdict on one rule (spec/protocol.md §5 and docs/read-a-failure.md).
Outcome = Literal[
    "pass", "fail", "error", "crash", "timeout", "unstable", "untested", "skip", "xfail",
    "xpass"]
#: Outcomes that make a MUST rule non-conforming (and any rule, for ``xpass`` and
#: ``unstable``: an implementation whose answer to one input changes between two asks).
FAILING: frozenset[str] = frozenset({"fail", "error", "crash", "timeout", "unstable", "xpass"})
#: Outcomes that say the implementation broke the rule.
BROKEN: frozenset[str] = frozenset({"fail", "error", "crash", "timeout"})
#: An operation's name (``select``, ``project`` …): the table in ``_operations`` is the one list.
Op = str
FitStrategy = Literal["halving", "maximal"]

#: The fit strategies of spec/wire.md.
FIT_STRATEGIES: tuple[FitStrategy, ...] = ("halving", "maximal")


@dataclass(frozen=True)
class Family:
    """One kind of input an operation's search covers, and its share of the examples.

    The engine searches each family on its own, with ``weight / total weight`` of the examples:
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
    #: A fixed share, the same at every effort: a family of this many distinct inputs (a
    #: choice among them, nothing else drawn), which Hypothesis, never trying an input twice,
    #: tries once each; or one whose every input meets all it is for (a tour of every shape),
    #: which more examples would only make slower. It is counted within the effort's examples,
    #: where they allow: the weighted families share what the fixed shares leave, never less than
    #: two thirds of it nor less than a quick search's examples (``split_examples``).
    examples: int | None = None


#: The sides of a threshold: a unit under it, at it, and over it.
SIDES: tuple[tuple[str, int], ...] = (("under", -1), ("at", 0), ("over", 1))


def family_per_side(
    name: Callable[[str], str], weight: int, strategy: Callable[[int], Any],
    aims: tuple[str, ...] = (), sides: tuple[tuple[str, int], ...] = SIDES,
) -> tuple[Family, ...]:
    """One family for each side of a threshold an input meets only once (a first record's
    share, a return against a window's end, a line against ``maxBytes``): ``strategy(offset)``
    draws inputs on that side, ``name(side)`` names its family. Each family has its own share
    of the examples at every effort, so every run, on every seed, meets every side; one family
    drawing the side at random would miss one on some seeds."""
    return tuple(Family(name(side), weight, strategy(offset), aims) for side, offset in sides)


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
    #: Which answers the rule judges: a predicate on the input and the reference's answer
    #: (:data:`Applies`). Only those answers count as judged by the rule, and a rule that
    #: applied to no answer is ``untested``; None: every answer of the operation.
    applies: Applies | None = field(default=None, compare=False, repr=False)
    #: The answer classes (:attr:`Operation.classes`) the rule depends on: a run that met none of
    #: its answers in one of them leaves the rule ``untested``, naming the class.
    needs: tuple[str, ...] = ()

    def judges_answer(self, op_input: Any, expected: Any) -> bool:
        """Whether the rule judges the answer to ``op_input`` (see :attr:`applies`)."""
        return self.applies is None or bool(self.applies(op_input, expected))


#: A predicate on one request: its input and the reference's answer (its output, or
#: :class:`Errored` when the spec calls the input erroneous).
Applies = Callable[[Any, Any], bool]


def scoped(rules: Iterable[Rule], applies: Mapping[str, Applies],
           needs: Mapping[str, tuple[str, ...]]) -> tuple[Rule, ...]:
    """``rules`` with the answers each applies to and the answer classes each needs (keyed by
    rule id; a rule not named applies to every answer and needs no class). A key that names no
    rule is a typo, refused at import."""
    rules = tuple(rules)
    known = {rule.id for rule in rules}
    strangers = sorted((set(applies) | set(needs)) - known)
    if strangers:  # pragma: no cover - a table out of step with its rules
        raise ImportError(f"applicability given for unknown rule(s) {strangers}")
    return tuple(Rule(rule.id, rule.level, rule.profile, rule.op, rule.section, rule.title,
                      applies=applies.get(rule.id), needs=needs.get(rule.id, ()))
                 for rule in rules)


@dataclass(frozen=True)
class AnswerClass:
    """One kind of answer the reference gives to an operation (a frame, a bounded line, a
    deferred publish …): every run meets every class of every operation it searches, or reports
    the rules that depend on an unmet one ``untested`` with the class named."""

    #: A short name, unique within the operation (``frame``, ``bounded line``).
    name: str
    #: Whether the reference's answer to an input belongs to the class (see :data:`Applies`).
    member: Applies = field(compare=False, repr=False)


@dataclass(frozen=True)
class Capabilities:
    """What an implementation declared in its handshake."""

    #: The operations it answers; the rest are skipped, never failed.
    ops: frozenset[str] = frozenset(REFERENCE_OPS)
    #: The fit strategy its backstop uses; agreement is judged against it.
    fit_strategy: FitStrategy = "halving"
    #: Whether ``maxBytes`` may differ from the default 262144.
    variable_max_bytes: bool = True
    #: Whether a request may hold a lone surrogate (spec/protocol.md §4.2).
    lone_surrogates: bool = True
    #: How it reads numbers: ``exact`` (every literal's value, big integers whole) or
    #: ``double`` (each as the nearest IEEE double, as ``JSON.parse`` does; spec/protocol.md
    #: §4.2). Its inputs are sent, and its answers judged, as it reads them.
    numbers: Numbers = "exact"

    def reads(self, value: Any) -> Any:
        """``value`` as this implementation reads it (:func:`._json.as_read`): the same object
        when no declared limit concerns it."""
        return as_read(value, lone_surrogates=self.lone_surrogates, numbers=self.numbers)

    @property
    def limits(self) -> tuple[str, ...]:
        """The declared limits, as the handshake spells them (``loneSurrogates: false``)."""
        return tuple(limit for limit, declared in (
            ("loneSurrogates: false", not self.lone_surrogates),
            ('numbers: "double"', self.numbers == "double")) if declared)


#: What each declared limit leaves unjudged (spec/protocol.md §4.2): the rule whose inputs it
#: changes, and what that rule then never meets. Every other rule judges the inputs as sent.
LIMIT_LEAVES: dict[str, tuple[str, str]] = {
    "loneSurrogates: false": ("canon.utf8", "lone surrogate to make well formed"),
    'numbers: "double"': ("project.numbers", "integer literal beyond 2^53 - 1 to refuse"),
}


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
    #: A stable name of the failure, the same whatever input showed it (``lone surrogate
    #: kept``); expectation files match it. Empty: the rule's one kind of failure.
    kind: str = ""
    #: True when the failure is a cause other rules' failures follow from (a lone surrogate kept
    #: breaks every rule that compares the line): reports list those as "same cause".
    cause: bool = False


#: The kind of a failure that its answer's non-canonical byte form explains (an encoder that
#: escapes U+2028 measures a line 3 bytes longer and bounds one that fits): reports list it as
#: the same cause as the byte-form rule's failure (:func:`._results.group_byte_forms`).
BYTE_FORM_KIND = "measured in a non-canonical byte form"
#: The rule that judges the byte form of a line (wire.md §6).
BYTE_FORM_RULE = "canon.bytes"

Check = Callable[[Case], Iterator[Violation]]


def judges(*rule_ids: str) -> Callable[[Check], Check]:
    """Mark a check with the rule ids it yields violations of (``eventproof rules --where``
    and the vacuity test read the mark)."""

    def mark(check: Check) -> Check:
        check.rules = rule_ids  # type: ignore[attr-defined]
        return check

    return mark


def rules_of(check: Check) -> tuple[str, ...]:
    """The rule ids a check was marked with by :func:`judges`."""
    return tuple(getattr(check, "rules", ()))
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
    #: Hypothesis ``target`` observations of an input (used by the thorough effort).
    observer: Observer | None
    #: The catch-all rule a crash or a broken answer is reported under.
    agreement_rule: str
    #: The rule a hang is reported under.
    hang_rule: str
    #: The schema file (in ``schemas/``) every input is valid against.
    input_schema: str
    #: The classes of the reference's answers the families aim at, in the order reports list
    #: them; an answer may belong to several.
    classes: tuple[AnswerClass, ...] = ()
    #: An answer with every defect a *cause* violation names (``Violation.cause``) repaired, and
    #: nothing else changed: a failure is "same cause" as such a violation only when the
    #: repaired answer no longer breaks its rule. None: the operation names no cause.
    repair: Callable[[Any], Any] | None = None

    def classes_of(self, op_input: Any, expected: Any) -> tuple[str, ...]:
        """The names of the classes the reference's answer ``expected`` to ``op_input`` is in."""
        return tuple(item.name for item in self.classes if item.member(op_input, expected))

    def rule_ids(self) -> tuple[str, ...]:
        """The ids of :attr:`rules`, in order."""
        return tuple(rule.id for rule in self.rules)


@dataclass(frozen=True)
class VectorSource:
    """One hand-written vector before the reference answered it: the rule it pins, a slug, a
    description and the input."""

    #: The id of the rule the vector pins.
    rule: str
    #: The part of the vector id after the rule: lowercase words joined by hyphens.
    slug: str
    #: What the vector checks, in words.
    description: str
    #: The operation input.
    input: Any
    #: The fit strategies the vector is written for; one vector per strategy. Empty: the answer
    #: does not depend on the strategy (the build checks that it really does not).
    fits: tuple[FitStrategy, ...] = ()


@dataclass(frozen=True)
class RuleGroup:
    """The rules sharing an id prefix (``bound``): one checks module and one vector file."""

    #: The prefix, which is also the vector file's name (``spec/vectors/bound.json``).
    name: str
    #: One sentence for the vector file.
    description: str
    #: The hand-written vector sources of the group.
    vectors: Callable[[], Iterable[VectorSource]]


@dataclass(frozen=True)
class Profile:
    """A rule set: its spec file, its operations and its rule groups."""

    #: ``selection``, ``wire`` or ``budget``.
    name: str
    #: The spec file that states it, e.g. ``selection.md``.
    spec: str
    operations: tuple[Operation, ...]
    groups: tuple[RuleGroup, ...]


def reference_answer(name: str, function: Callable[..., Any] | None = None) -> ReferenceAnswer:
    """The reference's answer to operation ``name``, for the declared fit strategy.

    ``function`` is the reference function that computes it (``select_output`` …), named by
    ``eventproof rules --where``.
    """
    from eventproof.reference import reference_for

    def answer(op_input: Any, capabilities: Capabilities) -> Any:
        return reference_for(capabilities.fit_strategy).run(name, op_input)

    answer.__qualname__ = answer.__name__ = f"reference_{name}"
    answer.reference_function = function  # type: ignore[attr-defined]
    return answer


class Deferred:
    """A function of a module that is imported on the first call, so that reading the operation
    table (``eventproof rules``, ``--version``, a report, a usage error) imports no strategy and
    no Hypothesis. ``inspect.unwrap`` reaches the function itself (``__wrapped__``)."""

    __slots__ = ("_function", "module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name
        self._function: Callable[..., Any] | None = None

    @property
    def __wrapped__(self) -> Callable[..., Any]:
        if self._function is None:
            from importlib import import_module

            self._function = getattr(import_module(self.module), self.name)
        return self._function

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return (self._function or self.__wrapped__)(*args, **kwargs)

    def __repr__(self) -> str:
        return f"{self.module}.{self.name}"


def one_family(inputs: StrategyFactory) -> Callable[[Capabilities], tuple[Family, ...]]:
    """The families of an operation searched as one family of all its inputs."""

    def families(capabilities: Capabilities) -> tuple[Family, ...]:
        return (Family("all", 1, inputs(capabilities)),)

    return families
