"""`eventproof vectors`: its reports (--json, --junit), and the JavaScript port through the
subprocess protocol."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from eventproof.conformance._schemas import schema_issues
from eventproof.reference import Reference

ROOT = Path(__file__).resolve().parents[2]
PORT = ROOT / "examples" / "js" / "eventproof-port.mjs"
#: The same port with the bugs named in EVENTPROOF_JS_BUG planted (programs/js-bugs/bugs.mjs).
BUGGY_PORT = ROOT / "tests" / "integration" / "programs" / "js-bugs" / "eventproof-port-bugs.mjs"

node = pytest.mark.node
needs_node = [
    pytest.mark.skipif(shutil.which("node") is None,
                       reason="Node.js is not on PATH: the JavaScript port cannot run"),
    pytest.mark.skipif(not PORT.exists(),
                       reason=f"the JavaScript port {PORT.relative_to(ROOT)} does not exist"),
]


def _vectors(*port_args: str, bug: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("EVENTPROOF_JS_BUG", None)
    if bug is not None:
        env["EVENTPROOF_JS_BUG"] = bug
    program = PORT if bug is None else BUGGY_PORT
    impl = " ".join(["node", str(program.relative_to(ROOT)), *port_args])
    return subprocess.run(
        [sys.executable, "-m", "eventproof.conformance", "vectors", "--timeout", "30",
         "--impl", impl],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
    )


@node
@needs_node[0]
@needs_node[1]
@pytest.mark.parametrize("fit", ["halving", "maximal"])
def test_js_port_passes_the_vectors(fit: str) -> None:
    """The JavaScript port passes every vector of its declared fit strategy (exit 0)."""
    result = _vectors(f"--fit={fit}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert " 0 failed" in result.stdout
    assert f"declares {fit}" in result.stdout  # the other strategy's vectors were skipped


@node
@needs_node[0]
@needs_node[1]
def test_js_port_with_a_planted_bug_fails_with_the_rule() -> None:
    """With the no-text-fallback bug planted the port fails (exit 1) and the rule is named."""
    result = _vectors(bug="no-text-fallback")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "select.text-fallback" in result.stdout
    assert "FAIL" in result.stdout


# -- the reports ---------------------------------------------------------------------------------

#: A planted bug: no streamed-text fallback (tests/unit/test_vectors.py).
NO_FALLBACK = "python:tests.unit.test_vectors:_NoFallback"
MODULE = "python:tests.integration.test_vectors_cli"


class Crashing(Reference):
    """The reference, but it exits on the first select request: a crash, not an answer."""

    def run(self, op: str, input: Any) -> Any:
        if op == "select":
            sys.exit(3)
        return super().run(op, input)


def _eventproof(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "eventproof.conformance", *args], cwd=ROOT,
                          env={**os.environ, "COLUMNS": "60", "NO_COLOR": "1"},
                          capture_output=True, text=True, timeout=300, check=False)


def test_json_and_junit_of_a_wrong_implementation(tmp_path: Path) -> None:
    """The JSON report validates and names each vector's outcome and rerun command; JUnit has
    one testsuite per vector file and one testcase per vector, a failure's text being what the
    console printed for it; the exit code is that of `vectors` (1)."""
    report, junit = tmp_path / "vectors.json", tmp_path / "vectors.xml"
    result = _eventproof("vectors", "--impl", NO_FALLBACK, "--rule", "select.", "--json",
                         str(report), "--junit", str(junit))
    assert result.returncode == 1, result.stdout + result.stderr
    document = json.loads(report.read_text("utf-8"))
    assert schema_issues(document, "vectors-report.json") == []
    assert document["vectorsReportVersion"] == 1
    assert document["conforms"] is False
    assert document["rulePrefix"] == "select."
    assert document["rerun"] == f"eventproof vectors --impl {NO_FALLBACK} --rule select."
    results = {entry["id"]: entry for entry in document["results"]}
    failed = results["select.text-fallback/concatenated-in-order"]
    assert failed["outcome"] == "fail"
    assert failed["file"] == "select.json"
    assert failed["op"] == "select"
    assert failed["rule"] == "select.text-fallback"
    assert failed["broken"][0] == "select.text-fallback"
    assert failed["actual"] is None
    assert failed["rerun"] == (f"eventproof vectors --impl {NO_FALLBACK} "
                               "--rule select.text-fallback")
    assert failed["message"].startswith("select.text-fallback: your output is null")
    passed = [entry for entry in document["results"] if entry["outcome"] == "pass"]
    assert passed
    assert not any("actual" in entry for entry in passed)
    assert document["totals"]["fail"] == sum(e["outcome"] == "fail" for e in results.values())
    assert document["totals"]["pass"] == len(passed)

    root = ET.parse(junit).getroot()
    assert root.get("tests") == str(len(document["results"]))
    assert root.get("failures") == str(document["totals"]["fail"])
    suites = root.findall("testsuite")
    assert [suite.get("name") for suite in suites] == ["eventproof.vectors.select"]
    cases = {case.get("name"): case for case in suites[0].iter("testcase")}
    assert set(cases) == set(results)
    failure = cases["select.text-fallback/concatenated-in-order"].find("failure")
    assert failure is not None
    assert failure.get("type") == "select.text-fallback"
    text = (failure.text or "").splitlines()
    printed = result.stdout.splitlines()
    start = printed.index(text[0])
    assert printed[start:start + len(text)] == text
    assert text[-1].strip() == f"rerun:    {failed['rerun']}"
    assert all(cases[entry["id"]].find("*") is None for entry in passed)


def test_json_to_stdout_is_the_same_on_every_run() -> None:
    """`vectors --json -` writes only the report on stdout (the summary goes to stderr), and
    the same implementation gives the same bytes on every run: the report holds no time."""
    first = _eventproof("vectors", "--json", "-")
    second = _eventproof("vectors", "--json", "-")
    assert first.returncode == 0, first.stderr
    document = json.loads(first.stdout)
    assert schema_issues(document, "vectors-report.json") == []
    assert document["conforms"] is True
    assert document["totals"]["fail"] == document["totals"]["error"] == 0
    assert document["totals"]["skip"] > 0  # the maximal strategy's vectors
    assert first.stdout == second.stdout
    assert "0 failed" in first.stderr
    assert "vectors for" in first.stderr


def test_a_crash_is_an_error_not_a_fail(tmp_path: Path) -> None:
    """A vector the implementation gave no answer to is reported `error` (JSON) and an
    `<error>` (JUnit); the run does not conform."""
    report, junit = tmp_path / "v.json", tmp_path / "v.xml"
    result = _eventproof("vectors", "--impl", f"{MODULE}:Crashing", "--rule", "select.",
                         "--json", str(report), "--junit", str(junit))
    assert result.returncode == 1, result.stdout + result.stderr
    document = json.loads(report.read_text("utf-8"))
    assert schema_issues(document, "vectors-report.json") == []
    assert {entry["outcome"] for entry in document["results"]} == {"error"}
    assert document["totals"]["error"] == len(document["results"])
    assert "crashed" in json.dumps(document["results"][0]["actual"])
    root = ET.parse(junit).getroot()
    assert root.get("errors") == str(len(document["results"]))
    assert root.get("failures") == "0"
    assert all(case.find("error") is not None for case in root.iter("testcase"))
    assert "ERROR select." in result.stdout


def test_report_paths_are_checked_before_the_run(tmp_path: Path) -> None:
    """A report path that is a directory, or `--junit -`, is refused with exit code 2."""
    result = _eventproof("vectors", "--json", str(tmp_path))
    assert result.returncode == 2
    assert "is a directory" in result.stderr
    result = _eventproof("vectors", "--junit", "-")
    assert result.returncode == 2
    assert "only --json writes to stdout" in result.stderr
