"""Output made for pipes: one rule per line, no escape codes, JSON on stdout when asked."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from eventproof.conformance._operations import RULES

EVENTPROOF = [sys.executable, "-m", "eventproof.conformance"]


def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*EVENTPROOF, *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COLUMNS": "60", **env}, check=False)


def test_rules_keep_one_rule_per_line_in_a_pipe() -> None:
    """`eventproof rules | grep` finds each rule on one line, however narrow the terminal."""
    lines = run("rules").stdout.splitlines()
    assert len(lines) == len(RULES)
    assert [line.split()[0] for line in lines] == [rule.id for rule in RULES]


def test_no_escape_codes_with_no_color_even_when_colour_is_forced(tmp_path: Path) -> None:
    """NO_COLOR, TERM=dumb and --no-color each win over FORCE_COLOR: no escape code at all."""
    check = ("run", "--effort", "quick", "--deterministic", "--ops", "classify", "--no-progress",
             "--state-dir", str(tmp_path))
    assert "\x1b[" in run(*check, FORCE_COLOR="1").stdout  # styled when colour is forced
    for args, env in (("--no-color", *check), {}), (check, {"NO_COLOR": "1"}), (
            check, {"TERM": "dumb"}):
        result = run(*args, FORCE_COLOR="1", **env)
        assert result.returncode == 0
        assert "\x1b[" not in result.stdout, (args, env)


def test_rules_json_and_run_json_to_stdout(tmp_path: Path) -> None:
    """`rules --json` is one JSON array; `run --json -` writes only the report on stdout."""
    rules = json.loads(run("rules", "--json").stdout)
    assert [rule["id"] for rule in rules] == [rule.id for rule in RULES]
    result = run("run", "--effort", "quick", "--deterministic", "--ops", "classify",
                 "--no-progress", "--json", "-", "--state-dir", str(tmp_path))
    document = json.loads(result.stdout)
    assert document["conforms"] is True
    # One operation of nine: it breaks nothing, exits 0, and says it checked only part.
    assert document["verdict"]["headline"] == "checked only part"
    assert "checked only part (exit code 0" in result.stderr
    assert "checked only 1 of 59 rules (--ops classify: classify all)" in result.stderr


# -- the first run -----------------------------------------------------------------------------

#: These tests are about what the command writes where, not about what a search finds: a few
#: examples a search are enough for the planted bug to be found and every rule judged.
SEARCH = ("--max-examples", "12", "--deterministic", "--no-progress")
QUICK = (*SEARCH, "--ops", "classify")
REFERENCE = "python:eventproof.reference:Reference"
#: A planted bug: an empty usage-only message taken as the output (tests/miniatures/selection.py).
UNFILTERED = "python:miniatures.selection:LastMessageUnfiltered"
TESTS = Path(__file__).resolve().parents[1]


def test_first_run_on_the_default_ends_with_the_next_step(tmp_path: Path) -> None:
    """Without --impl the summary ends by saying what to do next, each instruction whole on one
    line however narrow the terminal; with --impl nothing of the kind is printed."""
    result = run("run", *QUICK, "--state-dir", str(tmp_path), NO_COLOR="1")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.rstrip("\n").splitlines()
    assert lines[-2] == ("Next: check your implementation with  eventproof run --impl "
                         "'node my-port/eventproof-port.mjs'  (any command speaking "
                         "spec/protocol.md, or python:MODULE:ATTR); start one from a template "
                         "with  eventproof new-port js my-port  (or typescript, go)")
    assert "docs/port-checklist.md" in lines[-1]
    assert "\x1b[" not in result.stdout
    named = run("run", *QUICK, "--impl", REFERENCE, "--state-dir", str(tmp_path))
    assert named.returncode == 0
    assert "Next:" not in named.stdout + named.stderr
    assert "port-checklist" not in named.stdout + named.stderr


def test_first_run_hint_stays_off_stdout_with_json_to_stdout(tmp_path: Path) -> None:
    """`run --json -` keeps stdout one JSON document: the next step goes to stderr, after the
    summary."""
    result = run("run", *QUICK, "--json", "-", "--state-dir", str(tmp_path))
    assert json.loads(result.stdout)["conforms"] is True
    assert "Next:" not in result.stdout
    assert result.stderr.index("checked only part (exit code 0") < result.stderr.index(
        "Next: check")


# -- times -------------------------------------------------------------------------------------

def test_junit_of_a_real_run_has_times_that_add_up(tmp_path: Path) -> None:
    """Every testcase of a real run has a time; a suite's is the sum of its testcases'."""
    junit = tmp_path / "report.xml"
    result = run("run", *SEARCH, "--ops", "select,classify", "--junit", str(junit),
                 "--state-dir", str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    root = ET.parse(junit).getroot()
    times = [float(case.get("time") or "nan") for case in root.iter("testcase")]
    assert len(times) == 5
    assert all(time > 0 for time in times)
    for suite in root.findall("testsuite"):
        total = sum(float(case.get("time") or "nan") for case in suite.iter("testcase"))
        assert abs(total - float(suite.get("time") or "nan")) < 1e-6
    assert sum(times) <= float(root.get("time") or "nan")


def test_deterministic_json_reports_are_identical_but_for_the_run_time(tmp_path: Path) -> None:
    """Two deterministic runs write the same JSON report byte for byte, but for the one line
    of durationSeconds; rule times appear only with --timings."""
    texts = []
    for name in ("first", "second"):
        path = tmp_path / f"{name}.json"
        result = run("run", *SEARCH, "--impl", UNFILTERED, "--ops", "select", "--json", str(path),
                     "--state-dir", str(tmp_path / "state"), PYTHONPATH=str(TESTS))
        assert result.returncode == 1, result.stdout + result.stderr
        texts.append(path.read_text("utf-8"))
    first, second = ([line for line in text.splitlines() if '"durationSeconds"' not in line]
                     for text in texts)
    assert first == second
    assert len(first) == len(texts[0].splitlines()) - 1
    assert '"seconds"' not in texts[0]
    timed = tmp_path / "timed.json"
    run("run", *QUICK, "--timings", "--json", str(timed), "--state-dir", str(tmp_path))
    results = json.loads(timed.read_text("utf-8"))["results"]
    assert all(isinstance(result["seconds"], float) for result in results)


# -- several implementations -------------------------------------------------------------------

def test_several_implementations_in_one_run(tmp_path: Path) -> None:
    """Each --impl is checked in turn: one set of reports each under --reports, one matrix page
    under --html, each verdict on its own line, exit code 1 as one does not conform."""
    reports, site = tmp_path / "reports", tmp_path / "site"
    result = run("run", *SEARCH, "--ops", "select,classify", "--impl", REFERENCE,
                 "--impl", UNFILTERED, "--reports", str(reports), "--html", str(site),
                 "--state-dir", str(tmp_path / "state"), PYTHONPATH=str(TESTS), NO_COLOR="1")
    assert result.returncode == 1, result.stdout + result.stderr
    names = sorted(path.name for path in reports.iterdir())
    assert names == ["eventproof-reference-halving.json", "eventproof-reference-halving.md",
                     "eventproof-reference-halving.xml", "last-message-unfiltered.json",
                     "last-message-unfiltered.md", "last-message-unfiltered.xml"]
    good = json.loads((reports / "eventproof-reference-halving.json").read_text("utf-8"))
    bad = json.loads((reports / "last-message-unfiltered.json").read_text("utf-8"))
    assert good["conforms"] is True
    assert bad["conforms"] is False
    assert bad["rerun"].startswith(f"eventproof run --impl {UNFILTERED} --ops select,classify")
    assert ET.parse(reports / "last-message-unfiltered.xml").getroot().get("failures") != "0"
    page = (site / "index.html").read_text("utf-8")
    assert page.count('<th scope="col" class="impl ') == 2
    assert sorted(path.name for path in (site / "badges").iterdir()) == [
        "eventproof-reference-halving.json", "last-message-unfiltered.json"]
    lines = result.stdout.splitlines()
    assert any(line.startswith("  checked only part ") and f"--impl {REFERENCE}" in line
               for line in lines)
    assert any(line.startswith("  does not conform ") and f"--impl {UNFILTERED}" in line
               and "last-message-unfiltered.json" in line for line in lines)
    assert "1 of 2 implementation(s) conform" in lines
    assert lines[-1] == "exit code 1: an implementation does not conform"
    assert "Next:" not in result.stdout
    # Failure cases of the wrong one were saved where `eventproof replay` looks.
    assert (tmp_path / "state" / "failures" / "last-message-unfiltered").is_dir()


def test_several_implementations_one_that_cannot_start(tmp_path: Path) -> None:
    """An implementation that cannot be checked does not stop the others; the run exits 2, and
    the matrix gives it a column (its label, its error) beside the others'."""
    result = run("run", *QUICK, "--impl", "no-such-program-eventproof", "--impl", REFERENCE,
                 "--impl", REFERENCE, "--label", "missing", "--label", "ref", "--label", "ref",
                 "--html", str(tmp_path / "site"), "--state-dir", str(tmp_path), NO_COLOR="1")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "'no-such-program-eventproof' was not found" in result.stderr
    assert "--impl no-such-program-eventproof  (" in result.stdout
    assert f"  {'checked only part':<20}--impl {REFERENCE}  (" in result.stdout
    # Without --reports, the reports the page renders go next to it, the unchecked one's too.
    reports = tmp_path / "site" / "reports"
    assert sorted(path.name for path in reports.iterdir()) == [
        "eventproof-reference-halving-2.json", "eventproof-reference-halving.json",
        "unchecked-no-such-program-eventproof.json"]
    unchecked = json.loads((reports / "unchecked-no-such-program-eventproof.json")
                           .read_text("utf-8"))
    assert unchecked["verdict"]["headline"] == "could not be checked"
    assert unchecked["implementation"] == {"command": "no-such-program-eventproof"}
    page = (tmp_path / "site" / "index.html").read_text("utf-8")
    heads = re.findall(r'<th scope="col" class="impl [^"]*" data-headline="([^"]*)">'
                       r'<span class="impl-name">([^<]*)</span>', page)
    assert heads == [("could not be checked", "missing"), ("checked only part", "ref"),
                     ("checked only part", "ref (2)")]
    assert "2 of 3 implementations conform (1 could not be checked)" in page
    assert "was not found" in page
    # The report command renders the same files, and takes labels too.
    again = run("report", "--html", str(tmp_path / "again"), "--label", "gone",
                str(reports / "unchecked-no-such-program-eventproof.json"))
    assert again.returncode == 0, again.stdout + again.stderr
    assert '<span class="impl-name">gone</span>' in (tmp_path / "again" / "index.html").read_text(
        "utf-8")


