"""Diffs fold around the first difference, and both sides show it.

A long string whose values differ deep inside (a marker, one escaped character after thousands
of others) is what wire failures are made of. Drawn here: a long text, a position and the
character that differs there. Every view of the difference must show that character on both
sides within what it prints: the unified diff (never cut before its ``+`` side), the message of
:func:`first_difference`, and the console's expected and actual lines.
"""

from __future__ import annotations

import io
import json

from eventproof.conformance._json import first_difference
from eventproof.conformance._model import Capabilities
from eventproof.conformance._operations import RULES_BY_ID
from eventproof.conformance._reports import _CONSOLE_LIMIT, answer_diff, render_console
from eventproof.conformance._results import Counterexample, RuleResult, RunReport
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

texts = st.builds(lambda filler, size: filler * size,
                  st.sampled_from(["0", "ab", "xyz "]), st.integers(200, 4000))
marks = st.sampled_from(["Q", "é", "😀", "<", "#"])


def _changed(text: str, at: int, mark: str) -> str:
    return text[:at] + mark + text[at + 1:]


@settings(max_examples=60, deadline=None)
@given(text=texts, data=st.data(), mark=marks)
def test_the_diff_shows_both_sides_of_a_long_string(text: str, data: st.DataObject,
                                                    mark: str) -> None:
    """The diff of two long strings that differ at a drawn place has its ``-`` and its ``+``
    line within the console's limit, each showing its side of the difference."""
    at = data.draw(st.integers(0, len(text) - 1), label="at")
    other = _changed(text, at, mark)
    diff = answer_diff("select", [{"type": "text", "text": text}],
                       [{"type": "text", "text": other}])
    assert len(diff) <= _CONSOLE_LIMIT
    minus = [line for line in diff.splitlines() if line.startswith("-")
             and not line.startswith("---")]
    plus = [line for line in diff.splitlines() if line.startswith("+")
            and not line.startswith("+++")]
    assert len(minus) == 1
    assert len(plus) == 1
    assert mark in plus[0]
    assert json.dumps(text[at], ensure_ascii=False).strip('"') in minus[0]
    # The same place: the two lines are cut alike.
    assert minus[0].split(" ", 1)[0][1:] == plus[0].split(" ", 1)[0][1:]


@settings(max_examples=60, deadline=None)
@given(text=texts, data=st.data(), mark=marks)
def test_the_first_difference_message_shows_where_the_strings_differ(
        text: str, data: st.DataObject, mark: str) -> None:
    """The message of a string difference quotes both strings around the code point where
    they differ, not their two ends."""
    at = data.draw(st.integers(0, len(text) - 1), label="at")
    found = first_difference(_changed(text, at, mark), text)
    assert found is not None
    message = str(found)
    yours = message.split("(yours ", 1)[1]
    assert mark in yours.split(", expected ", 1)[0]
    assert f"{text[at]}" in yours.split(", expected ", 1)[1]


@settings(max_examples=30, deadline=None)
@given(text=texts.filter(lambda text: len(text) <= 1500), data=st.data(), mark=marks)
def test_the_console_lines_show_where_they_differ(text: str, data: st.DataObject,
                                                  mark: str) -> None:
    """The console's expected and actual wire lines are folded around their first difference:
    the actual line shows the differing character (within what a report keeps of an answer,
    _clip)."""
    at = data.draw(st.integers(0, len(text) - 1), label="at")
    expected = json.dumps({"type": "x", "text": text}, ensure_ascii=False)
    actual = json.dumps({"type": "x", "text": _changed(text, at, mark)}, ensure_ascii=False)
    result = RuleResult(RULES_BY_ID["project.agrees"], "fail", Counterexample(
        op="project", input={}, expected={"line": expected}, actual={"line": actual},
        message="differs", seed=None))
    report = RunReport(implementation={"name": "port"}, capabilities=Capabilities(),
                       results=[result], effort="quick", seed=None, deterministic=True)
    out = io.StringIO()
    render_console(report, Console(file=out, width=300, color_system=None))
    [actual_line] = [line for line in out.getvalue().splitlines()
                     if line.strip().startswith("actual line:")]
    assert mark in actual_line
