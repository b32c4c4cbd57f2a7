"""Failure case files: saved per failure, validated, loaded back, and replayed (fixed or not)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from eventproof.conformance._adapters import Ok
from eventproof.conformance._engine import (
    Counterexample,
    RuleResult,
    RunReport,
    check_implementation,
)
from eventproof.conformance._model import Capabilities
from eventproof.conformance._operations import RULES_BY_ID, operation
from eventproof.conformance._replay import (
    FORMAT_VERSION,
    ReplayCase,
    ReplayError,
    case_document,
    case_path,
    load_cases,
    replay,
    save_failures,
)
from eventproof.conformance._reports import SUITE_VERSION
from eventproof.conformance._schemas import schema_issues
from eventproof.conformance._verdict import judge
from eventproof.reference import Reference

IMPLEMENTATION = {"name": "rust port/β", "language": "rust", "version": "1.0.0"}


def message_event(seq: int, text: str) -> dict[str, Any]:
    return {"type": "assistant/message", "seq": seq, "time": "2025-01-01T00:00:00Z",
            "data": {"message": {"role": "assistant", "content": [{"type": "text", "text": text}]}}}


TWO_MESSAGES = {"events": [message_event(0, "first \ud800"), message_event(1, "last 😀")]}


class FirstMessageWins:
    """The reference, except that select answers the FIRST non-empty message (a planted bug)."""

    def __init__(self) -> None:
        self.reference = Reference()

    def start(self) -> dict[str, Any]:
        handshake = self.reference.start()
        handshake["implementation"] = dict(IMPLEMENTATION)
        return handshake

    def run(self, op: str, input: Any) -> Any:
        if op == "select":
            for event in input["events"]:
                if event.get("type") == "assistant/message":
                    content = event.get("data", {}).get("message", {}).get("content")
                    if isinstance(content, list) and content:
                        return content
        return self.reference.run(op, input)


class NeverSelects:
    """The reference, except that select always answers null (a bug any log with a message shows,
    so even the smallest example budget finds it)."""

    def start(self) -> dict[str, Any]:
        return Reference().start()

    def run(self, op: str, input: Any) -> Any:
        return None if op == "select" else Reference().run(op, input)


class SelectOnly:
    """The reference, declaring only the select operation."""

    def start(self) -> dict[str, Any]:
        handshake = Reference().start()
        handshake["capabilities"]["ops"] = ["select"]
        return handshake

    def run(self, op: str, input: Any) -> Any:
        return Reference().run(op, input)


def planted_case() -> ReplayCase:
    """The case the planted bug produces on TWO_MESSAGES, judged by the real checks."""
    wrong = FirstMessageWins().run("select", TWO_MESSAGES)
    verdict = judge(operation("select"), TWO_MESSAGES, Ok(wrong), Capabilities())
    expected, violations = verdict.expected, verdict.violations
    assert violations, "the planted bug must break a rule on this input"
    rule = RULES_BY_ID[violations[0].rule]
    return ReplayCase(rule=rule.id, level=rule.level, section=rule.section, op="select",
                      input=TWO_MESSAGES, expected=expected, actual=wrong,
                      message=violations[0].message, seed=None,
                      implementation=dict(IMPLEMENTATION), suite_version=SUITE_VERSION)


def report_with(results: list[RuleResult]) -> RunReport:
    return RunReport(implementation=dict(IMPLEMENTATION), capabilities=Capabilities(),
                     results=results, budget="quick", seed=7, deterministic=False)


def failure(rule_id: str, **overrides: Any) -> RuleResult:
    values: dict[str, Any] = {
        "op": RULES_BY_ID[rule_id].op, "input": TWO_MESSAGES,
        "expected": [{"type": "text", "text": "last 😀"}],
        "actual": [{"type": "text", "text": "first \ud800"}],
        "message": "the output is the first message", "seed": 7, "stderr": "",
    }
    values.update(overrides)
    return RuleResult(RULES_BY_ID[rule_id], "fail", Counterexample(**values))


# -- saving and loading ------------------------------------------------------------------------

def test_one_valid_file_per_failure(tmp_path: Path) -> None:
    """save_failures writes <dir>/<implementation>/<rule>.json for each counterexample (xfail
    included, passes not), each valid against schemas/replay-case.json."""
    report = report_with([
        failure("select.last-message"),
        RuleResult(RULES_BY_ID["select.agrees"], "pass"),
        RuleResult(RULES_BY_ID["bound.converges"], "xfail", Counterexample(
            op="project", input={"event": {"type": "x"}, "includeLiveEvents": True,
                                 "maxBytes": 4096},
            expected={"line": '{"type":"x"}'}, actual={"timeout": 10.0},
            message="no answer within 10 s", seed=7, stderr="looping\n"), note="expected: no"),
    ])
    written = save_failures(report, tmp_path)
    assert set(written) == {"select.last-message", "bound.converges"}
    for rule_id, path in written.items():
        assert path == tmp_path / "rust-port" / f"{rule_id}.json"
        assert path == case_path(tmp_path, IMPLEMENTATION["name"], rule_id)
        document = json.loads(path.read_text("utf-8"))
        assert schema_issues(document, "replay-case.json") == []
        assert document["formatVersion"] == FORMAT_VERSION
        assert document["implementation"] == IMPLEMENTATION
        assert document["rule"] == rule_id
    timeout = json.loads(written["bound.converges"].read_text("utf-8"))
    assert timeout["stderr"] == "looping\n"
    assert timeout["section"] == "wire.md#5.6"


def test_saved_cases_load_back_exactly(tmp_path: Path) -> None:
    """A saved case reads back with the same input, answers and message, lone surrogates and
    astral characters included."""
    written = save_failures(report_with([failure("select.last-message")]), tmp_path)
    [case] = load_cases([written["select.last-message"]])
    assert case.input == TWO_MESSAGES
    assert case.actual == [{"type": "text", "text": "first \ud800"}]
    assert case.rule == "select.last-message"
    assert case.level == "MUST"
    assert case.seed == 7
    assert case.path == written["select.last-message"]
    assert case_document(case)["input"] == TWO_MESSAGES


def test_the_directory_heals(tmp_path: Path) -> None:
    """When a rule passes in a later run, its stale case file is removed; others stay."""
    save_failures(report_with([failure("select.last-message"), failure("select.agrees")]),
                  tmp_path)
    save_failures(report_with([RuleResult(RULES_BY_ID["select.last-message"], "pass"),
                               failure("select.agrees")]), tmp_path)
    assert not case_path(tmp_path, IMPLEMENTATION["name"], "select.last-message").exists()
    assert case_path(tmp_path, IMPLEMENTATION["name"], "select.agrees").exists()


def write_case(tmp_path: Path, document: Any, name: str = "case.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def saved_document() -> dict[str, Any]:
    case = ReplayCase(rule="select.agrees", level="MUST", section="selection.md#3", op="select",
                      input={"events": []}, expected=None, actual=[], message="differs",
                      seed=None, implementation=dict(IMPLEMENTATION), suite_version="0.1.0")
    return case_document(case)


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    """A missing case file is refused naming the file and where case files live."""
    with pytest.raises(ReplayError, match="no such file") as caught:
        load_cases([tmp_path / "gone.json"])
    assert ".eventproof/failures" in str(caught.value)


def test_not_json_is_a_clear_error(tmp_path: Path) -> None:
    """A file that is not JSON is refused with the line and column of the problem."""
    path = tmp_path / "broken.json"
    path.write_text('{"formatVersion": 1,\n  "rule": }', encoding="utf-8")
    with pytest.raises(ReplayError, match=r"is not JSON: .* line 2, column 11"):
        load_cases([path])


def test_schema_violation_names_the_json_path(tmp_path: Path) -> None:
    """A case breaking the schema is refused with the JSONPath of the bad member."""
    document = saved_document()
    document["op"] = "summarize"
    with pytest.raises(ReplayError) as caught:
        load_cases([write_case(tmp_path, document)])
    assert caught.value.where == "$.op"
    assert "breaks schemas/replay-case.json" in str(caught.value)


def test_wrong_version_is_refused(tmp_path: Path) -> None:
    """A case file of another format version is refused, saying which version reads it."""
    document = dict(saved_document(), formatVersion=3)
    with pytest.raises(ReplayError, match="format version 3 is not a version") as caught:
        load_cases([write_case(tmp_path, document)])
    assert caught.value.where == "$.formatVersion"


def test_unknown_rule_suggests_the_closest(tmp_path: Path) -> None:
    """A case naming a rule this suite does not have is refused with the closest ids."""
    document = dict(saved_document(), rule="select.agree")
    with pytest.raises(ReplayError, match=r"did you mean select\.agrees"):
        load_cases([write_case(tmp_path, document)])


def test_cases_load_in_the_order_given(tmp_path: Path) -> None:
    """load_cases answers one case per path, in the order of the paths."""
    first = write_case(tmp_path, dict(saved_document(), rule="select.agrees"), "a.json")
    second = write_case(tmp_path, dict(saved_document(), rule="select.never-empty",
                                       section="selection.md#3.2"), "b.json")
    assert [case.rule for case in load_cases([second, first])] == ["select.never-empty",
                                                                    "select.agrees"]


# -- replaying ---------------------------------------------------------------------------------

def test_planted_bug_is_still_failing_and_the_reference_fixes_it(tmp_path: Path) -> None:
    """Replaying a saved case against the wrong implementation reports 'still failing' with the
    rule's message; against the reference, 'fixed'."""
    case = planted_case()
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case_document(case)), encoding="utf-8")
    [loaded] = load_cases([path])
    [still] = replay([loaded], FirstMessageWins, timeout=5.0)
    assert still.status == "still failing"
    assert still.message == case.message
    assert still.actual == [{"type": "text", "text": "first \ud800"}]
    [fixed] = replay([loaded], Reference, timeout=5.0)
    assert fixed.status == "fixed"
    assert fixed.case is loaded


def test_undeclared_operation_is_skipped() -> None:
    """A case whose operation the implementation does not declare is reported as skipped."""
    case = ReplayCase(rule="fold.prefix", level="MUST", section="selection.md#4.2", op="fold",
                      input={"pushes": []}, expected=[None], actual=[], message="m", seed=None,
                      implementation=dict(IMPLEMENTATION), suite_version=SUITE_VERSION)
    [result] = replay([case], SelectOnly, timeout=5.0)
    assert result.status == "skipped"
    assert "'fold'" in result.message


def test_engine_failure_round_trips_through_files(tmp_path: Path) -> None:
    """A failure the engine finds is saved, loaded and replayed as still failing; the reference
    replays the same file as fixed."""
    report = check_implementation(NeverSelects, ops=["select"], budget="quick", timeout=5.0)
    assert not report.conforms
    written = save_failures(report, tmp_path)
    assert written
    cases = load_cases(sorted(written.values()))
    assert {result.status for result in replay(cases, NeverSelects, timeout=5.0)} == {
        "still failing"}
    assert {result.status for result in replay(cases, Reference, timeout=5.0)} == {"fixed"}
