"""The audit's HTML page in a real browser: headless Chromium loads it from file://, runs its
script and draws the plot of bytes along the log. The screenshot is kept under pytest's tmp dir
(the test prints where) for a person to look at."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import orjson
import pytest
from eventproof.conformance._workloads import build_stream
from eventproof.conformance.audit import Settings, audit, expand
from eventproof.conformance.audit._render import write_html

BROWSER = next((found for name in ("chromium", "chromium-browser", "google-chrome")
                if (found := shutil.which(name))), None)

pytestmark = pytest.mark.skipif(
    BROWSER is None, reason="no Chromium on PATH (Debian: apt-get install -y chromium)")


def browser(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert BROWSER is not None
    return subprocess.run(
        [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--no-first-run", "--disable-extensions", "--virtual-time-budget=10000",
         f"--user-data-dir={tmp_path / 'profile'}", *args],
        capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp_path = tmp_path_factory.mktemp("audit-page")
    log = tmp_path / "naive.jsonl"
    log.write_bytes(b"".join(orjson.dumps(event) + b"\n"
                             for event in build_stream("light", events=800, seed=5)))
    target = tmp_path / "site" / "audit.html"
    write_html(audit(expand((str(log),)), Settings()), target)
    return target


def test_the_page_loads_its_script_runs_and_the_plot_is_drawn(page: Path,
                                                             tmp_path: Path) -> None:
    dumped = browser(tmp_path, "--dump-dom", page.as_uri())
    assert dumped.returncode == 0, dumped.stderr
    dom = dumped.stdout
    assert 'class="js"' in dom
    shown = re.search(r'id="types-shown">(\d+) of (\d+) event types shown<', dom)
    assert shown is not None, "the page's script did not run"
    assert shown.group(1) == shown.group(2)
    assert int(shown.group(2)) >= 8  # every event type of the stream has its colour
    bars = re.findall(r'<rect data-type="([a-z_]+)"', dom)
    assert {"message_update", "tool_execution_update", "turn_end"} <= set(bars)
    assert "does not conform" in dom
    assert "project.turn-end" in dom


def test_a_screenshot_shows_the_plot(page: Path, tmp_path: Path) -> None:
    shot = tmp_path / "audit.png"
    taken = browser(tmp_path, f"--screenshot={shot}", "--window-size=1200,900", page.as_uri())
    assert taken.returncode == 0, taken.stderr
    assert shot.stat().st_size > 10_000  # a page with a plot, not a blank one
    print(f"screenshot: {shot}")
