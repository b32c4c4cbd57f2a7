"""A port that reads JSON as a JavaScript engine does (plain ``JSON.parse``: every number a double)
conforms to every profile when it says so (spec/protocol.md §1.2), on the path users run (the
command line's defaults), and is told what to declare when it does not."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

pytestmark = [pytest.mark.node,
              pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")]

PORT = ROOT / "examples" / "js" / "eventproof-port.mjs"
UNDECLARED = ROOT / "tests" / "integration" / "programs" / "js_double_undeclared.mjs"


def _run(impl: str, tmp_path: Path) -> tuple[int, str, dict]:
    report = tmp_path / "report.json"
    process = subprocess.run(
        [sys.executable, "-m", "eventproof.conformance", "run", "--impl", impl,
         "--effort", "quick", "--json", str(report), "--no-progress"],
        capture_output=True, text=True, cwd=tmp_path, timeout=600, check=False)
    return process.returncode, process.stdout, json.loads(report.read_text("utf-8"))


def test_a_double_reader_that_says_so_conforms_to_every_profile(tmp_path: Path) -> None:
    """Plain JSON.parse and JSON.stringify, ``"numbers": "double"`` declared: every rule of the
    nine operations passes under the default scheduler, and the console says in one line what
    the declaration left unjudged."""
    code, stdout, document = _run(f"node {PORT} --numbers=double", tmp_path)
    assert code == 0, stdout
    assert document["capabilities"]["numbers"] == "double"
    assert {result["outcome"] for result in document["results"]} == {"pass"}
    assert [profile["status"] for profile in document["verdict"]["profiles"]] == [
        "conforms"] * 3
    assert 'declared numbers: "double"' in stdout
    assert "project.numbers met no" in stdout


def test_a_double_reader_that_does_not_say_so_is_told_what_to_declare(tmp_path: Path) -> None:
    """The same reading undeclared breaks the rules an integer beyond 2^53 - 1 meets, and every
    such failure says its answer is right for a double reader and names the declaration."""
    code, _stdout, document = _run(f"node {UNDECLARED}", tmp_path)
    assert code == 1
    failed = [result for result in document["results"] if result["outcome"] == "fail"
              and result.get("counterexample")]
    leads = [result for result in failed if not result.get("cause")]
    assert leads
    for result in leads:
        message = result["counterexample"]["message"]
        if "explains why" in message:
            continue  # a catch-all the failure above explains
        assert '"numbers": "double"' in message, (result["id"], message)
