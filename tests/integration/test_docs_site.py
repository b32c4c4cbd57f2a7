"""The documentation site builds with strict link checking: every page of spec/ and docs/ is in
the navigation, and no link or anchor points nowhere (``nox -s docs`` builds the same site)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_docs_site_builds_strictly(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="mkdocs is in the test dependency group; install it")
    if not (ROOT / "mkdocs.yml").is_file():
        pytest.skip("no mkdocs.yml: the tests run outside a checkout")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    for page in ("spec/budget/index.html", "docs/port-checklist/index.html", "index.html"):
        assert (tmp_path / "site" / page).is_file(), page
    # The pages made from the code hold every rule and every command.
    from eventproof.conformance._operations import RULES
    from eventproof.conformance.cli import main

    rules = (tmp_path / "site" / "reference" / "rules" / "index.html").read_text("utf-8")
    assert all(rule.id in rules for rule in RULES)
    commands = (tmp_path / "site" / "reference" / "commands" / "index.html").read_text("utf-8")
    import click

    with click.Context(main, info_name="eventproof") as context:
        names = main.list_commands(context)
    assert {"audit", "report", "run", "vectors"} <= set(names)
    assert all(f"eventproof {name}" in commands for name in names)
    assert "--effort" in commands


def test_every_markdown_page_is_in_the_navigation() -> None:
    """An omitted page only warns in mkdocs; here it fails, naming the page and the fix."""
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text("utf-8").replace("!!python", "#"))

    def pages(node: object) -> set[str]:
        if isinstance(node, str):
            return {node}
        if isinstance(node, list):
            return set().union(*(pages(item) for item in node))
        if isinstance(node, dict):
            return set().union(*(pages(value) for value in node.values()))
        return set()

    listed = pages(config["nav"])
    wanted = {f"{folder}/{path.name}" for folder in ("spec", "docs")
              for path in (ROOT / folder).glob("*.md")}
    missing = sorted(wanted - listed)
    assert not missing, f"add {missing} to the nav of mkdocs.yml"
