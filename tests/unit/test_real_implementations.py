"""The page of real implementations stays true to itself: every disagreement line names a class,
known rules and a spec section, its minimal case is a valid input of its operation, and the docs
list every line by its id."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from eventproof.conformance._operations import RULES
from eventproof.conformance._schemas import validator_for

ROOT = Path(__file__).resolve().parents[2]
LINES: list[dict[str, Any]] = yaml.safe_load(
    (ROOT / "tools" / "real" / "disagreements.yaml").read_text(encoding="utf-8"))
DOCS = (ROOT / "docs" / "real-implementations.md").read_text(encoding="utf-8")


def _runner() -> Any:
    spec = importlib.util.spec_from_file_location(
        "real_implementations", ROOT / "tools" / "real" / "implementations.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


RUNNER = _runner()


def test_ids_are_unique() -> None:
    """No two lines share an id (the page and the docs link them by it)."""
    ids = [line["id"] for line in LINES]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("line", LINES, ids=[line["id"] for line in LINES])
def test_each_line_is_classified_and_cited(line: dict[str, Any]) -> None:
    """A line has one of the three classes, names rules of the kit and a section of the spec,
    says why, and is listed in docs/real-implementations.md."""
    known = {rule.id for rule in RULES}
    assert line["class"] in {"kit", "spec", "implementation"}
    assert set(line["rules"]) <= known
    assert line["rules"] or line["class"] == "kit"
    document, _, section = line["section"].partition("#")
    text = (ROOT / "spec" / document).read_text(encoding="utf-8")
    assert f"## {section}." in text
    assert line["summary"].strip()
    assert f"`{line['id']}`" in DOCS
    if line["class"] != "kit":
        assert "case" in line


@pytest.mark.parametrize("line", [line for line in LINES if "case" in line],
                         ids=[line["id"] for line in LINES if "case" in line])
def test_each_case_is_a_valid_input(line: dict[str, Any]) -> None:
    """A line's minimal case, written out, is valid against its operation's input schema (the
    harness judges nothing else), and the reference answers it."""
    case = RUNNER.expand(line["case"])
    errors = list(validator_for(f"op-{case['op']}.json#/$defs/input").iter_errors(case["input"]))
    assert not errors, [error.message for error in errors]
    answer = RUNNER.reference_answer(case)
    assert set(answer) in ({"output"}, {"errored"})


def test_a_repeated_character_is_written_out() -> None:
    """"<N × c>" in a case stands for c written N times, wherever it sits; other strings stay."""
    assert RUNNER.expand({"a": ["<3 × x>", "<3 x x>"], "b": "<0 × y>"}) == \
        {"a": ["xxx", "<3 x x>"], "b": ""}


def test_answers_differ_by_kind_or_output() -> None:
    """Two answers disagree when one is an error and the other is not, or their outputs
    differ; two errors agree whatever their messages."""
    differ = RUNNER.differ
    assert differ({"output": None}, {"errored": {"message": "x"}})
    assert differ({"output": {"line": "a"}}, {"output": {"line": "b"}})
    assert not differ({"output": {"line": "a"}}, {"output": {"line": "a"}})
    assert not differ({"errored": {"message": "x"}}, {"errored": {"message": "y"}})


def test_a_broken_rule_without_a_line_is_unclassified() -> None:
    """A rule a report says is broken (fail, error, crash, timeout, unstable) needs a line for
    that implementation or for every one; passing and skipped rules need none."""
    report = {"implementation": {"name": "x"},
              "results": [{"id": "project.turn-end", "outcome": "fail"},
                          {"id": "project.agent-end", "outcome": "crash"},
                          {"id": "canon.utf8", "outcome": "unstable"},
                          {"id": "classify.kind", "outcome": "pass"},
                          {"id": "select.agrees", "outcome": "skip"}]}
    lines = [{"implementation": "x", "rules": ["project.turn-end"]},
             {"implementation": "*", "rules": ["canon.utf8"]},
             {"implementation": "y", "rules": ["project.agent-end"]}]
    assert RUNNER.unclassified_failures([report], lines) == [("x", "project.agent-end")]
    assert RUNNER.unclassified_failures([{"implementation": {"name": "z"}}], lines) == []
