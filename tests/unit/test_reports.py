"""Reports: the JSON document, JUnit XML, the Markdown summary and the console view."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from eventproof.conformance._engine import Counterexample, Coverage, RuleResult, RunReport
from eventproof.conformance._model import Capabilities
from eventproof.conformance._operations import OPS, RULES, RULES_BY_ID
from eventproof.conformance._reports import (
    OUTCOMES,
    REPORT_VERSION,
    SUITE_VERSION,
    answer_diff,
    dumps_json,
    failure_text,
    junit_tree,
    markdown_summary,
    readable_json,
    render_console,
    report_document,
    same_cause_line,
    section_url,
    write_json,
    write_junit,
    write_markdown,
)
from eventproof.conformance._schemas import schema_issues
from eventproof.reference import SPEC_VERSION
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

IMPLEMENTATION = {"name": "ts-port", "language": "typescript", "version": "2.3.1",
                  "homepage": "https://example.org/ts-port",
                  "issues": "https://example.org/ts-port/issues"}
TWO_MESSAGES = {"events": [
    {"type": "assistant/message", "seq": 0, "time": "t",
     "data": {"message": {"role": "assistant", "content": [{"type": "text", "text": "first"}]}}},
    {"type": "assistant/message", "seq": 1, "time": "t",
     "data": {"message": {"role": "assistant", "content": [{"type": "text", "text": "last"}]}}},
]}


def example(op: str, input: Any, expected: Any, actual: Any, message: str, *,
            seed: int | None = 4242, stderr: str = "") -> Counterexample:
    return Counterexample(op=op, input=input, expected=expected, actual=actual, message=message,
                          seed=seed, stderr=stderr)


def make_report(results: list[RuleResult], *, seed: int | None = None) -> RunReport:
    return RunReport(implementation=dict(IMPLEMENTATION), capabilities=Capabilities(),
                     results=results, effort="quick", seed=seed, deterministic=seed is None,
                     duration=1.25, calls=321)


def every_outcome() -> RunReport:
    """A report with each of the ten outcomes, unicode and a lone surrogate in the values."""
    rule = RULES_BY_ID
    return make_report([
        RuleResult(rule["select.never-empty"], "pass"),
        RuleResult(rule["select.last-message"], "fail", example(
            "select", TWO_MESSAGES, [{"type": "text", "text": "last"}],
            [{"type": "text", "text": "first"}],
            "the output is the content of events[0], but the last non-empty message is "
            "events[1]")),
        RuleResult(rule["settle.agrees"], "error", example(
            "settle", {"events": [], "cancelled": False}, {"errored": "x"},
            {"errored": "boom \ud800 — naïve 😀"}, "the implementation answered errored: boom")),
        RuleResult(rule["fold.prefix"], "crash", example(
            "fold", {"pushes": [{"text": "é\x00"}]}, [None, [{"type": "text", "text": "é\x00"}]],
            {"crashed": "exit code 3"}, "the implementation crashed: exit code 3",
            stderr="Traceback: \x1b[31mred\x1b[0m\nValueError: ✗ \udfff")),
        RuleResult(rule["bound.converges"], "timeout", example(
            "project", {"event": {"type": "tool_execution_update"}, "includeLiveEvents": True,
                        "maxBytes": 4096},
            {"line": "{}"}, {"timeout": 10}, "no answer within 10 s")),
        RuleResult(rule["classify.kind"], "skip", note="the implementation does not declare "
                   "'classify'"),
        RuleResult(rule["fold.shape"], "untested", note="every request of 'fold' this rule would "
                   "judge was answered skipped: 60 request(s) were answered skipped (not yet)",
                   coverage=Coverage(judged=0, skipped=60, stopped="the last search round judged "
                                     "under half of its budget")),
        RuleResult(rule["canon.bytes"], "xfail", example(
            "project", {"event": {"type": "agent_start", "x": "\u2028"},
                        "includeLiveEvents": False, "maxBytes": 262144},
            {"line": '{"type":"agent_start","x":"\u2028"}'},
            {"line": '{"type":"agent_start","x":"\\u2028"}'},
            "the line escapes U+2028"), note="expected: the line escapes"),
        RuleResult(rule["select.agrees"], "unstable", example(
            "select", TWO_MESSAGES, [{"type": "text", "text": "last"}], None,
            "the answer changed when the same input was asked again (ask 2 of 3): first null "
            "(fail; select.agrees: differs), then [] (fail; select.agrees: differs)")),
        RuleResult(rule["settle.output"], "xpass", note="listed as an expected failure but it "
                   "passes now: remove it from the expectations file"),
    ], seed=4242)


def test_document_validates_against_the_report_schema() -> None:
    """The JSON document of a report with every outcome is valid against schemas/report.json."""
    document = report_document(every_outcome(), replay_files={
        "select.last-message": Path(".eventproof/failures/ts-port/select.last-message.json")})
    assert schema_issues(document, "report.json") == []


def test_document_states_versions_identity_totals_and_verdict() -> None:
    """The document carries the versions, the identity as given, a total per outcome, the
    verdict and one entry per rule in order, with the replay file of a failure when known."""
    report = every_outcome()
    document = report_document(report, replay_files={"select.last-message": "case.json"})
    assert document["reportVersion"] == REPORT_VERSION
    assert document["specVersion"] == SPEC_VERSION
    assert document["suiteVersion"] == SUITE_VERSION
    assert document["protocolVersion"] == 1
    assert document["implementation"] == IMPLEMENTATION
    assert document["capabilities"]["ops"] == list(OPS)
    assert document["seed"] == 4242
    assert document["deterministic"] is False
    assert document["totals"] == dict.fromkeys(OUTCOMES, 1)
    assert document["conforms"] is False
    assert [entry["id"] for entry in document["results"]] == [r.rule.id for r in report.results]
    failed = document["results"][1]
    assert failed["counterexample"]["replayFile"] == "case.json"
    assert failed["section"] == "selection.md#3.1"
    assert "replayFile" not in document["results"][2]["counterexample"]


def test_passing_report_validates_and_conforms() -> None:
    """A report where every rule passes validates and says it conforms."""
    report = make_report([RuleResult(rule, "pass") for rule in RULES_BY_ID.values()])
    document = report_document(report)
    assert schema_issues(document, "report.json") == []
    assert document["conforms"] is True
    assert document["totals"]["pass"] == len(RULES_BY_ID)


def test_json_file_round_trips_every_value(tmp_path: Path) -> None:
    """write_json writes UTF-8 JSON that reads back to the same document, lone surrogates
    included."""
    report = every_outcome()
    path = tmp_path / "out" / "report.json"
    write_json(report, path)
    text = path.read_bytes().decode("utf-8")  # strictly UTF-8
    assert json.loads(text) == report_document(report)
    assert "naïve 😀" in text  # non-ASCII stays readable


def test_junit_has_one_suite_per_operation_and_one_case_per_rule(tmp_path: Path) -> None:
    """The JUnit file parses; each operation is a testsuite and each rule a testcase named by
    its id, with the element its outcome calls for."""
    path = tmp_path / "junit.xml"
    write_junit(every_outcome(), path, impl_spec="node adapter.js")
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    assert root.get("tests") == "10"
    assert root.get("failures") == "3"  # fail, xpass and untested: a gate fails on each
    assert root.get("errors") == "4"  # error, crash, timeout and unstable
    assert root.get("skipped") == "2"
    suites = {suite.get("name"): suite for suite in root.findall("testsuite")}
    assert set(suites) == {"eventproof.select", "eventproof.fold", "eventproof.settle",
                           "eventproof.classify", "eventproof.project"}
    cases = {str(case.get("name")): case for case in root.iter("testcase")}
    assert len(cases) == 10
    untested = cases["fold.shape"].find("failure")
    assert untested is not None
    assert untested.get("type") == "untested"
    assert all(case.get("classname") == f"eventproof.{RULES_BY_ID[name].op}"
               for name, case in cases.items())
    failure = cases["select.last-message"].find("failure")
    assert failure is not None
    assert failure.get("type") == "select.last-message"
    assert "events[1]" in (failure.get("message") or "")
    assert '"text": "last"' in (failure.text or "")  # the full explanation, values included
    assert cases["select.never-empty"].find("*") is None
    assert cases["settle.agrees"].find("error").get("type") == "error"  # type: ignore[union-attr]
    assert cases["fold.prefix"].find("error").get("type") == "crash"  # type: ignore[union-attr]
    assert cases["bound.converges"].find("error").get("type") == "timeout"  # type: ignore[union-attr]
    assert cases["select.agrees"].find("error").get("type") == "unstable"  # type: ignore[union-attr]
    skipped = cases["classify.kind"].find("skipped")
    assert skipped is not None
    assert "classify" in (skipped.get("message") or "")
    xfail = cases["canon.bytes"].find("skipped")
    assert xfail is not None
    assert xfail.get("type") == "xfail"
    xpass = cases["settle.output"].find("failure")
    assert xpass is not None
    assert xpass.get("type") == "xpass"
    for suite in suites.values():
        tests = len(suite.findall("testcase"))
        assert suite.get("tests") == str(tests)
        properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
        assert properties["implementation.name"] == "ts-port"
        assert properties["implementation.language"] == "typescript"
        assert properties["seed"] == "4242"


def test_junit_carries_control_characters_and_surrogates_as_escapes(tmp_path: Path) -> None:
    """Characters XML 1.0 cannot hold (NUL, ESC, lone surrogates) appear as \\uXXXX escapes and
    the file still parses."""
    path = tmp_path / "junit.xml"
    write_junit(every_outcome(), path)
    root = ET.parse(path).getroot()
    crash = next(case for case in root.iter("testcase") if case.get("name") == "fold.prefix")
    stderr = crash.find("system-err")
    assert stderr is not None
    assert "\\u001b[31mred" in (stderr.text or "")
    assert "\\udfff" in (stderr.text or "")
    error = next(case for case in root.iter("testcase") if case.get("name") == "settle.agrees")
    assert "\\ud800" in (error.find("error").text or "")  # type: ignore[union-attr]


def test_markdown_has_table_sections_and_diff() -> None:
    """The Markdown summary has an outcome table, one section per failure with its section
    link, input, expected, actual and a unified diff, and the seed."""
    text = markdown_summary(every_outcome(), replay_files={
        "select.last-message": ".eventproof/failures/ts-port/select.last-message.json"},
        impl_spec="node adapter.js")
    assert "does not conform" in text.splitlines()[0]
    header = ("| operation | pass | fail | error | crash | timeout | unstable | untested | skip "
              "| xfail | xpass |")
    assert header in text
    assert "| select | 1 | 1 | 0 | 0 | 0 | 1 | 0 | 0 | 0 | 0 |" in text
    section = text.split("### fail: `select.last-message` (MUST)")[1].split("### ")[0]
    assert f"({section_url('selection.md#3.1')})" in section
    assert section_url("selection.md#3.1").endswith(
        "/spec/selection.md#31-the-last-non-empty-message")
    assert "spec/selection.md §3.1" in section
    assert "```diff\n--- expected\n+++ actual\n" in section
    assert '-    "text": "last"' in section
    assert '+    "text": "first"' in section
    assert "**Seed:** 4242" in section
    assert ("eventproof replay .eventproof/failures/ts-port/select.last-message.json "
            "--impl 'node adapter.js'") in section
    assert "### xpass: `settle.output`" in text
    assert "## Expected failures" in text
    assert "`canon.bytes`" in text


def test_markdown_diffs_parsed_lines_and_shows_both_lines() -> None:
    """For project, the diff is over the parsed lines (member by member) and both lines are shown
    as written."""
    expected = {"line": '{"type":"turn_end","messageRole":"assistant","toolResultCount":2}'}
    actual = {"line": '{"type":"turn_end","messageRole":"assistant","toolResultCount":3}'}
    report = make_report([RuleResult(RULES_BY_ID["project.turn-end"], "fail", example(
        "project", {"event": {"type": "turn_end"}, "includeLiveEvents": False,
                    "maxBytes": 262144}, expected, actual, "toolResultCount is 3, not 2"))])
    text = markdown_summary(report)
    assert '-  "toolResultCount": 2' in text
    assert '+  "toolResultCount": 3' in text
    assert expected["line"] in text
    assert actual["line"] in text


def test_diff_of_lines_equal_as_json_names_the_first_different_character() -> None:
    """When two project lines parse to the same value, the diff says where the bytes differ."""
    diff = answer_diff("project", {"line": '{"a":"\u2028"}'}, {"line": '{"a":"\\u2028"}'})
    assert "parse to equal JSON values" in diff
    assert "character 6" in diff


def test_markdown_cuts_huge_values_with_a_note(tmp_path: Path) -> None:
    """A megabyte input is cut in the Markdown, with its full size and where the whole value is."""
    huge = {"events": [{"type": "x", "seq": 0, "time": "t", "data": {"blob": "z" * 1_000_000}}]}
    report = make_report([RuleResult(RULES_BY_ID["select.agrees"], "fail", example(
        "select", huge, None, [{"type": "text", "text": "z"}], "differs"))])
    path = tmp_path / "summary.md"
    write_markdown(report, path, replay_files={"select.agrees": "f.json"})
    text = path.read_text("utf-8")
    assert len(text) < 200_000
    assert "cut at 20000 of 1000" in text
    assert "`f.json`" in text


def console_output(report: RunReport, *, terminal: bool, verbose: bool = False,
                   **kwargs: Any) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=terminal, width=100, color_system="standard"
                      if terminal else None)
    render_console(report, console, verbose=verbose, **kwargs)
    return buffer.getvalue()


def test_console_is_plain_text_outside_a_terminal() -> None:
    """Rendered to a non-terminal, the summary has no escape codes, a line per operation, each
    failure with its rule, level, section, diff and seed, and the verdict with its exit code."""
    text = console_output(every_outcome(), terminal=False, impl_spec="node adapter.js",
                          replay_files={"select.last-message": "c.json"})
    assert "\x1b[" not in text
    assert "  select     3 rules  1 pass 1 fail 1 unstable" in text
    assert "FAIL  select.last-message  MUST  spec/selection.md §3.1" in text
    assert "-    \"text\": \"last\"" in text
    assert "seed: 4242" in text
    assert "replay: eventproof replay c.json --impl 'node adapter.js'" in text
    assert "XPASS  settle.output" in text
    assert text.rstrip().endswith(
        "does not conform (exit code 1, 8 of 10 rules judged): checked only 10 of 59 rules "
        "(select 3 of 4, fold all, settle 2 of 9, classify all, project 2 of 18); a whole run "
        "decides conformance; 4 MUST rules broken; 1 rule "
        "unstable: one input was answered differently when asked again; 1 MUST rule "
        "untested: judged on no answer; 1 stale expectation: settle.output is listed as an "
        "expected failure but passes now (no profile failure): delete that line, or rewrite the "
        "file with --update-expectations; 1 expected failure")


def test_console_uses_colour_on_a_terminal() -> None:
    """On a terminal, outcomes are coloured."""
    assert "\x1b[" in console_output(every_outcome(), terminal=True)


def test_console_cuts_long_inputs_and_points_at_the_replay_file() -> None:
    """An input longer than about 2000 characters is cut, with its full size and the replay
    file named."""
    huge = {"pushes": [{"text": "é" * 50_000}, *({"text": f"push {n}"} for n in range(600))]}
    report = make_report([RuleResult(RULES_BY_ID["fold.prefix"], "fail", example(
        "fold", huge, [None], [None, None], "too many results"))])
    text = console_output(report, terminal=False, replay_files={"fold.prefix": "big.json"})
    assert '"é" × 50000' in text  # a run of one character is folded
    assert "cut at 2000 of" in text  # and what is still long is cut
    assert "the full value is in big.json" in text
    assert "the exact input is in big.json" in text
    assert len(text) < 20_000


def test_console_verbose_lists_every_rule() -> None:
    """With verbose, every rule is listed with its outcome, passes included."""
    text = console_output(every_outcome(), terminal=False, verbose=True)
    assert "pass     select.never-empty (MUST)" in text
    assert "skip     classify.kind (MUST)" in text


def test_should_failure_alone_conforms_everywhere() -> None:
    """A broken SHOULD rule is reported but the verdict stays 'conforms' (exit code 0)."""
    report = make_report([RuleResult(rule, "pass") for rule in RULES if rule.id != "canon.bytes"]
                         + [RuleResult(RULES_BY_ID["canon.bytes"], "fail", example(
                             "project", {"event": {"type": "agent_start"}}, {"line": "a"},
                             {"line": "b"}, "bytes"))])
    assert report_document(report)["conforms"] is True
    text = console_output(report, terminal=False)
    assert "SHOULD: reported, does not decide conformance" in text
    assert text.rstrip().endswith("conforms (exit code 0, 59 of 59 rules judged): 1 SHOULD rule "
                                  "broken (does not "
                                  "decide conformance)")
    assert "conforms" in markdown_summary(report).splitlines()[0]


def test_a_slice_with_a_should_failure_says_it_checked_only_part() -> None:
    """The same SHOULD failure in a run of that one rule exits 0 but is called "checked only
    part", never "conforms" (the overclaim of ``--rule``)."""
    report = make_report([RuleResult(RULES_BY_ID["canon.bytes"], "fail", example(
        "project", {"event": {"type": "agent_start"}}, {"line": "a"}, {"line": "b"}, "bytes"))])
    assert report.verdict.exit_code == 0
    text = console_output(report, terminal=False)
    assert text.rstrip().splitlines()[-1].startswith(
        "checked only part (exit code 0, 1 of 1 rules judged): checked only 1 of 59 rules "
        "(project 1 of 18)")
    assert "wire checked only" in text
    assert "⚠️" in markdown_summary(report).splitlines()[0]


