"""Measure the suite's power: mutate the reference and count the mutants `eventproof run` kills.

Every mutant of the reference modules (selection, settle, wire, backstop, canonical, budget) is
checked as an implementation under test, with ``check_implementation(..., effort="quick",
deterministic=True)``, against the PRISTINE reference. A mutant is *killed* when the run does not
conform, *timeout* when the whole check overran its wall-clock limit, *survived* otherwise; a
surviving mutant listed in ``equivalent.txt`` (next to this file) is *equivalent*. The score is

    (killed + timeout) / (total - equivalent)

mutmut 3 generates the mutants (its libcst operators and trampolines); its own runner does not
fit, because it runs a test suite against one installed copy of the code: here the expected
answers must come from the pristine reference while the answers under test come from the
mutant. So the reference is copied into a package of its own, ``eventproof_mutants``, whose
modules are replaced by mutmut's trampolined sources; one parent process imports everything once
and forks a child per mutant, which selects its mutant (``MUTANT_UNDER_TEST``, as mutmut does)
and runs the check on ``eventproof_mutants.Reference``. Each child also runs the shipped vectors,
so the log says which survivors a vector already catches. Only the operations that can reach
the mutated module are checked (the import graph decides: selection and settle reach select,
fold and settle; wire, backstop and canonical reach classify and project; budget reaches
details, roster, lane and publish), and wire mutants are
checked with both fit strategies (maximal only when halving conforms).

    python -m tools.mutation.run_mutation                       # everything (nox -s mutation)
    python -m tools.mutation.run_mutation --jobs 2 --sample 10  # every 10th mutant, a dry run
    python -m tools.mutation.run_mutation --rerun survived      # only last run's survivors

Results go to ``--workdir`` (``results.json``, one record per mutant); the summary, the figures
and every unexplained survivor (with its diff) go to stdout. Exit 0 when every survivor is listed
in ``equivalent.txt``, 1 otherwise, 2 when the baseline is broken.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from eventproof.conformance._model import FIT_STRATEGIES

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
REFERENCE = ROOT / "reference"
EQUIVALENT_FILE = HERE / "equivalent.txt"
PACKAGE = "eventproof_mutants"
#: The modules whose functions are mutated.
MUTATED_MODULES = ("_selection", "_settle", "_wire", "_backstop", "_canonical", "_budget")
#: The module each operation enters the reference through (reference/_implementation.py);
#: tests/unit/test_mutation_table.py holds it in step with the operation table.
ENTRY_MODULE = {"select": "_selection", "fold": "_selection", "settle": "_settle",
                "classify": "_wire", "project": "_wire", "details": "_budget",
                "roster": "_budget", "lane": "_budget", "publish": "_budget"}
#: The modules whose answers depend on the fit strategy.
STRATEGY_MODULES = {"_wire", "_backstop", "_canonical"}
#: Status a forked child reports back.
KILLED, SURVIVED, TIMEOUT, ERROR = "killed", "survived", "timeout", "error"
#: The property run conforms but a shipped vector fails (a MUST-level disagreement); only a
#: SHOULD rule (canon.bytes) notices; not run: error text only, function never reached.
VECTORS, SHOULD, MESSAGE, UNREACHED = "vectors", "should", "message", "unreached"


# =================================================================================================
# Generating the mutants (mutmut 3)
# =================================================================================================


@dataclass(frozen=True)
class Mutant:
    """One mutant: where it is and what it changes."""

    #: ``<module>.<mutmut name>``, e.g. ``_backstop.x_halving_tail__mutmut_3``: stable while the
    #: function is unchanged; the key of ``equivalent.txt``.
    id: str
    module: str
    function: str
    #: Line in reference/<module>.py of the first changed line.
    line: int
    #: The changed lines, ``-old`` / ``+new``.
    diff: str
    #: ``message`` when the mutant only changes the text of an error, ``code`` otherwise.
    kind: str = "code"

    @property
    def env_name(self) -> str:
        """The value of ``MUTANT_UNDER_TEST`` that activates this mutant."""
        return f"{PACKAGE}.{self.id}"

    @property
    def location(self) -> str:
        """``reference/_backstop.py:132``."""
        return f"reference/{self.module}.py:{self.line}"


def _functions(tree: ast.Module) -> Iterator[tuple[str, ast.FunctionDef]]:
    """Every top-level function and method, with mutmut's mangled name (``x_f``, ``xǁCǁm``)."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            yield f"x_{node.name}", node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    yield f"xǁ{node.name}ǁ{item.name}", item


