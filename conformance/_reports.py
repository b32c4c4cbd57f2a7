"""What CI and people read after a run: the JSON report, JUnit XML, Markdown and the console.

Every face renders the same :class:`~eventproof.conformance._results.RunReport` and its one
verdict (:class:`~eventproof.conformance._results.RunVerdict`). The JSON report is the complete,
versioned record (``schemas/report.json``); JUnit XML feeds CI test tabs; the Markdown summary is
written for a pull request or a job summary; the console is the short human view.

Values from an implementation are shown as JSON. Strings may hold lone surrogates (the suite
generates them on purpose, spec/wire.md §6.1) and control characters, which UTF-8 files and XML
cannot carry raw: they are written as JSON escapes (``\\ud800``), so what is shown is still the
exact value.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shlex
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from eventproof.reference import SPEC_VERSION
from rich.console import Console
from rich.text import Text

from . import _junit, _markdown
from ._clip import one_line
from ._files import write_text
from ._json import dumps_json, pretty_json, readable_json
from ._model import LIMIT_LEAVES, Capabilities
from ._operations import OPS
from ._replay import case_path
from ._results import OUTCOMES, Invocation, ProfileVerdict, RuleResult, RunReport
from ._shard import run_id
from ._spec_links import spec_url
from ._versions import HYPOTHESIS_VERSION, PROTOCOL_VERSION, REPORT_VERSION, SUITE_VERSION

__all__ = [
    "OUTCOMES",
    "PROTOCOL_VERSION",
    "REPORT_VERSION",
    "SPEC_URL",
    "SUITE_VERSION",
    "answer_diff",
    "dumps_json",
    "failure_text",
    "markdown_summary",
    "pretty_json",
    "readable_json",
    "render_console",
    "report_document",
    "same_cause_line",
    "section_label",
    "section_url",
    "totals",
    "write_json",
    "write_junit",
    "write_markdown",
]


#: Where the normative text of this kit is published (its tag); a rule's section is under it.
SPEC_URL = spec_url("", SUITE_VERSION)

#: Outcomes shown as a failure section (the run's verdict depends on them).
_SHOWN = frozenset({"fail", "error", "crash", "timeout", "unstable", "untested", "xpass"})
#: How much of one value the console shows before pointing at the replay file.
_CONSOLE_LIMIT = 2000
#: How much of one value a Markdown block or a JUnit failure carries.
_DOCUMENT_LIMIT = 20000

# Inside a JSON string these are shown as escapes: lone surrogates have no UTF-8 form, and
# U+0085, U+2028 and U+2029 end a line for str.splitlines, editors and terminals.
# A wire line shown as written: a character that cannot be shown raw on one line is written
# ⟨U+XXXX⟩, which no JSON text contains, so it is never confused with an escape in the line.
_NOT_SHOWN_RAW = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029\ud800-\udfff]")
# Free text from an implementation (stderr, messages) keeps its line breaks and tabs; any other
# control character (a terminal escape sequence) is shown, not obeyed.
_HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f\x85\u2028\u2029\ud800-\udfff]")


def _printable(text: str) -> str:
    """Free text with control characters other than LF and TAB, and lone surrogates, escaped."""
    return _HIDDEN.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


_write_text = write_text


def _clip(text: str, limit: int, where: str) -> str:
    if len(text) <= limit:
        return text
    return (f"{text[:limit]}\n… cut at {limit} of {len(text)} characters; the full value is in "
            f"{where}")


# -- rules and sections ------------------------------------------------------------------------

def section_label(section: str) -> str:
    """``selection.md#3.1`` as a reader cites it: ``spec/selection.md §3.1``."""
    file, _, number = section.partition("#")
    return f"spec/{file} §{number}" if number else f"spec/{file}"


def section_url(section: str) -> str:
    """The published section that states a rule, at this kit's tag, with its anchor."""
    return spec_url(section, SUITE_VERSION)


def _impl_label(implementation: Mapping[str, Any]) -> str:
    """``name version (language)`` on one line, whatever line breaks the handshake held."""
    name = str(implementation.get("name", "unnamed implementation"))
    parts = [name]
    if implementation.get("version"):
        parts.append(str(implementation["version"]))
    if implementation.get("language"):
        parts.append(f"({implementation['language']})")
    return one_line(" ".join(parts))


def totals(report: RunReport) -> dict[str, int]:
    """How many rules ended with each outcome (every outcome present, zeros included)."""
    return dict(report.verdict.counts)


def _ops_in(report: RunReport) -> list[str]:
    seen: set[str] = {result.rule.op for result in report.results}
    return [op for op in OPS if op in seen] + sorted(seen - set(OPS))


def _explanation(result: RuleResult) -> str:
    """The one message that says what went wrong (or why the rule was not judged). A failure
    that follows from another names that rule rather than a place ("reported above" is true of
    the console alone: JUnit and pytest list rules in rule order)."""
    if result.outcome == "xpass":
        return result.note
    if result.counterexample is not None:
        message = result.counterexample.message
        if result.cause:
            message = message.replace("reported above", f"reported under {result.cause}")
        return message
    return result.note


