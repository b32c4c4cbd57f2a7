"""The eventproof GitHub Action's run step: check an implementation and report to the runner.

Runs ``eventproof run`` with the action's inputs, writes the JSON, JUnit and Markdown reports into
the report directory, appends the Markdown summary to ``$GITHUB_STEP_SUMMARY``, annotates each
root cause of a failure once, sets the step's outputs in ``$GITHUB_OUTPUT`` and exits with the
exit code of the report's verdict (``report["verdict"]``: 0 conforms, 1 does not, 130
interrupted, 143 terminated). The step decides no verdict of its own: it restates the report's,
and when the report and the process disagree (or no report was written) the run is ``broken``
and the step exits 2.

Inputs come from the environment, as action.yml maps them: ``INPUT_IMPL``, ``INPUT_OPS``,
``INPUT_EFFORT`` (``INPUT_EXAMPLES`` and ``INPUT_BUDGET``, its old names), ``INPUT_FIT``,
``INPUT_EXPECT``, ``INPUT_REPORT_DIR``, ``INPUT_TIMEOUT``,
``INPUT_SHELL``, ``INPUT_JOBS``, ``INPUT_SHARD``, ``INPUT_MAX_TIME``, ``INPUT_ALLOW_UNTESTED``,
``INPUT_WORKING_DIRECTORY``. Run it with the Python that has eventproof installed: the operations
it accepts are read from eventproof's operation table, and the inputs that are eventproof's
settings are read and checked by their entries of its table of settings
(``eventproof.conformance._settings``), whose errors name the input and the fix.
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

#: The command-line flag that takes the search effort. The only place the action names it.
EFFORT_FLAG = "--effort"
EFFORTS = ("quick", "default", "thorough")
#: Old names of the input ``effort``, kept working with a notice: "examples" counts the inputs a
#: search draws, "budget" names the budget profile.
OLD_EFFORT_INPUTS = ("examples", "budget")
FITS = ("halving", "maximal")
#: Outcomes that decide (or, for a SHOULD rule, would decide) the verdict: annotated.
BROKEN = ("fail", "error", "crash", "timeout", "xpass")
#: What the job exits with when the run is broken (no verdict to restate).
EXIT_BROKEN = 2
#: The ``result`` output for each verdict headline (earlier releases' names); any other
#: headline is its own result.
RESULTS = {"conforms": "conforms", "does not conform": "nonconforming",
           "could not be checked": "broken"}


def known_ops() -> tuple[str, ...]:
    """Every operation the kit checks, in run order: the operation table's, read when asked."""
    try:
        from eventproof.conformance._operations import OPS
    except ImportError as error:
        raise InputError(f"input ops: eventproof's operation table cannot be read in "
                         f"{sys.executable} ({error}); run this script with the Python that "
                         "install.sh set up") from None
    return tuple(OPS)


class InputError(Exception):
    """An action input that cannot be used; the message names it and the fix."""


def _input(env: Mapping[str, str], name: str, default: str = "") -> str:
    return env.get(f"INPUT_{name.upper().replace('-', '_')}", default).strip() or default


def setting_value(name: str, text: str) -> Any:
    """The value of the action input ``text`` for eventproof's setting ``name``, read and checked
    by that setting's entry of eventproof's table of settings (raises InputError naming the
    input, the value and the fix)."""
    try:
        from eventproof.conformance._settings import SETTINGS, SettingError
    except ImportError as error:
        raise InputError(f"input {name}: eventproof's table of settings cannot be read in "
                         f"{sys.executable} ({error}); run this script with the Python that "
                         "install.sh set up") from None
    try:
        return SETTINGS[name].parse(text, "action")
    except SettingError as error:
        raise InputError(str(error)) from None


def _flag(env: Mapping[str, str], name: str) -> bool:
    return bool(setting_value(name.replace("-", "_"), _input(env, name, "false")))


