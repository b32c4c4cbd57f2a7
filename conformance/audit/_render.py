"""An audit's report in every form: the console table, the JSON document
(``schemas/audit-report.json``), JUnit XML, Markdown and an HTML page in the conformance
matrix's style, with a plot of bytes along each log by event type."""

from __future__ import annotations

import html
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from .. import _junit, _markdown, _style
from .._files import write_text
from .._json import pretty_json
from ._audit import AuditReport

#: The version of the JSON report's shape (schemas/audit-report.json).
AUDIT_REPORT_VERSION = 1
_MIB = 1024 * 1024


def _size(count: int) -> str:
    if count >= _MIB:
        return f"{count / _MIB:,.3f} MiB"
    if count >= 1024:
        return f"{count / 1024:,.1f} KiB"
    return f"{count:,} B"


def _verdict(report: AuditReport) -> str:
    if report.errors:
        return "could not be audited"
    if report.lines == 0:
        return "nothing to audit"
    return report.verdict.headline


# -- JSON ----------------------------------------------------------------------------------------


def document(report: AuditReport) -> dict[str, Any]:
    """The JSON report (schemas/audit-report.json)."""
    from importlib.metadata import version

    settings = report.settings
    rules = []
    for cited in report.rules():
        tally = report.tallies.by_rule.get(cited.id)
        rules.append({"id": cited.id, "level": cited.level, "section": cited.section,
                      "title": cited.title, "outcome": report.outcome(cited),
                      "judged": tally.judged if tally else 0,
                      "findings": tally.count if tally else 0})
    return {
        "report": "eventproof-audit",
        "version": AUDIT_REPORT_VERSION,
        "eventproof": version("eventproof"),
        "settings": {"kind": settings.kind, "liveEvents": settings.live_events,
                     "maxBytes": settings.max_bytes, "maxFindings": settings.max_findings,
                     "jobs": settings.jobs},
        "verdict": _verdict(report),
        "conforms": report.conforms,
        "exitCode": report.exit_code,
        "durationSeconds": round(report.duration, 3),
        "files": [dict(entry) for entry in report.files],
        "summary": {
            "lines": report.lines,
            "findings": report.count(),
            "mustFindings": report.count("MUST"),
            "shouldFindings": report.count("SHOULD"),
            "recordsJudged": report.records,
            "rules": {outcome: sum(1 for rule in rules if rule["outcome"] == outcome)
                      for outcome in ("pass", "fail", "untested")},
        },
        "rules": rules,
        "findings": [finding.document() for finding in report.findings()],
        "notices": list(report.notices),
        "bytes": report.stats.document(),
    }


def dumps_document(report: AuditReport) -> str:
    """The JSON report as text, by the one writer of every report (:func:`.._json.pretty_json`):
    strict JSON (never NaN), a lone surrogate anywhere in it (a file name that is not UTF-8)
    written as its JSON escape, so the text is always UTF-8."""
    return pretty_json(document(report))


def write_json(report: AuditReport, path: Path) -> None:
    write_text(path, dumps_document(report) + "\n")


# -- console -------------------------------------------------------------------------------------


