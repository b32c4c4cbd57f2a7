"""How true the status line's "time left" is, with one process and with worker processes.

Usage (from the repository root, quick budget)::

    python tools/bench/progress.py [--effort quick] [--jobs 1 2]

Each run checks an implementation (the bundled reference, then :class:`SeveralBugs`, a wrong
implementation breaking rules in six operations: many rounds) in this process with ``jobs``
worker processes, hearing every progress event. After each event it takes the time left that
:class:`RunProgress` tells at the rate so far, and the time left that the status line told
before it was a model of events (the operations *begun*, the current one half done). Once the
run is over the true time left after each event is known: the figure is the mean absolute error
of each estimate, in seconds and as a share of the run, over the events of the middle 80 % of
the run (the first seconds tell nothing yet), and how long each estimate stood still (the
longest stretch of the run over which its share done did not move).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests")]

from eventproof.conformance import check_implementation  # noqa: E402
from eventproof.conformance._operations import OPS  # noqa: E402
from eventproof.conformance._progress import ProgressEvent, RunProgress, SearchBegan  # noqa: E402
from eventproof.conformance._shard import WEIGHT  # noqa: E402
from miniatures.budget import LaneCountsShown, RosterWithoutCount  # noqa: E402
from miniatures.selection import LastMessageUnfiltered, ResultOutputNull  # noqa: E402
from miniatures.wire import KeepsPartial, UnknownTypeIsFrame  # noqa: E402


class SeveralBugs(LastMessageUnfiltered, ResultOutputNull, RosterWithoutCount, LaneCountsShown,
                  KeepsPartial, UnknownTypeIsFrame):
    """Bugs in six operations at once."""

    name = "several-bugs"


def _begun_share(begun: list[str]) -> float:
    """The share done as the status line told it from the operations begun alone."""
    total = sum(WEIGHT.values())
    finished = sum(WEIGHT[op] for op in begun[:-1])
    current = WEIGHT[begun[-1]] / 2 if begun else 0
    return min(1.0, (finished + current) / total)


def _measure(impl: Any, jobs: int, effort: str) -> dict[str, float]:
    samples: list[tuple[float, float, float]] = []  # (seconds, share now, share as once told)
    model = RunProgress(OPS)
    begun: list[str] = []
    started = time.monotonic()

    def hear(event: ProgressEvent) -> None:
        nonlocal started
        if not samples:
            started = time.monotonic()  # as the status line: the rate from the first event
        model.hear(event)
        if isinstance(event, SearchBegan) and event.op not in begun:
            begun.append(event.op)
        samples.append((time.monotonic() - started, model.done(), _begun_share(begun)))

    check_implementation(impl, effort=effort, jobs=jobs, on_event=hear)
    total = time.monotonic() - started
    figures: dict[str, float] = {"seconds": total}
    middle = [sample for sample in samples if 0.1 * total <= sample[0] <= 0.9 * total]
    for index, name in ((1, "events"), (2, "begun")):
        errors = []
        for seconds, *shares in middle:
            share = shares[index - 1]
            told = seconds * (1 - share) / share if share > 0 else total
            errors.append(abs(told - (total - seconds)))
        figures[f"{name} error s"] = statistics.fmean(errors) if errors else float("nan")
        still, since, last = 0.0, 0.0, -1.0
        for seconds, *shares in samples:
            if shares[index - 1] != last:
                still, since, last = max(still, seconds - since), seconds, shares[index - 1]
        figures[f"{name} still s"] = max(still, total - since)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--effort", default="quick")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    options = parser.parse_args()
    print("implementation  jobs  seconds  | time left: mean error (share of run), longest "
          "stand-still | events model | begun model")
    for impl, name in (("python:eventproof.reference:Reference", "reference"),
                       (SeveralBugs, "several-bugs")):
        for jobs in options.jobs:
            figures = _measure(impl, jobs, options.effort)
            total = figures["seconds"]
            cells = [f"{model} {figures[f'{model} error s']:5.1f} s "
                     f"({figures[f'{model} error s'] / total:4.0%}), "
                     f"still {figures[f'{model} still s']:5.1f} s" for model in ("events", "begun")]
            print(f"{name:15} {jobs:4} {total:8.1f}  | {' | '.join(cells)}", flush=True)


if __name__ == "__main__":
    main()
