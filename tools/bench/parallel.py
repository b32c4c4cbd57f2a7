"""How much faster ``eventproof run --jobs 2`` is than ``--jobs 1``, in paired rounds.

Usage (from the repository root, default effort, 3 rounds)::

    python tools/bench/parallel.py [--rounds 3] [--effort default] [--jobs 2]

Each round runs ``eventproof run --deterministic`` (the CLI, in a subprocess, the implementation
isolated as by default) once with ``--jobs 1`` and once with ``--jobs N``, back to back, in an
order that alternates from round to round, on two implementations: the bundled reference (one
round per operation, every family searched) and :class:`SeveralBugs`, a wrong implementation that
breaks rules in six operations (many rounds, each ending at the family that finds a violation).
A ratio is taken within a round (one process's wall time over N processes'), so that a shared
machine's drift cancels out; the figure is the median of the per-round ratios. Every pair of
JSON reports is also checked equal but for the duration: the speed-up is only worth having with
the same report. The load average is printed before and after: on a machine whose cores are
busy with other work, N processes cannot get N cores and the ratio says so.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests"), str(Path(__file__).resolve().parent)]

from helpers import without_duration  # noqa: E402
from miniatures.budget import LaneCountsShown, RosterWithoutCount  # noqa: E402
from miniatures.selection import LastMessageUnfiltered, ResultOutputNull  # noqa: E402
from miniatures.wire import KeepsPartial, UnknownTypeIsFrame  # noqa: E402


class SeveralBugs(LastMessageUnfiltered, ResultOutputNull, RosterWithoutCount, LaneCountsShown,
                  KeepsPartial, UnknownTypeIsFrame):
    """Six planted bugs at once: ``select``, ``settle``, ``classify``, ``project``, ``roster``
    and ``lane`` each break rules (the miniatures of tests/miniatures/, combined)."""

    name = "several-bugs"


IMPLEMENTATIONS = {
    "reference": "python:eventproof.reference:Reference",
    "several-bugs": "python:parallel:SeveralBugs",
}


def timed_run(impl: str, jobs: int, effort: str, report: Path, state: Path) -> float:
    """Wall seconds of one ``eventproof run``; the JSON report goes to ``report`` (the case
    files, whose paths it names, under ``state``)."""
    paths = [str(ROOT / "tests"), str(Path(__file__).resolve().parent)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [*paths, *filter(None, [os.environ.get("PYTHONPATH")])])}
    command = [sys.executable, "-m", "eventproof.conformance", "run", "--impl", impl,
               "--deterministic", "--effort", effort, "--jobs", str(jobs), "--no-progress",
               "--json", str(report), "--state-dir", str(state)]
    started = time.perf_counter()
    finished = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                              check=False)
    seconds = time.perf_counter() - started
    if finished.returncode not in (0, 1):
        sys.exit(f"{' '.join(command)} exited {finished.returncode}:\n{finished.stderr}")
    return seconds


def report_at(path: Path) -> dict[str, object]:
    """The JSON report at ``path`` without its duration."""
    return without_duration(json.loads(path.read_text()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--effort", default="default", choices=["quick", "default", "thorough"])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--impl", action="append", choices=sorted(IMPLEMENTATIONS),
                        help="only this implementation (repeatable; default: both)")
    args = parser.parse_args()
    names = args.impl or list(IMPLEMENTATIONS)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
          f"on {os.cpu_count()} cores")
    speedups: dict[str, list[float]] = {name: [] for name in names}
    with tempfile.TemporaryDirectory() as scratch:
        for round_ in range(args.rounds):
            for name in names:
                order = [1, args.jobs] if round_ % 2 == 0 else [args.jobs, 1]
                seconds: dict[int, float] = {}
                reports: dict[int, Path] = {}
                for jobs in order:
                    reports[jobs] = Path(scratch) / f"{name}-{jobs}.json"
                    seconds[jobs] = timed_run(IMPLEMENTATIONS[name], jobs, args.effort,
                                              reports[jobs], Path(scratch) / name)
                if report_at(reports[1]) != report_at(reports[args.jobs]):
                    sys.exit(f"{name}: the --jobs {args.jobs} report differs from --jobs 1's")
                speedups[name].append(seconds[1] / seconds[args.jobs])
                print(f"round {round_ + 1} {name:13} --jobs 1 {seconds[1]:6.1f} s, "
                      f"--jobs {args.jobs} {seconds[args.jobs]:6.1f} s: "
                      f"{speedups[name][-1]:.2f}x", flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for name in names:
        print(f"{name}: median speed-up {statistics.median(speedups[name]):.2f}x of --jobs "
              f"{args.jobs} over --jobs 1 ({args.effort} effort, {args.rounds} paired rounds; "
              f"per round {', '.join(f'{ratio:.2f}' for ratio in speedups[name])})")


if __name__ == "__main__":
    main()
