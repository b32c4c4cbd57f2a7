"""How fast the harness generates inputs, and proof that a change to the strategies kept them.

Hypothesis generation is most of a run's time (the Python reference answers in a few percent of
it), so the strategies are kept cheap. A speed-up must not change *which* inputs a run asks: a
derandomized run must send exactly the same requests before and after, so that every verdict,
counterexample and catch rate stays what it was. This script measures the one and checks the
other.

    python tools/bench/generation.py digest --out FILE     # record the inputs of every family
    python tools/bench/generation.py check [FILE]          # compare them with a record
    python tools/bench/generation.py digest --tree DIR ... # the same for the code in DIR
    python tools/bench/generation.py speed                 # examples/s per operation
    python tools/bench/generation.py speed --base DIR      # the same, DIR's code against ours

``digest`` runs every family of every operation the way the engine searches one
(``Engine._search_family``: ``given(strategy)``, derandomized, no database, the engine's
settings and per-family digest, inside ``isolated_constants()``, the operation's observer fed to
``hypothesis.target``) and hashes the inputs Hypothesis asks, in order, with the observer's
scores of each, in three searches:

- ``generate``: an implementation that always agrees; the first ``--examples`` (300) inputs;
- ``shrink``: an implementation that fails on a fixed pseudo-random eighth of the inputs (by the
  input's digest), so that the search finds a failure and shrinks it; every input asked, the
  shrinker's attempts and the final replay included. The shrinker walks the strategies' structure
  (spans, labels, inverses of recorded values), so this search also shows that structure kept;
- ``quick``: as ``generate``, 20 inputs (what the unit test repeats);

and with ``--target`` a fourth, ``target``: 1000 examples with the target phase a thorough budget
adds, which climbs the observers' scores.

``project`` is recorded twice: with the reference's capabilities, and with ``variableMaxBytes:
false`` (every line sized for the default 262144 bytes). tests/unit/test_generation_stable.py
holds the committed record ``tools/bench/generation-digests.json`` to the ``quick``
searches; ``check`` compares all of it. Regenerate it with ``python
tools/bench/generation.py digest --out tools/bench/generation-digests.json`` only when
a change of inputs is intended. The record is made with ``PYTHONHASHSEED=0`` by convention; with
the generation tree's nodes kept alive (:func:`stable_tree_ids`) it does not depend on the seed.

``speed`` times, per operation and in process time (this process's CPU time, which other jobs on
the machine do not inflate), (1) generation alone: every family drawn as above with its share of
the default budget (``split_examples``), observer included, the implementation no-op, ``--passes``
times (5) after one untimed pass (the first draws from a strategy validate it, once per
process); and (2) a
whole ``check_implementation`` of the in-process reference on that operation at the default
budget, examples/s = ``report.calls`` over the run's process time. With ``--base DIR`` (a source
tree, e.g. ``git archive <commit> | tar -x -C DIR``) each round runs both trees in fresh child
processes, in an order that alternates from round to round, and the ratios ours/base are taken
within a round; the figures are medians over rounds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
ROOT = HERE.parents[2]
#: The committed record of every family's inputs.
DIGESTS = HERE.parent / "generation-digests.json"
#: Inputs recorded per family by ``digest`` (the generate search).
DEFAULT_EXAMPLES = 300
#: The example budget of the shrink search (the first failure comes about the eighth example).
SHRINK_BUDGET = 40
#: The fraction of inputs the shrink search's implementation fails on: one in this many.
FAIL_ONE_IN = 8
#: The example budget of the quick search, the one the unit test repeats.
QUICK_EXAMPLES = 20
#: The searches ``digest`` records for every family (``--target`` adds ``target``).
SEARCHES = ("generate", "shrink", "quick")
#: The budget of the ``target`` search: a thorough run's, which adds the target phase.
TARGET_BUDGET = 1000
#: Set in a child that already imports from ``--tree``.
_IN_TREE = "EVENTPROOF_GENERATION_TREE"


# -- the engine's way of searching a family ---------------------------------------------------


def _key(op_input: Any) -> str:
    """The engine's digest of an input (``_engine._key``): member order and ``30`` vs ``30.0``
    count."""
    text = json.dumps(op_input, ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


class _Failed(Exception):
    """Raised by the shrink search's implementation."""


