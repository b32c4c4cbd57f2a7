"""Failure case files: saved per failure, validated, loaded back, and replayed (fixed or not)."""

from __future__ import annotations

import json
import multiprocessing
import os
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from eventproof.conformance import _replay, check_implementation
from eventproof.conformance._adapters import Ok
from eventproof.conformance._engine import (
    Counterexample,
    RuleResult,
    RunReport,
)
from eventproof.conformance._model import Capabilities
from eventproof.conformance._operations import RULES_BY_ID, operation
from eventproof.conformance._replay import (
    FORMAT_VERSION,
    CaseOrigin,
    ReplayCase,
    ReplayError,
    ReplayResult,
    ReplayVerdict,
    case_document,
    case_path,
    load_cases,
    replay,
    save_failures,
)
from eventproof.conformance._reports import SUITE_VERSION
from eventproof.conformance._results import ExitCode
from eventproof.conformance._schemas import schema_issues
from eventproof.conformance._verdict import judge
from eventproof.reference import Reference
from hypothesis import given, settings
from hypothesis import strategies as st

IMPLEMENTATION = {"name": "rust port/β", "language": "rust", "version": "1.0.0"}


def message_event(seq: int, text: str) -> dict[str, Any]:
    return {"type": "assistant/message", "seq": seq, "time": "2025-01-01T00:00:00Z",
            "data": {"message": {"role": "assistant", "content": [{"type": "text", "text": text}]}}}


TWO_MESSAGES = {"events": [message_event(0, "first \ud800"), message_event(1, "last 😀")]}


class FirstMessageWins:
    """The reference, except that select answers the FIRST non-empty message (a planted bug)."""

    def __init__(self) -> None:
        self.reference = Reference()

    def start(self) -> dict[str, Any]:
        handshake = self.reference.start()
        handshake["implementation"] = dict(IMPLEMENTATION)
        return handshake

    def run(self, op: str, input: Any) -> Any:
        if op == "select":
            for event in input["events"]:
                if event.get("type") == "assistant/message":
                    content = event.get("data", {}).get("message", {}).get("content")
                    if isinstance(content, list) and content:
                        return content
        return self.reference.run(op, input)


class NeverSelects:
    """The reference, except that select always answers null (a bug any log with a message shows,
    so even the smallest example budget finds it)."""

    def start(self) -> dict[str, Any]:
        return Reference().start()

    def run(self, op: str, input: Any) -> Any:
        return None if op == "select" else Reference().run(op, input)


class SelectOnly:
    """The reference, declaring only the select operation."""

    def start(self) -> dict[str, Any]:
        handshake = Reference().start()
        handshake["capabilities"]["ops"] = ["select"]
        return handshake

    def run(self, op: str, input: Any) -> Any:
        return Reference().run(op, input)


def planted_case() -> ReplayCase:
    """The case the planted bug produces on TWO_MESSAGES, judged by the real checks."""
    wrong = FirstMessageWins().run("select", TWO_MESSAGES)
    verdict = judge(operation("select"), TWO_MESSAGES, Ok(wrong), Capabilities())
    expected, violations = verdict.expected, verdict.violations
    assert violations, "the planted bug must break a rule on this input"
    rule = RULES_BY_ID[violations[0].rule]
    return ReplayCase(rule=rule.id, level=rule.level, section=rule.section, op="select",
                      input=TWO_MESSAGES, expected=expected, actual=wrong,
                      message=violations[0].message, seed=None,
                      implementation=dict(IMPLEMENTATION), suite_version=SUITE_VERSION)


def report_with(results: list[RuleResult]) -> RunReport:
    return RunReport(implementation=dict(IMPLEMENTATION), capabilities=Capabilities(),
                     results=results, effort="quick", seed=7, deterministic=False)