def _text(lines: Sequence[str], node: ast.FunctionDef, name: str) -> list[str]:
    """A function's source lines, its (mangled) name replaced by ``name`` so that copies compare."""
    assert node.end_lineno is not None
    text = list(lines[node.lineno - 1:node.end_lineno])
    text[0] = text[0].replace(f"def {node.name}(", f"def {name}(", 1)
    return text


def _describe(original: str, mutated: str, mutant_names: Sequence[str], module: str,
              known: dict[str, Signature]) -> list[Mutant]:
    """Every mutant of one module with the line it changes, a diff, and its kind."""
    original_by_name = dict(_functions(ast.parse(original)))
    mutated_lines = mutated.splitlines()
    defs: dict[str, ast.FunctionDef] = {}
    for node in ast.walk(ast.parse(mutated)):
        if isinstance(node, ast.FunctionDef):
            defs[node.name] = node
    out = []
    for name in mutant_names:
        base = name.rsplit("__mutmut_", 1)[0]
        orig_def, mut_def = defs.get(f"{base}__mutmut_orig"), defs.get(name)
        source_node = original_by_name.get(base)
        line, diff, kind = 0, "(diff unavailable)", "code"
        if orig_def is not None and mut_def is not None and source_node is not None:
            before = _text(mutated_lines, orig_def, "f")
            after = _text(mutated_lines, mut_def, "f")
            changed = [d for d in difflib.unified_diff(before, after, lineterm="", n=0)
                       if d[:1] in "+-" and not d.startswith(("+++", "---"))]
            first = next((i for i, (a, b) in enumerate(zip(before, after, strict=False))
                          if a != b), min(len(before), len(after)))
            line = source_node.lineno + first
            diff = "\n".join(_strip_marker(d) for d in changed) or "(no textual change)"
            if message_only(orig_def, mut_def, known):
                kind = "message"
        out.append(Mutant(id=f"{module}.{name}", module=module, function=base, line=line,
                          diff=diff, kind=kind))
    return out


# -- which mutants only change the text of an error ------------------------------------------------
#
# selection.md §6 and wire.md §7 demand an *errored* answer for an erroneous input; its message is
# free-form, and the suite compares errored-ness only. A mutant whose every change sits in the
# message of an InvalidInput (its arguments, or a value the reference passes on only to build
# one: parameters named path, what, reason and fix, variables and attributes named *path, base
# and at; leaving out such an argument when it has a default) cannot change any answer the spec
# constrains. Such mutants are counted as equivalent without being run; a sample of them is run
# anyway to hold the classification honest (--message-sample).

MESSAGE_PARAMETERS = frozenset({"path", "what", "reason", "fix"})
_PATH_VARIABLE = re.compile(r"(^|_)path$|^base$|^at$")


@dataclass(frozen=True)
class Signature:
    """What the classification needs to know of a reference function's parameters."""

    #: Positional parameter names, ``self`` dropped.
    positional: tuple[str, ...]
    #: Names of the parameters that have a default (leaving them out is no TypeError).
    defaulted: frozenset[str]


def signatures() -> dict[str, Signature]:
    """The signature of every reference function and method, by plain name."""
    out: dict[str, Signature] = {}
    for path in REFERENCE.glob("*.py"):
        for _, node in _functions(ast.parse(path.read_text("utf-8"))):
            arguments = node.args
            positional = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
            defaulted = set(positional[len(positional) - len(arguments.defaults):]) if \
                arguments.defaults else set()
            defaulted |= {a.arg for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults,
                                                 strict=True) if d is not None}
            if positional[:1] == ["self"]:
                positional = positional[1:]
            out[node.name] = Signature(tuple(positional), frozenset(defaulted))
    return out


Difference = tuple[list[Any], Any, Any]


