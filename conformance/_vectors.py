"""Language-neutral vectors: hand-written inputs that pin each rule, with the answers they demand.

The vectors are the suite's smoke test in a form any language can run with a JSON parser alone
(the idea of the JSON-Schema-Test-Suite). Their *sources* live here: every input and every
description is written by hand, one small builder per rule group, and the expected answers are
computed by the reference. ``spec/vectors/<group>.json`` is generated from them and shipped as
``eventproof.vectors``; ``python -m tools.vectors --write`` regenerates the
files (``nox -s vectors``) and ``--check`` says which are stale.

:func:`run_vectors` runs the shipped vectors against any implementation through the same adapters
as ``eventproof run``, and :func:`render` shows what disagreed.
"""

from __future__ import annotations

import json
import shlex
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from eventproof.reference import InvalidInput, Reference

from ._errors import VectorBuildError
from ._json import render as render_value
from ._model import FIT_STRATEGIES, Capabilities, Errored, FitStrategy, VectorSource
from ._operations import GROUPS, RULES, RULES_BY_ID, group_of, operation
from ._protocol import dumps_literal
from ._vector_files import read_vector_files, unsendable_reason
from ._verdict import judge

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

    from rich.console import Console

#: The vector file format this module writes and reads (schemas/vector-file.json).
FORMAT_VERSION = 1
#: The answer a vector demands for an input the spec calls erroneous.
ERRORED: dict[str, bool] = {"errored": True}
JSON = Any


# =================================================================================================
# Sources: what a vector is before the reference answered it
# =================================================================================================



# =================================================================================================
# Building the files
# =================================================================================================


def vector_sources() -> list[VectorSource]:
    """Every hand-written vector, in group order."""
    return [source for group in GROUPS for source in group.vectors()]


def _roundtrip(value: JSON) -> JSON:
    # The answer must be computed on exactly what a reader of the file gets back.
    return json.loads(dumps_literal(value))


def _answer(fit: FitStrategy, op: str, op_input: JSON) -> JSON:
    try:
        return _roundtrip(Reference(fit).run(op, op_input))
    except InvalidInput:
        return dict(ERRORED)


def build_vectors(source: VectorSource) -> list[dict[str, JSON]]:
    """The vector(s) of one source: one per declared fit strategy, or one for both."""
    rule = RULES_BY_ID.get(source.rule)
    if rule is None:
        raise VectorBuildError(f"vector {source.slug!r} names rule {source.rule!r}, which is not "
                               "in the operation table (conformance/<profile>/rules.py)")
    op_input = _roundtrip(source.input)
    base = {"id": f"{source.rule}/{source.slug}", "description": source.description,
            "rule": rule.id, "section": rule.section, "op": rule.op}
    if not source.fits:
        answers = [_answer(fit, rule.op, op_input) for fit in FIT_STRATEGIES]
        if answers[0] != answers[1]:
            raise VectorBuildError(
                f"vector {base['id']}: the answer depends on the fit strategy; declare "
                "fits=BOTH (or one strategy) so that each strategy gets its own vector")
        return [{**base, "input": op_input, "expected": answers[0]}]
    return [
        {**base, "id": f"{base['id']}-{fit}", "description": f"{source.description} ({fit})",
         "capabilities": {"fitStrategy": fit}, "input": op_input,
         "expected": _answer(fit, rule.op, op_input)}
        for fit in source.fits
    ]


def build_files() -> dict[str, dict[str, JSON]]:
    """Every vector file by group, as the JSON values ``--write`` stores."""
    out: dict[str, dict[str, JSON]] = {
        group.name: {"version": FORMAT_VERSION, "group": group.name,
                     "description": group.description, "vectors": []}
        for group in GROUPS
    }
    for source in vector_sources():
        group = group_of(source.rule)
        if group not in out:
            raise VectorBuildError(f"rule {source.rule!r} belongs to no known group "
                                   f"({', '.join(group.name for group in GROUPS)})")
        out[group]["vectors"].extend(build_vectors(source))
    return out


