"""The one Markdown writer's pieces: every Markdown document the kit writes (``run
--markdown``, ``report --markdown``, ``audit --markdown``) builds its cells, code spans, fences
and tables here, so text from an implementation or a log (pipes, backticks, line breaks of any
kind) can never break a table, close a code span early or end a fence."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ._files import write_text

__all__ = ["cell", "code", "fence", "table", "write"]

#: Every character CommonMark or an editor takes as the end of a line.
_LINE_BREAKS = re.compile("\r\n|[\r\n\x0b\x0c\x85\u2028\u2029]")


def _longest_run(text: str, mark: str) -> int:
    return max((len(run) for run in re.findall(f"{re.escape(mark)}+", text)), default=0)


def cell(text: str) -> str:
    """``text`` as the content of one table cell: one line, its pipes escaped."""
    return _LINE_BREAKS.sub(" ", text).replace("|", "\\|")


def code(text: str) -> str:
    """``text`` as one inline code span on one line (CommonMark: the delimiter is a run of
    backticks longer than any run inside; a space pads text that starts or ends with one). No
    span is empty: the empty text is shown as a span of one space."""
    text = _LINE_BREAKS.sub(" ", text) or " "
    ticks = "`" * (_longest_run(text, "`") + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or (
        text.startswith(" ") and text.endswith(" ") and text.strip()) else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def fence(body: str, language: str = "") -> str:
    """``body`` as a fenced code block whose fence no line of the body can close."""
    fence_ = "`" * max(3, _longest_run(body, "`") + 1)
    return f"{fence_}{language}\n{body}\n{fence_}"


def table(header: Sequence[str], rows: Iterable[Sequence[str]],
          align: Sequence[str] | None = None) -> list[str]:
    """A pipe table: the header's cells, then each row's (cells already made with
    :func:`cell` or :func:`code`); ``align`` is ``"l"`` or ``"r"`` per column."""
    marks = ["---:" if side == "r" else "---" for side in (align or ["l"] * len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(marks) + "|"]
    for row in rows:
        if len(row) != len(header):
            raise ValueError(f"a row of {len(row)} cells in a table of {len(header)} columns")
        lines.append("| " + " | ".join(row) + " |")
    return lines


#: Write a Markdown document (UTF-8, LF line ends, parent directories created).
write = write_text
