"""The conformance matrix: one static HTML page over one or many JSON reports, and badges.

``write_matrix(directory, report_paths)`` reads reports written by ``eventproof run --json``
(``schemas/report.json``: a run's report, or the short document of an implementation that could
not be checked) and writes:

- ``index.html``: implementations as columns (headed by their labels: ``--label``, else name and
  version, numbered when still equal), rules as rows grouped by profile and spec section, the
  outcome in each cell, and each profile's status per column. Every verdict, count and status
  shown is the one :func:`~._results.judge_run` gives the report's results, judged again when
  the report is read (a stored verdict that differs is named on the page): the page decides
  nothing of its own. An implementation that
  could not be checked has a column with its error. A cell with a counterexample opens it (the
  message, the minimal input, the diff from the expected to the actual answer, both answers,
  stderr, the seed and the replay command of the report's own run) in one click; checkboxes
  filter the rows by outcome (``?outcomes=fail,error`` in the URL preselects them;
  ``#<panel id>`` opens a panel). The page is one file with
  its CSS and script inline: it loads nothing and works from ``file://``. Without script, a cell's
  link still opens its counterexample (a ``:target`` rule); only the filters need the script.
- ``badges/<implementation>.json``: a shields.io endpoint file per implementation
  (``https://img.shields.io/endpoint?url=<where it is published>``): the verdict's headline and
  the profiles that do not conform in full.

Every value from a report is escaped for HTML; values are shown as JSON with lone surrogates,
line separators and bidirectional controls written as JSON escapes, so a hostile string is shown,
never obeyed. A result may carry a ``coverage`` object (newer reports); its members are shown in
the cell and in full in the counterexample panel.
"""

from __future__ import annotations

import html
import json
import os
import re
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import groupby
from pathlib import Path
from typing import Any

from eventproof.reference import SPEC_VERSION

from . import _style
from ._files import REPORT_BYTES, FileProblem, read_bounded
from ._operations import RULES
from ._reports import (
    OUTCOMES,
    REPORT_VERSION,
    SUITE_VERSION,
    answer_diff,
    readable_json,
    section_label,
    section_url,
)
from ._results import Invocation, RunVerdict, verdict_disagreement, verdict_of_document
from ._versions import OLDER_REPORT_VERSIONS

__all__ = [
    "MatrixError", "badge", "column_labels", "load_report", "matrix_html", "slugs",
    "unchecked_report", "upgrade_report", "write_matrix",
]

#: A cell of a rule the report does not list (the operation was not run).
NOT_RUN = "none"
_OUTCOME_LABEL: dict[str, str] = {**{outcome: str(outcome) for outcome in OUTCOMES},
                                  NOT_RUN: "not run"}
_OUTCOME_COLOURS = _style.OUTCOME_COLOURS
_STATUS_COLOURS = _style.STATUS_COLOURS
_BROKEN = frozenset({"fail", "error", "crash", "timeout", "unstable"})
_REGISTRY_ORDER = {rule.id: index for index, rule in enumerate(RULES)}
_PROFILE_ORDER = {profile: index for index, profile in
                  enumerate(dict.fromkeys(rule.profile for rule in RULES))}
# Characters that may not be shown raw: controls (but LF and TAB), line and paragraph
# separators, lone surrogates and bidirectional overrides. Inside JSON text they only occur in
# strings, where \uXXXX is their escape; in free text the escape is shown as written.
_UNSHOWABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f\x85\u2028\u2029\ud800-\udfff"
                         "\u200e\u200f\u202a-\u202e\u2066-\u2069]")


class MatrixError(Exception):
    """A report that cannot be rendered; the message names the file, the place and the fix."""


# -- reading the reports -----------------------------------------------------------------------