def render_file(content: Mapping[str, JSON]) -> str:
    """The text of a vector file: ASCII-only JSON (lone surrogates survive as escapes)."""
    return dumps_literal(content, indent=2) + "\n"


def rendered_files() -> dict[str, str]:
    """Every vector file's text by file name (``select.json`` …)."""
    return {f"{group}.json": render_file(content) for group, content in build_files().items()}


def vectors_directory() -> Path:
    """The directory of the shipped vector files (spec/vectors/ in a checkout)."""
    return Path(str(files("eventproof.vectors")))


def stale_files(directory: Path | None = None) -> list[str]:
    """File names whose content differs from what the sources generate (missing ones included)."""
    directory = directory or vectors_directory()
    stale = []
    for name, text in rendered_files().items():
        path = directory / name
        if not path.is_file() or path.read_text("utf-8") != text:
            stale.append(name)
    return stale


def write_files(directory: Path | None = None) -> list[str]:
    """Write every vector file; returns the names written."""
    directory = directory or vectors_directory()
    written = []
    for name, text in rendered_files().items():
        (directory / name).write_text(text, encoding="utf-8")
        written.append(name)
    return written


# =================================================================================================
# Loading and running the shipped vectors
# =================================================================================================


@dataclass(frozen=True)
class Vector:
    """One vector as shipped."""

    id: str
    description: str
    rule: str
    section: str
    op: str
    input: JSON
    #: The demanded output, or :data:`ERRORED`.
    expected: JSON
    #: The fit strategy the vector is written for; None when it holds for both.
    fit_strategy: str | None
    #: The file it came from, e.g. ``select.json``.
    file: str

    @property
    def group(self) -> str:
        """The rule group (the file's group)."""
        return group_of(self.rule)

    @property
    def erroneous(self) -> bool:
        """True when the spec calls the input erroneous."""
        return bool(self.expected == ERRORED)


def parse_vector_file(name: str, content: Mapping[str, JSON]) -> list[Vector]:
    """The vectors of one parsed file."""
    return [
        Vector(id=raw["id"], description=raw["description"], rule=raw["rule"],
               section=raw["section"], op=raw["op"], input=raw["input"],
               expected=raw["expected"],
               fit_strategy=(raw.get("capabilities") or {}).get("fitStrategy"), file=name)
        for raw in content["vectors"]
    ]


def load_vectors(directory: Path | None = None) -> list[Vector]:
    """Every shipped vector, file by file in group order."""
    contents = read_vector_files(directory)
    order = {f"{group.name}.json": index for index, group in enumerate(GROUPS)}
    vectors: list[Vector] = []
    for name in sorted(contents, key=lambda n: (order.get(n, len(order)), n)):
        vectors.extend(parse_vector_file(name, contents[name]))
    return vectors


Status = Literal["pass", "fail", "should", "skip"]


@dataclass(frozen=True)
class VectorResult:
    """The verdict on one vector."""

    vector: Vector
    #: ``pass``; ``fail`` (a MUST rule broken); ``should`` (only SHOULD rules broken, such as
    #: ``canon.bytes``: the right value in other bytes); ``skip``.
    status: Status
    #: The implementation's answer, as shown to the user.
    actual: JSON = None
    #: Why it failed or was skipped: the broken rule's own explanation.
    message: str = ""
    #: Every rule the answer broke, most specific first (the first explains the failure).
    broken: tuple[str, ...] = ()
    #: True when the implementation gave no answer the checks could judge: it crashed, hung,
    #: broke the protocol, or had stopped answering (reports show such a vector as ``error``).
    unanswered: bool = False
    #: Seconds spent on the vector (the request and its verdict).
    seconds: float = 0.0


