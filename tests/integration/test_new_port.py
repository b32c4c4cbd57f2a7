"""``eventproof new-port LANG DIR`` writes a port template from the installed kit, the first run's
hint names a template that runs, and the documented one-line runs of a release tag are well formed.

The templates are the repository's ``examples/`` directories, shipped as the data package
``eventproof.templates``; the tests hold pyproject's package-data, the command's file list and the
committed examples together, so an installed kit writes exactly what the repository holds.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from io import StringIO
from pathlib import Path
from typing import Any

import click
import pytest
from eventproof.conformance._new_port import LANGUAGES, TEMPLATE_FILES
from eventproof.conformance._operations import OPS
from eventproof.conformance.cli import _first_run_hint, main
from packaging.requirements import Requirement
from rich.console import Console

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
NODE, GIT = shutil.which("node"), shutil.which("git")

#: The one layout of the three templates: the file that holds each part.
LAYOUT = {
    "protocol loop": {"js": "eventproof-port.mjs", "typescript": "src/main.ts", "go": "main.go"},
    "operation table": {"js": "operations.mjs", "typescript": "src/operations.ts",
                        "go": "operations.go"},
    "selection profile": {"js": "selection.mjs", "typescript": "src/selection.ts",
                          "go": "selection.go"},
    "wire profile": {"js": "wire.mjs", "typescript": "src/wire.ts", "go": "wire.go"},
    "budget profile": {"js": "budget.mjs", "typescript": "src/budget.ts", "go": "budget.go"},
    "self-test": {"js": "selftest.mjs", "typescript": "src/selftest.ts",
                  "go": "selftest_test.go"},
}


def eventproof(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "eventproof.conformance", *args], cwd=cwd,
                          env={**os.environ, "COLUMNS": "200"}, capture_output=True, text=True,
                          timeout=300, check=False)


def _tracked(language: str) -> set[str]:
    """The committed files of examples/<language>, relative to it."""
    assert GIT is not None
    listed = subprocess.run([GIT, "ls-files", "-z", "--", f"examples/{language}"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    return {name.removeprefix(f"examples/{language}/") for name in listed if name}


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_new_port_writes_the_whole_template(language: str, tmp_path: Path) -> None:
    """Every committed file of the example, and nothing else (no build output), lands in the new
    directory; the command says what to run next, in that directory."""
    result = eventproof("new-port", language, "my-port", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    target = tmp_path / "my-port"
    written = {str(path.relative_to(target)) for path in target.rglob("*") if path.is_file()}
    if GIT is not None and (ROOT / ".git").exists():
        assert written == _tracked(language)
    for path in written:
        assert (target / path).read_bytes() == (EXAMPLES / language / path).read_bytes(), path
    assert "Next:" in result.stdout
    assert "  cd my-port" in result.stdout
    assert f"eventproof run --impl '{LANGUAGES[language].impl}'" in result.stdout


def test_the_package_data_ships_the_template_files() -> None:
    """pyproject maps eventproof.templates onto examples/ and its package-data lists exactly the
    patterns new-port copies, so a wheel holds every file the command writes."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    assert config["setuptools"]["package-dir"]["eventproof.templates"] == "examples"
    assert "eventproof.templates" in config["setuptools"]["packages"]
    shipped = config["setuptools"]["package-data"]["eventproof.templates"]
    assert sorted(shipped) == sorted(f"{LANGUAGES[language].directory}/{pattern}"
                                     for language, patterns in TEMPLATE_FILES.items()
                                     for pattern in patterns)


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_the_templates_share_one_layout(language: str) -> None:
    """Each template has a file for each part of the layout, and its operation table names all
    nine operations."""
    for part, files in LAYOUT.items():
        assert (EXAMPLES / language / files[language]).is_file(), (language, part)
    table = (EXAMPLES / language / LAYOUT["operation table"][language]).read_text("utf-8")
    assert [op for op in OPS if not re.search(rf"\b{op}\b", table)] == []


@pytest.mark.parametrize(("args", "phrases"), [
    (("rust", "x"), ["'rust' is not a language with a template", "js, typescript, go"]),
    (("js", "taken"), ["'taken' is a directory that is not empty", "Name a new directory"]),
    (("js", "a-file"), ["'a-file' is a file", "Name a new directory"]),
])
def test_new_port_refuses_bad_input_with_the_value_and_the_fix(
        args: tuple[str, ...], phrases: list[str], tmp_path: Path) -> None:
    """An unknown language, a directory with files in it and a file are refused with exit code 2,
    naming the value and the fix; nothing is written."""
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "mine.txt").write_text("keep me", encoding="utf-8")
    (tmp_path / "a-file").write_text("keep me", encoding="utf-8")
    before = sorted(tmp_path.rglob("*"))
    result = eventproof("new-port", *args, cwd=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    for phrase in phrases:
        assert phrase in result.stderr, result.stderr
    assert sorted(tmp_path.rglob("*")) == before


@pytest.mark.node
@pytest.mark.skipif(NODE is None, reason="node is not on PATH: the JavaScript template cannot run")
def test_the_first_run_hint_names_a_template_that_conforms(tmp_path: Path) -> None:
    """The commands the hint names, run as written in an empty directory: new-port writes the
    template, and the --impl command it names is a port that declares every operation and
    conforms (a quick run of one operation: the port tests check every one)."""
    shown = StringIO()
    _first_run_hint(Console(file=shown, width=400, soft_wrap=True))
    hint = shown.getvalue()
    new_port = re.search(r"eventproof (new-port \S+ \S+)", hint)
    impl = re.search(r"--impl '([^']+)'", hint)
    assert new_port is not None, hint
    assert impl is not None, hint
    written = eventproof(*new_port.group(1).split(), cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    report_file = tmp_path / "report.json"
    checked = eventproof("run", "--impl", impl.group(1), "--ops", "classify",
                         "--effort", "quick", "--deterministic", "--no-progress", "--state-dir",
                         str(tmp_path / "state"), "--json", str(report_file), cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    report: dict[str, Any] = json.loads(report_file.read_text(encoding="utf-8"))
    assert report["capabilities"]["ops"] == list(OPS)
    assert {rule["outcome"] for rule in report["results"]} == {"pass"}


def _one_line_runs() -> list[tuple[str, list[str]]]:
    """(where, argv) of every documented pipx or uvx line."""
    found = []
    for page in (ROOT / "README.md", ROOT / "docs" / "write-an-adapter.md"):
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.startswith(("pipx run", "uvx ")):
                found.append((f"{page.name}: {line}", shlex.split(line)))
    return found


def test_the_one_line_runs_of_a_tag_are_well_formed() -> None:
    """Each documented `pipx run --spec …` and `uvx --from …` line names this package at the
    tag of this version as a PEP 508 direct reference, and runs an eventproof command whose
    options parse."""
    runs = _one_line_runs()
    assert {argv[0] for _, argv in runs} == {"pipx", "uvx"}, runs
    version = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["version"]
    for where, argv in runs:
        if argv[0] == "pipx":
            assert argv[1:3] == ["run", "--spec"], where
            spec, command = argv[3], argv[4:]
        else:
            assert argv[1] == "--from", where
            spec, command = argv[2], argv[3:]
        requirement = Requirement(spec)
        assert requirement.name == "eventproof", where
        assert requirement.url == (
            f"git+https://github.com/eventproof/eventproof@v{version}"), where
        assert command[0] == "eventproof", where
        subcommand = main.get_command(click.Context(main), command[1])
        assert subcommand is not None, where
        # Parsing only: make_context checks the options and arguments without running anything.
        subcommand.make_context(command[1], list(command[2:]), resilient_parsing=False)
