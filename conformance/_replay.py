"""Failure case files: save every counterexample of a run, load them back, replay them.

A case file is language-neutral JSON (``schemas/replay-case.json``): the operation, the input, both
answers, the rule and its section, the seed and who was checked. ``eventproof run`` writes one per
failing rule under ``<directory>/<implementation>/<rule id>.json``; the directory heals itself, as
Schemathesis' crash directory does: a rule that passes removes its stale file, so what remains is
what is still broken. ``eventproof replay`` sends each input again and judges the answer against a
fresh reference answer, so a file from an older suite is judged by today's rules.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from eventproof.reference import SPEC_VERSION

from ._errors import ReplayError
from ._json import readable_json
from ._operations import OPS, operation
from ._results import RunReport
from ._versions import HYPOTHESIS_VERSION, SUITE_VERSION

__all__ = [
    "FORMAT_VERSION",
    "ReplayCase",
    "ReplayError",
    "ReplayResult",
    "ReplayStatus",
    "case_document",
    "case_path",
    "implementation_directory",
    "load_cases",
    "replay",
    "save_failures",
]

#: The version of the case file shape; a file with another version is refused, not guessed at.
FORMAT_VERSION = 1

ReplayStatus = Literal["fixed", "still failing", "error", "crash", "timeout", "skipped"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class ReplayCase:
    """One saved counterexample, as read from (or about to be written to) a case file."""

    #: The id of the rule the implementation broke.
    rule: str
    level: str
    #: The spec section of the rule (``selection.md#3.1``).
    section: str
    op: str
    input: Any
    #: The reference's answer when the case was found (``{"errored": …}`` for erroneous input).
    expected: Any
    #: The implementation's answer when the case was found.
    actual: Any
    message: str
    seed: int | None
    #: The identity the implementation declared when the case was found.
    implementation: dict[str, Any]
    suite_version: str
    stderr: str = ""
    #: The Hypothesis release of the run that found it ("" when the file does not say).
    hypothesis_version: str = ""
    #: The file the case was read from (None for a case built in memory).
    path: Path | None = None


@dataclass(frozen=True)
class ReplayResult:
    """The verdict on one replayed case."""

    case: ReplayCase
    #: ``fixed`` (the rule is no longer broken on this input), ``still failing``, or how the
    #: implementation failed to answer: ``error`` (a protocol error), ``crash``, ``timeout``,
    #: ``skipped`` (it declined the operation).
    status: ReplayStatus
    #: The new explanation when still failing, or what happened instead of an answer.
    message: str
    #: The implementation's new answer (JSON), when it gave one.
    actual: Any = None


# -- writing -----------------------------------------------------------------------------------

def implementation_directory(name: str) -> str:
    """A file-system-safe directory name for an implementation name."""
    return _UNSAFE.sub("-", name).strip(".-") or "implementation"


def case_path(directory: str | os.PathLike[str], implementation_name: str, rule_id: str) -> Path:
    """Where the case file of one rule of one implementation lives."""
    return Path(directory) / implementation_directory(implementation_name) / f"{rule_id}.json"


def case_document(case: ReplayCase) -> dict[str, Any]:
    """The JSON document of a case (``schemas/replay-case.json``)."""
    document: dict[str, Any] = {
        "formatVersion": FORMAT_VERSION, "rule": case.rule, "level": case.level,
        "section": case.section, "op": case.op, "input": case.input, "expected": case.expected,
        "actual": case.actual, "message": case.message, "seed": case.seed,
        "implementation": case.implementation, "suiteVersion": case.suite_version,
        "specVersion": SPEC_VERSION,
    }
    if case.hypothesis_version:
        document["hypothesisVersion"] = case.hypothesis_version
    if case.stderr:
        document["stderr"] = case.stderr
    return document


def save_failures(report: RunReport, directory: str | os.PathLike[str]) -> dict[str, Path]:
    """Write one case file per counterexample of ``report``; returns rule id -> file.

    Files of rules that pass (or whose expectation went stale because they pass) are removed, so
    the directory always shows what is still broken for this implementation.
    """
    name = str(report.implementation.get("name", "implementation"))
    written: dict[str, Path] = {}
    for result in report.results:
        path = case_path(directory, name, result.rule.id)
        example = result.counterexample
        if example is None:
            if result.outcome in {"pass", "xpass"} and path.is_file():
                path.unlink()
            continue
        case = ReplayCase(
            rule=result.rule.id, level=result.rule.level, section=result.rule.section,
            op=example.op, input=example.input, expected=example.expected,
            actual=example.actual, message=example.message, seed=example.seed,
            implementation=dict(report.implementation), suite_version=SUITE_VERSION,
            hypothesis_version=HYPOTHESIS_VERSION,
            stderr=example.stderr, path=path,
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written to a temporary name and renamed: a reader (or another xdist worker writing the
        # same case) never sees half a file.
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        temporary.write_text(readable_json(case_document(case), width=100) + "\n",
                             encoding="utf-8", newline="\n")
        os.replace(temporary, path)
        written[result.rule.id] = path
    return written


# -- reading -----------------------------------------------------------------------------------

def _load_one(path: Path) -> ReplayCase:
    from ._operations import RULES_BY_ID
    from ._schemas import schema_issues

    shown = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReplayError(shown, "", "no such file",
                          "Check the path; `eventproof run` writes case files under "
                          ".eventproof/failures/<implementation>/<rule id>.json") from None
    except IsADirectoryError:
        raise ReplayError(shown, "", "is a directory, not a case file",
                          f"Name the files inside it, e.g. {shown}/*.json") from None
    except UnicodeDecodeError as error:
        raise ReplayError(shown, "", f"is not UTF-8 text (byte {error.start})",
                          "Case files are UTF-8 JSON; pass the .json file eventproof "
                          "wrote") from None
    except OSError as error:
        raise ReplayError(shown, "", f"cannot be read ({error.strerror})",
                          "Check the file's permissions") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ReplayError(shown, "", f"is not JSON: {error.msg} at line {error.lineno}, column "
                          f"{error.colno}", "Restore the file from the run that wrote it, or "
                          "rerun `eventproof run` to write it again") from None
    version = document.get("formatVersion") if isinstance(document, dict) else None
    if isinstance(document, dict) and version != FORMAT_VERSION:
        raise ReplayError(shown, "$.formatVersion",
                          f"format version {version!r} is not the version this eventproof "
                          f"({SUITE_VERSION}) reads, {FORMAT_VERSION}",
                          "Replay it with the eventproof version that wrote it (its "
                          "suiteVersion), or find the failure again with `eventproof run`")
    issues = schema_issues(document, "replay-case.json")
    if issues:
        issue = issues[0]
        raise ReplayError(shown, issue.path, f"breaks schemas/replay-case.json: {issue.message}",
                          "Case files are written by `eventproof run`; restore the file or "
                          "write it again with a new run")
    known = set(RULES_BY_ID)
    if document["rule"] not in known:
        import difflib

        close = difflib.get_close_matches(document["rule"], sorted(known), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ReplayError(shown, "$.rule", f"rule {document['rule']!r} is not a rule of this "
                          f"eventproof ({SUITE_VERSION}){hint}",
                          "`eventproof rules` lists every rule; replay the file with the "
                          f"eventproof version that wrote it ({document['suiteVersion']})")
    if document["op"] not in OPS:  # pragma: no cover - the schema already pins the op
        raise ReplayError(shown, "$.op", f"{document['op']!r} is not an operation",
                          f"Use one of {', '.join(OPS)}")
    return ReplayCase(
        rule=document["rule"], level=document["level"], section=document["section"],
        op=document["op"], input=document["input"], expected=document["expected"],
        actual=document["actual"], message=document["message"], seed=document["seed"],
        implementation=document["implementation"], suite_version=document["suiteVersion"],
        stderr=document.get("stderr", ""), path=path,
        hypothesis_version=document.get("hypothesisVersion", ""),
    )


def load_cases(paths: Iterable[str | os.PathLike[str]]) -> list[ReplayCase]:
    """Read case files, one case per path in the given order; :class:`ReplayError` on a bad file."""
    return [_load_one(Path(path)) for path in paths]


# -- replaying ---------------------------------------------------------------------------------

def replay(
    cases: Iterable[ReplayCase], impl: Any, *, timeout: float = 10.0, use_shell: bool = False,
    isolate: bool = False,
) -> list[ReplayResult]:
    """Send each case's input to ``impl`` again and say whether its rule is still broken.

    The answer is judged like a run judges it: against a fresh reference answer (for the fit
    strategy the implementation declares now) by every check of the operation. ``fixed`` means the
    case's own rule is no longer broken on this input; other rules it now breaks are named in the
    message.
    """
    from . import _adapters
    from ._verdict import judge

    cases = list(cases)
    adapter = _adapters.adapter_for(impl, timeout=timeout, use_shell=use_shell, isolate=isolate)
    results: list[ReplayResult] = []
    try:
        handshake = adapter.start()
        capabilities = handshake.capabilities
        for case in cases:
            if case.op not in capabilities.ops:
                results.append(ReplayResult(case, "skipped", f"the implementation does not "
                                            f"declare the operation {case.op!r}"))
                continue
            verdict = judge(operation(case.op), case.input, adapter.run(case.op, case.input),
                            capabilities)
            if verdict.outcome == "skip":
                results.append(ReplayResult(case, "skipped", f"the implementation skipped it: "
                                            f"{verdict.skip_reason}"))
                continue
            if not verdict.judged:  # it hung, crashed or broke the protocol
                first = verdict.first
                results.append(ReplayResult(case, verdict.outcome,  # type: ignore[arg-type]
                                            first.message if first else verdict.outcome,
                                            verdict.actual))
                continue
            own = [violation for violation in verdict.violations if violation.rule == case.rule]
            if own:
                results.append(ReplayResult(case, "still failing", own[0].message,
                                            verdict.actual))
                continue
            others = sorted({violation.rule for violation in verdict.violations})
            message = (f"{case.rule} holds on this input now; it still breaks "
                       f"{', '.join(others)}: {verdict.violations[0].message}" if others
                       else f"{case.rule} holds on this input now")
            results.append(ReplayResult(case, "fixed", message, verdict.actual))
    finally:
        adapter.stop()
    return results
