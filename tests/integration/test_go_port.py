"""The Go port in examples/go builds with the standard library and conforms with both fit
strategies, answering `skipped` for what it declares it cannot take.

The port is built with ``go build`` into a temporary directory, so no binary is left in the
repository, then checked through the subprocess protocol by
``eventproof vectors`` and a quick deterministic ``eventproof run`` of every operation, with each
fit strategy (the default budget under both in ``nox -s slow``), and by its self-test
(``go test``). A
few direct exchanges pin the recipes the README describes: numbers echoed as written, integer
literals beyond 2^53-1 refused in a projected value, lone surrogates skipped where Go cannot
keep them and answered where the wire line replaces them anyway.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from eventproof.conformance._operations import OPS

pytestmark = pytest.mark.go

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "examples" / "go"
GO = shutil.which("go")
FITS = ("halving", "maximal")
#: The quick runs: every operation under halving; under maximal only project, the one
#: whose answers depend on the fit (select, fold, settle and classify answer alike).
FIT_RUNS = [pytest.param("halving", (), id="halving"),
            pytest.param("maximal", ("--ops", "project"), id="maximal-project")]

if GO is None:
    pytest.skip("go is not on PATH: the Go port cannot be built "
                "(install it with `apt-get install golang-go`)", allow_module_level=True)


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The port's binary, built from the committed sources into a temporary directory."""
    assert GO is not None
    out = tmp_path_factory.mktemp("go-port")
    binary = out / "eventproof-port"
    # GOTOOLCHAIN=local: build with the Go on PATH, never a downloaded one (Go 1.21 and later).
    env = {**os.environ, "GOTOOLCHAIN": "local"}
    result = subprocess.run([GO, "build", "-o", str(binary), "."], cwd=SOURCE, env=env,
                            capture_output=True, text=True, timeout=240, check=False)
    assert result.returncode == 0, f"go build failed:\n{result.stdout}{result.stderr}"
    return binary