def failure(rule_id: str, **overrides: Any) -> RuleResult:
    values: dict[str, Any] = {
        "op": RULES_BY_ID[rule_id].op, "input": TWO_MESSAGES,
        "expected": [{"type": "text", "text": "last 😀"}],
        "actual": [{"type": "text", "text": "first \ud800"}],
        "message": "the output is the first message", "seed": 7, "stderr": "",
    }
    values.update(overrides)
    return RuleResult(RULES_BY_ID[rule_id], "fail", Counterexample(**values))


# -- saving and loading ------------------------------------------------------------------------

def test_one_valid_file_per_failure(tmp_path: Path) -> None:
    """save_failures writes <dir>/<implementation>/<rule>.json for each counterexample (xfail
    included, passes not), each valid against schemas/replay-case.json."""
    report = report_with([
        failure("select.last-message"),
        RuleResult(RULES_BY_ID["select.agrees"], "pass"),
        RuleResult(RULES_BY_ID["bound.converges"], "xfail", Counterexample(
            op="project", input={"event": {"type": "x"}, "includeLiveEvents": True,
                                 "maxBytes": 4096},
            expected={"line": '{"type":"x"}'}, actual={"timeout": 10.0},
            message="no answer within 10 s", seed=7, stderr="looping\n"), note="expected: no"),
    ])
    written = save_failures(report, tmp_path)
    assert set(written) == {"select.last-message", "bound.converges"}
    for rule_id, path in written.items():
        assert path == tmp_path / "rust-port" / f"{rule_id}.json"
        assert path == case_path(tmp_path, IMPLEMENTATION["name"], rule_id)
        document = json.loads(path.read_text("utf-8"))
        assert schema_issues(document, "replay-case.json") == []
        assert document["formatVersion"] == FORMAT_VERSION
        assert document["implementation"] == IMPLEMENTATION
        assert document["rule"] == rule_id
    timeout = json.loads(written["bound.converges"].read_text("utf-8"))
    assert timeout["stderr"] == "looping\n"
    assert timeout["section"] == "wire.md#5.6"


def test_saved_cases_load_back_exactly(tmp_path: Path) -> None:
    """A saved case reads back with the same input, answers and message, lone surrogates and
    astral characters included."""
    written = save_failures(report_with([failure("select.last-message")]), tmp_path)
    [case] = load_cases([written["select.last-message"]])
    assert case.input == TWO_MESSAGES
    assert case.actual == [{"type": "text", "text": "first \ud800"}]
    assert case.rule == "select.last-message"
    assert case.level == "MUST"
    assert case.seed == 7
    assert case.path == written["select.last-message"]
    assert case_document(case)["input"] == TWO_MESSAGES


def test_the_directory_heals(tmp_path: Path) -> None:
    """When a rule passes in a later run, its stale case file is removed; others stay."""
    save_failures(report_with([failure("select.last-message"), failure("select.agrees")]),
                  tmp_path)
    save_failures(report_with([RuleResult(RULES_BY_ID["select.last-message"], "pass"),
                               failure("select.agrees")]), tmp_path)
    assert not case_path(tmp_path, IMPLEMENTATION["name"], "select.last-message").exists()
    assert case_path(tmp_path, IMPLEMENTATION["name"], "select.agrees").exists()


