"""eventproof as a pytest plugin: one test item per rule, one engine run behind them.

Installed with eventproof (the ``pytest11`` entry point ``eventproof``; with plugin autoloading
off, ``-p eventproof``). Without ``--eventproof-impl`` it does nothing at all; with it, the session
gets one item per rule, with node ids like ``eventproof::select::select.last-message``::

    pytest --eventproof-impl 'node adapter.js' -k eventproof --junitxml report.xml

The engine (:func:`eventproof.conformance.check_implementation`, the same one ``eventproof run``
uses) runs once per process, lazily, when the first eventproof item runs, and only for the
operations whose items are still selected after ``-k``/``-m`` deselection. Each item then reports
its rule's result: a pass passes; a failure, error, crash or timeout fails with the full
explanation (rule, spec section, minimal input, expected, actual, diff, seed, replay command) as
its failure text, so ``--junitxml``, ``-x`` and ``--lf`` work as usual; a skip skips with its
reason; an expected failure (``--eventproof-expect FILE``) is an xfail; a listed rule that passes
now (a stale expectation) fails. A broken SHOULD rule is reported as an xfail naming the rule: it
is visible in the summary but, as with ``eventproof run``, does not decide conformance, so the
pytest exit status agrees with the CLI's verdict.

pytest-xdist: items are distributed across workers, and each worker runs the engine once for
itself (the result lives in that process's config). With ``--eventproof-impl`` the work is
therefore repeated per worker; run with ``-p no:xdist`` (or ``-n 0``) to check the implementation
once. A derandomized run (the default) gives every worker the same verdict.

Failure case files are written under ``<rootdir>/.eventproof/failures/`` as ``eventproof run``
writes them, so every failure text ends with the ``eventproof replay`` command that re-runs it.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ._engine import RunReport
    from ._model import Rule

__all__ = ["EventproofCollector", "OperationCollector", "RuleItem"]


@dataclass
class _Run:
    """The options of this session and, once computed, the verdict (one per process)."""

    impl: str
    budget: str
    seed: int | None
    timeout: float
    use_shell: bool
    expectations: dict[str, str]
    failures_directory: Path
    report: RunReport | None = None
    replay_files: dict[str, Path] = field(default_factory=dict)
    #: Set when the harness could not check the implementation at all (exit code 2 in the CLI).
    problem: str | None = None

    def ensure(self, session: pytest.Session) -> None:
        """Run the engine once, for the operations of the eventproof items still selected."""
        if self.report is not None or self.problem is not None:
            return
        from ._engine import apply_expectations, check_implementation
        from ._errors import HarnessError, ProtocolError, UsageError
        from ._replay import save_failures

        ops = sorted({item.rule.op for item in session.items if isinstance(item, RuleItem)})
        try:
            report = check_implementation(
                self.impl, ops=ops, budget=self.budget, seed=self.seed,
                deterministic=self.seed is None, timeout=self.timeout, use_shell=self.use_shell,
            )
        except (UsageError, HarnessError, ProtocolError) as error:
            self.problem = str(error)
            return
        self.report = apply_expectations(report, self.expectations)
        try:
            self.replay_files = save_failures(self.report, self.failures_directory)
        except OSError:
            self.replay_files = {}  # a read-only checkout still gets its verdict


_RUN = pytest.StashKey[_Run]()


class RuleBroken(Exception):
    """An eventproof rule's verdict is a failure; the message is the whole explanation."""


class EventproofCollector(pytest.Collector):
    """The root of the eventproof items: one :class:`OperationCollector` per operation."""

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        from ._operations import OPS

        return [OperationCollector.from_parent(self, name=op) for op in OPS]


class OperationCollector(pytest.Collector):
    """The rules of one operation, in the order the spec states them."""

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        from ._operations import rules_for

        return [RuleItem.from_parent(self, name=rule.id, rule=rule)
                for rule in rules_for(self.name)]


