"""Findings: one breach of one rule at one place of a log, counted per rule with the first few
kept whole."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ._rules import FIXES, rule

#: Characters of a line an excerpt shows.
EXCERPT_CHARACTERS = 160
_HIDDEN = re.compile("[\x00-\x1f\x7f\u2028\u2029\ud800-\udfff\ufffd]")


_LONE = re.compile("[\ud800-\udfff]")


def well_formed(text: str) -> str:
    """``text`` with every lone surrogate written as its escape (``\\ud800``): a name or a
    message taken from a log stays printable and writable as UTF-8."""
    if text.isascii() or not _LONE.search(text):
        return text
    return _LONE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _shown(match: re.Match[str]) -> str:
    char = match.group()
    return "\\n" if char == "\n" else f"\\u{ord(char):04x}"


def excerpt(line: bytes, at: int = 0, width: int = EXCERPT_CHARACTERS) -> str:
    """Up to ``width`` characters of ``line`` around byte ``at``, control characters and
    invalid bytes made visible, ``…`` where it was clipped."""
    line = line.rstrip(b"\r\n")
    start = max(0, at - width // 3)
    piece = line[start:start + width * 4]
    text = piece.decode("utf-8", "replace")
    clipped_end = len(text) > width or start + len(piece) < len(line)
    text = _HIDDEN.sub(_shown, text[:width])
    return ("…" if start else "") + text + ("…" if clipped_end else "")


@dataclass
class Finding:
    """One breach: the rule, where (file, line, byte offset), what the line holds, what is wrong
    and the fix."""

    rule: str
    file: str
    line: int
    offset: int
    excerpt: str
    message: str

    def document(self) -> dict[str, Any]:
        cited = rule(self.rule)
        return {"rule": self.rule, "level": cited.level, "section": cited.section,
                "file": self.file, "line": self.line, "offset": self.offset,
                "excerpt": self.excerpt, "message": self.message, "fix": FIXES[self.rule]}


@dataclass
class RuleTally:
    """What one rule judged: how many lines or records, how many breaches, the first ones."""

    judged: int = 0
    count: int = 0
    examples: list[Finding] = field(default_factory=list)

    def merge(self, other: RuleTally, keep: int) -> None:
        self.judged += other.judged
        self.count += other.count
        room = keep - len(self.examples)
        if room > 0:
            self.examples.extend(other.examples[:room])


class Tallies:
    """Every rule's tally for one audit (or one part of it)."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.by_rule: dict[str, RuleTally] = {}

    def judged(self, rule_id: str, count: int = 1) -> None:
        tally = self.by_rule.get(rule_id)
        if tally is None:
            tally = self.by_rule[rule_id] = RuleTally()
        tally.judged += count

    def add(self, rule_id: str, file: str, line_number: int, offset: int, line: bytes,
            message: str, at: int = 0) -> None:
        tally = self.by_rule.get(rule_id)
        if tally is None:
            tally = self.by_rule[rule_id] = RuleTally()
        tally.count += 1
        if len(tally.examples) < self.keep:
            tally.examples.append(Finding(rule_id, file, line_number, offset + at,
                                          excerpt(line, at), well_formed(message)))

    def add_excerpt(self, rule_id: str, file: str, line_number: int, offset: int, shown: str,
                    message: str) -> None:
        """A finding whose line was read earlier (``shown`` is its excerpt)."""
        tally = self.by_rule.get(rule_id)
        if tally is None:
            tally = self.by_rule[rule_id] = RuleTally()
        tally.count += 1
        if len(tally.examples) < self.keep:
            tally.examples.append(Finding(rule_id, file, line_number, offset, shown,
                                          well_formed(message)))

    def merge(self, other: Tallies) -> None:
        for rule_id, tally in other.by_rule.items():
            mine = self.by_rule.get(rule_id)
            if mine is None:
                mine = self.by_rule[rule_id] = RuleTally()
            mine.merge(tally, self.keep)

    def shift_lines(self, by: int) -> None:
        """Renumber the kept findings of a chunk that started ``by`` lines into its file."""
        for tally in self.by_rule.values():
            for finding in tally.examples:
                finding.line += by
