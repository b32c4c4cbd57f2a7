"""``eventproof audit`` on the command line: exit codes and report flags as ``run``."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from audit_logs import ASSISTANT, START, line
from click.testing import CliRunner
from eventproof.conformance.cli import main
from jsonschema import Draft202012Validator

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "schemas" /
                     "audit-report.json").read_text("utf-8"))
TURN_END = line({"type": "turn_end", "message": ASSISTANT, "toolResults": []})
SPACED = b'{"type": "turn_start"}\n'


def run(*args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["audit", "--no-progress", *args], input=stdin,
                                catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def logs(tmp_path: Path) -> dict[str, Path]:
    paths = {"clean": tmp_path / "clean.jsonl", "broken": tmp_path / "broken.jsonl",
             "should": tmp_path / "should.jsonl"}
    paths["clean"].write_bytes(line(START))
    paths["broken"].write_bytes(line(START) + TURN_END * 7)
    paths["should"].write_bytes(line(START) + SPACED)
    return paths


def test_exit_codes(logs: dict[str, Path], tmp_path: Path) -> None:
    assert run(str(logs["clean"]))[0] == 0
    assert run(str(logs["should"]))[0] == 0  # a SHOULD finding never fails
    assert run(str(logs["broken"]))[0] == 1
    assert run(str(logs["clean"]), str(logs["broken"]))[0] == 1
    (tmp_path / "empty.jsonl").write_bytes(b"")
    code, out, _ = run(str(tmp_path / "empty.jsonl"))
    assert code == 2
    assert "nothing to audit" in out


@pytest.mark.parametrize(("args", "says"), [
    (("missing.jsonl",), "no such file"),
    (("--max-bytes", "100", "x.jsonl"), "3215"),
    (("--max-findings", "0", "x.jsonl"), "0"),
    (("--junit", "-", "x.jsonl"), "only --json writes to stdout"),
])
def test_usage_errors_exit_2(args: tuple[str, ...], says: str) -> None:
    code, out, err = run(*args)
    assert code == 2
    assert says in out + err
    assert "Traceback" not in out + err


def test_reports_are_written_and_valid(logs: dict[str, Path], tmp_path: Path) -> None:
    paths = {name: tmp_path / "out" / f"audit.{name}" for name in ("json", "xml", "md", "html")}
    code, out, _ = run(str(logs["broken"]), str(logs["should"]), "--max-findings", "2",
                       "--json", str(paths["json"]), "--junit", str(paths["xml"]),
                       "--markdown", str(paths["md"]), "--html", str(paths["html"]))
    assert code == 1
    document = json.loads(paths["json"].read_text("utf-8"))
    Draft202012Validator(SCHEMA).validate(document)
    rules = {rule["id"]: rule for rule in document["rules"]}
    assert rules["project.turn-end"]["findings"] == 7
    assert rules["project.turn-end"]["outcome"] == "fail"
    assert rules["canon.bytes"] == {**rules["canon.bytes"], "outcome": "fail", "findings": 1}
    assert rules["bound.fits"]["outcome"] == "untested"
    shown = [finding for finding in document["findings"] if finding["rule"] == "project.turn-end"]
    assert [finding["line"] for finding in shown] == [2, 3]  # --max-findings 2
    assert "5 more finding(s)" in out
    suite = ET.parse(paths["xml"]).getroot()
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert cases["project.turn-end"].find("failure") is not None
    assert cases["canon.bytes"].find("failure") is None  # SHOULD: reported, never failed
    assert cases["bound.fits"].find("skipped") is not None
    assert suite.get("failures") == "1"
    markdown = paths["md"].read_text("utf-8")
    assert "# eventproof audit: does not conform" in markdown
    assert "`project.turn-end` | MUST | wire.md#4.4 | fail | 7 | 7 |" in markdown
    assert "<svg" in paths["html"].read_text("utf-8")


def test_json_to_stdout_and_standard_input(logs: dict[str, Path]) -> None:
    code, out, err = run("-", "--json", "-", stdin=logs["broken"].read_bytes())
    assert code == 1
    document = json.loads(out)
    assert document["files"][0]["file"] == "<stdin>"
    assert document["summary"]["mustFindings"] == 7
    assert "eventproof audit" in err  # the console summary went to stderr


def test_live_events_and_max_bytes(tmp_path: Path) -> None:
    update = line({"type": "tool_execution_update", "toolCallId": "c", "toolName": "t",
                   "args": {}, "partialResult": "x" * 5000})
    path = tmp_path / "live.jsonl"
    path.write_bytes(update)
    code, out, _ = run(str(path), "--json", "-")
    assert json.loads(out)["summary"]["mustFindings"] == 1  # a frame, not opted in
    code, out, _ = run(str(path), "--live-events", "--json", "-")
    assert code == 0
    code, out, _ = run(str(path), "--live-events", "--max-bytes", "4096", "--json", "-")
    assert code == 1
    assert [rule["id"] for rule in json.loads(out)["rules"] if rule["outcome"] == "fail"] == [
        "bound.fits"]
