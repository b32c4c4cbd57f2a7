"""eventproof as a pytest plugin: one test item per rule, one engine run per operation.

Installed with eventproof (the ``pytest11`` entry point ``eventproof``; with plugin autoloading
off, ``-p eventproof``). Every option can be set in the project's pytest configuration instead
(``eventproof_impl``, ``eventproof_effort``, ``eventproof_seed``, ``eventproof_expect``,
``eventproof_timeout``, ``eventproof_shell`` in pytest.ini's ``[pytest]`` or pyproject.toml's
``[tool.pytest.ini_options]``; the command line wins). With no implementation configured it does
nothing at all (an ``eventproof::…`` node id is then a usage error that says how to configure
one); with one, the session gets one item per rule, with node ids like
``eventproof::select::select.last-message``::

    pytest --eventproof-impl 'node my-port/eventproof-port.mjs' -k eventproof --junitxml report.xml

Selecting rules: ``-k``, ``-m``, ``--deselect`` and ``--lf`` work as usual, and a node id as
pytest prints it can be passed back as an argument to run exactly that item::

    pytest --eventproof-impl 'node my-port/eventproof-port.mjs' \
        'eventproof::select::select.last-message'

``eventproof`` names every rule, ``eventproof::<op>`` one operation's rules and
``eventproof::<op>::<rule id>`` one rule; the ``../eventproof::…`` form pytest prints when it runs
in a subdirectory of its rootdir, and the ``…@<op>`` suffix ``--dist loadgroup`` adds on older
pytest versions, are read too. These arguments name no file: when the plugin is configured, it
takes them out of the arguments pytest will resolve as paths (so they need ``--eventproof-impl``)
and keeps only the items they name. An unknown operation or rule is a usage error naming the
closest one. Other arguments collect as usual beside them; a file or directory in the current
directory that really is called ``eventproof`` keeps its own meaning.

The engine (:func:`eventproof.conformance.check_implementation`, the same one ``eventproof run``
uses) runs lazily, once per operation and process: the first item of an operation checks that
operation alone, and its other items read the same verdict. Operations no selected item belongs
to are never searched. The whole run is bounded as ``eventproof run``'s default ``--max-time``
bounds it; what the bound cuts off is ``untested``. Each item reports its rule's result: a pass
passes; a failure, error, crash or timeout fails with the full explanation (rule, spec section,
minimal input, expected, actual, diff, seed, replay command) as its failure text, so
``--junitxml``, ``-x`` and ``--lf`` work as usual; a skip skips with its reason; an expected
failure (``--eventproof-expect FILE``) is an xfail; a listed rule that passes now (a stale
expectation) fails. A broken SHOULD rule is reported as an xfail naming the rule: it is visible in
the summary but, as with ``eventproof run``, does not decide conformance, so the pytest exit
status agrees with the CLI's verdict.

Reports name the rule, not this module: an item's location is ``eventproof`` and its heading
``<rule id> (<level>, spec/<file> §<section>)``, and a skip reads
``SKIPPED [1] eventproof::fold::fold.shape: spec/selection.md §4.1: <reason>``. Each item's report
carries what the verdict is judged from as user properties (``eventproof.rule``, ``.operation``,
``.level``, ``.section``, ``.profile``, ``.outcome``, ``.judged``, ``.cause``, ``.declared``,
``.allowUntested``, ``.ending``, ``.implementation``, or ``.problem`` when the implementation
could not be checked); ``--junitxml`` writes them as ``<property>`` elements, and the conformance
summary at the end of the terminal report (``eventproof: <name> conforms``, the verdict line and
the count of each outcome) is judged from them by the same function as ``eventproof run``'s
verdict. A session whose items all passed but whose rules make no conforming run (no rule
judged, say) exits 1.

pytest-xdist: every item is marked ``xdist_group(<op>)``. When ``-n``/``--tx`` distributes the
tests with no ``--dist`` mode chosen, or with ``--dist loadgroup``, the plugin's scheduler
(``pytest_xdist_make_scheduler``) sends all the rules of one operation to one worker and
schedules every other test as loadgroup does, so each operation is checked once in the session,
by the worker that runs its rules. (It groups by node id: pytest-xdist's own loadgroup rides on a
node id suffix that pytest 9.2 no longer lets it write.) ``--dist loadscope`` and ``loadfile``
keep an operation on one worker too; ``--dist load`` and ``worksteal`` split operations across
workers, each of which checks them again, and the plugin warns. The workers' reports carry their
properties to the controller, so the summary is the one of a run without xdist, and a
derandomized run (the default) gives the same verdicts either way.

Failure case files are written under ``<rootdir>/.eventproof/failures/`` as ``eventproof run``
writes them, so every failure text ends with the ``eventproof replay`` command that re-runs it.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import shlex
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest

if TYPE_CHECKING:
    from collections.abc import Generator

    from ._model import Rule
    from ._results import RuleResult, RunReport, RunVerdict
    from ._settings import Face

__all__ = ["EventproofCollector", "OperationCollector", "RuleItem"]

#: The first part of every node id of the plugin (a name, not a path).
ROOT = "eventproof"
#: The prefix of the user properties an item's report carries.
PROPERTY = "eventproof."


@dataclass
class _Run:
    """The options of this session and, once computed, the verdict of each operation (one per
    process)."""

    impl: str
    effort: str
    seed: int | None
    timeout: float
    use_shell: bool
    expectations: dict[str, str]
    failures_directory: Path
    #: The items the session's eventproof arguments name, as (operation, rule id or None); None
    #: when there are none (every rule is an item).
    selection: frozenset[tuple[str, str | None]] | None = None
    reports: dict[str, RunReport] = field(default_factory=dict)
    replay_files: dict[str, Path] = field(default_factory=dict)
    #: Set when the harness could not use the implementation at all (exit code 2 in the CLI):
    #: every operation's items fail with it, and no operation is tried again.
    problem: str | None = None
    #: Set per operation when the harness could not judge that operation's search.
    op_problems: dict[str, str] = field(default_factory=dict)
    #: When the whole run's time bound passes (``time.monotonic``), once the first check began.
    deadline: float | None = None

    def ensure(self, op: str) -> None:
        """Check ``op`` unless this process already did."""
        if op in self.reports or op in self.op_problems or self.problem is not None:
            return
        from ._check import CheckOptions, check
        from ._errors import HarnessError, ImplementationError, ProtocolError
        from ._options import EFFORTS, default_max_time
        from ._replay import save_failures
        from ._results import apply_expectations

        if self.deadline is None:
            self.deadline = time.monotonic() + default_max_time(EFFORTS[self.effort],
                                                                self.timeout)
        # Past the bound the engine still starts, judges nothing and names the rules untested.
        remaining = max(self.deadline - time.monotonic(), 1e-3)
        try:
            report = check(self.impl, CheckOptions(
                ops=(op,), effort=self.effort, seed=self.seed,
                deterministic=self.seed is None, timeout=self.timeout, use_shell=self.use_shell,
                max_time=remaining))
        except (ImplementationError, ProtocolError) as error:
            self.problem = str(error)
            return
        except HarnessError as error:
            self.op_problems[op] = str(error)
            return
        report = apply_expectations(report, self.expectations)
        self.reports[op] = report
        with contextlib.suppress(OSError):  # a read-only checkout still gets its verdict
            self.replay_files.update(save_failures(report, self.failures_directory))

    def problem_for(self, op: str) -> str | None:
        return self.problem if self.problem is not None else self.op_problems.get(op)

    def selects(self, rule: Rule) -> bool:
        return (self.selection is None or (rule.op, None) in self.selection
                or (rule.op, rule.id) in self.selection)


_RUN = pytest.StashKey[_Run]()
#: Set on the xdist controller when the plugin's scheduler distributes (no --dist, or loadgroup).
_SCHEDULES = pytest.StashKey[bool]()


def _has_xdist(config: pytest.Config) -> bool:
    return any(config.pluginmanager.hasplugin(name) for name in ("xdist", "xdist.plugin"))


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
    """One rule of the spec, judged by its operation's engine run."""

    def __init__(self, *, rule: Rule, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rule = rule
        self.add_marker(pytest.mark.eventproof)
        if _has_xdist(self.config):
            self.add_marker(pytest.mark.xdist_group(rule.op))

    def runtest(self) -> None:
        from ._reports import failure_text

        run = self.config.stash[_RUN]
        rule = self.rule
        run.ensure(rule.op)
        self.user_properties.extend([
            (f"{PROPERTY}rule", rule.id), (f"{PROPERTY}operation", rule.op),
            (f"{PROPERTY}level", rule.level), (f"{PROPERTY}section", rule.section)])
        problem = run.problem_for(rule.op)
        if problem is not None:
            self.user_properties.append((f"{PROPERTY}problem", problem))
            raise RuleBroken(f"eventproof could not check the implementation: {problem}")
        report = run.reports[rule.op]
        try:
            result = report.result_for(rule.id)
        except KeyError:
            pytest.skip(f"{rule.id} was not checked in this run")
        outcome = result.outcome
        # What the verdict is judged from travels with the report (to --junitxml, and to the
        # xdist controller), which judges the session's rules with the run's own judge_run.
        self.user_properties.extend(verdict_properties(report, result, run.impl))
        if outcome == "pass":
            return
        if outcome == "skip":
            pytest.skip(result.note or "the implementation skipped it")
        if outcome == "xfail":
            pytest.xfail(result.note or "listed in the expectations file")
        # A failure that follows from another is one line when that other is a failure shown
        # in full here; a SHOULD rule's is an xfail, whose reason is one line: then in full.
        cause = next((each for each in report.results
                      if result.cause and each.rule.id == result.cause), None)
        cause_shown = cause is not None and (
            cause.outcome in ("xpass", "unstable")
            or (cause.rule.level == "MUST" and cause.outcome in ("fail", "error", "crash",
                                                                 "timeout")))
        text = failure_text(result, replay_file=run.replay_files.get(rule.id),
                            invocation=report.invocation, impl_spec=run.impl,
                            cause_shown=cause_shown)
        if rule.level == "SHOULD" and outcome not in ("xpass", "unstable"):
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
        # The location of a rule is its node id's root (no file holds it), its name the rule,
        # its level and its spec section: the heading of a failure in the terminal report. Line
        # 0, not None: pytest's skip and skipif marks need a line (their report names the rule
        # instead, see pytest_runtest_makereport).
        from ._reports import section_label

        return (self.config.rootpath / ROOT, 0,
                f"{self.rule.id} ({self.rule.level}, {section_label(self.rule.section)})")


# -- node ids as arguments ---------------------------------------------------------------------

def _closest(word: str, choices: list[str]) -> str:
    match = difflib.get_close_matches(word, choices, n=1)
    return f" Did you mean {match[0]!r}?" if match else ""


def _selector(arg: str, config: pytest.Config) -> tuple[str | None, str | None] | None:
    """What one command-line argument selects as (operation, rule id), None meaning every
    operation or every rule of it; None when the argument is not an eventproof node id. Raises
    ImplementationError for a misspelt one."""
    from ._operations import OPS, RULES_BY_ID, rules_for

    path, sep, rest = arg.partition("::")
    here = config.invocation_params.dir
    if Path(path).name != ROOT or (here / path).exists():
        return None
    if path != ROOT and Path(os.path.normpath(here / path)) != config.rootpath / ROOT:
        return None
    if not sep:
        return None, None
    names = rest.rpartition("@")[0].split("::") if "@" in rest else rest.split("::")
    op = names[0]
    if op not in OPS:
        raise pytest.UsageError(
            f"{arg}: {op!r} is not an operation; use eventproof::<op>[::<rule id>] with one of "
            f"{', '.join(OPS)}.{_closest(op, list(OPS))}")
    if len(names) == 1:
        return op, None
    rule_id = "::".join(names[1:])
    ids = [rule.id for rule in rules_for(op)]
    if rule_id not in ids:
        other = RULES_BY_ID.get(rule_id)
        hint = (f" It is a rule of {other.op!r}: eventproof::{other.op}::{rule_id}."
                if other is not None else _closest(rule_id, ids))
        raise pytest.UsageError(
            f"{arg}: {rule_id!r} is not a rule of {op!r}, whose rules are {', '.join(ids)}."
            f"{hint}")
    return op, rule_id


def _take_selection(config: pytest.Config) -> frozenset[tuple[str, str | None]] | None:
    """Take the eventproof node ids out of the session's arguments (pytest would look for files
    of those names) and return what they select; None when that is every rule."""
    kept: list[str] = []
    selection: set[tuple[str, str | None]] = set()
    every = False
    for arg in config.args:
        chosen = _selector(arg, config)
        if chosen is None:
            kept.append(arg)
            continue
        op, rule_id = chosen
        if op is None:
            every = True
        else:
            selection.add((op, rule_id))
    if len(kept) == len(config.args):
        return None
    config.args[:] = kept  # with only eventproof ids left out, the session is those items alone
    return None if every else frozenset(selection)


# -- hooks -------------------------------------------------------------------------------------

def pytest_addoption(parser: pytest.Parser) -> None:
    # Each option can be set once for a project, as pytest plugins are configured: in
    # pytest.ini's [pytest], pyproject.toml's [tool.pytest.ini_options], tox.ini or setup.cfg.
    # The command line wins over the file. Both come from the table of settings.
    from ._settings import pytest_options

    group = parser.getgroup("eventproof", "eventproof conformance checks")
    pytest_options(parser, group)
    # The old name of eventproof_effort in a configuration file (its old options are the
    # table's), told when used (_effort).
    parser.addini("eventproof_examples", "old name of eventproof_effort", default=None)


def _setting(config: pytest.Config, name: str) -> tuple[Any, Face]:
    """A setting from the command line, else from the project's pytest configuration (as
    text), else the table's default; with the face it came from (``pytest`` or ``ini``)."""
    from ._settings import SETTINGS

    entry = SETTINGS[name]
    assert entry.ini is not None
    value = config.getoption(entry.ini)
    if value is not None:
        return value, "pytest"
    text = config.getini(entry.ini)
    if text in (None, "", []):
        return entry.default_for("pytest"), "pytest"
    return entry.parse(str(text).strip(), "ini"), "ini"


def _effort(config: pytest.Config) -> tuple[str, Face]:
    """``--eventproof-effort`` or ``eventproof_effort``, or one of their old names with a
    deprecation warning naming the new one (the command line wins over the file); with the face
    it came from (``pytest`` or ``ini``) for the table's check."""
    from ._settings import SETTINGS

    # The old names are the table's (--eventproof-examples, --eventproof-budget): "examples"
    # counts the inputs a search draws, "budget" names the budget profile.
    old_names = [old.removeprefix("--eventproof-") for old in SETTINGS["effort"].old["pytest"]]
    given = [(f"--eventproof-{name}", "--eventproof-effort", config.getoption(f"eventproof_{name}"))
             for name in ("effort", *old_names)]
    face: Face = "pytest"
    if all(value is None for _, _, value in given):
        given = [(f"eventproof_{name}", "eventproof_effort", _ini(config, name))
                 for name in ("effort", "examples")]
        face = "ini"
    chosen: tuple[str, str] | None = None
    for where, new, value in given:
        if value is None:
            continue
        if where != new:
            config.issue_config_time_warning(pytest.PytestDeprecationWarning(
                f"eventproof: {where} is now {new} ({new} {value}); the old name will be "
                "removed in the next release"), stacklevel=2)
        if chosen is not None and chosen[1] != value:
            raise pytest.UsageError(f"eventproof: {chosen[0]} {chosen[1]} and {where} {value} "
                                    f"disagree; {where} is an old name of {new}: drop it")
        chosen = (where, value)
    if chosen is None:
        return SETTINGS["effort"].default_for("pytest"), "pytest"
    return chosen[1], face


def _ini(config: pytest.Config, name: str) -> str | None:
    """``eventproof_<name>`` of the project's pytest configuration, or None when unset."""
    text = config.getini(f"eventproof_{name}")
    return None if text in (None, "", []) else str(text).strip()


def _configured(config: pytest.Config) -> dict[str, Any]:
    """The plugin's settings, typed and checked by their entries of the table; a bad one is a
    usage error naming where it came from and the fix."""
    from ._settings import SETTINGS, SettingError

    settings: dict[str, Any] = {}
    try:
        for entry in SETTINGS.on("pytest"):
            # The effort may come under an old name, told with a warning (_effort).
            value, face = (_effort(config) if entry.name == "effort"
                           else _setting(config, entry.name))
            settings[entry.name] = entry.check(value, face)
    except SettingError as error:
        raise pytest.UsageError(str(error)) from None
    return settings


@pytest.hookimpl(wrapper=True)
def pytest_cmdline_main(config: pytest.Config) -> Generator[None, Any, Any]:
    # A wrapper runs before every implementation, so before pytest-xdist turns "-n N and no
    # --dist" into --dist load: see whether a mode was chosen. With none, or with loadgroup, the
    # plugin's scheduler distributes.
    option = config.option
    if (_setting(config, "impl")[0] is not None
            and _has_xdist(config) and not hasattr(config, "workerinput")
            and (getattr(option, "numprocesses", None) or getattr(option, "tx", None))
            and not getattr(option, "distload", False)
            and getattr(option, "dist", "no") in ("no", "loadgroup")):
        config.stash[_SCHEDULES] = True
    return (yield)


def _subset(config: pytest.Config) -> str:
    """The options of this session that select part of the rules (``-k bound -m …``), as the
    verdict names them; "" when none does (what the session left out is known from its rules
    either way)."""
    option = config.option
    words = []
    if getattr(option, "keyword", ""):
        words.append(f"-k {shlex.quote(option.keyword)}")
    if getattr(option, "markexpr", ""):
        words.append(f"-m {shlex.quote(option.markexpr)}")
    if getattr(option, "deselect", None):
        words.append("--deselect")
    if getattr(option, "lf", False):
        words.append("--lf")
    if any(str(arg).startswith(f"{ROOT}::") or f"/{ROOT}::" in str(arg) for arg in config.args):
        words.append("node ids")
    return " ".join(words)


def pytest_configure(config: pytest.Config) -> None:
    settings = _configured(config)
    impl = settings["impl"]
    if impl is None:
        named = [arg for arg in config.args if str(arg).startswith(f"{ROOT}::")
                 or str(arg).rstrip("/").endswith(f"/{ROOT}::") or f"/{ROOT}::" in str(arg)]
        if named:
            raise pytest.UsageError(
                f"{named[0]} names a rule of eventproof's pytest plugin, but no implementation "
                "is configured: give --eventproof-impl SPEC, or set eventproof_impl = SPEC in "
                "the [pytest] section of pytest.ini (or [tool.pytest.ini_options] of "
                "pyproject.toml)")
        return
    config.addinivalue_line("markers", "eventproof: an eventproof conformance rule")
    expectations: dict[str, str] = {}
    expect = settings["expect"]
    if expect is not None:
        from ._errors import ExpectationsError
        from ._expectations import load_expectations

        try:
            expectations = load_expectations(expect)
        except ExpectationsError as error:
            raise pytest.UsageError(str(error)) from None
    subset = _subset(config)  # before the node ids are taken out of the arguments
    config.stash[_RUN] = _Run(
        impl=impl, effort=settings["effort"], seed=settings["seed"],
        timeout=settings["timeout"], use_shell=settings["shell"], expectations=expectations,
        failures_directory=config.rootpath / ".eventproof" / "failures",
        selection=_take_selection(config),
    )
    config.pluginmanager.register(_Summary(subset), "eventproof-summary")
    dist = getattr(config.option, "dist", "no")
    if dist in ("load", "worksteal") and not config.stash.get(_SCHEDULES, False):
        config.issue_config_time_warning(pytest.PytestWarning(
            f"eventproof: --dist {dist} spreads the rules of one operation over several "
            "workers, and each of them checks that operation again; leave --dist unset (the "
            "plugin then keeps each operation on one worker) or use --dist loadgroup"),
            stacklevel=2)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    # tryfirst: the items exist before -k and -m deselect, so both select rules as usual.
    run = config.stash.get(_RUN, None)
    if run is None:
        return
    # An explicit node id: the root is "eventproof", not a child of the session's path, so items
    # read eventproof::<op>::<rule id> (and JUnit classnames eventproof.<op>).
    root = EventproofCollector.from_parent(session, name=ROOT, nodeid=ROOT)
    for operation in root.collect():
        assert isinstance(operation, OperationCollector)
        rules = [item for item in operation.collect()
                 if isinstance(item, RuleItem) and run.selects(item.rule)]
        if not rules:
            continue
        # Report the collection as pytest's own collectors do, so "collected N items" counts them.
        for item in rules:
            config.hook.pytest_itemcollected(item=item)
        config.hook.pytest_collectreport(report=pytest.CollectReport(
            operation.nodeid, "passed", None, list(rules)))
        items.extend(rules)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    # A skip's location is where pytest.skip() was called, a line of this module: name the rule.
    if (isinstance(item, RuleItem) and report.skipped and not hasattr(report, "wasxfail")
            and isinstance(report.longrepr, tuple) and len(report.longrepr) == 3):
        from ._reports import section_label

        reason = str(report.longrepr[2]).removeprefix("Skipped: ")
        # No line: pytest annotates it as an int, but prints a location without one (None) as
        # "<node id>: <reason>".
        report.longrepr = cast("tuple[str, int, str]", (
            item.nodeid, None, f"{section_label(item.rule.section)}: {reason}"))
    return report


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """pytest-xdist's scheduler hook, with no --dist or --dist loadgroup: the rules of one
    operation go to one worker, so the operation is checked once; every other test is scheduled
    as loadgroup schedules it (alone, or with its xdist_group)."""
    if not config.stash.get(_SCHEDULES, False):
        return None
    # Grouping by node id alone: loadgroup's own grouping rides on a node id suffix the workers
    # add, which pytest 9.2 no longer lets a plugin write (pytest-xdist issue #1386).
    from xdist.scheduler import LoadGroupScheduling  # type: ignore[import-untyped,import-not-found,unused-ignore]

    class OperationScheduling(LoadGroupScheduling):  # type: ignore[misc,unused-ignore]
        """Scopes as loadgroup's, except that eventproof::<op> is the scope of its rules."""

        def _split_scope(self, nodeid: str) -> str:
            if nodeid.startswith(f"{ROOT}::"):
                return "::".join(nodeid.split("::", 2)[:2])  # eventproof::<op>, no item's id
            return str(super()._split_scope(nodeid))

    return OperationScheduling(config, log)


def console_order(reports: list[Any]) -> list[Any]:
    """Test reports in the console's order: the eventproof rules' failures, each that follows
    from another ("same cause") moved right after the one it follows from, as the console lists
    it under that failure; every other report keeps its place. Rule order alone would print a
    follower before its cause when the cause is a later rule (canon.bytes after the bound
    rules)."""
    def values(report: Any) -> dict[str, str]:
        return {str(name)[len(PROPERTY):]: str(value)
                for name, value in getattr(report, "user_properties", ())
                if str(name).startswith(PROPERTY)}

    ours = [(index, values(report)) for index, report in enumerate(reports)
            if "rule" in values(report)]
    if not ours:
        return list(reports)
    present = {found["rule"] for _, found in ours}
    primaries = [index for index, found in ours
                 if not found.get("cause") or found["cause"] not in present]
    followers: dict[str, list[int]] = {}
    for index, found in ours:
        if found.get("cause") and found["cause"] in present:
            followers.setdefault(found["cause"], []).append(index)
    rule_of = {index: found["rule"] for index, found in ours}
    ordered = [each for index in primaries
               for each in (index, *followers.get(rule_of[index], []))]
    ordered += [index for index, _ in ours if index not in ordered]  # a cycle: as they were
    slots = iter(ordered)
    return [reports[next(slots)] if index in rule_of else report
            for index, report in enumerate(reports)]


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter: Any) -> Generator[None, None, None]:
    """Before pytest prints its FAILURES section, put the rules' failures in the console's
    order (:func:`console_order`)."""
    failed = terminalreporter.stats.get("failed")
    if failed:
        failed[:] = console_order(failed)
    return (yield)


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    run = config.stash.get(_RUN, None)
    if run is None:
        return None
    how = "derandomized" if run.seed is None else f"seed {run.seed}"
    lines = [f"eventproof: checking {shlex.quote(run.impl)} (effort {run.effort}, {how}, "
             f"timeout {run.timeout:g} s)"]
    if config.stash.get(_SCHEDULES, False):
        lines.append("eventproof: pytest-xdist gives each operation's rules to one worker")
    return lines


