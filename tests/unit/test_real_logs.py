"""Logs written by real harness code (tests/corpus/) are audited to exactly the findings a hand
reading of the spec gives them: for every rule of the audit, the lines it reports are the lines
the log's expectation file names (none for most rules), with or without the optional orjson."""

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
from eventproof.conformance.audit import Settings, audit, expand
from eventproof.conformance.audit._rules import AUDIT_RULES

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
#: Every finding is kept: the comparison is over all of them, never over what a report shows.
ALL = 1_000_000


def _expectations() -> list[tuple[Path, dict[str, Any]]]:
    found = []
    for path in sorted(CORPUS.rglob("*.expected.yaml")):
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        for entry in document["audits"]:
            found.append((path.parent / document["log"], entry))
    return found


EXPECTATIONS = _expectations()


def _by_rule(findings: list[tuple[str, int]]) -> dict[str, list[int]]:
    lines: dict[str, list[int]] = defaultdict(list)
    for rule_id, line in findings:
        lines[rule_id].append(line)
    return {rule_id: sorted(found) for rule_id, found in lines.items()}


@cache
def _audited(log: Path, settings_json: str) -> dict[str, list[int]]:
    """What the audit finds in ``log`` with these settings: each rule's lines, every finding."""
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
        return _by_rule([(item["rule"], item["line"]) for item in report["findings"]])
    result = audit(expand((str(log),)), Settings(max_findings=ALL, **settings))
    assert not result.errors, result.errors
    for rule_id, tally in result.tallies.by_rule.items():
        assert len(tally.examples) == tally.count, (rule_id, tally.count, len(tally.examples))
    return _by_rule([(finding.rule, finding.line) for finding in result.findings()])


def _cases() -> list[Any]:
    cases = []
    for log, entry in EXPECTATIONS:
        expected = _by_rule([(rule_id, line) for rule_id, line, _why in entry["findings"]])
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
    logs = {path for path in CORPUS.rglob("*.jsonl")}
    named = {log for log, _entry in EXPECTATIONS}
    assert logs
    assert logs == named


@pytest.mark.parametrize("entry", [entry for _log, entry in EXPECTATIONS],
                         ids=[f"{log.name}[{entry['name'][:24]}]" for log, entry in EXPECTATIONS])
def test_each_expected_finding_is_well_formed(entry: dict[str, Any]) -> None:
    """Each expected finding is [an audit rule, a line number, a reason], and each defect names
    an audit rule."""
    ids = {cited.id for cited in AUDIT_RULES}
    for rule_id, line, why in entry["findings"]:
        assert rule_id in ids
        assert isinstance(line, int)
        assert line >= 1
        assert why.strip()
    assert set(entry.get("audit_defects") or {}) <= ids


@pytest.mark.parametrize(("log", "settings_json", "rule_id", "expected"), _cases())
def test_the_audit_finds_exactly_the_expected_lines(log: Path, settings_json: str, rule_id: str,
                                                    expected: list[int]) -> None:
    """The audit reports this rule on exactly the lines the spec's hand reading gives."""
    assert _audited(log, settings_json).get(rule_id, []) == expected
