"""A run asked to stop early (``stop_after``, ``--exitfirst``) ends after the rounds a whole run
would have searched until then: the rules it found are found exactly as a whole run finds them,
and nothing else is called passed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from eventproof.conformance import HarnessError, check_implementation
from eventproof.conformance._engine import EXITFIRST_REASON, STOP_AFTER_REASON
from miniatures.wire import EnsureAscii

ROOT = Path(__file__).resolve().parents[2]
#: EnsureAscii breaks several project rules; canon.bytes is its own.
OPS = ("project",)


def _broken(report: object) -> dict[str, object]:
    return {result.rule.id: result.counterexample  # type: ignore[attr-defined]
            for result in report.results  # type: ignore[attr-defined]
            if result.outcome in {"fail", "error", "crash", "timeout"}}


@pytest.fixture(scope="module")
def whole() -> object:
    return check_implementation(EnsureAscii, ops=OPS, effort="quick")


def test_stop_after_finds_its_rules_as_a_whole_run_does(whole: object) -> None:
    full = _broken(whole)
    assert len(full) >= 2, "the miniature must break several rules for this test to bite"
    rule = "canon.bytes"
    assert rule in full
    early = check_implementation(EnsureAscii, ops=OPS, effort="quick", stop_after=[rule])
    found = _broken(early)
    assert found[rule] == full[rule]  # the same input, answer and explanation
    assert all(found[other] == full[other] for other in found)  # what it found, found alike
    assert early.cut_short == STOP_AFTER_REASON
    assert not early.conforms
    # Every rule not broken is untested, never passed: its search did not run its course.
    outcomes = {result.rule.id: result.outcome for result in early.results}
    assert {outcome for rule_id, outcome in outcomes.items() if rule_id not in found} <= {
        "untested"}
    assert early.calls < whole.calls  # type: ignore[attr-defined]


def test_exitfirst_stops_at_the_first_broken_rule(whole: object) -> None:
    early = check_implementation(EnsureAscii, ops=OPS, effort="quick", exitfirst=True)
    found = _broken(early)
    assert len(found) == 1
    (rule, counterexample), = found.items()
    assert _broken(whole)[rule] == counterexample
    assert early.cut_short == EXITFIRST_REASON
    assert early.invocation is not None
    assert "--exitfirst" in early.invocation.rerun()


def test_stop_after_under_jobs_finds_its_rule_as_one_process_does(whole: object) -> None:
    """Under --jobs the other operations' rounds stop too, and the rule asked for is found with
    the counterexample one process finds."""
    rule = "canon.bytes"
    early = check_implementation(EnsureAscii, ops=("classify", "project"), effort="quick",
                                 stop_after=[rule], jobs=2)
    assert _broken(early)[rule] == _broken(whole)[rule]
    assert early.cut_short == STOP_AFTER_REASON
    # An operation whose search ran its course before the stop keeps its verdicts.
    assert "untested" in {result.outcome for result in early.results}


def test_stop_after_an_unknown_rule_is_refused() -> None:
    with pytest.raises(HarnessError, match=r"'canon\.byte'.*eventproof rules"):
        check_implementation(EnsureAscii, ops=OPS, stop_after=["canon.byte"])


def test_cli_exitfirst_reports_one_broken_rule_and_the_rest_untested(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "eventproof.conformance", "run", "--impl",
         "python:miniatures.wire:EnsureAscii", "--ops", "project", "--effort", "quick",
         "--deterministic", "--no-progress", "-x", "--json", "-",
         "--state-dir", str(tmp_path / "state")],
        capture_output=True, text=True, timeout=300, check=False, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "tests")})
    assert done.returncode == 1, done.stderr[-2000:]
    report = json.loads(done.stdout)
    outcomes = [result["outcome"] for result in report["results"]]
    assert outcomes.count("fail") + outcomes.count("error") == 1, outcomes
    assert set(outcomes) <= {"fail", "error", "untested"}
    assert "--exitfirst" in done.stderr
