"""The path a new user takes, exactly: the README's first command (`eventproof run` with no
option at all: every operation, the default examples, `--jobs auto`, isolation on) on whatever
install runs the tests. The bare session runs this file on an install without orjson, zstandard
or the compiled walks, so the default face is tested on the default install and without its
speedups."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from eventproof.conformance._operations import RULES
from helpers import quick_start


def _quick_start_first_command() -> list[str]:
    """The README's first Quick start command, from `eventproof` on: what a user runs."""
    return quick_start()[0].split("&&")[-1].split()


def test_the_first_quick_start_command_conforms_on_every_rule(tmp_path: Path) -> None:
    """The README's first command, as written (its options, none, and the default --jobs),
    judges every rule and says the reference conforms, with exit code 0; the JSON report of the
    same run (--json, the one option added) holds every rule passed on answers it judged."""
    words = _quick_start_first_command()
    assert words[0].endswith("eventproof"), words
    assert words[1] == "run", words
    env = {key: value for key, value in os.environ.items() if key != "EVENTPROOF_JOBS"}
    report = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-m", "eventproof.conformance", *words[1:], "--json", str(report)],
        cwd=tmp_path, capture_output=True, text=True, timeout=900, check=False,
        env={**env, "NO_COLOR": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "conforms" in done.stdout
    document = json.loads(report.read_text(encoding="utf-8"))
    assert document["conforms"] is True
    results = {result["id"]: result for result in document["results"]}
    assert set(results) == {rule.id for rule in RULES}
    unearned = [rule for rule, result in results.items()
                if result["outcome"] != "pass" or result["coverage"]["judged"] == 0]
    assert not unearned
