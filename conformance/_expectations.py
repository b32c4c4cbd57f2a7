"""The expected-failures file: which rules an implementation is known to break, and how.

The format follows protobuf's conformance failure lists: UTF-8 text, one entry per line,

    <rule-id> [<failure kind>]

where the failure kind (the stable name a check gives a failure, e.g. ``lone surrogate kept``;
left out: any failure of the rule) must be the failure's kind for the failure to count as
expected. A kind names the bug, not the input that showed it, so a run that finds the same bug
through another counterexample still matches. The earlier form ``<rule-id> <message prefix>``
(without brackets) keeps working: the failure's message must start with the prefix, and the note
says how to migrate. Lines whose first non-blank character is ``#`` are comments; blank lines are
ignored.

Applying the file is :func:`eventproof.conformance._engine.apply_expectations`: a listed failure
becomes ``xfail``; a listed rule that passes becomes ``xpass`` and fails the run, so a fixed bug
cannot hide behind a stale entry (the WPT and protobuf rule: expectations only ever shrink).
"""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path

from eventproof.reference import SPEC_VERSION

from ._errors import ExpectationsError
from ._files import EXPECTATIONS_BYTES, FileProblem, newer_than, read_bounded
from ._results import Expectations, RunReport
from ._versions import SUITE_VERSION

__all__ = ["PREFIX_LENGTH", "ExpectationsError", "load_expectations", "write_expectations"]

#: How many characters of a failure's message :func:`write_expectations` keeps as its prefix.
PREFIX_LENGTH = 60

_STILL_FAILING = frozenset({"fail", "error", "crash", "timeout", "xfail"})
# Characters a one-line UTF-8 prefix cannot carry faithfully: line breaks (str.splitlines also
# breaks at U+001C-U+001E, U+0085, U+2028 and U+2029), other C0 and C1 controls (an editor may
# rewrite a tab) and lone surrogates (not encodable as UTF-8).
_UNWRITABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def _known_rule_ids() -> list[str]:
    from ._operations import RULES

    return [rule.id for rule in RULES]


def load_expectations(path: str | os.PathLike[str]) -> Expectations:
    """Read an expectations file into ``{rule id: message prefix}``, with the line of each.

    Raises :class:`ExpectationsError` for an unreadable file, an unknown rule id (with the closest
    real ids) and a rule listed twice.
    """
    shown = str(path)
    try:
        raw = read_bounded(path, EXPECTATIONS_BYTES, "an expectations file")
    except FileProblem as problem:
        fix = problem.fix
        if problem.reason == "no such file":
            fix = ("Create it with `eventproof run --expect FILE --update-expectations`, or "
                   "leave --expect out")
        elif problem.reason == "is a directory":
            fix = "Pass the expectations file itself"
        raise ExpectationsError(shown, None, "", problem.reason, fix) from None
    try:
        # utf-8-sig: a byte order mark some editors write is not part of the first rule id.
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        bad_line = raw.count(b"\n", 0, error.start) + 1
        bad = raw.splitlines()[bad_line - 1].decode("utf-8", "backslashreplace") if raw else ""
        raise ExpectationsError(shown, bad_line, bad, f"is not UTF-8 (byte {error.start})",
                                "Save the file as UTF-8") from None
    _check_version(shown, text)
    known = _known_rule_ids()
    known_set = set(known)
    entries = Expectations(path=shown)
    first_seen = entries.lines
    for number, raw_line in enumerate(text.splitlines(), start=1):
        line = raw_line.strip()
        if not line or line.startswith("#"):
            continue
        rule_id, *rest = line.split(maxsplit=1)
        prefix = rest[0] if rest else ""
        if rule_id not in known_set:
            close = difflib.get_close_matches(rule_id, known, n=3, cutoff=0.5)
            hint = (f"Did you mean {' or '.join(repr(c) for c in close)}? " if close else "")
            raise ExpectationsError(
                shown, number, raw_line, f"{rule_id!r} is not a rule id",
                f"{hint}Each line is '<rule-id> <message prefix>'; `eventproof rules` lists "
                "every id. Fix the id, or delete the line if the rule no longer exists",
            )
        if rule_id in entries:
            raise ExpectationsError(
                shown, number, raw_line,
                f"{rule_id!r} is already listed on line {first_seen[rule_id]}",
                "Keep one line per rule: one expected message prefix decides each rule",
            )
        entries[rule_id] = prefix
        first_seen[rule_id] = number
    return entries


