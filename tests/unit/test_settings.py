"""Every face of a check (``eventproof run``, ``CheckOptions``/``check_implementation``, the
pytest plugin, the GitHub action) states the defaults of the table of settings
(``conformance/_settings.py``), exposes exactly the settings the table gives it, and words a bad
value as the table's entry does, in the face's own spelling."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import click
import pytest
import yaml
from _pytest.config.argparsing import Parser
from click.testing import CliRunner
from eventproof.conformance import _check, _options, cli, pytest_plugin
from eventproof.conformance._settings import (
    EFFORTS,
    FACES,
    SETTINGS,
    Face,
    Setting,
    SettingError,
    action_default,
)
from hypothesis import given
from hypothesis import strategies as st

from tools import docs_pages

ROOT = Path(__file__).resolve().parents[2]
#: check_implementation's parameters that are no setting: what is checked and the caller's hooks.
NOT_SETTINGS = frozenset({"impl", "on_progress", "on_event", "replays"})


def _same(face_default: Any, table_default: Any) -> bool:
    """Whether a face's stated default is the table's (a path compares as its text, a collection
    by its members; CheckOptions' marker of a value not given is the value it stands for)."""
    if isinstance(face_default, _options._Unset):
        face_default = str(face_default)
    if isinstance(face_default, Path):
        face_default = str(face_default)
    if isinstance(face_default, tuple | frozenset | set | list) and isinstance(
            table_default, tuple | frozenset | set | list):
        return set(face_default) == set(table_default)
    return bool(face_default == table_default) and type(face_default) is type(table_default)


def _expected(entry: Setting, face: Face) -> Any:
    """The default ``face`` must state: None when it still reads an old spelling (None tells
    the new spelling left out from a disagreement between the two), else the table's."""
    return None if entry.old.get(face) else entry.default_for(face)


# -- what each face states ----------------------------------------------------------------------

def cli_params(command: click.Command) -> dict[str, click.Parameter]:
    """``eventproof run``'s options by long name (``--jobs``; ``--isolate`` of
    ``--isolate/--in-process``)."""
    return {next((opt for opt in param.opts if opt.startswith("--")), param.opts[0]): param
            for param in command.params}


def cli_mismatches(command: click.Command) -> list[str]:
    """Where ``command``'s options differ from the table: a default, a help text, an option the
    table lacks or an entry the command lacks."""
    params = cli_params(command)
    wrong: list[str] = []
    for entry in SETTINGS.on("cli"):
        assert entry.flag is not None
        param = params.pop(entry.flag, None)
        if param is None:
            wrong.append(f"{entry.flag} is not an option")
            continue
        if not _same(param.default, _expected(entry, "cli")):
            wrong.append(f"{entry.flag} defaults to {param.default!r}")
        if isinstance(param, click.Option) and param.help != entry.help_for("cli"):
            wrong.append(f"{entry.flag}'s help is not the table's")
        for old in entry.old.get("cli", ()):
            hidden = params.pop(old, None)
            if not (isinstance(hidden, click.Option) and hidden.hidden
                    and hidden.default is None):
                wrong.append(f"{old} (an old spelling of {entry.flag}) is not a hidden option")
    wrong += [f"{name} has no entry" for name in params]
    return wrong


def python_mismatches(fields: Mapping[str, Any], signature: inspect.Signature) -> list[str]:
    """Where ``CheckOptions``' field defaults (``fields``) or ``check_implementation``'s keyword
    defaults (``signature``) differ from the table."""
    fields = dict(fields)
    keywords = {name: parameter.default for name, parameter in signature.parameters.items()
                if name not in NOT_SETTINGS}
    wrong: list[str] = []
    for entry in SETTINGS.on("python"):
        assert entry.python is not None
        if entry.python not in fields:
            wrong.append(f"CheckOptions has no field {entry.python}")
        elif not _same(fields.pop(entry.python), entry.default_for("python")):
            wrong.append(f"CheckOptions.{entry.python} has another default")
        if entry.python not in keywords:
            wrong.append(f"check_implementation has no keyword {entry.python}")
        elif not _same(keywords.pop(entry.python), _expected(entry, "python")):
            wrong.append(f"check_implementation's {entry.python}= has another default")
        for old in entry.old.get("python", ()):
            if keywords.pop(old, "missing") is not None:
                wrong.append(f"check_implementation's {old}= (old {entry.python}=) does not "
                             "default to None")
    wrong += [f"CheckOptions.{name} has no entry" for name in fields]
    wrong += [f"check_implementation's {name}= has no entry" for name in keywords]
    return wrong


def check_options_defaults(cls: type[Any]) -> dict[str, Any]:
    """A dataclass's field defaults by name (a factory's product for a factory)."""
    return {each.name: each.default_factory() if each.default_factory is not dataclasses.MISSING
            else each.default for each in dataclasses.fields(cls)}


def pytest_parser(addoption: Callable[[Parser], None] = pytest_plugin.pytest_addoption
                  ) -> Parser:
    """A pytest parser holding the options and ini names ``addoption`` adds."""
    parser = Parser(_ispytest=True)
    addoption(parser)
    return parser


def pytest_mismatches(parser: Parser) -> list[str]:
    """Where the plugin's options or ini names differ from the table. Every option defaults to
    None (then the ini file's value, then the table's default: :func:`pytest_plugin._setting`)."""
    options = {name: option for option in parser.getgroup("eventproof").options
               for name in option.names() if name.startswith("--")}
    inis = {name for name in parser._inidict if name.startswith("eventproof_")}
    wrong: list[str] = []
    for entry in SETTINGS.on("pytest"):
        assert entry.pytest is not None
        option = options.pop(entry.pytest, None)
        if option is None:
            wrong.append(f"{entry.pytest} is not an option")
            continue
        attrs = option.attrs()
        if attrs.get("default") is not None:
            wrong.append(f"{entry.pytest} defaults to {attrs['default']!r}, not None")
        if attrs.get("help") != entry.help_for("pytest"):
            wrong.append(f"{entry.pytest}'s help is not the table's")
        for old in entry.old.get("pytest", ()):
            # An old name is an option of its own (its use is told), taking what the new takes.
            former = options.pop(old, None)
            if former is None or former.attrs().get("choices") != attrs.get("choices"):
                wrong.append(f"{old} is not an old spelling of {entry.pytest}")
        if entry.ini not in inis:
            wrong.append(f"{entry.ini} is not an ini name")
        inis.discard(str(entry.ini))
    wrong += [f"{name} has no entry" for name in options]
    # An old ini name the plugin reads (and tells) beside the new one.
    wrong += [f"{name} has no entry" for name in inis - {"eventproof_examples"}]
    return wrong


def action_inputs() -> dict[str, Any]:
    """action.yml's inputs."""
    document = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    inputs: dict[str, Any] = document["inputs"]
    return inputs


def action_mismatches(inputs: Mapping[str, Any]) -> list[str]:
    """Where action.yml's inputs differ from the table: a default (empty when an empty input is
    eventproof's default), an input the table lacks or an entry the action lacks."""
    inputs = dict(inputs)
    wrong: list[str] = []
    for entry in SETTINGS.on("action"):
        assert entry.action is not None
        declared = inputs.pop(entry.action, None)
        if declared is None:
            wrong.append(f"input {entry.action} is not declared")
            continue
        if str(declared.get("default")) != action_default(entry):
            wrong.append(f"input {entry.action} defaults to {declared.get('default')!r}, not "
                         f"{action_default(entry)!r}")
        for old in entry.old.get("action", ()):
            if str((inputs.pop(old, None) or {"default": None}).get("default")) != "":
                wrong.append(f"input {old} (old {entry.action}) is not declared empty")
    wrong += [f"input {name} has no entry" for name in inputs]
    return wrong


def configured_defaults() -> dict[str, Any]:
    """The plugin's settings when neither the command line nor the ini file gives any."""
    class Unset:
        def getoption(self, _name: str) -> None:
            return None

        def getini(self, _name: str) -> None:
            return None

    return pytest_plugin._configured(Unset())  # type: ignore[arg-type]


# -- every face states the table ----------------------------------------------------------------

def test_eventproof_run_states_the_tables_options_defaults_and_help() -> None:
    """Each option of ``eventproof run`` is an entry's, with its default and help."""
    assert cli_mismatches(cli.main.commands["run"]) == []


def test_check_options_and_check_implementation_state_the_tables_defaults() -> None:
    """Each field of CheckOptions and keyword of check_implementation is an entry's, with the
    Python face's default."""
    assert python_mismatches(check_options_defaults(_check.CheckOptions),
                             inspect.signature(_check.check_implementation)) == []


def test_the_pytest_plugin_states_the_tables_options_and_ini_names() -> None:
    """Each option and ini name of the plugin is an entry's; with neither given, the plugin's
    settings are the table's defaults."""
    assert pytest_mismatches(pytest_parser()) == []
    assert configured_defaults() == {entry.name: entry.default_for("pytest")
                                     for entry in SETTINGS.on("pytest")}


def test_action_yml_states_the_tables_inputs_and_defaults() -> None:
    """Each input of action.yml is an entry's, with the table's default (or empty where an
    empty input is eventproof's default)."""
    assert action_mismatches(action_inputs()) == []


def test_a_face_that_differs_says_why() -> None:
    """Every default a face states otherwise comes with the reason, and the faces a setting
    lists are faces."""
    for entry in SETTINGS.values():
        assert entry.meaning.endswith("."), entry.name
        assert entry.meaning[0].isupper(), entry.name
        assert any(getattr(entry, face) is not None for face in FACES), entry.name
        for face, (_default, why) in entry.differs.items():
            assert face in FACES, (entry.name, face)
            assert len(why.split()) >= 5, (entry.name, face)


def test_the_example_efforts_are_the_engines() -> None:
    """The table's efforts are the engine's budgets, in order."""
    from eventproof.conformance._engine import EFFORTS as ENGINE_EFFORTS

    assert tuple(ENGINE_EFFORTS) == EFFORTS


# -- the wrong implementations these checks catch ----------------------------------------------

def _other(value: Any) -> Any:
    """A value of the same kind as ``value`` that differs from it."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, tuple | frozenset):
        return ("select.last-message",)
    return "something else"


@given(st.sampled_from(SETTINGS.on("cli")))
def test_a_run_option_with_another_default_is_caught(entry: Setting) -> None:
    """An option of ``eventproof run`` that states another default than the table is named."""
    command = copy.deepcopy(cli.main.commands["run"])
    param = cli_params(command)[str(entry.flag)]
    param.default = _other(param.default)
    assert f"{entry.flag} defaults to {param.default!r}" in cli_mismatches(command)


def test_a_run_option_with_no_entry_is_caught() -> None:
    """An option added to ``eventproof run`` without an entry is named."""
    command = copy.deepcopy(cli.main.commands["run"])
    command.params.append(click.Option(["--fast"], is_flag=True, help="Go fast."))
    assert cli_mismatches(command) == ["--fast has no entry"]


@given(st.sampled_from(SETTINGS.on("python")))
def test_a_python_default_that_differs_is_caught(entry: Setting) -> None:
    """A CheckOptions field or check_implementation keyword with another default is named."""
    name = str(entry.python)
    fields = check_options_defaults(_check.CheckOptions)
    assert python_mismatches({**fields, name: _other(fields[name])},
                             inspect.signature(_check.check_implementation)) == [
        f"CheckOptions.{name} has another default"]
    signature = inspect.signature(_check.check_implementation)
    parameters = [parameter.replace(default=_other(parameter.default))
                  if parameter.name == name else parameter
                  for parameter in signature.parameters.values()]
    assert python_mismatches(fields, signature.replace(parameters=parameters)) == [
        f"check_implementation's {name}= has another default"]


def test_a_hard_coded_pytest_default_is_caught() -> None:
    """A plugin option that states a default of its own (which would hide the ini file's) is
    named, as is one the table lacks."""
    def wrong(parser: Parser) -> None:
        pytest_plugin.pytest_addoption(parser)
        group = parser.getgroup("eventproof")
        timeout = next(option for option in group.options
                       if "--eventproof-timeout" in option.names())
        timeout.attrs()["default"] = 5.0
        group.addoption("--eventproof-fast", action="store_true", default=None, help="Go fast.")

    assert pytest_mismatches(pytest_parser(wrong)) == [
        "--eventproof-timeout defaults to 5.0, not None", "--eventproof-fast has no entry"]


@given(st.sampled_from(SETTINGS.on("action")))
def test_an_action_input_with_another_default_is_caught(entry: Setting) -> None:
    """An action.yml input that states another default than the table is named."""
    inputs = copy.deepcopy(action_inputs())
    inputs[str(entry.action)]["default"] = "2"
    assert [each for each in action_mismatches(inputs)
            if each.startswith(f"input {entry.action} defaults to")] != []


# -- errors in each face's spelling -------------------------------------------------------------

#: A value each kind of setting refuses, as text.
REFUSED = {"jobs": "0", "timeout": "nan", "max_time": "-5", "effort": "huge", "seed": "x",
           "max_examples": "0", "shell": "maybe", "allow_untested": "perhaps",
           "deterministic": "maybe", "isolate": "maybe", "exitfirst": "maybe"}
SPELT: dict[Face, Callable[[Setting], str]] = {
    "cli": lambda entry: f"{entry.flag}: ", "env": lambda entry: f"{entry.env}: ",
    "pytest": lambda entry: f"{entry.pytest}: ",
    "ini": lambda entry: f"{entry.ini} in the pytest configuration: ",
    "action": lambda entry: f"input {entry.action}: ",
    "python": lambda entry: f"{entry.python}="}


def _faces(entry: Setting) -> list[Face]:
    faces: list[Face] = [face for face in FACES if getattr(entry, face) is not None]
    return faces + (["env"] if entry.env else []) + (["ini"] if entry.pytest else [])


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_refused_value_is_named_with_the_faces_spelling_and_fix(name: str) -> None:
    """On every face a setting is given on, its error starts with that face's spelling, names
    the value, and gives the fix as that face writes it."""
    entry = SETTINGS[name]
    assert entry.kind is not None
    for face in _faces(entry):
        with pytest.raises(SettingError) as caught:
            entry.parse(REFUSED[name], face)
        text = str(caught.value)
        assert text.startswith(SPELT[face](entry) + repr(REFUSED[name])), (face, text)
        assert f" is not {entry.kind.what}; " in text
        if entry.example:
            assert entry.given(face, entry.example) in text, (face, text)
        others = {SPELT[other](entry) for other in _faces(entry)} - {SPELT[face](entry)}
        assert not any(other in text for other in others if other), (face, text)


@given(st.sampled_from(["timeout", "max_time"]), st.one_of(
    st.floats(max_value=0), st.sampled_from([math.inf, -math.inf, math.nan])))
def test_every_non_positive_or_infinite_duration_is_refused_by_each_face(
        name: str, seconds: float) -> None:
    """No face takes a duration the others refuse (Python alone takes an infinite bound)."""
    entry = SETTINGS[name]
    for face in _faces(entry):
        if face == "python" and name == "max_time" and seconds == math.inf:
            assert entry.check(seconds, face) == seconds
            continue
        with pytest.raises(SettingError):
            entry.parse(str(seconds), face) if face != "python" else entry.check(seconds, face)


@pytest.mark.parametrize(("args", "env", "said"), [
    (["--jobs", "0"], {}, "Invalid value for --jobs: '0' is not a number of worker processes; "
     "give a whole number of at least 1 (1 runs everything in this process), or auto (one per "
     "usable core): e.g. --jobs 2"),
    ([], {"EVENTPROOF_JOBS": "two"}, "Invalid value for '--jobs' (from the environment variable "
     "EVENTPROOF_JOBS): 'two' is not a number of worker processes; give a whole number of at "
     "least 1 (1 runs everything in this process), or auto (one per usable core): e.g. "
     "EVENTPROOF_JOBS=2"),
    (["--timeout", "nan"], {}, "Invalid value for --timeout: nan is not a positive, finite "
     "number of seconds; give e.g. --timeout 10"),
    (["--max-time", "inf"], {}, "Invalid value for --max-time: inf is not a positive, finite "
     "number of seconds; give e.g. --max-time 600"),
])
def test_the_command_lines_errors_name_its_flag(args: list[str], env: dict[str, str],
                                                said: str) -> None:
    result = CliRunner().invoke(cli.main, ["run", *args], env=env)
    assert result.exit_code == 2
    assert said in " ".join(result.output.split())


@pytest.mark.parametrize(("keywords", "said"), [
    ({"jobs": 0}, "jobs=0 is not a number of worker processes; pass a whole number of at least "
     "1 (1 runs everything in this process): e.g. jobs=2"),
    ({"jobs": "auto"}, "jobs='auto' is not a number of worker processes"),
    ({"timeout": -1}, "timeout=-1 is not a positive, finite number of seconds; pass e.g. "
     "timeout=10"),
    ({"effort": "huge"}, "effort='huge' is not an effort; use one of quick, "
     "default, thorough: e.g. effort='quick'"),
    ({"max_time": math.nan}, "max_time=nan is not a positive, finite number of seconds; pass "
     "e.g. max_time=600, None for the default or math.inf for no bound"),
    ({"seed": "1"}, "seed='1' is not a whole number; pass e.g. seed=1234"),
    ({"shard": (4, 3)}, "shard=(4, 3) is not K/N with 1 <= K <= N; pass the pair (K, N) of the "
     "slice number and the number of slices: e.g. shard=(1, 3)"),
    ({"shard": "1/3"}, "shard='1/3' is not K/N with 1 <= K <= N"),
])
def test_pythons_errors_name_its_keyword(keywords: dict[str, Any], said: str) -> None:
    with pytest.raises(SettingError) as caught:
        _check.CheckOptions(**keywords)
    assert str(caught.value).startswith(said)


# -- the docs page ------------------------------------------------------------------------------

def test_the_settings_page_lists_every_setting_and_every_spelling() -> None:
    """docs/reference/settings.md is made from the table: every entry, every face's spelling,
    and every reason a face differs."""
    page = docs_pages.settings_page()
    for entry in SETTINGS.values():
        assert f"`{entry.name}`" in page
        for face in FACES:
            if getattr(entry, face) is not None:
                assert f"`{entry.spelling(face)}`" in page or (
                    face == "cli" and f"`{'/'.join(entry.cli or ())}`" in page), (entry, face)
        for _default, why in entry.differs.values():
            assert why in page