class _Marked:
    """The console, for this renderer's own markup: every value from a log is escaped where it
    is interpolated, and the console itself reads no markup (``_console``)."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def print(self, *items: Any, **options: Any) -> None:
        self.console.print(*(Text.from_markup(item) if isinstance(item, str) else item
                             for item in items), **options)


def render_console(report: AuditReport, console: Console, *, verbose: bool = False) -> None:
    """The verdict, the findings (counted per rule, the first few shown) and where the bytes
    go."""
    console = _Marked(console)  # type: ignore[assignment]
    for error in report.errors:
        console.print(f"[bold red]unreadable:[/] {escape(error)}", soft_wrap=True)
    doc = document(report)
    files = report.files
    console.print(f"[bold]eventproof audit[/]: {len(files)} log(s), {report.lines:,} lines, "
                  f"{_size(sum(entry['bytes'] for entry in files))}", soft_wrap=True)
    for entry in files:
        console.print(f"  {escape(entry['file'])}  [dim]{entry['kind']}, "
                      f"{entry['lines']:,} lines, {_size(entry['bytes'])}[/]", soft_wrap=True)
    table = Table(title="Rules", title_justify="left", show_lines=False)
    for name, justify in (("rule", "left"), ("level", "left"), ("section", "left"),
                          ("outcome", "left"), ("judged", "right"), ("findings", "right")):
        table.add_column(name, justify=justify, overflow="fold")  # type: ignore[arg-type]
    styles = {"pass": "green", "fail": "red", "untested": "dim"}
    untested = [rule["id"] for rule in doc["rules"] if rule["outcome"] == "untested"]
    for rule in doc["rules"]:
        if rule["outcome"] == "untested" or (not verbose and rule["outcome"] == "pass"):
            continue
        outcome = rule["outcome"] if rule["outcome"] != "fail" or rule["level"] == "MUST" \
            else "fail (SHOULD)"
        table.add_row(rule["id"], rule["level"], rule["section"],
                      Text(outcome, style=styles[rule["outcome"]]), f"{rule['judged']:,}",
                      f"{rule['findings']:,}")
    if table.row_count:
        console.print(table)
    passed = doc["summary"]["rules"]["pass"]
    if passed and not verbose:
        console.print(f"[green]{passed} rule(s) pass[/] (-v lists them)")
    if untested:
        console.print(f"[dim]untested (no line or record of these logs could show them): "
                      f"{', '.join(untested)}[/]", soft_wrap=True)
    shown_per_rule: dict[str, int] = {}
    for finding in doc["findings"]:
        shown_per_rule[finding["rule"]] = shown_per_rule.get(finding["rule"], 0) + 1
        console.print(f"\n[bold red]{finding['rule']}[/] ({finding['level']}, "
                      f"{finding['section']}) {escape(finding['file'])}:{finding['line']} "
                      f"byte {finding['offset']:,}", soft_wrap=True)
        console.print(f"  {escape(finding['message'])}", soft_wrap=True)
        console.print(f"  [dim]line:[/] {escape(finding['excerpt'])}", soft_wrap=True)
        console.print(f"  [dim]fix:[/] {escape(finding['fix'])}", soft_wrap=True)
    for rule in doc["rules"]:
        more = rule["findings"] - shown_per_rule.get(rule["id"], 0)
        if more > 0:
            console.print(f"  [dim]{rule['id']}: {more:,} more finding(s) like these "
                          "(--max-findings shows more)[/]", soft_wrap=True)
    for notice in report.notices:
        console.print(f"[yellow]not judged:[/] {escape(notice)}", soft_wrap=True)
    _console_bytes(doc["bytes"], console)
    verdict = report.verdict
    console.print(f"\n[bold]{escape(_verdict(report))}[/]: {report.count('MUST'):,} MUST and "
                  f"{report.count('SHOULD'):,} SHOULD finding(s); {escape(verdict.line())}",
                  soft_wrap=True)


def _console_bytes(figures: dict[str, Any], console: Console) -> None:
    if not figures["lines"]:
        return
    table = Table(title="Where the bytes go", title_justify="left")
    table.add_column("event type")
    table.add_column("lines", justify="right")
    table.add_column("bytes", justify="right")
    table.add_column("share", justify="right")
    for row in figures["byType"][:12]:
        table.add_row(row["type"], f"{row['lines']:,}", _size(row["bytes"]),
                      f"{row['share']:.1%}")
    console.print(table)
    paths = Table(title="Heaviest paths", title_justify="left")
    for name in ("event type", "path", "count", "bytes", "share"):
        paths.add_column(name, justify="right" if name in ("count", "bytes", "share") else "left",
                         overflow="fold")
    for row in figures["byPath"][:8]:
        paths.add_row(row["type"], row["path"], f"{row['count']:,}", _size(row["bytes"]),
                      f"{row['share']:.1%}")
    if paths.row_count:
        console.print(paths)
    for row in figures["repeated"][:5]:
        console.print(f"repeated: {row['type']} {row['path']}: {row['distinct']:,} distinct "
                      f"values written {row['occurrences']:,} times ({_size(row['bytes'])}, "
                      f"{_size(row.get('repeatedBytes', 0))} of it written again)",
                      markup=False, soft_wrap=True)
    for row in figures["largestLines"][:3]:
        console.print(f"largest line: {row['file']}:{row['line']} ({row['type']}), "
                      f"{_size(row['bytes'])}", markup=False, soft_wrap=True)
    facts = figures["factsOnly"]
    if facts is not None:
        console.print(f"facts-only projection (spec/wire.md §4): {_size(facts['bytes'])} → "
                      f"{_size(facts['projectedBytes'])}"
                      + (f" ({facts['ratio']:,.1f}× smaller)"
                         if facts["ratio"] and facts["ratio"] > 1.005 else ""),
                      markup=False, soft_wrap=True)


# -- JUnit ---------------------------------------------------------------------------------------


def junit_tree(report: AuditReport) -> ET.ElementTree[ET.Element]:
    """The audit as JUnit XML, in the shape every command writes (:mod:`.._junit`): one suite,
    one test case per rule (a failure for a MUST rule's findings, a ``system-out`` note for a
    SHOULD rule's, as in ``run``; skipped for a rule that judged nothing), an error case per
    log that could not be read, and the run's exit code and verdict as properties."""
    doc = document(report)
    by_rule: dict[str, list[dict[str, Any]]] = {}
    for finding in doc["findings"]:
        by_rule.setdefault(finding["rule"], []).append(finding)
    cases = []
    for rule in doc["rules"]:
        text = "\n\n".join(
            f"{finding['file']}:{finding['line']} byte {finding['offset']}: "
            f"{finding['message']}\nline: {finding['excerpt']}\nfix: {finding['fix']}"
            for finding in by_rule.get(rule["id"], []))
        case = _junit.Case(classname=f"audit.{rule['id'].split('.')[0]}", name=rule["id"])
        if rule["outcome"] == "untested":
            case = replace(case, kind="skipped",
                           message="no line or record of the logs could show this rule")
        elif rule["outcome"] == "fail" and rule["level"] == "MUST":
            case = replace(case, kind="failure", type=rule["id"], text=text,
                           message=f"{rule['findings']} finding(s): {rule['title']}")
        elif rule["outcome"] == "fail":
            case = replace(case, stdout=f"SHOULD rule: {rule['findings']} finding(s)\n\n{text}")
        cases.append(case)
    cases += [_junit.Case(classname="audit.log", name="readable", kind="error", message=error)
              for error in report.errors]
    notes = "not judged:\n" + "\n".join(report.notices) if report.notices else ""
    return _junit.tree("eventproof audit", [_junit.Suite("eventproof.audit", tuple(cases),
                                                         stdout=notes)],
                       seconds=report.duration,
                       properties=(("conforms", report.exit_code == 0),
                                   ("exit-code", report.exit_code),
                                   ("verdict", doc["verdict"])))


def write_junit(report: AuditReport, path: Path) -> None:
    """Write :func:`junit_tree` to ``path`` (parent directories created)."""
    _junit.write(path, junit_tree(report))


# -- Markdown ------------------------------------------------------------------------------------


_md, _code = _markdown.cell, _markdown.code


def markdown(report: AuditReport) -> str:
    doc = document(report)
    out = [f"# eventproof audit: {doc['verdict']}", "",
           f"{len(doc['files'])} log(s), {report.lines:,} lines; "
           f"{doc['summary']['mustFindings']:,} MUST and {doc['summary']['shouldFindings']:,} "
           f"SHOULD finding(s); exit code {doc['exitCode']}.", ""]
    for error in report.errors:
        out += [f"- **unreadable**: {_md(error)}"]
    out += _markdown.table(
        ["rule", "level", "section", "outcome", "judged", "findings"],
        ([_code(rule["id"]), rule["level"], _md(rule["section"]), rule["outcome"],
          f"{rule['judged']:,}", f"{rule['findings']:,}"] for rule in doc["rules"]),
        "llllrr")
    if doc["findings"]:
        out += ["", "## Findings", ""]
        for finding in doc["findings"]:
            out += [f"- **`{finding['rule']}`** ({finding['level']}, {finding['section']}) "
                    f"{_code(finding['file'])} line {finding['line']}, byte "
                    f"{finding['offset']:,}: {_md(finding['message'])}",
                    f"  - line: {_code(finding['excerpt'])}", f"  - fix: {_md(finding['fix'])}"]
    if report.notices:
        out += ["", "## Not judged", ""]
        out += [f"- {_md(notice)}" for notice in report.notices]
    figures = doc["bytes"]
    if figures["lines"]:
        out += ["", "## Where the bytes go", "", *_markdown.table(
            ["event type", "lines", "bytes", "share"],
            ([_code(row["type"]), f"{row['lines']:,}", _size(row["bytes"]),
              f"{row['share']:.1%}"] for row in figures["byType"]), "lrrr")]
        if figures["repeated"]:
            out += ["", *_markdown.table(
                ["repeated at", "distinct", "written", "bytes"],
                ([f"{_code(row['type'])} {_code(row['path'])}", f"{row['distinct']:,}",
                  f"{row['occurrences']:,}", _size(row["bytes"])]
                 for row in figures["repeated"][:10]), "lrrr")]
        facts = figures["factsOnly"]
        if facts is not None:
            out += ["", f"Facts-only projection (spec/wire.md §4): {_size(facts['bytes'])} → "
                        f"{_size(facts['projectedBytes'])}."]
    return "\n".join(out) + "\n"


def write_markdown(report: AuditReport, path: Path) -> None:
    _markdown.write(path, markdown(report))


# -- HTML ----------------------------------------------------------------------------------------

_PALETTE = ("#0969da", "#cf222e", "#1a7f37", "#8250df", "#bc4c00", "#bf3989", "#9a6700",
            "#1b7c83", "#6e7781", "#82071e", "#0550ae", "#633c01")
_PLOT_W, _PLOT_H = 900, 220
_SCRIPT = """
(function () {
  var boxes = document.querySelectorAll(".legend input");
  function apply() {
    var hidden = {};
    boxes.forEach(function (box) { if (!box.checked) hidden[box.value] = true; });
    document.querySelectorAll("svg rect[data-type]").forEach(function (bar) {
      bar.style.display = hidden[bar.getAttribute("data-type")] ? "none" : "";
    });
    var shown = 0;
    boxes.forEach(function (box) { if (box.checked) shown += 1; });
    document.getElementById("types-shown").textContent = shown + " of " + boxes.length +
      " event types shown";
  }
  boxes.forEach(function (box) { box.addEventListener("change", apply); });
  apply();
})();
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _plot(entry: dict[str, Any], colours: dict[str, str]) -> str:
    along = entry["along"]
    bins = along["bins"]
    if not bins:
        return ""
    count = max(row["index"] for row in bins) + 1
    tallest = max(sum(row["bytes"].values()) for row in bins) or 1
    width = _PLOT_W / count
    bars = []
    for row in bins:
        y = _PLOT_H
        for kind, size in sorted(row["bytes"].items()):
            height = size / tallest * (_PLOT_H - 10)
            y -= height
            bars.append(f'<rect data-type="{_e(kind)}" x="{row["index"] * width:.2f}" '
                        f'y="{y:.2f}" width="{max(width, 0.5):.2f}" height="{height:.2f}" '
                        f'fill="{colours[kind]}"><title>{_e(kind)}: {_size(size)} at '
                        f'{_size(row["index"] * along["binBytes"])}</title></rect>')
    return (f'<div class="plot"><h3>{_e(entry["file"])}: bytes along the log by event type '
            f'({_size(along["binBytes"])} per bar, tallest {_size(tallest)})</h3>'
            f'<svg role="img" aria-label="bytes along {_e(entry["file"])}" '
            f'viewBox="0 0 {_PLOT_W} {_PLOT_H}" width="100%" height="{_PLOT_H}" '
            f'preserveAspectRatio="none">{"".join(bars)}</svg></div>')


def page(report: AuditReport) -> str:
    """The HTML page, with the one style sheet of every page the kit writes (:mod:`.._style`)."""
    doc = document(report)
    figures = doc["bytes"]
    kinds = [row["type"] for row in figures["byType"]]
    colours = {kind: _PALETTE[index % len(_PALETTE)] for index, kind in enumerate(kinds)}
    legend = "".join(f'<label><input type="checkbox" value="{_e(kind)}" checked>'
                     f'<i style="background:{colours[kind]}"></i>{_e(kind)}</label>'
                     for kind in kinds)
    plots = "".join(_plot(entry, colours) for entry in figures["files"][:20])
    rules = "".join(
        f'<tr class="rule"><td><code>{_e(rule["id"])}</code></td><td>{rule["level"]}</td>'
        f'<td>{_e(rule["section"])}</td><td><span class="pill o-{rule["outcome"]}">'
        f'{rule["outcome"]}</span></td>'
        f'<td class="n">{rule["judged"]:,}</td><td class="n">{rule["findings"]:,}</td>'
        f'<td>{_e(rule["title"])}</td></tr>' for rule in doc["rules"])
    findings = "".join(
        f'<div class="finding{" should" if finding["level"] == "SHOULD" else ""}" '
        f'id="finding-{index}"><b><code>{_e(finding["rule"])}</code></b> ({finding["level"]}, '
        f'{_e(finding["section"])}) <code>{_e(finding["file"])}</code> line {finding["line"]}, '
        f'byte {finding["offset"]:,}<br>{_e(finding["message"])}<pre>{_e(finding["excerpt"])}'
        f'</pre>fix: {_e(finding["fix"])}</div>'
        for index, finding in enumerate(doc["findings"]))
    types = "".join(f'<tr><td><code>{_e(row["type"])}</code></td><td class="n">{row["lines"]:,}'
                    f'</td><td class="n">{_size(row["bytes"])}</td><td class="n">'
                    f'{row["share"]:.1%}</td></tr>' for row in figures["byType"])
    repeated = "".join(f'<tr><td><code>{_e(row["type"])}</code> <code>{_e(row["path"])}</code>'
                       f'</td><td class="n">{row["distinct"]:,}</td><td class="n">'
                       f'{row["occurrences"]:,}</td><td class="n">{_size(row["bytes"])}</td></tr>'
                       for row in figures["repeated"][:15])
    facts = figures["factsOnly"]
    facts_line = "" if facts is None else (
        f'<p>Facts-only projection (spec/wire.md §4) of the same events: '
        f'<b>{_size(facts["bytes"])} → {_size(facts["projectedBytes"])}</b></p>')
    summary = (f'{_e(doc["verdict"])}: {len(doc["files"])} log(s), {report.lines:,} lines, '
               f'{doc["summary"]["mustFindings"]:,} MUST and '
               f'{doc["summary"]["shouldFindings"]:,} SHOULD finding(s)')
    body = (f'<div class="cards"><div class="card {"ok" if doc["conforms"] else "bad"}">'
            f'<h3>eventproof audit</h3><div class="verdict">{_e(doc["verdict"])}</div>'
            f'<p class="meta">exit code {doc["exitCode"]}</p></div></div>'
            f'<h2>Where the bytes go</h2>{facts_line}'
            f'<div class="legend" id="legend">{legend}<span id="types-shown"></span></div>'
            f'{plots}<table class="t"><tr><th>event type</th><th>lines</th><th>bytes</th>'
            f'<th>share</th></tr>{types}</table>'
            + (f'<table class="t"><tr><th>repeated at</th><th>distinct</th><th>written</th>'
               f'<th>bytes</th></tr>{repeated}</table>' if repeated else "")
            + f'<h2>Rules</h2><table class="t"><tr><th>rule</th><th>level</th><th>section</th>'
            f'<th>outcome</th><th>judged</th><th>findings</th><th>what it demands</th></tr>'
            f'{rules}</table><h2>Findings</h2>{findings or "<p>None.</p>"}'
            + ("<h2>Not judged</h2><ul>" + "".join(f"<li>{_e(notice)}</li>"
                                                   for notice in report.notices) + "</ul>"
               if report.notices else ""))
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="eventproof">\n<title>eventproof audit</title>\n'
        '<script>document.documentElement.className = "js";</script>\n'
        f'<style>{_style.STYLE}</style>\n</head>\n<body>\n'
        f'<header class="top"><h1>eventproof audit</h1><p>{summary}</p></header>\n'
        f'<main>{body}</main>\n<script>{_SCRIPT}</script>\n</body>\n</html>\n')


def write_html(report: AuditReport, path: Path) -> None:
    write_text(path, page(report))


