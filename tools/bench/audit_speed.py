"""The audit's speed and memory (docs/audit.md): paired against ``orjson.loads`` of the same
lines, and its peak memory on a generated 1 GiB log.

Speed: each round reads one log several times, back to back in a rotating order: once parsing
every line with ``orjson.loads`` (the least any audit must do), once auditing it
(``eventproof.conformance.audit``, one process), and, with ``--without-orjson``, once auditing
it with orjson hidden from the audit and the reference (the standard library's path, which an
install without orjson takes) and once parsing every line with ``json.loads``; a figure is the
median of the per-round ratios (tools/bench/paired.py). The logs are the kit's light
workload written two ways: facts-only (as the reference projects it) and naive (every event as
it is: the amplified log).

Memory: the audit of a 1 GiB naive log runs in a child process, whose peak resident size
(``VmHWM``, Linux) is compared with the largest line of the log; a log is never loaded whole.

    python tools/bench/audit_speed.py                 # both figures
    python tools/bench/audit_speed.py --skip-memory   # speed only
    python tools/bench/audit_speed.py --skip-memory --without-orjson   # and the pure path
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
from eventproof.conformance._workloads import build_stream
from eventproof.conformance.audit import Settings, audit, expand
from eventproof.reference import project_event
from paired import Spread, Variant, measure

#: The goal: an audit costs at most this many times orjson.loads of the same lines.
GOAL = 2.0
GIB = 1 << 30


def write_logs(directory: Path, events: int, seed: int = 0) -> dict[str, Path]:
    """The light workload written naively and facts-only."""
    stream = build_stream("light", events=events, seed=seed)
    paths = {"naive": directory / "naive.jsonl", "facts-only": directory / "facts.jsonl"}
    with paths["naive"].open("wb") as naive, paths["facts-only"].open("wb") as facts:
        for event in stream:
            naive.write(orjson.dumps(event) + b"\n")
            written = project_event(event, include_live_events=False)
            if written is not None:
                facts.write(written + b"\n")
    return paths


def _loads(path: Path) -> int:
    count = 0
    with path.open("rb") as stream:
        for line in stream:
            orjson.loads(line)
            count += 1
    return count


def _json_loads(path: Path) -> int:
    count = 0
    with path.open("rb") as stream:
        for line in stream:
            json.loads(line)
            count += 1
    return count


def _audit(path: Path) -> int:
    return audit(expand((str(path),)), Settings()).lines


@contextlib.contextmanager
def without_orjson() -> Iterator[None]:
    """orjson hidden from the audit and from the reference's canonical form, as in an install
    without it: every line is read by the standard library, every canonical form written by
    the clear encoder."""
    from eventproof.conformance.audit import _bytes, _fast, _lines
    from eventproof.reference import _canonical

    patched = [(_fast, "orjson"), (_lines, "_orjson"), (_bytes, "_orjson"),
               (_canonical, "_orjson")]
    saved = [getattr(module, name) for module, name in patched]
    shortcut = _canonical._PLAIN_SHORTCUT
    try:
        for module, name in patched:
            setattr(module, name, None)
        _canonical._PLAIN_SHORTCUT = False
        yield
    finally:
        for (module, name), value in zip(patched, saved, strict=True):
            setattr(module, name, value)
        _canonical._PLAIN_SHORTCUT = shortcut


def _pure_audit(path: Path) -> int:
    with without_orjson():
        return _audit(path)


#: The subjects of a paired round: what each times.
SUBJECTS = {"orjson.loads": _loads, "audit": _audit, "json.loads": _json_loads,
            "audit without orjson": _pure_audit}


def speed(paths: dict[str, Path], rounds: int, *, pure: bool = False
          ) -> dict[str, dict[str, Spread]]:
    """Per log, each subject's time over orjson.loads's (and the pure audit's over json.loads's
    as ``audit without orjson / json.loads``), in paired rounds."""
    names = ["orjson.loads", "audit"] + (["json.loads", "audit without orjson"] if pure else [])
    figures = {}
    for name, path in paths.items():
        paired = measure([Variant(subject, functools.partial(Path, path), SUBJECTS[subject])
                          for subject in names], rounds=rounds, timer=time.perf_counter)
        assert len({paired.results[subject] for subject in names}) == 1
        figures[name] = {subject: Spread.of(paired.ratios(subject, "orjson.loads"))
                         for subject in names[1:]}
        if pure:
            figures[name]["audit without orjson / json.loads"] = Spread.of(
                paired.ratios("audit without orjson", "json.loads"))
    return figures


def write_big_log(path: Path, size: int = GIB, seed: int = 0) -> tuple[int, int]:
    """A naive log of at least ``size`` bytes (the light workload again and again); answers
    its size and its largest line."""
    written = largest = 0
    with path.open("wb") as out:
        while written < size:
            for event in build_stream("light", events=5_000, seed=seed):
                line = orjson.dumps(event) + b"\n"
                out.write(line)
                written += len(line)
                largest = max(largest, len(line))
            seed += 1
    return written, largest


_CHILD = """
import json, sys
from pathlib import Path
from eventproof.conformance.audit import Settings, audit, expand

def status(field):  # kB, of this process only: exec starts a new high-water mark
    for row in Path("/proc/self/status").read_text().splitlines():
        if row.startswith(field + ":"):
            return int(row.split()[1]) * 1024
    raise SystemExit("no " + field + " in /proc/self/status (Linux only)")

before = status("VmRSS")
report = audit(expand((sys.argv[1],)), Settings())
repeated = sum(len(seen) for seen in report.stats.repeats.values())
print(json.dumps({"baseline": before, "lines": report.lines, "digests": repeated,
                  "peak": status("VmHWM")}))
"""


def memory(path: Path) -> dict[str, Any]:
    """Peak resident bytes of a child process auditing ``path``, and what it started with."""
    done = subprocess.run([sys.executable, "-c", _CHILD, str(path)], capture_output=True,
                          text=True, check=False, env={**os.environ, "PYTHONHASHSEED": "0"})
    if done.returncode != 0:
        raise RuntimeError(f"the audit of {path} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--without-orjson", action="store_true",
                        help="also time the audit with orjson hidden, and json.loads")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="eventproof-audit-bench-") as directory:
        paths = write_logs(Path(directory), options.events)
        figures_of = {} if options.skip_speed else speed(paths, options.rounds,
                                                         pure=options.without_orjson)
        for name, spreads in figures_of.items():
            size = paths[name].stat().st_size
            audited = spreads["audit"]
            verdict = "within" if audited.median <= GOAL else "over"
            print(f"audit of the {name} log ({size / 2**20:.1f} MiB): {audited.text()} the "
                  f"time of orjson.loads of its lines ({verdict} the goal of {GOAL:.0f}x)")
            for subject, spread in spreads.items():
                if subject != "audit":
                    print(f"  {subject}: {spread.text()}"
                          + ("" if "/" in subject else " the time of orjson.loads"))
        if not options.skip_memory:
            big = Path(directory) / "big.jsonl"
            size, largest = write_big_log(big)
            figures = memory(big)
            grown = figures["peak"] - figures["baseline"]
            print(f"audit of a {size / GIB:.2f} GiB naive log ({figures['lines']:,} lines, "
                  f"largest {largest / 2**20:.2f} MiB): peak resident "
                  f"{figures['peak'] / 2**20:.0f} MiB, {grown / 2**20:.0f} MiB over the "
                  f"{figures['baseline'] / 2**20:.0f} MiB it started with = "
                  f"{grown / largest:.1f}x the largest line "
                  f"({figures['digests']:,} digests of heavy values)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

