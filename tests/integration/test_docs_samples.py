"""The samples of output in the docs are real: each is the output of the command the doc names,
run again here (times and call counts aside). A change to what the tool prints fails this test
until the doc shows it; ``EVENTPROOF_WRITE_DOCS=1 pytest tests/integration/test_docs_samples.py``
writes the new samples into the docs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: (doc, the heading the sample follows, the command's arguments after `eventproof`).
SAMPLES = [
    ("docs/read-a-failure.md", "## 1. One failure, whole",
     ["run", "--impl", "python:miniatures.selection:FirstMessageWins", "--deterministic",
      "--ops", "select"]),
    ("docs/gate-ci.md", "## 1. Install eventproof", ["--version"]),
]
_VARYING = [(re.compile(r"\d+ calls in \d+(?:\.\d+)? s"), "N calls in T s")]


def _normal(text: str) -> str:
    for pattern, replacement in _VARYING:
        text = pattern.sub(replacement, text)
    return text.strip()


def _block(doc: str, heading: str) -> tuple[int, int]:
    """The span of the first ```text block after ``heading``."""
    start = doc.index(heading)
    opening = doc.index("```text\n", start) + len("```text\n")
    return opening, doc.index("\n```", opening)


@pytest.mark.parametrize(("doc", "heading", "args"), SAMPLES, ids=[s[0] for s in SAMPLES])
def test_a_doc_sample_is_what_the_command_prints(tmp_path: Path, doc: str, heading: str,
                                                 args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "eventproof.conformance", *args], cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT / "tests"), "NO_COLOR": "1",
             "COLUMNS": "100"},
        capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode in (0, 1), done.stderr
    path = ROOT / doc
    text = path.read_text("utf-8")
    start, end = _block(text, heading)
    if os.environ.get("EVENTPROOF_WRITE_DOCS"):
        path.write_text(text[:start] + done.stdout.rstrip() + text[end:], encoding="utf-8")
    assert _normal(text[start:end]) == _normal(done.stdout), (
        f"{doc} shows output `eventproof {' '.join(args)}` no longer prints; rewrite it with "
        "EVENTPROOF_WRITE_DOCS=1 pytest tests/integration/test_docs_samples.py")


def test_the_action_inputs_are_the_documented_ones() -> None:
    """docs/gate-ci.md's table of the action's inputs lists exactly the inputs action.yml
    declares, in its order (a renamed input, such as budget to examples, cannot linger)."""
    import yaml

    declared = list(yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))["inputs"])
    doc = (ROOT / "docs" / "gate-ci.md").read_text("utf-8")
    start = doc.index("| input | default | meaning |")
    table = doc[start:doc.index("\n\n", start)]
    documented = re.findall(r"^\| `([a-z-]+)` \|", table, re.MULTILINE)
    assert documented == declared


def test_the_documented_verdict_headlines_are_the_verdicts() -> None:
    """Every headline a verdict can have is named where docs/gate-ci.md lists the action's
    `verdict` output."""
    from eventproof.conformance import _results

    doc = (ROOT / "docs" / "gate-ci.md").read_text("utf-8")
    start = doc.index("Its outputs restate the report's verdict")
    listed = doc[start:doc.index("`exit-code`", start)].replace("\n", " ")
    for headline in ("conforms", _results.PARTIAL_HEADLINE, "does not conform",
                     _results.STALE_HEADLINE, "interrupted", "terminated"):
        assert f"`{headline}`" in listed, headline
