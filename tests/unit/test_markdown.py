"""The pieces every Markdown document is made of (conformance/_markdown.py) hold any text: a
cell stays one cell on one line, a code span reads back as its text, a fence is closed only by
its own closing line."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from eventproof.conformance import _markdown
from hypothesis import example, given
from hypothesis import strategies as st

#: Text with what breaks Markdown made likely: pipes, backticks in runs, every line break.
hostile = st.lists(st.sampled_from(["|", "`", "``", "```", " ", "\n", "\r\n", "\r", "\u2028",
                                    "\x85", "a", "\\", "*"]) | st.characters(),
                   max_size=20).map("".join)


def _cells(row: str) -> list[str]:
    """A pipe-table row's cells, split on the pipes that are not escaped."""
    return re.split(r"(?<!\\)\|", row.strip())[1:-1]


def _span_text(span: str) -> str:
    """A CommonMark code span read back: the run of backticks that opens it is closed by the
    first run of the same length; one space is stripped from each side when both are spaces."""
    ticks = re.match("`+", span)
    assert ticks is not None
    n = len(ticks.group())
    closing = [m for m in re.finditer("`+", span[n:]) if len(m.group()) == n]
    assert closing, span
    inner = span[n:n + closing[0].start()]
    assert n + closing[0].end() == len(span), f"the span closes early: {span!r}"
    if len(inner) >= 2 and inner[0] == inner[-1] == " " and inner.strip():
        inner = inner[1:-1]
    return inner


def _one_line(text: str) -> str:
    return re.sub("\r\n|[\r\n\x0b\x0c\x85\u2028\u2029]", " ", text)


@given(hostile, hostile)
def test_a_cell_is_one_cell_on_one_line(first: str, second: str) -> None:
    row = _markdown.table(["a", "b"], [[_markdown.cell(first), _markdown.cell(second)]])[2]
    assert _one_line(row) == row
    assert len(_cells(row)) == 2


@given(hostile)
@example("a``b")
@example("` x `")
@example(" x ")
def test_a_code_span_reads_back_as_its_text(text: str) -> None:
    span = _markdown.code(text)
    assert _one_line(span) == span
    assert _span_text(span) == (_one_line(text) or " ")


@given(st.lists(hostile, max_size=5).map("\n".join))
def test_a_fence_is_closed_only_by_its_own_last_line(body: str) -> None:
    block = _markdown.fence(body)
    opening = block.splitlines()[0]
    lines = block.split("\n")
    closers = [index for index, line in enumerate(lines[1:], 1)
               if re.fullmatch(rf" {{0,3}}`{{{len(opening)},}}\s*", line)]
    assert closers == [len(lines) - 1]


def _old_code(text: str) -> str:
    ticks = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


@pytest.mark.parametrize("wrong", [_old_code])
def test_the_property_catches_a_span_of_too_few_backticks(wrong: Callable[[str], str]) -> None:
    """Wrong: two backticks whenever the text has one (a text with a run of two closes the span
    early)."""
    with pytest.raises(AssertionError):
        assert _span_text(wrong("a``b")) == "a``b"
