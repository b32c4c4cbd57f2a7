"""Every setting of a check, once: its name, type, default, meaning, and the spelling each face
gives it (the command line, ``check_implementation``/:class:`~._check.CheckOptions`, the pytest
plugin and its ini file, the GitHub action).

Each face reads its defaults and help from :data:`SETTINGS` (``eventproof run``'s options are
made by :func:`click_option`, the plugin's by :func:`pytest_options`, ``CheckOptions``' field
defaults are :meth:`Setting.default_for`'s), and turns a bad value into the entry's own error
(:meth:`Setting.parse`, :meth:`Setting.refusal`), which names the value, the face's spelling and
the fix. A face whose default differs from the others says so here, with the reason
(:attr:`Setting.differs`); ``tests/unit/test_settings.py`` holds every face to this table and
the site's settings page is made from it (``tools/docs_pages.py``). A new setting is one
entry.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from ._errors import HarnessError
from ._operations import OPS

if TYPE_CHECKING:
    import click
    import pytest

__all__ = ["AUTO_JOBS_LIMIT", "EFFORTS", "FACES", "SETTINGS", "Face", "Kind", "Setting",
           "SettingError", "Table", "action_default", "click_error", "click_option",
           "pytest_options", "usable_cores"]

T = TypeVar("T")

#: The faces a setting can be given on. ``env`` and ``ini`` are the second spellings of the
#: command line (an environment variable) and of the pytest plugin (its configuration file).
Face = Literal["cli", "env", "python", "pytest", "ini", "action"]
#: The faces a setting is exposed on, in the table's order (``env``/``ini`` go with these).
FACES: tuple[Face, ...] = ("cli", "python", "pytest", "action")

#: The efforts by name: examples per operation search (``_options.EFFORTS``' keys).
EFFORTS = ("quick", "default", "thorough")
#: What a textual face (the pytest ini file, the action) reads as true and as false.
TRUE, FALSE = ("true", "1", "yes"), ("false", "0", "no")


class SettingError(HarnessError):
    """A setting given a value it cannot take; the message names the value, where it was given
    and the fix."""


@dataclass(frozen=True)
class Kind(Generic[T]):
    """The values a setting takes: how a face's text becomes one, which are refused, and the
    words that say so."""

    #: What a good value is, after "is not": "a positive, finite number of seconds".
    what: str
    #: How text (an option, an ini line, an action input) becomes a value; ValueError refuses.
    read: Callable[[str], T]
    #: Whether a value (read, or passed in Python) is one the setting takes.
    valid: Callable[[Any], bool]
    #: The fix, with ``{example}`` where the face's own spelling of a good value goes.
    fix: str = "give e.g. {example}"
    #: The fix on a face that words it otherwise (Python takes no ``auto``, say).
    fix_on: Mapping[Face, str] = field(default_factory=dict)
    #: Whether a value is a text (Python's fix then quotes the example).
    textual: bool = False
    #: Which values a face takes when it takes fewer than :attr:`valid` does.
    valid_on: Mapping[Face, Callable[[Any], bool]] = field(default_factory=dict)

    #: The value a run uses for a good one (``auto`` -> a number of processes).
    resolve: Callable[[Any], Any] = lambda value: value

    def takes(self, value: Any, face: Face) -> bool:
        """Whether ``face`` takes ``value``."""
        return self.valid_on.get(face, self.valid)(value)


def _positive_seconds(value: Any) -> bool:
    return (isinstance(value, int | float) and not isinstance(value, bool)
            and math.isfinite(value) and value > 0)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


#: The most worker processes ``--jobs auto`` starts: each starts a copy of the implementation,
#: and a run has only so many searches to share out at once.
AUTO_JOBS_LIMIT = 4


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the platform says, as in a
    container limited to some cores), at least 1."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        try:
            return max(1, len(affinity(0)))
        except OSError:
            pass
    return max(1, os.cpu_count() or 1)


def _read_jobs(text: str) -> int | str:
    text = text.strip().lower()
    return "auto" if text == "auto" else int(text) if text.isdigit() else -1


def _read_flag(text: str) -> bool:
    text = text.strip().lower()
    if text in TRUE or text in FALSE:
        return text in TRUE
    raise ValueError(text)


SECONDS = Kind[float]("a positive, finite number of seconds", float, _positive_seconds)
JOBS = Kind[int | str](
    "a number of worker processes", _read_jobs,
    lambda value: value == "auto" or (_whole(value) and value >= 1),
    fix="give a whole number of at least 1 (1 runs everything in this process), or auto (one "
        "per usable core): e.g. {example}",
    fix_on={"python": "pass a whole number of at least 1 (1 runs everything in this process): "
                      "e.g. {example}"},
    valid_on={"python": lambda value: _whole(value) and value >= 1},
    resolve=lambda value: min(usable_cores(), AUTO_JOBS_LIMIT) if value == "auto" else value)
EFFORT = Kind[str]("an effort", str.strip, lambda value: value in EFFORTS,
                   fix=f"use one of {', '.join(EFFORTS)}: e.g. {{example}}", textual=True)
WHOLE = Kind[int]("a whole number", int, _whole)
COUNT = Kind[int]("a whole number of at least 1", int, lambda value: _whole(value) and value >= 1)
FLAG = Kind[bool]("true or false", _read_flag, lambda value: isinstance(value, bool),
                  fix="use true or false: e.g. {example}",
                  fix_on={"python": "pass True or False: e.g. {example}"})
TEXT = Kind[str]("a text", str, lambda value: isinstance(value, str), textual=True)
def _read_shard(text: str) -> tuple[int, int]:
    index, _, total = text.strip().partition("/")
    return int(index), int(total)


def _slice(value: Any) -> bool:
    return (isinstance(value, tuple) and len(value) == 2 and all(map(_whole, value))
            and 1 <= value[0] <= value[1])


#: A slice of the operations: K of N.
SHARD = Kind[tuple[int, int]](
    "K/N with 1 <= K <= N", _read_shard, _slice,
    fix="give the slice number and the number of slices: e.g. {example}",
    fix_on={"python": "pass the pair (K, N) of the slice number and the number of slices: "
                      "e.g. shard=(1, 3)",
            "action": "use e.g. ${{{{ matrix.shard }}}}/3 in a job matrix of 3, and join the "
                      "slices' report.json with `eventproof report --merge`"})
#: A bound on the whole run: Python also takes ``math.inf`` (no bound).
BOUND = Kind[float](
    "a positive, finite number of seconds", float, _positive_seconds,
    fix_on={"python": "pass e.g. {example}, None for the default or math.inf for no bound"},
    valid_on={"python": lambda value: (isinstance(value, int | float)
                                       and not isinstance(value, bool)
                                       and not math.isnan(value) and value > 0)})


@dataclass(frozen=True)
class Setting:
    """One setting: what it is, its default, and how each face spells and explains it."""

    name: str
    #: Its type as a user writes it (the docs' table).
    type: str
    #: The default on every face, unless :attr:`differs` says otherwise for one.
    default: Any
    #: What it means, in one sentence.
    meaning: str
    #: The command line's declarations (``--jobs``; ``--isolate/--in-process``; ``-x``,
    #: ``--exitfirst``), None when ``eventproof run`` has no such option.
    cli: tuple[str, ...] | None = None
    #: The keyword of ``check_implementation`` and field of ``CheckOptions``.
    python: str | None = None
    #: The pytest plugin's option (its ini name is the same without the dashes).
    pytest: str | None = None
    #: The GitHub action's input.
    action: str | None = None
    #: The environment variable the command line also reads.
    env: str | None = None
    #: What a bad value is checked against (None: nothing to check beyond the face's own type).
    kind: Kind[Any] | None = None
    #: A good value, for the fix of an error ("2" becomes ``--jobs 2``, ``jobs=2``...).
    example: str = ""
    #: Face -> (its default, why it differs): a face whose default is not :attr:`default`.
    differs: Mapping[Face, tuple[Any, str]] = field(default_factory=dict)
    #: Face -> its help text, when longer than :attr:`meaning`.
    help: Mapping[Face, str] = field(default_factory=dict)
    #: Face -> the old spellings it still reads (hidden in its help).
    old: Mapping[Face, tuple[str, ...]] = field(default_factory=dict)
    #: Whether an empty action input is the default (action.yml then declares it empty).
    blank_is_default: bool = True
    #: Face -> the placeholder its help shows for the value (``--jobs N|auto``).
    metavar: Mapping[Face, str] = field(default_factory=dict)

    def default_for(self, face: Face) -> Any:
        """The default on ``face`` (the table's, unless the face differs)."""
        return self.differs[face][0] if face in self.differs else self.default

    def help_for(self, face: Face) -> str:
        """The help ``face`` shows for this setting."""
        return self.help.get(face, self.meaning)

    @property
    def flag(self) -> str | None:
        """The command line's long option (``--jobs``; ``--isolate`` of
        ``--isolate/--in-process``)."""
        if self.cli is None:
            return None
        long = next((each for each in self.cli if each.startswith("--")), self.cli[0])
        return long.partition("/")[0]

    @property
    def ini(self) -> str | None:
        """The pytest configuration's name (``eventproof_timeout``)."""
        return None if self.pytest is None else self.pytest.removeprefix("--").replace("-", "_")

    def spelling(self, face: Face) -> str:
        """How ``face`` names this setting: ``--jobs``, ``EVENTPROOF_JOBS``, ``jobs=``,
        ``--eventproof-timeout``, ``eventproof_timeout``, ``jobs:``."""
        spelt = {"cli": self.flag, "env": self.env, "python": self.python and f"{self.python}=",
                 "pytest": self.pytest, "ini": self.ini,
                 "action": self.action and f"{self.action}:"}[face]
        if spelt is None:
            raise KeyError(f"{self.name} is not a setting of {face}")
        return spelt

    def given(self, face: Face, value: str) -> str:
        """``value`` as ``face`` gives it: ``--jobs 2``, ``jobs=2``, ``eventproof_jobs = 2``."""
        if self.kind is FLAG and face in ("cli", "pytest"):
            return self.spelling(face)  # a flag takes no value
        if face == "python":
            textual = self.kind is not None and self.kind.textual
            if self.kind is FLAG:
                value = str(value.lower() in TRUE)
            return f"{self.python}={value!r}" if textual else f"{self.python}={value}"
        if face in ("env", "ini"):
            return f"{self.spelling(face)}{'=' if face == 'env' else ' = '}{value}"
        return f"{self.spelling(face)} {value}"

    def problem(self, value: Any, face: Face) -> str:
        """Why ``value`` is refused on ``face``, and the fix in that face's spelling (the error
        without the spelling that leads it)."""
        kind = self.kind or TEXT
        example = self.given(face, self.example)
        if face == "action":
            example = f"`{example}` under the step's with:"
        elif face == "ini":
            example = f"{example} in the [pytest] configuration"
        fix = kind.fix_on.get(face, kind.fix)
        if face == "python":
            fix = fix.replace("give e.g.", "pass e.g.")
        return f"{value!r} is not {kind.what}; {fix.format(example=example)}"

    def refusal(self, value: Any, face: Face) -> str:
        """The whole error for ``value`` on ``face``: its spelling, the value, what is wanted and
        the fix."""
        if face == "python":  # jobs=0 is not ...
            return f"{self.python}={self.problem(value, face)}"
        where = (f"input {self.action}" if face == "action" else
                 f"{self.spelling(face)} in the pytest configuration" if face == "ini" else
                 self.spelling(face))
        return f"{where}: {self.problem(value, face)}"

    def check(self, value: Any, face: Face = "python") -> Any:
        """``value`` if the setting takes it; :class:`SettingError` naming it otherwise."""
        if value is None and self.default_for(face) is None:
            return value
        if self.kind is not None and not self.kind.takes(value, face):
            raise SettingError(self.refusal(value, face))
        return value

    def takes(self, value: Any, face: Face) -> bool:
        """Whether ``face`` takes ``value`` (any value, when the entry checks none)."""
        return self.kind is None or self.kind.takes(value, face)

    def resolve(self, text: str, face: Face) -> Any:
        """The value a run uses for ``text`` on ``face`` (``auto`` jobs -> a number)."""
        value = self.parse(text, face)
        return value if self.kind is None else self.kind.resolve(value)

    def parse(self, text: str, face: Face) -> Any:
        """The value ``text`` gives on a textual face (an ini line, an action input, an
        environment variable); :class:`SettingError` naming it otherwise."""
        kind = self.kind or TEXT
        try:
            value = kind.read(text)
        except ValueError:
            raise SettingError(self.refusal(text, face)) from None
        if not kind.takes(value, face):
            raise SettingError(self.refusal(text, face))
        return value


class Table(Mapping[str, Setting]):
    """The settings by name, in the order the docs list them."""

    def __init__(self, *settings: Setting) -> None:
        self._by_name = {each.name: each for each in settings}
        if len(self._by_name) != len(settings):
            raise ValueError("two settings share a name")

    def __getitem__(self, name: str) -> Setting:
        return self._by_name[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)

    def defaults(self, face: Face) -> dict[str, Any]:
        """The default on ``face`` of every setting it exposes, by name."""
        return {each.name: each.default_for(face) for each in self.on(face)}

    def on(self, face: Face) -> list[Setting]:
        """The settings ``face`` exposes."""
        attribute = {"env": "env", "ini": "pytest"}.get(face, face)
        return [each for each in self.values() if getattr(each, attribute) is not None]


#: Why the Python face searches in one process by default.
_JOBS_IN_PROCESS = (
    "check_implementation takes objects and factories worker processes may not be able to "
    "import, and is called from tests that choose their own parallelism (pytest-xdist); the "
    "command line and the action own their process and use its cores")
#: Why the command line is derandomized only in CI.
_RANDOM_AT_A_DESK = (
    "at a desk each run searches afresh (seeded, with the example database under --state-dir) "
    "to find more; the CI environment variable turns on the derandomized CI mode; a test "
    "(check_implementation, the pytest plugin without --eventproof-seed) and the action, which "
    "always passes --deterministic, are reproducible")

SETTINGS = Table(
    Setting(
        "impl", "SPEC", None,
        "The implementation under test: 'python:MODULE:ATTR' or a command line speaking "
        "spec/protocol.md (the bundled reference when none is given).",
        cli=("--impl",), pytest="--eventproof-impl", action="impl", kind=TEXT,
        metavar={"cli": "SPEC", "pytest": "SPEC"},
        example="'node my-port/eventproof-port.mjs'",
        help={"cli": "The implementation under test: 'python:MODULE:ATTR' (a Python object) or "
                     "a command line speaking spec/protocol.md. Give it several times to check "
                     "each implementation in turn with the same settings (see --reports, "
                     "--html). Default: the bundled reference.",
              "pytest": "Check this implementation: 'python:MODULE:ATTR' (a Python object, "
                        "served by a worker process) or a command line speaking "
                        "spec/protocol.md. Adds one test item per rule.",
              "ini": "the implementation to check (as --eventproof-impl)"},
        differs={"pytest": (None, "with no implementation the plugin adds no item, so that "
                                  "installing eventproof changes no other project's tests")}),
    Setting(
        "fit", "halving | maximal", "halving",
        "The fit strategy of the bundled reference, when no implementation is named.",
        cli=("--fit",), action="fit",
        help={"cli": "Fit strategy of the bundled reference when --impl is not given."}),
    Setting(
        "ops", "OP[,OP...]", None,
        "Only these operations (default: every operation).",
        cli=("--ops",), python="ops", action="ops", metavar={"cli": "OP[,OP...]"},
        help={"cli": f"Only these operations (default: all of {','.join(OPS)})."}),
    Setting(
        "rules", "RULE_ID...", frozenset(),
        "Only these rules: their operations are searched, the run ends once every one is "
        "broken, and the reports hold these rules.",
        cli=("--rule",), python="rules", metavar={"cli": "RULE_ID"},
        differs={"cli": ((), "a repeatable option collects a tuple; empty is every rule")},
        help={"cli": "Check only this rule (repeatable): its operation is searched, the run "
                     "ends once every rule asked for is broken, and the reports hold these "
                     "rules."}),
    Setting(
        "effort", "quick | default | thorough", "default",
        "How hard each operation search tries, in examples: quick 60, default 200, thorough "
        "2000.",
        cli=("--effort",), python="effort", pytest="--eventproof-effort",
        action="effort", kind=EFFORT, example="quick", blank_is_default=False,
        old={"cli": ("--examples", "--budget", "--profile"), "python": ("examples", "budget"),
             "pytest": ("--eventproof-examples", "--eventproof-budget"),
             "action": ("examples", "budget")},
        help={"cli": "How hard each operation search tries, in examples: quick 60, default 200, "
                     "thorough 2000 (and each operation's every-shape inputs on top: 3 to 22).",
              "pytest": "How hard each operation search tries (default: default; "
                        "--eventproof-examples and --eventproof-budget are its old names).",
              "ini": "how hard each operation search tries: quick, default or thorough (as "
                     "--eventproof-effort)"}),
    Setting(
        "max_examples", "integer >= 1", None,
        "Overrides the effort with this many examples per operation search.",
        cli=("--max-examples",), python="max_examples", kind=COUNT, example="50",
        help={"cli": "Override --effort with this many examples per operation search."}),
    Setting(
        "seed", "integer", None,
        "Seeds a random search (random when not given; ignored by a derandomized one).",
        cli=("--seed",), python="seed", pytest="--eventproof-seed", kind=WHOLE, example="1234",
        metavar={"pytest": "N"},
        help={"cli": "Seed the search (ignored with --deterministic).",
              "pytest": "Search randomly from this seed; without it the search is "
                        "derandomized (the CI mode).",
              "ini": "search randomly from this seed (as --eventproof-seed)"}),
    Setting(
        "expect", "FILE", None,
        "The expected-failures file: '<rule-id> [<failure kind>]' per line.",
        cli=("--expect",), pytest="--eventproof-expect", action="expect",
        metavar={"pytest": "FILE"},
        help={"cli": "Expected-failures file: '<rule-id> [<failure kind>]' per line.",
              "pytest": "Expected-failures file: '<rule-id> [<failure kind>]' per line.",
              "ini": "the expected-failures file (as --eventproof-expect)"}),
    Setting(
        "deterministic", "bool", True,
        "A derandomized search with no example database: the CI mode, the same report every "
        "run.",
        cli=("--deterministic/--random",), python="deterministic", kind=FLAG, example="true",
        differs={"cli": (None, "None: on when the CI environment variable is set, off "
                               "otherwise; " + _RANDOM_AT_A_DESK)},
        help={"cli": "Derandomized search, no example database: the CI mode. Default: on when "
                     "the CI environment variable is set, off otherwise."}),
    Setting(
        "timeout", "seconds > 0", 10.0,
        "Seconds one request may take before the implementation is stopped and restarted.",
        cli=("--timeout",), python="timeout", pytest="--eventproof-timeout", action="timeout",
        kind=SECONDS, example="10", metavar={"pytest": "SECONDS"},
        help={"cli": "Seconds one request may take before the implementation is stopped and "
                     "restarted (positive and finite; no deadline is ever longer).",
              "pytest": "Seconds one request may take before the implementation is restarted "
                        "(default: 10).",
              "ini": "seconds one request may take (as --eventproof-timeout)"}),
    Setting(
        "max_time", "seconds > 0", None,
        "Seconds the whole run may take; then the search ends and what was not judged is "
        "reported untested (default: 120 + 1 per example + 20 x timeout).",
        cli=("--max-time",), python="max_time", action="max-time", kind=BOUND,
        example="600",
        help={"cli": "Seconds the whole run may take: then the search ends, what was not judged "
                     "is reported untested and every report is still written. Default: 120 + 1 "
                     "per example of --effort + 20 x --timeout."}),
    Setting(
        "isolate", "bool", True,
        "Runs a python: implementation in a worker process behind spec/protocol.md (an object "
        "passed in Python runs in this process, fenced).",
        cli=("--isolate/--in-process",), python="isolate", kind=FLAG, example="true",
        help={"cli": "Run a python: implementation in a worker process behind spec/protocol.md, "
                     "so that os._exit, signals, print() and hangs are handled as for any "
                     "program; --in-process calls it in this process."}),
    Setting(
        "shell", "bool", False,
        "Starts the implementation's command line through the shell (pipes, variable "
        "assignments).",
        cli=("--shell",), python="use_shell", pytest="--eventproof-shell", action="shell",
        kind=FLAG, example="true", blank_is_default=False,
        help={"cli": "Start --impl through the shell (pipes, env assignments); off by default.",
              "pytest": "Start --eventproof-impl through the shell.",
              "ini": "start the implementation through the shell: true or false (as "
                     "--eventproof-shell)"}),
    Setting(
        "update_expectations", "bool", False,
        "Rewrites the expected-failures file with this run's failures (then exits 0).",
        cli=("--update-expectations",),
        help={"cli": "Rewrite the --expect file with this run's failures (then exit 0)."}),
    Setting(
        "json", "FILE | -", None,
        "Where the JSON report (schemas/report.json) is written; '-' is standard output.",
        cli=("--json",),
        help={"cli": "Write the JSON report (schemas/report.json) here; '-' writes it to stdout "
                     "(the console summary then goes to stderr)."}),
    Setting(
        "junit", "FILE", None, "Where a JUnit XML report is written.", cli=("--junit",),
        help={"cli": "Write a JUnit XML report here (times in seconds, see docs/gate-ci.md)."}),
    Setting(
        "markdown", "FILE", None, "Where a Markdown summary is written.", cli=("--markdown",),
        help={"cli": "Write a Markdown summary here."}),
    Setting(
        "reports", "DIR", None,
        "A directory that gets every implementation's reports, named after the name it "
        "declares.",
        cli=("--reports",), metavar={"cli": "DIR"},
        help={"cli": "Write each implementation's reports into DIR, named after the name it "
                     "declares: NAME.json, NAME.xml (JUnit) and NAME.md (a second NAME becomes "
                     "NAME-2). The way to keep the reports of several --impl."}),
    Setting(
        "report_dir", "DIR", "eventproof-report",
        "The directory the action writes report.json, report.xml and summary.md into.",
        action="report-dir", blank_is_default=False),
    Setting(
        "html", "DIR", None, "Where the conformance matrix of the checked implementations goes.",
        cli=("--html",), metavar={"cli": "DIR"},
        help={"cli": "Write the conformance matrix of the checked implementations "
                     "(DIR/index.html and DIR/badges/; a FILE.html is taken as the page's name, "
                     "with a note), as `eventproof report --html`; the JSON reports go to "
                     "--reports DIR, or else to DIR/reports/ (an implementation that could not "
                     "be checked gets a column and a short report there too)."}),
    Setting(
        "label", "TEXT...", (), "The heading of each implementation's column of the matrix.",
        cli=("--label",), metavar={"cli": "TEXT"},
        help={"cli": "With --html: the heading of an --impl's column, once per --impl in order "
                     "(default: the name and version it declares, numbered when equal)."}),
    Setting(
        "timings", "bool", False, "Also writes each rule's seconds into the JSON reports.",
        cli=("--timings",),
        help={"cli": "Also write each rule's seconds into the JSON reports (off by default, so "
                     "a deterministic run's report differs between runs only in "
                     "durationSeconds)."}),
    Setting(
        "state_dir", "DIR", ".eventproof",
        "Where failure case files (failures/) and the example database (examples/) go.",
        cli=("--state-dir",),
        help={"cli": "Where failure case files (failures/) and the example database "
                     "(examples/) go."}),
    Setting(
        "database", "DIR", None,
        "Where a random search keeps the failing examples it found (none when not given).",
        python="database"),
    Setting(
        "jobs", "N | auto", "auto",
        "The searches (operation x input family) run in this many worker processes, each with "
        "its own copy of the implementation; auto is one per usable core, at most 4.",
        cli=("--jobs",), python="jobs", action="jobs", env="EVENTPROOF_JOBS", kind=JOBS,
        example="2", metavar={"cli": "N|auto"},
        differs={"python": (1, _JOBS_IN_PROCESS)},
        help={"cli": "Run the searches (operation x input family) in this many worker "
                     "processes, each with its own copy of the implementation (deterministic "
                     "runs give the same report with any number). auto: one per usable core, "
                     "at most 4; 1 runs everything in this process."}),
    Setting(
        "shard", "K/N", None,
        "Checks only slice K of N of the operations (a CI matrix of N jobs).",
        cli=("--shard",), python="shard", action="shard", kind=SHARD, example="1/3",
        metavar={"cli": "K/N"},
        help={"cli": "Check only slice K of N of the operations (a CI matrix of N jobs); join "
                     "the JSON reports with `eventproof report --merge`."}),
    Setting(
        "allow_untested", "bool", False,
        "Conforms even when a MUST rule was judged on no answer (untested rules are still "
        "reported).",
        cli=("--allow-untested",), python="allow_untested", action="allow-untested",
        kind=FLAG, example="true", blank_is_default=False,
        help={"cli": "Conform even when a MUST rule was judged on no answer (every request "
                     "skipped, or the search stopped after hangs); untested rules are still "
                     "reported."}),
    Setting(
        "exitfirst", "bool", False,
        "Stops at the first broken rule; the rules not judged by then are reported untested.",
        cli=("-x", "--exitfirst"), python="exitfirst", kind=FLAG, example="true",
        help={"cli": "Stop at the first broken rule: the rules not judged by then are reported "
                     "untested (a fast red in CI; the run does not conform either way)."}),
    Setting(
        "shrink", "bool", True,
        "Shrinks each failure to a minimal counterexample; off, a failure is reported as first "
        "found (a test asking only whether a rule breaks, which the verdict says as well).",
        python="shrink", kind=FLAG, example="false"),
    Setting(
        "stop_after", "RULE_ID...", frozenset(),
        "Ends the run once every rule listed is broken (a test asking only whether those "
        "break).",
        python="stop_after"),
    Setting(
        "progress", "bool", True, "A live status line on a terminal (nothing elsewhere).",
        cli=("--no-progress",),
        differs={"cli": (False, "the flag is --no-progress: off means the status line is "
                                "shown")},
        help={"cli": "No live status line."}),
    Setting(
        "verbose", "bool", False, "Shows passing rules too.", cli=("-v", "--verbose"),
        help={"cli": "Show passing rules too."}),
    Setting(
        "working_directory", "DIR", ".",
        "The directory, relative to the workspace, that the implementation and the paths are "
        "relative to.",
        action="working-directory", blank_is_default=False),
    Setting(
        "python_version", "VERSION", None,
        "The Python the action sets up for eventproof (the runner's python3 when not given).",
        action="python-version"),
    Setting(
        "hypothesis_version", "VERSION", None,
        "The Hypothesis version the action pins (the newest eventproof allows when not given).",
        action="hypothesis-version"),
    Setting(
        "artifact_name", "NAME", "eventproof-reports",
        "The name of the artifact the action uploads.",
        action="artifact-name", blank_is_default=False),
)


def action_default(entry: Setting) -> str:
    """The default action.yml must state for ``entry``'s input: empty when an empty input is
    the default, else the default as text."""
    value = entry.default_for("action")
    if entry.blank_is_default or value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def click_option(name: str, *declarations: str, **attributes: Any
                 ) -> Callable[[Any], Any]:
    """``eventproof``'s option for the setting ``name``: its declarations, default and help
    from the table; ``declarations`` add the parameter's name, ``attributes`` click's own
    (type, callback, metavar...)."""
    import click

    entry = SETTINGS[name]
    if entry.cli is None:
        raise KeyError(f"{name} is not an option of the command line")
    attributes.setdefault("default", None if entry.old.get("cli") else entry.default_for("cli"))
    if "cli" in entry.metavar:
        attributes.setdefault("metavar", entry.metavar["cli"])
    attributes.setdefault("help", entry.help_for("cli"))
    if entry.env is not None:
        attributes.setdefault("envvar", entry.env)
    return click.option(*entry.cli, *declarations, **attributes)


def click_error(name: str, value: Any, face: Face = "cli") -> click.BadParameter:
    """The command line's error for ``value`` of ``name`` (face ``cli`` or ``env``)."""
    import click

    entry = SETTINGS[name]
    where = (f"'{entry.flag}' (from the environment variable {entry.env})" if face == "env"
             else entry.flag)
    return click.BadParameter(entry.problem(value, face), param_hint=where)


def pytest_options(parser: pytest.Parser, group: Any) -> None:
    """The pytest plugin's options and ini names, from the table: one option (with its old
    spellings) and one ini name per setting the plugin exposes."""
    for entry in SETTINGS.on("pytest"):
        assert entry.pytest is not None
        assert entry.ini is not None
        kind = entry.kind
        extra: dict[str, Any] = {}
        if kind is FLAG:
            extra["action"] = "store_true"
        elif kind is EFFORT:
            extra["choices"] = EFFORTS
        elif kind is WHOLE:
            extra["type"] = int
        elif kind is SECONDS:
            extra["type"] = float
        if "pytest" in entry.metavar:
            extra["metavar"] = entry.metavar["pytest"]
        # None: the project's pytest configuration, then the table's default (the command line
        # wins over the file), read by the plugin's _setting.
        group.addoption(entry.pytest, dest=entry.ini, default=None,
                        help=entry.help_for("pytest"), **extra)
        # Each old name is an option of its own, so that the plugin can tell its use with a
        # warning naming the new one (pytest_plugin._effort).
        for old in entry.old.get("pytest", ()):
            group.addoption(old, dest=old.removeprefix("--").replace("-", "_"), default=None,
                            help=f"Old name of {entry.pytest}.", **extra)
        parser.addini(entry.ini, entry.help_for("ini"), default=None)