@dataclass
class VectorOutcome:
    """What running the vectors found."""

    implementation: dict[str, JSON]
    capabilities: Capabilities
    results: list[VectorResult] = field(default_factory=list)
    #: The settings of the run, for the commands that repeat it (``impl_spec`` is None for an
    #: object passed in code, which no command can name).
    impl_spec: str | None = None
    rule_prefix: str | None = None
    timeout: float = 10.0
    use_shell: bool = False

    @property
    def conforms(self) -> bool:
        """True when no vector failed; SHOULD failures and skips do not count."""
        return not any(result.status == "fail" for result in self.results)

    @property
    def exit_code(self) -> int:
        """What ``eventproof vectors`` exits with (the JUnit document states it too)."""
        from ._results import ExitCode

        return int(ExitCode.CONFORMS if self.conforms else ExitCode.NONCONFORMING)

    def count(self, status: Status) -> int:
        """How many vectors ended with ``status``."""
        return sum(result.status == status for result in self.results)

    def by_group(self) -> dict[str, Counter[str]]:
        """Status counts per rule group, in group order."""
        counts: dict[str, Counter[str]] = {}
        for result in self.results:
            counts.setdefault(result.vector.group, Counter())[result.status] += 1
        return counts

    @property
    def failed_rule_ids(self) -> set[str]:
        """Every rule some vector's answer broke (SHOULD rules included)."""
        return {rule for result in self.results for rule in result.broken}


def expected_of(vector: Vector) -> Any:
    """What a vector demands, as the checks read it (:class:`Errored` for an erroneous input)."""
    if vector.erroneous:
        return Errored("the spec calls this input erroneous")
    return vector.expected


def judge_vector(vector: Vector, response: Any, capabilities: Capabilities) -> VectorResult:
    """Judge one answer to a vector through the one verdict path (the operation's checks)."""
    verdict = judge(operation(vector.op), vector.input, response, capabilities,
                    expected=expected_of(vector))
    if verdict.outcome == "skip":
        return VectorResult(vector, "skip", message=f"the implementation skipped it: "
                            f"{verdict.skip_reason}")
    broken = tuple(violation.rule for violation in verdict.violations)
    if not broken:
        return VectorResult(vector, "pass", verdict.actual)
    must = [v for v in verdict.violations if RULES_BY_ID[v.rule].level == "MUST"]
    lead = (must or list(verdict.violations))[0]
    return VectorResult(vector, "fail" if must else "should", verdict.actual,
                        f"{lead.rule}: {lead.message}", broken,
                        unanswered=not verdict.judged)


def _skip_reason(vector: Vector, capabilities: Capabilities) -> str | None:
    unsendable = unsendable_reason(vector.op, vector.input, vector.fit_strategy, capabilities)
    if unsendable is None and capabilities.reads(vector.input) is not vector.input:
        # Its expected answer is for the input as written, which the implementation never reads
        # (a run asks it all the same, judged against the reference's answer to the input as
        # it is read).
        return (f"the vector's input holds what the implementation declares it reads otherwise "
                f"({', '.join(capabilities.limits)}): a lone surrogate, or an integer beyond "
                "2^53 - 1")
    return unsendable


def run_vectors(
    impl: Any, *, timeout: float = 10.0, use_shell: bool = False, rule_prefix: str | None = None,
    isolate: bool = True,
) -> VectorOutcome:
    """Run every shipped vector (of rules starting with ``rule_prefix``) against ``impl``.

    ``impl`` is what ``eventproof run --impl`` accepts (a spec string, an object or a factory);
    one implementation process answers every vector. A ``python:`` spec runs in a worker
    process unless ``isolate`` is false (spec/protocol.md §8).
    """
    from . import _adapters

    vectors = [v for v in load_vectors() if rule_prefix is None or v.rule.startswith(rule_prefix)]
    adapter = _adapters.adapter_for(impl, timeout=timeout, use_shell=use_shell, isolate=isolate)
    try:
        handshake = adapter.start()
        capabilities: Capabilities = handshake.capabilities
        outcome = VectorOutcome(implementation=dict(handshake.implementation_dict()),
                                capabilities=capabilities,
                                impl_spec=impl if isinstance(impl, str) else None,
                                rule_prefix=rule_prefix, timeout=timeout, use_shell=use_shell)
        last_sent: int | None = None
        for vector in vectors:
            started = time.perf_counter()
            result = _run_one(adapter, vector, capabilities)
            if result.status != "skip" and not result.unanswered:
                last_sent = len(outcome.results)
            outcome.results.append(replace(result, seconds=time.perf_counter() - started))
        adapter.stop()
        written = adapter.after_last_answer()
        if written is not None and last_sent is not None and (
                outcome.results[last_sent].status == "pass"):
            # What it wrote after its last answer is that answer now (spec/protocol.md §6).
            last = outcome.results[last_sent]
            outcome.results[last_sent] = replace(
                judge_vector(last.vector, written.broken, capabilities), seconds=last.seconds)
        return outcome
    finally:
        adapter.stop()