def _eventproof(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("EVENTPROOF_GO_FIT", None)
    return subprocess.run([sys.executable, "-m", "eventproof.conformance", *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
                          check=False)


@pytest.mark.parametrize("fit", FITS)
def test_go_port_passes_the_vectors(program: Path, fit: str) -> None:
    """Every vector of the declared fit strategy passes; the other strategy's are skipped."""
    result = _eventproof("vectors", "--timeout", "30", "--impl", f"{program} --fit={fit}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert " 0 failed" in result.stdout
    assert f"declares {fit}" in result.stdout


@pytest.mark.parametrize(("fit", "ops"), FIT_RUNS)
def test_go_port_conforms_in_a_quick_run(program: Path, fit: str, ops: tuple[str, ...],
                                         tmp_path: Path) -> None:
    """A quick deterministic run judges every rule of the nine operations (of project, the one
    whose answers depend on the fit, under maximal), and each passes."""
    report_file = tmp_path / "report.json"
    result = _eventproof("run", "--impl", f"{program} --fit={fit}", *ops, "--effort", "quick",
                         "--deterministic", "--no-progress", "--state-dir",
                         str(tmp_path / "state"), "--json", str(report_file))
    assert result.returncode == 0, result.stdout + result.stderr
    report: dict[str, Any] = json.loads(report_file.read_text(encoding="utf-8"))
    assert report["conforms"] is True
    assert report["implementation"]["language"] == "go"
    assert report["capabilities"]["fitStrategy"] == fit
    assert report["capabilities"]["ops"] == list(OPS)
    not_passed = {rule["id"]: rule["outcome"] for rule in report["results"]
                  if rule["outcome"] != "pass"}
    assert not_passed == {}, not_passed
    assert {rule["op"] for rule in report["results"]} == set(ops[1:] or OPS)


@pytest.mark.slow
@pytest.mark.parametrize("fit", FITS)
def test_go_port_conforms_at_the_default_budget(program: Path, fit: str, tmp_path: Path) -> None:
    """The whole default run of every operation passes under each fit (``nox -s slow``)."""
    report_file = tmp_path / "report.json"
    result = _eventproof("run", "--impl", f"{program} --fit={fit}", "--deterministic",
                         "--no-progress", "--state-dir", str(tmp_path / "state"), "--json",
                         str(report_file))
    assert result.returncode == 0, result.stdout + result.stderr
    report: dict[str, Any] = json.loads(report_file.read_text(encoding="utf-8"))
    assert {rule["outcome"] for rule in report["results"]} == {"pass"}
    assert {rule["op"] for rule in report["results"]} == set(OPS)


def test_go_port_selftest_passes(tmp_path: Path) -> None:
    """`go test`, the port's own self-test of every operation, passes (run on a copy, so that
    nothing is written next to the sources)."""
    assert GO is not None
    copy = tmp_path / "go"
    shutil.copytree(SOURCE, copy, ignore=shutil.ignore_patterns("eventproof-port"))
    env = {**os.environ, "GOTOOLCHAIN": "local", "GOFLAGS": "-count=1"}
    result = subprocess.run([GO, "test", "-v", "./..."], cwd=copy, env=env, capture_output=True,
                            text=True, timeout=240, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert {"TestSelection", "TestWire", "TestBudget"} <= {
        line.split()[2] for line in result.stdout.splitlines() if line.startswith("--- PASS")}


def _answer_lines(program: Path, *lines: str, args: tuple[str, ...] = (),
                  env: dict[str, str] | None = None, status: int = 0) -> list[str]:
    """The answer lines of the program to a start request and then ``lines`` (JSON text, sent
    as written); the program must exit with ``status``."""
    text = "\n".join([json.dumps({"cmd": "start", "version": 1}), *lines, '{"cmd":"stop"}'])
    result = subprocess.run([str(program), *args], input=text + "\n", capture_output=True,
                            text=True, timeout=30, env={**os.environ, **(env or {})},
                            check=False)
    assert result.returncode == status, result.stderr
    answers = result.stdout.splitlines()
    for line in answers:
        assert line.isascii(), line  # every answer is escaped to ASCII, like the harness's
    return answers


def _exchange(program: Path, *lines: str, args: tuple[str, ...] = (),
              env: dict[str, str] | None = None, status: int = 0) -> list[Any]:
    """The answers of _answer_lines, parsed."""
    return [json.loads(line)
            for line in _answer_lines(program, *lines, args=args, env=env, status=status)]


def _run(seq: int, op: str, input: str) -> str:
    return f'{{"cmd":"run","seq":{seq},"op":"{op}","input":{input}}}'


def _chunk(text: str) -> str:
    return ('{"events":[{"type":"assistant/chunk","seq":0,"time":"t","data":{"chunk":'
            f'{{"type":"text-delta","index":0,"text":"{text}"}}}}}}]}}')


def test_go_port_declares_and_skips_lone_surrogates(program: Path) -> None:
    """loneSurrogates: false in the handshake; a select that would have to echo an unpaired
    surrogate is skipped with the escape in the reason; a valid pair is not mistaken for one."""
    start, skipped, paired, escaped = _exchange(
        program, _run(1, "select", _chunk("a\\ud800")), _run(2, "select", _chunk("\\ud83d\\ude00")),
        _run(3, "select", _chunk("\\\\ud800")))
    assert start["capabilities"]["loneSurrogates"] is False
    assert start["capabilities"]["ops"] == list(OPS)
    assert skipped["seq"] == 1
    assert "\\ud800" in skipped["skipped"]["reason"]
    assert paired == {"seq": 2, "output": [{"type": "text", "text": "\U0001f600"}]}
    # An escaped backslash followed by "ud800" is text, not a surrogate escape.
    assert escaped == {"seq": 3, "output": [{"type": "text", "text": "\\ud800"}]}


def test_go_port_projects_lone_surrogates_as_the_line_replaces_them(program: Path) -> None:
    """project answers a request holding lone surrogates: each one becomes U+FFFD, a valid
    pair stays one character, and halves in different strings do not pair (wire.md §6.1)."""
    event = ('{"event":{"type":"tool_execution_end","result":{"a":"\\ud800x\\udc00",'
             '"b":"\\ud83d","c":"\\ude00","d":"\\ud83d\\ud83d\\ude00"}},'
             '"includeLiveEvents":false,"maxBytes":262144}')
    _, answer = _exchange(program, _run(7, "project", event))
    assert json.loads(answer["output"]["line"]) == {"type": "tool_execution_end", "result": {
        "a": "\ufffdx\ufffd", "b": "\ufffd", "c": "\ufffd", "d": "\ufffd\U0001f600"}}


def test_go_port_echoes_numbers_and_refuses_what_a_line_cannot_carry(program: Path) -> None:
    """Numbers come back as written; in a projected value, an integer literal beyond 2^53-1 and
    an overflowing literal are refused with their path; lines spell numbers as JavaScript."""
    message = ('{"events":[{"type":"assistant/message","seq":0,"time":"t","data":{"message":'
               '{"role":"assistant","content":[{"type":"x","n":[30.0,9007199254740993,1e400]}]}}}]}')

    def fact(value: str) -> str:
        return (f'{{"event":{{"type":"tool_execution_end","result":{value}}},'
                '"includeLiveEvents":false,"maxBytes":262144}')
    _, echoed, big, huge, spelled = _answer_lines(
        program, _run(1, "select", message), _run(2, "project", fact('{"seed":9007199254740993}')),
        _run(3, "project", fact("[1e400]")),
        _run(4, "project", fact('{"b":30.0,"10":1e21,"2":1.5e-7,"01":-0.0,"x":1e-7}')))
    # The literals as the request wrote them; parsed, 30.0 == 30 would hide a respelling.
    assert echoed == ('{"seq":1,"output":[{"type":"x","n":[30.0,9007199254740993,1e400]}]}')
    big, huge, spelled = json.loads(big), json.loads(huge), json.loads(spelled)
    assert "$.event.result.seed: 9007199254740993 " in big["errored"]["message"]
    assert "$.event.result[0]: 1e400 " in huge["errored"]["message"]
    assert spelled["output"]["line"] == (
        '{"type":"tool_execution_end","result":{"2":1.5e-7,"10":1e+21,"b":30,"01":0,"x":1e-7}}')


def test_go_port_takes_its_fit_from_the_environment(program: Path) -> None:
    """EVENTPROOF_GO_FIT chooses the strategy, --fit= wins over it, a bad name is refused."""
    (start,) = _exchange(program, env={"EVENTPROOF_GO_FIT": "maximal"})
    assert start["capabilities"]["fitStrategy"] == "maximal"
    (start,) = _exchange(program, env={"EVENTPROOF_GO_FIT": "maximal"}, args=("--fit=halving",))
    assert start["capabilities"]["fitStrategy"] == "halving"
    (refusal,) = _exchange(program, args=("--fit=greedy",), status=2)
    assert refusal["version"] == 1
    assert "greedy" in refusal["error"]


def test_go_port_skips_lone_surrogates_only_where_it_would_echo_them(program: Path) -> None:
    """lane echoes its live records, so a lone surrogate in one is skipped; details cuts and
    well-forms every string it writes (budget.md §4), so it answers with U+FFFD in its place."""
    record = ('{"id":"t","agent":"w","status":"completed","task":"x","output":"a\\ud800b"}')
    _, echoed, cut = _exchange(
        program, _run(1, "lane", f'{{"updates":[{{"results":[{record}]}}]}}'),
        _run(2, "details", f'{{"records":[{record}],"sharedBytes":1000,"taskFloorBytes":0,'
                           '"outputFloorBytes":0,"diagnosticFloorBytes":0}'))
    assert "\\ud800" in echoed["skipped"]["reason"]
    assert cut == {"seq": 2, "output": {"results": [
        {"id": "t", "agent": "w", "status": "completed", "task": "x", "output": "a\ufffdb"}]}}
