"""Writing the plan of where each language trap is planted (``_trap_plan.py``).

``python -m tools.trap_build --write`` plants every trap of
:data:`._traps.TRAPS` in each operation's vector inputs and writes, for each trap, the input it
went into and where the schema refused it; ``--check`` says whether the module is current.
Each trap goes into the input where it shows most: where the reference's answer changes for
it (and is not ``errored``), else where the answer becomes ``errored``; among those, where it
changes most values (a size: the smallest input), the richest inputs first, from where the
last trap went. A trap whose every plant leaves the reference's answer as it was is not
planted in that operation (but for the nesting limit and the sizes, which a port with such a
limit refuses whatever the answer; ids, which a port keys its maps by; and a block-end's own
text, which a port may read instead).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path as FilePath
from typing import Any

from eventproof.conformance._json import same_json
from eventproof.conformance._model import Capabilities
from eventproof.conformance._operations import OPERATIONS, operation
from eventproof.conformance._traps import (
    MISREADS,
    SIZES,
    TRAPS,
    Recipe,
    _nodes,
    _recipe,
    _vectors,
    plant,
)
from eventproof.reference import InvalidInput

#: The module the plan is written to.
PLAN_PATH = FilePath(__file__).resolve().parents[1] / "conformance" / "_trap_plan.py"


def _size(value: Any) -> int:
    return sum(1 for _ in _nodes(value))


def _answer(op: str, op_input: Any) -> Any:
    try:
        return operation(op).reference(op_input, Capabilities())
    except InvalidInput:
        return InvalidInput


def _changed(before: Any, after: Any) -> int:
    """How many values of ``before`` differ in ``after``."""
    old = dict(_nodes(before))
    return sum(1 for path, node in _nodes(after)
               if not isinstance(node, dict | list) and old.get(path, _nodes) != node)


def _shows(op: str, base: Any, recipe: Recipe) -> tuple[int, int]:
    """How well a planted input shows its trap: first 2 when the reference's answer changes
    (from its answer to the input, or for a plant with a :data:`MISREADS` entry to the input as
    a port in the trap reads it) and is not ``errored``, 1 when it becomes ``errored``, 0 when
    it stays; then how many values of the input it changed."""
    trap = next(trap for trap in TRAPS + SIZES if trap.name == recipe[0])
    planted = plant(trap, base, recipe[2], recipe[3])
    changed = _changed(base, planted)
    misread = MISREADS.get(trap.plant.how)
    if misread is not None:
        # A plant the reference may answer as before (two integers that are one once wrapped):
        # what shows the trap is the answer of a port that falls into it, the reference's to
        # the input as that port reads it.
        base = misread(planted, trap.plant.value)
    before = _answer(op, base)
    after = _answer(op, planted)
    if after is InvalidInput:
        return (0 if before is InvalidInput else 1), changed
    return (0 if before is not InvalidInput and same_json(before, after) else 2), changed


#: Plants kept where the reference's answer stays: a nesting limit refuses the request, ids are
#: opaque to the reference but a port keys its maps by them, and a block-end's text is one the
#: reference does not read but a port may.
_ALWAYS = ("deep-member", "block-end", "id", "repeated-id", "repeat-first", "index-ids",
           "case-ids", *MISREADS)
#: Sizes planted once for each kind of input that reads them in its own way (the vectors of
#: each rule: a selected message and a streamed text fallback are read by different code), in
#: as many as this many kinds.
_EVERY_READING = ("texts-past-4096", "nested-items-past-256")
_READINGS_PER_SIZE = 3


def build_plan(op: str, schema: str) -> tuple[Recipe, ...]:
    """Every trap of :data:`TRAPS` planted in one of ``op``'s vector inputs (valid against
    ``schema``); a trap that changes nothing of them is left out."""
    bases = sorted(((vector, op_input) for vector, (of, op_input) in _vectors().items()
                    if of == op), key=lambda item: (-_size(item[1]), item[0]))
    recipes: list[Recipe] = []
    turn = 0
    for trap in TRAPS + SIZES:
        best: tuple[tuple[int, int], int, Recipe] | None = None
        by_reading: dict[str, tuple[tuple[int, int], int, Recipe]] = {}
        for step in range(len(bases)):
            vector, base = bases[(turn + step) % len(bases)]
            recipe = _recipe(trap, vector, base, schema)
            if recipe is None:
                continue
            shows, changed = _shows(op, base, recipe)
            # A size shows as well in a small input as in a large one, and costs less there.
            score = (shows, -len(json.dumps(base)) if trap in SIZES else changed)
            if best is None or score > best[0]:
                best = (score, step, recipe)
            reading = vector.partition("/")[0]
            if shows and (reading not in by_reading or score > by_reading[reading][0]):
                by_reading[reading] = (score, step, recipe)
        if trap.name in _EVERY_READING and best is not None:
            chosen = sorted(by_reading.values(), key=lambda found: found[0], reverse=True)
            extra = [found[2] for found in chosen[:_READINGS_PER_SIZE] if found[2] != best[2]]
            recipes.extend(extra[:_READINGS_PER_SIZE - 1])
        # A trap the answers never show is left out (it would only cost time), unless a port
        # that falls into it cannot answer at all (a nesting limit, a fixed buffer for the
        # request, refuses it).
        if best is not None and (best[0][0] > 0 or trap.plant.how in _ALWAYS
                                 or trap in SIZES):
            recipes.append(best[2])
            turn = (turn + best[1] + 1) % len(bases)
    return tuple(recipes)


def rendered_plan() -> str:
    """The text of the plan module, for every operation."""
    lines = ['"""Where each language trap is planted, by operation: written by',
             "``python -m tools.trap_build --write`` from",
             ':data:`._traps.TRAPS` and the shipped vectors (do not edit)."""', "",
             "from __future__ import annotations", "", "from typing import Any", "",
             "#: Each operation's recipes: (trap, vector id, paths not planted, paths under which",
             "#: nothing is).", "PLAN: dict[str, tuple[Any, ...]] = {"]
    for each in OPERATIONS:
        lines.append(f"    {each.name!r}: (")
        for name, vector, exact, under in build_plan(each.name, each.input_schema):
            lines.append(f"        ({name!r}, {vector!r},")
            for paths in (exact, under):
                lines.append("         (" + "".join(f"\n             {path!r}," for path in paths)
                             + ("\n         " if paths else "") + "),")
            lines[-1] = lines[-1][:-1] + "),"
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """``--write`` the plan module; ``--check`` (the default) that it is current."""
    parser = argparse.ArgumentParser(prog="python -m tools.trap_build")
    parser.add_argument("--write", action="store_true", help="write the plan module")
    parser.add_argument("--check", action="store_true", help="exit 1 when it is stale")
    write = parser.parse_args(argv).write
    text = rendered_plan()
    current = PLAN_PATH.exists() and PLAN_PATH.read_text("utf-8") == text
    if write:
        if not current:
            PLAN_PATH.write_text(text, "utf-8")
        print(f"{PLAN_PATH.name}: {'current' if current else 'written'}")
        return 0
    print(f"{PLAN_PATH.name}: {'current' if current else 'stale: run with --write'}")
    return 0 if current else 1


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