def test_labels_are_one_per_implementation(tmp_path: Path) -> None:
    refused = run("run", *QUICK, "--impl", REFERENCE, "--label", "a", "--label", "b",
                  "--html", str(tmp_path / "site"), "--state-dir", str(tmp_path))
    assert refused.returncode == 2
    assert "2 --label for 1 --impl" in refused.stderr
    alone = run("run", *QUICK, "--label", "a", "--state-dir", str(tmp_path))
    assert alone.returncode == 2
    assert "give --html DIR too" in alone.stderr


def test_same_declared_name_twice_keeps_both_reports_and_cases(tmp_path: Path) -> None:
    """Two implementations declaring one name get NAME and NAME-2, reports and case files."""
    result = run("run", *SEARCH, "--ops", "select", "--impl", UNFILTERED, "--impl", UNFILTERED,
                 "--reports", str(tmp_path / "r"), "--state-dir", str(tmp_path / "state"),
                 PYTHONPATH=str(TESTS))
    assert result.returncode == 1, result.stdout + result.stderr
    assert {path.name for path in (tmp_path / "r").glob("*.json")} == {
        "last-message-unfiltered.json", "last-message-unfiltered-2.json"}
    second = json.loads((tmp_path / "r" / "last-message-unfiltered-2.json").read_text("utf-8"))
    files = [result["counterexample"]["replayFile"] for result in second["results"]
             if "counterexample" in result]
    assert files
    assert all("last-message-unfiltered-2" in file for file in files)
    assert all(Path(file).is_file() for file in files)
    assert (tmp_path / "state" / "failures" / "last-message-unfiltered").is_dir()