class RuleItem(pytest.Item):
    """One rule of the spec, judged by the session's single engine run."""

    def __init__(self, *, rule: Rule, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rule = rule
        self.add_marker(pytest.mark.eventproof)

    def runtest(self) -> None:
        from ._reports import failure_text

        run = self.config.stash[_RUN]
        run.ensure(self.session)
        if run.problem is not None:
            raise RuleBroken(f"eventproof could not check the implementation: {run.problem}")
        assert run.report is not None
        try:
            result = run.report.result_for(self.rule.id)
        except KeyError:
            pytest.skip(f"{self.rule.id} was not checked in this run")
        outcome = result.outcome
        if outcome == "pass":
            return
        if outcome == "skip":
            pytest.skip(result.note or "the implementation skipped it")
        if outcome == "xfail":
            pytest.xfail(result.note or "listed in the expectations file")
        text = failure_text(result, replay_file=run.replay_files.get(self.rule.id),
                            invocation=run.report.invocation,
                            impl_spec=run.impl)
        if self.rule.level == "SHOULD" and outcome != "xpass":
            first = text.splitlines()[1] if len(text.splitlines()) > 1 else text
            pytest.xfail(f"SHOULD rule broken (does not decide conformance): {first}")
        raise RuleBroken(text)

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str:
        if isinstance(excinfo.value, RuleBroken):
            return str(excinfo.value)  # the explanation, not a traceback of the harness
        return str(super().repr_failure(excinfo, style=style))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"eventproof rule {self.rule.id} ({self.rule.section})"


# -- hooks -------------------------------------------------------------------------------------

def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("eventproof", "eventproof conformance checks")
    group.addoption(
        "--eventproof-impl", metavar="SPEC", default=None,
        help="Check this implementation: 'python:MODULE:ATTR' (in process) or a command line "
             "speaking spec/protocol.md. Adds one test item per rule.")
    group.addoption(
        "--eventproof-budget", choices=("quick", "default", "thorough"), default="default",
        help="Example budget per operation search (default: %(default)s).")
    group.addoption(
        "--eventproof-seed", type=int, default=None, metavar="N",
        help="Search randomly from this seed; without it the search is derandomized (the CI "
             "mode).")
    group.addoption(
        "--eventproof-expect", metavar="FILE", default=None,
        help="Expected-failures file: '<rule-id> [<failure kind>]' per line.")
    group.addoption(
        "--eventproof-timeout", type=float, default=10.0, metavar="SECONDS",
        help="Seconds one request may take before the implementation is restarted "
             "(default: %(default)s).")
    group.addoption(
        "--eventproof-shell", action="store_true", default=False,
        help="Start --eventproof-impl through the shell.")


def pytest_configure(config: pytest.Config) -> None:
    impl = config.getoption("eventproof_impl")
    if impl is None:
        return
    config.addinivalue_line("markers", "eventproof: an eventproof conformance rule")
    if config.getoption("eventproof_timeout") <= 0:
        raise pytest.UsageError(
            f"--eventproof-timeout {config.getoption('eventproof_timeout')}: must be a positive "
            "number of seconds, e.g. --eventproof-timeout 10")
    expectations: dict[str, str] = {}
    expect = config.getoption("eventproof_expect")
    if expect is not None:
        from ._errors import ExpectationsError
        from ._expectations import load_expectations

        try:
            expectations = load_expectations(expect)
        except ExpectationsError as error:
            raise pytest.UsageError(str(error)) from None
    config.stash[_RUN] = _Run(
        impl=impl, budget=config.getoption("eventproof_budget"),
        seed=config.getoption("eventproof_seed"), timeout=config.getoption("eventproof_timeout"),
        use_shell=config.getoption("eventproof_shell"), expectations=expectations,
        failures_directory=config.rootpath / ".eventproof" / "failures",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    # tryfirst: the items exist before -k and -m deselect, so both select rules as usual.
    if _RUN not in config.stash:
        return
    # An explicit node id: the root is "eventproof", not a child of the session's path, so items
    # read eventproof::<op>::<rule id> (and JUnit classnames eventproof.<op>).
    root = EventproofCollector.from_parent(session, name="eventproof", nodeid="eventproof")
    for operation in root.collect():
        assert isinstance(operation, OperationCollector)
        rules = [item for item in operation.collect() if isinstance(item, pytest.Item)]
        # Report the collection as pytest's own collectors do, so "collected N items" counts them.
        config.hook.pytest_collectreport(report=pytest.CollectReport(
            operation.nodeid, "passed", None, list(rules)))
        items.extend(rules)


def pytest_report_header(config: pytest.Config) -> str | None:
    run = config.stash.get(_RUN, None)
    if run is None:
        return None
    how = "derandomized" if run.seed is None else f"seed {run.seed}"
    return (f"eventproof: checking {shlex.quote(run.impl)} (budget {run.budget}, {how}, "
            f"timeout {run.timeout:g} s)")


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    run = config.stash.get(_RUN, None)
    if run is None or (run.report is None and run.problem is None):
        return  # nothing ran in this process (e.g. the xdist controller)
    terminalreporter.write_sep("-", "eventproof")
    if run.problem is not None:
        terminalreporter.write_line(f"eventproof: could not check the implementation: "
                                    f"{run.problem}", red=True)
        return
    assert run.report is not None
    name = run.report.implementation.get("name", run.impl)
    verdict = "conforms" if run.report.conforms else "does not conform"
    terminalreporter.write_line(f"eventproof: {name} {verdict}", bold=True,
                                green=run.report.conforms, red=not run.report.conforms)
