"""The results model: what a run found, and the one verdict every output renders.

The search (:mod:`._engine`) produces one :class:`RuleResult` per rule; a :class:`RunReport`
holds them with the implementation's identity. :class:`RunVerdict` is computed from those results
by :func:`judge_run` alone — whether the run conforms, its exit code, its counts and each
profile's status — and the console, the JSON, JUnit and Markdown reports, the matrix page and its
badges, the action, the pytest plugin, ``replay`` and ``report --merge`` render that value; none of
them decides a verdict of its own (spec/protocol.md §5.6).

This module imports nothing of the search, the adapters or the renderers.
"""

from __future__ import annotations

import re
import shlex
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import IntEnum, StrEnum
from pathlib import Path
from typing import Any, Literal

from ._clip import (
    MESSAGE_CHARACTERS,
    STDERR_CHARACTERS,
    clip_identity,
    clip_text,
    clip_value,
)
from ._model import BROKEN, BYTE_FORM_KIND, BYTE_FORM_RULE, FAILING, Capabilities, Outcome, Rule

__all__ = [
    "ABANDONED_REASON",
    "EARLY_STOPS",
    "EXITFIRST_REASON",
    "INTERRUPTED_REASON",
    "MAX_TIME_REASON",
    "OUTCOMES",
    "PARTIAL_HEADLINE",
    "STALE_HEADLINE",
    "STOP_AFTER_REASON",
    "TERMINATED_REASON",
    "Counterexample",
    "Coverage",
    "ExitCode",
    "Expectations",
    "Invocation",
    "ProfileVerdict",
    "RuleResult",
    "RunReport",
    "RunVerdict",
    "Scope",
    "StopReason",
    "apply_expectations",
    "combined_exit_code",
    "group_byte_forms",
    "group_refusals",
    "iter_failures",
    "judge_run",
    "report_from_document",
    "verdict_of_document",
]

#: Every outcome a rule can have, in the order reports count them.
OUTCOMES: tuple[Outcome, ...] = (
    "pass", "fail", "error", "crash", "timeout", "unstable", "untested", "skip", "xfail",
    "xpass")


class StopReason(StrEnum):
    """Why a run, or one operation's search, ended before every search ran its course. The value
    is the sentence reports print (``cut_short``; "" when the run was not cut short)."""

    #: The run reached its whole-run bound (``--max-time``, spec/protocol.md §7.1).
    MAX_TIME = "the run reached --max-time"
    #: The run was interrupted (Ctrl-C, SIGINT).
    INTERRUPTED = "the run was interrupted"
    #: The run was asked to end (SIGTERM: ``timeout``, ``kill``, a cancelled CI job).
    TERMINATED = "the run was terminated"
    #: The run was asked to stop at its first broken rule (``--exitfirst``).
    EXITFIRST = "the run stopped at its first broken rule (--exitfirst)"
    #: The run was asked to stop once given rules were broken (``stop_after``).
    STOP_AFTER = "the run stopped once every rule it was to look for was broken"
    #: A family search whose result was no longer wanted (never counted in a report).
    ABANDONED = "the search was no longer wanted"


MAX_TIME_REASON = StopReason.MAX_TIME
INTERRUPTED_REASON = StopReason.INTERRUPTED
TERMINATED_REASON = StopReason.TERMINATED
EXITFIRST_REASON = StopReason.EXITFIRST
STOP_AFTER_REASON = StopReason.STOP_AFTER
ABANDONED_REASON = StopReason.ABANDONED
#: The reasons a run ends early because it found what it was asked to look for.
EARLY_STOPS: frozenset[str] = frozenset({StopReason.EXITFIRST, StopReason.STOP_AFTER})


class ExitCode(IntEnum):
    """What the process returns (README, docs/gate-ci.md)."""

    CONFORMS = 0
    NONCONFORMING = 1
    #: A usage or harness error: a bad flag, an unreadable file, a program that cannot start.
    USAGE = 2
    #: Interrupted (Ctrl-C): 128 + SIGINT.
    INTERRUPTED = 130
    #: Terminated (SIGTERM): 128 + SIGTERM.
    TERMINATED = 143


@dataclass(frozen=True)
class Counterexample:
    """A minimal input on which the implementation broke a rule, with everything to replay it."""

    op: str
    input: Any
    #: The reference's answer (``{"errored": message}`` when the spec calls the input erroneous).
    expected: Any
    #: The implementation's answer, or a description of how it failed to answer.
    actual: Any
    #: The check's explanation.
    message: str
    #: The Hypothesis seed of the run that found it (None in deterministic mode).
    seed: int | None
    #: The tail of the implementation's stderr when it crashed or hung.
    stderr: str = ""
    #: The failure's stable kind (see :class:`~._model.Violation`); expectation files match it.
    kind: str = ""

    def __post_init__(self) -> None:
        # What the implementation said is clipped here, where it enters the results, so that no
        # report, console line or case file grows with it (_clip); the input stays whole.
        object.__setattr__(self, "actual", clip_value(self.actual))
        object.__setattr__(self, "message", clip_text(self.message, MESSAGE_CHARACTERS))
        object.__setattr__(self, "stderr", clip_text(self.stderr, STDERR_CHARACTERS, keep="end"))