def search(op: Any, family: Any, budget: int, on_input: Callable[[Any, dict[str, float]], None],
           *, fails: Callable[[Any], bool] | None = None, target_phase: bool = False) -> None:
    """Search ``family`` of ``op`` as ``Engine._search_family`` does in a deterministic run
    with nothing excluded, calling ``on_input`` on every input (and the observer's scores of it)
    in the order Hypothesis asks them. With ``fails``, an input for which it is true fails the
    example (and is shrunk). ``target_phase`` adds the phase a thorough budget runs."""
    from eventproof.conformance._engine import isolated_constants
    from hypothesis import HealthCheck, Phase, given, settings, target

    observer = op.observer

    def example(op_input: Any) -> None:
        observations = observer(op_input) if observer is not None else {}
        for label, value in observations.items():
            target(value, label=label)
        on_input(op_input, observations)
        if fails is not None and fails(op_input):
            raise _Failed

    test: Any = given(family.strategy)(example)
    test.hypothesis.inner_test._hypothesis_internal_add_digest = (
        f"eventproof::{op.name}:{family.name}:".encode())
    test = settings(
        max_examples=budget, database=None, derandomize=True, deadline=None,
        report_multiple_bugs=False, print_blob=False, suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.reuse, Phase.generate,
                *([Phase.target] if target_phase else []),
                # The engine does not shrink a fixed share's inputs (Family.examples).
                *([Phase.shrink] if family.examples is None else [])],
    )(test)
    try:
        with isolated_constants():
            test()
    except _Failed:
        pass


def variants() -> Iterator[tuple[str, Any, Any]]:
    """``(name, operation, capabilities)`` for every operation, ``project`` also with a fixed
    bound."""
    from eventproof.conformance._model import Capabilities
    from eventproof.conformance._operations import OPERATIONS

    for op in OPERATIONS:
        yield op.name, op, Capabilities()
        if op.name == "project":
            yield "project[fixed-bound]", op, Capabilities(variable_max_bytes=False)


@contextmanager
def stable_tree_ids() -> Iterator[None]:
    """Keep every node of Hypothesis' generation tree alive until the block ends.

    Hypothesis keys a cache of a tree node's untried children by ``id(node)`` (``DataTree.
    _children_cache``), and nodes are replaced as the tree grows; a freed node's id can be reused
    by a new one, which then inherits the old node's cache. Where a small choice space is nearly
    exhausted (the lane and publish families), the draws then depend on memory addresses, so on
    everything else the process allocated before (the Python hash seed included). Kept alive, no
    id is reused and a search depends only on its strategies. Nothing is drawn differently."""
    from hypothesis.internal.conjecture import datatree

    alive: list[Any] = []
    originals = {cls: cls.__init__ for cls in (datatree.TreeNode, datatree.Branch)}

    def keeping(init: Any) -> Any:
        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            init(self, *args, **kwargs)
            alive.append(self)
        return __init__

    for cls, init in originals.items():
        cls.__init__ = keeping(init)  # type: ignore[method-assign]
    try:
        yield
    finally:
        for cls, init in originals.items():
            cls.__init__ = init  # type: ignore[method-assign]
        alive.clear()


def _fails(op_input: Any) -> bool:
    return int(_key(op_input)[:8], 16) % FAIL_ONE_IN == 0


def _searches(examples: int) -> dict[str, tuple[int, Callable[[Any], bool] | None, bool]]:
    """The searches recorded per family: name -> (budget, which inputs fail, target phase)."""
    return {"generate": (examples, None, False),
            "shrink": (min(SHRINK_BUDGET, examples), _fails, False),
            "quick": (min(QUICK_EXAMPLES, examples), None, False),
            "target": (TARGET_BUDGET, None, True)}


def digests(examples: int, only: set[str] | None = None,
            kinds: tuple[str, ...] = SEARCHES) -> dict[str, dict[str, Any]]:
    """Per ``operation/family/search``: how many inputs were asked, and their joint digest."""
    record: dict[str, dict[str, Any]] = {}
    searches = _searches(examples)
    for name, op, capabilities in variants():
        if only and name.split("[")[0] not in only and name not in only:
            continue
        for family in op.families(capabilities):
            for kind in kinds:
                budget, fails, target_phase = searches[kind]
                joint = hashlib.sha256()
                count = 0

                def seen(op_input: Any, observations: dict[str, float], joint: Any = joint
                         ) -> None:
                    nonlocal count
                    count += 1
                    joint.update(_key(op_input).encode())
                    joint.update(json.dumps(observations).encode())

                with stable_tree_ids():
                    search(op, family, budget, seen, fails=fails, target_phase=target_phase)
                record[f"{name}/{family.name}/{kind}"] = {"inputs": count,
                                                         "sha256": joint.hexdigest()}
    return record


def _meta(examples: int) -> dict[str, Any]:
    import hypothesis

    return {"hypothesis": hypothesis.__version__, "examples": examples,
            "shrink_budget": SHRINK_BUDGET, "fail_one_in": FAIL_ONE_IN}