def _differences(a: Any, b: Any, chain: list[Any]) -> Iterator[Difference]:
    """Every place ``a`` and ``b`` differ: the chain of (node, field) and index steps down to
    it, and the two values there."""
    if type(a) is not type(b):
        yield chain, a, b
    elif isinstance(a, ast.AST):
        for name in a._fields:
            yield from _differences(getattr(a, name), getattr(b, name), [*chain, (a, name)])
    elif isinstance(a, list):
        if len(a) != len(b):
            yield chain, a, b
        else:
            for index, (x, y) in enumerate(zip(a, b, strict=True)):
                yield from _differences(x, y, [*chain, index])
    elif a != b:
        yield chain, a, b


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(
        func, ast.Attribute) else ""


def _same(a: Sequence[ast.AST], b: Sequence[ast.AST]) -> bool:
    return [ast.dump(x) for x in a] == [ast.dump(y) for y in b]


def _dropped_message_arguments(call: ast.Call, field_name: str, before: list[Any],
                               after: list[Any], known: dict[str, Signature]) -> bool:
    """True when ``after`` is ``before`` minus arguments that only feed a message and have a
    default (so leaving them out changes the message, not the behaviour)."""
    signature = known.get(_callee(call))
    if signature is None:
        return False
    if field_name == "keywords":
        kept = {k.arg for k in after}
        dropped = [k for k in before if k.arg not in kept]
        rest = [k for k in before if k.arg in kept]
        names = {k.arg for k in dropped}
    else:
        if not _same(before[:len(after)], after):
            return False
        rest = after
        names = set(signature.positional[len(after):len(before)])
        if len(names) != len(before) - len(after):
            return False
    return (_same(rest, after) and bool(names) and names <= MESSAGE_PARAMETERS
            and names <= signature.defaulted)


def _in_message(difference: Difference, known: dict[str, Signature]) -> bool:
    chain, before, after = difference
    for position, step in enumerate(chain):
        if not isinstance(step, tuple):
            continue
        node, name = step
        following = chain[position + 1] if position + 1 < len(chain) else None
        if isinstance(node, ast.Call) and _callee(node) == "InvalidInput":
            return True
        if isinstance(node, ast.Call) and following is None and name in ("args", "keywords"):
            return _dropped_message_arguments(node, name, before, after, known)
        if isinstance(node, ast.Call) and isinstance(following, int):
            if name == "keywords" and node.keywords[following].arg in MESSAGE_PARAMETERS:
                return True
            params = known[_callee(node)].positional if _callee(node) in known else ()
            if name == "args" and following < len(params) and params[following] in \
                    MESSAGE_PARAMETERS:
                return True
        if isinstance(node, ast.Assign) and name == "value" and len(node.targets) == 1:
            target = node.targets[0]
            variable = target.id if isinstance(target, ast.Name) else target.attr if isinstance(
                target, ast.Attribute) else ""
            if _PATH_VARIABLE.search(variable):
                return True
        if isinstance(node, ast.arguments) and isinstance(following, int):
            if name == "kw_defaults" and node.kwonlyargs[following].arg in MESSAGE_PARAMETERS:
                return True
            if name == "defaults":
                positional = [*node.posonlyargs, *node.args]
                parameter = positional[len(positional) - len(node.defaults) + following]
                if parameter.arg in MESSAGE_PARAMETERS:
                    return True
    return False


def message_only(original: ast.FunctionDef, mutant: ast.FunctionDef,
                 known: dict[str, Signature]) -> bool:
    """True when every change of ``mutant`` sits in the text of an error (see above)."""
    if len(original.body) != len(mutant.body):
        return False
    differences = list(_differences(original.args, mutant.args, [(original, "args")]))
    for a, b in zip(original.body, mutant.body, strict=True):
        differences.extend(_differences(a, b, [(original, "body")]))
    return bool(differences) and all(_in_message(d, known) for d in differences)


def _strip_marker(line: str) -> str:
    return re.sub(r"\s*# type: ignore # mutmut generated$", "", line).rstrip()


