"""Every command's JUnit XML is one shape, written by one renderer (conformance/_junit.py): a
``testsuites`` root whose counts are its cases', every suite carrying the command's exit code
and verdict, and nothing XML 1.0 cannot carry."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from audit_logs import START, audit_bytes, line
from eventproof.conformance import _junit
from eventproof.conformance._reports import junit_tree
from eventproof.conformance._vectors import run_vectors, vectors_junit
from eventproof.conformance.audit._render import junit_tree as audit_junit_tree
from hypothesis import given
from hypothesis import strategies as st
from test_reports import every_outcome

KINDS = ("passed", "failure", "error", "skipped")

cases = st.builds(_junit.Case, classname=st.text(max_size=8), name=st.text(max_size=8),
                  seconds=st.floats(0, 10), kind=st.sampled_from(KINDS),
                  message=st.text(max_size=8), type=st.text(max_size=4),
                  text=st.text(max_size=20), stdout=st.text(max_size=8),
                  stderr=st.text(max_size=8))
suites = st.builds(_junit.Suite, name=st.text(max_size=8),
                   cases=st.lists(cases, max_size=5).map(tuple))


def _counts(element: ET.Element, cases: list[ET.Element]) -> None:
    kinds = [next((kind for kind in KINDS[1:] if case.find(kind) is not None), "passed")
             for case in cases]
    assert element.get("tests") == str(len(cases))
    assert element.get("failures") == str(kinds.count("failure"))
    assert element.get("errors") == str(kinds.count("error"))
    assert element.get("skipped") == str(kinds.count("skipped"))


def check_shape(document: ET.ElementTree[ET.Element], exit_code: int) -> None:
    """The shape every command writes: counts that are the cases', and the exit code and
    verdict in every suite."""
    root = document.getroot()
    assert root.tag == "testsuites"
    _counts(root, list(root.iter("testcase")))
    assert list(root), "no suite"
    for suite in root:
        assert suite.tag == "testsuite"
        _counts(suite, suite.findall("testcase"))
        properties = {prop.get("name"): prop.get("value") for prop in suite.iter("property")}
        assert properties["exit-code"] == str(exit_code)
        assert "conforms" in properties
        assert properties["conforms"] == ("true" if exit_code == 0 else "false")


@given(st.lists(suites, max_size=4), st.sampled_from([0, 1, 2]))
def test_any_results_make_a_document_of_the_one_shape(groups: list[_junit.Suite],
                                                      code: int) -> None:
    """Whatever the cases (any text, lone surrogates and control characters included), the
    document parses back, its counts are its cases' and each suite states the exit code."""
    document = _junit.tree("x", groups, seconds=1.0,
                           properties=(("conforms", code == 0), ("exit-code", code)))
    text = ET.tostring(document.getroot(), encoding="unicode")
    parsed = ET.ElementTree(ET.fromstring(text))
    if any(group.cases for group in groups):
        check_shape(parsed, code)


def test_run_vectors_and_audit_write_the_one_shape(tmp_path: Path) -> None:
    """`run` (a report with every outcome), `vectors` (the reference on one group) and `audit`
    (a log with a finding) each write the shape, with their own exit code."""
    report = every_outcome()
    check_shape(junit_tree(report), int(report.verdict.exit_code))
    outcome = run_vectors("python:eventproof.reference:Reference", rule_prefix="canon.")
    assert outcome.results
    check_shape(vectors_junit(outcome), outcome.exit_code)
    audited = audit_bytes(line(START) + b'{"type":"x","type":"y"}\n')
    assert audited.exit_code == 1
    check_shape(audit_junit_tree(audited), audited.exit_code)


class _OwnCounts:
    """Wrong: a writer that states counts it was given instead of counting its cases (the
    audit's old writer counted SHOULD findings apart from what it wrote)."""

    @staticmethod
    def tree(groups: list[_junit.Suite]) -> ET.ElementTree[ET.Element]:
        document = _junit.tree("x", groups, seconds=0.0,
                               properties=(("conforms", True), ("exit-code", 0)))
        for suite in document.getroot():
            suite.set("failures", "0")
        return document


def test_the_shape_check_catches_counts_not_taken_from_the_cases() -> None:
    failing = _junit.Suite("s", (_junit.Case("c", "n", kind="failure", message="m"),))
    with pytest.raises(AssertionError):
        check_shape(_OwnCounts.tree([failing]), 0)

