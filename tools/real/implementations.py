"""Check every real implementation a package registry holds and publish the page of them all.

    python tools/real/implementations.py --work DIR --out DIR [--effort E] [--report FILE...]

Each implementation of `IMPLEMENTATIONS` is installed, pinned, into ``--work`` with npm (the
registry's own client; nothing is committed), checked by ``eventproof run`` through its adapter
beside this file, and becomes a column of the conformance matrix (``--out/matrix/index.html``,
``eventproof report --html``). ``--report`` adds the JSON report of a run made elsewhere (an
implementation no registry holds) as one more column.

``--out/index.html`` then lists every disagreement with a line of disagreements.yaml: its class
(a kit defect, a spec choice with the section that gives its reason, or a bug of the
implementation), the rules it accounts for, and its minimal case with both answers, asked again
of the implementation and of the reference on every run. The script exits 1 when a failing rule
has no line (an unclassified disagreement), when a line's case no longer disagrees (a stale
line), or when an implementation could not be checked.
"""

from __future__ import annotations

import argparse
import html
import json
import platform
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from eventproof.reference import InvalidInput, Reference

HERE = Path(__file__).resolve().parent
DISAGREEMENTS = HERE / "disagreements.yaml"
BROKEN = frozenset({"fail", "error", "crash", "timeout", "unstable"})
#: Bun builds by (system, machine), as npm publishes them.
BUN_BUILDS = {("Linux", "x86_64"): "linux-x64", ("Linux", "aarch64"): "linux-aarch64",
              ("Darwin", "x86_64"): "darwin-x64", ("Darwin", "arm64"): "darwin-aarch64"}
BUN_VERSION = "1.4.5"


@dataclass(frozen=True)
class Implementation:
    """A real implementation: its packages (pinned) and the command of its adapter."""

    key: str
    name: str
    packages: tuple[str, ...]
    command: Callable[[Path], list[str]]
    what: str


def _bun(folder: Path) -> str:
    build = BUN_BUILDS.get((platform.system(), platform.machine()), "linux-x64")
    return str(folder / "node_modules" / "@oven" / f"bun-{build}" / "bin" / "bun")


def _bun_package() -> str:
    build = BUN_BUILDS.get((platform.system(), platform.machine()), "linux-x64")
    return f"@oven/bun-{build}@{BUN_VERSION}"


IMPLEMENTATIONS = (
    Implementation(
        "pi", "pi-coding-agent serializeJsonLine", ("@mariozechner/pi-coding-agent@0.73.1",),
        lambda folder: ["node", str(HERE / "pi_adapter.mjs"), str(folder)],
        "the wire writer of the coding agent the wire profile follows: every event of its RPC "
        "transport (and of --mode json) as serializeJsonLine(event)"),
    Implementation(
        "omp", "oh-my-pi printableEvent", ("@oh-my-pi/pi-coding-agent@18.2.3", _bun_package()),
        lambda folder: [_bun(folder), str(HERE / "omp_adapter.ts"), str(folder)],
        "the --mode json projection of a fork of that agent: JSON.stringify(printableEvent(event)),"
        " on Bun"),
)

#: What each profile's real implementations are, for the page (the registries hold no other).
PROFILES = (
    ("selection", "No registry holds one. The selection and settlement code of the system the "
     "profile comes from (deepseek-harness at f56b34fae8, spec/selection.md §1) is published only "
     "as source: run it behind an adapter of your own and give its report with --report "
     "(docs/real-implementations.md says how it was run and what it gave)."),
    ("wire", "project: the two coding agents above. classify: none (neither agent has a "
     "classification of its own; both write every event)."),
    ("budget", "No real implementation is reachable: no registry holds code that publishes "
     "delegated batches by these rules."),
)


def expand(value: Any) -> Any:
    """A case with every ``"<N × c>"`` string written out (c repeated N times)."""
    if isinstance(value, str):
        match = re.fullmatch(r"<(\d+) × (.)>", value)
        return match.group(2) * int(match.group(1)) if match else value
    if isinstance(value, list):
        return [expand(item) for item in value]
    if isinstance(value, dict):
        return {key: expand(item) for key, item in value.items()}
    return value


