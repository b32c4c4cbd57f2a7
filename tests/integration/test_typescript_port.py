"""The TypeScript port in examples/typescript builds with npm and conforms with both fit strategies.

The port is built from a copy of its sources in a temporary directory (``npm ci && npm run
build``), exactly as its README says, so the test proves that the committed package.json,
package-lock.json and tsconfig.json build it; the repository's own dist/ and node_modules/ are
never used. The built program is then checked through the subprocess protocol by its self-test
(``npm test``), ``eventproof vectors`` and a quick deterministic ``eventproof run`` of every
operation, with each fit strategy; ``nox -s slow`` runs the default budget under both.
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

pytestmark = pytest.mark.node

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "examples" / "typescript"
NODE, NPM = shutil.which("node"), shutil.which("npm")
FITS = ("halving", "maximal")
#: The quick runs: every operation under halving; under maximal only project, the one
#: whose answers depend on the fit (select, fold, settle and classify answer alike).
FIT_RUNS = [pytest.param("halving", (), id="halving"),
            pytest.param("maximal", ("--ops", "project"), id="maximal-project")]

if NODE is None or NPM is None:
    pytest.skip("node and npm must be on PATH to build and run the TypeScript port "
                "(install Node.js 20+ with npm)", allow_module_level=True)


def _npm(*args: str, cwd: Path) -> None:
    assert NPM is not None
    result = subprocess.run([NPM, *args, "--no-audit", "--no-fund", "--prefer-offline"],
                            cwd=cwd, capture_output=True, text=True, timeout=180, check=False)
    assert result.returncode == 0, f"npm {' '.join(args)} failed:\n{result.stdout}{result.stderr}"


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The port built from a clean copy of its committed sources: the path of dist/main.js."""
    build = tmp_path_factory.mktemp("typescript-port")
    for name in ("package.json", "package-lock.json", "tsconfig.json"):
        shutil.copy2(SOURCE / name, build / name)
    shutil.copytree(SOURCE / "src", build / "src")
    _npm("ci", cwd=build)
    _npm("run", "build", cwd=build)
    main = build / "dist" / "main.js"
    assert main.is_file(), f"npm run build did not produce {main}"
    return main


def _impl(program: Path, fit: str) -> str:
    return f"node {program} --fit={fit}"


