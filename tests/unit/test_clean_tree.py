"""The suite's own guard (tests/conftest.py): a session that writes into the checkout fails.
Here the guard's view of a tree is checked on a repository of its own."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import tree_state

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@needs_git
def test_every_write_outside_the_tool_caches_changes_the_state(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text(".eventproof/\n.hypothesis/\n")
    (tmp_path / "tracked.txt").write_text("one")
    subprocess.run(["git", "-C", str(tmp_path), "add", "."], check=True)
    (tmp_path / ".eventproof" / "failures").mkdir(parents=True)
    (tmp_path / ".eventproof" / "failures" / "old.json").write_text("{}")
    first = tree_state(tmp_path)
    assert first is not None
    # A tool cache may change; nothing else may.
    (tmp_path / ".hypothesis").mkdir()
    (tmp_path / ".hypothesis" / "examples").write_text("x")
    assert tree_state(tmp_path) == first
    writes = [
        lambda: (tmp_path / ".eventproof" / "failures" / "new.json").write_text("{}"),  # ignored
        lambda: (tmp_path / "report.json").write_text("{}"),  # untracked
        lambda: (tmp_path / "tracked.txt").write_text("two"),  # tracked
        lambda: (tmp_path / ".eventproof" / "failures" / "old.json").write_text("{ }"),
    ]
    for write in writes:
        before = tree_state(tmp_path)
        write()
        assert tree_state(tmp_path) != before


def test_outside_a_checkout_there_is_no_state(tmp_path: Path) -> None:
    assert tree_state(tmp_path / "missing") is None
