"""Failure case files: save every counterexample of a run, load them back, replay them.

A case file is language-neutral JSON (``schemas/replay-case.json``): the operation, the input,
both answers, the rule and its section, the seed, and the implementation it was saved from (the
handshake's identity, and the ``--impl`` command, ``--shell``, ``--timeout``, ``--isolate`` and fit
strategy of the run). ``eventproof run`` writes one per failing rule under
``<directory>/<implementation>/<rule id>.json``; the directory heals itself, as Schemathesis' crash
directory does: a rule that passes removes its stale file, so what remains is what is still broken —
but never a file another run wrote after this one began (runs on one state directory may overlap).
``eventproof replay`` sends each input again, to the implementation the case was saved from unless
told otherwise, and judges the answers against a fresh reference answer, so a file from an older
suite is judged by today's rules.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from eventproof.reference import SPEC_VERSION

from ._errors import ReplayError
from ._files import CASE_FILE_BYTES, FileProblem, newer_than, read_bounded
from ._json import readable_json
from ._operations import OPS, operation
from ._results import ExitCode, RunReport
from ._verdict import answers_agree, unstable_message
from ._versions import HYPOTHESIS_VERSION, SUITE_VERSION

__all__ = [
    "FORMAT_VERSION",
    "CaseOrigin",
    "ReplayCase",
    "ReplayError",
    "ReplayGroup",
    "ReplayResult",
    "ReplayStatus",
    "ReplayVerdict",
    "case_document",
    "case_path",
    "implementation_directory",
    "load_cases",
    "plan_replay",
    "prune",
    "replay",
    "save_failures",
]

#: The version of the case file shape; version 1 files (no ``origin``) are still read, a file of
#: any other version is refused, not guessed at.
FORMAT_VERSION = 2
_READABLE_VERSIONS = (1, 2)

ReplayStatus = Literal["fixed", "still failing", "unstable", "error", "crash", "timeout",
                       "skipped"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
#: The outcome a run gives a rule whose case replays with each status (the replay's verdict is
#: the run's, judged from these).
_OUTCOMES: dict[str, str] = {
    "fixed": "pass", "still failing": "fail", "unstable": "unstable", "error": "error",
    "crash": "crash", "timeout": "timeout", "skipped": "untested"}


@dataclass(frozen=True)
class CaseOrigin:
    """How the implementation a case was saved from was started and checked."""

    #: The ``--impl`` value (a command line or ``python:MODULE:ATTR``); None for an object passed
    #: in code, which no command can start again.
    impl: str | None
    shell: bool = False
    timeout: float = 10.0
    isolate: bool = False
    #: The fit strategy the implementation declared (``halving`` or ``maximal``).
    fit: str = "halving"
    #: The working directory of the run that saved it (a relative command or module path is
    #: relative to it); None when the file does not say.
    cwd: str | None = None

    def document(self) -> dict[str, Any]:
        document: dict[str, Any] = {"impl": self.impl, "shell": self.shell,
                                    "timeout": self.timeout, "isolate": self.isolate,
                                    "fit": self.fit}
        if self.cwd is not None:
            document["cwd"] = self.cwd
        return document

    def options(self) -> str:
        """The command-line options that start it again (``--impl 'node port.mjs' --shell``)."""
        import shlex

        if self.impl is None:
            return "an implementation passed in code (no --impl)"
        words = [f"--impl {shlex.quote(self.impl)}"]
        if self.shell:
            words.append("--shell")
        if self.timeout != 10.0:
            words.append(f"--timeout {self.timeout:g}")
        if self.impl.startswith("python:") and not self.isolate:
            words.append("--in-process")
        return " ".join(words)


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
    #: How the implementation was started (None: a version 1 file, which does not say).
    origin: CaseOrigin | None = None
    #: The rule's outcome in the run that found it (``fail``, ``unstable`` …; "" when unknown).
    outcome: str = ""

    def who(self) -> str:
        """The implementation it was saved from, in words."""
        name = self.implementation.get("name", "an implementation")
        version = self.implementation.get("version")
        named = f"{name} {version}" if version else str(name)
        return f"{named} ({self.origin.options() if self.origin else 'no command recorded'})"


@dataclass(frozen=True)
class ReplayResult:
    """The verdict on one replayed case."""

    case: ReplayCase
    #: ``fixed`` (the rule is no longer broken on this input, and two asks agreed), ``still
    #: failing``, ``unstable`` (two asks of the input were answered differently), or how the
    #: implementation failed to answer: ``error`` (a protocol error), ``crash``, ``timeout``,
    #: ``skipped`` (it declined the operation).
    status: ReplayStatus
    #: The new explanation when still failing, or what happened instead of an answer.
    message: str
    #: The implementation's new answer (JSON), when it gave one.
    actual: Any = None


@dataclass(frozen=True)
class ReplayVerdict:
    """The verdict on one ``eventproof replay``: its summary line and exit code come from this
    one value, so they cannot disagree."""

    fixed: int
    still_failing: int
    unstable: int
    #: Cases the implementation declined (``skipped``): judged on nothing, never fixed.
    unjudged: int
    exit_code: ExitCode
    #: Of the cases still failing, those of SHOULD rules (reported; they decide nothing).
    should: int = 0

    @classmethod
    def of(cls, results: Sequence[ReplayResult]) -> ReplayVerdict:
        """The verdict on ``results``, judged as a run judges the same rules (the one
        :func:`~._results.judge_run`): a case still failing breaks the replay when its rule is a
        MUST rule (a SHOULD rule's is reported and decides nothing, as in the run that saved
        it), an unstable case always, a declined case as an untested rule; a replay of no case
        judged nothing and exits 1."""
        from ._results import RuleRow, judge_run

        fixed = sum(1 for result in results if result.status == "fixed")
        unstable = sum(1 for result in results if result.status == "unstable")
        unjudged = sum(1 for result in results if result.status == "skipped")
        still = len(results) - fixed - unstable - unjudged
        should = sum(1 for result in results if result.case.level == "SHOULD"
                     and result.status not in ("fixed", "unstable", "skipped"))
        rows = [RuleRow(result.case.rule, result.case.level, "", result.case.op,
                        _OUTCOMES[result.status], result.status != "skipped")
                for result in results]
        verdict = judge_run(rows, declared={result.case.op for result in results},
                            allow_untested=False, profiles={})
        return cls(fixed, still, unstable, unjudged, verdict.exit_code, should)

    @property
    def cases(self) -> int:
        return self.fixed + self.still_failing + self.unstable + self.unjudged

    def line(self) -> str:
        """``2 fixed, 1 still failing, 0 unstable (exit code 1)``."""
        unjudged = f", {self.unjudged} not judged (skipped)" if self.unjudged else ""
        should = (f" ({self.should} of a SHOULD rule: reported, does not decide conformance)"
                  if self.should else "")
        return (f"{self.fixed} fixed, {self.still_failing} still failing{should}, "
                f"{self.unstable} unstable{unjudged} (exit code {int(self.exit_code)})")


# -- writing -----------------------------------------------------------------------------------

def implementation_directory(name: str) -> str:
    """A file-system-safe directory name for an implementation name."""
    return _UNSAFE.sub("-", name).strip(".-") or "implementation"


def case_path(directory: str | os.PathLike[str], implementation_name: str, rule_id: str) -> Path:
    """Where the case file of one rule of one implementation lives."""
    return Path(directory) / implementation_directory(implementation_name) / f"{rule_id}.json"


def case_document(case: ReplayCase, *, saved_at: float | None = None) -> dict[str, Any]:
    """The JSON document of a case (``schemas/replay-case.json``)."""
    document: dict[str, Any] = {
        "formatVersion": FORMAT_VERSION, "rule": case.rule, "level": case.level,
        "section": case.section, "op": case.op, "input": case.input, "expected": case.expected,
        "actual": case.actual, "message": case.message, "seed": case.seed,
        "implementation": case.implementation,
        "origin": (case.origin or CaseOrigin(impl=None)).document(),
        "suiteVersion": case.suite_version, "specVersion": SPEC_VERSION,
    }
    if case.outcome:
        document["outcome"] = case.outcome
    if case.hypothesis_version:
        document["hypothesisVersion"] = case.hypothesis_version
    if case.stderr:
        document["stderr"] = case.stderr
    if saved_at is not None:
        document["savedAt"] = saved_at
    return document


def origin_of(report: RunReport) -> CaseOrigin:
    """How the implementation of ``report`` was started (its run's settings)."""
    invocation = report.invocation
    fit = str(report.capabilities.fit_strategy)
    cwd = os.getcwd()
    if invocation is None:
        return CaseOrigin(impl=None, fit=fit, cwd=cwd)
    return CaseOrigin(impl=invocation.impl, shell=invocation.use_shell,
                      timeout=invocation.timeout, isolate=invocation.isolate, fit=fit, cwd=cwd)


def _write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to a uniquely named temporary file beside ``path`` and rename it over
    ``path``: a reader, or another run writing the same case at once, never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                         suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _saved_at(path: Path) -> float:
    """When a case file was written: its ``savedAt``, else its modification time."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        document = None
    if isinstance(document, dict) and isinstance(document.get("savedAt"), int | float) \
            and not isinstance(document.get("savedAt"), bool):
        return float(document["savedAt"])
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _remove_stale(path: Path, since: float) -> bool:
    """Remove the case file ``path`` unless it was written at or after ``since`` (by a run that
    overlapped this one: its failure is kept). The file is first claimed by an atomic rename,
    so a file written between the check and the removal is never removed; True when removed."""
    claimed = path.with_name(f".{path.name}.{uuid.uuid4().hex}.stale")
    try:
        os.rename(path, claimed)
    except FileNotFoundError:
        return False
    try:
        if _saved_at(claimed) >= since:
            try:
                os.link(claimed, path)  # put it back, unless a newer one took its place
            except FileExistsError:
                pass
            except OSError:  # pragma: no cover - a file system without hard links
                if not path.exists():
                    os.replace(claimed, path)
            return False
        return True
    finally:
        claimed.unlink(missing_ok=True)


def save_failures(report: RunReport, directory: str | os.PathLike[str]) -> dict[str, Path]:
    """Write one case file per counterexample of ``report``; returns rule id -> file.

    Files of rules that pass (or whose expectation went stale because they pass) are removed, so
    the directory always shows what is still broken for this implementation — except a file
    written since this run began (``report.started_at``): another run on the same directory
    wrote it while this one ran, and its failure is kept. Every file is written whole, by rename.
    """
    name = str(report.implementation.get("name", "implementation"))
    since = report.started_at or (time.time() - report.duration)
    origin = origin_of(report)
    written: dict[str, Path] = {}
    for result in report.results:
        path = case_path(directory, name, result.rule.id)
        example = result.counterexample
        if example is None:
            if result.outcome in {"pass", "xpass"}:
                _remove_stale(path, since)
            continue
        case = ReplayCase(
            rule=result.rule.id, level=result.rule.level, section=result.rule.section,
            op=example.op, input=example.input, expected=example.expected,
            actual=example.actual, message=example.message, seed=example.seed,
            implementation=dict(report.implementation), suite_version=SUITE_VERSION,
            hypothesis_version=HYPOTHESIS_VERSION,
            stderr=example.stderr, path=path, origin=origin, outcome=result.outcome,
        )
        _write_atomically(path, readable_json(case_document(case, saved_at=time.time()),
                                              width=100) + "\n")
        written[result.rule.id] = path
    return written


# -- reading -----------------------------------------------------------------------------------

def _load_one(path: Path) -> ReplayCase:
    from ._operations import RULES_BY_ID
    from ._schemas import schema_issues

    shown = str(path)
    try:
        raw = read_bounded(path, CASE_FILE_BYTES, "a case file")
    except FileProblem as problem:
        fix = problem.fix
        if problem.reason == "no such file":
            fix = ("Check the path; `eventproof run` writes case files under "
                   ".eventproof/failures/<implementation>/<rule id>.json")
        elif problem.reason == "is a directory":
            fix = f"Name the files inside it, e.g. {shown}/*.json"
        raise ReplayError(shown, "", problem.reason, fix) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ReplayError(shown, "", f"is not UTF-8 text (byte {error.start})",
                          "Case files are UTF-8 JSON; pass the .json file eventproof "
                          "wrote") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ReplayError(shown, "", f"is not JSON: {error.msg} at line {error.lineno}, column "
                          f"{error.colno}", "Restore the file from the run that wrote it, or "
                          "rerun `eventproof run` to write it again") from None
    version = document.get("formatVersion") if isinstance(document, dict) else None
    if isinstance(document, dict) and version not in _READABLE_VERSIONS:
        raise ReplayError(shown, "$.formatVersion",
                          f"format version {version!r} is not a version this eventproof "
                          f"({SUITE_VERSION}) reads, "
                          f"{' or '.join(map(str, _READABLE_VERSIONS))}",
                          "Replay it with the eventproof version that wrote it (its "
                          "suiteVersion), or find the failure again with `eventproof run`")
    if isinstance(document, dict):
        _check_versions(shown, document)
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
        origin=_origin(document.get("origin")), outcome=document.get("outcome", ""),
    )


def _check_versions(shown: str, document: Mapping[str, Any]) -> None:
    """A case file states the rules of its spec version, judged by its kit: one written for
    another spec, or by a later kit, is refused (its rule may mean something this kit does not
    know, and a replay could call it fixed)."""
    spec = document.get("specVersion")
    if isinstance(spec, str) and spec != SPEC_VERSION:
        raise ReplayError(shown, "$.specVersion",
                          f"was written for spec {spec}; this eventproof ({SUITE_VERSION}) "
                          f"judges spec {SPEC_VERSION}",
                          "Replay it with an eventproof that judges that spec, or find the "
                          "failure again with `eventproof run`")
    suite = document.get("suiteVersion")
    if isinstance(suite, str) and newer_than(suite, SUITE_VERSION):
        raise ReplayError(shown, "$.suiteVersion",
                          f"was written by eventproof {suite}, newer than this one "
                          f"({SUITE_VERSION}), whose rules it may not know",
                          f"Upgrade eventproof to {suite} or later to replay it, or find the "
                          "failure again with this version's `eventproof run`")


def _origin(document: Any) -> CaseOrigin | None:
    if not isinstance(document, Mapping):
        return None
    return CaseOrigin(impl=document["impl"], shell=document["shell"],
                      timeout=float(document["timeout"]), isolate=document["isolate"],
                      fit=document["fit"],
                      cwd=str(document["cwd"]) if document.get("cwd") is not None else None)


def load_cases(paths: Iterable[str | os.PathLike[str]]) -> list[ReplayCase]:
    """Read case files, one case per path in the given order; :class:`ReplayError` on a bad file."""
    return [_load_one(Path(path)) for path in paths]


# -- replaying ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class ReplayGroup:
    """Cases replayed against one implementation, started one way."""

    #: The ``--impl`` value to start.
    impl: str
    use_shell: bool
    timeout: float
    isolate: bool
    cases: tuple[ReplayCase, ...]
    #: The name the implementation must declare in its handshake (a bare replay: the cases were
    #: saved from an implementation of that name); None when ``--impl`` was given.
    expect_name: str | None = None
    #: Per case (by position in :attr:`cases`): "" or the note that it was saved from another
    #: implementation than the one it is replayed against.
    notes: tuple[str, ...] = field(default=())
    #: The directory to start the implementation in: the one the cases' run ran in (a bare
    #: replay of files that record it), or None for this process's own.
    cwd: str | None = None

    def options(self) -> str:
        return CaseOrigin(self.impl, self.use_shell, self.timeout, self.isolate).options()


def plan_replay(
    cases: Sequence[ReplayCase], *, impl: str | None = None, timeout: float | None = None,
    use_shell: bool | None = None, isolate: bool | None = None,
) -> list[ReplayGroup]:
    """Which implementation replays which case.

    Without ``impl`` each case goes to the implementation it was saved from (its recorded
    ``--impl``, ``--shell``, ``--timeout`` and ``--isolate``; a given ``timeout``, ``use_shell``
    or ``isolate`` overrides the recorded one), and that implementation must still declare the
    name it was saved under; a case that records no command is refused (:class:`ReplayError`),
    never replayed against some default. With ``impl`` every case goes to it, and each case
    saved from another implementation carries a note saying so.
    """
    if impl is not None:
        notes = []
        for case in cases:
            same = case.origin is not None and case.origin.impl == impl
            notes.append("" if same else f"saved from {case.who()}, replayed against --impl "
                         f"{_quote(impl)}")
        recorded = {case.origin for case in cases if case.origin is not None
                    and case.origin.impl == impl}
        model = next(iter(recorded)) if len(recorded) == 1 else None
        return [ReplayGroup(
            impl=impl,
            use_shell=use_shell if use_shell is not None else bool(model and model.shell),
            timeout=timeout if timeout is not None else (model.timeout if model else 10.0),
            isolate=isolate if isolate is not None else (model.isolate if model else True),
            cases=tuple(cases), notes=tuple(notes))]
    groups: dict[tuple[Any, ...], list[ReplayCase]] = {}
    for case in cases:
        origin = case.origin
        if origin is None or origin.impl is None:
            shown = str(case.path) if case.path is not None else case.rule
            why = ("the file does not record how it was started (a format version 1 file)"
                   if origin is None else "it was passed in code, not started by a command")
            raise ReplayError(
                shown, "$.origin", f"was saved from {case.who()}, and {why}: a bare replay "
                "would judge another implementation (the bundled reference) and could call it "
                "fixed", "Name the implementation to replay it against: eventproof replay "
                f"{_quote(shown)} --impl '<its command>'")
        key = (origin.impl,
               use_shell if use_shell is not None else origin.shell,
               timeout if timeout is not None else origin.timeout,
               isolate if isolate is not None else origin.isolate,
               str(case.implementation.get("name", "")), origin.cwd)
        groups.setdefault(key, []).append(case)
    return [ReplayGroup(impl=key[0], use_shell=key[1], timeout=key[2], isolate=key[3],
                        cases=tuple(members), expect_name=key[4],
                        notes=("",) * len(members), cwd=key[5])
            for key, members in groups.items()]


def _quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


#: How many times replay asks each case's input: twice, and a case saved ``unstable`` more
#: often (an implementation wrong at random may answer right twice in a row).
REPLAY_ASKS = 2
UNSTABLE_REPLAY_ASKS = 8


def _asks(case: ReplayCase) -> int:
    return UNSTABLE_REPLAY_ASKS if case.outcome == "unstable" else REPLAY_ASKS


def replay(
    cases: Iterable[ReplayCase], impl: Any, *, timeout: float = 10.0, use_shell: bool = False,
    isolate: bool = False, expect_name: str | None = None,
) -> list[ReplayResult]:
    """Send each case's input to ``impl`` again, at least twice (:data:`REPLAY_ASKS`; a case
    saved ``unstable``, :data:`UNSTABLE_REPLAY_ASKS`), and say whether its rule is still broken.

    The answers are judged like a run judges them: against a fresh reference answer (for the
    fit strategy the implementation declares now) by every check of the operation. Two answers
    that differ (:func:`~._verdict.answers_agree`) make the case ``unstable``, never ``fixed``.
    ``fixed`` means both answers agree and the case's own rule is no longer broken on this
    input; other rules it now breaks are named in the message. With ``expect_name``, an
    implementation whose handshake declares another name is refused (:class:`ReplayError`)
    before any case is sent.
    """
    from . import _adapters
    from ._verdict import judge

    cases = list(cases)
    adapter = _adapters.adapter_for(impl, timeout=timeout, use_shell=use_shell, isolate=isolate)
    results: list[ReplayResult] = []
    last_asked: int | None = None
    try:
        handshake = adapter.start()
        capabilities = handshake.capabilities
        name = str(handshake.implementation_dict().get("name", ""))
        if expect_name is not None and cases and name != expect_name:
            case = cases[0]
            shown = str(case.path) if case.path is not None else case.rule
            raise ReplayError(
                shown, "$.implementation.name",
                f"was saved from {case.who()}, but that command now starts an implementation "
                f"named {name!r}: replaying it there would judge another implementation",
                "Replay it against the implementation it was saved from, or give --impl "
                "explicitly to replay it against this one anyway")
        for case in cases:
            if case.op not in capabilities.ops:
                results.append(ReplayResult(case, "skipped", f"the implementation does not "
                                            f"declare the operation {case.op!r}"))
                continue
            op = operation(case.op)
            last_asked = len(results)  # the index this case's result gets
            verdict = judge(op, case.input, adapter.run(case.op, case.input), capabilities)
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
            changed = ""
            for asks in range(2, _asks(case) + 1):
                again = judge(op, case.input, adapter.run(case.op, case.input), capabilities)
                if not answers_agree(verdict, again):
                    changed = unstable_message(verdict, again, asks, _asks(case))
                    break
            if changed:
                results.append(ReplayResult(case, "unstable", changed, again.actual))
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
        adapter.stop()
        written = adapter.after_last_answer()
        if written is not None and last_asked is not None and (
                results[last_asked].status == "fixed"):
            # What it wrote after its last answer is that answer now (spec/protocol.md §6).
            verdict = judge(operation(written.op), written.input, written.broken, capabilities)
            first = verdict.first
            results[last_asked] = ReplayResult(
                results[last_asked].case, verdict.outcome,  # type: ignore[arg-type]
                first.message if first else verdict.outcome, verdict.actual)
    finally:
        adapter.stop()
    return results


def prune(results: Iterable[ReplayResult]) -> list[Path]:
    """Remove the case files of the ``fixed`` results; the files removed, in order."""
    removed = []
    for result in results:
        path = result.case.path
        if result.status != "fixed" or path is None:
            continue
        try:
            path.unlink()
        except FileNotFoundError:
            continue
        removed.append(path)
    return removed
