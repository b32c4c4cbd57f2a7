"""Bounded reports (docs/read-a-failure.md, spec/protocol.md §2.3): whatever size of string an
implementation sends, at whatever place, every report holds it clipped, with its length and
digest, and stays valid and bounded; the input, the kit's own, stays whole."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from eventproof.conformance._adapters import Broken, Crashed, Skipped, TimedOut
from eventproof.conformance._clip import (
    IDENTITY_CHARACTERS,
    MESSAGE_CHARACTERS,
    STDERR_CHARACTERS,
    TEXT_CHARACTERS,
    VALUE_CHARACTERS,
    VALUE_DEPTH,
    clip_text,
    clip_value,
    digest,
)
from eventproof.conformance._errors import ProtocolError
from eventproof.conformance._model import Capabilities
from eventproof.conformance._operations import RULES_BY_ID
from eventproof.conformance._protocol import Identity
from eventproof.conformance._replay import save_failures
from eventproof.conformance._reports import (
    markdown_summary,
    render_console,
    report_document,
    write_junit,
)
from eventproof.conformance._results import Counterexample, RuleResult, RunReport
from eventproof.conformance._schemas import schema_issues
from helpers import strings
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

LONGEST = max(IDENTITY_CHARACTERS, TEXT_CHARACTERS, MESSAGE_CHARACTERS, STDERR_CHARACTERS)
INPUT = {"events": [{"type": "assistant/message", "seq": 0, "time": 1, "data": {}}]}


def huge_texts() -> st.SearchStrategy[str]:
    """Strings from short to megabytes, built cheaply: a drawn piece repeated."""
    return st.builds(lambda piece, times, tail: piece * times + tail,
                     st.text(min_size=1, max_size=3), st.sampled_from([1, 700, 5000, 400_000]),
                     st.text(max_size=4))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | huge_texts(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(huge_texts(), inner, max_size=4),
    max_leaves=8,
)


def characters(value: Any) -> int:
    """The length of ``value`` as JSON, each string counted by its characters (an escape such as
    ``\\u001f`` is one character written in six)."""
    def plain(item: Any) -> Any:
        if isinstance(item, str):
            return "x" * len(item)
        if isinstance(item, dict):
            return {plain(name): plain(each) for name, each in item.items()}
        if isinstance(item, list):
            return [plain(each) for each in item]
        return item
    return len(json.dumps(plain(value)))


# -- the clipping functions ----------------------------------------------------------------------


@given(text=huge_texts(), limit=st.sampled_from([IDENTITY_CHARACTERS, TEXT_CHARACTERS,
                                                 STDERR_CHARACTERS]),
       keep=st.sampled_from(["start", "end"]))
def test_a_clipped_string_is_within_its_limit_and_names_length_and_digest(
        text: str, limit: int, keep: Any) -> None:
    clipped = clip_text(text, limit, keep=keep)
    assert len(clipped) <= limit
    assert clip_text(clipped, limit, keep=keep) == clipped
    if len(text) <= limit:
        assert clipped == text
    else:
        assert f"{len(text)} characters in all, sha256 {digest(text)}" in clipped
        kept = clipped.split("… [clipped")[0] if keep == "start" else clipped.split("] …")[1]
        assert text.startswith(kept) if keep == "start" else text.endswith(kept)


def test_two_long_strings_that_differ_only_past_the_cut_are_told_apart() -> None:
    first, second = "a" * 10_000 + "x", "a" * 10_000 + "y"
    assert clip_text(first) != clip_text(second)


@given(value=json_values)
def test_a_clipped_answer_is_bounded_and_clipping_it_again_changes_nothing(value: Any) -> None:
    clipped = clip_value(value)
    assert all(len(text) <= TEXT_CHARACTERS for text in strings(clipped))
    assert characters(clipped) <= VALUE_CHARACTERS + TEXT_CHARACTERS + VALUE_DEPTH * 80
    assert clip_value(clipped) == clipped
    if all(len(text) <= TEXT_CHARACTERS for text in strings(value)) and \
            characters(value) <= VALUE_CHARACTERS // 2:
        assert clipped is value


def test_many_small_items_and_deep_nesting_are_cut_with_a_note() -> None:
    wide = clip_value(list(range(100_000)))
    assert len(json.dumps(wide)) < VALUE_CHARACTERS
    assert wide[-1].startswith("[clipped: ")
    assert wide[-1].endswith(" more items]")
    deep: Any = "end"
    for _ in range(VALUE_DEPTH + 50):
        deep = [deep]
    shown = json.dumps(clip_value(deep))
    assert f"nested deeper than {VALUE_DEPTH}" in shown


# -- where foreign strings enter -----------------------------------------------------------------


@given(text=huge_texts())
def test_every_response_and_identity_string_is_clipped_where_it_enters(text: str) -> None:
    for response in (Skipped(text, text), Crashed(text, text), TimedOut(1.0, text),
                     Broken(ProtocolError("m", text, "e", text, "f"), text)):
        for value in vars(response).values():
            if isinstance(value, str):
                assert len(value) <= STDERR_CHARACTERS
        if isinstance(response, Broken):
            assert len(str(response.error)) <= 2 * MESSAGE_CHARACTERS
    identity = Identity(name=text, language=text, version=text, homepage=text, issues=text)
    assert all(len(value) <= IDENTITY_CHARACTERS for value in identity.to_json().values())


@st.composite
def foreign_reports(draw: st.DrawFn) -> RunReport:
    """A report in which the implementation's strings, at drawn places, are of drawn sizes."""
    text = huge_texts()
    rules = list(RULES_BY_ID.values())[:6]
    results = []
    for rule in rules:
        outcome = draw(st.sampled_from(["fail", "error", "crash", "timeout", "skip", "pass"]))
        if outcome in ("skip", "pass"):
            results.append(RuleResult(rule, outcome, note=draw(text)))
            continue
        results.append(RuleResult(rule, outcome, Counterexample(
            op=rule.op, input=INPUT, expected="[]", actual=draw(json_values),
            message=draw(text), seed=None, stderr=draw(text)), note=draw(text)))
    identity = {"name": draw(text), "language": draw(text), "version": draw(text),
                "homepage": draw(text)}
    return RunReport(implementation=identity, capabilities=Capabilities(), results=results,
                     effort="quick", seed=None, deterministic=True)