def effort_input(env: Mapping[str, str]) -> str:
    """The input ``effort``, or one of its old names (:data:`OLD_EFFORT_INPUTS`) with a notice
    on the job's log naming the new one."""
    name, effort = "effort", _input(env, "effort", "")
    for old in OLD_EFFORT_INPUTS:
        value = _input(env, old, "")
        if not value:
            continue
        print(annotation("notice", "eventproof: old input name",
                         f"input {old} is now effort (effort: {value}); the old name will be "
                         "removed in the next release"), flush=True)
        if effort and effort != value:
            raise InputError(f"inputs {name} ({effort!r}) and {old} ({value!r}) disagree: {old} "
                             "is an old name of effort; give effort only")
        name, effort = old, value
    effort = effort or "default"
    if effort not in EFFORTS:
        raise InputError(f"input {name}: {effort!r} is not a search effort; use one of "
                         f"{', '.join(EFFORTS)}")
    return effort


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
    args += [EFFORT_FLAG, effort_input(env)]
    fit = _input(env, "fit")
    if fit:
        if fit not in FITS:
            raise InputError(f"input fit: {fit!r} is not a fit strategy; use one of "
                             f"{', '.join(FITS)}, or leave it empty")
        args += ["--fit", fit]
    ops = _input(env, "ops")
    if ops:
        known = known_ops()
        wanted = [op.strip() for op in ops.split(",") if op.strip()]
        unknown = [op for op in wanted if op not in known]
        if unknown or not wanted:
            raise InputError(f"input ops: {ops!r} names no operation or an unknown one "
                             f"({', '.join(unknown) or 'empty'}); use a comma-separated subset "
                             f"of {','.join(known)}, or leave it empty for all")
        args += ["--ops", ",".join(wanted)]
    jobs = _input(env, "jobs")
    if jobs:
        args += ["--jobs", str(setting_value("jobs", jobs))]
    shard = _input(env, "shard")
    if shard:
        index, count = setting_value("shard", shard)
        args += ["--shard", f"{index}/{count}"]
    max_time = _input(env, "max-time")
    if max_time:
        setting_value("max_time", max_time)
        args += ["--max-time", max_time]
    if _flag(env, "allow-untested"):
        args.append("--allow-untested")
    expect = _input(env, "expect")
    if expect:
        args += ["--expect", expect]
    timeout = _input(env, "timeout")
    if timeout:
        setting_value("timeout", timeout)
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
    lines = []
    for key, value in outputs.items():
        if "\n" in value or "\r" in value:
            # A value of several lines is written between delimiters that it does not hold.
            delimiter = "EVENTPROOF_EOF"
            while delimiter in value:
                delimiter += "_"
            lines.append(f"{key}<<{delimiter}\n{value}\n{delimiter}\n")
        else:
            lines.append(f"{key}={value}\n")
    _append(env.get("GITHUB_OUTPUT"), "".join(lines))


def _read_report(path: Path) -> dict[str, Any] | None:
    """The run's JSON report, or None when there is none with a verdict to restate."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(document, dict) or not isinstance(document.get("verdict"), dict):
        return None
    return document


def _first_line(text: str, limit: int = 300) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[:limit] + "…"


def annotation_commands(report: Mapping[str, Any]) -> list[str]:
    """The workflow commands for a report: one annotation per root cause, then the verdict.

    A result that follows from another rule's failure (``cause``) is folded into that rule's
    annotation, and failures of the same kind with the same message are one annotation listing
    their rules: one cause, one annotation. Unjudged MUST rules are one annotation. The last
    restates the verdict (its headline and line), as an error unless it conforms.
    """
    name = str(report.get("implementation", {}).get("name", "implementation"))
    results = [result for result in report.get("results", [])
               if isinstance(result, Mapping) and result.get("outcome") in BROKEN]
    by_id = {str(result.get("id")): result for result in results}

    def root(result: Mapping[str, Any]) -> Mapping[str, Any]:
        seen: set[str] = set()
        while str(result.get("cause") or "") in by_id and result.get("id") not in seen:
            seen.add(str(result.get("id")))
            result = by_id[str(result["cause"])]
        return result

    groups: dict[tuple[str, str, str], list[Mapping[str, Any]]] = {}
    for result in results:
        cause = root(result)
        example = cause.get("counterexample") or {}
        message = _first_line(str(example.get("message") or cause.get("note")
                                  or cause.get("title", "")))
        key = (str(cause.get("outcome")), str(example.get("kind") or ""), message)
        groups.setdefault(key, []).append(result)
    commands = []
    for (outcome, _, message), members in groups.items():
        ids = list(dict.fromkeys(str(member.get("id")) for member in members))
        level = "error" if any(member.get("level") == "MUST" for member in members) else "warning"
        first = members[0]
        rules = ", ".join(ids[:4]) + (f" and {len(ids) - 4} more" if len(ids) > 4 else "")
        title = f"eventproof: {name} {outcome} {rules} (spec/{root(first).get('section', '')})"
        commands.append(annotation(level, title, message))
    verdict = report["verdict"]
    unjudged = list(verdict.get("unjudged", []))
    if unjudged:
        level = "warning" if report.get("allowUntested") or verdict.get("ending") else "error"
        shown = ", ".join(unjudged[:6]) + (f" and {len(unjudged) - 6} more"
                                           if len(unjudged) > 6 else "")
        commands.append(annotation(level, f"eventproof: {name} {len(unjudged)} MUST rule(s) "
                                          "not judged", shown))
    commands.append(annotation("notice" if verdict["conforms"] else "error",
                               f"eventproof: {name} {verdict['headline']}", verdict["line"]))
    return commands


def outputs_of(report: Mapping[str, Any]) -> dict[str, str]:
    """The step's outputs for a report: its verdict as written (headline, exit code, line and
    each profile's status)."""
    verdict = report["verdict"]
    headline = str(verdict["headline"])
    return {"verdict": headline, "result": RESULTS.get(headline, headline),
            "exit-code": str(int(verdict["exitCode"])), "summary": str(verdict["line"]),
            "profiles": ",".join(f"{profile['profile']}={profile['status']}"
                                 for profile in verdict.get("profiles", []))}