def _run_one(adapter: Any, vector: Vector, capabilities: Capabilities) -> VectorResult:
    reason = _skip_reason(vector, capabilities)
    if reason is not None:
        return VectorResult(vector, "skip", message=reason)
    exhausted = getattr(adapter, "exhausted", None)
    if callable(exhausted) and exhausted():
        return VectorResult(vector, "fail", message="not run: the implementation stopped "
                            "answering (restart limit reached)", unanswered=True)
    return judge_vector(vector, adapter.run(vector.op, vector.input), capabilities)


# =================================================================================================
# What a vector run reports: the console, the JSON document and JUnit XML
# =================================================================================================

#: The version of the vectors report's shape (schemas/vectors-report.json); bumped on any
#: incompatible change to it.
VECTORS_REPORT_VERSION = 1
#: Every outcome a vectors report gives a vector, in the order reports list them.
VECTOR_OUTCOMES: tuple[str, ...] = ("pass", "fail", "error", "should", "skip")


def outcome_of(result: VectorResult) -> str:
    """How reports name a vector's verdict: ``pass``; ``fail`` (a MUST rule broken by an
    answer); ``error`` (no answer the checks could judge: a crash, a hang, a broken protocol
    message, or not run once the implementation stopped answering); ``should`` (only a SHOULD
    rule broken: reported, does not decide conformance); ``skip``."""
    if result.status == "fail" and result.unanswered:
        return "error"
    return result.status


def totals(outcome: VectorOutcome) -> dict[str, int]:
    """How many vectors ended with each report outcome (zeros included)."""
    counts = dict.fromkeys(VECTOR_OUTCOMES, 0)
    for result in outcome.results:
        counts[outcome_of(result)] += 1
    return counts


def command(outcome: VectorOutcome, rule: str | None = None, *,
            impl_spec: str | None = None) -> str:
    """The ``eventproof vectors`` command that repeats the run (only ``rule``'s vectors when
    given), with every setting that shaped it."""
    spec = impl_spec if impl_spec is not None else outcome.impl_spec
    words = ["eventproof vectors",
             f"--impl {shlex.quote(spec) if spec else shlex.quote('<your implementation>')}"]
    if outcome.use_shell:
        words.append("--shell")
    if outcome.timeout != 10.0:
        words.append(f"--timeout {outcome.timeout:g}")
    prefix = rule if rule is not None else outcome.rule_prefix
    if prefix is not None:
        words.append(f"--rule {shlex.quote(prefix)}")
    return " ".join(words)


def _heading(result: VectorResult) -> tuple[str, str]:
    """The label a failing vector is shown under, and the rest of its first line."""
    vector = result.vector
    label = {"fail": "FAIL", "error": "ERROR", "should": "SHOULD"}[outcome_of(result)]
    return label, f"{vector.id}  rule {vector.rule} (spec/{vector.section.replace('#', ' §')})"