def load_report(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read and check one JSON report; members added by newer reports are allowed."""
    from ._schemas import validator_for

    source = Path(path)
    try:
        text = read_bounded(source, REPORT_BYTES, "a report").decode("utf-8")
    except FileProblem as problem:
        if problem.reason == "no such file":
            raise MatrixError(f"{source}: no such file; give the path of a report written by "
                              "`eventproof run --json FILE`") from None
        raise MatrixError(f"{source}: {problem.reason}. {problem.fix}") from None
    except UnicodeDecodeError as error:
        raise MatrixError(f"{source}: cannot be read as UTF-8 text ({error}); give a report "
                          "written by `eventproof run --json FILE`") from None
    try:
        document = json.loads(text)
    except ValueError as error:
        raise MatrixError(f"{source}: not JSON ({error}); give a report written by "
                          "`eventproof run --json FILE`") from None
    if not isinstance(document, dict):
        raise MatrixError(f"{source}: a report is a JSON object, this is "
                          f"{type(document).__name__}; give a report written by "
                          "`eventproof run --json FILE`")
    version = document.get("reportVersion")
    if type(version) is int and version in OLDER_REPORT_VERSIONS:
        document[OLDER_VERSION] = f"{source}: {upgrade_report(document)}"
        version = document["reportVersion"]
    if version != REPORT_VERSION:
        raise MatrixError(f"{source}: $.reportVersion is {json.dumps(version)}; this eventproof "
                          f"({SUITE_VERSION}) renders report version {REPORT_VERSION}. Render it "
                          "with the eventproof version that wrote it (its $.suiteVersion), or "
                          "rerun the check with this one")
    # The shape is told by its members, so that a broken report is named against its own shape
    # (an unchecked implementation's document has no results).
    shape = "checked" if "results" in document or "verdict" not in document else "unchecked"
    issues = [error for error in validator_for(f"report.json#/$defs/{shape}").iter_errors(
        document) if error.validator != "additionalProperties"]
    if issues:
        first = min(issues, key=lambda error: len(error.absolute_path))
        raise MatrixError(f"{source}: {first.json_path}: {first.message} (schemas/report.json); "
                          "give a report written by `eventproof run --json FILE`, unedited")
    # The stored verdict is never restated: the results are judged again, by the one judge,
    # and a report whose stored verdict is not that one says so.
    judged = verdict_of_document(document)
    disagreement = verdict_disagreement(document, judged)
    document["verdict"] = judged.document()
    if disagreement:
        document[DISAGREEMENT] = f"{source}: {disagreement}"
    return document


#: The member :func:`load_report` adds to a report whose stored verdict is not its results'.
DISAGREEMENT = "eventproof:storedVerdictDisagrees"
#: The member :func:`load_report` adds to a report of an older version: what was read as what.
OLDER_VERSION = "eventproof:readFromOlderVersion"


def upgrade_report(document: dict[str, Any]) -> str:
    """Make ``document``, a report of one of :data:`OLDER_REPORT_VERSIONS`, one of
    :data:`REPORT_VERSION` in place (each member it names otherwise renamed, at the top level and
    in ``run``, and its ``rerun`` command spelt as this kit spells it); the one-line notice that
    says so."""
    version = document["reportVersion"]
    renamed: list[tuple[str, str]] = []
    for old, new in OLDER_REPORT_VERSIONS[version]:
        for where, part in (("$", document), ("$.run", document.get("run"))):
            if isinstance(part, dict) and old in part and new not in part:
                part[new] = part.pop(old)
                renamed.append((f"{where}.{old}", f"{where}.{new}"))
    rerun = document.get("rerun")
    if isinstance(rerun, str):
        document["rerun"] = re.sub(r"(?<=\s)--(?:examples|budget)(?=\s)", "--effort", rerun)
    document["reportVersion"] = REPORT_VERSION
    fields = f" ({', '.join(f'{old} as {new}' for old, new in renamed)})" if renamed else ""
    return (f"report version {version}: read as version {REPORT_VERSION}{fields}; rerun the "
            "check with this eventproof to write the current version")


def unchecked_report(command: str, verdict: RunVerdict) -> dict[str, Any]:
    """The JSON document of an implementation that could not be checked (schemas/report.json,
    ``unchecked``): how it was started and its verdict, so the page gives it a column."""
    return {"reportVersion": REPORT_VERSION, "suiteVersion": SUITE_VERSION,
            "implementation": {"command": command}, "verdict": verdict.document()}


# -- the model of the page ---------------------------------------------------------------------

@dataclass
class _Column:
    index: int
    slug: str
    source: Path
    report: dict[str, Any]
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: What the column is headed with: ``--label``, or name and version (numbered when equal).
    label: str = ""

    @property
    def implementation(self) -> Mapping[str, Any]:
        identity = self.report["implementation"]
        return identity if isinstance(identity, Mapping) else {}

    @property
    def unchecked(self) -> bool:
        """Whether the implementation could not be checked (the document has no results)."""
        return "results" not in self.report

    @property
    def name(self) -> str:
        if self.unchecked:
            return str(self.implementation.get("command", "implementation"))
        return str(self.implementation.get("name", "implementation"))

    @property
    def version(self) -> str:
        return str(self.implementation.get("version", ""))

    @property
    def verdict(self) -> Mapping[str, Any]:
        """The report's verdict (schemas/report.json ``verdict``), rendered as it is."""
        verdict: Mapping[str, Any] = self.report["verdict"]
        return verdict


@dataclass(frozen=True)
class _Row:
    id: str
    level: str
    profile: str
    op: str
    section: str
    title: str


def _slug(name: str) -> str:
    return _style.slug(name) or "implementation"


def slugs(names: Iterable[str]) -> list[str]:
    """A file-name-safe name for each implementation name, in order, each one distinct: the
    second ``my-port`` is ``my-port-2``. Badges (``badges/<slug>.json``) and the reports of
    ``eventproof run --reports DIR`` are named so."""
    taken: set[str] = set()
    named = []
    for name in names:
        base = _slug(name)
        slug, number = base, 2
        while slug in taken:
            slug, number = f"{base}-{number}", number + 1
        taken.add(slug)
        named.append(slug)
    return named


def column_labels(documents: Sequence[Mapping[str, Any]],
                  labels: Sequence[str] | None = None) -> list[str]:
    """The heading of each report's column: its ``--label``, else the implementation's name and
    version (an unchecked one's command); a heading equal to an earlier one gets `` (2)``,
    `` (3)`` …, so no two columns look alike."""
    if labels is not None and len(labels) != len(documents):
        raise MatrixError(f"{len(labels)} label(s) for {len(documents)} report(s); give one "
                          "--label per report, in the same order, or none")
    wanted = []
    for index, document in enumerate(documents):
        if labels is not None:
            wanted.append(labels[index].strip())
            continue
        identity = document.get("implementation")
        identity = identity if isinstance(identity, Mapping) else {}
        if "results" not in document:
            wanted.append(str(identity.get("command", "implementation")))
        else:
            wanted.append(" ".join(str(identity[key]) for key in ("name", "version")
                                   if identity.get(key)) or "implementation")
    blank = [index + 1 for index, label in enumerate(wanted) if not label]
    if blank:
        raise MatrixError(f"label {blank[0]} is empty; give every column a name to be told "
                          "apart by")
    shown: list[str] = []
    for label in wanted:
        unique, number = label, 2
        while unique in shown:
            unique, number = f"{label} ({number})", number + 1
        shown.append(unique)
    return shown


def _columns(reports: Sequence[tuple[Path, dict[str, Any]]],
             labels: Sequence[str] | None = None) -> list[_Column]:
    columns = [_Column(index=index, slug="", source=source, report=report)
               for index, (source, report) in enumerate(reports)]
    headings = column_labels([report for _, report in reports], labels)
    names = headings if labels is not None else [column.name for column in columns]
    for column, slug, heading in zip(columns, slugs(names), headings, strict=True):
        column.slug = slug
        column.label = heading
        column.results = {str(result["id"]): result
                          for result in column.report.get("results", [])}
    return columns


def _section_key(section: str) -> tuple[str, str]:
    """``selection.md#3.1`` is shown under ``selection.md`` §3."""
    file, _, number = section.partition("#")
    return file, number.split(".")[0]


def _rows(columns: Sequence[_Column]) -> list[_Row]:
    rows: dict[str, _Row] = {}
    for column in columns:
        for rule_id, result in column.results.items():
            rows.setdefault(rule_id, _Row(
                id=rule_id, level=str(result["level"]), profile=str(result["profile"]),
                op=str(result["op"]), section=str(result["section"]),
                title=str(result["title"])))
    unknown = len(_REGISTRY_ORDER)

    def order(row: _Row) -> tuple[int, str, str, int, int, str]:
        file, number = _section_key(row.section)
        return (_PROFILE_ORDER.get(row.profile, len(_PROFILE_ORDER)), row.profile, file,
                int(number) if number.isdigit() else 1 << 30,
                _REGISTRY_ORDER.get(row.id, unknown), row.id)

    return sorted(rows.values(), key=order)


# -- text --------------------------------------------------------------------------------------

def _shown(text: str) -> str:
    """Text with every character that may not be shown raw written as a ``\\uXXXX`` escape."""
    return _UNSHOWABLE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _e(text: object) -> str:
    """Escaped for HTML text and attribute values alike."""
    return html.escape(_shown(str(text)), quote=True)


def _json(value: Any) -> str:
    return _shown(readable_json(value, width=100))


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _label(column: _Column) -> str:
    return column.label


# -- badges ------------------------------------------------------------------------------------

def _profile_notes(verdict: Mapping[str, Any]) -> list[str]:
    """``budget not declared``, ``wire does not conform`` …: each profile not conforming in
    full, with its status as the verdict states it."""
    scope = verdict.get("scope") or {}
    part = ([f"checked only {scope['checkedRules']} of {scope['rules']} rules"]
            if scope and not scope.get("whole", True) else [])
    return part + [f"{profile['profile']} {profile['status']}"
                   for profile in verdict.get("profiles", []) if profile["status"] != "conforms"]


def badge(report: Mapping[str, Any]) -> dict[str, Any]:
    """The shields.io endpoint document for one report: the verdict's headline, and each
    profile that does not conform in full (``conforms (budget not declared)``), in words and
    colour. It restates ``report["verdict"]`` (judged again from the results by
    :func:`load_report`); it decides nothing."""
    verdict = report["verdict"]
    headline = str(verdict["headline"])
    notes = _profile_notes(verdict)
    label = (f"eventproof spec {report['specVersion']}" if "specVersion" in report
             else "eventproof")
    colour = {"conforms": "brightgreen" if not notes else "yellowgreen",
              "does not conform": "red", "interrupted": "orange",
              "terminated": "orange", "stale expectations": "orange",
              "checked only part": "yellow"}.get(headline, "lightgrey")
    message = headline + (f" ({', '.join(notes)})" if notes else "")
    return {"schemaVersion": 1, "label": label, "message": message, "color": colour}


# -- rendering ---------------------------------------------------------------------------------

def _pill(outcome: str, extra: str = "") -> str:
    return f'<span class="pill o-{outcome}"{extra}>{_e(_OUTCOME_LABEL[outcome])}</span>'


def _coverage_items(coverage: Any) -> list[tuple[str, str]]:
    if not isinstance(coverage, Mapping):
        return [("coverage", _json(coverage))]
    items = []
    for key, value in coverage.items():
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            items.append((str(key), _json(value)))
        elif isinstance(value, float):
            items.append((str(key), f"{value:.3g}"))
        else:
            items.append((str(key), str(value)))
    return items


def _invocation(rerun: str) -> Invocation | None:
    """The settings a replay needs (``--impl``, ``--shell``, ``--timeout``), read back from a
    report's ``rerun`` command; None when it names no implementation (a run of an object in
    code, which no command can start)."""
    try:
        words = shlex.split(rerun)
    except ValueError:
        return None
    impl, shell, timeout = None, False, 10.0
    for index, word in enumerate(words):
        following = words[index + 1] if index + 1 < len(words) else None
        if word == "--impl" and following is not None:
            impl = following
        elif word == "--shell":
            shell = True
        elif word == "--timeout" and following is not None:
            try:
                timeout = float(following)
            except ValueError:
                return None
    if impl is None or impl.startswith("<"):
        return None
    return Invocation(impl=impl, use_shell=shell, timeout=timeout)


def _replay_command(column: _Column, row: _Row, example: Mapping[str, Any]) -> tuple[str, str]:
    """The command that replays a counterexample, and a note on it ("" when it needs none):
    the case file the run saved (``replayFile``) against the implementation of the report's
    ``rerun``."""
    from ._replay import case_path

    saved = example.get("replayFile")
    replay = str(saved or case_path(Path(".eventproof") / "failures", column.name, row.id))
    note = "" if saved else "where `eventproof run` saves the case by default"
    invocation = _invocation(str(column.report.get("rerun", "")))
    if invocation is None:
        return (f"eventproof replay {shlex.quote(replay)}",
                "the report does not say how the implementation is started (it was checked "
                "from code): add --impl and the command or python:MODULE:ATTR that starts it"
                + (f"; {note}" if note else ""))
    return invocation.replay(replay), note


def _diff_html(diff: str) -> str:
    lines = []
    for line in _shown(diff).splitlines():
        kind = ("del" if line.startswith("-") and not line.startswith("---")
                else "add" if line.startswith("+") and not line.startswith("+++")
                else "hunk" if line.startswith("@@") else "ctx")
        lines.append(f'<span class="d-{kind}">{html.escape(line, quote=True)}</span>')
    return "".join(lines)  # each line is a block: copied text keeps its line breaks


def _block(summary: str, body: str, *, open_: bool = False, pre_class: str = "") -> str:
    cls = f' class="{pre_class}"' if pre_class else ""
    return (f"<details{' open' if open_ else ''}><summary>{_e(summary)}</summary>"
            f"<pre{cls}>{body}</pre></details>")


def _line_of(value: Any) -> str | None:
    if isinstance(value, Mapping) and set(value) == {"line"} and isinstance(value["line"], str):
        return value["line"]
    return None


def _panel(panel_id: str, column: _Column, row: _Row, result: Mapping[str, Any]) -> str:
    outcome = str(result["outcome"])
    example = result.get("counterexample")
    parts = [
        f'<dialog class="cx" id="{panel_id}" aria-labelledby="{panel_id}-h">',
        '<a class="backdrop" href="#_" aria-hidden="true" tabindex="-1"></a>',
        '<article class="panel">',
        '<header><div>',
        f'<h2 id="{panel_id}-h"><code>{_e(row.id)}</code> {_pill(outcome)}</h2>',
        f'<p class="sub">{_e(_label(column))} · {_e(row.level)} · '
        f'<a href="{_e(section_url(row.section))}">{_e(section_label(row.section))}</a></p>',
        f'<p class="title">{_e(row.title)}</p>',
        '</div><a class="close" href="#_" data-close aria-label="Close">×</a></header>',
    ]
    message = example.get("message") if isinstance(example, Mapping) else None
    if message:
        parts.append(f'<p class="message">{_e(message)}</p>')
    note = str(result.get("note") or "")
    if note and note != message:
        parts.append(f'<p class="note">{_e(note)}</p>')
    if isinstance(example, Mapping) and outcome != "xpass":
        op = str(example.get("op", row.op))
        expected, actual = example.get("expected"), example.get("actual")
        parts.append(_block(f"Minimal input ({op})", html.escape(_json(example.get("input"))),
                            open_=True))
        parts.append(_block("Diff, expected → actual",
                            _diff_html(answer_diff(op, expected, actual)), open_=True,
                            pre_class="diff"))
        parts.append(_block("Expected (the reference)", html.escape(_json(expected))))
        parts.append(_block("Actual (the implementation)", html.escape(_json(actual))))
        expected_line, actual_line = _line_of(expected), _line_of(actual)
        if op == "project" and expected_line is not None and actual_line is not None:
            parts.append(_block("The lines as written, expected then actual",
                                _e(expected_line) + "\n" + _e(actual_line)))
        stderr = str(example.get("stderr") or "")
        if stderr:
            parts.append(_block("stderr of the implementation", _e(stderr)))
        seed = example.get("seed")
        seed_text = ("none: a derandomized run finds this input again with the same command"
                     if seed is None else f"{seed} (rerun with `eventproof run --random --seed "
                     f"{seed}`)")
        parts.append(f'<p class="seed"><b>Seed</b> {_e(seed_text)}</p>')
        command, replay_note = _replay_command(column, row, example)
        parts.append('<div class="replay"><b>Replay</b> '
                     f'<code class="cmd">{_e(command)}</code>'
                     '<button type="button" class="copy" data-copy>Copy</button></div>')
        if replay_note:
            parts.append(f'<p class="meta">{_e(replay_note)}</p>')
    coverage = result.get("coverage")
    if coverage is not None:
        rows = "".join(f"<tr><th>{_e(key)}</th><td>{_e(value)}</td></tr>"
                       for key, value in _coverage_items(coverage))
        parts.append(f'<table class="coverage"><caption>Coverage</caption>{rows}</table>')
    parts.append("</article></dialog>")
    return "".join(parts)


def _cell(column: _Column, row: _Row, panels: list[str]) -> tuple[str, str]:
    result = column.results.get(row.id)
    if result is None:
        why = ("the implementation could not be checked" if column.unchecked
               else "not in this report: its operation was not run")
        not_run = _pill(NOT_RUN, f' title="{why}"')
        return NOT_RUN, f'<td class="cell" data-outcome="{NOT_RUN}">{not_run}</td>'
    outcome = str(result["outcome"])
    detail = result.get("counterexample") is not None or (
        outcome != "pass" and bool(result.get("note"))) or result.get("coverage") is not None
    tip = _e(_first_line(str((result.get("counterexample") or {}).get("message")
                             or result.get("note") or "")))
    title = f' title="{tip}"' if tip else ""
    if detail:
        panel_id = f"cx-{column.index}-{_slug(row.id)}"
        panels.append(_panel(panel_id, column, row, result))
        inner = (f'<a class="pill o-{outcome} open" href="#{panel_id}" data-open="{panel_id}"'
                 f'{title}>{_e(_OUTCOME_LABEL[outcome])}</a>')
    else:
        inner = _pill(outcome, title)
    coverage = result.get("coverage")
    if coverage is not None:
        shown = " · ".join(f"{key} {value}" for key, value in _coverage_items(coverage)[:2])
        inner += f'<span class="cov">{_e(shown)}</span>'
    return outcome, f'<td class="cell" data-outcome="{outcome}">{inner}</td>'


def _first_line(text: str, limit: int = 300) -> str:
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= limit else line[:limit] + "…"


def _status(status: str, detail: str = "") -> str:
    """A verdict headline or profile status, styled by its name."""
    title = f' title="{_e(detail)}"' if detail else ""
    return f'<span class="status s-{_slug(status)}"{title}>{_e(status)}</span>'


def _profile_cell(verdict: Mapping[str, Any], profile: str) -> str:
    found = next((entry for entry in verdict.get("profiles", []) if entry["profile"] == profile),
                 None)
    if found is None:
        status = str(verdict["headline"]) if verdict.get("error") else "not checked"
        return f'<td class="cell pcell" data-status="{_e(status)}">{_status(status)}</td>'
    status = str(found["status"])
    detail = ""
    if status == "partly declared":
        detail = (f"{', '.join(found['declared'])} checked; {', '.join(found['undeclared'])} "
                  "not declared")
    elif status == "not declared":
        detail = ", ".join(found["undeclared"])
    elif found["unchecked"] and status != "not checked":
        detail = f"{', '.join(found['unchecked'])} not checked in this run"
    judged = (f'<span class="cov">{int(found["judgedRules"])} of {int(found["rules"])} rules '
              "judged</span>") if status != "not checked" else ""
    shown = f'<span class="cov">{_e(detail)}</span>' if detail else ""
    return (f'<td class="cell pcell" data-status="{_e(status)}">{_status(status)}{shown}'
            f"{judged}</td>")


def _profile_rows(columns: Sequence[_Column]) -> str:
    """Each profile's status per column, as each report's verdict states it."""
    profiles = list(dict.fromkeys(
        [str(entry["profile"]) for column in columns
         for entry in column.verdict.get("profiles", [])]))
    if not profiles:
        return ""
    rows = "".join(
        f'<tr class="profile-row"><th scope="row"><span class="profile">{_e(profile)}</span>'
        "profile</th>"
        + "".join(_profile_cell(column.verdict, profile) for column in columns) + "</tr>"
        for profile in profiles)
    return f'<tbody class="profiles">{rows}</tbody>'


def _card(column: _Column, badge_href: str) -> str:
    report = column.report
    verdict = column.verdict
    headline = str(verdict["headline"])
    counts_of = verdict["counts"]
    state = "ok" if verdict["conforms"] else "bad"
    head = (f'<section class="card {state} h-{_slug(headline)}" aria-label="{_e(_label(column))}"'
            f' data-headline="{_e(headline)}" data-exit-code="{int(verdict["exitCode"])}">'
            f'<h3>{_e(_label(column))}</h3>'
            f'<p class="verdict">{"✓ " if verdict["conforms"] else "✗ "}{_e(headline)}'
            f' <span class="exit">exit code {int(verdict["exitCode"])}</span></p>')
    if DISAGREEMENT in report:
        head += f'<p class="disagrees">{_e(report[DISAGREEMENT])}</p>'
    if column.unchecked:
        return (head + f'<pre class="error">{_e(verdict.get("error", ""))}</pre>'
                f'<p class="meta">--impl <code>{_e(column.name)}</code></p>'
                f'<p class="meta">eventproof {_e(report["suiteVersion"])} · '
                f'<a href="{_e(badge_href)}">badge</a> · '
                f'<span title="{_e(column.source)}">{_e(column.source.name)}</span></p>'
                "</section>")
    identity = column.implementation
    counted = sum(int(counts_of.get(outcome, 0)) for outcome in OUTCOMES) or 1
    bar = "".join(
        f'<span class="o-{outcome}" style="flex-grow:{int(counts_of[outcome])}" '
        f'title="{int(counts_of[outcome])} {outcome}"></span>'
        for outcome in OUTCOMES if int(counts_of.get(outcome, 0)))
    counts = " ".join(f'<span class="count" data-outcome="{outcome}" '
                      f'data-count="{int(counts_of[outcome])}">{_pill(outcome)} '
                      f'{int(counts_of[outcome])}</span>'
                      for outcome in OUTCOMES if int(counts_of.get(outcome, 0)))
    profiles = "".join(
        f'<li data-profile="{_e(entry["profile"])}" data-status="{_e(entry["status"])}">'
        f'<span class="profile">{_e(entry["profile"])}</span> {_status(str(entry["status"]))}'
        "</li>" for entry in verdict.get("profiles", []))
    language = identity.get("language")
    homepage = identity.get("homepage")
    name = _e(column.name)
    if isinstance(homepage, str) and homepage.startswith(("https://", "http://")):
        name = f'<a href="{_e(homepage)}">{name}</a>'
    seed = "deterministic" if report["seed"] is None else f"seed {report['seed']}"
    capabilities = report["capabilities"]
    return (
        head
        + f'<p class="line">{_e(verdict["line"])}</p>'
        f'<div class="bar" role="img" aria-label="{counted} rules">{bar}</div>'
        f'<p class="counts" data-judged="{int(verdict["judgedRules"])}" '
        f'data-rules="{int(verdict["rules"])}">{counts}</p>'
        f'<ul class="profiles">{profiles}</ul>'
        + f'<p class="meta">{name} <span class="ver">{_e(column.version)}</span> · '
        f'{_e(language or "language not stated")} · '
        f'fit {_e(capabilities["fitStrategy"])} · effort {_e(report["effort"])} · {_e(seed)}'
        f' · {int(report["calls"])} calls in {float(report["durationSeconds"]):.1f} s</p>'
        f'<p class="meta">eventproof {_e(report["suiteVersion"])}, spec '
        f'{_e(report["specVersion"])} · <a href="{_e(badge_href)}">badge</a> · '
        f'<span title="{_e(column.source)}">{_e(column.source.name)}</span></p>'
        "</section>")


def _headline_counts(columns: Sequence[_Column]) -> str:
    """``1 of 4 implementations conform (2 does not conform, 1 could not be checked)``: every
    column counted by its report's verdict."""
    conforming = sum(1 for column in columns if column.verdict["conforms"])
    others: dict[str, int] = {}
    for column in columns:
        if not column.verdict["conforms"]:
            headline = str(column.verdict["headline"])
            others[headline] = others.get(headline, 0) + 1
    rest = ", ".join(f"{count} {headline}" for headline, count in others.items())
    return (f"{conforming} of {_plural(len(columns), 'implementation')} conform"
            + (f" ({rest})" if rest else ""))


def matrix_html(reports: Sequence[tuple[Path, dict[str, Any]]], *,
                title: str = "eventproof conformance matrix",
                badge_paths: Sequence[str] | None = None,
                labels: Sequence[str] | None = None) -> str:
    """The page for ``reports`` (``(source, document)`` pairs, documents as :func:`load_report`
    returns them), its columns headed by ``labels`` (see :func:`column_labels`)."""
    if not reports:
        raise MatrixError("no report to render; give at least one report written by "
                          "`eventproof run --json FILE`")
    columns = _columns(reports, labels)
    hrefs = list(badge_paths or [f"badges/{column.slug}.json" for column in columns])
    rows = _rows(columns)
    panels: list[str] = []
    groups: list[str] = []
    seen: dict[str, int] = dict.fromkeys([*OUTCOMES, NOT_RUN], 0)
    for (profile, file, number), members in groupby(
            rows, key=lambda row: (row.profile, *_section_key(row.section))):
        section = f"{file}#{number}" if number else file
        body = [
            '<tbody class="group">'
            f'<tr class="head"><th colspan="{len(columns) + 1}" scope="rowgroup">'
            f'<span class="profile">{_e(profile)}</span> '
            f'<a href="{_e(section_url(section))}">{_e(section_label(section))}</a></th></tr>']
        for row in members:
            outcomes, cells = [], []
            for column in columns:
                outcome, cell = _cell(column, row, panels)
                outcomes.append(outcome)
                seen[outcome] += 1
                cells.append(cell)
            search = " ".join([row.id, row.title, row.section, row.op]).lower()
            should = ' <span class="should">SHOULD</span>' if row.level == "SHOULD" else ""
            body.append(
                f'<tr class="rule" data-outcomes="{" ".join(sorted(set(outcomes)))}" '
                f'data-uniform="{int(len(set(outcomes)) == 1)}" data-search="{_e(search)}">'
                f'<th scope="row" class="rule-id"><code>{_e(row.id)}</code>{should}'
                f' <a class="sec" href="{_e(section_url(row.section))}">'
                f"§{_e(row.section.partition('#')[2])}</a>"
                f'<span class="rule-title">{_e(row.title)}</span></th>{"".join(cells)}</tr>')
        body.append("</tbody>")
        groups.append("".join(body))

    filters = "".join(
        f'<label class="filter"><input type="checkbox" data-filter value="{outcome}" checked>'
        f'{_pill(outcome)} <span class="n">{count}</span></label>'
        for outcome, count in seen.items() if count)
    header_cells = "".join(
        f'<th scope="col" class="impl {"ok" if column.verdict["conforms"] else "bad"}" '
        f'data-headline="{_e(column.verdict["headline"])}">'
        f'<span class="impl-name">{_e(_label(column))}</span>'
        f'<span class="impl-ver">{_status(str(column.verdict["headline"]))}</span></th>'
        for column in columns)
    cards = "".join(_card(column, href) for column, href in zip(columns, hrefs, strict=True))
    specs = sorted({str(column.report["specVersion"]) for column in columns
                    if "specVersion" in column.report})
    generated = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return _PAGE.format(
        title=_e(title),
        summary=_e(f"{_headline_counts(columns)} · {len(rows)} rules · spec "
                   f"{', '.join(specs) or SPEC_VERSION} · rendered by eventproof "
                   f"{SUITE_VERSION} (spec {SPEC_VERSION}), {generated}"),
        cards=cards, filters=filters, header_cells=header_cells,
        groups=_profile_rows(columns) + "".join(groups),
        panels="".join(panels), style=_style.STYLE, script=_SCRIPT, columns=len(columns) + 1,
    )


def write_matrix(directory: str | os.PathLike[str],
                 report_paths: Iterable[str | os.PathLike[str]], *,
                 title: str = "eventproof conformance matrix",
                 labels: Sequence[str] | None = None,
                 page_name: str = "index.html",
                 on_note: Callable[[str], None] | None = None) -> list[Path]:
    """Write ``index.html`` (or ``page_name``) and ``badges/<implementation>.json`` for the
    reports into ``directory`` (created if need be); return the files written, the page first.
    ``labels`` head the columns, one per report in order (default: name and version).
    ``on_note`` hears, for each report whose stored verdict is not the one its results give,
    what differs."""
    sources = [Path(path) for path in report_paths]
    reports = [(source, load_report(source)) for source in sources]
    if not reports:
        raise MatrixError("no report to render; give at least one report written by "
                          "`eventproof run --json FILE`")
    target = Path(directory)
    if target.exists() and not target.is_dir():
        raise MatrixError(f"{target}: exists and is not a directory; give a directory for "
                          "the page and its badges")
    for _source, report in reports:
        for member in (OLDER_VERSION, DISAGREEMENT):
            if member in report and on_note is not None:
                on_note(str(report[member]))
    columns = _columns(reports, labels)
    badge_names = [f"badges/{column.slug}.json" for column in columns]
    page = target / page_name
    if page.is_dir():
        raise MatrixError(f"{page}: is a directory; give the directory to write {page_name} "
                          "into, or an HTML file name")
    (target / "badges").mkdir(parents=True, exist_ok=True)
    page.write_text(matrix_html(reports, title=title, badge_paths=badge_names, labels=labels),
                    encoding="utf-8", newline="\n")
    written = [page]
    for (_, report), name in zip(reports, badge_names, strict=True):
        path = target / name
        path.write_text(json.dumps(badge(report), ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(path)
    return written


# -- the page's frame, style and script ---------------------------------------------------------


_SCRIPT = """
(function () {
  "use strict";
  var boxes = Array.prototype.slice.call(document.querySelectorAll("input[data-filter]"));
  var differ = document.getElementById("differ");
  var search = document.getElementById("search");
  var shown = document.getElementById("shown");
  var rows = Array.prototype.slice.call(document.querySelectorAll("tr.rule"));
  function apply() {
    var on = {};
    boxes.forEach(function (box) { on[box.value] = box.checked; });
    var query = search.value.trim().toLowerCase();
    var visible = 0;
    rows.forEach(function (row) {
      var show = row.getAttribute("data-outcomes").split(" ").some(function (o) {
        return on[o];
      });
      if (differ.checked && row.getAttribute("data-uniform") === "1") show = false;
      if (query && row.getAttribute("data-search").indexOf(query) < 0) show = false;
      row.hidden = !show;
      if (show) visible += 1;
    });
    document.querySelectorAll("tbody.group").forEach(function (group) {
      group.hidden = !group.querySelector("tr.rule:not([hidden])");
    });
    shown.textContent = visible + " of " + rows.length + " rules shown";
  }
  boxes.forEach(function (box) { box.addEventListener("change", apply); });
  differ.addEventListener("change", apply);
  search.addEventListener("input", apply);
  document.getElementById("failures").addEventListener("click", function () {
    boxes.forEach(function (box) {
      box.checked = ["pass", "skip", "xfail", "none"].indexOf(box.value) < 0;
    });
    apply();
  });
  document.getElementById("everything").addEventListener("click", function () {
    boxes.forEach(function (box) { box.checked = true; });
    differ.checked = false;
    search.value = "";
    apply();
  });
  function open(id) {
    var dialog = document.getElementById(id);
    if (!dialog || !dialog.showModal) return false;
    if (!dialog.open) dialog.showModal();
    history.replaceState(null, "", "#" + id);
    return true;
  }
  document.addEventListener("click", function (event) {
    var opener = event.target.closest("[data-open]");
    if (opener && open(opener.getAttribute("data-open"))) { event.preventDefault(); return; }
    var closer = event.target.closest("[data-close], .backdrop");
    var dialog = event.target.closest("dialog");
    if (dialog && (closer || event.target === dialog)) {
      event.preventDefault();
      dialog.close();
      return;
    }
    var copy = event.target.closest("[data-copy]");
    if (copy) {
      var text = copy.parentNode.querySelector(".cmd").textContent;
      var done = function () { copy.textContent = "Copied"; };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(done);
      } else {
        var range = document.createRange();
        range.selectNodeContents(copy.parentNode.querySelector(".cmd"));
        var selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        try { document.execCommand("copy"); done(); } catch (e) { /* selected for the user */ }
      }
    }
  });
  document.querySelectorAll("dialog.cx").forEach(function (dialog) {
    dialog.addEventListener("close", function () {
      history.replaceState(null, "", location.pathname + location.search);
    });
  });
  // ?outcomes=fail,error preselects the filters, so a link can show only the problems.
  var preset = /[?&]outcomes=([^&]*)/.exec(location.search);
  if (preset) {
    var wanted = decodeURIComponent(preset[1]).split(",");
    boxes.forEach(function (box) { box.checked = wanted.indexOf(box.value) >= 0; });
  }
  if (location.hash.length > 1) open(decodeURIComponent(location.hash.slice(1)));
  apply();
})();
"""

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="eventproof">
<title>{title}</title>
<script>document.documentElement.className = "js";</script>
<style>{style}</style>
</head>
<body>
<header class="top"><h1>{title}</h1><p>{summary}</p></header>
<main>
<div class="cards">{cards}</div>
<div class="toolbar" role="group" aria-label="Filters">
<input type="search" id="search" placeholder="Filter by rule id, title or section"
 aria-label="Filter by rule id, title or section">
<span class="lbl">Show rules with</span>{filters}
<label class="filter"><input type="checkbox" id="differ"> only where implementations differ</label>
<button type="button" class="copy" id="failures">Only problems</button>
<button type="button" class="copy" id="everything">Everything</button>
<span class="shown" id="shown"></span>
</div>
<div class="wrap">
<table class="matrix">
<thead><tr><th scope="col">Rule</th>{header_cells}</tr></thead>
{groups}
</table>
</div>
<footer>Click an outcome with › to see its counterexample, diff and replay command. Each
implementation's badge is a shields.io endpoint file: publish it and use
<code>https://img.shields.io/endpoint?url=&lt;its URL&gt;</code>.</footer>
</main>
{panels}
<script>{script}</script>
</body>
</html>
"""
