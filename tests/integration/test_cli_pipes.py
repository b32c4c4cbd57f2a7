"""Output made for pipes: one rule per line, no escape codes, JSON on stdout when asked."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from eventproof.conformance._operations import RULES

EVENTPROOF = [sys.executable, "-m", "eventproof.conformance"]


def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*EVENTPROOF, *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COLUMNS": "60", **env}, check=False)


def test_rules_keep_one_rule_per_line_in_a_pipe() -> None:
    """`eventproof rules | grep` finds each rule on one line, however narrow the terminal."""
    lines = run("rules").stdout.splitlines()
    assert len(lines) == len(RULES)
    assert [line.split()[0] for line in lines] == [rule.id for rule in RULES]


def test_no_escape_codes_with_no_color_even_when_colour_is_forced() -> None:
    """NO_COLOR, TERM=dumb and --no-color each win over FORCE_COLOR: no escape code at all."""
    check = ("run", "--budget", "quick", "--deterministic", "--ops", "classify", "--no-progress")
    assert "\x1b[" in run(*check, FORCE_COLOR="1").stdout  # styled when colour is forced
    for args, env in (("--no-color", *check), {}), (check, {"NO_COLOR": "1"}), (
            check, {"TERM": "dumb"}):
        result = run(*args, FORCE_COLOR="1", **env)
        assert result.returncode == 0
        assert "\x1b[" not in result.stdout, (args, env)


def test_rules_json_and_run_json_to_stdout() -> None:
    """`rules --json` is one JSON array; `run --json -` writes only the report on stdout."""
    rules = json.loads(run("rules", "--json").stdout)
    assert [rule["id"] for rule in rules] == [rule.id for rule in RULES]
    result = run("run", "--budget", "quick", "--deterministic", "--ops", "classify",
                 "--no-progress", "--json", "-")
    document = json.loads(result.stdout)
    assert document["conforms"] is True
    assert "conforms (exit code 0" in result.stderr