@dataclass(frozen=True)
class Invocation:
    """Every setting that shaped a run, so a printed command reproduces it exactly."""

    #: The ``--impl`` value (None: an object passed in code, which no command can name).
    impl: str | None
    use_shell: bool = False
    #: The operations checked (None: every operation).
    ops: tuple[str, ...] | None = None
    timeout: float = 10.0
    effort: str = "default"
    max_examples: int | None = None
    seed: int | None = None
    deterministic: bool = True
    allow_untested: bool = False
    exitfirst: bool = False
    #: The slice of the operations this run checked (``--shard K/N``), or None for all of
    #: :attr:`ops`.
    shard: tuple[int, int] | None = None
    #: The rules asked for (``--rule``), or () for every rule.
    rules: tuple[str, ...] = ()
    #: Whether a ``python:`` implementation ran in a worker process (``--isolate``).
    isolate: bool = False

    def subset(self) -> str:
        """The options that made this run check part of a whole run (``--rule select.x``,
        ``--ops select,fold``, ``--shard 1/3``), or "" for a whole run."""
        from ._operations import OPS

        words = []
        if self.ops is not None and set(self.ops) != set(OPS):
            words.append(f"--ops {','.join(self.ops)}")
        if self.shard is not None:
            words.append(f"--shard {self.shard[0]}/{self.shard[1]}")
        words.extend(f"--rule {rule}" for rule in self.rules)
        return " ".join(words)

    def _common(self) -> list[str]:
        impl = shlex.quote(self.impl) if self.impl else "'<your implementation>'"
        words = [f"--impl {impl}"]
        if self.use_shell:
            words.append("--shell")
        if self.timeout != 10.0:
            words.append(f"--timeout {self.timeout:g}")
        return words

    def rerun(self) -> str:
        """The ``eventproof run`` command that repeats this run."""
        words = ["eventproof run", *self._common()]
        if self.ops is not None:
            words.append(f"--ops {','.join(self.ops)}")
        if self.shard is not None:
            words.append(f"--shard {self.shard[0]}/{self.shard[1]}")
        words.extend(f"--rule {rule}" for rule in self.rules)
        words.append(f"--effort {self.effort}")
        if self.max_examples is not None:
            words.append(f"--max-examples {self.max_examples}")
        words.append("--deterministic" if self.deterministic or self.seed is None
                     else f"--random --seed {self.seed}")
        if self.allow_untested:
            words.append("--allow-untested")
        if self.exitfirst:
            words.append("--exitfirst")
        return " ".join(words)

    def replay(self, case_file: str | Path) -> str:
        """The ``eventproof replay`` command that re-runs one saved case."""
        return " ".join(["eventproof replay", shlex.quote(str(case_file)), *self._common()])


@dataclass(frozen=True)
class Coverage:
    """How much of a rule's search was really judged (spec/protocol.md §5.6)."""

    #: Answers the rule judged: outputs, and ``errored`` answers to inputs the spec calls
    #: erroneous (an ``errored`` answer to a valid input judges only the rule it breaks).
    judged: int = 0
    #: Requests of the operation answered ``skipped``, and ``errored`` to a valid input.
    skipped: int = 0
    errored: int = 0
    #: Requests that hung, crashed or broke the protocol, and requests set aside unsent.
    unanswered: int = 0
    #: Why the operation's search stopped.
    stopped: str = ""
    #: Requests not sent because the implementation declared it cannot take them
    #: (``loneSurrogates: false``, spec/protocol.md §4.2).
    limited: int = 0


@dataclass(frozen=True)
class RuleResult:
    """The verdict on one rule."""

    rule: Rule
    outcome: Outcome
    counterexample: Counterexample | None = None
    #: Why a rule was skipped or untested, or which expectation turned a failure into ``xfail``.
    note: str = ""
    #: What the search judged (None for a result that was never searched, e.g. in a test).
    coverage: Coverage | None = None
    #: The rule whose failure this one follows from ("same cause"), or "" when it stands alone.
    cause: str = ""
    #: Seconds of the operation's check that settled this rule: for a rule broken by a search
    #: round, that round (shrinking included); for the rules the last round settled together,
    #: an equal share of that round and of the book-keeping after it. The rules of an operation
    #: add up to the time spent checking it (see :func:`_settle_seconds`).
    seconds: float = 0.0

    def __post_init__(self) -> None:
        # A note quotes skip reasons and messages of the implementation (see Counterexample).
        object.__setattr__(self, "note", clip_text(self.note, MESSAGE_CHARACTERS))


