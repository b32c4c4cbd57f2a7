"""``nox -s release`` fails when the version, the changelog and the tags the docs name disagree.

The repository as it is passes; a copy with one of them moved (pyproject's version bumped alone,
a doc pinning an old tag, a changelog whose top release is another, no changelog, a pushed tag
of another version) fails, naming the file and line.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("release_check", ROOT / "tools" /
                                                  "release_check.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CHECK = _module()


def test_the_repository_is_one_version() -> None:
    """The version, the changelog and every tag named agree today."""
    assert CHECK.problems(ROOT) == []


def _copy(tmp_path: Path) -> Path:
    copy = tmp_path / "repo"
    copy.mkdir()
    for name in ("pyproject.toml", "CHANGELOG.md", "README.md", "action.yml"):
        shutil.copy(ROOT / name, copy / name)
    shutil.copytree(ROOT / "docs", copy / "docs")
    return copy


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _bump(root: Path) -> None:
    _edit(root / "pyproject.toml", 'version = "0.1.0"', 'version = "0.2.0"')


def _old_pin(root: Path) -> None:
    _edit(root / "docs" / "gate-ci.md", "eventproof@v0.1.0", "eventproof@v0.0.9")


def _changelog(root: Path) -> None:
    _edit(root / "CHANGELOG.md", "## [0.1.0]", "## [0.1.1]")


def _no_changelog(root: Path) -> None:
    (root / "CHANGELOG.md").unlink()


MOVES: dict[str, tuple[Callable[[Path], None], str]] = {
    "version bumped alone": (_bump, "pyproject.toml's version is 0.2.0"),
    "a doc pins another tag": (_old_pin, "docs/gate-ci.md:"),
    "the changelog's top release": (_changelog, "CHANGELOG.md:"),
    "no changelog": (_no_changelog, "CHANGELOG.md: missing"),
}


@pytest.mark.parametrize("move", sorted(MOVES))
def test_a_disagreement_fails_naming_where(tmp_path: Path, move: str) -> None:
    """Each kind of disagreement is reported, with the file (and line) to fix."""
    root = _copy(tmp_path)
    change, says = MOVES[move]
    change(root)
    found = CHECK.problems(root)
    assert found
    assert any(says in problem for problem in found), found


def test_the_tag_being_pushed_must_be_the_version() -> None:
    """--tag v9.9.9 for version 0.1.0 fails; the version's own tag passes."""
    assert CHECK.problems(ROOT, tag="v9.9.9")
    assert CHECK.problems(ROOT, tag="v0.1.0") == []
    assert CHECK.main(["--tag", "v9.9.9"]) == 1


def test_a_named_tag_the_repository_lacks_is_a_problem(tmp_path: Path) -> None:
    """The release check proper (as `nox -s release` runs it) fails while the tag every pin
    names is missing from the checkout, and passes once it is there."""
    root = _copy(tmp_path)
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "release"], check=True)
    assert CHECK.problems(root) == []  # the agreement alone holds
    missing = CHECK.problems(root, require_tag=True)
    assert any("has no tag v0.1.0" in problem for problem in missing), missing
    subprocess.run([*git, "tag", "v0.1.0"], check=True)
    assert CHECK.problems(root, require_tag=True) == []
