"""Logs written by real harness code (tests/corpus/: pi's --mode json logs, dsh-style session
roots) are audited to exactly the findings a hand reading of the spec gives them: for every rule
of the audit, the lines it reports are the lines the log's expectation file names (none for most
rules), with or without the optional orjson; and the rules an expectation says are judged are
judged as many times as it says."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from eventproof.conformance.audit import Settings, audit, document, expand
from eventproof.conformance.audit._rules import AUDIT_RULES

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
#: Every finding is kept: the comparison is over all of them, never over what a report shows.
ALL = 1_000_000
#: The key of ``audit_defects`` for the repeated values of "where the bytes go".
REPEATED = "bytes.repeated"


def _expectations() -> list[tuple[Path, dict[str, Any]]]:
    found = []
    for path in sorted(CORPUS.rglob("*.expected.yaml")):
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        for entry in document["audits"]:
            found.append((path.parent / document["log"], entry))
    return found


EXPECTATIONS = _expectations()


#: Where a finding is: the file (relative to a log directory; "" for a log file) and the line.
Place = tuple[str, int]


def _by_rule(findings: list[tuple[str, str, int]]) -> dict[str, list[Place]]:
    lines: dict[str, list[Place]] = defaultdict(list)
    for rule_id, file, line in findings:
        lines[rule_id].append((file, line))
    return {rule_id: sorted(found) for rule_id, found in lines.items()}


def _relative(log: Path, file: str) -> str:
    return Path(file).resolve().relative_to(log).as_posix() if log.is_dir() else ""


def _expected(log: Path, entry: dict[str, Any]) -> dict[str, list[Place]]:
    """An expectation's findings, ``[rule, line, why]`` or ``[rule, line, why, file]``."""
    return _by_rule([(item[0], item[3] if len(item) > 3 else "", item[1])
                     for item in entry["findings"]])


@cache
def _judged(log: Path, settings_json: str) -> dict[str, int]:
    """How many lines or records each rule judged in ``log``."""
    result = audit(expand((str(log),)), Settings(**json.loads(settings_json)))
    return {rule_id: tally.judged for rule_id, tally in result.tallies.by_rule.items()}


@cache
def _audited(log: Path, settings_json: str) -> dict[str, list[Place]]:
    """What the audit finds in ``log`` with these settings: each rule's places, every finding."""
    settings = dict(json.loads(settings_json))
    if settings.pop("orjson", True) is False:
        # The default install: the same command in a process where orjson cannot be imported.
        options = ["--live-events"] if settings.pop("live_events", False) else []
        if "max_bytes" in settings:
            options += ["--max-bytes", str(settings.pop("max_bytes"))]
        assert not settings, settings
        program = ("import sys; sys.modules['orjson'] = None; "
                   "from eventproof.conformance.cli import main; sys.exit(main())")
        done = subprocess.run(
            [sys.executable, "-c", program, "audit", str(log), *options, "--json", "-",
             "--max-findings", str(ALL)], capture_output=True, check=False, timeout=120)
        assert done.returncode in (0, 1), done.stderr.decode(errors="replace")
        report = json.loads(done.stdout)
        return _by_rule([(item["rule"], _relative(log, item["file"]), item["line"])
                         for item in report["findings"]])
    result = audit(expand((str(log),)), Settings(max_findings=ALL, **settings))
    assert not result.errors, result.errors
    for rule_id, tally in result.tallies.by_rule.items():
        assert len(tally.examples) == tally.count, (rule_id, tally.count, len(tally.examples))
    return _by_rule([(finding.rule, _relative(log, finding.file), finding.line)
                     for finding in result.findings()])


def _cases() -> list[Any]:
    cases = []
    for log, entry in EXPECTATIONS:
        expected = _expected(log, entry)
        defects = entry.get("audit_defects") or {}
        settings_json = json.dumps(entry["settings"], sort_keys=True)
        for cited in AUDIT_RULES:
            marks = [pytest.mark.xfail(strict=True, reason=f"audit defect: {defects[cited.id]}")
                     ] if cited.id in defects else []
            cases.append(pytest.param(log, settings_json, cited.id, expected.get(cited.id, []),
                                      marks=marks,
                                      id=f"{log.parent.name}/{log.name}[{entry['name'][:24]}]"
                                         f"-{cited.id}"))
    return cases


