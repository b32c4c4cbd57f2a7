"""Hold the spec, the schemas, the vectors and the rule registry in step (``nox -s spec``).

``python -m tools.spec_check`` checks, from a checkout:

- every file in ``schemas/`` is a valid draft 2020-12 schema whose ``$id`` is the base URI plus
  its file name;
- every example in ``schemas/examples/`` validates, or fails, as it is labelled;
- every vector file in ``spec/vectors/`` validates against ``vector-file.json``, vector ids are
  unique everywhere and descriptions within their file, each vector's rule exists, its section
  and operation are the registry's, and every rule has a vector;
- every rule id appears in the spec section the registry names, and every backticked token of
  ``spec/*.md`` that looks like a rule id is in the registry.

It exits 0 when all is well and 1 with one line per problem otherwise (2 when it cannot find the
checkout). Each check is a function returning its problems, so tests call them one by one.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from eventproof.conformance._operations import RULES, RULES_BY_ID
from eventproof.conformance._schemas import BASE_URI
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, relevance
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

#: The meta-schema every shipped schema declares.
DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
#: The schema every vector file follows.
VECTOR_FILE_SCHEMA = "vector-file.json"
#: File suffixes that make a backticked token a file name, not a rule id.
_FILE_SUFFIXES = (".md", ".json", ".py", ".mjs", ".js", ".txt", ".toml", ".yaml", ".yml")
#: A rule id: ``group.words-joined-by-hyphens``.
_RULE_ID = re.compile(r"^[a-z]+\.[a-z0-9]+(?:-[a-z0-9]+)*$")
#: A numbered Markdown heading: ``## 3. Selection``, ``### 5.4 Lifecycle event``.
_HEADING = re.compile(r"^(#{1,6})\s+(?:§\s*)?(\d+(?:\.\d+)*)\.?(?:\s|$)")
_ANY_HEADING = re.compile(r"^(#{1,6})\s")
_BACKTICKED = re.compile(r"`([^`\n]+)`")


Problem = str


@dataclass(frozen=True)
class Checkout:
    """The parts of a checkout the spec check reads."""

    root: Path

    @property
    def schemas(self) -> Path:
        """``schemas/``."""
        return self.root / "schemas"

    @property
    def examples(self) -> Path:
        """``schemas/examples/``."""
        return self.root / "schemas" / "examples"

    @property
    def spec(self) -> Path:
        """``spec/``."""
        return self.root / "spec"

    @property
    def vectors(self) -> Path:
        """``spec/vectors/``."""
        return self.root / "spec" / "vectors"

    def relative(self, path: Path) -> str:
        """``path`` relative to the checkout, for messages."""
        try:
            return str(path.relative_to(self.root))
        except ValueError:
            return str(path)


class CheckoutNotFound(Exception):
    """No checkout (a directory with ``schemas/`` and ``spec/``) was found."""


def find_checkout(start: Path | None = None) -> Checkout:
    """The checkout at ``start``, the current directory, or the one this module sits in."""
    candidates = [start] if start is not None else [Path.cwd(), Path(__file__).resolve().parents[1]]
    for candidate in candidates:
        if (candidate / "schemas").is_dir() and (candidate / "spec").is_dir():
            return Checkout(candidate.resolve())
    shown = ", ".join(str(c) for c in candidates)
    raise CheckoutNotFound(
        f"no eventproof checkout (a directory holding schemas/ and spec/) at {shown}: run the "
        "spec check from the repository root, or pass --root PATH")


def _load_json(path: Path, checkout: Checkout) -> tuple[Any, Problem | None]:
    try:
        return json.loads(path.read_text("utf-8")), None
    except (OSError, ValueError) as error:
        return None, f"{checkout.relative(path)}: not readable JSON: {error}"


def _schema_paths(checkout: Checkout) -> list[Path]:
    return sorted(checkout.schemas.glob("*.json"))


@cache
def _registry(root: Path) -> Registry[Any]:
    resources: list[tuple[str, Resource[Any]]] = []
    for path in sorted((root / "schemas").glob("*.json")):
        try:
            schema = json.loads(path.read_text("utf-8"))
        except ValueError:
            continue  # reported by check_schemas
        if isinstance(schema, dict):
            declared = schema.get("$id")
            uri = declared if isinstance(declared, str) else BASE_URI + path.name
            resources.append((uri, Resource.from_contents(schema,
                                                          default_specification=DRAFT202012)))
    return Registry().with_resources(resources).crawl()


def _validator(checkout: Checkout, ref: str) -> Draft202012Validator:
    return Draft202012Validator({"$ref": BASE_URI + ref}, registry=_registry(checkout.root))


def _issues(checkout: Checkout, instance: Any, ref: str) -> list[str]:
    errors = sorted(_validator(checkout, ref).iter_errors(instance), key=relevance)
    return [f"{error.json_path}: {error.message}" for error in errors]


# -- schemas ---------------------------------------------------------------------------------------

def check_schemas(checkout: Checkout) -> list[Problem]:
    """Every ``schemas/*.json`` is a draft 2020-12 schema with ``$id`` = base URI + file name."""
    problems: list[Problem] = []
    paths = _schema_paths(checkout)
    if not paths:
        return [f"{checkout.relative(checkout.schemas)}: no schema files found"]
    for path in paths:
        where = checkout.relative(path)
        schema, problem = _load_json(path, checkout)
        if problem:
            problems.append(problem)
            continue
        if not isinstance(schema, dict):
            problems.append(f"{where}: a schema file holds an object, not {type(schema).__name__}")
            continue
        if schema.get("$schema") != DRAFT_2020_12:
            problems.append(f"{where}: $schema is {schema.get('$schema')!r}; declare "
                            f"{DRAFT_2020_12!r}")
        want = BASE_URI + path.name
        if schema.get("$id") != want:
            problems.append(f"{where}: $id is {schema.get('$id')!r}; it must be {want!r} (the "
                            "base URI plus the file name, so relative $refs resolve)")
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as error:
            problems.append(f"{where}: not a valid 2020-12 schema at "
                            f"{error.json_path}: {error.message}")
            continue
        try:
            # Resolve every $ref once: a dangling one is a schema bug, not an instance error.
            _validator(checkout, path.name).is_valid(None)
        except Unresolvable as error:
            problems.append(f"{where}: unresolvable $ref {error}")
    return problems


def check_schema_examples(checkout: Checkout) -> list[Problem]:
    """Every example in ``schemas/examples/`` validates or fails as it is labelled."""
    problems: list[Problem] = []
    names = {path.name for path in _schema_paths(checkout)}
    for path in sorted(checkout.examples.glob("*.json")):
        where = checkout.relative(path)
        if path.name not in names:
            problems.append(f"{where}: there is no schemas/{path.name} for these instances")
            continue
        examples, problem = _load_json(path, checkout)
        if problem:
            problems.append(problem)
            continue
        if not (isinstance(examples, dict) and set(examples) <= {"valid", "invalid"}
                and all(isinstance(examples.get(k, []), list) for k in ("valid", "invalid"))):
            problems.append(f'{where}: an instances file is {{"valid": [...], "invalid": [...]}}')
            continue
        for label in ("valid", "invalid"):
            for index, example in enumerate(examples.get(label, [])):
                problems.extend(_check_example(checkout, path, label, index, example))
    return problems


def _check_example(
    checkout: Checkout, path: Path, label: str, index: int, example: Any,
) -> Iterator[Problem]:
    where = f"{checkout.relative(path)} {label}[{index}]"
    if not isinstance(example, dict) or "instance" not in example:
        yield f'{where}: an example is {{"instance": ..., "ref"?: "#/$defs/...", "why"?: "..."}}'
        return
    if label == "invalid" and not isinstance(example.get("why"), str):
        yield f'{where}: an invalid example says "why" it is invalid'
    ref = path.name + str(example.get("ref", ""))
    try:
        issues = _issues(checkout, example["instance"], ref)
    except Unresolvable as error:
        yield f"{where}: ref {ref!r} does not resolve: {error}"
        return
    if label == "valid" and issues:
        yield f"{where}: labelled valid against {ref} but fails: {issues[0]}"
    elif label == "invalid" and not issues:
        yield (f"{where}: labelled invalid against {ref} ({example.get('why', 'no reason')}) "
               "but validates")


# -- vectors ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _LoadedVectors:
    files: dict[str, Any]
    problems: list[Problem]


def _load_vector_files(checkout: Checkout) -> _LoadedVectors:
    files: dict[str, Any] = {}
    problems: list[Problem] = []
    for path in sorted(checkout.vectors.glob("*.json")):
        content, problem = _load_json(path, checkout)
        if problem:
            problems.append(problem)
        else:
            files[path.name] = content
    if not files and not problems:
        problems.append(f"{checkout.relative(checkout.vectors)}: no vector files; run "
                        "`nox -s vectors`")
    return _LoadedVectors(files, problems)


def _vectors_of(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, dict) and isinstance(content.get("vectors"), list):
        return [v for v in content["vectors"] if isinstance(v, dict)]
    return []


def check_vector_files(checkout: Checkout) -> list[Problem]:
    """Vector files validate, ids and descriptions are unique, rules and sections match."""
    loaded = _load_vector_files(checkout)
    problems = list(loaded.problems)
    seen_ids: dict[str, str] = {}
    for name, content in loaded.files.items():
        where = f"spec/vectors/{name}"
        try:
            issues = _issues(checkout, content, VECTOR_FILE_SCHEMA)
        except Unresolvable as error:
            problems.append(f"{where}: cannot validate, {VECTOR_FILE_SCHEMA} has a dangling "
                            f"$ref: {error}")
            issues = []
        problems.extend(f"{where}: {issue}" for issue in issues[:10])
        if len(issues) > 10:
            problems.append(f"{where}: ... and {len(issues) - 10} more schema errors")
        group = content.get("group") if isinstance(content, dict) else None
        if isinstance(group, str) and name != f"{group}.json":
            problems.append(f"{where}: the file of group {group!r} is named {group}.json")
        descriptions = Counter(str(v.get("description")) for v in _vectors_of(content))
        for description, count in descriptions.items():
            if count > 1:
                problems.append(f"{where}: {count} vectors share the description "
                                f"{description!r}; describe what each one pins")
        for vector in _vectors_of(content):
            problems.extend(_check_vector(where, group, vector, seen_ids))
    return problems


def _check_vector(
    where: str, group: Any, vector: dict[str, Any], seen_ids: dict[str, str],
) -> Iterator[Problem]:
    vector_id = str(vector.get("id"))
    if vector_id in seen_ids:
        yield f"{where}: vector id {vector_id!r} is also used in {seen_ids[vector_id]}"
    seen_ids[vector_id] = where
    rule_id = vector.get("rule")
    rule = RULES_BY_ID.get(str(rule_id))
    if rule is None:
        yield (f"{where}: vector {vector_id!r} names rule {rule_id!r}, which is not in the "
               "registry (conformance/<profile>/rules.py); see `eventproof rules`")
        return
    if not vector_id.startswith(f"{rule.id}/"):
        yield f"{where}: vector id {vector_id!r} does not start with its rule {rule.id!r} + '/'"
    if vector.get("section") != rule.section:
        yield (f"{where}: vector {vector_id!r} cites section {vector.get('section')!r}, but rule "
               f"{rule.id} is stated in {rule.section}")
    if vector.get("op") != rule.op:
        yield (f"{where}: vector {vector_id!r} uses op {vector.get('op')!r}, but rule {rule.id} "
               f"judges {rule.op!r}")
    if group is not None and rule.id.split(".", 1)[0] != group:
        yield f"{where}: vector {vector_id!r} of rule {rule.id} belongs in another group's file"


def check_rule_coverage(checkout: Checkout) -> list[Problem]:
    """Every rule of the registry has at least one vector."""
    covered = {
        vector.get("rule")
        for content in _load_vector_files(checkout).files.values()
        for vector in _vectors_of(content)
    }
    return [f"rule {rule.id} ({rule.section}) has no vector in spec/vectors/: add one to the "
            "sources in conformance/_vectors.py and run `nox -s vectors`"
            for rule in RULES if rule.id not in covered]


# -- the spec text ---------------------------------------------------------------------------------

def _prose_lines(text: str) -> list[str]:
    """The lines of a Markdown text with fenced code blocks blanked out (headings only in prose)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            lines.append("")
        else:
            lines.append("" if fenced else line)
    return lines


def section_text(markdown: str, number: str) -> str | None:
    """The text under the heading numbered ``number`` (subsections included), or None."""
    lines = _prose_lines(markdown)
    raw = markdown.splitlines()
    for start, line in enumerate(lines):
        match = _HEADING.match(line)
        if match and match.group(2) == number:
            level = len(match.group(1))
            end = len(lines)
            for later in range(start + 1, len(lines)):
                heading = _ANY_HEADING.match(lines[later])
                if heading and len(heading.group(1)) <= level:
                    end = later
                    break
            return "\n".join(raw[start:end])
    return None


def _looks_like_rule_id(token: str, groups: set[str]) -> bool:
    if token.endswith(_FILE_SUFFIXES) or not _RULE_ID.match(token):
        return False
    return token.split(".", 1)[0] in groups or "-" in token


def check_spec_mentions(checkout: Checkout) -> list[Problem]:
    """Each rule id is in its registry section; each rule-like backticked id is a rule."""
    problems: list[Problem] = []
    texts: dict[str, str] = {}
    for path in sorted(checkout.spec.glob("*.md")):
        texts[path.name] = path.read_text("utf-8")
    for rule in RULES:
        file_name, _, number = rule.section.partition("#")
        text = texts.get(file_name)
        if text is None:
            problems.append(f"rule {rule.id}: its section {rule.section} names spec/{file_name}, "
                            "which does not exist")
            continue
        body = section_text(text, number)
        if body is None:
            problems.append(f"rule {rule.id}: spec/{file_name} has no heading numbered {number} "
                            f"(the registry places the rule in {rule.section})")
        elif f"`{rule.id}`" not in body:
            problems.append(f"rule {rule.id}: not mentioned (as `{rule.id}`) under "
                            f"spec/{file_name} §{number}; state it there, or correct its section "
                            "in conformance/<profile>/rules.py")
    groups = {rule.id.split(".", 1)[0] for rule in RULES}
    for name, text in texts.items():
        for line_number, line in enumerate(text.splitlines(), start=1):
            for token in _BACKTICKED.findall(line):
                if _looks_like_rule_id(token, groups) and token not in RULES_BY_ID:
                    problems.append(f"spec/{name}:{line_number}: `{token}` looks like a rule "
                                    "id but is not in the registry "
                                    "(conformance/<profile>/rules.py)")
    return problems


#: Every check, in the order the command runs them.
CHECKS: tuple[Callable[[Checkout], list[Problem]], ...] = (
    check_schemas,
    check_schema_examples,
    check_vector_files,
    check_rule_coverage,
    check_spec_mentions,
)


def run_checks(checkout: Checkout) -> list[Problem]:
    """Every problem every check finds."""
    return [problem for check in CHECKS for problem in check(checkout)]


def main(argv: Sequence[str] | None = None) -> int:
    """Run every check and print the problems: exit 0, 1 with problems, 2 without a checkout."""
    parser = argparse.ArgumentParser(
        prog="python -m tools.spec_check",
        description="Check schemas, schema instances, vectors and the spec against the registry.")
    parser.add_argument("--root", type=Path, default=None,
                        help="the repository checkout (default: the current directory)")
    args = parser.parse_args(argv)
    try:
        checkout = find_checkout(args.root)
    except CheckoutNotFound as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    problems = run_checks(checkout)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"spec check failed: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    vectors = sum(len(_vectors_of(c)) for c in _load_vector_files(checkout).files.values())
    print(f"spec check passed: {len(_schema_paths(checkout))} schemas, "
          f"{len(list(checkout.examples.glob('*.json')))} schema instance files, "
          f"{vectors} vectors, {len(RULES)} rules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
