"""Where a rule lives: ``eventproof rules --where RULE_ID``.

From a rule id, one step to each of its places: the spec section that states it (file and line),
the schema its inputs are valid against, the reference function that computes the answer, the
check that judges it, the input families aimed at it, its vectors and the wrong implementations
(miniatures) that must break it. Files of a checkout (spec/) are found from the current
directory or the package's own source tree; an installed kit without a checkout names the places
it can. The miniatures come from an index shipped with the package (``miniatures.json``), never
from importing a checkout's tests.
"""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from types import ModuleType
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


def _module_spec(module: ModuleType) -> str:
    """The spec file a reference module is written against: the first one its docstring names."""
    match = re.search(r"(\w+\.md)", module.__doc__ or "")
    return match.group(1) if match else ""


def _cites(source: str, own: str, file: str, section: str) -> bool:
    """Whether ``source`` cites ``file`` §``section``, alone or in a range (``§3-5``,
    ``§5.2-5.5``); a bare § cites the module's own file."""
    wanted = tuple(int(part) for part in section.split("."))
    for match in re.finditer(r"(?:(\w+\.md)\s*)?§(\d+(?:\.\d+)*)(?:[-–](\d+(?:\.\d+)*))?",
                             source):
        if (match.group(1) or own) != file:
            continue
        start = tuple(int(part) for part in match.group(2).split("."))
        if match.group(3) is None:
            if start == wanted:
                return True
            continue
        end = tuple(int(part) for part in match.group(3).split("."))
        if start <= wanted[:len(start)] and wanted[:len(end)] <= end and start <= wanted:
            return True
    return False


def _reference_functions() -> list[tuple[Callable[..., Any], str]]:
    """Every function and method of the reference's modules, each with its module's spec
    file."""
    import eventproof.reference as package

    found: list[tuple[Callable[..., Any], str]] = []
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        own = _module_spec(module)
        for _, value in inspect.getmembers(module):
            members = [value] + ([v for _, v in inspect.getmembers(value, inspect.isfunction)]
                                 if inspect.isclass(value) else [])
            for member in members:
                if (inspect.isfunction(member) and member.__module__ == module.__name__
                        and (member, own) not in found):
                    found.append((member, own))
    return found


def implementing_function(rule: Rule, op: Operation) -> Callable[..., Any]:
    """The reference function that computes what ``rule`` demands: of the functions whose code
    cites the rule's section (then its parent section's), one whose docstring cites it, the
    smallest; else the operation's."""
    file, _, section = rule.section.partition("#")
    functions = _reference_functions()
    while section:
        citing = []
        for function, own in functions:
            try:
                source = inspect.getsource(function)
            except (OSError, TypeError):
                continue
            if _cites(source, own, file, section):
                # A docstring says what a function computes; a comment may only mention it.
                stated = _cites(inspect.getdoc(function) or "", own, file, section)
                citing.append((not stated, len(source.splitlines()), function.__qualname__,
                               function))
        if citing:
            return min(citing, key=lambda item: item[:3])[3]
        section = section.rpartition(".")[0]
    computed: Callable[..., Any] | None = getattr(op.reference, "reference_function", None)
    return computed if computed is not None else reference_for("halving").run


def _reference_place(rule: Rule, op: Operation, root: Path | None) -> Place:
    target = implementing_function(rule, op)
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
    # An operation searched as one family of all its inputs: the place is its inputs' strategy,
    # not the helper that wraps it.
    wrapped = getattr(inspect.unwrap(op.families), "__qualname__", "")
    source = op.inputs if wrapped.startswith("one_family") else op.families
    where = _source_of(source, None) if aimed else "(none)"
    return [Place("families", where, ", ".join(aimed) or "no family aims at this rule")]


def _vector_places(rule: Rule) -> list[Place]:
    from ._vectors import load_vectors

    ids = [vector for vector in load_vectors() if vector.rule == rule.id]
    if not ids:
        return [Place("vectors", "(none)", "no vector pins this rule")]
    file = f"spec/vectors/{ids[0].file}"
    root = _checkout()
    lines = ((root / file).read_text("utf-8").splitlines()
             if root is not None and (root / file).is_file() else [])
    places = []
    for vector in ids:
        number = next((index for index, line in enumerate(lines, start=1)
                       if f'"id": "{vector.id}"' in line), None)
        places.append(Place("vectors", f"{file}:{number}" if number else file,
                            vector.id.split("/", 1)[1]))
    return places


def miniatures_of(rule_id: str) -> list[dict[str, str]]:
    """The wrong implementations of ``tests/miniatures`` that declare ``rule_id``, each with its
    class and where it is defined, from the index shipped with the package
    (``miniatures.json``, written by ``tools/where_index.py``): no checkout is needed, and
    nothing of the tests is imported."""
    index = json.loads(resources.files(__package__).joinpath("miniatures.json").read_text(
        "utf-8"))
    found: list[dict[str, str]] = index["rules"].get(rule_id, [])
    return found


def _miniature_places(rule: Rule) -> list[Place]:
    places = [Place("miniatures", item["where"], item["class"])
              for item in miniatures_of(rule.id)]
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
        _reference_place(rule, op, root),
        *_check_places(rule, op, root),
        *_family_places(rule, op),
        *_vector_places(rule),
        *_miniature_places(rule),
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