@dataclass
class RunReport:
    """What a run found: the implementation's identity and one result per rule."""

    implementation: dict[str, Any]
    capabilities: Capabilities
    results: list[RuleResult]
    #: The effort of the searches (``quick``, ``default``, ``thorough``), which set their number
    #: of examples (unless ``--max-examples`` overrode it).
    effort: str
    seed: int | None
    deterministic: bool
    duration: float = 0.0
    calls: int = 0
    #: Whether an ``untested`` MUST rule is let through (``--allow-untested``).
    allow_untested: bool = False
    #: The settings of the run, for commands that reproduce it (None when unknown).
    invocation: Invocation | None = None
    #: Why the run ended before every search ran its course ("" when it did not): it reached
    #: ``--max-time``, or it was interrupted.
    cut_short: str = ""
    #: The answers met in each answer class, by operation searched (``Operation.classes``), in
    #: the order the operation declares its classes; a class no answer met counts 0.
    classes: dict[str, dict[str, int]] = field(default_factory=dict)
    #: When the run began (``time.time()``; 0.0 when unknown): case files written since then by
    #: another run on the same state directory are that run's, never cleaned up by this one.
    started_at: float = 0.0

    @property
    def budget(self) -> str:
        """The old name of :attr:`effort` (budget names the budget profile only)."""
        warnings.warn("RunReport.budget is now RunReport.effort: budget names the budget "
                      "profile only", DeprecationWarning, stacklevel=2)
        return self.effort

    def verdict_rows(self) -> list[RuleRow]:
        """What :func:`judge_run` reads of each result, in order."""
        return [_row(result) for result in self.results]

    def __post_init__(self) -> None:
        # The identity is the implementation's own text (see Counterexample).
        self.implementation = clip_identity(self.implementation)

    @property
    def verdict(self) -> RunVerdict:
        """The verdict on this run (:func:`judge_run`): every output renders this value."""
        return judge_run(self.verdict_rows(),
                         declared=self.capabilities.ops, allow_untested=self.allow_untested,
                         ending=self.cut_short, whole=whole_run(),
                         subset=self.invocation.subset() if self.invocation is not None else "")

    @property
    def conforms(self) -> bool:
        """:attr:`RunVerdict.conforms` of :attr:`verdict`."""
        return self.verdict.conforms

    @property
    def judged_rules(self) -> int:
        """How many rules were judged on at least one answer (:attr:`RunVerdict.judged`)."""
        return self.verdict.judged

    @property
    def failed_rule_ids(self) -> set[str]:
        """Every rule whose outcome is fail, error, crash or timeout (SHOULD rules included)."""
        return {result.rule.id for result in self.results if result.outcome in BROKEN}

    def result_for(self, rule_id: str) -> RuleResult:
        """The result of one rule by id."""
        for result in self.results:
            if result.rule.id == rule_id:
                return result
        raise KeyError(rule_id)


class Expectations(dict[str, str]):
    """An expectations file's entries, ``{rule id: entry}``, with the file and the line each was
    listed on, so that an entry gone stale is named where it can be deleted."""

    def __init__(self, entries: Mapping[str, str] | None = None, *, path: str = "",
                 lines: Mapping[str, int] | None = None) -> None:
        super().__init__(entries or {})
        self.path = path
        self.lines = dict(lines or {})

    def where(self, rule_id: str) -> str:
        """``FILE:LINE`` of a rule's entry (``the expectations file`` when unknown)."""
        if not self.path:
            return "the expectations file"
        line = self.lines.get(rule_id)
        return f"{self.path}:{line}" if line else self.path


#: How a stale expectation's note begins (the verdict names such rules by it).
STALE_NOTE = "stale expectation: "


def stale_note(expected: Mapping[str, str], rule_id: str) -> str:
    """The note of a listed rule that passes now: where it is listed and how to remove it."""
    where = (expected.where(rule_id) if isinstance(expected, Expectations)
             else "the expectations file")
    path = expected.path if isinstance(expected, Expectations) and expected.path else "FILE"
    return (f"{STALE_NOTE}{where} lists {rule_id} as an expected failure, but it passes now: "
            f"delete that line, or rewrite the file with `eventproof run --expect "
            f"{shlex.quote(path)} --update-expectations`")


def apply_expectations(report: RunReport, expected: Mapping[str, str]) -> RunReport:
    """Turn listed failures into ``xfail`` and listed passes into ``xpass``.

    ``expected`` maps a rule id to ``[failure kind]`` (the current form), ``""`` (any failure),
    or a message prefix (the earlier form, still honoured, with a migration note); an
    :class:`Expectations` also says where each is listed, which a stale entry's note names.
    """
    results = []
    for result in report.results:
        entry = expected.get(result.rule.id)
        if entry is None:
            results.append(result)
        elif result.outcome in BROKEN:
            example = result.counterexample
            message = example.message if example else result.note
            kind = example.kind if example else ""
            if entry.startswith("[") and entry.endswith("]"):
                listed = entry[1:-1]
                if kind == listed:
                    results.append(replace(result, outcome="xfail",
                                           note=f"expected: {entry}"))
                else:
                    results.append(replace(result, note=(
                        f"listed as {entry}, but this failure is "
                        f"{f'[{kind}]' if kind else 'of the rule’s one kind'}: a different bug")))
            elif message.startswith(entry):
                migrate = ("" if not entry else " (an old-style message prefix: rewrite the file "
                           "with --update-expectations to match the failure kind instead)")
                results.append(replace(result, outcome="xfail",
                                       note=f"expected: {entry}{migrate}".rstrip()))
            else:
                results.append(replace(result, note=f"listed with prefix {entry!r}, but the "
                                       f"message is {message[:80]!r}"))
        elif result.outcome == "pass":
            results.append(replace(result, outcome="xpass",
                                   note=stale_note(expected, result.rule.id)))
        else:
            results.append(result)
    return replace(report, results=results)