def generate(workdir: Path) -> list[Mutant]:
    """Copy the reference into ``workdir/eventproof_mutants`` with every module mutated."""
    package = workdir / PACKAGE
    if package.exists():
        shutil.rmtree(package)
    package.mkdir(parents=True)
    for path in REFERENCE.glob("*.py"):
        shutil.copy(path, package / path.name)
    # mutmut reads its configuration from the current directory: give it one of its own.
    (workdir / "setup.cfg").write_text(f"[mutmut]\nsource_paths={PACKAGE}\n", "utf-8")
    previous = Path.cwd()
    os.chdir(workdir)
    try:
        from mutmut.mutation.file_mutation import mutate_file_contents

        mutants: list[Mutant] = []
        known = signatures()
        for module in MUTATED_MODULES:
            original = (REFERENCE / f"{module}.py").read_text("utf-8")
            result = mutate_file_contents(f"{PACKAGE}/{module}.py", original)
            (package / f"{module}.py").write_text(result.code, "utf-8")
            mutants.extend(_describe(original, result.code, result.mutant_names, module, known))
    finally:
        os.chdir(previous)
    return mutants


def reachable_ops() -> dict[str, set[str]]:
    """For each mutated module, the operations whose entry module imports it (transitively)."""
    imports: dict[str, set[str]] = {}
    for path in REFERENCE.glob("_*.py"):
        deps: set[str] = set()
        # Module-level imports only: _implementation dispatches to the operation's module
        # inside run(), which is not a dependency of the other operations.
        for node in ast.parse(path.read_text("utf-8")).body:
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:  # from ._x import y
                    deps.add(node.module)
                else:  # from . import _x, _y
                    deps.update(alias.name for alias in node.names)
        imports[path.stem] = deps
    closure: dict[str, set[str]] = {}
    for start in imports:
        seen, todo = {start}, [start]
        while todo:
            for dep in imports.get(todo.pop(), set()) - seen:
                seen.add(dep)
                todo.append(dep)
        closure[start] = seen
    return {module: {op for op, entry in ENTRY_MODULE.items() if module in closure[entry]}
            for module in MUTATED_MODULES}


# =================================================================================================
# Running one mutant (in a forked child)
# =================================================================================================


@dataclass
class Result:
    """What one mutant did."""

    id: str
    #: killed | should | timeout | survived | error | message | unreached
    status: str
    seconds: float = 0.0
    #: Rules the property run found broken.
    rules: list[str] = field(default_factory=list)
    #: What the shipped vectors say: ``must`` (one fails), ``should`` (bytes differ only),
    #: ``none``; None when they were not run (the property run had killed it).
    vectors_kill: str | None = None
    #: The evidence: the counterexample that killed it, or why it was not run.
    note: str = ""


class _MustFailed(Exception):
    """A MUST rule failed: the run is non-conforming whatever the rest of it finds."""

    def __init__(self, rule: str, outcome: str) -> None:
        super().__init__(rule, outcome)
        self.rule, self.outcome = rule, outcome


def _stop_at_first_must_failure(event: Any) -> None:
    """The check's listener: it ends the check at the first MUST rule broken."""
    from eventproof.conformance._operations import RULES_BY_ID
    from eventproof.conformance._progress import RuleBroken

    if not isinstance(event, RuleBroken):
        return
    rule = RULES_BY_ID.get(event.rule)
    if rule is not None and rule.level == "MUST" and event.outcome in {"fail", "error", "crash",
                                                                        "timeout"}:
        raise _MustFailed(event.rule, event.outcome)