def same_cause_line(result: RuleResult) -> str:
    """How every output names a failure that follows from another (the console's line under the
    failure it follows from): ``same cause: FAIL  bound.x  MUST  spec/wire.md §5.2 (follows
    from canon.bytes: …)``."""
    rule = result.rule
    return (f"same cause: {result.outcome.upper()}  {rule.id}  {rule.level}  "
            f"{section_label(rule.section)} (follows from {result.cause}'s failure: fix that "
            "one first)")


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _profile_status(profile: ProfileVerdict) -> str:
    """A profile's status with the operations it concerns: ``not declared (details, roster)``."""
    return profile.describe().partition(": ")[2]


def _shown_failures(report: RunReport) -> list[RuleResult]:
    """The results shown one by one: each broken or untested rule that stands alone. After a
    run ended early (Ctrl-C, SIGTERM, --max-time, -x), the rules it did not judge are one line
    (:func:`_unjudged_line`), not one block each."""
    early = bool(report.verdict.ending)
    return [result for result in report.results
            if result.outcome in _SHOWN and not result.cause
            and not (early and result.outcome == "untested")]


def _unjudged_line(report: RunReport) -> str:
    """After a run that ended early: how many rules it left unjudged, and why, in one line."""
    verdict = report.verdict
    untested = [result.rule.id for result in report.results if result.outcome == "untested"]
    if not verdict.ending or not untested:
        return ""
    shown = ", ".join(untested[:6]) + (f" and {len(untested) - 6} more" if len(untested) > 6
                                       else "")
    return f"not judged ({verdict.ending}): {_plural(len(untested), 'rule')}: {shown}"


def limits_line(report: RunReport) -> str:
    """What the implementation's declared limits left unjudged, in one line ("" when it
    declared none): how many requests were sent as it reads them, and what each limit's rule
    never met (spec/protocol.md §4.2)."""
    limits = report.capabilities.limits
    if not limits:
        return ""
    by_op: dict[str, int] = {}
    for result in report.results:
        if result.coverage is not None:
            by_op[result.rule.op] = max(by_op.get(result.rule.op, 0), result.coverage.limited)
    sent = sum(by_op.values())
    judged = {result.rule.id for result in report.results if result.outcome != "skip"}
    left = "; ".join(f"{rule} met no {what}" for rule, what in
                     (LIMIT_LEAVES[limit] for limit in limits) if rule in judged)
    return (f"declared {', '.join(limits)}: {_plural(sent, 'request')} sent as the "
            f"implementation reads them" + (f"; {left}" if left else ""))


def skips_line(report: RunReport) -> str:
    """How many requests the implementation answered ``skipped``, per operation, in one line
    ("" when none): a skip judges nothing, so a verdict reached around skips says how many
    (spec/protocol.md §5.3)."""
    by_op: dict[str, int] = {}
    for result in report.results:
        if result.coverage is not None and result.coverage.skipped:
            by_op[result.rule.op] = max(by_op.get(result.rule.op, 0), result.coverage.skipped)
    if not by_op:
        return ""
    each = ", ".join(f"{op} {count}" for op, count in by_op.items())
    return (f"answered skipped: {_plural(sum(by_op.values()), 'request')} ({each}), judged by "
            "no rule; a skip is for a whole feature the implementation lacks and must not hide "
            "a disagreement (spec/protocol.md §5.3)")


def _verdict_line(report: RunReport) -> str:
    """The verdict and what it means for the exit code (:meth:`RunVerdict.line`)."""
    return report.verdict.line()


# -- the diff ----------------------------------------------------------------------------------

#: A run of one character at least this long is shown as ``"c" × n``.
_RUN = 8
#: Text between runs longer than this keeps its two ends around ``…``.
_KEEP = 40


def fold_text(text: str) -> str | None:
    """``text`` as a short expression for reading — runs of one character as ``"c" × n``, long
    stretches between them cut in the middle (``"abc" + … 812 characters … + "xyz"``), joined
    with ``+``; None when ``text`` is short enough to show as it is. What was folded is always
    said; the exact value is in the case file and the JSON report."""
    if len(text) <= 2 * _KEEP:
        return None
    pieces: list[str] = []
    literal = ""

    def flush() -> None:
        nonlocal literal
        if not literal:
            return
        if len(literal) > 2 * _KEEP:
            middle = len(literal) - _KEEP
            pieces.append(f"{dumps_json(literal[:_KEEP // 2])} + … {middle} characters … + "
                          f"{dumps_json(literal[-(_KEEP // 2):])}")
        else:
            pieces.append(dumps_json(literal))
        literal = ""

    index = 0
    while index < len(text):
        end = index
        while end < len(text) and text[end] == text[index]:
            end += 1
        if end - index >= _RUN:
            flush()
            pieces.append(f"{dumps_json(text[index])} × {end - index}")
        else:
            literal += text[index:end]
        index = end
    flush()
    folded = " + ".join(pieces)
    return folded if len(folded) < len(dumps_json(text)) else None


