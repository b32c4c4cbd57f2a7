"""The pytest plugin: one item per rule, one engine run per operation behind them, nothing
without the option."""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest
from eventproof.conformance._operations import OPS, RULES, rules_for

pytest_plugins = ["pytester"]

#: The project's pytest configuration disables the plugin (-p no:eventproof); the runs below
#: register it under its module name explicitly, as a user without the entry point would.
PLUGIN = ("-p", "no:eventproof", "-p", "eventproof.conformance.pytest_plugin")
#: Keep the engine cheap: the quick budget, and the select rules only unless a test says so.
QUICK = ("--eventproof-effort", "quick")

WRONG_IMPL = textwrap.dedent('''
    """The reference, except that select always answers null. It logs "<pid> start" for every
    start and "<pid> <op>" for every request to starts.txt: each start is one engine run, and
    the requests after it in the same process are that run's."""
    import os
    from pathlib import Path

    from eventproof.reference import Reference

    STARTS = Path(__file__).with_name("starts.txt")


    def log(word):
        with STARTS.open("a") as file:
            file.write(f"{os.getpid()} {word}\\n")


    class NeverSelects:
        def __init__(self):
            self.reference = Reference()

        def start(self):
            log("start")
            handshake = self.reference.start()
            handshake["implementation"]["name"] = "never-selects"
            return handshake

        def run(self, op, input):
            log(op)
            return None if op == "select" else self.reference.run(op, input)
''')

NO_FOLD = textwrap.dedent('''
    """The reference, declaring every operation but fold (whose rules are then skipped)."""
    from eventproof.reference import Reference


    class NoFold(Reference):
        def start(self):
            handshake = super().start()
            ops = handshake["capabilities"]["ops"]
            handshake["capabilities"]["ops"] = [op for op in ops if op != "fold"]
            return handshake
''')


def engine_runs(log: Path) -> list[tuple[str, set[str]]]:
    """The engine runs the wrong implementation saw, as (process, operations it was asked)."""
    runs: list[tuple[str, set[str]]] = []
    current: dict[str, set[str]] = {}
    for line in log.read_text(encoding="utf-8").splitlines():
        pid, word = line.split(" ")
        if word == "start":
            current[pid] = set()
            runs.append((pid, current[pid]))
        else:
            current[pid].add(word)
    return runs


def junit_verdicts(path: Path) -> dict[str, tuple[str, str]]:
    """Each test case of a JUnit file: name -> (outcome element or "passed", its message)."""
    verdicts = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        child = next((each for each in case if each.tag in ("failure", "error", "skipped")), None)
        classname = str(case.get("classname")).replace(".", "::")  # back to the node id
        verdicts[f"{classname}::{case.get('name')}"] = (
            ("passed", "") if child is None else (child.tag, child.get("message", "")))
    return verdicts


@pytest.fixture
def wrong_impl(pytester: pytest.Pytester) -> str:
    """A planted-bug implementation importable from the pytester directory."""
    pytester.makepyfile(wrong_impl=WRONG_IMPL)
    pytester.syspathinsert()
    return "python:wrong_impl:NeverSelects"


def test_without_the_option_the_plugin_adds_nothing(pytester: pytest.Pytester) -> None:
    """Without --eventproof-impl the session is exactly the user's own tests."""
    pytester.makepyfile(test_own="def test_own():\n    assert True\n")
    result = pytester.runpytest(*PLUGIN, "--collect-only", "-q")
    assert "test_own.py::test_own" in result.stdout.str()
    assert "eventproof::" not in result.stdout.str()
    outcomes = pytester.runpytest(*PLUGIN).parseoutcomes()
    # A test process that imported the plugin module already gets pytest's assertion-rewrite
    # warning for it; the user's own session is otherwise untouched.
    outcomes.pop("warnings", None)
    assert outcomes == {"passed": 1}


def test_one_item_per_rule_with_readable_node_ids(pytester: pytest.Pytester) -> None:
    """With --eventproof-impl every rule is an item with the id eventproof::<op>::<rule id>."""
    result = pytester.runpytest(*PLUGIN, "--eventproof-impl", "python:eventproof.reference:"
                                "Reference", "--collect-only", "-q")
    listed = {line for line in result.stdout.lines if line.startswith("eventproof::")}
    assert "eventproof::select::select.last-message" in listed
    expected = {f"eventproof::{rule.op}::{rule.id}" for rule in RULES}
    expected.add("eventproof::project::bound.converges")
    assert listed == expected