def _check(module: Any, ops: Sequence[str], fits: Sequence[str], request_timeout: float,
           run_vectors: bool) -> dict[str, Any]:
    from eventproof.conformance import check_implementation
    from eventproof.conformance._vectors import run_vectors as vectors

    status, rules, note = SURVIVED, set(), ""
    for fit in fits:
        try:
            report = check_implementation(module.Reference(fit), ops=ops, effort="quick",
                                          deterministic=True, timeout=request_timeout,
                                          on_event=_stop_at_first_must_failure)
        except _MustFailed as found:
            # The run cannot conform any more; searching on would only find more broken rules.
            status, note = KILLED, f"{fit}: {found.rule} {found.outcome}"
            rules.add(found.rule)
            break
        failing = [r for r in report.results if r.outcome in {"fail", "error", "crash", "timeout"}]
        if not failing:
            continue
        rules |= {r.rule.id for r in failing}
        example = next((r.counterexample for r in failing if r.counterexample), None)
        evidence = "" if example is None else (
            f": {example.message[:240]} on {json.dumps(example.input)[:240]}")
        if not report.conforms:
            status, note = KILLED, f"{fit}{evidence}"
            break
        # Only SHOULD rules failed (canon.bytes): detected, but the run still conforms.
        status, note = SHOULD, f"{fit}{evidence}"
    # The shipped vectors are the suite's other half: run them unless the property run killed.
    verdict: str | None = None
    if run_vectors and status != KILLED:
        verdict = "none"
        for fit in fits:
            outcome = vectors(module.Reference(fit), timeout=request_timeout)
            failed = [r for r in outcome.results if r.vector.op in ops and r.status == "fail"]
            if failed:
                verdict = "must"
                if status != KILLED:
                    status, note = VECTORS, f"{fit}: vector {failed[0].vector.id}"
                break
            if any(r.vector.op in ops and r.status == "bytes" for r in outcome.results):
                verdict = "should"
        if verdict == "should" and status == SURVIVED:
            status = SHOULD
    return {"status": status, "rules": sorted(rules), "vectors_kill": verdict, "note": note}


def _child(env_name: str, ops: Sequence[str], fits: Sequence[str], request_timeout: float,
           run_vectors: bool, out: Path, trace: bool = False) -> None:
    """Body of a forked child: activate one mutant, check it, write the verdict, exit."""
    code = 0
    reached: set[str] = set()
    try:
        from mutmut.mutation.trampoline import set_mutant_under_test

        set_mutant_under_test(env_name)
        if trace:
            # Which original functions run at all: a mutant of one that never runs survives
            # whatever the suite does, so it is not worth a run (it needs an explanation).
            def profile(frame: Any, event: str, arg: Any) -> None:
                if event == "call" and frame.f_code.co_name.endswith("__mutmut_orig"):
                    reached.add(f"{frame.f_globals['__name__']}.{frame.f_code.co_name}")

            sys.setprofile(profile)
        module = sys.modules[PACKAGE]
        verdict = _check(module, ops, fits, request_timeout, run_vectors)
        sys.setprofile(None)
        verdict["reached"] = sorted(reached)
    except BaseException as error:
        verdict = {"status": ERROR, "note": f"{type(error).__name__}: {error}"[:500]}
        code = 1
    out.write_text(json.dumps(verdict), "utf-8")
    os._exit(code)


@dataclass
class _Running:
    mutant: Mutant
    pid: int
    started: float
    out: Path


def run_all(
    mutants: Sequence[Mutant], *, jobs: int, wall_limit: float, request_timeout: float,
    run_vectors: bool, workdir: Path, ops_of: dict[str, set[str]],
    on_result: Callable[[Mutant, Result], None],
) -> list[Result]:
    """Check every mutant in forked children, ``jobs`` at a time."""
    results: list[Result] = []
    queue = list(mutants)
    running: list[_Running] = []
    scratch = Path(tempfile.mkdtemp(prefix="verdicts-", dir=workdir))
    counter = 0
    while queue or running:
        while queue and len(running) < jobs:
            mutant = queue.pop(0)
            counter += 1
            out = scratch / f"{counter}.json"
            fits = FIT_STRATEGIES if mutant.module in STRATEGY_MODULES else FIT_STRATEGIES[:1]
            ops = sorted(ops_of[mutant.module])
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child
                _child(mutant.env_name, ops, fits, request_timeout, run_vectors, out)
            running.append(_Running(mutant, pid, time.monotonic(), out))
        time.sleep(0.02)
        for job in list(running):
            done, wait_status = os.waitpid(job.pid, os.WNOHANG)
            elapsed = time.monotonic() - job.started
            if done == 0 and elapsed <= wall_limit:
                continue
            if done == 0:
                os.kill(job.pid, signal.SIGKILL)
                os.waitpid(job.pid, 0)
                result = Result(job.mutant.id, TIMEOUT, elapsed,
                                note=f"no verdict within {wall_limit:g} s")
            elif job.out.exists():
                verdict = json.loads(job.out.read_text("utf-8"))
                result = Result(job.mutant.id, verdict["status"], elapsed,
                                verdict.get("rules", []), verdict.get("vectors_kill"),
                                verdict.get("note", ""))
            else:
                # The check process died without a verdict: the mutant took the process down.
                result = Result(job.mutant.id, KILLED, elapsed,
                                note=f"the check process died (wait status {wait_status})")
            running.remove(job)
            results.append(result)
            on_result(job.mutant, result)
    shutil.rmtree(scratch, ignore_errors=True)
    return results