def _eventproof(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("EVENTPROOF_TS_FIT", None)
    return subprocess.run([sys.executable, "-m", "eventproof.conformance", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120,
                          check=False)


@pytest.mark.parametrize("fit", FITS)
def test_typescript_port_passes_the_vectors(program: Path, fit: str) -> None:
    """Every vector of the declared fit strategy passes; the other strategy's are skipped."""
    result = _eventproof("vectors", "--timeout", "30", "--impl", _impl(program, fit), cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert " 0 failed" in result.stdout
    assert f"declares {fit}" in result.stdout


@pytest.mark.parametrize(("fit", "ops"), FIT_RUNS)
def test_typescript_port_conforms_in_a_quick_run(program: Path, fit: str, ops: tuple[str, ...],
                                                 tmp_path: Path) -> None:
    """A quick deterministic run judges every rule of the nine operations (of project, the one
    whose answers depend on the fit, under maximal), and each passes."""
    report_file = tmp_path / "report.json"
    result = _eventproof("run", "--impl", _impl(program, fit), *ops, "--effort", "quick",
                         "--deterministic", "--no-progress", "--state-dir",
                         str(tmp_path / "state"), "--json", str(report_file), cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    report: dict[str, Any] = json.loads(report_file.read_text(encoding="utf-8"))
    assert report["conforms"] is True
    assert report["implementation"]["language"] == "typescript"
    assert report["capabilities"]["fitStrategy"] == fit
    assert report["capabilities"]["ops"] == list(OPS)
    not_passed = {rule["id"]: rule["outcome"] for rule in report["results"]
                  if rule["outcome"] != "pass"}
    assert not_passed == {}, not_passed
    assert {rule["op"] for rule in report["results"]} == set(ops[1:] or OPS)


@pytest.mark.slow
@pytest.mark.parametrize("fit", FITS)
def test_typescript_port_conforms_at_the_default_budget(program: Path, fit: str,
                                                        tmp_path: Path) -> None:
    """The whole default run of every operation passes under each fit (``nox -s slow``)."""
    report_file = tmp_path / "report.json"
    result = _eventproof("run", "--impl", _impl(program, fit), "--deterministic", "--no-progress",
                         "--state-dir", str(tmp_path / "state"), "--json", str(report_file),
                         cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    report: dict[str, Any] = json.loads(report_file.read_text(encoding="utf-8"))
    assert {rule["outcome"] for rule in report["results"]} == {"pass"}
    assert {rule["op"] for rule in report["results"]} == set(OPS)


def test_typescript_port_selftest_passes(program: Path) -> None:
    """`npm test`, the port's own self-test of every operation, passes."""
    assert NODE is not None
    result = subprocess.run([NODE, str(program.parent / "selftest.js")], capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "not ok" not in result.stdout
    assert result.stdout.count("ok - ") >= 7


def _exchange(program: Path, *requests: dict[str, Any] | str,
              env: dict[str, str] | None = None, args: tuple[str, ...] = (),
              status: int = 0) -> list[Any]:
    """The answers of the program to a start request and then ``requests`` (run requests given
    as their op and input, ``seq`` counting from 10, or as a whole line of JSON text); the
    program must exit with ``status``."""
    assert NODE is not None
    lines = [json.dumps({"cmd": "start", "version": 1})]
    lines += [request if isinstance(request, str)
              else json.dumps({"cmd": "run", "seq": seq, **request})
              for seq, request in enumerate(requests, start=10)]
    lines.append(json.dumps({"cmd": "stop"}))
    result = subprocess.run([NODE, str(program), *args], input="\n".join(lines) + "\n",
                            capture_output=True, text=True, timeout=30,
                            env={**os.environ, **(env or {})}, check=False)
    assert result.returncode == status, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_typescript_port_keeps_what_json_parse_would_alter(program: Path) -> None:
    """A lone surrogate comes back as it was sent; an integer literal beyond 2^53-1 in a fact
    is refused (wire.md §7) although JSON.parse has already rounded it."""
    big = ('{"cmd":"run","seq":3,"op":"project","input":{"event":{"type":"tool_execution_end",'
           '"result":{"seed":9007199254740993}},"includeLiveEvents":false,"maxBytes":262144}}')
    start, echoed, refused = _exchange(program, {"op": "select", "input": {"events": [
        {"type": "assistant/chunk", "seq": 0, "time": "t",
         "data": {"chunk": {"type": "text-delta", "index": 0, "text": "a\ud800"}}}]}}, big)
    assert start["capabilities"]["ops"] == list(OPS)
    assert echoed == {"seq": 10, "output": [{"type": "text", "text": "a\ud800"}]}
    assert refused["seq"] == 3
    assert "$.event.result.seed: 9007199254740993 " in refused["errored"]["message"], refused


def test_typescript_port_takes_its_fit_from_the_environment(program: Path) -> None:
    """EVENTPROOF_TS_FIT chooses the strategy, --fit= wins over it, a bad name is refused."""
    (start,) = _exchange(program, env={"EVENTPROOF_TS_FIT": "maximal"})
    assert start["capabilities"]["fitStrategy"] == "maximal"
    (start,) = _exchange(program, env={"EVENTPROOF_TS_FIT": "maximal"}, args=("--fit=halving",))
    assert start["capabilities"]["fitStrategy"] == "halving"
    (refusal,) = _exchange(program, args=("--fit=greedy",), status=2)
    assert refusal["version"] == 1
    assert "greedy" in refusal["error"]
