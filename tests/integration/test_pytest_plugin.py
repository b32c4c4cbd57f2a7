"""The pytest plugin: one item per rule, one engine run behind them, nothing without the option."""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET

import pytest
from eventproof.conformance._operations import RULES, rules_for

pytest_plugins = ["pytester"]

#: The project's pytest configuration disables the plugin (-p no:eventproof); the runs below
#: register it under its module name explicitly, as a user without the entry point would.
PLUGIN = ("-p", "no:eventproof", "-p", "eventproof.conformance.pytest_plugin")
#: Keep the engine cheap: the quick budget, and the select rules only unless a test says so.
QUICK = ("--eventproof-budget", "quick")

WRONG_IMPL = textwrap.dedent('''
    """The reference, except that select always answers null."""
    from pathlib import Path

    from eventproof.reference import Reference

    STARTS = Path(__file__).with_name("starts.txt")


    class NeverSelects:
        def __init__(self):
            self.reference = Reference()

        def start(self):
            with STARTS.open("a") as log:
                log.write("start\\n")
            handshake = self.reference.start()
            handshake["implementation"]["name"] = "never-selects"
            return handshake

        def run(self, op, input):
            return None if op == "select" else self.reference.run(op, input)
''')


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
    assert pytester.runpytest(*PLUGIN).parseoutcomes() == {"passed": 1}


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
    """The reference checked through the plugin passes every select rule, and the summary says it
    conforms."""
    result = pytester.runpytest(*PLUGIN, *QUICK, "--eventproof-impl",
                                "python:eventproof.reference:Reference", "-k", "select.")
    result.assert_outcomes(passed=len(rules_for("select")))
    result.stdout.fnmatch_lines(["*eventproof: eventproof-reference-halving conforms*"])


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
    second.stdout.fnmatch_lines(["*listed as an expected failure but it passes now*"])


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