def write_case(tmp_path: Path, document: Any, name: str = "case.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def saved_document() -> dict[str, Any]:
    case = ReplayCase(rule="select.agrees", level="MUST", section="selection.md#3", op="select",
                      input={"events": []}, expected=None, actual=[], message="differs",
                      seed=None, implementation=dict(IMPLEMENTATION), suite_version="0.1.0")
    return case_document(case)


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    """A missing case file is refused naming the file and where case files live."""
    with pytest.raises(ReplayError, match="no such file") as caught:
        load_cases([tmp_path / "gone.json"])
    assert ".eventproof/failures" in str(caught.value)


def test_not_json_is_a_clear_error(tmp_path: Path) -> None:
    """A file that is not JSON is refused with the line and column of the problem."""
    path = tmp_path / "broken.json"
    path.write_text('{"formatVersion": 1,\n  "rule": }', encoding="utf-8")
    with pytest.raises(ReplayError, match=r"is not JSON: .* line 2, column 11"):
        load_cases([path])


def test_schema_violation_names_the_json_path(tmp_path: Path) -> None:
    """A case breaking the schema is refused with the JSONPath of the bad member."""
    document = saved_document()
    document["op"] = "summarize"
    with pytest.raises(ReplayError) as caught:
        load_cases([write_case(tmp_path, document)])
    assert caught.value.where == "$.op"
    assert "breaks schemas/replay-case.json" in str(caught.value)


def test_wrong_version_is_refused(tmp_path: Path) -> None:
    """A case file of another format version is refused, saying which version reads it."""
    document = dict(saved_document(), formatVersion=3)
    with pytest.raises(ReplayError, match="format version 3 is not a version") as caught:
        load_cases([write_case(tmp_path, document)])
    assert caught.value.where == "$.formatVersion"


def test_unknown_rule_suggests_the_closest(tmp_path: Path) -> None:
    """A case naming a rule this suite does not have is refused with the closest ids."""
    document = dict(saved_document(), rule="select.agree")
    with pytest.raises(ReplayError, match=r"did you mean select\.agrees"):
        load_cases([write_case(tmp_path, document)])


def test_cases_load_in_the_order_given(tmp_path: Path) -> None:
    """load_cases answers one case per path, in the order of the paths."""
    first = write_case(tmp_path, dict(saved_document(), rule="select.agrees"), "a.json")
    second = write_case(tmp_path, dict(saved_document(), rule="select.never-empty",
                                       section="selection.md#3.2"), "b.json")
    assert [case.rule for case in load_cases([second, first])] == ["select.never-empty",
                                                                    "select.agrees"]


# -- replaying ---------------------------------------------------------------------------------

def test_planted_bug_is_still_failing_and_the_reference_fixes_it(tmp_path: Path) -> None:
    """Replaying a saved case against the wrong implementation reports 'still failing' with the
    rule's message; against the reference, 'fixed'."""
    case = planted_case()
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case_document(case)), encoding="utf-8")
    [loaded] = load_cases([path])
    [still] = replay([loaded], FirstMessageWins, timeout=5.0)
    assert still.status == "still failing"
    assert still.message == case.message
    assert still.actual == [{"type": "text", "text": "first \ud800"}]
    [fixed] = replay([loaded], Reference, timeout=5.0)
    assert fixed.status == "fixed"
    assert fixed.case is loaded


def test_undeclared_operation_is_skipped() -> None:
    """A case whose operation the implementation does not declare is reported as skipped."""
    case = ReplayCase(rule="fold.prefix", level="MUST", section="selection.md#4.2", op="fold",
                      input={"pushes": []}, expected=[None], actual=[], message="m", seed=None,
                      implementation=dict(IMPLEMENTATION), suite_version=SUITE_VERSION)
    [result] = replay([case], SelectOnly, timeout=5.0)
    assert result.status == "skipped"
    assert "'fold'" in result.message


def test_engine_failure_round_trips_through_files(tmp_path: Path) -> None:
    """A failure the engine finds is saved, loaded and replayed as still failing; the reference
    replays the same file as fixed."""
    report = check_implementation(NeverSelects, ops=["select"], effort="quick", timeout=5.0)
    assert not report.conforms
    written = save_failures(report, tmp_path)
    assert written
    cases = load_cases(sorted(written.values()))
    assert {result.status for result in replay(cases, NeverSelects, timeout=5.0)} == {
        "still failing"}
    assert {result.status for result in replay(cases, Reference, timeout=5.0)} == {"fixed"}


# -- which implementation replays a case -------------------------------------------------------

def saved_from(origin: CaseOrigin | None, name: str = "rust port/β", **changes: Any) -> ReplayCase:
    return replace(planted_case(), origin=origin,
                   implementation=dict(IMPLEMENTATION, name=name), **changes)