def folded_json(value: Any, width: int = 120) -> str:
    """:func:`readable_json` of ``value`` with every long string folded (:func:`fold_text`):
    what the console shows of an input or an answer."""
    tokens: dict[str, str] = {}

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            folded = fold_text(item)
            if folded is None:
                return item
            token = f"\x00fold{len(tokens)}\x00"
            tokens[dumps_json(token)] = folded
            return token
        if isinstance(item, list):
            return [walk(each) for each in item]
        if isinstance(item, dict):
            return {key: walk(each) for key, each in item.items()}
        return item

    text = readable_json(walk(value), width)
    for token, folded in tokens.items():
        text = text.replace(token, folded)
    return text


def _line_of(value: Any) -> str | None:
    if isinstance(value, dict) and set(value) == {"line"} and isinstance(value["line"], str):
        return value["line"]
    return None


def _parsed_line(line: str) -> Any:
    try:
        return json.loads(line)
    except ValueError:
        return line  # not JSON at all: the diff then shows the raw text


def _visible(line: str) -> str:
    """A wire line as written; what cannot be shown raw on one line appears as ``⟨U+XXXX⟩``."""
    return _NOT_SHOWN_RAW.sub(lambda match: f"⟨U+{ord(match.group()):04X}⟩", line)


#: Characters of one diff line (or wire line) shown around the first difference; the rest of
#: the line is folded, with how much, and the exact value is in the case file.
DIFF_WIDTH = 160


def _differ_at(a: str, b: str) -> int:
    """The index of the first character where ``a`` and ``b`` differ (the shorter's length when
    one is a prefix of the other)."""
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                min(len(a), len(b)))


