"""The GitHub Action (action.yml): its scripts run as a runner runs them, in a fake workspace.

A runner gives each step ``GITHUB_WORKSPACE``, ``GITHUB_STEP_SUMMARY``, ``GITHUB_OUTPUT``,
``GITHUB_ACTION_PATH`` and ``RUNNER_TEMP``, and action.yml maps the inputs to ``INPUT_*``. The tests
set exactly these and check the exit code (the job's verdict), the step summary, the outputs and
the reports.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from eventproof.conformance._operations import OPS, RULES

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
RUN = ROOT / ".github" / "action" / "run.py"
INSTALL = ROOT / ".github" / "action" / "install.sh"
PROGRAMS = Path(__file__).resolve().parent / "programs"


class Step:
    """One run of the action's check step: exit code, console, step summary and outputs."""

    def __init__(self, completed: subprocess.CompletedProcess[str], runner: Path,
                 workspace: Path) -> None:
        self.code = completed.returncode
        self.stdout = completed.stdout
        self.stderr = completed.stderr
        summary = runner / "step-summary.md"
        self.summary = summary.read_text(encoding="utf-8") if summary.exists() else ""
        self.outputs = dict(line.split("=", 1) for line in
                            (runner / "output").read_text(encoding="utf-8").splitlines())
        self.workspace = workspace

    def report(self) -> dict[str, Any]:
        document: dict[str, Any] = json.loads(Path(self.outputs["json"]).read_text("utf-8"))
        return document


def runner_env(tmp_path: Path, **inputs: str) -> tuple[dict[str, str], Path, Path]:
    runner, workspace = tmp_path / "runner", tmp_path / "workspace"
    runner.mkdir(exist_ok=True)
    workspace.mkdir(exist_ok=True)
    env = {key: value for key, value in os.environ.items() if not key.startswith("INPUT_")}
    env.update({
        "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_STEP_SUMMARY": str(runner / "step-summary.md"),
        "GITHUB_OUTPUT": str(runner / "output"), "GITHUB_ACTION_PATH": str(ROOT),
        "RUNNER_TEMP": str(runner / "temp"),
    })
    env.update({f"INPUT_{name.upper()}": value for name, value in inputs.items()})
    return env, runner, workspace


def run_step(tmp_path: Path, python: str = sys.executable, **inputs: str) -> Step:
    env, runner, workspace = runner_env(tmp_path, **inputs)
    completed = subprocess.run([python, str(RUN)], env=env, cwd=workspace, capture_output=True,
                               text=True, timeout=300, check=False)
    return Step(completed, runner, workspace)


def program(name: str) -> str:
    return shlex.join([sys.executable, str(PROGRAMS / name)])


def action_script() -> ModuleType:
    """.github/action/run.py as a module, to call its functions."""
    spec = importlib.util.spec_from_file_location("eventproof_action_run", RUN)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_reference_conforms(tmp_path: Path) -> None:
    # roster: an operation of the budget profile, which a hand-kept list once refused. Two
    # operations of nine: the step passes (exit code 0) but nothing says the reference conforms.
    step = run_step(tmp_path, ops="select,roster", effort="quick", report_dir="out/ep")
    assert step.code == 0, step.stdout + step.stderr
    report = step.report()
    # Every output restates the report's verdict.
    assert step.outputs["verdict"] == report["verdict"]["headline"] == "checked only part"
    assert step.outputs["result"] == "checked only part"
    assert "checked only 9 of 59 rules (--ops select,roster: select all, roster all)" in (
        step.outputs["summary"])
    assert step.outputs["exit-code"] == str(report["verdict"]["exitCode"]) == "0"
    assert step.outputs["summary"] == report["verdict"]["line"]
    assert step.outputs["profiles"] == ",".join(
        f"{profile['profile']}={profile['status']}" for profile in report["verdict"]["profiles"])
    report_dir = step.workspace / "out" / "ep"
    assert Path(step.outputs["report-dir"]) == report_dir.resolve()
    for name in ("report.json", "report.xml", "summary.md"):
        assert (report_dir / name).is_file(), name
    assert report["conforms"] is True
    assert report["effort"] == "quick"  # the effort input reaches the run
    assert report["deterministic"] is True
    assert {result["op"] for result in report["results"]} == {"select", "roster"}
    # The job summary is the Markdown summary, verdict first.
    assert step.summary.startswith("# ⚠️ eventproof: eventproof-reference-halving")
    assert (report_dir / "summary.md").read_text("utf-8") in step.summary
    assert "::error" not in step.stdout
    assert f"::notice title=eventproof%3A eventproof-reference-halving checked only part::" \
           f"{report['verdict']['line']}" in step.stdout