def step_summary(report: Mapping[str, Any], markdown: str | None) -> str:
    """The job summary: the Markdown summary eventproof wrote, which states the same verdict;
    without one, the verdict from the report (headline, line, each profile's status)."""
    if markdown:
        return markdown if markdown.endswith("\n") else markdown + "\n"
    verdict = report["verdict"]
    mark = ("✅" if verdict["headline"] == "conforms" else "⚠️" if verdict["conforms"]
            else "❌")
    name = str(report.get("implementation", {}).get("name", "implementation"))
    lines = [f"# {mark} eventproof: {name} {verdict['headline']}", "",
             "| profile | status | rules judged |", "|---|---|---|",
             *(f"| {profile['profile']} | {profile['status']} | {profile['judgedRules']} of "
               f"{profile['rules']} |" for profile in verdict.get("profiles", [])),
             "", f"**Verdict:** {verdict['line']}", ""]
    return "\n".join(lines)


def _annotate(report: Mapping[str, Any]) -> None:
    for command in annotation_commands(report):
        print(command, flush=True)


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

    def broken(message: str) -> int:
        _set_outputs(env, {**outputs, "exit-code": str(EXIT_BROKEN), "result": "broken",
                           "verdict": "broken", "summary": message})
        return EXIT_BROKEN

    try:
        args = eventproof_args(env, report_dir, state_dir)
        if not workdir.is_dir():
            raise InputError(f"input working-directory: {workdir} is not a directory of the "
                             "workspace; check out your repository first (actions/checkout)")
    except InputError as error:
        print(annotation("error", "eventproof: bad input", str(error)), flush=True)
        _append(summary_path, f"# ⚠️ eventproof: bad input\n\n{error}\n")
        return broken(f"bad input: {error}")

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
    stated = None if report is None else report["verdict"].get("exitCode")
    if report is None or stated != completed.returncode:
        # The verdict is the report's; a process that says otherwise (or wrote no report) has
        # not given one, and the step does not guess.
        message = (f"eventproof exited with code {completed.returncode} "
                   + ("and wrote no report" if report is None else
                      f"but its report's verdict says exit code {stated}")
                   + "; see the step log")
        print(annotation("error", "eventproof: the run is broken", message), flush=True)
        _append(summary_path, _broken_summary(completed.returncode, completed.stderr))
        return broken(message)
    summary = report_dir / "summary.md"
    markdown = summary.read_text(encoding="utf-8") if summary.exists() else None
    _append(summary_path, step_summary(report, markdown) + "\n")
    _annotate(report)
    stated_outputs = outputs_of(report)
    _set_outputs(env, {**outputs, **stated_outputs})
    return int(stated_outputs["exit-code"])


if __name__ == "__main__":
    sys.exit(main())
