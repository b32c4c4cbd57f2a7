"""The matrix page in a real browser: headless Chromium loads it from file:// and runs its script.

The page comes from one real run (`eventproof run --html`) of five implementations: the reference
twice (two columns of one name and version, told apart), a deliberately wrong one, a program that
declares no budget operation (its budget profile is not declared), and a command that does not
exist (a column with its error). The screenshots are kept under pytest's tmp dir (the test prints
where) for a person to look at.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from eventproof.conformance._operations import RULES

ROOT = Path(__file__).resolve().parents[2]
BROWSER = next((found for name in ("chromium", "chromium-browser", "google-chrome")
                if (found := shutil.which(name))), None)

pytestmark = pytest.mark.skipif(
    BROWSER is None, reason="no Chromium on PATH (Debian: apt-get install -y chromium)")


OPS = ("select", "classify", "roster")
RULE_COUNT = sum(1 for rule in RULES if rule.op in OPS)
ECHO = shlex.join([sys.executable, str(ROOT / "tests" / "integration" / "programs" / "echo.py")])


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
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tests")}
    completed = subprocess.run(
        [sys.executable, "-m", "eventproof.conformance", "run",
         "--impl", "python:eventproof.reference:Reference",
         "--impl", "python:miniatures.selection:LastMessageUnfiltered",
         "--impl", ECHO, "--impl", "no-such-program-eventproof",
         "--impl", "python:eventproof.reference:Reference",
         "--ops", ",".join(OPS), "--effort", "quick", "--deterministic", "--no-progress",
         "--html", str(tmp_path / "site"), "--state-dir", str(tmp_path / "state")],
        env=env, capture_output=True, text=True, timeout=600, check=False)
    assert completed.returncode == 2, completed.stdout + completed.stderr  # one not checked
    return tmp_path / "site" / "index.html"


def headings(dom: str) -> list[tuple[str, str]]:
    """Each column's heading and verdict headline, as the browser holds them."""
    return re.findall(r'<th scope="col" class="impl [^"]*" data-headline="([^"]*)">'
                      r'<span class="impl-name">([^<]*)</span>', dom)


def test_the_page_loads_and_its_script_runs(page: Path, tmp_path: Path) -> None:
    dumped = browser(tmp_path, "--dump-dom", page.as_uri())
    assert dumped.returncode == 0, dumped.stderr
    dom = dumped.stdout
    # The matrix: five implementations, the rules of the three operations; the script ran.
    heads = headings(dom)
    assert len(heads) == 5
    rules = re.findall(r'<tr class="rule"', dom)
    assert len(rules) == RULE_COUNT
    shown = re.search(r'id="shown">(\d+) of (\d+) rules shown<', dom)
    assert shown is not None, "the page's script did not run"
    assert shown.groups() == (str(RULE_COUNT), str(RULE_COUNT))
    assert 'class="js"' in dom
    # The counterexample of the wrong implementation is in the page, behind its cell.
    assert 'id="cx-1-select.never-empty"' in dom
    assert "empty messages never count" in dom


def test_every_implementation_has_a_column_told_apart(page: Path, tmp_path: Path) -> None:
    dumped = browser(tmp_path, "--dump-dom", page.as_uri())
    assert dumped.returncode == 0, dumped.stderr
    heads = headings(dumped.stdout)
    labels = [label for _, label in heads]
    assert len(set(labels)) == len(labels), labels
    assert labels[0].startswith("eventproof-reference-halving ")
    assert labels[4] == labels[0] + " (2)"
    assert [headline for headline, _ in heads] == [
        "conforms", "does not conform", "does not conform", "could not be checked", "conforms"]
    # The header counts every column by its verdict, the one that could not be checked too.
    assert re.search(r"2 of 5 implementations conform \(2 does not conform, 1 could not be "
                     r"checked\)", dumped.stdout)
    # The unchecked column shows its error; every rule of it is "not run".
    assert "no-such-program-eventproof" in dumped.stdout
    assert "was not found" in dumped.stdout
    cells = re.findall(r'<td class="cell" data-outcome="([^"]*)"', dumped.stdout)
    assert cells[3::5] == ["none"] * RULE_COUNT


def test_each_profile_s_status_per_column(page: Path, tmp_path: Path) -> None:
    dumped = browser(tmp_path, "--dump-dom", page.as_uri())
    assert dumped.returncode == 0, dumped.stderr
    statuses = re.findall(r'<td class="cell pcell" data-status="([^"]*)"', dumped.stdout)
    # Rows selection, wire, budget; columns as above. echo declares select and classify only.
    assert statuses == [
        "conforms", "does not conform", "does not conform", "could not be checked", "conforms",
        "conforms", "conforms", "does not conform", "could not be checked", "conforms",
        "conforms", "conforms", "not declared", "could not be checked", "conforms"]
    # A profile not declared names the operations the implementation did not declare.
    assert re.search(r'data-status="not declared"><span class="status s-not-declared">not '
                     r'declared</span><span class="cov">roster</span>', dumped.stdout)


def test_the_outcome_filter_hides_rows(page: Path, tmp_path: Path) -> None:
    dumped = browser(tmp_path, "--dump-dom", page.as_uri() + "?outcomes=fail")
    assert dumped.returncode == 0, dumped.stderr
    dom = dumped.stdout
    rows = re.findall(r'<tr class="rule" data-outcomes="([^"]*)"[^>]*>', dom)
    failing = [outcomes for outcomes in rows if "fail" in outcomes.split()]
    assert 0 < len(failing) < len(rows)
    assert re.search(rf'id="shown">{len(failing)} of {len(rows)} rules shown<', dom)
    hidden = re.findall(r'<tr class="rule" data-outcomes="([^"]*)"[^>]*hidden', dom)
    assert len(hidden) == len(rows) - len(failing)
    assert all("fail" not in outcomes.split() for outcomes in hidden)
    # The profile rows are never filtered away.
    assert not re.search(r'<tbody class="profiles"[^>]*hidden', dom)


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
