"""`eventproof vectors` against the JavaScript port, through the subprocess protocol."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PORT = ROOT / "examples" / "js" / "eventproof-port.mjs"

pytestmark = [
    pytest.mark.node,
    pytest.mark.skipif(shutil.which("node") is None,
                       reason="Node.js is not on PATH: the JavaScript port cannot run"),
    pytest.mark.skipif(not PORT.exists(),
                       reason=f"the JavaScript port {PORT.relative_to(ROOT)} does not exist"),
]


def _vectors(*port_args: str, bug: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("EVENTPROOF_JS_BUG", None)
    if bug is not None:
        env["EVENTPROOF_JS_BUG"] = bug
    impl = " ".join(["node", str(PORT.relative_to(ROOT)), *port_args])
    return subprocess.run(
        [sys.executable, "-m", "eventproof.conformance", "vectors", "--timeout", "30",
         "--impl", impl],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
    )


@pytest.mark.parametrize("fit", ["halving", "maximal"])
def test_js_port_passes_the_vectors(fit: str) -> None:
    """The JavaScript port passes every vector of its declared fit strategy (exit 0)."""
    result = _vectors(f"--fit={fit}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert " 0 failed" in result.stdout
    assert f"declares {fit}" in result.stdout  # the other strategy's vectors were skipped


def test_js_port_with_a_planted_bug_fails_with_the_rule() -> None:
    """With the no-text-fallback bug planted the port fails (exit 1) and the rule is named."""
    result = _vectors(bug="no-text-fallback")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "select.text-fallback" in result.stdout
    assert "FAIL" in result.stdout
