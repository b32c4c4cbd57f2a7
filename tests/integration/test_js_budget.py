"""The JavaScript port's budget profile (examples/js/budget.mjs), checked the way a port's author
checks it: ``eventproof run --impl 'node examples/js/eventproof-port.mjs' --ops <op>``.

The unplanted port conforms on the four budget operations at the default effort, and each planted
budget bug (``EVENTPROOF_JS_BUG``, planted by the overlay programs/js-bugs/bugs.mjs) makes a quick
run fail the rule it
breaks, explained. The planted bugs go through the engine in process, each run ending once its
rule is broken (the rounds until then are a whole run's, so the verdict and counterexample are
the ones ``eventproof run`` reports); one of them goes through the command, for its exit code and
JSON report.

The default run takes one planted bug per operation (``DEFAULT_RUN``); each planted bug is a copy
of a miniature the default run catches in process (``tests/miniatures/budget.py``), and the rest
are marked ``slow`` (``nox -s slow``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from eventproof.conformance import check_implementation

pytestmark = pytest.mark.node

ROOT = Path(__file__).resolve().parents[2]
PORT = ROOT / "examples" / "js" / "eventproof-port.mjs"
#: The same port with the bugs named in EVENTPROOF_JS_BUG planted (programs/js-bugs/).
BUGGY_PORT = ROOT / "tests" / "integration" / "programs" / "js-bugs" / "eventproof-port-bugs.mjs"
if shutil.which("node") is None:
    pytest.skip("node is not on PATH: the JavaScript port cannot run (install Node.js 20+)",
                allow_module_level=True)

BUDGET_OPS = ("details", "roster", "lane", "publish")
#: bug -> (the operation it is planted in, the rule that must catch it, a phrase of the message).
CAUGHT_BY = {
    "zero-allowance-whole": ("details", "details.rejected", "kept whole"),
    "first-come": ("details", "details.output", "never renders as \"(no output)\""),
    "uncharged-fields": ("details", "details.bounded", "Charge every field"),
    "diagnostics-after-output": ("details", "details.claim-order",
                                 "claims its errorMessage and stderr before its output"),
    "no-identity-clip": ("details", "details.identity", "keeps its first 256 code points"),
    "unbounded-roster": ("roster", "roster.bounded", "over maxBytes"),
    "roster-without-count": ("roster", "roster.count", "omittedResults is \"absent\""),
    "lane-clears-count": ("lane", "lane.count", "Recompute the count"),
    "lane-uncapped": ("lane", "lane.merge", "cap the merged roster"),
    "status-immediate": ("publish", "publish.window", "status transitions included"),
    "late-publish": ("publish", "publish.after-return", "callbacks after the return"),
}


def eventproof_run(tmp_path: Path, ops: str, bug: str = "",
                   effort: str = "default") -> tuple[int, dict[str, Any]]:
    """``eventproof run`` on the port (deterministic): its exit code and JSON report."""
    report = tmp_path / "report.json"
    env = {**os.environ, "EVENTPROOF_JS_BUG": bug}
    done = subprocess.run(
        [sys.executable, "-m", "eventproof.conformance", "run", "--impl",
         f"node {BUGGY_PORT if bug else PORT}",
         "--ops", ops, "--effort", effort, "--deterministic", "--no-progress",
         "--json", str(report), "--state-dir", str(tmp_path / "state")],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert report.is_file(), (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    return done.returncode, json.loads(report.read_text("utf-8"))


def test_unplanted_port_conforms_on_the_budget_operations(tmp_path: Path) -> None:
    """Every budget rule passes, none is untested, and the run exits 0."""
    code, report = eventproof_run(tmp_path, ",".join(BUDGET_OPS))
    assert set(report["capabilities"]["ops"]) >= set(BUDGET_OPS)
    outcomes = {result["id"]: result["outcome"] for result in report["results"]}
    assert {result["op"] for result in report["results"]} == set(BUDGET_OPS)
    assert set(outcomes.values()) == {"pass"}, {k: v for k, v in outcomes.items() if v != "pass"}
    assert (code, report["conforms"]) == (0, True)


#: The planted bugs the default test run checks in process, one per budget operation.
DEFAULT_RUN = {"zero-allowance-whole", "roster-without-count", "lane-clears-count",
               "status-immediate"}


def test_the_default_run_takes_each_budget_operation() -> None:
    assert set(CAUGHT_BY) >= DEFAULT_RUN
    assert sorted(CAUGHT_BY[bug][0] for bug in DEFAULT_RUN) == sorted(BUDGET_OPS)


@pytest.mark.parametrize("bug", [
    pytest.param(bug, marks=() if bug in DEFAULT_RUN else pytest.mark.slow)
    for bug in sorted(CAUGHT_BY)])
def test_planted_budget_bug_is_caught(bug: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The quick run on the port with the bug planted fails its rule, explained: within the quick
    budget (60 examples a search), so each of the seed's defects is found early."""
    op, rule, phrase = CAUGHT_BY[bug]
    monkeypatch.setenv("EVENTPROOF_JS_BUG", bug)
    report = check_implementation(f"node {BUGGY_PORT}", ops=[op], effort="quick",
                                  stop_after=[rule])
    result = report.result_for(rule)
    assert result.outcome in {"fail", "error"}, (bug, result.outcome, result.note)
    assert result.counterexample is not None
    assert phrase in result.counterexample.message, result.counterexample.message
    assert not report.conforms


def test_a_planted_bug_fails_the_command_with_its_counterexample(tmp_path: Path) -> None:
    """``eventproof run`` on the port with a planted bug exits 1, and the JSON report carries the
    rule's counterexample with its explanation."""
    op, rule, phrase = CAUGHT_BY["late-publish"]
    code, report = eventproof_run(tmp_path, op, "late-publish", effort="quick")
    result = next(result for result in report["results"] if result["id"] == rule)
    assert result["outcome"] in {"fail", "error"}, result
    assert phrase in result["counterexample"]["message"], result["counterexample"]["message"]
    assert (code, report["conforms"]) == (1, False)
