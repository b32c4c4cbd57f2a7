"""The one verdict path: from an implementation's answer to one input, to an outcome and the
rules it broke.

Every face of the harness judges through :func:`judge` — the property run, replay, the vectors,
the pytest plugin and the vacuity probes — so an answer is judged the same way, with the same
explanation, wherever it was given.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal

from eventproof.reference import InvalidInput

from . import _adapters
from ._json import as_read, pairs_joined, same_json
from ._model import Capabilities, Case, Check, Errored, ImplErrored, Operation, Violation

#: What happened to one request: answered and judged, or not answered.
Answered = Literal["pass", "fail", "error", "crash", "timeout", "skip"]
#: Stands for "ask the reference" when no expected answer is given.
_ASK_REFERENCE: Any = object()


@dataclass(frozen=True)
class Verdict:
    """How one answer was judged."""

    #: ``pass`` (no rule broken), ``fail`` (an output broke a rule), ``error`` (an ``errored``
    #: answer or a broken protocol message broke one), ``crash``, ``timeout``, or ``skip`` (the
    #: implementation answered ``skipped``: nothing was judged).
    outcome: Answered
    #: Every rule broken, in check order, the rules already found left out.
    violations: tuple[Violation, ...]
    #: The answer as reports show it (``{"errored": …}``, ``{"timeout": seconds}`` …).
    actual: Any
    #: The reference's answer as reports show it (``{"errored": …}`` for an erroneous input).
    expected: Any
    #: The tail of the implementation's stderr, for crashes and hangs.
    stderr: str = ""
    #: Why the implementation skipped the request.
    skip_reason: str = ""
    #: True when the answer was an output or ``errored`` and the checks ran on it.
    judged: bool = False
    #: Catch-all rules the answer broke that an excluded (already found) rule explains, each
    #: with that rule: ``(catch-all, explained by)``. The answer did differ from the reference's.
    explained: tuple[tuple[str, str], ...] = ()

    @property
    def first(self) -> Violation | None:
        """The violation a report leads with (the most specific rule broken)."""
        return self.violations[0] if self.violations else None


def expected_answer(operation: Operation, op_input: Any, capabilities: Capabilities) -> Any:
    """The reference's answer, or :class:`Errored` when the spec calls the input erroneous."""
    try:
        return operation.reference(op_input, capabilities)
    except InvalidInput as error:
        return Errored(str(error))


def shown(value: Any) -> Any:
    """An answer as reports show it: ``errored`` answers as ``{"errored": message}``."""
    if isinstance(value, Errored | ImplErrored):
        return {"errored": value.message}
    return value


def is_catch_all(rule_id: str) -> bool:
    """Agreement rules (``*.agrees``) catch what no specific rule explains."""
    return rule_id.endswith(".agrees")


def evaluate(case: Case, checks: Iterable[Check], excluded: frozenset[str]) -> list[Violation]:
    """Every violation of a rule not in ``excluded``, in check order (see :func:`explain`)."""
    return explain(case, checks, excluded)[0]


def explain(case: Case, checks: Iterable[Check], excluded: frozenset[str]
            ) -> tuple[list[Violation], list[tuple[str, str]]]:
    """Every violation of a rule not in ``excluded``, in check order, and the catch-all rules
    an excluded rule explains.

    An input that breaks an excluded (already found) rule is that known bug again: a catch-all
    agreement rule does not report it a second time, so one bug gives one failure; the
    catch-all is returned as explained by that rule instead, never silently passed.
    """
    found = [violation for check in checks for violation in check(case)]
    known = next((violation.rule for violation in found if violation.rule in excluded), None)
    kept = [violation for violation in found
            if violation.rule not in excluded
            and not (known is not None and is_catch_all(violation.rule))]
    explained = [(violation.rule, known) for violation in found
                 if known is not None and is_catch_all(violation.rule)
                 and violation.rule not in excluded]
    return kept, explained


