"""What the compiled walks (reference/_speedups.c) buy: process time to project 20,000 events of
each kind, best of 5 rounds on fresh objects, with the compiled walks and with the Python ones
(``EVENTPROOF_NO_EXTENSIONS=1``), each in a process of its own (docs/benchmark.md §5)::

    python tools/bench/walks.py
"""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import time

KINDS = ("facts-256", "facts-1k", "light")
EVENTS = 20_000
ROUNDS = 5


def measure(kind: str) -> float:
    """Best process seconds of :data:`ROUNDS` projections of :data:`EVENTS` fresh events."""
    from eventproof.conformance._workloads import build_workload
    from eventproof.reference import project_event

    events = build_workload(kind, events=EVENTS)
    best = float("inf")
    for _ in range(ROUNDS):
        fresh = copy.deepcopy(events)  # CPython caches a string's UTF-8 form after one encode
        started = time.process_time()
        for event in fresh:
            project_event(event, include_live_events=True)
        best = min(best, time.process_time() - started)
    return best


def main() -> None:
    if len(sys.argv) == 2:  # one measurement, in a process whose walks are set
        from eventproof.reference import _canonical

        print(f"{measure(sys.argv[1]):.6f} {int(_canonical.COMPILED)}")
        return
    for kind in KINDS:
        figures = {}
        for off in ("", "1"):
            env = {**os.environ, "EVENTPROOF_NO_EXTENSIONS": off}
            out = subprocess.run([sys.executable, __file__, kind], env=env, check=True,
                                 capture_output=True, text=True).stdout.split()
            figures["compiled" if out[1] == "1" else "python"] = float(out[0])
        compiled, python = figures.get("compiled"), figures["python"]
        if compiled is None:
            print(f"{kind}: python {python * 1000:.0f} ms (the compiled walks are not built)")
        else:
            print(f"{kind}: compiled {compiled * 1000:.0f} ms, python {python * 1000:.0f} ms "
                  f"({python / compiled:.1f}x)")


if __name__ == "__main__":
    main()