def test_failure_text_names_rule_values_and_replay() -> None:
    """The plain-text explanation names the rule, the section, the values, the diff and the replay
    command with the implementation quoted for a shell."""
    result = every_outcome().results[1]
    text = failure_text(result, replay_file="x y.json", impl_spec="node my adapter.js")
    assert text.startswith("select.last-message (MUST) fail — spec/selection.md §3.1")
    assert "minimal input (select):" in text
    assert "diff (expected → actual):" in text
    assert "replay: eventproof replay 'x y.json' --impl 'node my adapter.js'" in text


def test_deterministic_seed_is_explained() -> None:
    """A derandomized run has no seed; the explanation says so instead of printing None."""
    report = every_outcome()
    result = report.results[1]
    assert result.counterexample is not None
    text = failure_text(replace(result, counterexample=replace(result.counterexample, seed=None)))
    assert "seed: none (a derandomized run" in text


@pytest.mark.parametrize("outcome", ["pass", "skip", "xpass"])
def test_schema_refuses_a_counterexample_where_none_belongs(outcome: str) -> None:
    """The report schema is strict: a pass, skip or xpass entry with a counterexample is invalid."""
    document = report_document(every_outcome())
    entry = dict(document["results"][1], outcome=outcome)
    document["results"] = [entry]
    assert schema_issues(document, "report.json") != []