def compare(recorded: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """The differences between two records, in words (empty when they agree)."""
    problems = []
    for key in sorted(set(recorded) | set(current)):
        if key not in current:
            problems.append(f"{key}: recorded but no longer searched")
        elif key not in recorded:
            problems.append(f"{key}: searched but not recorded")
        elif recorded[key] != current[key]:
            problems.append(f"{key}: recorded {recorded[key]}, now {current[key]}")
    return problems


# -- speed ------------------------------------------------------------------------------------


def _speed_child(ops: list[str], budget: int, passes: int) -> dict[str, dict[str, float]]:
    """Examples per process-second of generation alone and of a whole reference check."""
    from eventproof.conformance import check_implementation
    from eventproof.conformance._engine import split_examples
    from eventproof.reference import Reference

    # No replays are passed: every check is timed drawing its inputs, never replaying them.
    figures: dict[str, dict[str, float]] = {}
    for name, op, capabilities in variants():
        if name not in ops:
            continue
        families = op.families(capabilities)
        count = 0

        def seen(op_input: Any, observations: dict[str, float]) -> None:
            nonlocal count
            count += 1

        # Once untimed: the first draws from a strategy validate it and compute its label, a
        # cost a run pays once per process, not per example.
        for family, share in zip(families, split_examples(budget, families), strict=True):
            search(op, family, share, seen)
        count = 0
        started = time.process_time()
        for _ in range(passes):
            for family, share in zip(families, split_examples(budget, families), strict=True):
                search(op, family, share, seen)
        generation = time.process_time() - started
        figures[name] = {"generated": count, "generation_s": generation}
        if "[" not in name:
            started = time.process_time()
            report = check_implementation(Reference(), ops=[name], max_examples=budget,
                                          deterministic=True)
            figures[name].update(calls=report.calls, check_s=time.process_time() - started)
    return figures


def _shim(tree: Path) -> Path:
    """A directory that makes ``eventproof.*`` import from the source tree ``tree``."""
    shim = Path(tempfile.mkdtemp(prefix="eventproof-shim-"))
    package = shim / "eventproof"
    package.mkdir()
    for name, source in (("reference", "reference"), ("conformance", "conformance"),
                         ("schemas", "schemas"), ("vectors", "spec/vectors")):
        (package / name).symlink_to(tree.resolve() / source)
    return shim


def _require_tree(tree: Path) -> None:
    import eventproof.conformance as loaded

    where = Path(loaded.__file__).resolve()
    if not where.is_relative_to(tree.resolve()):
        raise SystemExit(f"eventproof.conformance was imported from {where}, not from {tree}: "
                         "the shim on PYTHONPATH did not take")


def _run_child(tree: Path, shim: Path, ops: list[str], budget: int, passes: int
               ) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(shim), *filter(None, [os.environ.get("PYTHONPATH")])])}
    out = subprocess.run(
        [sys.executable, str(HERE), "_speed-child", "--tree", str(tree), "--examples", str(budget),
         "--passes", str(passes), "--ops", ",".join(ops)],
        env=env, check=True, capture_output=True, text=True).stdout
    result: dict[str, Any] = json.loads(out)
    return result


def _rate(figure: dict[str, float], what: str) -> float:
    if what == "generation":
        return figure["generated"] / figure["generation_s"]
    return figure["calls"] / figure["check_s"]


