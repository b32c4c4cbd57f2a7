"""How much faster a deterministic check is when an earlier check in the process left its traces
(``_engine.Replays``: the searches that found nothing are replayed, not drawn again), in paired
rounds.

Usage (from the repository root, default effort, 3 rounds)::

    python tools/bench/replays.py [--rounds 3] [--effort default]

This is what the second and later implementations of ``eventproof run --impl A --impl B``
gain. Each round clears the traces, checks the bundled reference once (untimed: it leaves the
traces), then checks the subject twice, with replays off and on, in an order that alternates from
round to round. The subjects are the reference itself (every search replayed) and
``SeveralBugs`` from ``parallel.py`` (six operations break rules: each replay ends at the first
answer that parts from the reference's, and the search runs from there). A ratio is taken within
a round (process seconds drawing over process seconds replaying), and the figure is the median of
the per-round ratios. Both reports of a pair are checked equal but for the duration.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1] / "tests"), str(HERE)]

from eventproof.conformance import check_implementation  # noqa: E402
from eventproof.conformance._engine import Replays  # noqa: E402
from eventproof.conformance._reports import report_document  # noqa: E402
from eventproof.reference import Reference  # noqa: E402
from helpers import without_duration  # noqa: E402
from parallel import SeveralBugs  # noqa: E402


def timed(subject: type, effort: str, replays: Replays | None) -> tuple[float, dict[str, Any]]:
    started = time.process_time()
    report = check_implementation(subject(), effort=effort, deterministic=True,
                                  replays=replays)
    seconds = time.process_time() - started
    return seconds, without_duration(report_document(report))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--effort", default="default")
    args = parser.parse_args()
    timed(Reference, "quick", None)  # strategies validated once, outside every round
    for subject in (Reference, SeveralBugs):
        ratios, drawn, replayed = [], [], []
        for index in range(args.rounds):
            store = Replays()  # the run's traces, as `eventproof run` keeps them
            check_implementation(Reference(), effort=args.effort, deterministic=True,
                                 replays=store)
            order = (False, True) if index % 2 == 0 else (True, False)
            runs = {replay: timed(subject, args.effort, store if replay else None)
                    for replay in order}
            if runs[False][1] != runs[True][1]:
                print(f"{subject.__name__}: the replayed report differs", file=sys.stderr)
                return 1
            drawn.append(runs[False][0])
            replayed.append(runs[True][0])
            ratios.append(runs[False][0] / runs[True][0])
        print(f"{subject.__name__}: {statistics.median(ratios):.2f}x as fast replaying "
              f"(rounds {', '.join(f'{ratio:.2f}' for ratio in ratios)}; drawing "
              f"{statistics.median(drawn):.1f} s, replaying {statistics.median(replayed):.1f} s "
              "process time, median)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