def test_reference_passes_its_rules(pytester: pytest.Pytester) -> None:
    """The reference checked through the plugin passes every select rule, and the summary says
    it passes the rules it checked, never that it conforms: -k selected part of the rules."""
    result = pytester.runpytest(*PLUGIN, *QUICK, "--eventproof-impl",
                                "python:eventproof.reference:Reference", "-k", "select.")
    result.assert_outcomes(passed=len(rules_for("select")))
    result.stdout.fnmatch_lines([
        "*eventproof: eventproof-reference-halving checked only part*",
        f"*checked only {len(rules_for('select'))} of {len(RULES)} rules (-k select.: "
        "select all)*"])
    assert not any(line.endswith(" conforms") for line in result.stdout.lines)


def test_wrong_implementation_fails_with_the_explanation(
    pytester: pytest.Pytester, wrong_impl: str
) -> None:
    """A planted bug fails the rule it breaks, with the rule, its section, the minimal input and
    the diff as the failure text, and the JUnit file names the rule; the engine started once."""
    junit = pytester.path / "junit.xml"
    result = pytester.runpytest(*PLUGIN, *QUICK, "--eventproof-impl", wrong_impl,
                                "-k", "select.", f"--junitxml={junit}")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) >= 1
    text = result.stdout.str()
    assert "(MUST) fail — spec/selection.md §3" in text
    assert "minimal input (select):" in text
    assert "--- expected" in text
    assert "eventproof replay" in text
    assert "Traceback" not in text
    assert "pytest_plugin.py" not in text
    # Each failure's heading is its rule, level and section.
    result.stdout.fnmatch_lines(["_* select.* (MUST, spec/selection.md §3*) _*"])
    assert "never-selects does not conform" in text
    assert (pytester.path / "starts.txt").read_text().count("start") == 1
    failed = [case for case in ET.parse(junit).getroot().iter("testcase")
              if case.find("failure") is not None]
    assert failed
    assert all(case.get("classname") == "eventproof.select" for case in failed)
    assert {case.get("name") for case in failed} <= {rule.id for rule in rules_for("select")}


def test_expectations_turn_failures_into_xfail_and_stale_ones_fail(
    pytester: pytest.Pytester, wrong_impl: str
) -> None:
    """Failures listed in --eventproof-expect are xfailed; a listed rule that passes fails as
    a stale expectation."""
    first = pytester.runpytest(*PLUGIN, *QUICK, "--eventproof-impl", wrong_impl, "-k", "select.",
                               "-rf")
    failing = sorted({line.split("::")[-1].split(" ")[0] for line in first.stdout.lines
                      if line.startswith("FAILED eventproof::")})
    assert failing
    expect = pytester.path / "expect.txt"
    expect.write_text("\n".join(failing) + "\nselect.never-empty\n", encoding="utf-8")
    second = pytester.runpytest(*PLUGIN, *QUICK, "--eventproof-impl", wrong_impl, "-k", "select.",
                                "--eventproof-expect", str(expect))
    outcomes = second.parseoutcomes()
    assert outcomes.get("xfailed") == len(failing)
    assert outcomes.get("failed") == 1
    second.stdout.fnmatch_lines([f"*stale expectation: {expect}:*select.never-empty*"
                                 "--update-expectations*"])


def test_bad_expectations_file_is_a_usage_error(pytester: pytest.Pytester) -> None:
    """A misspelt rule in the expectations file stops pytest with a usage error naming the line
    and the closest rule id."""
    expect = pytester.path / "expect.txt"
    expect.write_text("# ok\nselect.last-mesage\n", encoding="utf-8")
    result = pytester.runpytest(*PLUGIN, "--eventproof-impl", "python:eventproof.reference:"
                                "Reference", "--eventproof-expect", str(expect))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*line 2*'select.last-mesage' is not a rule id*"
                                 "Did you mean 'select.last-message'*"])


def test_unusable_implementation_fails_items_with_the_reason(pytester: pytest.Pytester) -> None:
    """An implementation that cannot be started fails the items with the harness's message,
    not a traceback."""
    result = pytester.runpytest(*PLUGIN, "--eventproof-impl", "python:no_such_module_x:Impl",
                                "-k", "select.never-empty")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*eventproof could not check the implementation*"
                                 "no_such_module_x*"])
    assert "Traceback" not in result.stdout.str()