@pytest.mark.parametrize("option", ["--json", "--junit", "--markdown"])
def test_one_report_file_for_several_implementations_is_refused(
        option: str, tmp_path: Path) -> None:
    """--json/--junit/--markdown FILE name one report: with two --impl the run refuses before
    it starts, and says to use --reports DIR."""
    result = run("run", *QUICK, "--impl", REFERENCE, "--impl", REFERENCE, option,
                 str(tmp_path / "x"), "--state-dir", str(tmp_path))
    assert result.returncode == 2
    assert f"{option} {tmp_path / 'x'} names one report, but 2 implementations" in result.stderr
    assert "--reports DIR" in result.stderr
    assert not (tmp_path / "x").exists()


def test_expect_with_several_implementations_is_refused(tmp_path: Path) -> None:
    expect = tmp_path / "expect.txt"
    expect.write_text("")
    result = run("run", *QUICK, "--impl", REFERENCE, "--impl", REFERENCE, "--expect",
                 str(expect), "--state-dir", str(tmp_path))
    assert result.returncode == 2
    assert "lists the expected failures of one implementation" in result.stderr


def test_stdout_is_only_for_json(tmp_path: Path) -> None:
    """`--junit -` would write a file named '-': it is refused, naming the option."""
    result = run("run", *QUICK, "--junit", "-", "--state-dir", str(tmp_path))
    assert result.returncode == 2
    assert "--junit -: only --json writes to stdout" in result.stderr


