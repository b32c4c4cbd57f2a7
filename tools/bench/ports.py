"""A declared limit costs nothing: a default run of the Go template (which declares
``loneSurrogates: false``) against one of the TypeScript template (which declares nothing), in
paired rounds.

Usage (from the repository root; needs ``go`` and ``npm``)::

    python tools/bench/ports.py [--rounds 3] [--effort default]

Both templates are built from clean copies of their committed sources into a temporary
directory, as their READMEs say. Each round runs ``eventproof run --deterministic --jobs 1`` once
on each, back to back, in an order that alternates from round to round; a ratio (Go's wall time
over TypeScript's) is taken within a round, so that a shared machine's drift cancels out, and the
figure is the median of the per-round ratios. Every run must conform, and the Go run's report
must say how many requests its limit concerned: the limit changes what is sent, never how much.
The goal: the Go run within 1.5x of the TypeScript run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOAL = 1.5


def _build(work: Path) -> dict[str, list[str]]:
    """The two templates' commands, each built from a copy of its sources under ``work``."""
    go, ts = work / "go", work / "typescript"
    shutil.copytree(ROOT / "examples" / "go", go)
    shutil.copytree(ROOT / "examples" / "typescript", ts,
                    ignore=shutil.ignore_patterns("node_modules", "dist"))
    env = {**os.environ, "GOTOOLCHAIN": "local"}
    subprocess.run(["go", "build", "-o", str(go / "port"), "."], cwd=go, env=env, check=True)
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--prefer-offline", "-s"], cwd=ts,
                   check=True)
    subprocess.run(["npm", "run", "build", "-s"], cwd=ts, check=True)
    return {"go": [str(go / "port")], "typescript": ["node", str(ts / "dist" / "main.js")]}


def _run(command: list[str], effort: str, report: Path) -> float:
    started = time.perf_counter()
    process = subprocess.run(
        [sys.executable, "-m", "eventproof.conformance", "run", "--impl",
         " ".join(command), "--effort", effort, "--deterministic", "--jobs", "1",
         "--no-progress", "--json", str(report)], capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if process.returncode != 0:
        raise SystemExit(f"{command} did not conform:\n{process.stdout}{process.stderr}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--effort", default="default")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        commands = _build(work)
        ratios = []
        for round_ in range(args.rounds):
            order = ["go", "typescript"] if round_ % 2 == 0 else ["typescript", "go"]
            seconds = {name: _run(commands[name], args.effort, work / f"{name}.json")
                       for name in order}
            limited = sum(result["coverage"].get("limited", 0) for result in json.loads(
                (work / "go.json").read_text("utf-8"))["results"] if "coverage" in result)
            assert limited > 0, "the Go run's report names no request its limit concerned"
            ratios.append(seconds["go"] / seconds["typescript"])
            print(f"round {round_ + 1}: go {seconds['go']:.1f} s, typescript "
                  f"{seconds['typescript']:.1f} s, ratio {ratios[-1]:.2f}")
    median = statistics.median(ratios)
    print(f"go / typescript, median of {len(ratios)} paired rounds: {median:.2f} "
          f"({min(ratios):.2f}-{max(ratios):.2f}); goal: within {GOAL}")
    if median > GOAL:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