def baseline(request_timeout: float, workdir: Path) -> tuple[list[str], set[str]]:
    """Problems with the setup, and the original functions the unmutated checks reach.

    The unmutated copy must conform with both strategies (it is traced to learn which functions
    run at all); mutmut's ``fail`` mode (every trampoline raises) must not.
    """
    problems: list[str] = []
    reached: set[str] = set()
    everything = sorted(ENTRY_MODULE)
    for env_name, want in (("", True), ("fail", False)):
        out = workdir / f"baseline-{env_name or 'pristine'}.json"
        out.unlink(missing_ok=True)
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            _child(env_name, everything, FIT_STRATEGIES, request_timeout, True, out,
                   trace=not env_name)
        os.waitpid(pid, 0)
        verdict = json.loads(out.read_text("utf-8")) if out.exists() else {"status": ERROR}
        if not env_name:
            reached = set(verdict.get("reached", []))
        conforms = verdict["status"] == SURVIVED
        if conforms != want:
            what = "the unmutated copy" if want else "mutmut's always-failing mode"
            shown = {k: v for k, v in verdict.items() if k != "reached"}
            problems.append(f"baseline: {what} gave {shown} (expected "
                            f"{'conforming' if want else 'not conforming'})")
    return problems, reached


# =================================================================================================
# equivalent.txt and the report
# =================================================================================================