#: The line ``write_expectations`` heads a file with: the kit and spec that wrote it.
_WRITTEN_BY = re.compile(r"^# Written by eventproof (\S+) \(spec (\S+)\)", re.MULTILINE)


def _check_version(shown: str, text: str) -> None:
    """A file written by a later kit, or for another spec, lists rules and failure kinds this
    kit may not know or may name otherwise: refused, naming both versions (a file without the
    header, written by hand, is read as it is)."""
    found = _WRITTEN_BY.search(text)
    if found is None:
        return
    suite, spec = found.group(1), found.group(2).rstrip(",")
    line = text.count("\n", 0, found.start()) + 1
    if spec != SPEC_VERSION:
        raise ExpectationsError(
            shown, line, found.group(0), f"was written for spec {spec}; this eventproof "
            f"({SUITE_VERSION}) judges spec {SPEC_VERSION}",
            "Write it again with this version: eventproof run --expect FILE "
            "--update-expectations")
    if newer_than(suite, SUITE_VERSION):
        raise ExpectationsError(
            shown, line, found.group(0), f"was written by eventproof {suite}, newer than this "
            f"one ({SUITE_VERSION})", f"Upgrade eventproof to {suite} or later, or write the file "
            "again with this version: eventproof run --expect FILE --update-expectations")


def is_kind(entry: str) -> bool:
    """True for the current form of an entry's text, a failure kind in brackets."""
    return entry.startswith("[") and entry.endswith("]")


def _prefix(message: str) -> str:
    """The part of a message kept as its expected prefix: at most PREFIX_LENGTH characters that
    survive a round trip through a UTF-8 text line unchanged (a shorter prefix still matches)."""
    cut = _UNWRITABLE.search(message)
    kept = message[: cut.start()] if cut else message
    if kept[:1].isspace():
        return ""  # the reader strips it, so it could never match: expect any failure instead
    return kept[:PREFIX_LENGTH].rstrip()


def write_expectations(path: str | os.PathLike[str], report: RunReport) -> None:
    """Write every rule ``report`` finds broken (fail, error, crash, timeout, or an expected
    failure that still fails), in rule order, each with the first characters of its message."""
    implementation = report.implementation
    who = str(implementation.get("name", "an unnamed implementation"))
    if implementation.get("version"):
        who += f" {implementation['version']}"
    if implementation.get("language"):
        who += f" ({implementation['language']})"
    how = ("a deterministic run" if report.seed is None
           else f"a run with seed {report.seed}")
    lines = [
        "# eventproof expected failures: '<rule-id> [<failure kind>]' per line; '#' starts a",
        "# comment line. A listed rule that fails with that kind is reported as xfail; a listed",
        "# rule that passes is reported as xpass and fails the run: delete its line then. A rule",
        "# listed without a kind accepts any failure of the rule.",
        f"# Written by eventproof {SUITE_VERSION} (spec {SPEC_VERSION}) from {how} of {who},",
        f"# effort {report.effort}; regenerate with `eventproof run --expect FILE "
        "--update-expectations`.",
        "",
    ]
    order = {rule_id: index for index, rule_id in enumerate(_known_rule_ids())}
    # Registry order, not the order of the run: the file stays stable from run to run.
    ranked = sorted(report.results, key=lambda result: (order.get(result.rule.id, len(order)),
                                                         result.rule.id))
    for result in ranked:
        if result.outcome not in _STILL_FAILING:
            continue
        kind = result.counterexample.kind if result.counterexample is not None else ""
        kind = _prefix(kind)  # a kind is one short line; keep what a text line can carry
        lines.append(f"{result.rule.id} [{kind}]" if kind else result.rule.id)
    target = Path(path)
    if target.parent != Path():
        target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(lines) + "\n", encoding="utf-8", newline="\n")
