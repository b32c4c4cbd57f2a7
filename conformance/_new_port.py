"""``eventproof new-port LANG DIR``: write a port template (JavaScript, TypeScript or Go) from the
installed kit into a new directory, and say how to build and check it.

The templates are the repository's ``examples/`` directories, shipped in the wheel as the data
package ``eventproof.templates`` (pyproject.toml maps it onto ``examples/``), so an installed kit
writes exactly what the repository holds. ``TEMPLATE_FILES`` names the files of each template;
pyproject's package-data lists the same patterns (a test holds the two together), so build output
(``dist/``, ``node_modules/``, a Go binary) is never copied.
"""

from __future__ import annotations

import fnmatch
import importlib.util
import os
import stat
from dataclasses import dataclass
from pathlib import Path

import click

__all__ = ["LANGUAGES", "TEMPLATE_FILES", "Template", "new_port", "write_template"]


@dataclass(frozen=True)
class Template:
    """One port template: the examples/ directory it comes from and how to use a copy of it."""

    language: str
    directory: str
    #: Commands to run in the new directory, in order: build (if any), self-test, check.
    build: tuple[str, ...]
    selftest: str
    impl: str
    #: The file to edit first.
    table: str


LANGUAGES: dict[str, Template] = {
    "js": Template("JavaScript", "js", (), "node selftest.mjs", "node eventproof-port.mjs",
                   "operations.mjs"),
    "typescript": Template("TypeScript", "typescript", ("npm install", "npm run build"),
                           "npm test", "node dist/main.js", "src/operations.ts"),
    "go": Template("Go", "go", ("go build -o eventproof-port .",), "go test ./...",
                   "./eventproof-port", "operations.go"),
}
#: Other names a user may type for a language.
ALIASES = {"javascript": "js", "node": "js", "ts": "typescript", "golang": "go"}

#: The files of each template, as glob patterns relative to its directory (the same patterns as
#: pyproject.toml's package-data for eventproof.templates, prefixed with the directory).
TEMPLATE_FILES: dict[str, tuple[str, ...]] = {
    "js": ("*.mjs", "README.md"),
    "typescript": ("package.json", "package-lock.json", "tsconfig.json", "README.md",
                   ".gitignore", "src/*.ts"),
    "go": ("*.go", "go.mod", "README.md", ".gitignore"),
}


def _templates_root() -> Path | None:
    """The installed directory of eventproof.templates, a data package without __init__.py: the
    first of its search locations that is a directory (an editable install adds a hook entry
    that is not one, which importlib.resources.files refuses)."""
    try:
        spec = importlib.util.find_spec("eventproof.templates")
    except ImportError:  # pragma: no cover - eventproof itself is importable here
        return None
    for location in (spec.submodule_search_locations or []) if spec is not None else []:
        if Path(location).is_dir():
            return Path(location)
    return None


def _matches(relative: str, patterns: tuple[str, ...]) -> bool:
    # fnmatch's * crosses "/", so a pattern without a directory matches top-level files only.
    return any(fnmatch.fnmatch(relative, pattern) and relative.count("/") == pattern.count("/")
               for pattern in patterns)


def _template_files(language: str) -> list[tuple[str, Path]]:
    """(path relative to the template, the packaged file) for every file of the template."""
    found: list[tuple[str, Path]] = []

    def walk(node: Path, prefix: str) -> None:
        for child in sorted(node.iterdir(), key=lambda entry: entry.name):
            relative = f"{prefix}{child.name}"
            if child.is_dir():
                walk(child, f"{relative}/")
            elif _matches(relative, TEMPLATE_FILES[language]):
                found.append((relative, child))

    root = _templates_root()
    if root is not None and (root / LANGUAGES[language].directory).is_dir():
        walk(root / LANGUAGES[language].directory, "")
    return found


def _language(name: str) -> str:
    key = ALIASES.get(name.lower(), name.lower())
    if key not in LANGUAGES:
        raise click.BadParameter(
            f"{name!r} is not a language with a template; use one of "
            f"{', '.join(LANGUAGES)} (e.g. `eventproof new-port js my-port`).",
            param_hint="LANG")
    return key


def write_template(language: str, directory: Path) -> list[Path]:
    """Write the template of ``language`` (a key of LANGUAGES) into ``directory``, which must not
    exist or be empty; return the files written."""
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        what = "a directory that is not empty" if directory.is_dir() else "a file"
        raise click.BadParameter(
            f"{str(directory)!r} is {what}; the template is written into a new or empty "
            f"directory so that nothing of yours is overwritten. Name a new directory.",
            param_hint="DIR")
    template = _template_files(language)
    if not template:
        raise click.ClickException(
            f"this installation of eventproof holds no {LANGUAGES[language].language} template "
            "(eventproof.templates is empty); reinstall eventproof from a wheel or the repository")
    written = []
    for relative, source in template:
        target = directory / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source.read_bytes())
        if target.read_bytes().startswith(b"#!"):
            target.chmod(target.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        written.append(target)
    return written


def next_steps(language: str, directory: Path) -> list[str]:
    """The commands that build, self-test and check a freshly written template."""
    template = LANGUAGES[language]
    where = directory if directory.is_absolute() else Path(os.curdir) / directory
    return [f"cd {where}", *template.build, template.selftest,
            f"eventproof run --impl '{template.impl}'"]


@click.command("new-port")
@click.argument("language", metavar="LANG")
@click.argument("directory", metavar="DIR", type=click.Path(path_type=Path))
def new_port(language: str, directory: Path) -> None:
    """Write a port template into DIR, a new directory: LANG is js, typescript or go.

    The template implements every operation of the three profiles and conforms; replace the
    calls in its operation table with calls into your own code, one operation at a time, and check
    each with `eventproof run --impl ... --ops OP`. Its README says how to build and run it.
    """
    from ._console import console as _console

    key = _language(language)
    written = write_template(key, directory)
    template = LANGUAGES[key]
    console = _console()
    console.print(f"wrote the {template.language} template ({len(written)} files) into "
                  f"{directory}", markup=False, soft_wrap=True)
    console.print("Next:", markup=False)
    for command in next_steps(key, directory):
        console.print(f"  {command}", markup=False, soft_wrap=True)
    console.print(f"then replace the calls in {template.table} with calls into your own code "
                  "(README.md: what to change first)", markup=False, soft_wrap=True)