def test_the_corpus_has_logs_and_expectations() -> None:
    """Every log of the corpus has an expectation file, and every expectation names a log."""
    logs = set(CORPUS.rglob("*.jsonl"))
    named = {log for log, _entry in EXPECTATIONS}
    covered = {path for log in named for path in ([log] if log.is_file() else log.rglob("*.jsonl"))}
    assert logs
    assert all(log.exists() for log in named)
    assert logs == covered


@pytest.mark.parametrize("entry", [entry for _log, entry in EXPECTATIONS],
                         ids=[f"{log.name}[{entry['name'][:24]}]" for log, entry in EXPECTATIONS])
def test_each_expected_finding_is_well_formed(entry: dict[str, Any]) -> None:
    """Each expected finding is [an audit rule, a line number, a reason], and each defect names
    an audit rule."""
    ids = {cited.id for cited in AUDIT_RULES}
    for rule_id, line, why, *file in entry["findings"]:
        assert all(isinstance(name, str) for name in file)
        assert rule_id in ids
        assert isinstance(line, int)
        assert line >= 1
        assert why.strip()
    assert set(entry.get("audit_defects") or {}) <= ids | {REPEATED}
    assert set(entry.get("judged") or {}) <= ids
    for kind, path, distinct, occurrences, why in entry.get("repeated") or []:
        assert path.startswith("$")
        assert 1 <= distinct < occurrences
        assert kind.strip()
        assert why.strip()


@pytest.mark.parametrize(("log", "settings_json", "rule_id", "expected"), _cases())
def test_the_audit_finds_exactly_the_expected_lines(log: Path, settings_json: str, rule_id: str,
                                                    expected: list[Place]) -> None:
    """The audit reports this rule on exactly the lines the spec's hand reading gives."""
    assert _audited(log, settings_json).get(rule_id, []) == expected


JUDGED = [(log, entry, rule_id, count) for log, entry in EXPECTATIONS
          for rule_id, count in (entry.get("judged") or {}).items()]


@pytest.mark.parametrize(("log", "entry", "rule_id", "count"), JUDGED,
                         ids=[f"{log.name}-{rule_id}" for log, _e, rule_id, _c in JUDGED])
def test_the_audit_judges_what_the_log_holds(log: Path, entry: dict[str, Any], rule_id: str,
                                             count: int) -> None:
    """A rule the log can show is judged on each line or record that shows it, no fewer."""
    settings_json = json.dumps(entry["settings"], sort_keys=True)
    assert _judged(log, settings_json).get(rule_id, 0) == count


REPEATS = [pytest.param(log, entry, item, id=f"{log.name}-{item[0]}-{item[1]}",
                        marks=[pytest.mark.xfail(strict=True, reason="audit defect: "
                                                 + entry["audit_defects"][REPEATED])]
                        if REPEATED in (entry.get("audit_defects") or {}) else [])
           for log, entry in EXPECTATIONS for item in entry.get("repeated") or []]


@pytest.mark.parametrize(("log", "entry", "item"), REPEATS)
def test_repeated_values_are_named(log: Path, entry: dict[str, Any], item: list[Any]) -> None:
    """A heavy value the log writes again and again is named by its event type and path
    pattern, with how many distinct values were written how many times."""
    kind, path, distinct, occurrences, _why = item
    settings = Settings(max_findings=ALL, **json.loads(json.dumps(entry["settings"])))
    report = document(audit(expand((str(log),)), settings))
    named = {(row["type"], row["path"]): (row["distinct"], row["occurrences"])
             for row in report["bytes"]["repeated"]}
    assert named.get((kind, path)) == (distinct, occurrences), named