def test_a_nonconforming_program_fails_the_job(tmp_path: Path) -> None:
    # echo.py answers every request with its own input: a well-behaved program, wrong answers.
    step = run_step(tmp_path, impl=program("echo.py"), ops="select", effort="quick")
    assert step.code == 1, step.stdout + step.stderr
    assert step.outputs["result"] == "nonconforming"
    assert step.summary.startswith("# ❌ eventproof: echo 1.0 (python) does not conform")
    assert "## Failures" in step.summary
    report = step.report()
    assert report["conforms"] is False
    assert step.outputs["verdict"] == "does not conform"
    assert step.outputs["summary"] == report["verdict"]["line"]
    failed = [result["id"] for result in report["results"] if result["outcome"] == "fail"]
    assert failed
    # One annotation per root cause, then the verdict; each a workflow command on its own line,
    # properly escaped. Every failed rule is named in the annotation of its cause.
    annotations = re.findall(r"^::error title=([^:]*)::(.*)$", step.stdout, re.MULTILINE)
    assert annotations[-1] == ("eventproof%3A echo does not conform",
                               report["verdict"]["line"].replace("%", "%25"))
    causes = annotations[:-1]
    assert 1 <= len(causes) <= len(failed)
    assert all(title.startswith("eventproof%3A echo fail ") for title, _ in causes)
    named = " ".join(title for title, _ in causes)
    assert all(rule in named for rule in failed if not next(
        result for result in report["results"] if result["id"] == rule).get("cause"))
    junit = ET.parse(step.outputs["junit"]).getroot()
    assert len(junit.findall(".//failure")) == len(failed)


def test_an_implementation_that_cannot_start_is_a_broken_run(tmp_path: Path) -> None:
    _, _, workspace = runner_env(tmp_path)
    stale = workspace / "eventproof-report" / "summary.md"
    stale.parent.mkdir(parents=True)
    stale.write_text("# ✅ eventproof: an earlier run conforms\n", encoding="utf-8")
    step = run_step(tmp_path, impl=program("exit_before_start.py"), ops="select", effort="quick")
    assert step.code == 2, step.stdout + step.stderr
    assert step.outputs["result"] == "broken"
    assert step.summary.startswith("# ⚠️ eventproof could not complete the run")
    assert "exited with code 2" in step.summary
    assert "✅" not in step.summary  # an earlier run's summary is never reported as this one's
    assert not stale.exists()


@pytest.mark.parametrize(("inputs", "named"), [
    ({"effort": "huge"}, "input effort: 'huge' is not a search effort; use one of quick, "
     "default, thorough"),
    ({"effort": "quick", "budget": "thorough"}, "inputs effort ('quick') and budget "
     "('thorough') disagree"),
    ({"examples": "huge"}, "input examples: 'huge' is not a search effort"),
    ({"ops": "select,render"}, "input ops: 'select,render'"),
    ({"fit": "greedy"}, "input fit: 'greedy' is not a fit strategy"),
    ({"timeout": "soon"}, "input timeout: 'soon' is not a positive, finite number of seconds; "
     "give e.g. `timeout: 10` under the step's with:"),
    ({"timeout": "0"}, "input timeout: '0' is not a positive, finite number of seconds"),
    ({"shell": "maybe"}, "input shell: 'maybe' is not true or false; use true or false"),
    ({"jobs": "0"}, "input jobs: '0' is not a number of worker processes; give a whole number "
     "of at least 1 (1 runs everything in this process), or auto (one per usable core): e.g. "
     "`jobs: 2` under the step's with:"),
    ({"jobs": "two"}, "input jobs: 'two'"),
    ({"shard": "4/3"}, "input shard: '4/3' is not K/N with 1 <= K <= N"),
    ({"shard": "1"}, "input shard: '1'"),
    ({"max_time": "-5"}, "input max-time: '-5' is not a positive, finite number of seconds; "
     "give e.g. `max-time: 600` under the step's with:"),
    ({"max_time": "nan"}, "input max-time: 'nan'"),
    ({"allow_untested": "perhaps"}, "input allow-untested: 'perhaps' is not true or false"),
    ({"working_directory": "no-such-dir"}, "input working-directory:"),
])
def test_a_bad_input_is_named_and_breaks_the_run(tmp_path: Path, inputs: dict[str, str],
                                                  named: str) -> None:
    step = run_step(tmp_path, **inputs)
    assert step.code == 2
    assert step.outputs["result"] == "broken"
    assert step.outputs["verdict"] == "broken"
    assert named in step.summary
    assert "::error title=eventproof%3A bad input::" + named in step.stdout