def judge(
    operation: Operation,
    op_input: Any,
    response: _adapters.Response,
    capabilities: Capabilities,
    *,
    expected: Any = _ASK_REFERENCE,
    excluded: frozenset[str] = frozenset(),
) -> Verdict:
    """Judge ``response`` to ``op_input``: the outcome and every rule it broke.

    ``expected`` is the answer the spec demands (a vector's); by default the reference is asked.
    A hang is reported under the operation's hang rule and a crash or a broken message under its
    agreement rule, unless that rule is in ``excluded`` (then the verdict has no violation).
    """
    if isinstance(response, _adapters.Skipped):
        return Verdict("skip", (), None, None, skip_reason=response.reason)
    if isinstance(response, _adapters.TimedOut):
        violations = () if operation.hang_rule in excluded else (Violation(
            operation.hang_rule, f"{response.describe()}; the implementation "
            "was stopped and restarted", kind="no answer in time"),)
        return Verdict("timeout", violations, {"timeout": response.seconds}, None,
                       stderr=response.stderr)
    if isinstance(response, _adapters.Crashed):
        violations = () if operation.agreement_rule in excluded else (Violation(
            operation.agreement_rule, f"the implementation crashed: {response.message}",
            kind="crashed"),)
        return Verdict("crash", violations, {"crashed": response.message}, None,
                       stderr=response.stderr)
    if isinstance(response, _adapters.Broken):
        violations = () if operation.agreement_rule in excluded else (Violation(
            operation.agreement_rule, f"the answer broke the protocol: {response.error}",
            kind="broke the protocol"),)
        return Verdict("error", violations, {"protocolError": str(response.error)}, None,
                       stderr=response.stderr)
    # An answer is judged as the value it is, written one way: surrogate pairs held as two code
    # points joined (the same string, §1.1), and a double reader's numbers the doubles its
    # literals read as (§4.2). Every check's comparisons and measures then see the value.
    actual: Any = (response if isinstance(response, ImplErrored)
                   else pairs_joined(as_read(response.output, numbers=capabilities.numbers)))
    asked_reference = expected is _ASK_REFERENCE
    if asked_reference:
        expected = expected_answer(operation, op_input, capabilities)
    case = Case(op=operation.name, input=op_input, expected=expected, actual=actual,
                capabilities=capabilities)
    kept, explained = explain(case, operation.checks, excluded)
    if kept and asked_reference and capabilities.numbers == "exact" and _right_as_a_double_reader(
            operation, op_input, response, capabilities, excluded):
        kept[0] = replace(kept[0], message=f"{kept[0].message}. {DOUBLE_READER_HINT}")
    if not kept:
        outcome: Answered = "pass"
    else:
        outcome = "error" if isinstance(actual, ImplErrored) else "fail"
    return Verdict(outcome, tuple(kept), shown(actual), shown(expected), judged=True,
                   explained=tuple(explained))


#: Said of a failure whose answer is right for the input as a double reader reads it.
DOUBLE_READER_HINT = (
    "Your answer is right for the input as a reader of doubles holds it (JSON.parse reads "
    "every number as a double, so an integer beyond 2^53 - 1 is rounded): if your program reads "
    'numbers that way, declare "numbers": "double" in its handshake\'s capabilities '
    "(spec/protocol.md §4.2), and it is sent and judged as it reads")


def _right_as_a_double_reader(operation: Operation, op_input: Any, response: Any,
                              capabilities: Capabilities, excluded: frozenset[str]) -> bool:
    """Whether ``response`` breaks no rule once the input and the answer are read as doubles:
    the diagnosis of a program that reads numbers as doubles without declaring it."""
    doubled = as_read(op_input, numbers="double")
    if doubled is op_input:
        return False
    again = judge(operation, doubled, response, replace(capabilities, numbers="double"),
                  excluded=excluded)
    return again.outcome == "pass"


#: How many more times the minimal input of a failure is asked before the failure is reported
#: (spec/protocol.md §5.6): an answer that changes is reported ``unstable``, not ``fail``.
STABILITY_ASKS = 2


def answers_agree(first: Verdict, second: Verdict) -> bool:
    """Whether two answers to one input are the same answer, judged the same way: the same
    outcome and broken rules and, when both were judged, the same answer. Two hangs, crashes or
    broken messages agree whatever their wording (a restart's message may differ)."""
    if first.outcome != second.outcome:
        return False
    if [v.rule for v in first.violations] != [v.rule for v in second.violations]:
        return False
    if first.judged and second.judged:
        return same_json(first.actual, second.actual)
    return first.judged == second.judged


def _clipped_json(value: Any, limit: int = 300) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def unstable_message(first: Verdict, second: Verdict, asks: int,
                     of: int = STABILITY_ASKS + 1) -> str:
    """What a report says of an input answered differently when asked again."""
    def told(verdict: Verdict) -> str:
        judged = (f"{verdict.first.rule}: {verdict.first.message}" if verdict.first is not None
                  else "no rule broken")
        return f"{_clipped_json(verdict.actual)} ({verdict.outcome}; {judged})"

    return (f"the answer changed when the same input was asked again (ask {asks} of "
            f"{of}): first {told(first)}, then {told(second)}. An implementation "
            "must answer one input the same way every time")
