"""``eventproof spec SECTION``: the text of a spec section, from the copy installed with the
package, so that every pointer a report prints (``spec/selection.md §3.1``) resolves without a
clone.

A section is named as reports cite it, in any of these forms: ``selection.md#3.1``,
``spec/selection.md §3.1``, ``selection 3.1``, ``selection §3.1``; a file alone
(``selection``) prints the file's table of contents.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from importlib.resources import files

from ._spec_links import heading_anchors

__all__ = ["Section", "SpecError", "find_section", "spec_files", "spec_text"]

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_NUMBER = re.compile(r"(\d+(?:\.\d+)*)\.?(?:\s|$)")
_QUERY = re.compile(r"^(?:spec/)?(?P<file>[a-z]+)(?:\.md)?(?:\s*[#§ ]\s*§?\s*(?P<number>\d+"
                    r"(?:\.\d+)*)\.?)?$")


class SpecError(ValueError):
    """A section that cannot be found, with what was asked and what exists."""


@dataclass(frozen=True)
class Section:
    """One section of the spec: its file, number, heading line and text (the heading and
    everything up to the next heading of the same or a higher level)."""

    file: str
    number: str
    heading: str
    text: str


def spec_files() -> list[str]:
    """The spec's files as installed (``budget.md``, ``protocol.md`` …), sorted."""
    root = files("eventproof.spec")
    return sorted(entry.name for entry in root.iterdir() if entry.name.endswith(".md"))


def spec_text(file: str) -> str:
    """The whole text of one installed spec file; :class:`SpecError` naming the files for
    another name."""
    if file not in spec_files():
        close = difflib.get_close_matches(file, spec_files(), n=1)
        hint = f" Did you mean {close[0]}?" if close else ""
        raise SpecError(f"{file!r} is not a file of the spec; its files are "
                        f"{', '.join(spec_files())}.{hint}")
    return (files("eventproof.spec") / file).read_text(encoding="utf-8")


def _headings(markdown: str) -> list[tuple[int, int, str, str]]:
    """(line index, level, number or "", heading line) of each heading outside fenced code."""
    found = []
    fenced = False
    for index, line in enumerate(markdown.splitlines()):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match is None:
            continue
        number = _NUMBER.match(match.group(2))
        found.append((index, len(match.group(1)), number.group(1) if number else "", line))
    return found


def parse_query(query: str) -> tuple[str, str]:
    """``(file, number)`` of a section named as reports cite it (``number`` "" for a whole
    file); :class:`SpecError` with the accepted forms for anything else."""
    match = _QUERY.match(query.strip().lower().replace("§ ", "§"))
    if match is None:
        raise SpecError(f"{query!r} names no section: write it as reports cite it, e.g. "
                        "selection.md#3.1, 'spec/wire.md §5.2', 'budget 5.3' or a file alone "
                        "(protocol)")
    return f"{match['file']}.md", match["number"] or ""


def find_section(query: str) -> Section:
    """The section ``query`` names (see the module's forms); a file alone is the file's title
    and its table of contents. :class:`SpecError`, with the nearest sections, when there is
    none."""
    file, number = parse_query(query)
    markdown = spec_text(file)
    lines = markdown.splitlines()
    headings = _headings(markdown)
    if not number:
        contents = [line for _, level, _, line in headings if level <= 3]
        return Section(file, "", contents[0] if contents else file, "\n".join(contents))
    for position, (index, level, found, line) in enumerate(headings):
        if found != number:
            continue
        end = next((later for later, later_level, _, _ in headings[position + 1:]
                    if later_level <= level), len(lines))
        return Section(file, number, line, "\n".join(lines[index:end]).rstrip())
    numbers = [found for _, _, found, _ in headings if found]
    close = difflib.get_close_matches(number, numbers, n=3, cutoff=0.5)
    hint = f" Nearest: {', '.join(f'{file}#{each}' for each in close)}." if close else ""
    raise SpecError(f"{file} has no section {number}.{hint} `eventproof spec {file}` lists its "
                    "sections")


def anchors_installed() -> dict[str, str]:
    """Every numbered section of the installed spec and its GitHub anchor (as
    :data:`._spec_links.SECTION_ANCHORS` holds them)."""
    table: dict[str, str] = {}
    for file in spec_files():
        for number, anchor in heading_anchors(spec_text(file)).items():
            table[f"{file}#{number}"] = anchor
    return table