def test_the_action_takes_every_operation_of_the_kit(tmp_path: Path) -> None:
    """The operations the action accepts are the operation table's, read when it runs."""
    script = action_script()
    assert script.known_ops() == OPS
    for op in OPS:
        args = script.eventproof_args({"INPUT_OPS": op}, tmp_path, tmp_path)
        assert args[args.index("--ops") + 1] == op
    every = script.eventproof_args({"INPUT_OPS": ",".join(OPS)}, tmp_path, tmp_path)
    assert every[every.index("--ops") + 1] == ",".join(OPS)
    with pytest.raises(script.InputError, match=f"use a comma-separated subset of "
                                                 f"{','.join(OPS)}"):
        script.eventproof_args({"INPUT_OPS": "select,render"}, tmp_path, tmp_path)
    # action.yml names no list of operations to go stale.
    yaml = pytest.importorskip("yaml")
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert "select,fold,settle" not in action["inputs"]["ops"]["description"]


def test_the_run_settings_reach_eventproof(tmp_path: Path) -> None:
    script = action_script()
    args = script.eventproof_args({"INPUT_JOBS": "2", "INPUT_SHARD": "2/3",
                                   "INPUT_MAX_TIME": "90.5", "INPUT_ALLOW_UNTESTED": "true"},
                                  tmp_path, tmp_path)
    words = " ".join(args)
    assert "--jobs 2" in words
    assert "--shard 2/3" in words
    assert "--max-time 90.5" in words
    assert "--allow-untested" in args
    plain = script.eventproof_args({}, tmp_path, tmp_path)
    assert not {"--jobs", "--shard", "--max-time", "--allow-untested"} & set(plain)


def failing(rule: str, message: str, *, kind: str = "", cause: str = "",
            level: str = "MUST") -> dict[str, Any]:
    result: dict[str, Any] = {
        "id": rule, "level": level, "profile": "selection", "op": "select",
        "section": "selection.md#3.1", "title": rule, "outcome": "fail", "note": "",
        "counterexample": {"message": message, "kind": kind}}
    if cause:
        result["cause"] = cause
    return result


def test_one_root_cause_gives_one_annotation() -> None:
    """Results following from another rule's failure are folded into its annotation; failures
    of one kind with one message are one annotation listing their rules."""
    script = action_script()
    verdict = {"conforms": False, "exitCode": 1, "headline": "does not conform",
               "line": "does not conform (exit code 1, 9 of 9 rules judged): 9 MUST rules broken",
               "profiles": [], "unjudged": [], "ending": ""}
    results = [
        failing("select.last-message", "an empty last message was kept", kind="empty kept"),
        *(failing(f"select.follower-{index}", f"differs {index}", cause="select.last-message")
          for index in range(6)),
        failing("select.never-empty", "output is empty", kind="empty"),
        failing("select.agrees", "output is empty", kind="empty"),
        failing("select.tail", "output is empty", kind="other"),
        failing("canon.bytes", "bytes differ", level="SHOULD"),
        {**failing("select.fine", "x"), "outcome": "pass"},
    ]
    report = {"implementation": {"name": "port"}, "verdict": verdict, "results": results}
    commands = script.annotation_commands(report)
    assert len(commands) == 5  # the cause and its six followers; empty twice; other; SHOULD
    assert commands[0].startswith("::error title=eventproof%3A port fail select.last-message%2C "
                                  "select.follower-0%2C select.follower-1%2C select.follower-2 "
                                  "and 3 more")
    assert commands[0].endswith("::an empty last message was kept")
    assert "select.never-empty%2C select.agrees " in commands[1]
    assert "select.tail" in commands[2]
    assert commands[3].startswith("::warning title=eventproof%3A port fail canon.bytes")
    assert commands[4] == ("::error title=eventproof%3A port does not conform::does not conform "
                           "(exit code 1, 9 of 9 rules judged): 9 MUST rules broken")
    # Unjudged MUST rules are one annotation, whatever their number.
    unjudged = {**report, "results": [], "verdict": {**verdict, "unjudged": [
        rule.id for rule in RULES[:8]]}}
    commands = script.annotation_commands(unjudged)
    assert len(commands) == 2
    assert "8 MUST rule(s) not judged" in commands[0]
    assert "and 2 more" in commands[0]


