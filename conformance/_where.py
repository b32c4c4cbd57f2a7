"""Where a rule lives: ``eventproof rules --where RULE_ID``.

From a rule id, one step to each of its places: the spec section that states it (file and line),
the schema its inputs are valid against, the reference function that computes the answer, the
check that judges it, the input families aimed at it, its vectors and the wrong implementations
(miniatures) that must break it. Files of a checkout (spec/, tests/miniatures/) are found from
the current directory or the package's own source tree; an installed kit without a checkout
names the places it can.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eventproof.reference import reference_for

from ._model import Capabilities, Operation, Rule, rules_of
from ._operations import RULES_BY_ID, operation


@dataclass(frozen=True)
class Place:
    """One place a rule lives: what kind of place, where (``file:line`` or a name), and what."""

    kind: str
    where: str
    what: str = ""


def _checkout() -> Path | None:
    for candidate in (Path.cwd(), Path(__file__).resolve().parents[1]):
        if (candidate / "spec").is_dir() and (candidate / "schemas").is_dir():
            return candidate
    return None


def _relative(path: str | Path, root: Path | None) -> str:
    path = Path(path).resolve()
    # The installed package first: a virtual environment may sit inside the checkout.
    for base in filter(None, (Path(__file__).resolve().parents[1], root)):
        try:
            return str(path.relative_to(base))
        except ValueError:
            continue
    return str(path)


def _source_of(value: Any, root: Path | None) -> str:
    target = inspect.unwrap(value)
    try:
        file = inspect.getsourcefile(target)
        _, line = inspect.getsourcelines(target)
    except (OSError, TypeError):
        return getattr(target, "__qualname__", repr(target))
    return f"{_relative(file or '?', root)}:{line}"


def _spec_place(rule: Rule, root: Path | None) -> Place:
    file, _, section = rule.section.partition("#")
    if root is None:
        return Place("spec", f"spec/{file} §{section}", "(no checkout here to find the line in)")
    text = (root / "spec" / file).read_text("utf-8").splitlines()
    heading = next((i for i, line in enumerate(text)
                    if re.match(rf"#+ {re.escape(section)}\.? ", line)), None)
    mention = next((i for i, line in enumerate(text) if f"`{rule.id}`" in line), None)
    line = mention if mention is not None else heading
    title = text[heading].lstrip("# ").strip() if heading is not None else f"§{section}"
    if line is None:
        return Place("spec", f"spec/{file}", f"§{section} (not found in the file)")
    return Place("spec", f"spec/{file}:{line + 1}", f"§{title}")


def _reference_place(op: Operation, root: Path | None) -> Place:
    reference = reference_for("halving")
    function = getattr(op.reference, "reference_function", None)
    target = function if function is not None else reference.run
    return Place("reference", _source_of(target, root),
                 getattr(target, "__qualname__", op.name))


def _check_places(rule: Rule, op: Operation, root: Path | None) -> list[Place]:
    places = [Place("check", _source_of(check, root), check.__name__)
              for check in op.checks if rule.id in rules_of(check)]
    if rule.id == op.hang_rule and not places:
        places.append(Place("check", "conformance/_verdict.py",
                            f"the harness's deadline: a hang of '{op.name}' is reported under "
                            f"{rule.id}"))
    elif rule.id == op.hang_rule:
        places.append(Place("check", "conformance/_verdict.py",
                            f"also every hang of '{op.name}'"))
    return places


def _family_places(rule: Rule, op: Operation) -> list[Place]:
    families = op.families(Capabilities())
    every = rule.id == op.agreement_rule or rule.id.endswith(".agrees")
    aimed = [family.name for family in families
             if every or not family.aims or rule.id in family.aims]
    where = _source_of(op.families, None) if aimed else "(none)"
    return [Place("families", where, ", ".join(aimed) or "no family aims at this rule")]


def _vector_places(rule: Rule) -> list[Place]:
    from ._vectors import load_vectors

    ids = [vector for vector in load_vectors() if vector.rule == rule.id]
    if not ids:
        return [Place("vectors", "(none)", "no vector pins this rule")]
    file = f"spec/vectors/{ids[0].file}"
    shown = ", ".join(vector.id.split("/", 1)[1] for vector in ids[:6])
    more = f" and {len(ids) - 6} more" if len(ids) > 6 else ""
    return [Place("vectors", file, f"{len(ids)}: {shown}{more}")]


def _miniature_places(rule: Rule, root: Path | None) -> list[Place]:
    if root is None:
        return [Place("miniatures", "(no checkout here)", "")]
    places = []
    for path in sorted((root / "tests" / "miniatures").rglob("*.py")):
        for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
            match = re.search(rf"\((\w+), \"{re.escape(rule.id)}\"\)", line)
            if match:
                places.append(Place("miniatures", f"{_relative(path, root)}:{number}",
                                    match.group(1)))
    return places or [Place("miniatures", "(none)", "no wrong implementation declares it")]


def places_of(rule_id: str) -> list[Place]:
    """Every place the rule ``rule_id`` lives, in the order a reader follows them."""
    rule = RULES_BY_ID[rule_id]
    op = operation(rule.op)
    root = _checkout()
    schema = f"schemas/{op.input_schema}"
    return [
        _spec_place(rule, root),
        Place("schema", schema, f"the input of '{op.name}'"),
        _reference_place(op, root),
        *_check_places(rule, op, root),
        *_family_places(rule, op),
        *_vector_places(rule),
        *_miniature_places(rule, root),
    ]


def describe(rule_id: str) -> str:
    """The text ``eventproof rules --where`` prints for one rule."""
    rule = RULES_BY_ID[rule_id]
    lines = [f"{rule.id} ({rule.level}, {rule.profile} profile, operation {rule.op}): "
             f"{rule.title}"]
    for place in places_of(rule_id):
        lines.append(f"  {place.kind:10} {place.where}" + (f"  {place.what}" if place.what
                                                           else ""))
    return "\n".join(lines)