def test_entry_point_name_loads_it_when_autoloading_is_off(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With PYTEST_DISABLE_PLUGIN_AUTOLOAD set, '-p eventproof' (the entry point's name) loads
    the plugin."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = pytester.runpytest("-p", "eventproof", "--eventproof-impl",
                                "python:eventproof.reference:Reference", "--collect-only", "-q")
    assert "eventproof::fold::fold.prefix" in result.stdout.lines


# -- node ids as arguments ---------------------------------------------------------------------

def test_a_printed_node_id_reruns_exactly_that_item(
    pytester: pytest.Pytester, wrong_impl: str
) -> None:
    """The node id of a failing item, as the short summary prints it, run again as an argument,
    runs that item alone, checks only its operation and fails it the same way; --lf reruns the
    failures."""
    first_junit = pytester.path / "first.xml"
    first = pytester.runpytest(*PLUGIN, *QUICK, "--eventproof-impl", wrong_impl, "-k", "select.",
                               "-rf", f"--junitxml={first_junit}")
    failed = [line.split(" ")[1] for line in first.stdout.lines
              if line.startswith("FAILED eventproof::")]
    assert failed
    node_id = failed[0]
    before = junit_verdicts(first_junit)
    (pytester.path / "starts.txt").unlink()

    again_junit = pytester.path / "again.xml"
    again = pytester.runpytest(*PLUGIN, *QUICK, "--eventproof-impl", wrong_impl, node_id,
                               f"--junitxml={again_junit}")
    again.assert_outcomes(failed=1)
    after = junit_verdicts(again_junit)
    assert list(after) == [node_id]
    assert after[node_id] == before[node_id]
    assert after[node_id][0] == "failure"
    runs = engine_runs(pytester.path / "starts.txt")
    assert [ops for _, ops in runs] == [{"select"}]

    (pytester.path / "starts.txt").unlink()
    last_failed = pytester.runpytest(*PLUGIN, *QUICK, "--eventproof-impl", wrong_impl, "--lf",
                                     "-rf")
    last_failed.assert_outcomes(failed=len(failed))
    assert [line.split(" ")[1] for line in last_failed.stdout.lines
            if line.startswith("FAILED eventproof::")] == failed
    assert [ops for _, ops in engine_runs(pytester.path / "starts.txt")] == [{"select"}]


def test_node_id_arguments_select_operations_and_rules(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """eventproof, eventproof::<op> and eventproof::<op>::<rule id> (with the '@<op>' suffix
    of --dist loadgroup, or relative to a subdirectory) select items beside ordinary paths."""
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(test_own="def test_own():\n    assert True\n")
    reference = ("--eventproof-impl", "python:eventproof.reference:Reference")

    def collected(*args: str) -> list[str]:
        result = pytester.runpytest(*PLUGIN, *reference, "--collect-only", "-q", *args)
        assert result.ret == pytest.ExitCode.OK, result.stdout.str()
        return [line for line in result.stdout.lines if "::" in line]

    fold = [f"eventproof::fold::{rule.id}" for rule in rules_for("fold")]
    assert collected("test_own.py", "eventproof::fold",
                     "eventproof::select::select.agrees@select") == [
        "test_own.py::test_own", "eventproof::select::select.agrees", *fold]
    every = collected("eventproof")
    assert "test_own.py::test_own" not in every
    assert set(every) == {f"eventproof::{op}::{rule.id}" for op in OPS for rule in rules_for(op)}
    monkeypatch.chdir(pytester.mkdir("sub"))
    assert collected("../eventproof::fold::fold.prefix") == ["eventproof::fold::fold.prefix"]
    assert collected("eventproof::fold::fold.prefix") == ["eventproof::fold::fold.prefix"]


@pytest.mark.parametrize(("arg", "message"), [
    ("eventproof::selekt", "'selekt' is not an operation*Did you mean 'select'?"),
    ("eventproof::select::select.last-mesage",
     "'select.last-mesage' is not a rule of 'select'*Did you mean 'select.last-message'?"),
    ("eventproof::select::fold.shape",
     "'fold.shape' is not a rule of 'select'*It is a rule of 'fold': "
     "eventproof::fold::fold.shape."),
])
def test_misspelt_node_id_is_a_usage_error(
    pytester: pytest.Pytester, arg: str, message: str
) -> None:
    """An eventproof node id naming no operation or rule stops pytest with a usage error that
    names it and the closest one."""
    result = pytester.runpytest(*PLUGIN, "--eventproof-impl",
                                "python:eventproof.reference:Reference", arg)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{arg}: {message}"])


# -- where reports point -----------------------------------------------------------------------

def test_skips_name_the_rule_not_the_plugin(pytester: pytest.Pytester) -> None:
    """A skipped rule's line in -rs names its node id and spec section, not a line of the
    plugin, whether the implementation skipped it or a skip mark did; the location of every item
    is the rule."""
    pytester.makepyfile(no_fold=NO_FOLD)
    pytester.makeconftest("""
        import pytest

        def pytest_collection_modifyitems(items):
            for item in items:
                if item.nodeid == "eventproof::select::select.never-empty":
                    item.add_marker(pytest.mark.skip(reason="skipped by a mark"))
    """)
    pytester.syspathinsert()
    result = pytester.runpytest(*PLUGIN, "--eventproof-impl", "python:no_fold:NoFold",
                                "-k", "fold. or select.never-empty", "-rs", "-vv")
    result.assert_outcomes(skipped=len(rules_for("fold")) + 1)
    result.stdout.fnmatch_lines([
        "SKIPPED [[]1[]] eventproof::select::select.never-empty: spec/selection.md §3.2: "
        "skipped by a mark",
        "SKIPPED [[]1[]] eventproof::fold::fold.shape: spec/selection.md §4.1: the "
        "implementation does not declare 'fold'",
        "SKIPPED [[]1[]] eventproof::fold::fold.prefix: spec/selection.md §4.2: *",
    ])
    assert "pytest_plugin.py" not in result.stdout.str()
    assert " <- " not in result.stdout.str()  # -vv: the location agrees with the node id
    items, _ = pytester.inline_genitems(*PLUGIN, "--eventproof-impl", "python:no_fold:NoFold",
                                        "eventproof::select::select.last-message")
    assert [item.location for item in items] == [
        ("eventproof", 0, "select.last-message (MUST, spec/selection.md §3.1)")]


# -- pytest-xdist ------------------------------------------------------------------------------

def _verdict_lines(result: pytest.RunResult) -> list[str]:
    return [line for line in result.stdout.lines
            if line.startswith("eventproof: ") and not line.startswith("eventproof: checking")
            and "pytest-xdist" not in line]


def test_under_xdist_each_operation_is_checked_once_with_the_same_verdicts(
    pytester: pytest.Pytester, wrong_impl: str
) -> None:
    """With -n 2 and no --dist, each operation is checked once in the whole session, by one
    worker; every item's outcome and failure text, and the conformance summary, are those of
    the run without xdist."""
    args = (*PLUGIN, *QUICK, "--eventproof-impl", wrong_impl, "-k", "select. or fold.")
    log = pytester.path / "starts.txt"
    plain = pytester.runpytest(*args, "-p", "no:xdist",
                               f"--junitxml={pytester.path / 'plain.xml'}")
    assert sorted(sorted(ops) for _, ops in engine_runs(log)) == [["fold"], ["select"]]
    log.unlink()
    # A subprocess: the workers must import wrong_impl from the test directory, their cwd.
    spread = pytester.runpytest_subprocess(*args, "-n", "2",
                                           f"--junitxml={pytester.path / 'spread.xml'}")
    runs = engine_runs(log)
    assert sorted(sorted(ops) for _, ops in runs) == [["fold"], ["select"]], runs
    assert len({pid for pid, _ in runs}) == 2  # two workers, one operation each
    assert "eventproof: pytest-xdist gives each operation's rules to one worker" in (
        spread.stdout.lines)

    plain_verdicts = junit_verdicts(pytester.path / "plain.xml")
    assert junit_verdicts(pytester.path / "spread.xml") == plain_verdicts
    outcomes = Counter(outcome for outcome, _ in plain_verdicts.values())
    assert set(outcomes) == {"passed", "failure"}
    summary = _verdict_lines(plain)
    assert summary[0] == "eventproof: never-selects does not conform"
    assert summary[1].startswith(f"eventproof: does not conform (exit code 1, "
                                 f"{len(plain_verdicts)} of {len(plain_verdicts)} rules judged): "
                                 f"checked only {len(plain_verdicts)} of {len(RULES)} rules "
                                 "(-k 'select. or fold.': ")
    assert summary[2:] == [
        f"eventproof: {len(plain_verdicts)} rule(s) of 2 operation(s): {outcomes['passed']} "
        f"pass, {outcomes['failure']} fail"]
    assert _verdict_lines(spread) == summary


@pytest.mark.parametrize(("mode", "warned"), [
    ((), False), (("--dist", "loadgroup"), False), (("--dist", "loadscope"), False),
    (("--dist", "load"), True), (("--dist", "worksteal"), True), (("-d",), True),
])
def test_xdist_modes_that_split_an_operation_are_warned_about(
    pytester: pytest.Pytester, mode: tuple[str, ...], warned: bool
) -> None:
    """--dist load and worksteal send one operation's rules to several workers (each of which
    checks it again): the plugin warns; with no mode or a grouping one it does not."""
    result = pytester.runpytest(*PLUGIN, "--eventproof-impl",
                                "python:eventproof.reference:Reference", "-n", "2", *mode,
                                "--collect-only", "-k", "fold.")
    assert result.ret == pytest.ExitCode.OK
    text = result.stdout.str()
    assert ("spreads the rules of one operation over several workers" in text) is warned
    assert ("gives each operation's rules to one worker" in text) is (
        mode in ((), ("--dist", "loadgroup")))