def test_the_step_restates_the_report_and_breaks_when_they_disagree(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The job exits with the report's exit code; a process whose code disagrees with its
    report's verdict gives no verdict: the run is broken, loudly."""
    script = action_script()
    env, runner, workspace = runner_env(tmp_path)
    verdict = {"conforms": False, "exitCode": 130, "headline": "interrupted",
               "line": "interrupted (exit code 130, 3 of 9 rules judged): the run was "
                       "interrupted", "profiles": [], "unjudged": [], "ending": "x"}

    def fake_run(code: int) -> Any:
        def run(command: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
            path = Path(command[command.index("--json") + 1])
            path.write_text(json.dumps({"implementation": {"name": "port"},
                                        "verdict": verdict, "results": []}), "utf-8")
            return subprocess.CompletedProcess(command, code, "", "")
        return run

    monkeypatch.setattr(script.subprocess, "run", fake_run(130))
    assert script.main(env) == 130
    outputs = (runner / "output").read_text("utf-8")
    assert "verdict=interrupted\n" in outputs
    assert "result=interrupted\n" in outputs
    assert "exit-code=130\n" in outputs
    (runner / "output").unlink()
    monkeypatch.setattr(script.subprocess, "run", fake_run(0))
    assert script.main(env) == 2
    outputs = (runner / "output").read_text("utf-8")
    assert "verdict=broken\n" in outputs
    assert "but its report's verdict says exit code 130" in outputs
    assert workspace.is_dir()


def test_the_effort_flag_is_named_once() -> None:
    # The CLI flag that takes the search effort is spelt in one place, so renaming it is a
    # one-line change.
    source = RUN.read_text(encoding="utf-8")
    assert len(re.findall(r"[\"']--effort[\"']", source)) == 1
    assert 'EFFORT_FLAG = "--effort"' in source


@pytest.mark.parametrize("old", ["examples", "budget"])
def test_an_old_name_of_the_effort_input_works_with_a_notice(
        old: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The inputs examples and budget, old names of effort, still set the run's effort, and the
    job's log names the new input."""
    script = action_script()
    args = script.eventproof_args({f"INPUT_{old.upper()}": "thorough"}, tmp_path, tmp_path)
    assert args[args.index("--effort") + 1] == "thorough"
    assert f"input {old} is now effort (effort: thorough)" in capsys.readouterr().out


def test_action_yml_maps_every_input_to_the_scripts() -> None:
    yaml = pytest.importorskip("yaml")
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    steps = {step.get("id", step.get("name")): step for step in action["runs"]["steps"]}
    run_env = steps["run"]["env"]
    mapped = {key for key in run_env if key.startswith("INPUT_")}
    run_source = RUN.read_text(encoding="utf-8")
    for key in mapped:
        name = key.removeprefix("INPUT_").lower().replace("_", "-")
        assert name in action["inputs"], f"{key} maps no declared input"
        assert run_env[key] == "${{ inputs." + name + " }}"
        assert f'"{name}"' in run_source, f"run.py never reads input {name}"
    used_elsewhere = {"python-version", "hypothesis-version", "artifact-name"}
    declared = {name.upper().replace("-", "_") for name in action["inputs"]}
    assert declared - {f"{name.upper().replace('-', '_')}" for name in used_elsewhere} == {
        key.removeprefix("INPUT_") for key in mapped}
    assert ".github/action/run.py" in steps["run"]["run"]
    assert ".github/action/install.sh" in steps["install"]["run"]
    upload = steps["Keep the reports and the failure case files"]
    assert upload["uses"].startswith("actions/upload-artifact@")
    assert upload["if"].startswith("always()")
    assert upload["with"]["include-hidden-files"] is True  # .eventproof/failures is hidden


#: A stand-in for python that logs each call (one line of arguments) to $FAKE_LOG and does what
#: install.sh needs of it: the version check passes; ``-m venv DIR`` makes DIR/bin with itself as
#: python and an eventproof that prints a version; ``-m pip`` succeeds, but answers the probe
#: ``--python ... --version`` with $FAKE_PROBE (1: a pip too old for --python).
FAKE_PYTHON = """#!/bin/sh
echo "$0 $*" >> "$FAKE_LOG"
if [ "$1" = "-c" ]; then exit 0; fi
if [ "$1 $2" = "-m venv" ]; then
  for dir in "$@"; do :; done
  mkdir -p "$dir/bin" && cp "$0" "$dir/bin/python"
  printf '#!/bin/sh\necho "eventproof 0.1.0 (spec 1.0)"\n' > "$dir/bin/eventproof"
  chmod +x "$dir/bin/eventproof"
  exit 0
fi
case "$*" in *--python*--version*) exit "${FAKE_PROBE:-0}";; esac
exit 0
"""


@pytest.mark.parametrize(("probe", "pin"), [("0", ""), ("1", "6.170.17")],
                         ids=["job-pip", "own-pip-and-a-pin"])
def test_install_makes_the_environment_and_installs_the_checkout(
        tmp_path: Path, probe: str, pin: str) -> None:
    """install.sh's decisions, with a stand-in python (the real install is the slow test below):
    with a pip that takes --python, an environment without pip of its own, installed into by the
    job's pip; otherwise an environment with its own pip. Either way the action's checkout (and
    the pinned Hypothesis) is installed, and the output names the environment's python."""
    env, runner, _ = runner_env(tmp_path, python=str(tmp_path / "python"),
                                hypothesis_version=pin)
    (tmp_path / "python").write_text(FAKE_PYTHON)
    (tmp_path / "python").chmod(0o755)
    log = tmp_path / "calls.log"
    env.update(FAKE_LOG=str(log), FAKE_PROBE=probe)
    installed = subprocess.run(["bash", str(INSTALL)], env=env, capture_output=True, text=True,
                               timeout=60, check=False)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    venv = runner / "temp" / "eventproof-venv"
    packages = f" {ROOT}" + (f" hypothesis=={pin}" if pin else "")
    install = "install --quiet --disable-pip-version-check" + packages
    calls = log.read_text("utf-8").splitlines()
    job, own = str(tmp_path / "python"), str(venv / "bin" / "python")
    expected = ([f"{job} -m venv --without-pip {venv}",
                 f"{job} -m pip --python {own} {install}"] if probe == "0" else
                [f"{job} -m venv {venv}", f"{own} -m pip {install}"])
    assert [call for call in calls if " venv " in call or " install " in call] == expected
    assert "eventproof 0.1.0" in installed.stdout
    assert (runner / "output").read_text("utf-8") == f"python={own}\n"


@pytest.mark.slow  # a real install (about 12 s of pip); the test above holds install.sh's logic
def test_install_then_check_as_the_action_does(tmp_path: Path) -> None:
    """install.sh builds a private environment from the action's checkout; run.py runs in it.
    The checkout is a copy, as a runner's is its own clone: pip builds in it (setuptools writes
    build/ there), which must not touch this one."""
    env, runner, _ = runner_env(tmp_path)
    (runner / "temp").mkdir()
    checkout = tmp_path / "action"
    shutil.copytree(ROOT, checkout, ignore=shutil.ignore_patterns(
        ".git", "build", "dist", ".nox", ".venv", "*.egg-info", "__pycache__", ".hypothesis",
        ".pytest_cache", ".ruff_cache", ".mypy_cache", ".benchmarks", "node_modules"))
    env["GITHUB_ACTION_PATH"] = str(checkout)
    installed = subprocess.run(["bash", str(INSTALL)], env=env, capture_output=True, text=True,
                               timeout=600, check=False)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert re.search(r"^eventproof \d+\.\d+", installed.stdout, re.MULTILINE)
    python = dict(line.split("=", 1) for line in
                  (runner / "output").read_text("utf-8").splitlines())["python"]
    assert Path(python).is_relative_to(runner / "temp")
    (runner / "output").unlink()
    step = run_step(tmp_path, python=python, ops="select", effort="quick")
    assert step.code == 0, step.stdout + step.stderr
    assert step.summary.startswith("# ⚠️ eventproof")  # one operation: checked only part


def test_install_refuses_an_old_python(tmp_path: Path) -> None:
    env, _, _ = runner_env(tmp_path)
    fake = tmp_path / "python-old"
    fake.write_text("#!/bin/sh\n"
                    "case \"$2\" in *version_info*) exit 1;; *) echo 3.10.12;; esac\n")
    fake.chmod(0o755)
    env["INPUT_PYTHON"] = str(fake)
    installed = subprocess.run(["bash", str(INSTALL)], env=env, capture_output=True, text=True,
                               timeout=60, check=False)
    assert installed.returncode == 2
    assert "is Python 3.10.12; eventproof needs 3.11 or newer" in installed.stdout
