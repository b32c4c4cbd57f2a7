"""One word, one meaning (docs/contributing.md): every output of a run says "budget" for the
budget profile alone, and no doc shows a renamed flag, setting or report member by its old name
outside a paragraph that calls it old."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, get_args

import pytest
from eventproof.conformance._results import ProfileStatus

ROOT = Path(__file__).resolve().parents[2]
#: A wrong implementation of the budget profile; its module's name is the user's text, which the
#: outputs quote and the scan leaves out.
WRONG = "python:miniatures.budget:RosterWithoutCount"

#: What follows the profile's name where an output names it: a profile status ("budget not
#: declared", "budget: conforms"), the word profile ("the budget profile"), or the profile's spec
#: (the matrix's heading of the profile's rules, "budget spec/budget.md §6").
_PROFILE_FOLLOWERS = (*get_args(ProfileStatus), "profile", "spec/budget.md")
_SEPARATORS = re.compile(r"^[\s:|*`\"'=,()]*")
_BUDGET = re.compile(r"budget", re.IGNORECASE)


def misuses(text: str) -> list[str]:
    """Each "budget" in ``text`` that is not the budget profile's name, with its context: the
    profile's name is followed by a profile status or the word profile, or is the spec file
    (spec/budget.md)."""
    found = []
    for match in _BUDGET.finditer(text):
        after = text[match.end():match.end() + 80]
        if after.startswith(".md"):
            continue
        if _SEPARATORS.sub("", after).startswith(_PROFILE_FOLLOWERS):
            continue
        found.append(text[max(0, match.start() - 60):match.end() + 60])
    return found


def json_misuses(value: Any, key: str = "") -> Iterator[str]:
    """:func:`misuses` of every member name and string of a JSON value; the profile's name is
    the whole value of a ``profile`` member."""
    if isinstance(value, dict):
        for name, each in value.items():
            yield from (f"member name {name!r}" for _ in misuses(name))
            yield from json_misuses(each, name)
    elif isinstance(value, list):
        for each in value:
            yield from json_misuses(each, key)
    elif isinstance(value, str) and not (key == "profile" and value == "budget"):
        yield from misuses(value)


class _Html(HTMLParser):
    """The text of a page (each element's text on its own), and its attribute values."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.attributes: list[tuple[str, str]] = []
        self.feed(page)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.attributes.extend((name, value or "") for name, value in attrs)
        self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def html_misuses(page: str) -> list[str]:
    """:func:`misuses` of a page's text and attribute values; ``data-profile="budget"`` names
    the profile."""
    parsed = _Html(page)
    found = misuses("".join(parsed.parts))
    for name, value in parsed.attributes:
        if not (name == "data-profile" and value == "budget"):
            found += [f"{name}={context}" for context in misuses(value)]
    return found


def test_the_scan_finds_every_other_meaning() -> None:
    """The scan itself: the words that once said budget for another thing are found, the
    profile's own forms are not."""
    for wrong in ("examples default, budget quick, deterministic", "restart budget exhausted",
                  "the example budget was spent", "under half of its budget in 'facts'",
                  '"budget": "quick"', "Budget: quick"):
        assert misuses(wrong), wrong
    assert list(json_misuses({"budget": "quick"}))
    assert list(json_misuses({"run": {"effort": "budget quick"}}))
    assert html_misuses('<p title="budget quick">x</p>')
    for right in ("budget not declared (details, roster, lane, publish)", "| budget | conforms |",
                  "budget: does not conform", "spec/budget.md §5", "the budget profile",
                  "budget spec/budget.md §6",
                  "selection=conforms,wire=conforms,budget=not declared"):
        assert not misuses(right), right
    assert not list(json_misuses({"profile": "budget", "status": "not checked"}))
    assert not html_misuses('<li data-profile="budget"><span class="profile">budget</span> '
                            '<span>not declared</span></li>')


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Every output of one run of the command line users run: the reference on an operation of
    the selection profile and a wrong implementation on one of the budget profile, quick, with
    every report and the matrix page; and `run --help`."""
    work = tmp_path_factory.mktemp("words")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tests"), "NO_COLOR": "1", "COLUMNS": "100"}
    done = subprocess.run(
        [sys.executable, "-m", "eventproof.conformance", "run", "--effort", "quick",
         "--deterministic", "--no-progress", "--ops", "classify,roster",
         "--impl", "python:eventproof.reference:Reference",
         "--impl", WRONG,
         "--reports", str(work / "reports"), "--html", str(work / "site"),
         "--state-dir", str(work / "state")],
        cwd=work, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 1, done.stderr[-3000:]
    shown = {"console": done.stdout + done.stderr}
    helped = subprocess.run([sys.executable, "-m", "eventproof.conformance", "run", "--help"],
                            cwd=work, env=env, capture_output=True, text=True, timeout=120,
                            check=True)
    shown["run --help"] = helped.stdout
    for path in sorted((work / "reports").iterdir()) + sorted((work / "site").rglob("*.*")):
        shown[str(path.relative_to(work))] = path.read_text("utf-8")
    assert {Path(name).suffix for name in shown} >= {".json", ".xml", ".md", ".html"}
    assert any(WRONG in text for text in shown.values())
    return {name: text.replace(WRONG, "<impl>") for name, text in shown.items()}


def test_every_output_says_budget_for_the_profile_alone(outputs: dict[str, str]) -> None:
    """The console, the JSON, JUnit and Markdown reports, the matrix page, the badges and the
    help say "budget" only as the budget profile's name (a failure of a budget rule included)."""
    assert "roster.count" in outputs["console"]  # a budget rule failed, and is shown
    found = {}
    for name, text in outputs.items():
        if name.endswith(".json"):
            wrong = list(json_misuses(json.loads(text)))
        elif name.endswith(".html"):
            wrong = html_misuses(text)
        else:
            wrong = misuses(text)
        if wrong:
            found[name] = wrong
    assert not found, found


def test_every_output_names_the_effort_as_effort(outputs: dict[str, str]) -> None:
    """The effort is called effort wherever a run states it."""
    reports = {name: text for name, text in outputs.items() if name.startswith("reports")}
    documents = [json.loads(text) for name, text in reports.items() if name.endswith(".json")]
    assert documents
    assert all(document["effort"] == document["run"]["effort"] == "quick"
               for document in documents)
    assert all("--effort quick" in document["rerun"] for document in documents)
    assert "effort quick" in outputs["console"]
    assert all("effort `quick`" in text for name, text in reports.items()
               if name.endswith(".md"))
    assert all('name="effort" value="quick"' in text for name, text in reports.items()
               if name.endswith(".xml"))
    assert "effort quick" in outputs["site/index.html"]


#: Old spellings of renamed things, as a doc would show them.
OLD_FORMS = re.compile("|".join([
    r'"budget"\s*:',                          # the report member of version 3
    r"(?:\$|\]|\s|`)\.budget\b",              # a path to it ($.budget, jq .budget)
    r"\[[\"']budget[\"']\]",                  # report["budget"]
    r"\b(?:report|RunReport)\.budget\b",      # the old attribute
    r"--(?:examples|budget|profile)[ =](?:quick|default|thorough)\b",
    r"--eventproof-(?:examples|budget)\b", r"\beventproof_examples\b",
    r"\b(?:examples|budget)\s*=\s*[\"'](?:quick|default|thorough)",
    r"\b(?:examples|budget):\s*(?:quick|default|thorough)\b",  # an action input
    r"\b(?:example|restart|quick|default|thorough)\s+budgets?\b",
]), re.IGNORECASE)
#: A paragraph that calls a name old may show it.
CALLED_OLD = re.compile(r"old name|version 3|old spelling", re.IGNORECASE)
DOCS = sorted([ROOT / "README.md", ROOT / "action.yml", *(ROOT / "docs").glob("*.md"),
               *(ROOT / "spec").glob("*.md"), *(ROOT / "examples").glob("*/README.md")])


def _paragraphs(text: str) -> Iterator[str]:
    """Paragraphs, and each table row on its own."""
    for block in re.split(r"\n\s*\n", text):
        rows = block.splitlines()
        if rows and all(row.lstrip().startswith("|") for row in rows):
            yield from rows
        else:
            yield block


@pytest.mark.parametrize("path", DOCS, ids=[str(path.relative_to(ROOT)) for path in DOCS])
def test_no_doc_shows_an_old_name_as_current(path: Path) -> None:
    """A doc shows the effort, its report member and the restart limit by their names; an old
    name appears only in a paragraph that says it is old."""
    found = [match.group(0) + " in: " + paragraph.strip()[:200]
             for paragraph in _paragraphs(path.read_text("utf-8"))
             if not CALLED_OLD.search(paragraph)
             for match in OLD_FORMS.finditer(paragraph)]
    assert not found, found


def test_the_doc_scan_finds_old_names() -> None:
    """The doc scan itself: each old form is found in a paragraph that does not call it old."""
    for old in ('{"budget": "quick"}', "jq .budget report.json", "eventproof run --examples quick",
                "--eventproof-budget thorough", 'eventproof_examples = "quick"',
                "check_implementation(impl, examples='quick')", "with: {examples: quick}",
                "the restart budget", "at the default budget", 'report["budget"]'):
        assert OLD_FORMS.search(old), old
    assert not CALLED_OLD.search("eventproof run --examples quick")
    assert CALLED_OLD.search("`--examples` is an old name of `--effort`")
