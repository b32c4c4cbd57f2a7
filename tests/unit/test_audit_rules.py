"""Every rule a written log can show has a hand-written log that breaks it, which the audit
catches at the right line, while the same log without that line conforms; and what the
reference writes always audits clean."""

from __future__ import annotations

from typing import Any

import pytest
from audit_logs import (
    SESSION_CASES,
    WIRE_CASES,
    audit_bytes,
    child_run,
    counts,
    end_record,
    lines,
    session_directory,
)
from eventproof.conformance._model import Capabilities
from eventproof.conformance.audit._rules import AUDIT_RULES
from eventproof.conformance.wire.strategies import project_inputs
from eventproof.reference import InvalidInput, project_event
from hypothesis import HealthCheck, given, settings


def test_every_auditable_rule_has_a_broken_log() -> None:
    """A rule added to the audit without a log that breaks it fails here."""
    assert {rule.id for rule in AUDIT_RULES} == set(WIRE_CASES) | set(SESSION_CASES)


@pytest.mark.parametrize("rule_id", sorted(WIRE_CASES))
def test_the_broken_line_is_found(rule_id: str) -> None:
    options, log, broken = WIRE_CASES[rule_id]
    report = audit_bytes(b"".join(log), **options)
    found = counts(report)
    assert found.get(rule_id) == 1, found
    finding = report.tallies.by_rule[rule_id].examples[0]
    assert finding.line == broken
    assert finding.offset >= sum(len(item) for item in log[:broken - 1])
    assert finding.excerpt
    assert finding.message
    level = {rule.id: rule.level for rule in AUDIT_RULES}[rule_id]
    assert report.exit_code == (1 if level == "MUST" else 0)
    # The log without the broken line conforms and judged the rule's neighbours.
    rest = b"".join(item for index, item in enumerate(log, start=1) if index != broken)
    clean = audit_bytes(rest, **options)
    assert counts(clean) == {}, counts(clean)
    assert clean.exit_code == 0


@pytest.mark.parametrize("rule_id", sorted(SESSION_CASES))
def test_the_broken_record_is_found(rule_id: str) -> None:
    report = audit_bytes(SESSION_CASES[rule_id]())
    found = counts(report)
    assert found.get(rule_id) == 1, found
    assert report.exit_code == 1
    assert {entry["kind"] for entry in report.files} == {"session"}


def test_a_right_record_conforms_and_was_judged() -> None:
    report = audit_bytes(lines(*child_run(), end_record(child_run())))
    assert counts(report) == {}
    assert report.records == 1
    assert report.tallies.by_rule["settle.last-assistant"].judged == 1
    assert report.exit_code == 0


def test_a_right_tool_result_in_a_session_directory_conforms() -> None:
    report = audit_bytes(session_directory())
    assert counts(report) == {}
    assert report.tallies.by_rule["settle.tool-result"].judged == 1


def test_a_log_without_a_record_judges_no_selection_rule() -> None:
    """A verdict is earned: no record, no settle rule passes."""
    report = audit_bytes(lines(*child_run()))
    outcomes = {rule.id: report.outcome(rule) for rule in report.rules()}
    assert {outcomes[rule_id] for rule_id in outcomes if rule_id.startswith("settle.")} == {
        "untested"}


@settings(max_examples=100, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(project_inputs(Capabilities()))
def test_what_the_reference_writes_audits_clean(op_input: dict[str, Any]) -> None:
    """Any line the reference projects, written as a log opted in (or not) as it was, breaks
    no rule: the audit judges lines against the reference, never against a guess."""
    try:
        written = project_event(op_input["event"],
                                include_live_events=op_input["includeLiveEvents"],
                                max_bytes=op_input["maxBytes"])
    except (InvalidInput, RecursionError):
        return
    if written is None:
        return
    report = audit_bytes(written + b"\n", live_events=op_input["includeLiveEvents"],
                         max_bytes=op_input["maxBytes"])
    assert counts(report) == {}, (counts(report), report.findings()[:1])