def explanation(result: VectorResult, rerun: str) -> list[str]:
    """What a failing vector is shown with, line by line: where it is, why it failed, the
    values and the command that reruns it (the console and the JUnit failure text)."""
    label, first = _heading(result)
    vector = result.vector
    return [
        f"{label} {first}",
        f"    {vector.description}",
        f"    {result.message}",
        f"    input:    {render_value(vector.input, 300)}",
        f"    expected: {render_value(vector.expected, 300)}",
        f"    actual:   {render_value(result.actual, 300)}",
        f"    file:     spec/vectors/{vector.file}",
        f"    rerun:    {rerun}",
    ]


def render(outcome: VectorOutcome, console: Console, *, impl_spec: str | None = None) -> None:
    """A block per failing vector, the counts per group and a summary line.

    Every line is printed whole (no wrapping at the console's width), so ``grep`` finds a
    vector's id, rule and rerun command each on one line in a pipe.
    """
    from rich.table import Table
    from rich.text import Text

    from ._console import print_table

    spec = impl_spec if impl_spec is not None else outcome.impl_spec
    name = outcome.implementation.get("name", "the implementation")
    styles = {"FAIL": "red", "ERROR": "red", "SHOULD": "yellow"}
    for result in outcome.results:
        if result.status not in ("fail", "should"):
            continue
        lines = explanation(result, command(outcome, result.vector.rule, impl_spec=spec))
        if spec is None:
            lines = lines[:-1]  # an object passed in code: no command names it
        label, first = _heading(result)
        heading = Text(label, style=styles[label])
        heading.append(" ")
        heading.append(first.split("  ", 1)[0], style="bold")
        heading.append("  " + first.split("  ", 1)[1])
        console.print(heading, soft_wrap=True)
        for line in lines[1:]:
            console.print(line, markup=False, highlight=False, soft_wrap=True)
    table = Table(title=Text(f"vectors for {name}"), title_justify="left")
    for column in ("group", "pass", "fail", "SHOULD", "skip"):
        table.add_column(column, justify="left" if column == "group" else "right")
    for group, counts in outcome.by_group().items():
        table.add_row(group, *(str(counts[s]) for s in ("pass", "fail", "should", "skip")))
    print_table(console, table)
    skipped = Counter(r.message for r in outcome.results if r.status == "skip")
    for reason, count in skipped.most_common():
        console.print(f"  skipped {count}: {reason}", markup=False, soft_wrap=True)
    unanswered = totals(outcome)["error"]
    errors = f" ({unanswered} unanswered)" if unanswered else ""
    console.print(Text.assemble(
        f"{len(outcome.results)} vectors: {outcome.count('pass')} passed, "
        f"{outcome.count('fail')} failed{errors}, {outcome.count('should')} broke only a "
        f"SHOULD rule, {outcome.count('skip')} skipped — ",
        ("conforms", "green") if outcome.conforms else ("does not conform", "red")),
        soft_wrap=True)


def _result_document(outcome: VectorOutcome, result: VectorResult,
                     impl_spec: str | None) -> dict[str, JSON]:
    vector = result.vector
    shown = outcome_of(result)
    document: dict[str, JSON] = {
        "file": vector.file, "id": vector.id, "description": vector.description,
        "op": vector.op, "rule": vector.rule, "level": RULES_BY_ID[vector.rule].level,
        "section": vector.section, "fitStrategy": vector.fit_strategy, "outcome": shown,
        "broken": list(result.broken), "message": result.message,
        "rerun": command(outcome, vector.rule, impl_spec=impl_spec),
    }
    if shown in ("fail", "error", "should"):
        document.update(input=vector.input, expected=vector.expected, actual=result.actual)
    return document


