"""The expected-failures file: parsing, its errors, writing it, and applying it (xfail / xpass)."""

from __future__ import annotations

import pickle
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest
from eventproof.conformance._engine import (
    Counterexample,
    RuleResult,
    RunReport,
    apply_expectations,
)
from eventproof.conformance._expectations import (
    PREFIX_LENGTH,
    ExpectationsError,
    load_expectations,
    write_expectations,
)
from eventproof.conformance._model import Capabilities
from eventproof.conformance._operations import RULES, RULES_BY_ID
from hypothesis import given
from hypothesis import strategies as st


def failing(rule_id: str, message: str, kind: str = "") -> RuleResult:
    return RuleResult(RULES_BY_ID[rule_id], "fail", Counterexample(
        op=RULES_BY_ID[rule_id].op, input={}, expected=None, actual=[], message=message,
        seed=None, kind=kind))


def report_of(results: list[RuleResult], *, seed: int | None = 99) -> RunReport:
    return RunReport(implementation={"name": "go-port", "language": "go", "version": "0.4.0"},
                     capabilities=Capabilities(), results=results, effort="default", seed=seed,
                     deterministic=seed is None)


def write(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "eventproof-expectations.txt"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_lines_comments_and_blank_lines(tmp_path: Path) -> None:
    """Each entry is '<rule-id> <prefix>'; comment and blank lines are ignored; a prefix may be
    empty and may contain '#'; CRLF and a byte order mark are accepted."""
    path = write(tmp_path, "\ufeff# known bugs\r\n\r\nselect.last-message the output is  \r\n"
                           "   # indented comment\r\nfold.shape\r\n"
                           "canon.bytes escapes # U+2028\r\n")
    assert load_expectations(path) == {
        "select.last-message": "the output is",
        "fold.shape": "",
        "canon.bytes": "escapes # U+2028",
    }


def test_unknown_rule_names_the_line_and_suggests_the_closest_id(tmp_path: Path) -> None:
    """A misspelt rule id is refused with the file, line number, text and the closest real id."""
    path = write(tmp_path, "# header\nfold.shape\nselect.last-mesage the output\n")
    with pytest.raises(ExpectationsError) as caught:
        load_expectations(path)
    error = caught.value
    assert (error.path, error.line, error.text) == (str(path), 3, "select.last-mesage the output")
    message = str(error)
    assert f"{path}, line 3" in message
    assert "'select.last-mesage' is not a rule id" in message
    assert "Did you mean 'select.last-message'" in message
    assert "eventproof rules" in message


def test_unknown_rule_without_a_close_match_still_says_how_to_fix(tmp_path: Path) -> None:
    """An id like no real one gets no guess, but still the fix."""
    with pytest.raises(ExpectationsError, match="delete the line") as caught:
        load_expectations(write(tmp_path, "zzzzzz\n"))
    assert "Did you mean" not in str(caught.value)


def test_duplicate_rule_names_both_lines(tmp_path: Path) -> None:
    """A rule listed twice is refused, naming the line of the first listing too."""
    path = write(tmp_path, "fold.shape a\n\nfold.shape b\n")
    with pytest.raises(ExpectationsError) as caught:
        load_expectations(path)
    assert caught.value.line == 3
    assert "already listed on line 1" in str(caught.value)


def test_missing_file_says_how_to_create_it(tmp_path: Path) -> None:
    """A missing file is refused with the command that writes one."""
    with pytest.raises(ExpectationsError, match="--update-expectations") as caught:
        load_expectations(tmp_path / "nope.txt")
    assert caught.value.line is None
    assert "no such file" in str(caught.value)


def test_directory_is_refused(tmp_path: Path) -> None:
    """A directory where the file should be is refused clearly."""
    with pytest.raises(ExpectationsError, match="is a directory"):
        load_expectations(tmp_path)


def test_non_utf8_names_the_line(tmp_path: Path) -> None:
    """A file that is not UTF-8 is refused with the line of the first bad byte."""
    path = write(tmp_path, b"fold.shape a\nselect.agrees caf\xe9\n")
    with pytest.raises(ExpectationsError, match="not UTF-8") as caught:
        load_expectations(path)
    assert caught.value.line == 2


def test_error_fields_are_frozen_and_it_pickles() -> None:
    """ExpectationsError's fields cannot be reassigned, and it survives pickling (xdist)."""
    error = ExpectationsError("f.txt", 2, "x", "why", "fix")
    with pytest.raises(FrozenInstanceError):
        error.line = 3  # type: ignore[misc]
    assert str(pickle.loads(pickle.dumps(error))) == str(error)


def test_written_file_lists_failing_rules_in_rule_order(tmp_path: Path) -> None:
    """write_expectations lists every failing rule (xfail included), in registry order, with its
    failure kind (none: any failure of the rule), under a header naming the implementation and
    seed; passes are left out."""
    report = report_of([
        RuleResult(RULES_BY_ID["select.never-empty"], "pass"),
        failing("project.agrees", "the line differs: " + "x" * 200, "line is not JSON"),
        failing("select.last-message", "the output is events[0]"),
        RuleResult(RULES_BY_ID["canon.bytes"], "xfail", Counterexample(
            op="project", input={}, expected=None, actual=None, message="escapes U+2028",
            seed=None), note="expected: escapes"),
        RuleResult(RULES_BY_ID["settle.output"], "error", note="not checked: it crashed"),
        RuleResult(RULES_BY_ID["fold.shape"], "skip", note="not declared"),
    ])
    path = tmp_path / "sub" / "expect.txt"
    write_expectations(path, report)
    text = path.read_text("utf-8")
    header = [line for line in text.splitlines() if line.startswith("#")]
    assert any("go-port 0.4.0 (go)" in line and "seed 99" in line for line in header)
    entries = [line for line in text.splitlines() if line and not line.startswith("#")]
    order = [rule.id for rule in RULES]
    assert [entry.split()[0] for entry in entries] == sorted(
        ["project.agrees", "select.last-message", "canon.bytes", "settle.output"],
        key=order.index)
    loaded = load_expectations(path)
    assert loaded["project.agrees"] == "[line is not JSON]"
    assert loaded["settle.output"] == ""
    assert loaded["canon.bytes"] == ""


def test_written_file_turns_the_same_failures_into_xfail(tmp_path: Path) -> None:
    """Applying the file written from a run to that run makes every failure an xfail, and the
    run conforms."""
    report = report_of([failing("select.last-message", "the output is events[0]"),
                        failing("bound.fits", "the line has 5000 bytes, more than 4096"),
                        RuleResult(RULES_BY_ID["select.agrees"], "pass")])
    assert not report.conforms
    path = tmp_path / "expect.txt"
    write_expectations(path, report)
    applied = apply_expectations(report, load_expectations(path))
    assert [result.outcome for result in applied.results] == ["xfail", "xfail", "pass"]
    assert applied.conforms


def test_stale_expectation_is_xpass_and_fails_the_run(tmp_path: Path) -> None:
    """A listed rule that now passes becomes xpass, which makes the run non-conforming and tells
    the reader to delete the line."""
    path = write(tmp_path, "select.last-message the output is\n")
    report = report_of([RuleResult(RULES_BY_ID["select.last-message"], "pass")])
    applied = apply_expectations(report, load_expectations(path))
    result = applied.result_for("select.last-message")
    assert result.outcome == "xpass"
    assert f"{path}:1 lists select.last-message" in result.note
    assert "--update-expectations" in result.note
    verdict = applied.verdict
    assert f"select.last-message ({path}:1)" in verdict.line()
    assert not applied.conforms


def test_wrong_prefix_keeps_the_failure(tmp_path: Path) -> None:
    """A listed rule failing with a different message stays a failure (a new bug is not hidden),
    and the note shows the prefix and the message."""
    path = write(tmp_path, "select.last-message the output is\n")
    report = report_of([failing("select.last-message", "a different message")])
    applied = apply_expectations(report, load_expectations(path))
    result = applied.result_for("select.last-message")
    assert result.outcome == "fail"
    assert "'the output is'" in result.note
    assert "a different message" in result.note


def test_empty_prefix_expects_any_failure(tmp_path: Path) -> None:
    """A rule listed without a prefix expects any failure of that rule."""
    path = write(tmp_path, "select.last-message\n")
    report = report_of([failing("select.last-message", "anything at all")])
    assert apply_expectations(report, load_expectations(path)).results[0].outcome == "xfail"


@given(st.text(max_size=200).filter(lambda text: text.strip() != ""),
       st.from_regex(r"([a-z][a-z0-9 ()-]{0,40}[a-z0-9)])?", fullmatch=True))
def test_any_failure_round_trips_as_its_own_expectation(message: str, kind: str) -> None:
    """Whatever a failure's message holds (controls, lone surrogates, U+2028, '#'), the written
    file expects that failure by its kind (a short name, as checks give them)."""
    import tempfile

    report = report_of([failing("settle.tool-result", message, kind)])
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "e.txt"
        write_expectations(path, report)
        loaded = load_expectations(path)
    assert set(loaded) == {"settle.tool-result"}
    assert len(loaded["settle.tool-result"]) <= PREFIX_LENGTH + 2
    assert apply_expectations(report, loaded).results[0].outcome == "xfail"


def test_a_kind_matches_the_bug_whatever_the_counterexample(tmp_path: Path) -> None:
    """An entry names the failure kind: the same bug found through another input is still
    expected, while another kind of failure of the same rule is not."""
    path = write(tmp_path, "canon.utf8 [lone surrogate kept]\n")
    expected = load_expectations(path)
    same = report_of([failing("canon.utf8", "your line carries U+D800 at $.events[3].x",
                              "lone surrogate kept")])
    other_input = report_of([failing("canon.utf8", "your line carries U+DFFF at $.args.y",
                                     "lone surrogate kept")])
    other_kind = report_of([failing("canon.utf8", "your line carries U+D800 at $.a",
                                    "raw surrogate code point")])
    assert apply_expectations(same, expected).results[0].outcome == "xfail"
    assert apply_expectations(other_input, expected).results[0].outcome == "xfail"
    kept = apply_expectations(other_kind, expected).results[0]
    assert kept.outcome == "fail"
    assert "[raw surrogate code point]" in kept.note


def test_an_old_style_prefix_still_matches_and_says_how_to_migrate(tmp_path: Path) -> None:
    """An entry written as a message prefix keeps working, with a note to rewrite the file."""
    path = write(tmp_path, "select.last-message the output is\n")
    report = report_of([failing("select.last-message", "the output is events[0]")])
    result = apply_expectations(report, load_expectations(path)).results[0]
    assert result.outcome == "xfail"
    assert "--update-expectations" in result.note