#: What a refusal message keeps when refusals are grouped: numbers and quoted values vary with the
#: input, the words say what was refused.
_VARYING = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'[^']*'|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _members(value: Any) -> set[str]:
    """Every member name anywhere in a JSON value (refused inputs of different operations hold
    a refused member at different paths)."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            found.add(str(key))
            found |= _members(item)
    elif isinstance(value, list):
        for item in value:
            found |= _members(item)
    return found


def _refusal(result: RuleResult) -> str | None:
    """The grouping key of an ``errored`` answer to an input the spec calls valid: the refusal
    message with what varies from input to input masked; None for anything else."""
    example = result.counterexample
    if (result.outcome != "error" or example is None or not isinstance(example.actual, dict)
            or set(example.actual) != {"errored"}
            or (isinstance(example.expected, dict) and set(example.expected) == {"errored"})):
        return None
    return _VARYING.sub("…", str(example.actual["errored"])).strip()


def group_refusals(results: Sequence[RuleResult]) -> list[RuleResult]:
    """One refusal, one failure: the ``errored`` answers to valid inputs that give the same
    refusal (the same message but for the values in it), across every operation, are one
    failure, shown under the first such rule; the others are "same cause" as it, and its note
    names what every refused input holds (the members common to all of them), so the member an
    implementation refuses is named once rather than under every rule it blocked. Outcomes
    (and so the verdict) do not change."""
    groups: dict[str, list[int]] = {}
    for index, result in enumerate(results):
        key = _refusal(result)
        if key is not None and not result.cause:
            groups.setdefault(key, []).append(index)
    grouped = list(results)
    for indices in groups.values():
        if len(indices) < 2:
            continue
        first = grouped[indices[0]]
        inputs = [grouped[i].counterexample.input for i in indices  # type: ignore[union-attr]
                  if grouped[i].counterexample is not None]
        common = set.intersection(*(_members(value) for value in inputs)) if inputs else set()
        named = ", ".join(sorted(common)[:12]) or "no member name in common"
        rules = ", ".join(grouped[i].rule.id for i in indices)
        note = (f"the same refusal blocked {len(indices)} rules ({rules}); the member names "
                f"every refused input holds: {named}")
        grouped[indices[0]] = replace(first, note="; ".join(filter(None, (first.note, note))))
        for i in indices[1:]:
            grouped[i] = replace(grouped[i], cause=first.rule.id)
    return grouped


def group_byte_forms(results: Sequence[RuleResult]) -> list[RuleResult]:
    """One byte-form bug, one failure: a failure whose check found it explained by the answer's
    non-canonical byte form (its kind is :data:`~._model.BYTE_FORM_KIND`, given only when the
    size the implementation measured, read off its own line, explains it) is "same cause" as
    the byte-form rule's failure, when the run found that rule broken. Outcomes (and so the
    verdict) do not change."""
    primary = next((result for result in results if result.rule.id == BYTE_FORM_RULE
                    and result.outcome in BROKEN and not result.cause), None)
    if primary is None:
        return list(results)
    grouped = [replace(result, cause=BYTE_FORM_RULE)
               if (result is not primary and not result.cause and result.outcome in BROKEN
                   and result.counterexample is not None
                   and result.counterexample.kind == BYTE_FORM_KIND) else result
               for result in results]
    # A failure that followed from one now listed under the byte form follows from it too: every
    # failure is listed under one that is shown.
    causes = {result.rule.id: result.cause for result in grouped}

    def root(rule_id: str) -> str:
        seen = {rule_id}
        while causes.get(rule_id) and causes[rule_id] not in seen:
            rule_id = causes[rule_id]
            seen.add(rule_id)
        return rule_id

    return [replace(result, cause=root(result.cause)) if result.cause else result
            for result in grouped]


def iter_failures(report: RunReport) -> Iterator[RuleResult]:
    """Results with a counterexample, in rule order."""
    return (result for result in report.results if result.counterexample is not None)


# -- the verdict -------------------------------------------------------------------------------

#: A profile's status in a run (spec/protocol.md §5.6).
ProfileStatus = Literal[
    "conforms", "does not conform", "checked only", "partly declared", "not declared",
    "not checked"]
#: The headline of a run that broke no rule it checked but checked only part of a whole run
#: (``--rule``, ``--ops``, ``--shard``, a pytest ``-k``): it exits 0, and conforms for nothing.
PARTIAL_HEADLINE = "checked only part"
#: The headline of a run whose only fault is an expectation gone stale (a listed rule passes).
STALE_HEADLINE = "stale expectations"
#: Where each profile's operations are, in run order (read from the operation table once).
_ENDING_CODES: Mapping[str, ExitCode] = {
    StopReason.INTERRUPTED: ExitCode.INTERRUPTED, StopReason.TERMINATED: ExitCode.TERMINATED}


@dataclass(frozen=True)
class RuleRow:
    """What the verdict reads of one rule's result (from a :class:`RuleResult` or a report's
    JSON, so that a merged or re-read report is judged by the same function)."""

    id: str
    level: str
    profile: str
    op: str
    outcome: str
    #: Whether the rule judged at least one answer.
    judged: bool
    #: The rule whose failure this one follows from, or "".
    cause: str = ""
    #: The result's note (a stale expectation's names the file and line that list it).
    note: str = ""


@dataclass(frozen=True)
class RuleRef:
    """One rule of a whole run: what the verdict needs to say what a run left out."""

    id: str
    profile: str
    op: str


def whole_run() -> tuple[RuleRef, ...]:
    """Every rule a whole run checks (the operation table's), in order."""
    from ._operations import RULES

    return tuple(RuleRef(rule.id, rule.profile, rule.op) for rule in RULES)


@dataclass(frozen=True)
class Scope:
    """What part of a whole run a run checked: computed by :func:`judge_run` from the rules it
    holds, so that every output says "checked only …" of a slice, however it was cut."""

    #: Rules in the run, of how many a whole run checks.
    checked: int
    rules: int
    #: The options that cut the run (``--rule select.last-message``, ``--shard 1/3``,
    #: ``-k bound``), or "" when unknown.
    by: str = ""
    #: Each operation the run checked, with how many of its rules it checked, of how many.
    ops: tuple[tuple[str, int, int], ...] = ()

    @property
    def whole(self) -> bool:
        """Whether the run checked every rule of a whole run."""
        return self.checked >= self.rules

    def describe(self) -> str:
        """``checked only 12 of 59 rules (--shard 1/3: select, fold, settle)``; "" when whole."""
        if self.whole:
            return ""
        ops = ", ".join(f"{op} all" if count == total else f"{op} {count} of {total}"
                        for op, count, total in self.ops) or "no operation"
        by = f"{self.by}: " if self.by else ""
        return (f"checked only {self.checked} of {self.rules} rules ({by}{ops}); "
                "a whole run decides conformance")

    def document(self) -> dict[str, Any]:
        return {"whole": self.whole, "checkedRules": self.checked, "rules": self.rules,
                "by": self.by, "ops": [{"op": op, "checkedRules": count, "rules": total}
                                       for op, count, total in self.ops],
                "line": self.describe()}


@dataclass(frozen=True)
class ProfileVerdict:
    """One profile's status in a run."""

    profile: str
    status: ProfileStatus
    #: The profile's operations this run checked that the implementation declared, in run order.
    declared: tuple[str, ...]
    #: The profile's operations this run checked that the implementation did not declare.
    undeclared: tuple[str, ...]
    #: The profile's operations this run did not check (``--ops``, ``--shard``).
    unchecked: tuple[str, ...]
    #: How many of the profile's rules had each outcome.
    counts: Mapping[str, int]
    #: How many of its rules judged at least one answer, of how many.
    judged: int
    rules: int
    #: The rules of its declared operations a whole run judges that this run did not judge
    #: (left out of the run, or judged on no answer); a profile with any is never ``conforms``.
    missing: tuple[str, ...] = ()
    #: How many rules the profile's declared operations have in a whole run.
    whole: int = 0

    def describe(self) -> str:
        """``budget: not declared (details, roster, lane, publish)`` and the like."""
        if self.status == "not declared":
            return f"{self.profile}: not declared ({', '.join(self.undeclared)})"
        if self.status == "partly declared":
            return (f"{self.profile}: partly declared ({', '.join(self.declared)} checked; "
                    f"{', '.join(self.undeclared)} not declared)")
        if self.status == "not checked":
            return f"{self.profile}: not checked in this run"
        unchecked = (f"; {', '.join(self.unchecked)} not checked in this run"
                     if self.unchecked else "")
        if self.status == "checked only":
            shown = ", ".join(self.missing[:4]) + (
                f" and {len(self.missing) - 4} more" if len(self.missing) > 4 else "")
            return (f"{self.profile}: checked only {self.whole - len(self.missing)} of "
                    f"{self.whole} rules, none broken ({self.judged} of {self.rules} rules "
                    f"judged{unchecked}; not judged: {shown})")
        return (f"{self.profile}: {self.status} ({self.judged} of {self.rules} rules judged"
                f"{unchecked})")

    def document(self) -> dict[str, Any]:
        return {"profile": self.profile, "status": self.status, "declared": list(self.declared),
                "undeclared": list(self.undeclared), "unchecked": list(self.unchecked),
                "counts": dict(self.counts),
                "judgedRules": self.judged, "rules": self.rules,
                "missing": list(self.missing)}


@dataclass(frozen=True)
class RunVerdict:
    """The verdict on one implementation: computed once, by :func:`judge_run`, and rendered by
    every output. Nothing else decides whether a run conforms or what it exits with."""

    #: True when every MUST rule of every declared operation passed (or failed as expected), at
    #: least one rule was judged, no MUST rule went untested (unless let through) and the run was
    #: neither interrupted nor terminated. For a run of part of the rules (:attr:`scope`), that
    #: no rule it checked broke it: its headline is then ``checked only part``.
    conforms: bool
    #: What the process returns for this implementation alone.
    exit_code: ExitCode
    #: ``conforms``, ``checked only part``, ``does not conform``, ``stale expectations``,
    #: ``interrupted``, ``terminated`` or ``could not be checked``.
    headline: str
    #: Why it does not conform (or, when it does, what is still worth saying), in words.
    reasons: tuple[str, ...]
    #: How many rules had each outcome (every outcome listed, in :data:`OUTCOMES` order).
    counts: Mapping[str, int]
    #: How many rules judged at least one answer, of how many rules in the run.
    judged: int
    rules: int
    profiles: tuple[ProfileVerdict, ...] = ()
    #: The MUST rules that were not judged (``untested``), in rule order.
    unjudged: tuple[str, ...] = ()
    #: Why the run ended early ("" when every search ran its course).
    ending: str = ""
    #: Why the implementation could not be checked (only for ``could not be checked``).
    error: str = ""
    #: What part of a whole run this run checked (None: unknown, the run is its own whole).
    scope: Scope | None = None

    @property
    def whole(self) -> bool:
        """Whether the run checked every rule of a whole run."""
        return self.scope is None or self.scope.whole

    def line(self) -> str:
        """The summary line: ``conforms (exit code 0, 34 of 59 rules judged): ...``."""
        judged = f"{self.judged} of {self.rules} rules judged"
        detail = f": {'; '.join(self.reasons)}" if self.reasons else ""
        if self.error:
            return f"{self.headline} (exit code {int(self.exit_code)}){detail}"
        return f"{self.headline} (exit code {int(self.exit_code)}, {judged}){detail}"

    def document(self) -> dict[str, Any]:
        """The verdict as the JSON report's ``verdict`` member (schemas/report.json)."""
        document: dict[str, Any] = {
            "conforms": self.conforms, "exitCode": int(self.exit_code), "headline": self.headline,
            "line": self.line(), "reasons": list(self.reasons), "counts": dict(self.counts),
            "judgedRules": self.judged, "rules": self.rules,
            "profiles": [profile.document() for profile in self.profiles],
            "unjudged": list(self.unjudged), "ending": self.ending,
        }
        if self.scope is not None:
            document["scope"] = self.scope.document()
        if self.error:
            document["error"] = self.error
        return document

    @classmethod
    def could_not_check(cls, error: str) -> RunVerdict:
        """The verdict on an implementation that could not be started or checked."""
        error = clip_text(error, STDERR_CHARACTERS)  # it may quote the program's stderr
        return cls(conforms=False, exit_code=ExitCode.USAGE, headline="could not be checked",
                   reasons=(error,), counts=dict.fromkeys(OUTCOMES, 0), judged=0, rules=0,
                   error=error)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _breaks(row: RuleRow, allow_untested: bool) -> bool:
    """Whether a result makes a run non-conforming."""
    if row.outcome in ("xpass", "unstable"):
        return True
    if row.level != "MUST":
        return False
    return row.outcome in FAILING or (row.outcome == "untested" and not allow_untested)


def _breaks_profile(row: RuleRow, allow_untested: bool) -> bool:
    """Whether a result makes its profile not conform: a stale expectation is the expectations
    file's fault, named as such, never the profile's (its rule passes)."""
    return row.outcome != "xpass" and _breaks(row, allow_untested)


def _profile_verdict(profile: str, rows: Sequence[RuleRow], declared: frozenset[str],
                     ops: Mapping[str, str], allow_untested: bool,
                     whole: Sequence[RuleRef] | None) -> ProfileVerdict:
    mine = [row for row in rows if row.profile == profile]
    checked = [op for op, owner in ops.items()
               if owner == profile and any(row.op == op for row in mine)]
    unchecked = tuple(op for op, owner in ops.items() if owner == profile and op not in checked)
    counts: dict[str, int] = dict.fromkeys(OUTCOMES, 0)
    for row in mine:
        counts[row.outcome] = counts.get(row.outcome, 0) + 1
    judged = sum(1 for row in mine if row.judged)
    ins = tuple(op for op in checked if op in declared)
    outs = tuple(op for op in checked if op not in declared)
    # What a whole run of the declared operations judges that this one did not.
    judged_ids = {row.id for row in mine if row.judged}
    owed = ([ref.id for ref in whole if ref.profile == profile and ref.op in declared]
            if whole is not None else [])
    missing = tuple(rule_id for rule_id in owed if rule_id not in judged_ids)
    status: ProfileStatus
    if not checked:
        status = "not checked"
    elif not ins:
        status = "not declared"
    elif judged == 0 or any(_breaks_profile(row, allow_untested) for row in mine
                            if row.op in ins):
        status = "does not conform"
    elif missing:
        status = "checked only"
    elif outs:
        status = "partly declared"
    else:
        status = "conforms"
    return ProfileVerdict(profile, status, ins, outs, unchecked, counts, judged, len(mine),
                          missing, len(owed))


def _scope(rows: Sequence[RuleRow], whole: Sequence[RuleRef], by: str) -> Scope:
    present = {row.id for row in rows}
    totals: dict[str, int] = {}
    for ref in whole:
        totals[ref.op] = totals.get(ref.op, 0) + 1
    inside: dict[str, int] = {}
    for ref in whole:
        if ref.id in present:
            inside[ref.op] = inside.get(ref.op, 0) + 1
    ops = tuple((op, inside[op], totals[op]) for op in totals if inside.get(op))
    return Scope(checked=sum(inside.values()), rules=len(whole), by=by, ops=ops)


def _stale_reason(rows: Sequence[RuleRow]) -> str:
    """The stale expectations, each by the file and line that list it."""
    stale = [row for row in rows if row.outcome == "xpass"]
    where = [row.note.removeprefix(STALE_NOTE).partition(" lists ")[0]
             if row.note.startswith(STALE_NOTE) else "" for row in stale]
    named = ", ".join(f"{row.id} ({place})" if place else row.id
                      for row, place in zip(stale, where, strict=True))
    listed = ("is listed as an expected failure but passes" if len(stale) == 1
              else "are listed as expected failures but pass")
    lines = "that line" if len(stale) == 1 else "those lines"
    return (f"{_plural(len(stale), 'stale expectation')}: {named} {listed} now (no profile "
            f"failure): delete {lines}, or rewrite the file with --update-expectations")


def judge_run(rows: Sequence[RuleRow], *, declared: Iterable[str], allow_untested: bool,
              ending: str = "", profiles: Mapping[str, Sequence[str]] | None = None,
              untested_note: str | None = None, whole: Sequence[RuleRef] | None = None,
              subset: str = "") -> RunVerdict:
    """The verdict on a run: the one function that decides it.

    ``rows`` are the results of the rules the run checked, ``declared`` the operations the
    implementation declared, ``ending`` why the run ended early ("" if it did not), ``profiles``
    each profile's operations (by default the operation table's), ``untested_note`` why a
    command's untested rules are untested when it is not a run's (the audit: no line could show
    them; it names no option the command lacks), ``whole`` every rule of a whole run
    (:func:`whole_run`; None: ``rows`` are the whole) and ``subset`` the options that cut the
    run. The exit code
    is "every declared rule": an operation the implementation does not declare makes its rules
    ``skip`` and its profile ``not declared`` (or ``partly declared``), which the summary says but
    which does not decide the code. A run that judged no rule at all does not conform. A run of
    part of a whole run (``--rule``, ``--ops``, ``--shard``) may exit 0, but its headline says
    ``checked only part``, its first reason what it checked, and no profile of which it left a
    rule out is ``conforms``. A stale expectation fails the run but no profile.
    """
    if profiles is None:
        from ._operations import PROFILES

        profiles = {profile.name: tuple(op.name for op in profile.operations)
                    for profile in PROFILES}
    owner = {op: profile for profile, names in profiles.items() for op in names}
    wanted = frozenset(declared)
    counts: dict[str, int] = dict.fromkeys(OUTCOMES, 0)
    for row in rows:
        counts[row.outcome] = counts.get(row.outcome, 0) + 1
    judged = sum(1 for row in rows if row.judged)
    broken = [row for row in rows if row.level == "MUST" and row.outcome in BROKEN]
    untested = tuple(row.id for row in rows if row.level == "MUST" and row.outcome == "untested")
    stale = counts.get("xpass", 0)
    unstable = counts.get("unstable", 0)
    should = sum(1 for row in rows if row.level == "SHOULD" and row.outcome in BROKEN)
    verdicts = tuple(_profile_verdict(profile, rows, wanted, owner, allow_untested, whole)
                     for profile in profiles)
    scope = _scope(rows, whole, subset) if whole is not None else None
    reasons: list[str] = []
    if scope is not None and not scope.whole:
        reasons.append(scope.describe())
    if ending in _ENDING_CODES:
        reasons.append(f"{ending}: {_plural(len(untested), 'rule')} not judged"
                       if untested else ending)
    elif ending:
        reasons.append(ending)
    if broken:
        distinct = len({row.cause or row.id for row in broken})
        same = f" ({distinct} distinct, the rest same cause)" if distinct < len(broken) else ""
        reasons.append(_plural(len(broken), "MUST rule") + f" broken{same}")
    if unstable:
        reasons.append(_plural(unstable, "rule") + " unstable: one input was answered "
                       "differently when asked again")
    if untested and ending not in _ENDING_CODES:
        allowed = " (let through by --allow-untested)" if allow_untested else ""
        note = untested_note or f"judged on no answer{allowed}"
        reasons.append(_plural(len(untested), "MUST rule") + f" untested: {note}")
    if stale:
        reasons.append(_stale_reason(rows))
    if rows and judged == 0:
        reasons.append("no rule was judged: nothing was checked")
    elif not rows:
        reasons.append("no rule was checked")
    for profile in verdicts:
        if profile.status in ("not declared", "partly declared"):
            reasons.append(profile.describe())
    if should:
        reasons.append(_plural(should, "SHOULD rule") + " broken (does not decide conformance)")
    if counts.get("xfail", 0):
        reasons.append(_plural(counts["xfail"], "expected failure"))
    faults = [row for row in rows if _breaks(row, allow_untested)]
    conforms = judged > 0 and ending not in _ENDING_CODES and not faults
    if ending in _ENDING_CODES:
        code = _ENDING_CODES[ending]
        headline = "interrupted" if code == ExitCode.INTERRUPTED else "terminated"
    else:
        code = ExitCode.CONFORMS if conforms else ExitCode.NONCONFORMING
        if conforms:
            headline = "conforms" if scope is None or scope.whole else PARTIAL_HEADLINE
        elif judged > 0 and faults and all(row.outcome == "xpass" for row in faults):
            headline = STALE_HEADLINE
        else:
            headline = "does not conform"
    return RunVerdict(conforms=conforms, exit_code=code, headline=headline,
                      reasons=tuple(reasons), counts=counts, judged=judged, rules=len(rows),
                      profiles=verdicts, unjudged=untested, ending=ending, scope=scope)


def _row(result: RuleResult) -> RuleRow:
    judged = (result.outcome not in ("skip", "untested")
              and (result.coverage is None or result.coverage.judged > 0
                   or result.counterexample is not None))
    rule = result.rule
    return RuleRow(rule.id, rule.level, rule.profile, rule.op, result.outcome, judged,
                   result.cause, result.note if result.outcome == "xpass" else "")


def verdict_of_document(document: Mapping[str, Any]) -> RunVerdict:
    """The verdict on a JSON report's results (a merged report, a report read back): the same
    :func:`judge_run` that gave the run's own."""
    from ._operations import RULES_BY_ID

    if document.get("verdict", {}).get("error"):
        return RunVerdict.could_not_check(str(document["verdict"]["error"]))
    rows = []
    for result in document.get("results", []):
        coverage = result.get("coverage")
        judged = (result["outcome"] not in ("skip", "untested")
                  and (coverage is None or coverage.get("judged", 0) > 0
                       or "counterexample" in result))
        # A rule this kit knows is judged at its own level, whatever the file says.
        known = RULES_BY_ID.get(result["id"])
        level, profile, op = ((known.level, known.profile, known.op) if known is not None
                              else (result["level"], result["profile"], result["op"]))
        rows.append(RuleRow(result["id"], level, profile, op, result["outcome"], judged,
                            result.get("cause", ""),
                            str(result.get("note", "")) if result["outcome"] == "xpass"
                            else ""))
    scope = (document.get("verdict") or {}).get("scope") or {}
    return judge_run(rows, declared=document.get("capabilities", {}).get("ops", ()),
                     allow_untested=bool(document.get("allowUntested", False)),
                     ending=str(document.get("verdict", {}).get("ending", "")),
                     whole=whole_run(), subset=str(scope.get("by", "")))


#: What a stored verdict is compared on with the one its results give.
_VERDICT_MEMBERS = ("conforms", "exitCode", "headline", "counts", "judgedRules", "rules",
                    "unjudged")


def verdict_disagreement(document: Mapping[str, Any], judged: RunVerdict) -> str:
    """"" when a report's stored ``verdict`` is ``judged`` (the verdict :func:`judge_run` gives
    its results); else what the stored one says and which of its members differ, so that a
    report edited after the run, or written by a kit that judged otherwise, is named."""
    stored = document.get("verdict")
    fresh = judged.document()
    if not isinstance(stored, Mapping):
        return "it stores no verdict"
    differs = [name for name in _VERDICT_MEMBERS if stored.get(name) != fresh.get(name)]
    statuses = [(entry.get("profile"), entry.get("status"))
                for entry in stored.get("profiles", []) if isinstance(entry, Mapping)]
    if statuses != [(entry["profile"], entry["status"]) for entry in fresh["profiles"]]:
        differs.append("profiles")
    if not differs:
        return ""
    return (f"its stored verdict ({stored.get('headline')!s}, exit code "
            f"{stored.get('exitCode')!s}) is not the one its results give ({judged.headline}, "
            f"exit code {int(judged.exit_code)}): {', '.join(differs)} differ. The results are "
            "judged again and shown; the stored verdict is not")


def report_from_document(document: Mapping[str, Any]) -> RunReport:
    """A JSON report read back as a :class:`RunReport` (for JUnit and Markdown of a merged
    report): its results, coverage and counterexamples, judged again by :func:`judge_run`."""
    from ._operations import RULES_BY_ID

    results = []
    for item in document["results"]:
        rule = RULES_BY_ID.get(item["id"]) or Rule(
            item["id"], item["level"], item["profile"], item["op"], item["section"],
            item["title"])
        coverage = item.get("coverage")
        example = item.get("counterexample")
        results.append(RuleResult(
            rule=rule, outcome=item["outcome"], note=item.get("note", ""),
            cause=item.get("cause", ""), seconds=float(item.get("seconds", 0.0)),
            coverage=None if coverage is None else Coverage(
                judged=coverage["judged"], skipped=coverage["skipped"],
                errored=coverage["errored"], unanswered=coverage["unanswered"],
                stopped=coverage["stopped"], limited=coverage.get("limited", 0)),
            counterexample=None if example is None else Counterexample(
                op=example["op"], input=example["input"], expected=example["expected"],
                actual=example["actual"], message=example["message"], seed=example["seed"],
                stderr=example.get("stderr", ""), kind=example.get("kind", ""))))
    capabilities = document["capabilities"]
    run = document.get("run") or {}
    return RunReport(
        implementation=dict(document["implementation"]),
        capabilities=Capabilities(
            ops=frozenset(capabilities["ops"]), fit_strategy=capabilities["fitStrategy"],
            variable_max_bytes=capabilities.get("variableMaxBytes", True),
            lone_surrogates=capabilities.get("loneSurrogates", True),
            numbers=capabilities.get("numbers", "exact")),
        results=results, effort=document["effort"], seed=document["seed"],
        deterministic=document["deterministic"], duration=document["durationSeconds"],
        calls=document["calls"], allow_untested=document["allowUntested"],
        cut_short=str((document.get("verdict") or {}).get("ending", "")),
        invocation=Invocation(
            impl=run.get("impl") or None, ops=tuple(run["ops"]) if run.get("ops") else None,
            timeout=run.get("timeout") or 10.0, effort=document["effort"],
            max_examples=run.get("maxExamples"), seed=document["seed"],
            deterministic=document["deterministic"],
            allow_untested=document["allowUntested"]) if run else None)


def combined_exit_code(verdicts: Iterable[RunVerdict]) -> ExitCode:
    """The exit code of a command that checked several implementations: interrupted or
    terminated first, then 2 when one could not be checked, else 1 when one does not conform,
    else 0."""
    codes = {verdict.exit_code for verdict in verdicts}
    for code in (ExitCode.TERMINATED, ExitCode.INTERRUPTED, ExitCode.USAGE,
                 ExitCode.NONCONFORMING):
        if code in codes:
            return code
    return ExitCode.CONFORMS
