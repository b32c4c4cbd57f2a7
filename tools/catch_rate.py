"""How often the default run catches each miniature, over many seeds (``nox -s catch-rate``).

The miniature tests run each planted bug once, derandomized: they prove the bug *can* be caught
at the default effort. This measures how robust that is: every miniature is checked with
``--seeds`` different seeds (0, 1, 2, ... so a measurement can be repeated), and each run counts as
caught when the miniature's own rule fails. The exit code is 1 when any miniature is missed at
least once, so the figure can gate a change to the strategies.

The blind bugs (``tools/blind/bugs.py``, written from the spec alone) are measured too,
under their class names. A blind bug names no rule, only its operation (``OP``): a run of that one
operation counts as caught when any MUST rule of it fails, errors or times out. A bug that only
changes bytes (``BYTES_ONLY``: every line it writes parses to the reference's JSON value, another
spelling or member order) breaks no MUST rule unless a size it changes moves a line across
``maxBytes``, so for it a failure of the SHOULD rule ``canon.bytes`` counts as caught as well; the
``MUST`` column shows how often a MUST rule alone caught it.

    python -m tools.catch_rate --seeds 20 [--effort default] [--jobs N] [NAME ...]
    python -m tools.catch_rate --set blind-wire --seeds 20 --jobs 2

``--set`` adds a whole set to the names: ``wire``, ``selection``, ``blind`` or ``blind-wire``
(the blind bugs of ``classify`` and ``project``); with neither names nor ``--set`` every
miniature of ``selection.py`` and ``wire.py`` is measured.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis.errors import HypothesisWarning

# The checkout's root (for tools.blind) and its tests/ (for the miniatures).
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

#: Seconds one request may take before it counts as hung (the slice(-0) loop).
TIMEOUT = 1.0
#: The same for a blind bug: any MUST rule counts for it, so a request slowed down by a busy
#: machine must not pass for a hang.
BLIND_TIMEOUT = 10.0
#: Blind bugs whose every line parses to the reference's JSON value (another escape, number
#: spelling or member order): the SHOULD rule ``canon.bytes`` is the rule they break.
BYTES_ONLY = frozenset({
    "EscapesLineSeparators", "HtmlSafeEscapes", "NonAsciiEscaped", "UppercaseHexEscapes",
    "NoShortControlEscapes", "PythonFloatRepr", "NegativeZeroWritten", "ArrayIndexByIsdigit",
    "ArrayIndexBoundInclusive", "InsertionOrderOnly", "BoundedFormAsSortedMap",
})


@dataclass(frozen=True)
class Target:
    """One wrong implementation to measure: its set, class, and the rule (or op) that judges."""

    group: str
    cls: type[Any]
    #: The miniature's own rule id, or "" for a blind bug (judged by its op's MUST rules).
    rule: str
    op: str


def _targets() -> dict[str, Target]:
    from eventproof.conformance._operations import RULES_BY_ID
    from miniatures import budget, selection, wire

    from tools.blind.bugs import BUGS

    targets: dict[str, Target] = {}
    for group, module in (("selection", selection), ("wire", wire), ("budget", budget)):
        for name, (cls, rule) in module.MINIATURES.items():
            targets[name] = Target(group, cls, rule, RULES_BY_ID[rule].op)
    for bug in BUGS:
        group = "blind-wire" if bug.OP in ("classify", "project") else "blind-selection"
        targets[bug.__name__] = Target(group, bug, "", bug.OP)
    return targets


def _without_shrinking() -> None:
    """Leave the shrink phase out of every search of this process.

    Whether a run catches a bug is settled when generation first fails a rule; shrinking only
    makes the counterexample small (and on a line of several megabytes can take minutes), so a
    measurement of many runs skips it unless ``--shrink`` is given.
    """
    from eventproof.conformance import _engine
    from hypothesis import Phase

    if getattr(_engine.settings, "without_shrinking", False):
        return
    original = _engine.settings

    def settings(*args: Any, **kwargs: Any) -> Any:
        if "phases" in kwargs:
            kwargs["phases"] = [phase for phase in kwargs["phases"] if phase != Phase.shrink]
        return original(*args, **kwargs)

    settings.without_shrinking = True  # type: ignore[attr-defined]
    _engine.settings = settings  # type: ignore[assignment]


def _check(job: tuple[str, int, str, bool]) -> tuple[str, bool, bool, float, str]:
    """One run: (name, caught, caught by a MUST rule, seconds, the rules that caught it)."""
    from eventproof.conformance import check_implementation

    name, seed, effort, shrink = job
    warnings.filterwarnings("ignore", category=HypothesisWarning)  # reprs of megabyte lines
    if not shrink:
        _without_shrinking()
    target = _targets()[name]
    if target.rule:
        ops: tuple[str, ...] = (("classify", "project") if target.op == "classify"
                                else (target.op,))
    else:
        ops = (target.op,)
    started = time.perf_counter()
    report = check_implementation(target.cls, ops=ops, effort=effort, seed=seed,
                                  deterministic=False,
                                  timeout=TIMEOUT if target.rule else BLIND_TIMEOUT,
                                  # a miniature's own rule settles it: no need for the last round
                                  stop_after=[target.rule] if target.rule else ())
    bad = {"fail", "error", "crash", "timeout"}
    if target.rule:
        caught = report.result_for(target.rule).outcome in bad
        by_must = caught
        rules = [target.rule] if caught else []
    else:
        rules = [f"{result.rule.id}:{result.outcome}" for result in report.results
                 if result.outcome in bad and (result.rule.level == "MUST"
                                               or (name in BYTES_ONLY
                                                   and result.rule.id == "canon.bytes"))]
        by_must = any(result.outcome in bad and result.rule.level == "MUST"
                      for result in report.results)
        caught = bool(rules)
    return name, caught, by_must, time.perf_counter() - started, " ".join(rules)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="miniatures or blind bugs (default: all "
                                                 "miniatures of selection.py and wire.py)")
    parser.add_argument("--set", dest="sets", action="append", default=[],
                        choices=("wire", "selection", "blind", "blind-wire", "blind-selection"),
                        help="add every member of a set")
    parser.add_argument("--seeds", type=int, default=20, help="runs per miniature")
    parser.add_argument("--effort", default="default", help="quick, default or thorough")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--why", action="store_true",
                        help="name the rules that caught each run (on stderr)")
    parser.add_argument("--shrink", action="store_true",
                        help="shrink each failure as a real run does (slower, same catches)")
    args = parser.parse_args()
    known = _targets()
    unknown = sorted(set(args.names) - set(known))
    if unknown:
        parser.error(f"unknown miniature(s) {', '.join(unknown)}; see tests/miniatures/*.py and "
                     "tools/blind/bugs.py")
    names = list(args.names)
    for chosen in args.sets:
        names += [name for name, target in known.items()
                  if target.group == chosen or (chosen == "blind"
                                                and target.group.startswith("blind"))]
    if not names:
        names = [name for name, target in known.items()
                 if target.group in ("selection", "wire")]
    names = sorted(dict.fromkeys(names))
    jobs = [(name, seed, args.effort, args.shrink)
            for name in names for seed in range(args.seeds)]
    caught: Counter[str] = Counter()
    by_must: Counter[str] = Counter()
    seconds: Counter[str] = Counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        for (name, hit, must_hit, took, why), (_, seed, _, _) in zip(pool.map(_check, jobs), jobs,
                                                                   strict=True):
            if args.why:
                print(f"{name} seed {seed}: {why or 'missed'}", file=sys.stderr)
            caught[name] += hit
            by_must[name] += must_hit
            seconds[name] += took
    missed = [name for name in names if caught[name] < args.seeds]
    width = max(map(len, names))
    for name in names:
        target = known[name]
        mark = "" if caught[name] == args.seeds else "  MISSED"
        must = (f"  MUST {by_must[name]:3}/{args.seeds}"
                if not target.rule and name in BYTES_ONLY else "")
        print(f"{target.group:15} {name:{width}}  {caught[name]:3}/{args.seeds}  "
              f"{seconds[name] / args.seeds:5.1f} s/run{must}{mark}")
    total = sum(caught.values())
    print(f"{total}/{len(jobs)} runs caught their miniature ({args.effort} effort, seeds 0-"
          f"{args.seeds - 1}); {len(missed)} miniature(s) missed at least once")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
