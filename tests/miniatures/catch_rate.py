"""How often the default run catches each miniature, over many seeds (``nox -s catch-rate``).

The miniature tests run each planted bug once, derandomized: they prove the bug *can* be caught
within the default budget. This measures how robust that is: every miniature is checked with
``--seeds`` different seeds (0, 1, 2, ... so a measurement can be repeated), and each run counts as
caught when the miniature's own rule fails. The exit code is 1 when any miniature is missed at
least once, so the figure can gate a change to the strategies.

    python tests/miniatures/catch_rate.py --seeds 20 [--budget default] [--jobs N] [NAME ...]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

#: Seconds one request may take before it counts as hung (the slice(-0) loop).
TIMEOUT = 1.0


def _miniatures() -> dict[str, tuple[str, type[Any], str]]:
    from miniatures import budget, selection, wire

    return {
        **{name: ("selection", cls, rule) for name, (cls, rule) in selection.MINIATURES.items()},
        **{name: ("wire", cls, rule) for name, (cls, rule) in wire.MINIATURES.items()},
        **{name: ("budget", cls, rule) for name, (cls, rule) in budget.MINIATURES.items()},
    }


def _check(job: tuple[str, int, str]) -> tuple[str, bool, float]:
    from eventproof.conformance import check_implementation
    from eventproof.conformance._operations import RULES_BY_ID

    name, seed, budget = job
    _, cls, rule = _miniatures()[name]
    op = RULES_BY_ID[rule].op
    ops = ("classify", "project") if op == "classify" else (op,)
    started = time.perf_counter()
    report = check_implementation(cls, ops=ops, budget=budget, seed=seed, deterministic=False,
                                  timeout=TIMEOUT)
    caught = report.result_for(rule).outcome in {"fail", "error", "timeout"}
    return name, caught, time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="miniatures to measure (default: all)")
    parser.add_argument("--seeds", type=int, default=20, help="runs per miniature")
    parser.add_argument("--budget", default="default", help="quick, default or thorough")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    known = _miniatures()
    unknown = sorted(set(args.names) - set(known))
    if unknown:
        parser.error(f"unknown miniature(s) {', '.join(unknown)}; see tests/miniatures/*.py")
    names = args.names or sorted(known)
    jobs = [(name, seed, args.budget) for name in names for seed in range(args.seeds)]
    caught: Counter[str] = Counter()
    seconds: Counter[str] = Counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        for name, hit, took in pool.map(_check, jobs):
            caught[name] += hit
            seconds[name] += took
    missed = [name for name in names if caught[name] < args.seeds]
    width = max(map(len, names))
    for name in names:
        mark = "" if caught[name] == args.seeds else "  MISSED"
        print(f"{known[name][0]:9} {name:{width}}  {caught[name]:3}/{args.seeds}  "
              f"{seconds[name] / args.seeds:5.1f} s/run{mark}")
    total = sum(caught.values())
    print(f"{total}/{len(jobs)} runs caught their miniature ({args.budget} budget, seeds 0-"
          f"{args.seeds - 1}); {len(missed)} miniature(s) missed at least once")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
