"""``eventproof spec SECTION`` prints every section a report can point to, from the copy of the
spec installed with the package (no clone needed).

Every rule's section, in each form reports and people write it (``selection.md#3.1``,
``spec/selection.md §3.1``, ``selection 3.1``), and every ``spec/FILE.md §N`` pointer the
kit's own messages print, must resolve to that section's heading; an unknown one is a usage
error naming the nearest sections.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner
from eventproof.conformance._operations import RULES
from eventproof.conformance._reports import section_label
from eventproof.conformance._spec_text import find_section, spec_files
from eventproof.conformance.cli import main

ROOT = Path(__file__).resolve().parents[2]
SECTIONS = sorted({rule.section for rule in RULES})
_POINTER = re.compile(r"spec/(\w+)\.md §(\d+(?:\.\d+)*)")


def _forms(section: str) -> list[list[str]]:
    file, _, number = section.partition("#")
    return [[section], section_label(section).split(" "), [file.removesuffix(".md"), number],
            [f"{file.removesuffix('.md')} §{number}"]]


@pytest.mark.parametrize("section", SECTIONS)
def test_every_rule_section_prints_from_the_installed_spec(section: str) -> None:
    """Each rule's section, in every form it is cited, prints that section's heading first."""
    number = section.partition("#")[2]
    for words in _forms(section):
        done = CliRunner().invoke(main, ["spec", *words])
        assert done.exit_code == 0, (words, done.output)
        heading = done.stdout.splitlines()[0]
        assert re.match(rf"^#+ {re.escape(number)}\.? ", heading), (words, heading)


def test_every_pointer_the_kit_prints_resolves() -> None:
    """Every ``spec/FILE.md §N`` the kit's code or docs print names a section that exists."""
    sources = [*ROOT.glob("conformance/**/*.py"), *ROOT.glob("docs/*.md"), ROOT / "README.md"]
    pointers = {(match[1], match[2]) for path in sources
                for match in _POINTER.finditer(path.read_text("utf-8"))}
    assert len(pointers) > 20
    missing = []
    for file, number in sorted(pointers):
        try:
            find_section(f"{file}.md#{number}")
        except ValueError as error:
            missing.append(str(error))
    assert missing == []


def test_the_spec_ships_with_the_package() -> None:
    """The package data holds every file of spec/, and the install maps it (pyproject)."""
    assert spec_files() == sorted(path.name for path in (ROOT / "spec").glob("*.md"))
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    assert config["package-dir"]["eventproof.spec"] == "spec"
    assert "eventproof.spec" in config["packages"]
    assert config["package-data"]["eventproof.spec"] == ["*.md"]


@pytest.mark.parametrize(("words", "says"), [
    (["selection.md#3.9"], "selection.md#3.4"),
    (["wyre", "5.2"], "Did you mean wire.md"),
    (["§§"], "names no section"),
])
def test_an_unknown_section_is_a_usage_error(words: list[str], says: str) -> None:
    """A section that does not exist exits 2 with the nearest ones, never a traceback."""
    done = CliRunner().invoke(main, ["spec", *words])
    assert done.exit_code == 2
    assert says in done.output
    assert "Traceback" not in done.output


def test_a_file_alone_lists_its_sections() -> None:
    """``eventproof spec protocol`` prints the file's headings (its table of contents)."""
    done = CliRunner().invoke(main, ["spec", "protocol"])
    assert done.exit_code == 0
    assert "### 5.6. Coverage and untested rules" in done.stdout.splitlines()