# -- vectors -----------------------------------------------------------------------------------

def test_vectors_output_pipes(tmp_path: Path) -> None:
    """`eventproof vectors` prints each failing vector's lines whole, with no escape codes for
    NO_COLOR, TERM=dumb and --no-color; `--json -` puts only the report on stdout."""
    bug = ("--impl", "python:tests.unit.test_vectors:_NoFallback", "--rule", "select.")
    root = TESTS.parent
    for args, env in ((("--no-color", "vectors", *bug), {}), (("vectors", *bug),
                      {"NO_COLOR": "1"}), (("vectors", *bug), {"TERM": "dumb"})):
        result = subprocess.run([*EVENTPROOF, *args], capture_output=True, text=True,
                                timeout=300, check=False, cwd=root,
                                env={**os.environ, "COLUMNS": "40", "FORCE_COLOR": "1", **env})
        assert result.returncode == 1, result.stdout + result.stderr
        assert "\x1b[" not in result.stdout
        fails = [line for line in result.stdout.splitlines() if line.startswith("FAIL ")]
        assert fails
        assert all("(spec/selection.md §" in line for line in fails)
        reruns = [line for line in result.stdout.splitlines() if "rerun:" in line]
        assert all(line.endswith(("--rule select.text-fallback", "--rule select.agrees"))
                   for line in reruns)
    piped = subprocess.run([*EVENTPROOF, "vectors", *bug, "--json", "-"], capture_output=True,
                           text=True, timeout=300, check=False, cwd=root)
    assert piped.returncode == 1
    assert json.loads(piped.stdout)["conforms"] is False
    assert "does not conform" in piped.stderr


def test_every_command_writes_no_escape_code_with_no_color(tmp_path: Path) -> None:
    """rules, run, replay and report, errors included, write plain text for NO_COLOR,
    TERM=dumb and --no-color even when colour is forced."""
    state = tmp_path / "state"
    report = tmp_path / "bad.json"
    # -x: one failure is all the styled output needs, and the run ends there.
    made = run("run", *SEARCH, "-x", "--ops", "select", "--impl", UNFILTERED, "--json",
               str(report), "--state-dir", str(state), "--shard", "1/1", PYTHONPATH=str(TESTS))
    assert made.returncode == 1, made.stdout + made.stderr
    commands = [
        (0, ("rules",)),
        (0, ("rules", "--where", "select.last-message")),
        (1, ("replay", "--state-dir", str(state), "--impl", UNFILTERED)),
        (0, ("report", "--html", str(tmp_path / "site"), str(report))),
        (2, ("report", "--html", str(tmp_path / "site"), str(tmp_path / "missing.json"))),
        (1, ("report", "--merge", str(tmp_path / "merged.json"), str(report))),
        (1, ("run", *QUICK, "-x", "--ops", "select", "--impl", REFERENCE, "--impl",
             UNFILTERED, "--state-dir", str(state))),
    ]
    # Every command under NO_COLOR, and under TERM=dumb or --no-color in turn (all three ways on
    # `run` in the test above).
    others: list[tuple[tuple[str, ...], dict[str, str]]] = [
        ((), {"TERM": "dumb"}), (("--no-color",), {})]
    for index, (code, command) in enumerate(commands):
        for prefix, env in (((), {"NO_COLOR": "1"}), others[index % len(others)]):
            result = run(*prefix, *command, FORCE_COLOR="1", PYTHONPATH=str(TESTS), **env)
            assert result.returncode == code, (command, result.stdout + result.stderr)
            assert "\x1b[" not in result.stdout + result.stderr, (command, env, prefix)


def test_several_implementations_share_one_random_seed(tmp_path: Path) -> None:
    """A random run without --seed draws one seed for every implementation it checks."""
    result = run("run", "--effort", "quick", "--random", "--ops", "classify", "--no-progress",
                 "--impl", REFERENCE, "--impl", REFERENCE, "--reports", str(tmp_path / "r"),
                 "--state-dir", str(tmp_path / "state"))
    assert result.returncode == 0, result.stdout + result.stderr
    seeds = {json.loads(path.read_text("utf-8"))["seed"]
             for path in (tmp_path / "r").glob("*.json")}
    assert len(seeds) == 1
    assert isinstance(seeds.pop(), int)
