"""Budget records are judged where and as real harnesses write them (spec/budget.md §3, §6): the
reference's final details in a tool result and in the tool result message that echoes it, and
its live rosters in tool updates, break no rule; a defect in the echo is found; the records of a
tool that runs no batch of delegated tasks are not judged."""

from __future__ import annotations

from typing import Any

from audit_logs import START, audit_bytes, counts, line
from eventproof.conformance.budget.strategies.values import task_records
from eventproof.reference import final_details, live_roster
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))
BUDGET = ("details.", "roster.")


def _lines(records: list[dict[str, Any]], details: dict[str, Any]) -> list[bytes]:
    live = live_roster(records)
    result = {"content": [{"type": "text", "text": "3 tasks done"}], "details": details}
    return [
        line(START),
        line({"type": "tool_execution_start", "toolCallId": "c1", "toolName": "subagent",
              "args": {}}),
        line({"type": "tool_execution_update", "toolCallId": "c1", "toolName": "subagent",
              "args": {}, "partialResult": {"content": [], "details": live}}),
        line({"type": "tool_execution_end", "toolCallId": "c1", "toolName": "subagent",
              "result": result, "isError": False}),
        line({"type": "message_start", "message": {"role": "toolResult", "toolCallId": "c1",
                                                   "toolName": "subagent", **result,
                                                   "isError": False, "timestamp": 1}}),
        line({"type": "message_end", "message": {"role": "toolResult", "toolCallId": "c1",
                                                 "toolName": "subagent", **result,
                                                 "isError": False, "timestamp": 1}}),
    ]


@SETTINGS
@given(st.lists(task_records(max_bytes=3000), min_size=1, max_size=6))
def test_the_references_records_break_no_rule_where_harnesses_write_them(
        records: list[dict[str, Any]]) -> None:
    report = audit_bytes(b"".join(_lines(records, final_details(records))), live_events=True)
    assert {rule: n for rule, n in counts(report).items() if rule.startswith(BUDGET)} == {}
    judged = report.tallies.by_rule
    assert judged["details.allowlist"].judged == 3  # the result and its two echoes
    assert judged["roster.allowlist"].judged == 1


def test_a_defect_in_the_echoed_details_is_found() -> None:
    records = [{"id": "t1", "agent": "worker", "status": "completed", "task": "Read it.",
                "output": "ok", "messages": ["the whole transcript"]}]
    details = final_details(records)
    leaked = {"results": [{**details["results"][0], "messages": ["the whole transcript"]}]}
    lines = _lines(records, details)
    lines[5] = line({"type": "message_end", "message": {
        "role": "toolResult", "toolCallId": "c1", "toolName": "subagent",
        "content": [], "details": leaked, "isError": False, "timestamp": 1}})
    report = audit_bytes(b"".join(lines), live_events=True)
    assert counts(report) == {"details.allowlist": 1}
    assert report.tallies.by_rule["details.allowlist"].examples[0].line == 6


def test_a_to_do_tools_items_are_not_budget_records() -> None:
    """Items with an id, a status and a task but no agent are not a batch of delegated
    tasks: the budget rules do not judge them."""
    todo = {"type": "tool_execution_end", "toolCallId": "c2", "toolName": "todo",
            "result": {"content": [], "details": {"results": [
                {"id": "1", "status": "in_progress", "task": "Write the parser",
                 "priority": "high"}]}}, "isError": False}
    report = audit_bytes(line(START) + line(todo))
    assert counts(report) == {}
    assert "details.allowlist" not in report.tallies.by_rule