def load_equivalent(path: Path = EQUIVALENT_FILE) -> dict[str, str]:
    """``{key: reason}`` from equivalent.txt: ``<mutant or function id>  <why>`` per line.

    A key is a mutant id (``_backstop.x_tail_of__mutmut_1``) or a function id
    (``_backstop.x_maximal_tail_clear``: every mutant of that function); ``#`` starts a comment.
    """
    entries: dict[str, str] = {}
    if not path.exists():
        return entries
    for number, raw in enumerate(path.read_text("utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, _, reason = line.partition(" ")
        if not reason.strip():
            raise SystemExit(f"{path}:{number}: {key!r} has no reason; write '<mutant id>  "
                             "<why it is equivalent>'")
        entries[key] = reason.strip()
    return entries


def explained_by(mutant: Mutant, equivalent: dict[str, str]) -> str | None:
    """The equivalent.txt key that explains ``mutant``, if any."""
    function_id = f"{mutant.module}.{mutant.function}"
    if mutant.id in equivalent:
        return mutant.id
    if function_id in equivalent:
        return function_id
    return None


DETECTED = (KILLED, VECTORS, TIMEOUT)


def summarize(mutants: Sequence[Mutant], results: Sequence[Result], equivalent: dict[str, str],
              seconds: float) -> tuple[str, list[Mutant]]:
    """The summary text, and the survivors equivalent.txt does not explain."""
    by_id = {m.id: m for m in mutants}
    counts: Counter[str] = Counter()
    unexplained: list[Mutant] = []
    excused: set[str] = set()
    for result in results:
        mutant = by_id[result.id]
        key = explained_by(mutant, equivalent)
        if result.status == MESSAGE:
            counts["equivalent"] += 1
            counts["equivalent (error text)"] += 1
            excused.add(result.id)
        elif result.status in (SURVIVED, UNREACHED) and key is not None:
            counts["equivalent"] += 1
            counts["equivalent (listed)"] += 1
            excused.add(result.id)
        else:
            counts[result.status] += 1
            if result.status in (SURVIVED, UNREACHED, ERROR):
                unexplained.append(mutant)
    total = len(results)
    by_run = counts[KILLED] + counts[TIMEOUT]
    detected = by_run + counts[VECTORS]
    denominator = total - counts["equivalent"]
    with_should = detected + counts[SHOULD]

    def pct(a: int, b: int) -> str:
        return f"{100.0 * a / b:.1f}%" if b else "n/a"

    per_module = Counter(by_id[r.id].module for r in results if r.id not in excused)
    detected_per_module = Counter(by_id[r.id].module for r in results if r.status in DETECTED)
    lines = [
        f"mutants: {total}  killed by `eventproof run`: {counts[KILLED]}  killed by the "
        f"vectors only: {counts[VECTORS]}  timeout: {counts[TIMEOUT]}  survived: "
        f"{counts[SURVIVED] + counts[UNREACHED]} (never reached: {counts[UNREACHED]})  "
        f"noticed by a SHOULD rule only: {counts[SHOULD]}  equivalent: {counts['equivalent']} "
        f"(error text {counts['equivalent (error text)']}, listed in equivalent.txt "
        f"{counts['equivalent (listed)']})  "
        f"error: {counts[ERROR]}",
        f"mutation score: {pct(detected, denominator)} = (killed + killed by vectors + timeout)"
        f" / (mutants - equivalent) = {detected}/{denominator}",
        f"`eventproof run` alone (quick profile): {pct(by_run, denominator)} = "
        f"{by_run}/{denominator}",
        f"counting SHOULD-only detections too: {pct(with_should, denominator)} = "
        f"{with_should}/{denominator}",
        f"wall time: {seconds / 60:.1f} min",
        "per module (detected / not equivalent): " + ", ".join(
            f"{m} {detected_per_module[m]}/{per_module[m]}" for m in MUTATED_MODULES
            if per_module[m]),
    ]
    stale = sorted(r.id for r in results if r.id in equivalent and r.status in DETECTED)
    if stale:
        lines.append("equivalent.txt lists mutants that are killed now (remove them): "
                     + ", ".join(stale))
    functions = {f"{m.module}.{m.function}" for m in mutants}
    unknown = sorted(k for k in equivalent if k not in by_id and k not in functions)
    if unknown:
        lines.append("equivalent.txt lists ids that no longer exist (the function changed): "
                     + ", ".join(unknown))
    return "\n".join(lines), unexplained


def _print_survivor(mutant: Mutant, result: Result | None) -> None:
    vectors = "" if result is None or result.vectors_kill is None else (
        f"  [vectors: {result.vectors_kill}]")
    status = result.status.upper() if result else "SURVIVED"
    print(f"{status} {mutant.id}  {mutant.location}{vectors}")
    for line in mutant.diff.splitlines():
        print(f"    {line}")


# =================================================================================================
# main
# =================================================================================================


def main(argv: Sequence[str] | None = None) -> int:
    """Generate, check and count the mutants; see the module docstring."""
    parser = argparse.ArgumentParser(prog="run_mutation.py",
                                     description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2,
                        help="checks run at once (default: the number of CPUs)")
    parser.add_argument("--wall-limit", type=float, default=120.0,
                        help="seconds one mutant's whole check may take (then: timeout)")
    parser.add_argument("--request-timeout", type=float, default=10.0,
                        help="seconds one request may take inside the check")
    parser.add_argument("--workdir", type=Path,
                        default=Path(tempfile.gettempdir()) / "eventproof-mutation")
    parser.add_argument("--sample", type=int, default=1, help="check every N-th mutant only")
    parser.add_argument("--message-sample", type=int, default=20,
                        help="run every N-th error-text mutant anyway, to test that they "
                             "survive (0: none)")
    parser.add_argument("--only", default=None,
                        help="check only mutants whose id contains this text (e.g. _backstop.)")
    parser.add_argument("--rerun", choices=["survived", "all"], default="all",
                        help="'survived': only the mutants that survived in the last results")
    parser.add_argument("--no-vectors", action="store_true",
                        help="do not also run the shipped vectors on each mutant")
    args = parser.parse_args(argv)

    started = time.monotonic()
    args.workdir.mkdir(parents=True, exist_ok=True)
    results_path = args.workdir / "results.json"
    previous: dict[str, dict[str, Any]] = {}
    if results_path.exists():
        previous = {r["id"]: r for r in json.loads(results_path.read_text("utf-8"))}

    mutants = generate(args.workdir)
    ops_of = reachable_ops()
    selected = [m for m in mutants if args.only is None or args.only in m.id][:: args.sample]
    if args.rerun == "survived":
        selected = [m for m in selected
                    if previous.get(m.id, {}).get("status") in (SURVIVED, VECTORS, SHOULD,
                                                                ERROR)]

    # Import once in the parent: every forked child starts warm.
    sys.path.insert(0, str(args.workdir))
    import eventproof.conformance._engine
    import eventproof.conformance._vectors  # noqa: F401 - warm the parent before forking
    from eventproof.conformance import OPERATIONS

    # The mutants are of the Python code: the compiled plain-tree walks (reference/_speedups.c)
    # would answer in place of the mutated Python walks. Set before the mutated copy is imported
    # (the forked children inherit it); never at import, which tests do.
    os.environ["EVENTPROOF_NO_EXTENSIONS"] = "1"
    __import__(PACKAGE)
    missing = {op.name for op in OPERATIONS} - set(ENTRY_MODULE)
    if missing:  # an operation added to the table without its entry module here
        print(f"ENTRY_MODULE names no reference module for {sorted(missing)}", file=sys.stderr)
        return 2

    problems, reached = baseline(args.request_timeout, args.workdir)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 2
    print(f"baseline ok ({time.monotonic() - started:.0f} s): the unmutated copy conforms, "
          f"mutmut's fail mode does not; {len(reached)} functions reached", flush=True)

    not_run: list[Result] = []
    to_run: list[Mutant] = []
    messages = [m for m in selected if m.kind == "message"]
    sampled = set(m.id for m in messages[:: args.message_sample]) if args.message_sample else set()
    for mutant in selected:
        orig = f"{PACKAGE}.{mutant.module}.{mutant.function}__mutmut_orig"
        if orig not in reached:
            not_run.append(Result(mutant.id, UNREACHED, note="its function never runs during "
                                  "the unmutated check"))
        elif mutant.kind == "message" and mutant.id not in sampled:
            not_run.append(Result(mutant.id, MESSAGE, note="changes only the text of an error"))
        else:
            to_run.append(mutant)
    print(f"{len(mutants)} mutants generated by mutmut; {len(selected)} selected: running "
          f"{len(to_run)} ({len(sampled)} error-text mutants as a sample) with {args.jobs} "
          f"job(s); not run: {sum(r.status == MESSAGE for r in not_run)} error-text, "
          f"{sum(r.status == UNREACHED for r in not_run)} in functions never reached. "
          "Operations per module: "
          + ", ".join(f"{m} {','.join(sorted(ops))}" for m, ops in ops_of.items()), flush=True)

    done = [0]

    def on_result(mutant: Mutant, result: Result) -> None:
        done[0] += 1
        extra = f" [{','.join(result.rules)}]" if result.rules else ""
        print(f"[{done[0]}/{len(to_run)}] {result.status:8} {result.seconds:5.1f}s "
              f"{mutant.id}{extra} {result.note}", flush=True)

    results = run_all(to_run, jobs=args.jobs, wall_limit=args.wall_limit,
                      request_timeout=args.request_timeout, run_vectors=not args.no_vectors,
                      workdir=args.workdir, ops_of=ops_of, on_result=on_result)
    misclassified = [r for r in results if r.id in sampled and r.status in DETECTED]
    for result in results:
        if result.id in sampled and result.status == SURVIVED:
            result.status = MESSAGE  # the sample confirmed it: counted like the others
    merged = {**previous, **{r.id: asdict(r) for r in [*not_run, *results]}}
    ids = {m.id for m in mutants}
    merged = {k: v for k, v in merged.items() if k in ids}
    results_path.write_text(json.dumps(list(merged.values()), indent=1), "utf-8")

    equivalent = load_equivalent()
    all_results = [Result(**r) for r in merged.values()]
    summary, unexplained = summarize(mutants, all_results, equivalent,
                                     time.monotonic() - started)
    by_result = {r.id: r for r in all_results}
    for mutant in unexplained:
        _print_survivor(mutant, by_result.get(mutant.id))
    for result in misclassified:
        print(f"MISCLASSIFIED {result.id}: counted as error text, but the check kills it "
              f"({result.note}); fix message_only() in this file")
    print(summary)
    print(f"results: {results_path}")
    return 0 if not unexplained and not misclassified else 1


if __name__ == "__main__":
    sys.exit(main())