def speed(ops: list[str], budget: int, rounds: int, base: Path | None, passes: int) -> None:
    trees = {"ours": ROOT} if base is None else {"base": base, "ours": ROOT}
    shims = {side: _shim(tree) for side, tree in trees.items()}
    runs: dict[str, list[dict[str, Any]]] = {side: [] for side in trees}
    for round_ in range(rounds):
        order = list(trees) if round_ % 2 == 0 else list(reversed(trees))
        for side in order:
            runs[side].append(_run_child(trees[side], shims[side], ops, budget, passes))
        print(f"round {round_ + 1}/{rounds} done", file=sys.stderr)
    header = f"{'operation':<22}{'what':<12}"
    header += "".join(f"{side + ' ex/s':>12}" for side in trees)
    header += f"{'ours/base':>11}{'(range)':>16}" if base is not None else ""
    print(f"budget {budget} per operation, {rounds} rounds, generation timed over {passes} "
          "passes, process time")
    print(header)
    for name in ops:
        for what in ("generation", "check"):
            if what == "check" and "[" in name:
                continue
            rates = {side: [_rate(run[name], what) for run in runs[side]] for side in trees}
            line = f"{name:<22}{what:<12}"
            line += "".join(f"{statistics.median(rates[side]):>12.1f}" for side in trees)
            if base is not None:
                ratios = [mine / theirs for mine, theirs in zip(rates["ours"], rates["base"],
                                                                 strict=True)]
                line += (f"{statistics.median(ratios):>10.2f}x"
                         f"{f'{min(ratios):.2f}-{max(ratios):.2f}':>16}")
            print(line)
    if base is not None:
        for what in ("generation", "check"):
            names = [name for name in ops if what == "generation" or "[" not in name]
            totals = {side: [sum(run[n][f"{what}_s"] for n in names) for run in runs[side]]
                      for side in trees}
            ratios = [theirs / mine for mine, theirs in zip(totals["ours"], totals["base"],
                                                             strict=True)]
            before, after = statistics.median(totals["base"]), statistics.median(totals["ours"])
            print(f"all operations, {what}: median {before:.1f} s -> {after:.1f} s; per round "
                  f"{statistics.median(ratios):.2f}x as fast (median; range {min(ratios):.2f}-"
                  f"{max(ratios):.2f})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    record = commands.add_parser("digest", help="record the inputs of every family")
    record.add_argument("--out", type=Path, help="write the record here (default: stdout)")
    record.add_argument("--examples", type=int, default=DEFAULT_EXAMPLES)
    record.add_argument("--ops", help="comma-separated operations (default: all)")
    record.add_argument("--target", action="store_true",
                        help=f"also record a search of {TARGET_BUDGET} examples with the target "
                        "phase (slow)")
    check = commands.add_parser("check", help="compare the inputs with a record")
    check.add_argument("record", type=Path, nargs="?", default=DIGESTS)
    timing = commands.add_parser("speed", help="examples/s per operation")
    timing.add_argument("--base", type=Path, help="a source tree to compare against")
    timing.add_argument("--rounds", type=int, default=3)
    timing.add_argument("--examples", type=int, default=200)
    timing.add_argument("--ops", help="comma-separated operations (default: all)")
    timing.add_argument("--passes", type=int, default=5,
                        help="generation passes timed per round (one budget's worth each)")
    child = commands.add_parser("_speed-child")
    child.add_argument("--tree", type=Path, required=True)
    child.add_argument("--examples", type=int, required=True)
    child.add_argument("--ops", required=True)
    child.add_argument("--passes", type=int, required=True)
    for command in (record, check):
        command.add_argument("--tree", type=Path,
                             help="import eventproof from this source tree (default: installed)")
    args = parser.parse_args(argv)
    # A shrunk input is printed as a (long) repr at the end of a failing search; not read here.
    warnings.filterwarnings("ignore", message="Generating overly large repr")

    tree = getattr(args, "tree", None)
    if args.command in ("digest", "check") and tree is not None and not os.environ.get(_IN_TREE):
        shim = _shim(tree)
        env = {**os.environ, _IN_TREE: "1", "PYTHONPATH": os.pathsep.join(
            [str(shim), *filter(None, [os.environ.get("PYTHONPATH")])])}
        return subprocess.run([sys.executable, str(HERE), *sys.argv[1:]], env=env).returncode
    if tree is not None:
        _require_tree(tree)
    if args.command == "_speed-child":
        print(json.dumps(_speed_child(args.ops.split(","), args.examples, args.passes)))
        return 0
    if args.command == "digest":
        only = set(args.ops.split(",")) if args.ops else None
        kinds = (*SEARCHES, "target") if args.target else SEARCHES
        text = json.dumps({"meta": _meta(args.examples),
                           "families": digests(args.examples, only, kinds)}, indent=1) + "\n"
        if args.out:
            args.out.write_text(text)
        else:
            sys.stdout.write(text)
        return 0
    if args.command == "check":
        recorded = json.loads(args.record.read_text())
        only = {key.split("/")[0].split("[")[0] for key in recorded["families"]}
        kinds = tuple(dict.fromkeys(key.rsplit("/", 1)[1] for key in recorded["families"]))
        current = digests(recorded["meta"]["examples"], only, kinds)
        problems = compare(recorded["families"], current)
        for problem in problems:
            print(problem)
        print(f"{len(current) - len(problems)} of {len(current)} family searches agree with "
              f"{args.record}")
        return 1 if problems else 0
    all_ops = [name for name, _, _ in variants()]
    ops = args.ops.split(",") if args.ops else all_ops
    unknown = [name for name in ops if name not in all_ops]
    if unknown:
        raise SystemExit(f"unknown operation(s) {unknown}: use some of {', '.join(all_ops)}")
    speed(ops, args.examples, args.rounds, args.base, args.passes)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