def install(implementation: Implementation, work: Path) -> Path:
    """Install the implementation's pinned packages into their own folder of ``work``."""
    folder = work / implementation.key
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / "package.json").exists():
        (folder / "package.json").write_text('{"private": true}\n', encoding="utf-8")
    subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts",
                    "--no-save", *implementation.packages], cwd=folder, check=True)
    return folder


def check(command: list[str], report: Path, effort: str) -> int:
    """``eventproof run`` on one implementation; its JSON report is written to ``report``."""
    done = subprocess.run(["eventproof", "run", "--impl", shlex.join(command), "--deterministic",
                           "--no-progress", "--effort", effort, "--json", str(report)],
                          check=False)
    return done.returncode


def ask(command: list[str], cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each case's answer (``{"output": …}`` or ``{"errored": …}``) from the program, in order."""
    lines = [json.dumps({"cmd": "start", "version": 1})]
    lines += [json.dumps({"cmd": "run", "seq": seq, "op": case["op"], "input": case["input"]})
              for seq, case in enumerate(cases)]
    lines.append(json.dumps({"cmd": "stop"}))
    done = subprocess.run(command, input="\n".join(lines) + "\n", capture_output=True, text=True,
                          timeout=120, check=False)
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    if len(answers) != len(cases) + 1:
        raise SystemExit(f"{shlex.join(command)}: {len(answers)} answers to {len(cases) + 1} "
                         f"requests; stderr: {done.stderr[-2000:]}")
    return [{key: value for key, value in answer.items() if key != "seq"}
            for answer in answers[1:]]


def reference_answer(case: dict[str, Any]) -> dict[str, Any]:
    """What the reference answers to one case."""
    try:
        return {"output": Reference().run(case["op"], case["input"])}
    except InvalidInput as error:
        return {"errored": {"message": str(error)}}


def differ(mine: dict[str, Any], theirs: dict[str, Any]) -> bool:
    """Whether two answers disagree: another kind of answer, or another output."""
    if ("output" in mine) != ("output" in theirs):
        return True
    return "output" in mine and mine["output"] != theirs["output"]


def unclassified_failures(reports: list[dict[str, Any]],
                          entries: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Each (implementation, rule) a report says is broken that no line of ``entries`` for
    that implementation (or for every one, ``"*"``) accounts for."""
    found = []
    for report in reports:
        name = report["implementation"].get("name", "")
        covered = {rule for entry in entries if entry["implementation"] in (name, "*")
                   for rule in entry["rules"]}
        found += [(name, result["id"]) for result in report.get("results", [])
                  if result["outcome"] in BROKEN and result["id"] not in covered]
    return found


def _shown(value: Any, limit: int = 700) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= limit else text[:limit] + f"… ({len(text):,} characters)"


def write_page(out: Path, reports: list[dict[str, Any]], entries: list[dict[str, Any]],
               unclassified: list[tuple[str, str]]) -> None:
    """Write ``out/index.html``: the implementations, their disagreements and the profiles."""
    esc = html.escape
    rows = "".join(
        f"<tr><td>{esc(r['implementation'].get('name', '?'))}</td>"
        f"<td>{esc(str(r['implementation'].get('version', '')))}</td>"
        f"<td>{esc(r['verdict'].get('line', r['verdict'].get('headline', '')))}</td></tr>"
        for r in reports)
    lines = []
    for entry in entries:
        answers = ""
        if "case" in entry:
            answers = (f"<pre>case ({esc(entry['case']['op'])}): "
                       f"{esc(_shown(entry['case']['input']))}</pre>")
            if "answers" in entry:
                answers += (f"<pre>reference: {esc(_shown(entry['answers']['reference']))}\n"
                            f"{esc(entry['implementation'])}: "
                            f"{esc(_shown(entry['answers']['implementation']))}</pre>")
            else:
                answers += "<p><em>not asked in this run (the implementation was not run)</em></p>"
        lines.append(
            f"<li id='{esc(entry['id'])}'><strong>{esc(entry['class'])}</strong> "
            f"<code>{esc(entry['id'])}</code> — {esc(entry['implementation'])} — rules: "
            f"{esc(', '.join(entry['rules']) or '(how failures are reported)')} — "
            f"spec/{esc(entry['section'])}<br>{esc(entry['summary'])}{answers}</li>")
    missing = "".join(f"<li>{esc(name)}: <code>{esc(rule)}</code></li>"
                      for name, rule in unclassified)
    profiles = "".join(f"<li><strong>{esc(name)}</strong>: {esc(text)}</li>"
                       for name, text in PROFILES)
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Real implementations</title>
<style>body{{font-family:sans-serif;max-width:70em;margin:2em auto;line-height:1.4}}
pre{{white-space:pre-wrap;word-break:break-all;background:#f6f8fa;padding:.5em}}
td,th{{border:1px solid #ccc;padding:.3em}}table{{border-collapse:collapse}}li{{margin:.8em 0}}
</style></head><body>
<h1>Real implementations</h1>
<p>Every real implementation a package registry holds, checked by <code>eventproof run</code>
through an adapter that translates nothing the spec defines: <a href="matrix/index.html">the
conformance matrix</a>. Each disagreement has one line below: a kit defect, a spec choice (the
section gives its reason) or a bug of the implementation, with a minimal case asked of both.</p>
<table><tr><th>implementation</th><th>version</th><th>verdict</th></tr>{rows}</table>
<h2>Disagreements</h2><ul>{''.join(lines)}</ul>
{f'<h2>Unclassified disagreements</h2><ul>{missing}</ul>' if missing else ''}
<h2>Profiles</h2><ul>{profiles}</ul>
</body></html>
"""
    (out / "index.html").write_text(page, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--effort", default="default")
    parser.add_argument("--report", type=Path, action="append", default=[])
    parser.add_argument("--no-install", action="store_true")
    options = parser.parse_args(argv)
    work, out = options.work.resolve(), options.out.resolve()
    (out / "reports").mkdir(parents=True, exist_ok=True)
    entries = yaml.safe_load(DISAGREEMENTS.read_text(encoding="utf-8"))
    problems: list[str] = []
    report_paths: list[Path] = []
    commands: dict[str, list[str]] = {}
    for implementation in IMPLEMENTATIONS:
        folder = work / implementation.key
        if not options.no_install:
            install(implementation, work)
        command = implementation.command(folder)
        commands[implementation.name] = command
        report = out / "reports" / f"{implementation.key}.json"
        if check(command, report, options.effort) == 2:
            problems.append(f"{implementation.name} could not be checked")
        report_paths.append(report)
    report_paths += [path.resolve() for path in options.report]
    subprocess.run(["eventproof", "report", "--html", str(out / "matrix"),
                    "--title", "Real implementations", *map(str, report_paths)], check=True)
    reports = [json.loads(path.read_text(encoding="utf-8")) for path in report_paths]
    unclassified = unclassified_failures(reports, entries)
    problems += [f"{name}: {rule} fails and no line of {DISAGREEMENTS.name} classifies it"
                 for name, rule in unclassified]
    for name, command in commands.items():
        mine = [entry for entry in entries if entry["implementation"] == name and "case" in entry]
        answers = ask(command, [expand(entry["case"]) for entry in mine])
        for entry, theirs in zip(mine, answers, strict=True):
            ours = reference_answer(expand(entry["case"]))
            entry["answers"] = {"reference": ours, "implementation": theirs}
            if not differ(ours, theirs):
                problems.append(f"{entry['id']}: {name} now agrees with the reference on the "
                                "case: the line is stale")
    write_page(out, reports, entries, unclassified)
    print(f"{out / 'index.html'}: {len(entries)} lines; matrix: {out / 'matrix' / 'index.html'}")
    for problem in problems:
        print(f"problem: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
