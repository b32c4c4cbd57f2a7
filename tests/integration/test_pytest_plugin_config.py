"""The pytest plugin is configured like pytest plugins are: in the project's pytest
configuration, with the command line winning, and a clear usage error when an eventproof node id
is given with no implementation configured."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

REFERENCE = "python:eventproof.reference:Reference"


@pytest.mark.parametrize("where", ["pytest.ini", "pyproject.toml"])
def test_the_implementation_can_be_set_in_the_projects_configuration(
        pytester: pytest.Pytester, where: str) -> None:
    """eventproof_impl and eventproof_effort in the configuration file check the rules."""
    if where == "pytest.ini":
        pytester.makeini(f"[pytest]\neventproof_impl = {REFERENCE}\n"
                         "eventproof_effort = quick\n")
    else:
        pytester.makepyprojecttoml(f'[tool.pytest.ini_options]\neventproof_impl = "{REFERENCE}"\n'
                                   'eventproof_effort = "quick"\n')
    result = pytester.runpytest("-p", "eventproof", "eventproof::classify")
    result.assert_outcomes(passed=1)
    # A node id selects one operation: the session says what it covered, never "conforms".
    result.stdout.fnmatch_lines(["*eventproof: * checked only part*",
                                 "*checked only 1 of 59 rules (node ids: classify all)*"])


def test_the_command_line_wins_over_the_file(pytester: pytest.Pytester) -> None:
    """A bad value in the file is overridden by a good one on the command line."""
    pytester.makeini("[pytest]\neventproof_impl = no-such-program-eventproof\n"
                     "eventproof_effort = quick\n")
    result = pytester.runpytest("-p", "eventproof", "--eventproof-impl", REFERENCE,
                                "eventproof::classify")
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize(("ini", "named"), [
    ("eventproof_effort = huge", "eventproof_effort in the pytest configuration: 'huge' "
     "is not an effort; use one of quick, default, thorough: e.g. eventproof_effort "
     "= quick in the [pytest] configuration"),
    ("eventproof_timeout = soon", "eventproof_timeout in the pytest configuration: 'soon' is "
     "not a positive, finite number of seconds; give e.g. eventproof_timeout = 10"),
    ("eventproof_timeout = 0", "eventproof_timeout in the pytest configuration: '0' is not a "
     "positive, finite number of seconds"),
    ("eventproof_seed = x", "eventproof_seed in the pytest configuration: 'x' is not a whole "
     "number; give e.g. eventproof_seed = 1234"),
    ("eventproof_shell = maybe", "eventproof_shell in the pytest configuration: 'maybe' is not "
     "true or false; use true or false"),
])
def test_a_bad_setting_in_the_file_is_a_usage_error(pytester: pytest.Pytester, ini: str,
                                                    named: str) -> None:
    pytester.makeini(f"[pytest]\neventproof_impl = {REFERENCE}\n{ini}\n")
    result = pytester.runpytest("-p", "eventproof", "eventproof::classify")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert named in result.stderr.str()


def test_a_bad_option_is_named_by_its_option(pytester: pytest.Pytester) -> None:
    """A bad value on pytest's command line is named by the plugin's option, not the ini name."""
    result = pytester.runpytest("-p", "eventproof", "--eventproof-impl", REFERENCE,
                                "--eventproof-timeout", "inf", "eventproof::classify")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert ("--eventproof-timeout: inf is not a positive, finite number of seconds; give e.g. "
            "--eventproof-timeout 10") in result.stderr.str()


def test_a_node_id_without_an_implementation_says_how_to_configure_one(
        pytester: pytest.Pytester) -> None:
    """A pasted eventproof node id with no implementation names the fix, not a missing file."""
    result = pytester.runpytest("-p", "eventproof", "eventproof::select::select.last-message")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    error = result.stderr.str()
    assert "no implementation is configured" in error
    assert "eventproof_impl" in error
    assert "file or directory not found" not in error


@pytest.mark.parametrize(("where", "old"), [
    ("ini", "eventproof_examples = thorough"),
    ("args", "--eventproof-examples=thorough"),
    ("args", "--eventproof-budget=thorough"),
])
def test_an_old_name_of_the_effort_works_with_a_warning_naming_the_new_one(
        pytester: pytest.Pytester, where: str, old: str) -> None:
    """The old names of the effort set it still, with a deprecation warning that names the new
    name; the session header states the effort taken."""
    ini = f"[pytest]\neventproof_impl = {REFERENCE}\n" + (f"{old}\n" if where == "ini" else "")
    pytester.makeini(ini)
    args = [old] if where == "args" else []
    result = pytester.runpytest("-p", "eventproof", *args, "--collect-only",
                                "eventproof::classify")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    new = "eventproof_effort" if where == "ini" else "--eventproof-effort"
    output = result.stdout.str()
    assert f"is now {new} ({new} thorough)" in output
    assert "PytestDeprecationWarning" in output
    assert "(effort thorough, derandomized" in output


def test_the_effort_and_an_old_name_that_disagree_are_a_usage_error(
        pytester: pytest.Pytester) -> None:
    """--eventproof-effort and an old name given other efforts is a usage error naming both."""
    result = pytester.runpytest("-p", "eventproof", "--eventproof-impl", REFERENCE,
                                "--eventproof-effort", "quick", "--eventproof-budget", "thorough",
                                "eventproof::classify")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--eventproof-effort quick and --eventproof-budget thorough disagree" in (
        result.stderr.str())
