"""How often the kit's search catches each blind bug.

For every bug of ``bugs.py`` and ``full_bugs.py``: ``eventproof run --ops <its op> --seed S`` for
S = 0..4 (random search, default budget, a fresh state directory each time so that no seed
replays another's failures), and ``eventproof vectors``. Two subprocesses at a time. Prints a
Markdown table: the rules each bug was reported under (with how many seeds), seeds caught out of
the seeds run, and whether the vectors catch it.

    .venv/bin/python -m tools.blind.measure [--write] [--only NAME[,NAME...]]
        [--ops OP[,OP...]] [--seeds N] [--section TITLE]

``--write`` writes tools/blind/RESULTS.md: the whole file, or with ``--section`` only
the section of that title (added at the end when it is not there yet), so that a measure of some
operations keeps the others' tables. Run from the repository root.
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
from .full_bugs import FULL_BUGS
from .port import MaximalPort

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
EVENTPROOF = str(Path(sys.executable).with_name("eventproof"))
SEEDS = range(5)
JOB_TIMEOUT = 900.0
BAD = ("fail", "error", "crash", "timeout")
#: The vectors' summary line; the last count is of vectors that broke only a SHOULD rule.
_SUMMARY = re.compile(r"(\d+) vectors: (\d+) passed, (\d+) failed, (\d+) "
                      r"(?:differ in bytes only|broke only a SHOULD rule)")
ALL_BUGS: list[type] = [*BUGS, *FULL_BUGS]


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
    if getattr(bug, "OP", "") != "project":
        return "—"
    return "maximal" if issubclass(bug, MaximalPort) else "halving"


def impl_of(name: str) -> str:
    bug = next(b for b in ALL_BUGS if b.__name__ == name)
    return f"python:{bug.__module__}:{name}"


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
    bugs = {bug.__name__: bug for bug in ALL_BUGS}
    results = {n: Measured(n, getattr(bugs[n], "OP", ""), fit_of(bugs[n])) for n in names}
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
    parser.add_argument("--ops", default="", help="only the bugs of these operations")
    parser.add_argument("--seeds", type=int, default=5, help="seeds 0..N-1 (default 5)")
    parser.add_argument("--section", default="", help="with --write: write only this section")
    args = parser.parse_args(argv)
    global SEEDS
    SEEDS = range(args.seeds)
    names = [b.__name__ for b in ALL_BUGS]
    if args.ops:
        ops = args.ops.split(",")
        names = [b.__name__ for b in ALL_BUGS if getattr(b, "OP", "") in ops]
    if args.only:
        wanted = args.only.split(",")
        unknown = sorted(set(wanted) - set(names))
        if unknown:
            parser.error(f"unknown bug(s) {unknown}; see tools/blind/bugs.py")
        names = [n for n in names if n in wanted]
    started = time.monotonic()
    rows = measure(names)
    body = table(rows) + "\n\n" + summary(rows)
    print(body)
    if args.write and args.section:
        command = " ".join(["--write", *(f"--{k} {v}" for k, v in
                                         (("ops", args.ops), ("only", args.only)) if v),
                            f"--seeds {args.seeds}", f"--section '{args.section}'"])
        header = (f"## {args.section}\n\n"
                  f"Produced by `.venv/bin/python -m tools.blind.measure {command}` "
                  f"({time.monotonic() - started:.0f} s wall, 2 jobs at a time). Each bug: "
                  f"`eventproof run --ops <op> --seed S` for S = 0..{args.seeds - 1} (random "
                  "search, default budget, fresh state directory), and `eventproof vectors`; "
                  "as above, a seed counts as caught when the run does not conform. Rule counts "
                  f"are seeds out of {args.seeds}.\n\n")
        write_section(HERE / "RESULTS.md", args.section, header + body + "\n")
    elif args.write:
        header = ("# Blind miniatures: what the search catches\n\n"
                  "Produced by `.venv/bin/python -m tools.blind.measure --write` "
                  f"({time.monotonic() - started:.0f} s wall, 2 jobs at a time). Each bug: "
                  f"`eventproof run --ops <op> --seed S` for S = 0..{args.seeds - 1} (random "
                  "search, default budget, fresh state directory), and `eventproof vectors`. A "
                  "seed counts as caught when the run does not conform (a MUST rule failed, "
                  "errored, crashed or timed out); SHOULD rules are listed but never decide. "
                  f"Rule counts are seeds out of {args.seeds}.\n\n")
        (HERE / "RESULTS.md").write_text(header + body + "\n")
    return 0


def write_section(path: Path, title: str, text: str) -> None:
    """Replace the ``## title`` section of the file (up to the next ``## ``), or append it."""
    old = path.read_text() if path.exists() else ""
    heading = f"## {title}\n"
    start = old.find(heading)
    if start < 0:
        path.write_text(old.rstrip("\n") + "\n\n" + text)
        return
    end = old.find("\n## ", start + len(heading))
    rest = old[end + 1:] if end >= 0 else ""
    path.write_text(old[:start] + text + ("\n" + rest if rest else ""))


if __name__ == "__main__":
    sys.exit(main())
