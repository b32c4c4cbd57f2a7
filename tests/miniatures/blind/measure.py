"""How often the kit's search catches each blind bug.

For every bug of ``bugs.py``: ``eventproof run --ops <its op> --seed S`` for S = 0..4 (random
search, default budget, a fresh state directory each time so that no seed replays another's
failures), and ``eventproof vectors``. Two subprocesses at a time. Prints a Markdown table: the
rules each bug was reported under (with how many seeds), seeds caught out of 5, and whether the
vectors catch it.

    .venv/bin/python -m tests.miniatures.blind.measure [--write] [--only NAME[,NAME...]]

``--write`` also writes tests/miniatures/blind/RESULTS.md. Run from the repository root.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .bugs import BUGS
from .port import MaximalPort

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
EVENTPROOF = str(Path(sys.executable).with_name("eventproof"))
SEEDS = range(5)
JOB_TIMEOUT = 900.0
BAD = ("fail", "error", "crash", "timeout")
_SUMMARY = re.compile(r"(\d+) vectors: (\d+) passed, (\d+) failed, (\d+) differ in bytes only")


@dataclass
class Measured:
    name: str
    op: str
    fit: str
    caught: int = 0
    must_rules: collections.Counter[str] = field(default_factory=collections.Counter)
    should_rules: collections.Counter[str] = field(default_factory=collections.Counter)
    vectors_failed: int = -1
    vectors_bytes: int = 0
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0


def fit_of(bug: type) -> str:
    return "maximal" if issubclass(bug, MaximalPort) else "halving"


def impl_of(name: str) -> str:
    return f"python:tests.miniatures.blind.bugs:{name}"


def env() -> dict[str, str]:
    environment = dict(os.environ)
    environment["PYTHONPATH"] = str(ROOT) + os.pathsep + environment.get("PYTHONPATH", "")
    environment.pop("CI", None)  # CI would force --deterministic
    return environment


def run_seed(name: str, op: str, seed: int) -> tuple[int, dict[str, object] | None, str, float]:
    with tempfile.TemporaryDirectory(prefix="blind-") as state:
        report = Path(state) / "report.json"
        command = [EVENTPROOF, "run", "--impl", impl_of(name), "--ops", op, "--seed", str(seed),
                   "--random", "--no-progress", "--state-dir", state, "--json", str(report)]
        started = time.monotonic()
        try:
            done = subprocess.run(command, cwd=ROOT, env=env(), capture_output=True, text=True,
                                  timeout=JOB_TIMEOUT, check=False)
        except subprocess.TimeoutExpired:
            return -1, None, "job timed out", time.monotonic() - started
        elapsed = time.monotonic() - started
        data = json.loads(report.read_text()) if report.exists() else None
        return done.returncode, data, done.stderr[-400:], elapsed


def run_vectors(name: str) -> tuple[int, int, str]:
    command = [EVENTPROOF, "vectors", "--impl", impl_of(name)]
    done = subprocess.run(command, cwd=ROOT, env=env(), capture_output=True, text=True,
                          timeout=JOB_TIMEOUT, check=False)
    text = " ".join((done.stdout + done.stderr).split())
    match = _SUMMARY.search(text)
    if match is None:
        return -1, 0, text[-300:]
    return int(match.group(3)), int(match.group(4)), ""


def measure(names: list[str]) -> list[Measured]:
    bugs = {bug.__name__: bug for bug in BUGS}
    results = {n: Measured(n, bugs[n].OP, fit_of(bugs[n])) for n in names}
    with ThreadPoolExecutor(max_workers=2) as pool:
        seed_jobs = {(n, s): pool.submit(run_seed, n, results[n].op, s)
                     for n in names for s in SEEDS}
        vector_jobs = {n: pool.submit(run_vectors, n) for n in names}
        for (n, s), job in seed_jobs.items():
            code, data, stderr, elapsed = job.result()
            m = results[n]
            m.seconds += elapsed
            if data is None:
                m.notes.append(f"seed {s}: no report (exit {code}: {stderr.strip()[:120]})")
                continue
            if not data["conforms"]:
                m.caught += 1
            for result in data["results"]:  # type: ignore[attr-defined]
                if result["outcome"] in BAD:
                    target = m.must_rules if result["level"] == "MUST" else m.should_rules
                    target[f"{result['id']}:{result['outcome']}"
                           if result["outcome"] != "fail" else result["id"]] += 1
        for n, vector_job in vector_jobs.items():
            failed, differ, note = vector_job.result()
            results[n].vectors_failed, results[n].vectors_bytes = failed, differ
            if note:
                results[n].notes.append(f"vectors: {note}")
        print(f"measured {len(names)} bugs", file=sys.stderr)
    return [results[n] for n in names]


def rules_text(counter: collections.Counter[str]) -> str:
    return ", ".join(f"`{rule}` ({count})" for rule, count in counter.most_common()) or "—"


def table(rows: list[Measured]) -> str:
    lines = ["| bug | op | fit | MUST rules reported (seeds) | SHOULD rules (seeds) "
             "| seeds caught | vectors |",
             "|---|---|---|---|---|---|---|"]
    for m in rows:
        if m.vectors_failed < 0:
            vectors = "?"
        elif m.vectors_failed:
            vectors = f"yes ({m.vectors_failed})"
        elif m.vectors_bytes:
            vectors = f"bytes only ({m.vectors_bytes})"
        else:
            vectors = "no"
        lines.append(f"| {m.name} | {m.op} | {m.fit} | {rules_text(m.must_rules)} "
                     f"| {rules_text(m.should_rules)} | {m.caught}/{len(SEEDS)} | {vectors} |")
    return "\n".join(lines)


def summary(rows: list[Measured]) -> str:
    always = sum(1 for m in rows if m.caught == len(SEEDS))
    never = [m.name for m in rows if m.caught == 0]
    partly = [m.name for m in rows if 0 < m.caught < len(SEEDS)]
    by_vectors = sum(1 for m in rows if m.vectors_failed > 0)
    either = sum(1 for m in rows if m.caught == len(SEEDS) or m.vectors_failed > 0)
    lines = [f"- {len(rows)} bugs; caught on every seed: {always}; on some seeds only: "
             f"{len(partly)}; on no seed: {len(never)}.",
             f"- Caught by the vectors (a MUST failure): {by_vectors}. Caught on every seed or by "
             f"the vectors: {either}."]
    if partly:
        lines.append(f"- Some seeds only: {', '.join(partly)}.")
    if never:
        lines.append(f"- No seed: {', '.join(never)}.")
    notes = [f"- {m.name}: {note}" for m in rows for note in m.notes]
    if notes:
        lines += ["", "Notes:", *notes]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write RESULTS.md as well")
    parser.add_argument("--only", default="", help="comma-separated bug names")
    args = parser.parse_args(argv)
    names = [b.__name__ for b in BUGS]
    if args.only:
        wanted = args.only.split(",")
        unknown = sorted(set(wanted) - set(names))
        if unknown:
            parser.error(f"unknown bug(s) {unknown}; see tests/miniatures/blind/bugs.py")
        names = [n for n in names if n in wanted]
    started = time.monotonic()
    rows = measure(names)
    body = table(rows) + "\n\n" + summary(rows)
    print(body)
    if args.write:
        header = ("# Blind miniatures: what the search catches\n\n"
                  "Produced by `.venv/bin/python -m tests.miniatures.blind.measure --write` "
                  f"({time.monotonic() - started:.0f} s wall, 2 jobs at a time). Each bug: "
                  "`eventproof run --ops <op> --seed S` for S = 0..4 (random search, default "
                  "budget, fresh state directory), and `eventproof vectors`. A seed counts as "
                  "caught when the run does not conform (a MUST rule failed, errored, crashed or "
                  "timed out); SHOULD rules are listed but never decide. Rule counts are seeds "
                  "out of 5.\n\n")
        (HERE / "RESULTS.md").write_text(header + body + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