PORT = CaseOrigin(impl="node port.mjs", shell=True, timeout=2.5, isolate=False, fit="maximal")


def test_a_run_records_how_its_implementation_was_started(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A case saved from a run of a python: spec records the spec, --isolate, the timeout and
    the fit the handshake declared; an object passed in code records no command."""
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[1]))  # the worker's
    spec = "python:miniatures.selection:LastMessageUnfiltered"
    report = check_implementation(spec, ops=["select"], effort="quick", timeout=4.0,
                                  isolate=True, exitfirst=True)
    [path, *_] = save_failures(report, tmp_path).values()
    [case] = load_cases([path])
    assert case.origin == CaseOrigin(impl=spec, shell=False, timeout=4.0, isolate=True,
                                     fit="halving", cwd=os.getcwd())
    assert case.outcome == "fail"
    in_code = check_implementation(NeverSelects, ops=["select"], effort="quick", exitfirst=True)
    [path, *_] = save_failures(in_code, tmp_path / "code").values()
    assert load_cases([path])[0].origin == CaseOrigin(impl=None, fit="halving", cwd=os.getcwd())


def test_bare_replay_goes_to_each_case_s_own_implementation() -> None:
    """Without --impl each case goes to the command it was saved from, started the same way,
    and must still declare its name; options given override the recorded ones."""
    other = CaseOrigin(impl="./go-port", timeout=10.0)
    cases = [saved_from(PORT), saved_from(other, name="go-port"), saved_from(PORT)]
    groups = _replay.plan_replay(cases)
    assert [(group.impl, group.use_shell, group.timeout, group.isolate, group.expect_name,
             len(group.cases)) for group in groups] == [
        ("node port.mjs", True, 2.5, False, "rust port/β", 2),
        ("./go-port", False, 10.0, False, "go-port", 1)]
    assert all(note == "" for group in groups for note in group.notes)
    [first, _] = _replay.plan_replay(cases, timeout=1.0, use_shell=False)
    assert (first.timeout, first.use_shell) == (1.0, False)


@pytest.mark.parametrize("origin", [None, CaseOrigin(impl=None)])
def test_bare_replay_refuses_a_case_with_no_command(origin: CaseOrigin | None) -> None:
    """A case that records no command (a version 1 file, an object passed in code) is refused
    by a bare replay, naming the implementation and the fix: never replayed on the reference."""
    with pytest.raises(ReplayError) as caught:
        _replay.plan_replay([saved_from(origin)])
    message = str(caught.value)
    assert "rust port/β" in message
    assert "--impl" in message
    assert caught.value.where == "$.origin"


def test_an_explicit_impl_says_which_cases_came_from_another() -> None:
    """With --impl every case goes to it; each case saved from another implementation says
    so, a case saved from the same command does not, and its recorded options are kept."""
    cases = [saved_from(PORT), saved_from(None), saved_from(CaseOrigin(impl="./go-port"))]
    [group] = _replay.plan_replay(cases, impl="node port.mjs")
    assert (group.impl, group.use_shell, group.timeout, group.expect_name) == (
        "node port.mjs", True, 2.5, None)
    assert group.notes[0] == ""
    assert "saved from rust port/β 1.0.0 (no command recorded)" in group.notes[1]
    assert "saved from rust port/β 1.0.0 (--impl ./go-port)" in group.notes[2]
    assert all("replayed against --impl 'node port.mjs'" in note for note in group.notes[1:])


def test_a_command_that_now_starts_another_implementation_is_refused() -> None:
    """expect_name: the handshake must still declare the name the case was saved under."""
    with pytest.raises(ReplayError) as caught:
        replay([planted_case()], Reference, timeout=5.0, expect_name="rust port/β")
    message = str(caught.value)
    assert "'eventproof-reference-halving'" in message
    assert "rust port/β" in message
    assert "--impl" in message


statuses = st.sampled_from(["fixed", "still failing", "unstable", "error", "crash", "timeout",
                            "skipped"])


@settings(database=None)
@given(st.lists(st.tuples(statuses, st.sampled_from(["MUST", "SHOULD"])), max_size=12))
def test_the_replay_summary_and_exit_code_come_from_one_value(
        cases: list[tuple[_replay.ReplayStatus, str]]) -> None:
    """The summary line's counts add up to the cases, and the exit code is the one the run that
    saved them would give the same rules (judge_run of the rules' outcomes): a SHOULD rule's case
    still failing exits 0, as its run did."""
    from eventproof.conformance._results import RuleRow, judge_run

    drawn = [status for status, _level in cases]
    results = [ReplayResult(replace(planted_case(), level=level), status, "")
               for status, level in cases]
    verdict = ReplayVerdict.of(results)
    outcomes = {"fixed": "pass", "still failing": "fail", "skipped": "untested"}
    run = judge_run([RuleRow(f"r{index}", level, "p", "select", outcomes.get(status, status),
                             status != "skipped") for index, (status, level) in enumerate(cases)],
                    declared={"select"}, allow_untested=False, profiles={})
    assert verdict.exit_code == run.exit_code
    must_fixed = all(status == "fixed" or (level == "SHOULD" and status != "unstable")
                     for status, level in cases)
    assert (verdict.exit_code == ExitCode.CONFORMS) == (
        any(status != "skipped" for status in drawn) and must_fixed
        and "skipped" not in [status for status, level in cases if level == "MUST"])
    should = verdict.should
    note = f" ({should} of a SHOULD rule: reported, does not decide conformance)"
    assert (note in verdict.line()) == bool(should)
    line = verdict.line().replace(note, "")
    numbers = [int(word) for word in line.replace(",", " ").replace(")", " ").split()
               if word.isdigit()]
    assert sum(numbers[:-1]) == len(drawn)
    assert numbers[-1] == int(verdict.exit_code)
    assert verdict.fixed == drawn.count("fixed")
    assert verdict.unstable == drawn.count("unstable")
    assert f"{verdict.fixed} fixed, {verdict.still_failing} still failing, " in line


def test_prune_removes_only_the_fixed_files(tmp_path: Path) -> None:
    """prune removes the file of each fixed case, keeps the others, and names what it removed."""
    paths = []
    for name in ("a", "b", "c"):
        path = tmp_path / f"{name}.json"
        path.write_text("{}", encoding="utf-8")
        paths.append(path)
    results = [ReplayResult(replace(planted_case(), path=path), status, "")
               for path, status in zip(paths, ["fixed", "unstable", "fixed"], strict=True)]
    assert _replay.prune(results) == [paths[0], paths[2]]
    assert [path.exists() for path in paths] == [False, True, False]


# -- several runs on one state directory -------------------------------------------------------

SELECT_RULES = [rule.id for rule in RULES_BY_ID.values() if rule.op == "select"]


def run_report(failing: set[str], started_at: float) -> RunReport:
    """A run of the select rules: those in ``failing`` fail, the others pass."""
    return replace(report_with([
        failure(rule) if rule in failing else RuleResult(RULES_BY_ID[rule], "pass")
        for rule in SELECT_RULES]), started_at=started_at)


def _later_than(moment: float) -> float:
    now = time.time()
    while now <= moment:  # the clock's resolution: each event gets a time of its own
        now = time.time()
    return now


@settings(max_examples=40, deadline=None, database=None)
@given(st.data())
def test_no_run_removes_a_case_another_wrote_after_it_began(data: st.DataObject) -> None:
    """Runs overlap in any order (each begins, then saves): a run cleans up the file of a rule
    it passed only when the file was written before it began; a file another run wrote while
    it ran is kept. Every file left is whole and valid."""
    runs = data.draw(st.integers(2, 4))
    failing = [data.draw(st.sets(st.sampled_from(SELECT_RULES))) for _ in range(runs)]
    # Each run appears twice in the order drawn: first it begins, then it saves.
    order = data.draw(st.permutations([run for run in range(runs) for _ in range(2)]))
    events = [(run, "begin" if run not in order[:index] else "save")
              for index, run in enumerate(order)]
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        began: dict[int, tuple[int, float]] = {}
        written: dict[str, int] = {}  # rule -> the event that wrote its file (the model)
        moment = 0.0
        for index, (run, step) in enumerate(events):
            moment = _later_than(moment)
            if step == "begin":
                began[run] = (index, moment)
                continue
            begun_index, started_at = began[run]
            save_failures(run_report(failing[run], started_at), directory)
            moment = time.time()
            for rule in SELECT_RULES:
                if rule in failing[run]:
                    written[rule] = index
                elif rule in written and written[rule] < begun_index:
                    del written[rule]
        kept = {path.stem for path in directory.glob("*/*.json")}
        assert kept == set(written)
        assert not [path for path in directory.rglob("*") if path.is_file()
                    and not path.name.endswith(".json")]
        for path in directory.glob("*/*.json"):
            assert schema_issues(json.loads(path.read_text("utf-8")), "replay-case.json") == []


def _save_repeatedly(directory: str, rule: str, started_at: float, barrier: Any) -> None:
    barrier.wait(timeout=60)
    for _ in range(25):
        save_failures(run_report({rule}, started_at), directory)


def test_concurrent_runs_keep_every_failure_and_whole_files(tmp_path: Path) -> None:
    """Four processes save at once into one state directory, each failing one select rule and
    passing (so cleaning up) the others, over and over: every run's failure is kept, every file
    is whole and valid, and no temporary file is left."""
    context = multiprocessing.get_context("fork")
    started_at = time.time()
    barrier = context.Barrier(len(SELECT_RULES))
    workers = [context.Process(target=_save_repeatedly,
                               args=(str(tmp_path), rule, started_at, barrier))
               for rule in SELECT_RULES]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert [worker.exitcode for worker in workers] == [0] * len(workers)
    files = sorted(tmp_path.rglob("*"))
    assert sorted(path.stem for path in files if path.is_file()) == sorted(SELECT_RULES)
    for path in files:
        if path.is_file():
            document = json.loads(path.read_text("utf-8"))
            assert schema_issues(document, "replay-case.json") == []
            assert document["rule"] == path.stem


@pytest.mark.parametrize("recorded", [True, False], ids=["cwd recorded", "no cwd (older file)"])
def test_a_bare_replay_starts_the_implementation_where_its_run_ran(
        tmp_path: Path, recorded: bool) -> None:
    """A case saved by a run of ``python:myport:Impl`` in one directory replays from another:
    the implementation is started in the directory the case records, and the replay says so.
    A file without it (the format before) starts it here, where ``myport`` is not found."""
    import subprocess
    import sys

    from eventproof.conformance._replay import case_document

    there, here = tmp_path / "there", tmp_path / "here"
    there.mkdir()
    here.mkdir()
    (there / "myport.py").write_text("from eventproof.reference import Reference as Impl\n",
                                     encoding="utf-8")
    case = replace(planted_case(),
                   implementation={**IMPLEMENTATION, "name": "eventproof-reference-halving"},
                   origin=CaseOrigin(impl="python:myport:Impl", isolate=True, fit="halving",
                                     cwd=str(there) if recorded else None))
    path = here / "case.json"
    path.write_text(json.dumps(case_document(case)), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "eventproof.conformance", "replay", "case.json"],
                          cwd=here, capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "NO_COLOR": "1", "COLUMNS": "300"})
    if recorded:
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"in {there} (the directory the run that saved them ran in)" in done.stdout
        assert done.stdout.splitlines()[-1].startswith("1 fixed")
    else:
        assert done.returncode == 2, done.stdout + done.stderr