JSON = st.recursive(
    st.none() | st.booleans() | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=30,
)


def _strict(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize(("value", "label"), [
    (float("inf"), "[not JSON: Infinity]"), (float("-inf"), "[not JSON: -Infinity]"),
    (float("nan"), "[not JSON: NaN]"), ({1, 2}, "[not JSON: a value of type set: {1, 2}]"),
])
@pytest.mark.parametrize("write", [readable_json, dumps_json])
def test_files_are_strict_json_with_labels_for_what_json_cannot_hold(
        value: Any, label: str, write: Any) -> None:
    assert _strict(write({"actual": [value]})) == {"actual": [label]}


def test_files_are_strict_json_however_deep_the_value() -> None:
    deep: list[Any] = []
    inner = deep
    for _ in range(100_000):
        inner.append([])
        inner = inner[0]
    for write in (readable_json, dumps_json):
        text = write({"actual": deep})
        assert "nested deeper than" in text
        _strict(text)


@given(JSON)
def test_readable_json_is_the_same_value(value: Any) -> None:
    """The readable rendering parses back to the value it shows, key order included."""
    text = readable_json(value, width=40)
    assert json.loads(text, object_pairs_hook=list) == json.loads(json.dumps(value),
                                                                  object_pairs_hook=list)


def test_readable_json_keeps_small_values_on_one_line() -> None:
    """Events that fit the width stay on one line each; a larger value opens up."""
    events = {"events": [{"type": "x", "seq": n, "data": {}} for n in range(3)],
              "blob": {"text": "y" * 200}}
    lines = readable_json(events, width=60).splitlines()
    assert '    {"type": "x", "seq": 0, "data": {}},' in lines
    assert '    "text": "' + "y" * 200 + '"' in lines


def test_without_a_known_case_file_the_default_location_is_named() -> None:
    """When the caller did not say where case files went, the replay command names the place
    eventproof run saves them by default, in the console and in Markdown."""
    text = console_output(every_outcome(), terminal=False, impl_spec="node adapter.js")
    command = ("eventproof replay .eventproof/failures/ts-port/select.last-message.json "
               "--impl 'node adapter.js'")
    assert command in text
    assert command in markdown_summary(every_outcome(), impl_spec="node adapter.js")


# -- time ----------------------------------------------------------------------------------------

def timed_report() -> RunReport:
    """Two operations: select with a rule broken in a round of its own and three rules the last
    round settled together; classify with one rule."""
    rule = RULES_BY_ID
    failure = example("select", TWO_MESSAGES, [], [], "the last message")
    return make_report([
        RuleResult(rule["select.never-empty"], "pass", seconds=0.25),
        RuleResult(rule["select.last-message"], "fail", failure, seconds=1.5),
        RuleResult(rule["select.text-fallback"], "pass", seconds=0.25),
        RuleResult(rule["select.agrees"], "pass", seconds=0.25),
        RuleResult(rule["classify.kind"], "pass", seconds=0.4004),
    ])


def test_junit_times_are_the_seconds_that_settled_each_rule(tmp_path: Path) -> None:
    """A testcase's time is its rule's seconds; a testsuite's is the sum of its testcases' (the
    time spent checking the operation); the root's is the whole run's."""
    path = tmp_path / "junit.xml"
    write_junit(timed_report(), path)
    root = ET.parse(path).getroot()
    assert root.get("time") == "1.250"
    cases = {case.get("name"): case.get("time") for case in root.iter("testcase")}
    assert cases["select.last-message"] == "1.500"
    assert cases["select.agrees"] == "0.250"
    assert cases["classify.kind"] == "0.400"
    suites = {suite.get("name"): suite for suite in root.findall("testsuite")}
    assert suites["eventproof.select"].get("time") == "2.250"
    assert suites["eventproof.classify"].get("time") == "0.400"
    for suite in suites.values():
        total = sum(float(case.get("time") or "nan") for case in suite.iter("testcase"))
        assert abs(total - float(suite.get("time") or "nan")) < 1e-9


def test_json_has_seconds_only_when_asked() -> None:
    """Without timings no result carries seconds (a deterministic run's report then differs
    between runs only in durationSeconds); with timings every result does, and the report
    still validates."""
    plain = report_document(timed_report())
    assert not any("seconds" in result for result in plain["results"])
    timed = report_document(timed_report(), timings=True)
    assert [result["seconds"] for result in timed["results"]] == [0.25, 1.5, 0.25, 0.25, 0.4]
    assert schema_issues(timed, "report.json") == []
    assert {key: value for key, value in timed.items() if key != "results"} == {
        key: value for key, value in plain.items() if key != "results"}


def test_schema_refuses_negative_seconds() -> None:
    """seconds is an optional, non-negative number (reportVersion stays as it is)."""
    document = report_document(timed_report(), timings=True)
    assert document["reportVersion"] == REPORT_VERSION
    document["results"][0]["seconds"] = -1
    assert schema_issues(document, "report.json")


def test_seconds_are_shared_so_an_operation_adds_up() -> None:
    """A rule broken by its own round gets that round; the rest of the operation's time is
    shared equally by the rules the last round settled; the sum is the operation's time."""
    from eventproof.conformance._engine import _settle_seconds

    rule = RULES_BY_ID
    results = [RuleResult(rule[name], "pass") for name in
               ("select.never-empty", "select.last-message", "select.text-fallback",
                "select.agrees")]
    settled = _settle_seconds(results, {"select.last-message": 2.0}, 5.0)
    assert [result.seconds for result in settled] == [1.0, 2.0, 1.0, 1.0]
    # Every rule had a round of its own: what is left (book-keeping) goes to the last one.
    every = _settle_seconds(results, {r.rule.id: 1.0 for r in results}, 4.5)
    assert [result.seconds for result in every] == [1.0, 1.0, 1.0, 1.5]
    assert sum(result.seconds for result in every) == 4.5


class _Slow:
    """The reference, 2 ms slower per select request; classify is not slowed."""

    select_calls = 0

    def __init__(self) -> None:
        from eventproof.reference import Reference

        self.reference = Reference()

    def start(self) -> Any:
        return self.reference.start()

    def run(self, op: str, op_input: Any) -> Any:
        import time

        if op == "select":
            type(self).select_calls += 1
            time.sleep(0.002)
        return self.reference.run(op, op_input)


def test_engine_measures_each_operation_honestly() -> None:
    """The seconds of an operation's rules add up to at least the time the implementation spent
    answering it, and all the operations' to no more than the run."""
    from eventproof.conformance import check_implementation

    _Slow.select_calls = 0
    report = check_implementation(_Slow, ops=["select", "classify"], effort="quick")
    select = [result for result in report.results if result.rule.op == "select"]
    classify = [result for result in report.results if result.rule.op == "classify"]
    assert _Slow.select_calls > 50
    assert sum(result.seconds for result in select) >= 0.002 * _Slow.select_calls
    assert all(result.seconds > 0 for result in report.results)
    assert sum(result.seconds for result in report.results) <= report.duration
    # Nothing broken: the last (only) round settled every select rule, in equal shares.
    assert len({result.seconds for result in select}) == 1
    assert len(classify) == 1


def test_a_same_cause_failure_reads_the_same_in_every_output() -> None:
    """A failure that follows from another is, in the plain text JUnit and pytest show, the
    console's same-cause line: it names the rule it follows from (never "reported above", which
    JUnit and pytest, in rule order, may print below it) and does not show its own, possibly
    unshrunk, input in full."""
    long_input = {"events": [*TWO_MESSAGES["events"]] * 30}
    primary = RuleResult(RULES_BY_ID["select.last-message"], "fail", example(
        "select", TWO_MESSAGES, [{"type": "text", "text": "last"}],
        [{"type": "text", "text": "first"}], "the output is not the last message"))
    follower = RuleResult(RULES_BY_ID["select.agrees"], "fail", example(
        "select", long_input, [{"type": "text", "text": "last"}],
        [{"type": "text", "text": "first"}],
        "the answer differs from the reference's, and select.last-message explains why (its "
        "own failure, reported above)"), cause="select.last-message")
    report = make_report([follower, primary])  # the follower first, as in JUnit's order
    text = failure_text(follower)
    assert "above" not in text
    assert "reported under select.last-message" in text
    assert "minimal input" not in text
    assert text.splitlines()[1] == same_cause_line(follower)
    console = console_output(report, terminal=False)
    assert f"  {same_cause_line(follower)}" in console.splitlines()
    junit = ET.tostring(junit_tree(report).getroot(), encoding="unicode")
    assert "above" not in junit
    assert "same cause: FAIL  select.agrees" in junit


def test_a_same_cause_failure_is_whole_where_its_cause_is_not_shown() -> None:
    """Where the failure it follows from is not shown in full (a SHOULD rule's is an xfail in
    pytest, one line), a follower keeps its same-cause line and shows itself whole."""
    follower = RuleResult(RULES_BY_ID["bound.only-when-over"], "fail", example(
        "project", {"event": {}}, {"line": "a"}, {"line": "b"}, "bounded a line that fits"),
        cause="canon.bytes")
    text = failure_text(follower, cause_shown=False)
    assert text.splitlines()[1] == same_cause_line(follower)
    assert "minimal input (project):" in text
    assert "minimal input" not in failure_text(follower)
