"""The wire profile's deliberately wrong implementations are each caught by the rule they break.

Every miniature of ``miniatures.wire`` goes through the engine users run (``check_implementation``
with the default profile, deterministic), so these tests hold the whole suite, strategies and
checks together, to catching each historical bug of the seed within the default example budget.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest
from eventproof.conformance import RunReport, check_implementation
from eventproof.conformance._clip import clip_value
from eventproof.conformance._model import Capabilities, Case, Errored, ImplErrored, rules_of
from eventproof.conformance._operations import RULES
from eventproof.conformance._protocol import dumps_literal
from eventproof.conformance.wire import OPERATIONS as WIRE_OPERATIONS
from eventproof.reference import MIN_MAX_BYTES, InvalidInput, Reference, canonical_bytes

from miniatures import REQUEST_TIMEOUT, timeout_for
from miniatures.wire import MINIATURES, MaximalPipeline, Pipeline

#: Seconds one request may take before the harness calls it hung.
TIMEOUT = REQUEST_TIMEOUT
#: Rules whose counterexample needs a line over maxBytes; the smallest is about 4 KiB.
CHECKS = {op.name: list(op.checks) for op in WIRE_OPERATIONS}
CHECK_BY_RULE = {rule: check for checks in CHECKS.values() for check in checks
                 for rule in rules_of(check)}
NEEDS_A_BIG_LINE = {"bound.converges", "bound.fits", "bound.ids", "bound.only-updates",
                    "bound.only-when-over", "bound.shape", "bound.text", "bound.tail",
                    "canon.utf8"}
#: A phrase each explanation must contain, so that a port's author can act on it.
EXPLAINED = {
    "counts-characters": "bytes, over maxBytes",
    "measures-before-escaping": "after JSON escaping",
    "never-clips-ids": "keeps all",
    "marker-after-tail": "marker is after the tail",
    "clips-ids-from-end": "last 256 code points",
    "clips-ids-in-utf16-units": "UTF-16 units",
    "bounds-at-exactly-max-bytes": "exactly maxBytes",
    "halving-splits-pairs": "split a surrogate pair",
    "tail-in-utf16-units": "count code points, not UTF-16 units",
    "halving-declared-maximal": "that is what halving picks",
    "maximal-rejects-exact-fit": "compare with <=, not <",
    "maximal-forgets-marker": "with the marker in place",
    "maximal-slice-minus-zero": "text.slice(-0) is the whole text",
    "maximal-counts-characters": "count the UTF-8 bytes",
    "keeps-partial": "still carries partial",
    "usage-null-when-absent": "has no usage",
    "turn-end-whole": "still carries message",
    "agent-end-whole": "still carries messages",
    "will-retry-omitted": "no willRetry",
    "non-assistant-projected": "not \"assistant\"",
    "unknown-type-is-frame": "unknown ones included",
    "python-numbers": "ECMAScript Number::toString writes",
    "python-key-order": "member order",
    "escapes-line-separators": "U+2028",
    "html-safe-escapes": "\\u003",
    "uppercase-hex-escapes": "lowercase",
    "escapes-lone-surrogates": "U+FFFD",
}


def _ops(rule: str) -> tuple[str, ...]:
    return ("classify", "project") if rule.startswith("classify") else ("project",)


@functools.cache
def run(name: str) -> RunReport:
    """The engine's verdict on one miniature (once per test process). The run stops once the
    miniature's rule is broken: the rounds until then, and so the verdict on that rule, are those
    of a whole run."""
    cls, rule = MINIATURES[name]
    return check_implementation(cls, ops=_ops(rule), stop_after=[rule],
                                timeout=timeout_for(rule))


def case_for(impl: Any, op: str, op_input: Any) -> Case:
    """The case the checks judge: the reference's answer and ``impl``'s, for ``op_input``."""
    declared = impl.start()["capabilities"]
    capabilities = Capabilities(ops=frozenset(declared["ops"]),
                                fit_strategy=declared["fitStrategy"],
                                variable_max_bytes=declared["variableMaxBytes"])
    try:
        expected: Any = Reference(capabilities.fit_strategy).run(op, op_input)
    except InvalidInput as error:
        expected = Errored(str(error))
    try:
        actual: Any = impl.run(op, op_input)
    except Exception as error:  # in process, any exception is the answer "errored"
        actual = ImplErrored(str(error))
    return Case(op, op_input, expected, actual, capabilities)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", sorted(MINIATURES))
def test_miniature_is_caught(name: str) -> None:
    """The run rejects the miniature by the rule its bug breaks, with a small counterexample."""
    cls, rule = MINIATURES[name]
    result = run(name).result_for(rule)
    expected_outcome = {"timeout"} if rule == "bound.converges" else {"fail", "error"}
    assert result.outcome in expected_outcome, (name, result.outcome, result.note)
    counterexample = result.counterexample
    assert counterexample is not None
    try:
        size = len(canonical_bytes(counterexample.input))
    except InvalidInput:  # a number a line cannot carry (wire.md §7): no canonical line
        size = len(dumps_literal(counterexample.input))
    limit = 4 * MIN_MAX_BYTES if rule in NEEDS_A_BIG_LINE else 1024
    assert size <= limit, (name, size, counterexample.input)
    if name in EXPLAINED:
        assert EXPLAINED[name] in counterexample.message, counterexample.message
    if rule != "bound.converges":  # replaying a hang would only hang again
        # The rule's own check, on its own, bites on the counterexample.
        case = case_for(cls(), counterexample.op, counterexample.input)
        # The report shows the answer to this very input (not to one the shrinker left behind).
        if isinstance(case.actual, ImplErrored):  # in process, the message names the exception
            assert counterexample.actual["errored"].endswith(case.actual.message), name
        else:
            # As reports show it: clipped where it entered the results (_clip).
            assert clip_value(case.actual) == counterexample.actual, (name, counterexample.input)
        violations = list(CHECK_BY_RULE[rule](case))
        assert violations, (name, counterexample.input)
        assert {violation.rule for violation in violations} == {rule}


@pytest.mark.parametrize("strategy", ["halving", "maximal"])
def test_reference_passes_every_wire_check(strategy: str) -> None:
    """The reference, under either fit strategy, breaks no wire rule on generated inputs."""
    report = check_implementation(lambda: Reference(strategy), ops=("classify", "project"),
                                  timeout=TIMEOUT)
    assert report.failed_rule_ids == set(), [
        (r.rule.id, r.counterexample.message if r.counterexample else r.note)
        for r in report.results if r.outcome != "pass"]


@pytest.mark.parametrize("pipeline", [Pipeline, MaximalPipeline])
def test_unplanted_pipeline_agrees_with_reference(pipeline: type[Pipeline]) -> None:
    """Without a planted bug, the miniatures' pipeline writes the reference's bytes exactly (with
    either fit), so each miniature differs from the reference only by its bug."""
    report = check_implementation(pipeline, ops=("project",), timeout=TIMEOUT)
    assert report.failed_rule_ids == set()


def test_every_wire_rule_has_a_check_and_a_miniature() -> None:
    """Each wire rule has exactly one check (but bound.converges, which the engine's timeout
    enforces) and at least one miniature that must be caught by it, so no check is vacuous."""
    wire_rules = {rule.id for rule in RULES if rule.profile == "wire"}
    assert set(CHECK_BY_RULE) == wire_rules - {"bound.converges"}
    assert {rule for _, rule in MINIATURES.values()} == wire_rules
    listed = [check for checks in CHECKS.values() for check in checks]
    assert sorted(map(id, listed)) == sorted(map(id, CHECK_BY_RULE.values()))