def verdict_properties(report: RunReport, result: RuleResult, impl: str
                       ) -> list[tuple[str, str]]:
    """What an item reports of its rule's result for the session's verdict (user properties)."""
    row = report.verdict_rows()[report.results.index(result)]
    return [
        (f"{PROPERTY}outcome", result.outcome), (f"{PROPERTY}profile", result.rule.profile),
        (f"{PROPERTY}judged", "yes" if row.judged else "no"),
        (f"{PROPERTY}cause", result.cause),
        (f"{PROPERTY}declared", ",".join(sorted(report.capabilities.ops))),
        (f"{PROPERTY}allowUntested", "yes" if report.allow_untested else "no"),
        (f"{PROPERTY}ending", report.cut_short),
        (f"{PROPERTY}implementation", str(report.implementation.get("name", impl))),
        *([(f"{PROPERTY}note", row.note)] if row.note else [])]


class _Summary:
    """Collects each rule's verdict from the reports (local or from xdist workers) and writes the
    conformance summary from them."""

    def __init__(self, subset: str = "") -> None:
        self.verdicts: dict[str, dict[str, str]] = {}
        #: The options that selected part of the rules (``-k bound``), named by the verdict.
        self.subset = subset

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        values = {str(name)[len(PROPERTY):]: str(value) for name, value in report.user_properties
                  if str(name).startswith(PROPERTY)}
        if "rule" in values:
            self.verdicts[values["rule"]] = values  # by rule: --dist each reports one N times

    def verdict(self) -> RunVerdict | None:
        """The verdict on the rules this session judged (:func:`._results.judge_run`, as
        ``eventproof run`` judges them); None when no rule was judged or the implementation
        could not be checked."""
        from ._results import RuleRow, judge_run, whole_run

        judged = [each for each in self.verdicts.values() if "outcome" in each]
        if not judged or any("problem" in each for each in self.verdicts.values()):
            return None
        rows = [RuleRow(each["rule"], each["level"], each["profile"], each["operation"],
                        each["outcome"], each["judged"] == "yes", each.get("cause", ""),
                        each.get("note", ""))
                for each in judged]
        return judge_run(rows, declared=judged[0]["declared"].split(","),
                         allow_untested=judged[0]["allowUntested"] == "yes",
                         ending=next((each["ending"] for each in judged if each["ending"]), ""),
                         whole=whole_run(), subset=self.subset)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """pytest's exit status restates the verdict: a session that passed every item but whose
        rules do not make a conforming run (no rule judged, say) exits 1, as the CLI would."""
        verdict = self.verdict()
        if verdict is not None and not verdict.conforms and exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.verdicts:
            return  # no eventproof item ran
        terminalreporter.write_sep("-", "eventproof")
        verdicts = list(self.verdicts.values())
        problems = sorted({each["problem"] for each in verdicts if "problem" in each})
        for problem in problems:
            terminalreporter.write_line(f"eventproof: could not check the implementation: "
                                        f"{problem}", red=True)
        judged = [each for each in verdicts if "outcome" in each]
        if problems or not judged:
            return
        names = ", ".join(sorted({each["implementation"] for each in judged}))
        verdict = self.verdict()
        assert verdict is not None
        terminalreporter.write_line(f"eventproof: {names} {verdict.headline}", bold=True,
                                    green=verdict.conforms, red=not verdict.conforms)
        terminalreporter.write_line(f"eventproof: {verdict.line()}")
        counts = Counter(each["outcome"] for each in judged)
        order = ("pass", "fail", "error", "crash", "timeout", "unstable", "xfail",
                                      "xpass", "skip", "untested")
        tally = ", ".join(f"{counts[outcome]} {outcome}" for outcome in order if counts[outcome])
        operations = len({each["operation"] for each in judged})
        terminalreporter.write_line(f"eventproof: {len(judged)} rule(s) of {operations} "
                                    f"operation(s): {tally}")
