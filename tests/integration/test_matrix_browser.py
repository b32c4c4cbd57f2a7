"""The matrix page in a real browser: headless Chromium loads it from file:// and runs its script.

Reports come from real runs (`eventproof run --json`) of the reference and of a deliberately wrong
implementation. The screenshots are kept under pytest's tmp dir (the test prints where) for a
person to look at.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from eventproof.conformance._matrix import write_matrix

ROOT = Path(__file__).resolve().parents[2]
BROWSER = next((found for name in ("chromium", "chromium-browser", "google-chrome")
                if (found := shutil.which(name))), None)

pytestmark = pytest.mark.skipif(
    BROWSER is None, reason="no Chromium on PATH (Debian: apt-get install -y chromium)")


def run_report(tmp_path: Path, name: str, impl: str) -> Path:
    path = tmp_path / f"{name}.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tests")}
    completed = subprocess.run(
        [sys.executable, "-m", "eventproof.conformance", "run", "--impl", impl, "--ops",
         "select,classify", "--examples", "quick", "--deterministic", "--no-progress",
         "--json", str(path), "--state-dir", str(tmp_path / "state")],
        env=env, capture_output=True, text=True, timeout=300, check=False)
    assert completed.returncode in (0, 1), completed.stdout + completed.stderr
    return path


def browser(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert BROWSER is not None
    profile = tmp_path / "profile"
    return subprocess.run(
        [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--no-first-run", "--disable-extensions", "--virtual-time-budget=10000",
         f"--user-data-dir={profile}", *args],
        capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp_path = tmp_path_factory.mktemp("matrix")
    reports = [
        run_report(tmp_path, "reference", "python:eventproof.reference:Reference"),
        run_report(tmp_path, "unfiltered", "python:miniatures.selection:LastMessageUnfiltered"),
    ]
    written = write_matrix(tmp_path / "site", reports)
    return written[0]


def test_the_page_loads_and_its_script_runs(page: Path, tmp_path: Path) -> None:
    dumped = browser(tmp_path, "--dump-dom", page.as_uri())
    assert dumped.returncode == 0, dumped.stderr
    dom = dumped.stdout
    # The matrix: two implementations, the select and classify rules; the filters' script ran.
    assert dom.count('class="impl ') == 2
    rules = re.findall(r'<tr class="rule"', dom)
    assert len(rules) == 5
    shown = re.search(r'id="shown">(\d+) of (\d+) rules shown<', dom)
    assert shown is not None, "the page's script did not run"
    assert shown.groups() == ("5", "5")
    assert 'class="js"' in dom
    # The counterexample of the wrong implementation is in the page, behind its cell.
    assert 'id="cx-1-select.never-empty"' in dom
    assert "empty messages never count" in dom


def test_the_outcome_filter_hides_rows(page: Path, tmp_path: Path) -> None:
    dumped = browser(tmp_path, "--dump-dom", page.as_uri() + "?outcomes=fail")
    assert dumped.returncode == 0, dumped.stderr
    dom = dumped.stdout
    # select.never-empty fails, and select.agrees with it (same cause): the answers differed.
    assert re.search(r'id="shown">4 of 5 rules shown<', dom)
    hidden = re.findall(r'<tr class="rule" data-outcomes="([^"]*)"[^>]*hidden', dom)
    assert sorted(hidden) == ["pass"]
    # The wire group has no row left, so its heading goes too.
    assert len(re.findall(r'<tbody class="group" hidden', dom)) == 1


def test_a_counterexample_opens_from_its_link(page: Path, tmp_path: Path) -> None:
    url = page.as_uri() + "#cx-1-select.never-empty"
    dumped = browser(tmp_path, "--dump-dom", url)
    assert dumped.returncode == 0, dumped.stderr
    opened = re.search(r'<dialog class="cx" id="cx-1-select.never-empty"[^>]*>', dumped.stdout)
    assert opened is not None
    assert " open" in opened.group(), "the dialog named in the URL did not open"
    # Screenshots for a person: the matrix, and the counterexample open over it.
    shots = page.parent / "screenshots"
    shots.mkdir(exist_ok=True)
    for name, target in (("matrix.png", page.as_uri()), ("counterexample.png", url)):
        shot = shots / name
        taken = browser(tmp_path, "--window-size=1400,1000", f"--screenshot={shot}", target)
        assert taken.returncode == 0, taken.stderr
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert shot.stat().st_size > 20_000  # a rendered page, not a blank one
    print(f"screenshots: {shots}")
