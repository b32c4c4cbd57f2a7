"""``--html`` means one thing on every command: a directory, whose ``index.html`` is the page.

``run``, ``report`` and ``audit`` each take ``--html DIR`` (``DIR/`` or not) and write
``DIR/index.html``; each also takes a name ending in ``.html``, writes the page to that file and
says so on stderr. The wrong implementation this catches is the one the audit had: ``audit --html
DIR/`` wrote a file named ``DIR``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from audit_logs import START, line
from click.testing import CliRunner
from eventproof.conformance.cli import main


def _run(tmp_path: Path, html: str) -> list[str]:
    return ["run", "--rule", "select.last-message", "--effort", "quick", "--jobs", "1",
            "--no-progress", "--state-dir", str(tmp_path / "state"), "--html", html]


def _report(tmp_path: Path, html: str) -> list[str]:
    report = tmp_path / "ref.json"
    if not report.exists():
        done = CliRunner().invoke(main, ["run", "--rule", "select.last-message", "--effort",
                                         "quick", "--jobs", "1", "--no-progress", "--json",
                                         str(report), "--state-dir", str(tmp_path / "state")])
        assert done.exit_code == 0, done.output
    return ["report", str(report), "--html", html]


def _audit(tmp_path: Path, html: str) -> list[str]:
    log = tmp_path / "run.jsonl"
    log.write_bytes(line(START))
    return ["audit", str(log), "--no-progress", "--html", html]


COMMANDS: dict[str, Callable[[Path, str], list[str]]] = {
    "run": _run, "report": _report, "audit": _audit}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("slash", ["/", ""], ids=["DIR/", "DIR"])
def test_html_names_a_directory_on_every_command(tmp_path: Path, command: str,
                                                 slash: str) -> None:
    """--html DIR writes DIR/index.html, whichever command, with or without a slash."""
    target = tmp_path / "site"
    done = CliRunner().invoke(main, COMMANDS[command](tmp_path, f"{target}{slash}"))
    assert done.exit_code in (0, 1), done.output
    assert target.is_dir(), done.output
    page = (target / "index.html").read_text("utf-8")
    assert page.lstrip().lower().startswith("<!doctype html")


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_html_file_name_is_taken_with_a_note(tmp_path: Path, command: str) -> None:
    """--html page.html writes the page to page.html (not page.html/index.html) and says that
    --html takes a directory."""
    target = tmp_path / "out" / "page.html"
    done = CliRunner().invoke(main, COMMANDS[command](tmp_path, str(target)))
    assert done.exit_code in (0, 1), done.output
    assert target.is_file(), done.output
    assert "--html takes a directory" in done.stderr
    if command != "audit":  # the matrix's badges sit beside its page
        assert json.loads(next((target.parent / "badges").glob("*.json")).read_text("utf-8"))
