"""The GitHub Action (action.yml): its scripts run as a runner runs them, in a fake workspace.

A runner gives each step ``GITHUB_WORKSPACE``, ``GITHUB_STEP_SUMMARY``, ``GITHUB_OUTPUT``,
``GITHUB_ACTION_PATH`` and ``RUNNER_TEMP``, and action.yml maps the inputs to ``INPUT_*``. The tests
set exactly these and check the exit code (the job's verdict), the step summary, the outputs and
the reports.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

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


def test_the_reference_conforms(tmp_path: Path) -> None:
    step = run_step(tmp_path, ops="select,classify", budget="quick", report_dir="out/ep")
    assert step.code == 0, step.stdout + step.stderr
    assert step.outputs["result"] == "conforms"
    assert step.outputs["exit-code"] == "0"
    report_dir = step.workspace / "out" / "ep"
    assert Path(step.outputs["report-dir"]) == report_dir.resolve()
    for name in ("report.json", "report.xml", "summary.md"):
        assert (report_dir / name).is_file(), name
    report = step.report()
    assert report["conforms"] is True
    assert report["budget"] == "quick"  # the budget input reaches the run
    assert report["deterministic"] is True
    assert {result["op"] for result in report["results"]} == {"select", "classify"}
    # The job summary is the Markdown summary, verdict first.
    assert step.summary.startswith("# ✅ eventproof: eventproof-reference-halving")
    assert (report_dir / "summary.md").read_text("utf-8") in step.summary
    assert "::error" not in step.stdout


def test_a_nonconforming_program_fails_the_job(tmp_path: Path) -> None:
    # echo.py answers every request with its own input: a well-behaved program, wrong answers.
    step = run_step(tmp_path, impl=program("echo.py"), ops="select", budget="quick")
    assert step.code == 1, step.stdout + step.stderr
    assert step.outputs["result"] == "nonconforming"
    assert step.summary.startswith("# ❌ eventproof: echo 1.0 (python) does not conform")
    assert "## Failures" in step.summary
    report = step.report()
    assert report["conforms"] is False
    failed = [result["id"] for result in report["results"] if result["outcome"] == "fail"]
    assert failed
    # One annotation per broken rule, a workflow command on its own line, properly escaped.
    annotations = re.findall(r"^::error title=([^:]*)::(.*)$", step.stdout, re.MULTILINE)
    assert len(annotations) == len(failed)
    assert all(title.startswith("eventproof%3A echo fail ") for title, _ in annotations)
    junit = ET.parse(step.outputs["junit"]).getroot()
    assert len(junit.findall(".//failure")) == len(failed)


def test_an_implementation_that_cannot_start_is_a_broken_run(tmp_path: Path) -> None:
    _, _, workspace = runner_env(tmp_path)
    stale = workspace / "eventproof-report" / "summary.md"
    stale.parent.mkdir(parents=True)
    stale.write_text("# ✅ eventproof: an earlier run conforms\n", encoding="utf-8")
    step = run_step(tmp_path, impl=program("exit_before_start.py"), ops="select", budget="quick")
    assert step.code == 2, step.stdout + step.stderr
    assert step.outputs["result"] == "broken"
    assert step.summary.startswith("# ⚠️ eventproof could not complete the run")
    assert "exited with code 2" in step.summary
    assert "✅" not in step.summary  # an earlier run's summary is never reported as this one's
    assert not stale.exists()


@pytest.mark.parametrize(("inputs", "named"), [
    ({"budget": "huge"}, "input budget: 'huge' is not a budget; use one of quick, default, "
                         "thorough"),
    ({"ops": "select,render"}, "input ops: 'select,render'"),
    ({"fit": "greedy"}, "input fit: 'greedy' is not a fit strategy"),
    ({"timeout": "soon"}, "input timeout: 'soon'"),
    ({"shell": "maybe"}, "input shell: 'maybe' is not a boolean"),
    ({"working_directory": "no-such-dir"}, "input working-directory:"),
])
def test_a_bad_input_is_named_and_breaks_the_run(tmp_path: Path, inputs: dict[str, str],
                                                  named: str) -> None:
    step = run_step(tmp_path, **inputs)
    assert step.code == 2
    assert step.outputs["result"] == "broken"
    assert named in step.summary
    assert "::error title=eventproof%3A bad input::" + named in step.stdout


def test_the_budget_flag_is_named_once() -> None:
    # The CLI flag that takes the budget is spelt in one place, so renaming it is a one-line change.
    source = RUN.read_text(encoding="utf-8")
    assert len(re.findall(r"[\"']--examples[\"']", source)) == 1
    assert 'BUDGET_FLAG = "--examples"' in source


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
    """install.sh builds a private environment from the action's checkout; run.py runs in it."""
    env, runner, _ = runner_env(tmp_path)
    (runner / "temp").mkdir()
    installed = subprocess.run(["bash", str(INSTALL)], env=env, capture_output=True, text=True,
                               timeout=600, check=False)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert re.search(r"^eventproof \d+\.\d+", installed.stdout, re.MULTILINE)
    python = dict(line.split("=", 1) for line in
                  (runner / "output").read_text("utf-8").splitlines())["python"]
    assert Path(python).is_relative_to(runner / "temp")
    (runner / "output").unlink()
    step = run_step(tmp_path, python=python, ops="select", budget="quick")
    assert step.code == 0, step.stdout + step.stderr
    assert step.summary.startswith("# ✅ eventproof")


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
