"""The eventproof GitHub Action's run step: check an implementation and report to the runner.

Runs ``eventproof run`` with the action's inputs, writes the JSON, JUnit and Markdown reports into
the report directory, appends the Markdown summary to ``$GITHUB_STEP_SUMMARY``, annotates each
broken rule, sets the step's outputs in ``$GITHUB_OUTPUT`` and exits with the run's verdict:

- 0: the implementation conforms;
- 1: it does not (a MUST rule broken, or an expectation gone stale);
- 2: the run is broken (a bad input, an implementation that cannot start, no report written).

Inputs come from the environment, as action.yml maps them: ``INPUT_IMPL``, ``INPUT_OPS``,
``INPUT_BUDGET``, ``INPUT_FIT``, ``INPUT_EXPECT``, ``INPUT_REPORT_DIR``, ``INPUT_TIMEOUT``,
``INPUT_SHELL``, ``INPUT_WORKING_DIRECTORY``. Run it with the Python that has eventproof installed.
Only the standard library is used, so it also runs under a plain interpreter in tests.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: The command-line flag that takes the budget. The only place the action names it.
BUDGET_FLAG = "--examples"
BUDGETS = ("quick", "default", "thorough")
FITS = ("halving", "maximal")
OPS = ("select", "fold", "settle", "classify", "project")
#: Outcomes that decide (or, for a SHOULD rule, would decide) the verdict: annotated.
BROKEN = ("fail", "error", "crash", "timeout", "xpass")

EXIT_CONFORMS, EXIT_NONCONFORMING, EXIT_BROKEN = 0, 1, 2


class InputError(Exception):
    """An action input that cannot be used; the message names it and the fix."""


def _input(env: Mapping[str, str], name: str, default: str = "") -> str:
    return env.get(f"INPUT_{name.upper().replace('-', '_')}", default).strip() or default


def _flag(env: Mapping[str, str], name: str) -> bool:
    value = _input(env, name, "false").lower()
    if value in ("true", "1", "yes"):
        return True
    if value in ("false", "0", "no", ""):
        return False
    raise InputError(f"input {name}: {value!r} is not a boolean; use true or false")


def eventproof_args(env: Mapping[str, str], report_dir: Path, state_dir: Path) -> list[str]:
    """The ``eventproof run`` arguments for these inputs (raises InputError on a bad input)."""
    args = ["run", "--deterministic", "--no-progress",
            "--json", str(report_dir / "report.json"),
            "--junit", str(report_dir / "report.xml"),
            "--markdown", str(report_dir / "summary.md"),
            "--state-dir", str(state_dir)]
    impl = _input(env, "impl")
    if impl:
        args += ["--impl", impl]
    budget = _input(env, "budget", "default")
    if budget not in BUDGETS:
        raise InputError(f"input budget: {budget!r} is not a budget; use one of "
                         f"{', '.join(BUDGETS)}")
    args += [BUDGET_FLAG, budget]
    fit = _input(env, "fit")
    if fit:
        if fit not in FITS:
            raise InputError(f"input fit: {fit!r} is not a fit strategy; use one of "
                             f"{', '.join(FITS)}, or leave it empty")
        args += ["--fit", fit]
    ops = _input(env, "ops")
    if ops:
        wanted = [op.strip() for op in ops.split(",") if op.strip()]
        unknown = [op for op in wanted if op not in OPS]
        if unknown or not wanted:
            raise InputError(f"input ops: {ops!r} names no operation or an unknown one "
                             f"({', '.join(unknown) or 'empty'}); use a comma-separated subset "
                             f"of {','.join(OPS)}, or leave it empty for all")
        args += ["--ops", ",".join(wanted)]
    expect = _input(env, "expect")
    if expect:
        args += ["--expect", expect]
    timeout = _input(env, "timeout")
    if timeout:
        try:
            seconds = float(timeout)
        except ValueError:
            seconds = 0.0
        if seconds < 0.1:
            raise InputError(f"input timeout: {timeout!r} is not a number of seconds of at "
                             "least 0.1")
        args += ["--timeout", timeout]
    if _flag(env, "shell"):
        args.append("--shell")
    return args


# -- the runner's files ------------------------------------------------------------------------

def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(level: str, title: str, message: str) -> str:
    """A workflow command that shows ``message`` as an annotation on the run."""
    return f"::{level} title={_escape_property(title)}::{_escape_data(message)}"


def _append(path: str | None, text: str) -> None:
    if path:
        with open(path, "a", encoding="utf-8", newline="\n") as file:
            file.write(text)


def _set_outputs(env: Mapping[str, str], outputs: Mapping[str, str]) -> None:
    _append(env.get("GITHUB_OUTPUT"), "".join(f"{key}={value}\n"
                                              for key, value in outputs.items()))


def _read_report(path: Path) -> dict[str, Any] | None:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return document if isinstance(document, dict) and "conforms" in document else None


def _annotate(report: Mapping[str, Any]) -> None:
    name = str(report.get("implementation", {}).get("name", "implementation"))
    for result in report.get("results", []):
        if result.get("outcome") not in BROKEN:
            continue
        example = result.get("counterexample") or {}
        message = str(example.get("message") or result.get("note") or result.get("title", ""))
        level = "error" if result.get("level") == "MUST" else "warning"
        title = (f"eventproof: {name} {result.get('outcome')} {result.get('id')} "
                 f"(spec/{result.get('section', '')})")
        print(annotation(level, title, message.splitlines()[0] if message else ""), flush=True)


def _broken_summary(code: int, stderr: str) -> str:
    tail = "\n".join(stderr.strip().splitlines()[-30:]) or "(nothing on stderr)"
    fence = "````" if "```" in tail else "```"
    return (f"# ⚠️ eventproof could not complete the run\n\n"
            f"`eventproof run` exited with code {code} without a verdict: "
            "the job itself is broken (a bad input, an implementation that cannot start, or an "
            "unreadable expectations file), not the implementation judged.\n\n"
            f"{fence}text\n{tail}\n{fence}\n")


# -- the step ----------------------------------------------------------------------------------

def main(env: Mapping[str, str] | None = None) -> int:
    env = os.environ if env is None else env
    workdir = Path(env.get("GITHUB_WORKSPACE") or ".")
    workdir = workdir / _input(env, "working-directory", ".")
    report_dir = (workdir / _input(env, "report-dir", "eventproof-report")).resolve()
    state_dir = (workdir / ".eventproof").resolve()
    outputs = {"report-dir": str(report_dir), "failures-dir": str(state_dir / "failures"),
               "json": str(report_dir / "report.json"), "junit": str(report_dir / "report.xml"),
               "markdown": str(report_dir / "summary.md")}
    summary_path = env.get("GITHUB_STEP_SUMMARY")

    def finish(code: int, result: str) -> int:
        _set_outputs(env, {**outputs, "exit-code": str(code), "result": result})
        return code

    try:
        args = eventproof_args(env, report_dir, state_dir)
        if not workdir.is_dir():
            raise InputError(f"input working-directory: {workdir} is not a directory of the "
                             "workspace; check out your repository first (actions/checkout)")
    except InputError as error:
        print(annotation("error", "eventproof: bad input", str(error)), flush=True)
        _append(summary_path, f"# ⚠️ eventproof: bad input\n\n{error}\n")
        return finish(EXIT_BROKEN, "broken")

    report_dir.mkdir(parents=True, exist_ok=True)
    for name in ("report.json", "report.xml", "summary.md"):
        (report_dir / name).unlink(missing_ok=True)  # never report a previous run's verdict
    command = [sys.executable, "-m", "eventproof.conformance", *args]
    print("eventproof " + shlex.join(args), flush=True)
    # Rich wraps at 80 columns when not on a terminal; a CI log is wider than that.
    child_env = {**env, "COLUMNS": env.get("COLUMNS", "160")}
    completed = subprocess.run(command, cwd=workdir, stderr=subprocess.PIPE, text=True,
                               errors="backslashreplace", env=child_env, check=False)
    sys.stderr.write(completed.stderr)
    sys.stderr.flush()
    report = _read_report(report_dir / "report.json")
    verdicts = {EXIT_CONFORMS: True, EXIT_NONCONFORMING: False}
    if (report is None or completed.returncode not in verdicts
            or report["conforms"] is not verdicts[completed.returncode]):
        message = (f"eventproof exited with code {completed.returncode} "
                   f"{'and wrote no report' if report is None else 'with no matching verdict'}; "
                   "see the step log")
        print(annotation("error", "eventproof: the run is broken", message), flush=True)
        _append(summary_path, _broken_summary(completed.returncode, completed.stderr))
        return finish(EXIT_BROKEN, "broken")
    summary = report_dir / "summary.md"
    if summary.exists():
        _append(summary_path, summary.read_text(encoding="utf-8") + "\n")
    _annotate(report)
    if report["conforms"]:
        return finish(EXIT_CONFORMS, "conforms")
    return finish(EXIT_NONCONFORMING, "nonconforming")


if __name__ == "__main__":
    sys.exit(main())