def window(text: str, at: int, width: int = DIFF_WIDTH) -> str:
    """``text`` cut to ``width`` characters around index ``at`` (a third before it), each cut
    said: what is at ``at`` is always shown."""
    if len(text) <= width:
        return text
    start = max(0, min(at - width // 3, len(text) - width))
    end = min(len(text), start + width)
    head = f"…({start} characters)… " if start else ""
    tail = f" …({len(text) - end} more characters)" if end < len(text) else ""
    return head + text[start:end] + tail


def window_pair(a: str, b: str, width: int = DIFF_WIDTH) -> tuple[str, str]:
    """Two texts folded around their first difference, at the same place: both sides show it."""
    at = _differ_at(a, b)
    return window(a, at, width), window(b, at, width)


def fold_diff(diff: str, width: int = DIFF_WIDTH) -> str:
    """A unified diff whose long lines are folded around where they differ: each ``-`` line is
    paired with the ``+`` line that replaces it and both are cut at the same place around their
    first difference, so a long string never pushes the ``+`` side out of what is shown."""
    lines = diff.splitlines()
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("-") and not line.startswith("---"):
            minus = []
            while index < len(lines) and lines[index].startswith("-"):
                minus.append(lines[index])
                index += 1
            plus = []
            while index < len(lines) and lines[index].startswith("+"):
                plus.append(lines[index])
                index += 1
            for position in range(max(len(minus), len(plus))):
                if position < len(minus) and position < len(plus):
                    a, b = window_pair(minus[position][1:], plus[position][1:], width)
                    minus[position], plus[position] = "-" + a, "+" + b
                elif position < len(minus):
                    minus[position] = "-" + window(minus[position][1:], 0, width)
                else:
                    plus[position] = "+" + window(plus[position][1:], 0, width)
            out += minus + plus
            continue
        if line.startswith(("---", "+++", "@@")):
            out.append(line)
        else:
            out.append(line[:1] + window(line[1:], 0, width))
        index += 1
    return "\n".join(out)


def _first_difference(expected: str, actual: str) -> str:
    index = next((i for i, (a, b) in enumerate(zip(expected, actual, strict=False)) if a != b),
                 min(len(expected), len(actual)))
    start = max(0, index - 20)
    around_expected = dumps_json(expected[start:index + 20])
    around_actual = dumps_json(actual[start:index + 20])
    return (f"the lines first differ at character {index}: expected {around_expected}, "
            f"actual {around_actual}")


def answer_diff(op: str, expected: Any, actual: Any, width: int | None = DIFF_WIDTH) -> str:
    """A unified diff from the expected to the actual answer, over pretty JSON.

    For ``project`` the wire lines are parsed first, so the diff shows which member differs rather
    than one long changed line; when the parsed values agree, the first differing character of the
    lines is named instead (the bytes differ, wire.md §6). Lines longer than ``width`` are folded
    around their first difference (:func:`fold_diff`; None: shown whole).
    """
    expected_line, actual_line = _line_of(expected), _line_of(actual)
    if op == "project" and expected_line is not None and actual_line is not None:
        before, after = _parsed_line(expected_line), _parsed_line(actual_line)
    else:
        before, after = expected, actual
    diff = "\n".join(difflib.unified_diff(
        pretty_json(before).splitlines(), pretty_json(after).splitlines(),
        fromfile="expected", tofile="actual", lineterm="",
    ))
    if diff:
        return diff if width is None else fold_diff(diff, width)
    if expected_line is not None and actual_line is not None and expected_line != actual_line:
        return ("(the lines parse to equal JSON values; the bytes differ) "
                + _first_difference(expected_line, actual_line))
    return "(no difference in the JSON values)"


# -- the JSON report ---------------------------------------------------------------------------

def _capabilities_document(capabilities: Capabilities) -> dict[str, Any]:
    ops = [op for op in OPS if op in capabilities.ops] + sorted(set(capabilities.ops) - set(OPS))
    return {"ops": ops, "fitStrategy": capabilities.fit_strategy,
            "variableMaxBytes": capabilities.variable_max_bytes,
            "loneSurrogates": capabilities.lone_surrogates, "numbers": capabilities.numbers}


def _result_document(result: RuleResult, replay_file: str | Path | None,
                     timings: bool = False) -> dict[str, Any]:
    rule = result.rule
    document: dict[str, Any] = {
        "id": rule.id, "level": rule.level, "profile": rule.profile, "op": rule.op,
        "section": rule.section, "title": rule.title, "outcome": result.outcome,
        "note": result.note,
    }
    if result.cause:
        document["cause"] = result.cause
    if timings:
        document["seconds"] = _seconds(result.seconds)
    if result.coverage is not None:
        coverage = result.coverage
        document["coverage"] = {
            "judged": coverage.judged, "skipped": coverage.skipped, "errored": coverage.errored,
            "unanswered": coverage.unanswered, "stopped": coverage.stopped,
        }
        if coverage.limited:
            document["coverage"]["limited"] = coverage.limited
    example = result.counterexample
    if example is not None:
        document["counterexample"] = {
            "op": example.op, "input": example.input, "expected": example.expected,
            "actual": example.actual, "message": example.message, "seed": example.seed,
            "stderr": example.stderr, "kind": example.kind,
        }
        if replay_file is not None:
            document["counterexample"]["replayFile"] = str(replay_file)
    return document


def run_document(report: RunReport) -> dict[str, Any]:
    """What run a report belongs to (the JSON report's ``run``): slices of one run
    (``--shard K/N``) agree on everything here but ``shard``, which is how ``report --merge``
    tells a whole run from a part (:mod:`._shard`)."""
    invocation = report.invocation
    run: dict[str, Any] = {
        "impl": invocation.impl if invocation is not None and invocation.impl is not None
        else str(report.implementation.get("name", "")),
        "suiteVersion": SUITE_VERSION, "specVersion": _spec_version(),
        "protocolVersion": PROTOCOL_VERSION, "seed": report.seed,
        "deterministic": report.deterministic, "effort": report.effort,
        "maxExamples": invocation.max_examples if invocation is not None else None,
        "ops": list(invocation.ops if invocation is not None and invocation.ops is not None
                    else OPS),
        "fitStrategy": report.capabilities.fit_strategy,
        "timeout": invocation.timeout if invocation is not None else None,
        "allowUntested": report.allow_untested,
        "shard": (f"{invocation.shard[0]}/{invocation.shard[1]}"
                  if invocation is not None and invocation.shard is not None else None),
    }
    return {"id": run_id(run), **run}


def _seconds(value: float) -> float:
    """Seconds as every report writes them: milliseconds, never negative."""
    return round(max(value, 0.0), 3)


def report_document(
    report: RunReport, *, replay_files: Mapping[str, str | Path] | None = None,
    timings: bool = False,
) -> dict[str, Any]:
    """The versioned JSON report of a run (``schemas/report.json``).

    ``replay_files`` maps rule ids to the case files :func:`~._replay.save_failures` wrote, so a
    reader can go from a failure to the file that replays it. With ``timings`` every result
    carries ``seconds`` (:attr:`RuleResult.seconds`); without, the report of a deterministic run
    differs from one run to the next only in ``durationSeconds``.
    """
    files = replay_files or {}
    verdict = report.verdict
    return {
        "reportVersion": REPORT_VERSION,
        "specVersion": _spec_version(),
        "suiteVersion": SUITE_VERSION,
        "protocolVersion": PROTOCOL_VERSION,
        "implementation": dict(report.implementation),
        "capabilities": _capabilities_document(report.capabilities),
        "effort": report.effort,
        "seed": report.seed,
        "deterministic": report.deterministic,
        "durationSeconds": _seconds(report.duration),
        "calls": report.calls,
        "totals": dict(verdict.counts),
        "judgedRules": verdict.judged,
        "hypothesisVersion": HYPOTHESIS_VERSION,
        **({"rerun": report.invocation.rerun()} if report.invocation is not None else {}),
        "allowUntested": report.allow_untested,
        "run": run_document(report),
        "answerClasses": {op: dict(met) for op, met in report.classes.items()},
        "conforms": verdict.conforms,
        "verdict": verdict.document(),
        "results": [_result_document(result, files.get(result.rule.id), timings)
                    for result in report.results],
    }


def _spec_version() -> str:
    return str(SPEC_VERSION)


def write_json(
    report: RunReport, path: str | os.PathLike[str], *,
    replay_files: Mapping[str, str | Path] | None = None, timings: bool = False,
) -> None:
    """Write :func:`report_document` as UTF-8 JSON to ``path`` (parent directories created)."""
    _write_text(path, dumps_json(report_document(report, replay_files=replay_files,
                                                 timings=timings), indent=2) + "\n")


# -- the plain-text explanation of one result (JUnit, the pytest plugin) -----------------------

def _replay_command(replay_file: str | Path | None, impl_spec: str | None,
                    invocation: Invocation | None = None) -> str:
    if replay_file is None:
        return ""
    if invocation is not None:
        if impl_spec is not None and invocation.impl is None:
            invocation = replace(invocation, impl=impl_spec)
        return invocation.replay(replay_file)
    impl = shlex.quote(impl_spec) if impl_spec else "'<your implementation>'"
    return f"eventproof replay {shlex.quote(str(replay_file))} --impl {impl}"


def _default_case(implementation: Mapping[str, Any], rule_id: str) -> Path:
    """Where ``eventproof run`` saves a rule's case file unless told otherwise (--state-dir)."""

    return case_path(Path(".eventproof") / "failures",
                     str(implementation.get("name", "implementation")), rule_id)


def _seed_note(seed: int | None, invocation: Invocation | None = None) -> str:
    if invocation is not None:
        shown = "none (derandomized)" if seed is None else str(seed)
        return f"{shown}; rerun with `{invocation.rerun()}`"
    if seed is None:
        return "none (a derandomized run: the same command finds this input again)"
    return f"{seed} (rerun with `eventproof run --random --seed {seed}`)"


def failure_text(
    result: RuleResult, *, replay_file: str | Path | None = None, impl_spec: str | None = None,
    limit: int = _DOCUMENT_LIMIT, invocation: Invocation | None = None,
    cause_shown: bool = True,
) -> str:
    """Everything about one failed (or stale) rule as plain text: what, where, the values, how to
    replay. Each value is cut after ``limit`` characters with a note of its full size. A failure
    that follows from another is its same-cause line alone, as in the console, when the output
    shows that other failure in full (``cause_shown``); else the line and the whole failure."""
    rule = result.rule
    lines = [
        f"{rule.id} ({rule.level}) {result.outcome} — {section_label(rule.section)}: {rule.title}",
        _explanation(result),
    ]
    example = result.counterexample
    where = str(replay_file) if replay_file is not None else "the JSON report (--json)"
    if result.cause and result.outcome in _SHOWN and not cause_shown:
        lines.insert(1, same_cause_line(result))
    if result.cause and result.outcome in _SHOWN and cause_shown:
        # As the console: one line under the failure it follows from, whose input (shrunk for
        # that rule) is the one to read; this one's may not be minimal.
        lines.insert(1, same_cause_line(result))
        command = _replay_command(replay_file, impl_spec, invocation)
        if command:
            lines.append(f"replay: {command}")
    elif example is not None and result.outcome != "xpass":
        lines += [
            "", f"minimal input ({example.op}):", _clip(readable_json(example.input), limit, where),
            "", "expected:", _clip(readable_json(example.expected), limit, where),
            "", "actual:", _clip(readable_json(example.actual), limit, where),
            "", "diff (expected → actual):",
            _clip(answer_diff(example.op, example.expected, example.actual), limit, where),
        ]
        expected_line, actual_line = _line_of(example.expected), _line_of(example.actual)
        if example.op == "project" and expected_line is not None and actual_line is not None:
            shown_expected, shown_actual = window_pair(_visible(expected_line),
                                                       _visible(actual_line), limit)
            lines += ["", "expected line: " + shown_expected, "actual line:   " + shown_actual]
        if example.stderr:
            lines += ["", "stderr of the implementation:", _clip(example.stderr, limit, where)]
        lines += ["", f"seed: {_seed_note(example.seed, invocation)}"]
        command = _replay_command(replay_file, impl_spec, invocation)
        if command:
            lines.append(f"replay: {command}")
    if rule.level == "SHOULD" and result.outcome not in ("xpass", "unstable"):
        lines += ["", "(a SHOULD rule: reported, but it does not decide conformance)"]
    return _printable("\n".join(lines))


# -- JUnit XML ---------------------------------------------------------------------------------

def _first_line(text: str, limit: int = 500) -> str:
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= limit else line[:limit] + "…"


def _properties(report: RunReport) -> list[tuple[str, object]]:
    return [
        *((f"implementation.{key}", value) for key, value in report.implementation.items()
          if isinstance(value, str | int | float | bool)),
        ("seed", "none (deterministic)" if report.seed is None else report.seed),
        ("deterministic", report.deterministic), ("effort", report.effort),
        ("spec-version", _spec_version()), ("suite-version", SUITE_VERSION),
        ("fit-strategy", report.capabilities.fit_strategy),
        ("conforms", report.verdict.conforms), ("exit-code", int(report.verdict.exit_code)),
        ("verdict", report.verdict.line()),
    ]


#: A rule's outcome as JUnit counts it (``untested`` depends on --allow-untested).
_KINDS: dict[str, _junit.Kind] = {
    "pass": "passed", "fail": "failure", "xpass": "failure", "error": "error",
    "crash": "error", "timeout": "error", "unstable": "error", "skip": "skipped",
    "xfail": "skipped"}


def _testcase(result: RuleResult, replay_file: str | Path | None,
              impl_spec: str | None, allow_untested: bool = False,
              invocation: Invocation | None = None) -> _junit.Case:
    rule = result.rule
    outcome = result.outcome
    kind: _junit.Kind = (("skipped" if allow_untested else "failure") if outcome == "untested"
                         else _KINDS.get(outcome, "passed"))
    stderr = result.counterexample.stderr if result.counterexample is not None else ""
    case = _junit.Case(classname=f"eventproof.{rule.op}", name=rule.id,
                       seconds=_seconds(result.seconds), kind=kind, stderr=stderr or "")
    if kind == "passed":
        return case
    if outcome == "skip":
        return replace(case, message=result.note or "skipped")
    text = failure_text(result, replay_file=replay_file, impl_spec=impl_spec,
                        invocation=invocation)
    if outcome == "xfail":
        return replace(case, message=result.note or "expected failure", type="xfail", text=text)
    return replace(case, message=_first_line(_explanation(result)),
                   type=rule.id if outcome == "fail" else outcome, text=text)


def junit_tree(
    report: RunReport, *, replay_files: Mapping[str, str | Path] | None = None,
    impl_spec: str | None = None,
) -> ET.ElementTree[ET.Element]:
    """The JUnit XML document (:mod:`._junit`): one ``<testsuite>`` per operation, one
    ``<testcase>`` per rule.

    ``time`` is in seconds: a testcase's is :attr:`RuleResult.seconds` (the search round that
    settled the rule), a testsuite's the sum of its testcases' (the time spent checking the
    operation), the root's the whole run's (handshake and start-up included).
    """
    files = replay_files or {}
    suites = [_junit.Suite(f"eventproof.{op}", tuple(
        _testcase(result, files.get(result.rule.id), impl_spec, report.allow_untested,
                  report.invocation)
        for result in report.results if result.rule.op == op)) for op in _ops_in(report)]
    return _junit.tree("eventproof", suites, seconds=_seconds(report.duration),
                       properties=_properties(report))


def write_junit(
    report: RunReport, path: str | os.PathLike[str], *,
    replay_files: Mapping[str, str | Path] | None = None, impl_spec: str | None = None,
) -> None:
    """Write :func:`junit_tree` to ``path`` as UTF-8 XML (parent directories created)."""
    _junit.write(path, junit_tree(report, replay_files=replay_files, impl_spec=impl_spec))


# -- Markdown ----------------------------------------------------------------------------------

_fence, _code, _cell = _markdown.fence, _markdown.code, _markdown.cell


def _outcome_table(report: RunReport) -> list[str]:
    rows = []
    for op in _ops_in(report):
        counts = dict.fromkeys(OUTCOMES, 0)
        for result in report.results:
            if result.rule.op == op:
                counts[result.outcome] += 1
        rows.append([op, *(str(counts[o]) for o in OUTCOMES)])
    overall = totals(report)
    rows.append(["**all**", *(f"**{overall[o]}**" for o in OUTCOMES)])
    return _markdown.table(["operation", *OUTCOMES], rows, "l" + "r" * len(OUTCOMES))


def _markdown_failure(result: RuleResult, replay_file: str | Path | None,
                      impl_spec: str | None, implementation: Mapping[str, Any],
                      invocation: Invocation | None = None) -> list[str]:
    rule = result.rule
    where = f"`{replay_file}`" if replay_file is not None else "the JSON report (`--json`)"
    lines = [
        f"### {result.outcome}: {_code(rule.id)} ({rule.level})",
        "",
        f"[{section_label(rule.section)}]({section_url(rule.section)}): {rule.title}",
        "",
    ]
    lines += ["> " + line for line in _printable(_explanation(result)).splitlines()]
    example = result.counterexample
    if example is not None and result.outcome != "xpass":
        lines += [
            "", f"**Minimal input** ({_code(example.op)}):", "",
            _fence(_clip(readable_json(example.input), _DOCUMENT_LIMIT, where), "json"),
            "", "**Expected:**", "",
            _fence(_clip(readable_json(example.expected), _DOCUMENT_LIMIT, where), "json"),
            "", "**Actual:**", "",
            _fence(_clip(readable_json(example.actual), _DOCUMENT_LIMIT, where), "json"),
            "", "**Diff** (expected → actual):", "",
            _fence(_clip(answer_diff(example.op, example.expected, example.actual),
                         _DOCUMENT_LIMIT, where), "diff"),
        ]
        expected_line, actual_line = _line_of(example.expected), _line_of(example.actual)
        if example.op == "project" and expected_line is not None and actual_line is not None:
            lines += ["", "**The lines as written** (expected, then actual):", "",
                      _fence(_clip(_visible(expected_line), _DOCUMENT_LIMIT, where) + "\n"
                             + _clip(_visible(actual_line), _DOCUMENT_LIMIT, where))]
        if example.stderr:
            lines += ["", "**stderr of the implementation:**", "",
                      _fence(_clip(_printable(example.stderr), _DOCUMENT_LIMIT, where))]
        lines += ["", f"**Seed:** {_seed_note(example.seed, invocation)}"]
        if replay_file is not None:
            command = _replay_command(replay_file, impl_spec, invocation)
            lines += ["", f"**Replay:** {_code(command)}"]
        else:
            default = _default_case(implementation, rule.id)
            command = _replay_command(default, impl_spec, invocation)
            lines += ["", f"**Replay:** {_code(command)} (where `eventproof run` saves the "
                          "case by default)"]
    elif result.note and result.note != _explanation(result):
        lines += ["", f"Note: {_printable(result.note)}"]
    return lines


def markdown_summary(
    report: RunReport, *, replay_files: Mapping[str, str | Path] | None = None,
    impl_spec: str | None = None,
) -> str:
    """A Markdown summary: identity and verdict, a table of outcomes, one section per failure."""
    files = replay_files or {}
    run_verdict = report.verdict
    verdict = run_verdict.headline
    # ✅ only for a whole run that conforms; a slice that broke nothing is ⚠️ (checked only part).
    mark = "✅" if verdict == "conforms" else "⚠️" if run_verdict.conforms else "❌"
    seed = "none (deterministic)" if report.seed is None else str(report.seed)
    lines = [
        f"# {mark} eventproof: {_cell(_impl_label(report.implementation))} {verdict}",
        "",
        f"Spec {_spec_version()}, eventproof {SUITE_VERSION}; effort {_code(report.effort)}, "
        f"seed {seed}, {report.calls} calls in {report.duration:.1f} s; "
        f"fit strategy {_code(report.capabilities.fit_strategy)}.",
        "",
        *_outcome_table(report),
        "",
        *_markdown.table(["profile", "status", "rules judged"], (
            [profile.profile, _cell(_profile_status(profile)),
             f"{profile.judged} of {profile.rules}"] for profile in run_verdict.profiles)),
    ]
    failures = _shown_failures(report)
    if failures:
        lines += ["", "## Failures", ""]
        for result in failures:
            lines += _markdown_failure(result, files.get(result.rule.id), impl_spec,
                                       report.implementation, report.invocation)
            followers = _same_cause(report, result)
            if followers:
                lines += ["", f"Same cause ({len(followers)} more rule(s) broken by this "
                          "failure):", "",
                          *(f"- {_code(f.rule.id)} ({f.rule.level}, "
                            f"{section_label(f.rule.section)})" for f in followers)]
            lines.append("")
    expected = [result for result in report.results if result.outcome == "xfail"]
    if expected:
        lines += ["", "## Expected failures", "",
                  *(f"- {_code(result.rule.id)} ({result.rule.level}): "
                    f"{_cell(_printable(_first_line(_explanation(result), 200)))}"
                    for result in expected)]
    limited = limits_line(report)
    if limited:
        lines += ["", _cell(limited)]
    skipped = skips_line(report)
    if skipped:
        lines += ["", _cell(skipped)]
    unjudged = _unjudged_line(report)
    if unjudged:
        lines += ["", _cell(unjudged)]
    lines += ["", f"**Verdict:** {_cell(_verdict_line(report))}", ""]
    return "\n".join(lines)


def write_markdown(
    report: RunReport, path: str | os.PathLike[str], *,
    replay_files: Mapping[str, str | Path] | None = None, impl_spec: str | None = None,
) -> None:
    """Write :func:`markdown_summary` to ``path`` (UTF-8; parent directories created)."""
    _write_text(path, markdown_summary(report, replay_files=replay_files, impl_spec=impl_spec))


# -- the console -------------------------------------------------------------------------------

def _out(console: Console, *items: Text) -> None:
    # On a terminal, lines are kept to its width. Elsewhere (pipes, CI logs, which rich renders
    # 80 columns wide) no newline is inserted, so JSON lines and replay commands stay whole and
    # can be copied.
    console.print(*items, soft_wrap=not console.is_terminal)


_STYLE = {"pass": "green", "fail": "bold red", "error": "bold red", "crash": "bold red",
          "timeout": "bold red", "unstable": "bold red", "untested": "bold magenta",
          "skip": "yellow", "xfail": "yellow", "xpass": "bold red"}


_PROFILE_STYLE = {"conforms": "green", "does not conform": "bold red", "checked only": "yellow",
                  "partly declared": "yellow", "not declared": "yellow", "not checked": "dim"}


def _indented(text: str, indent: str = "    ") -> str:
    return "\n".join(indent + line for line in text.splitlines())


def _diff_text(diff: str) -> Text:
    text = Text()
    for line in diff.splitlines():
        style = ("red" if line.startswith("-") else "green" if line.startswith("+")
                 else "cyan" if line.startswith("@@") else "")
        text.append("    " + line + "\n", style=style)
    text.rstrip()
    return text


def _console_failure(console: Console, result: RuleResult, replay_file: str | Path | None,
                     impl_spec: str | None, verbose: bool,
                     implementation: Mapping[str, Any],
                     invocation: Invocation | None = None) -> None:
    rule = result.rule
    heading = Text()
    heading.append(result.outcome.upper(), style=_STYLE[result.outcome])
    heading.append(f"  {rule.id}  {rule.level}  {section_label(rule.section)}", style="bold")
    if rule.level == "SHOULD":
        heading.append("  (SHOULD: reported, does not decide conformance)", style="dim")
    _out(console, heading)
    _out(console, Text(_indented(_printable(_explanation(result)), "  ")))
    example = result.counterexample
    if example is None or result.outcome == "xpass":
        return
    where = (str(replay_file) if replay_file is not None
             else "the JSON report (eventproof run --json FILE)")
    limit = 10 * _DOCUMENT_LIMIT if verbose else _CONSOLE_LIMIT
    shown = readable_json if verbose else folded_json
    _out(console, Text(f"  minimal input ({example.op}):", style="bold"))
    text = shown(example.input)
    _out(console, Text(_indented(_clip(text, limit, where))))
    if not verbose and text != readable_json(example.input):
        _out(console, Text(f"  (long strings folded; the exact input is in {where}, or "
                           "shown whole with -v)", style="dim"))
    if verbose:
        _out(console, Text("  expected:", style="bold"))
        _out(console, Text(_indented(_clip(readable_json(example.expected), limit, where))))
        _out(console, Text("  actual:", style="bold"))
        _out(console, Text(_indented(_clip(readable_json(example.actual), limit, where))))
    _out(console, Text("  expected → actual:", style="bold"))
    _out(console, _diff_text(_clip(answer_diff(example.op, example.expected, example.actual,
                                               None if verbose else DIFF_WIDTH),
                                   limit, where)))
    expected_line, actual_line = _line_of(example.expected), _line_of(example.actual)
    if example.op == "project" and expected_line is not None and actual_line is not None:
        # Folded around where the lines first differ, at the same place on both: a fold never
        # hides the part that differs.
        shown_expected, shown_actual = window_pair(_visible(expected_line),
                                                   _visible(actual_line),
                                                   limit if verbose else DIFF_WIDTH)
        _out(console, Text(_indented(
            "expected line: " + shown_expected + "\n" + "actual line:   " + shown_actual)))
    if example.stderr:
        tail = example.stderr if verbose else "\n".join(example.stderr.splitlines()[-20:])
        _out(console, Text("  stderr (last lines):" if not verbose else "  stderr:",
                           style="bold"))
        _out(console, Text(_indented(_printable(tail)), style="dim"))
    _out(console, Text(f"  seed: {_seed_note(example.seed, invocation)}"))
    if replay_file is not None:
        _out(console, Text(f"  replay: {_replay_command(replay_file, impl_spec, invocation)}"))
    else:
        default = _default_case(implementation, rule.id)
        command = _replay_command(default, impl_spec, invocation)
        _out(console, Text(f"  replay: {command}  (where eventproof run saves the case by "
                           "default)"))


def _op_line(op: str, results: Iterable[RuleResult]) -> Text:
    counts = dict.fromkeys(OUTCOMES, 0)
    for result in results:
        counts[result.outcome] += 1
    line = Text(f"  {op:<9} {sum(counts.values()):>2} rules ")
    for outcome in OUTCOMES:
        if counts[outcome]:
            line.append(f" {counts[outcome]} {outcome}",
                        style=_STYLE[outcome] if outcome != "pass" else "green")
    return line


def _same_cause(report: RunReport, primary: RuleResult) -> list[RuleResult]:
    """The failures reported as following from ``primary`` (one bug, one failure shown)."""
    return [result for result in report.results
            if result.cause == primary.rule.id and result.outcome in _SHOWN]


def render_console(
    report: RunReport, console: Console, *, verbose: bool = False,
    replay_files: Mapping[str, str | Path] | None = None, impl_spec: str | None = None,
) -> None:
    """Print a compact summary: one line per operation, then each failure, then the verdict.

    Rich drops colours when ``console`` is not a terminal, so CI logs get plain text. With
    ``verbose``, every rule is listed and values are shown in full (up to a generous limit).
    """
    files = replay_files or {}
    seed = "deterministic" if report.seed is None else f"seed {report.seed}"
    _out(console, Text(
        f"eventproof {SUITE_VERSION} (spec {_spec_version()}) checked "
        f"{_impl_label(report.implementation)}: effort {report.effort}, {seed}, "
        f"{report.calls} calls in {report.duration:.1f} s", style="bold"))
    for op in _ops_in(report):
        results = [result for result in report.results if result.rule.op == op]
        _out(console, _op_line(op, results))
        if verbose:
            for result in results:
                line = Text(f"      {result.outcome:<8}", style=_STYLE[result.outcome])
                line.append(f" {result.rule.id} ({result.rule.level})")
                if result.note:
                    line.append(f"  {_printable(_first_line(result.note, 200))}",
                                style="dim")
                _out(console, line)
    profiles = report.verdict.profiles
    if any(profile.status != "conforms" for profile in profiles):
        line = Text("  profiles:")
        for profile in profiles:
            line.append(f"  {profile.profile} ")
            line.append(_profile_status(profile), style=_PROFILE_STYLE[profile.status])
        _out(console, line)
    for result in _shown_failures(report):
        _out(console)
        _console_failure(console, result, files.get(result.rule.id), impl_spec, verbose,
                         report.implementation, report.invocation)
        for follower in _same_cause(report, result):
            words = same_cause_line(follower).removeprefix("same cause: ")
            line = Text("  same cause: ", style="dim")
            line.append(words, style=_STYLE[follower.outcome])
            _out(console, line)
    limited = limits_line(report)
    if limited:
        _out(console)
        _out(console, Text(limited, style="dim"))
    skipped = skips_line(report)
    if skipped:
        _out(console)
        _out(console, Text(skipped, style=_STYLE["untested"]))
    unjudged = _unjudged_line(report)
    if unjudged:
        _out(console)
        _out(console, Text(unjudged, style=_STYLE["untested"]))
    _out(console)
    _out(console, Text(_verdict_line(report), style="bold green" if report.verdict.conforms
                       else "bold red"))