def vectors_document(outcome: VectorOutcome, *,
                     impl_spec: str | None = None) -> dict[str, JSON]:
    """The versioned JSON report of a vector run (``schemas/vectors-report.json``).

    It holds no time: the same implementation gives the same document, byte for byte, on every
    run (the vectors are fixed inputs).
    """
    from ._reports import _capabilities_document
    from ._versions import PROTOCOL_VERSION, SPEC_VERSION, SUITE_VERSION

    return {
        "vectorsReportVersion": VECTORS_REPORT_VERSION,
        "specVersion": str(SPEC_VERSION),
        "suiteVersion": SUITE_VERSION,
        "protocolVersion": PROTOCOL_VERSION,
        "implementation": dict(outcome.implementation),
        "capabilities": _capabilities_document(outcome.capabilities),
        "rulePrefix": outcome.rule_prefix,
        "totals": totals(outcome),
        "conforms": outcome.conforms,
        "rerun": command(outcome, impl_spec=impl_spec),
        "results": [_result_document(outcome, result, impl_spec) for result in outcome.results],
    }


def dumps_vectors_document(outcome: VectorOutcome, *, impl_spec: str | None = None) -> str:
    """:func:`vectors_document` as the text ``--json`` writes (strict JSON, one final newline)."""
    from ._json import dumps_json

    return dumps_json(vectors_document(outcome, impl_spec=impl_spec), indent=2) + "\n"


def vectors_junit(outcome: VectorOutcome, *,
                  impl_spec: str | None = None) -> ET.ElementTree[ET.Element]:
    """JUnit XML of a vector run (:mod:`._junit`): one ``<testsuite>`` per vector file, one
    ``<testcase>`` per vector; a failure's text is the explanation the console prints.
    ``time`` is in seconds (a vector's request and verdict; a suite's is the sum of its
    vectors')."""
    from . import _junit

    kinds: dict[str, _junit.Kind] = {"pass": "passed", "fail": "failure", "should": "failure",
                                     "error": "error", "skip": "skipped"}
    implementation = tuple((f"implementation.{key}", str(value))
                           for key, value in outcome.implementation.items()
                           if isinstance(value, str | int | float | bool))
    suites = []
    for name in dict.fromkeys(result.vector.file for result in outcome.results):
        suite_name = f"eventproof.vectors.{name.removesuffix('.json')}"
        cases = []
        for result in (result for result in outcome.results if result.vector.file == name):
            shown = outcome_of(result)
            case = _junit.Case(classname=suite_name, name=result.vector.id,
                               seconds=result.seconds, kind=kinds[shown])
            if shown not in ("pass", "skip"):
                text = "\n".join(explanation(result, command(outcome, result.vector.rule,
                                                             impl_spec=impl_spec)))
                kind = result.broken[0] if shown == "fail" and result.broken else shown
                case = replace(case, type=kind, text=text)
            if shown != "pass":
                case = replace(case, message=(result.message.splitlines()[0] if result.message
                                              else shown))
            cases.append(case)
        suites.append(_junit.Suite(suite_name, tuple(cases), properties=(
            *implementation, ("file", f"spec/vectors/{name}"))))
    return _junit.tree("eventproof vectors", suites,
                       seconds=sum(round(result.seconds, 3) for result in outcome.results),
                       properties=(("conforms", outcome.conforms),
                                   ("exit-code", outcome.exit_code)))


def write_vectors_junit(outcome: VectorOutcome, path: str | Path, *,
                        impl_spec: str | None = None) -> None:
    """Write :func:`vectors_junit` to ``path`` as UTF-8 XML (parent directories created)."""
    from . import _junit

    _junit.write(path, vectors_junit(outcome, impl_spec=impl_spec))


def write_vectors_json(outcome: VectorOutcome, path: str | Path, *,
                       impl_spec: str | None = None) -> None:
    """Write :func:`vectors_document` to ``path`` (UTF-8; parent directories created)."""
    from ._files import write_text

    write_text(path, dumps_vectors_document(outcome, impl_spec=impl_spec))


# =================================================================================================
# Checks of the vector sources (the maintainer command is python -m tools.vectors)
# =================================================================================================


def coverage_gaps(minimum: int = 2) -> list[str]:
    """Rule ids with fewer than ``minimum`` vector sources."""
    counts = Counter(source.rule for source in vector_sources())
    return [rule.id for rule in RULES if counts[rule.id] < minimum]