@settings(max_examples=15)
@given(report=foreign_reports())
def test_every_report_of_any_answer_is_bounded_valid_and_keeps_the_input(
        report: RunReport, tmp_path_factory: pytest.TempPathFactory) -> None:
    directory = tmp_path_factory.mktemp("reports")
    document = report_document(report)
    assert schema_issues(document, "report.json") == []
    assert all(len(text) <= LONGEST for text in strings(document))
    budget = len(report.results) * (VALUE_CHARACTERS + 3 * LONGEST) + 20_000
    assert characters(document) <= budget
    write_junit(report, directory / "junit.xml")
    assert len((directory / "junit.xml").read_text("utf-8")) <= 2 * budget
    assert len(markdown_summary(report)) <= 2 * budget
    console = io.StringIO()
    render_console(report, Console(file=console, width=100), verbose=True)
    assert len(console.getvalue()) <= 2 * budget
    for path in save_failures(report, directory / "state").values():
        case = json.loads(path.read_text("utf-8"))
        assert case["input"] == INPUT
        assert all(len(text) <= LONGEST for text in strings({**case, "input": None}))
        assert characters(case) <= budget


def test_a_huge_handshake_name_still_names_a_case_file(tmp_path: Path) -> None:
    """The case directory is named after the implementation: a clipped name fits a file name."""
    report = RunReport(
        implementation={"name": "n" * 1_000_000, "language": "go"}, capabilities=Capabilities(),
        results=[RuleResult(RULES_BY_ID["select.agrees"], "fail", Counterexample(
            op="select", input=INPUT, expected="[]", actual=[], message="m", seed=None))],
        effort="quick", seed=None, deterministic=True)
    (path,) = save_failures(report, tmp_path).values()
    assert path.is_file()
