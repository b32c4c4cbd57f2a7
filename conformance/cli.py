"""The ``eventproof`` command line: ``run``, ``vectors``, ``replay``, ``rules``, ``bench``,
``report``, ``new-port``.

Exit codes: 0 the implementation conforms, 1 it does not (or an expectation went stale), 2 a usage
or harness error, 130 interrupted (Ctrl-C), 143 terminated (SIGTERM), each after the partial
reports are written. A user mistake prints one clear message, never a traceback.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import shlex
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.text import Text

from ._clip import one_line
from ._console import ReportStream
from ._console import console as _console
from ._console import fail as _fail
from ._console import guard_streams as _guard_streams
from ._console import user_errors as _user_errors
from ._console import writable_dir as _writable_dir
from ._console import writable_file as _writable_file
from ._console import write as _write
from ._model import FIT_STRATEGIES
from ._operations import OPS
from ._results import ExitCode, RunVerdict, combined_exit_code
from ._settings import (
    EFFORTS,
    SETTINGS,
    SettingError,
    click_error,
    click_option,
)

if TYPE_CHECKING:
    from ._check import CheckOptions
    from ._engine import Replays
    from ._progress import ProgressEvent
    from ._results import RunReport

#: The embedded default: the reference checked against itself.
DEFAULT_IMPL = "python:eventproof.reference:Reference"

EXIT_CONFORMS, EXIT_NONCONFORMING, EXIT_USAGE, EXIT_INTERRUPTED = (
    ExitCode.CONFORMS, ExitCode.NONCONFORMING, ExitCode.USAGE, ExitCode.INTERRUPTED)
#: Exit codes of a run ended by a signal: the implementations after it are not checked.
_ENDED_BY_SIGNAL = frozenset({ExitCode.INTERRUPTED, ExitCode.TERMINATED})


def _hypothesis_home(state_dir: Path) -> None:
    """Hypothesis keeps its files (the Unicode tables it caches) under ``--state-dir``'s
    ``hypothesis/``, never in the directory the run starts in; the worker processes inherit the
    setting. ``HYPOTHESIS_STORAGE_DIRECTORY``, when set, wins."""
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        return
    home = str((state_dir / "hypothesis").absolute())
    os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = home
    from hypothesis.configuration import set_hypothesis_home_dir

    set_hypothesis_home_dir(home)

    def restore() -> None:  # a command run in process (tests) leaves no setting behind
        os.environ.pop("HYPOTHESIS_STORAGE_DIRECTORY", None)
        set_hypothesis_home_dir(None)

    click.get_current_context().call_on_close(restore)


def _report_stream(to_stdout: bool) -> ReportStream | None:
    """With ``--json -``: standard output kept for the report alone until the command ends."""
    if not to_stdout:
        return None
    stream = ReportStream()
    click.get_current_context().call_on_close(stream.restore)
    return stream


def _default_impl(fit: str) -> str:
    return DEFAULT_IMPL if fit == "halving" else "python:eventproof.reference:maximal_reference"


def _ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def _parse_ops(value: str | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    ops = tuple(part.strip() for part in value.split(",") if part.strip())
    if not ops:
        # An unset variable in a CI job (--ops "$OPS") must not check nothing and pass.
        raise click.BadParameter(
            f"{value!r} names no operation; give a comma-separated subset of {','.join(OPS)}, "
            "or leave --ops out to check every operation", param_hint="--ops")
    unknown = [op for op in ops if op not in OPS]
    if unknown:
        raise click.BadParameter(
            f"{', '.join(map(repr, unknown))} is not an operation; use a comma-separated subset "
            f"of {','.join(OPS)}", param_hint="--ops")
    return ops


class Progress:
    """The live status line of a check: :class:`._progress.RunProgress` (the one model of how far
    the check is, from its events) rendered with the seconds gone and left, and the last thing
    the searches did. The line is rendered afresh at every refresh of the terminal (``__rich__``),
    so its seconds run on while no event comes (a start, a long request)."""

    def __init__(self, ops: tuple[str, ...], clock: Callable[[], float] = time.monotonic
                 ) -> None:
        from ._progress import RunProgress

        self.model = RunProgress(ops)
        self.clock = clock
        self.started = clock()
        #: When the first event came: the rate of the work is taken from then on (the start of
        #: the implementation and of the worker processes is no part of it).
        self.searching: float | None = None
        #: The events come from the check, the refreshes from the status line's own thread.
        self.lock = threading.Lock()

    def hear(self, event: ProgressEvent) -> None:
        """Count ``event``."""
        with self.lock:
            if self.searching is None:
                self.searching = self.clock()
            self.model.hear(event)

    def line(self) -> Text:
        """The status line: operations done and under way, examples judged, rules broken, the
        seconds gone and left, and the last search round begun, rule broken or search ended."""
        from ._progress import GivenUp, RuleBroken, SearchBegan, SearchEnded

        with self.lock:
            model = self.model
            now = self.clock()
            elapsed = now - self.started
            left = (None if self.searching is None
                    else model.seconds_left(now - self.searching))
            parts: list[str | tuple[str, str]] = [
                (f"{len(model.ended)}/{len(model.ops)} operations done", "bold"),
                f" ({len(model.under_way)} under way), {model.examples:,} examples, "
                f"{len(model.broken)} rule(s) broken, {elapsed:.0f} s",
                "" if left is None else f", about {left:.0f} s left"]
            last = model.last
        if isinstance(last, SearchBegan):
            parts += [" · ", (last.op, "bold"), f": round {last.round}, {last.message}"]
        elif isinstance(last, RuleBroken):
            parts += [" · ", (last.rule, "bold"), f": {last.outcome}"]
        elif isinstance(last, SearchEnded):
            parts += [" · ", (last.op, "bold"), f": done after {last.rounds} round(s)"]
        elif isinstance(last, GivenUp):
            parts += [" · given up: ", one_line(last.reason)]
        return Text.assemble(*parts)

    def __rich__(self) -> Text:
        return self.line()


def _progress(
    console: Console, enabled: bool, ops: tuple[str, ...] = ()
) -> tuple[Callable[[ProgressEvent], None], Callable[[], None]]:
    """A live status line on a terminal (:class:`Progress`); nothing at all elsewhere (CI logs
    stay clean)."""
    if not enabled or not console.is_terminal:
        return (lambda event: None), (lambda: None)
    progress = Progress(ops)
    status = console.status(progress)
    status.start()
    return progress.hear, status.stop


def _seconds(_ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """A number of seconds (``--timeout``, ``--max-time``), as the setting's entry takes it:
    positive and finite (``inf`` and ``nan`` are refused)."""
    if value is None:
        return None
    name = param.name or "timeout"
    if not SETTINGS[name].takes(value, "cli"):
        raise click_error(name, value)
    return value


def _non_blank_impl(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is not None and not value.strip():
        # An unset variable in a CI job (--impl "$IMPL") must not check the bundled reference.
        raise click.BadParameter(
            f"{value!r} is empty; name the implementation ('python:MODULE:ATTR' or a command "
            "line), or leave --impl out to check the bundled reference", param_hint="--impl")
    return value


impl_option = click_option(
    "impl", "impl", callback=_non_blank_impl,
    help="The implementation under test: 'python:MODULE:ATTR' (a Python object) or a command "
         "line speaking spec/protocol.md. Default: the bundled reference.")
timeout_option = click_option("timeout", type=float, show_default=True, callback=_seconds)
isolate_option = click_option("isolate", show_default=True)
shell_option = click_option("shell", "use_shell", is_flag=True)
fit_option = click_option("fit", type=click.Choice(FIT_STRATEGIES), show_default=True)


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``--version``: the kit and the spec, suite, protocol and report versions it speaks."""
    if not value or ctx.resilient_parsing:
        return
    from importlib.metadata import version

    from eventproof.reference import SPEC_VERSION

    from ._operations import RULES
    from ._protocol import PROTOCOL_VERSION
    from ._vectors import VECTORS_REPORT_VERSION
    from ._versions import REPORT_VERSION, SUITE_VERSION

    click.echo(f"eventproof {version('eventproof')}\nspec {SPEC_VERSION}\n"
               f"suite {SUITE_VERSION} ({len(RULES)} rules)\nprotocol {PROTOCOL_VERSION}\n"
               f"report {REPORT_VERSION}\nvectors-report {VECTORS_REPORT_VERSION}")
    ctx.exit()


class _Grouped(click.Command):
    """A command whose ``--help`` lists its options by what they are for (:attr:`SECTIONS`),
    in that order; an option no section names goes under "Other"."""

    #: Section title -> the options' first long names, in the order they are listed.
    SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
        ("What to check", ("--impl", "--ops", "--rule", "--fit", "--shell", "--isolate")),
        ("How hard to search", ("--effort", "--max-examples", "--seed", "--deterministic",
                                "--timeout", "--max-time", "--exitfirst", "--jobs")),
        ("Reports", ("--json", "--junit", "--markdown", "--reports", "--html", "--label",
                     "--timings", "--verbose")),
        ("CI", ("--shard", "--expect", "--update-expectations", "--allow-untested")),
        ("Process", ("--state-dir", "--no-progress", "--help")),
    )

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows: dict[str, tuple[str, str]] = {}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is not None:
                name = next((opt for opt in param.opts if opt.startswith("--")), param.opts[0])
                rows[name] = record
        listed: set[str] = set()
        for title, names in self.SECTIONS:
            records = [rows[name] for name in names if name in rows]
            listed.update(names)
            if records:
                with formatter.section(title):
                    formatter.write_dl(records)
        rest = [record for name, record in rows.items() if name not in listed]
        if rest:
            with formatter.section("Other"):
                formatter.write_dl(rest)


class _Commands(click.Group):
    """The command group: the commands of :data:`LAZY_COMMANDS` are imported when first asked
    for, so a command starts without the modules only the others need."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in LAZY_COMMANDS and cmd_name not in self.commands:
            import importlib

            module, attribute = LAZY_COMMANDS[cmd_name]
            self.add_command(getattr(importlib.import_module(module), attribute), cmd_name)
        return super().get_command(ctx, cmd_name)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True,
              callback=_print_version, help="Show the kit, spec, suite and protocol versions.")
@click.option("--no-color", is_flag=True, expose_value=False, is_eager=True,
              callback=lambda _ctx, _param, value: os.environ.update(NO_COLOR="1") if value
              else None, help="No colours or styles (as NO_COLOR does).")
@click.pass_context
def main(ctx: click.Context) -> None:
    """Check an AI-agent event-stream implementation against the eventproof spec."""
    # A closed, broken or ASCII-only standard stream never ends a command: what cannot be
    # shown is escaped or dropped, the reports are written and the exit code is the verdict's.
    ctx.call_on_close(_guard_streams())
    try:
        os.getcwd()
    except OSError:
        _fail("the working directory no longer exists (it was deleted or moved away while this "
              "shell was in it). cd to an existing directory and run the command again")


def _jobs(value: str | int, ctx: click.Context | None = None) -> int:
    """``--jobs`` (or ``EVENTPROOF_JOBS``): a whole number of worker processes, at least 1, or
    ``auto`` (one per usable core, at most :data:`._settings.AUTO_JOBS_LIMIT`)."""
    from click.core import ParameterSource

    try:
        return int(SETTINGS["jobs"].resolve(str(value), "cli"))
    except SettingError:
        source = ctx.get_parameter_source("jobs") if ctx is not None else None
        raise click_error("jobs", value, "env" if source == ParameterSource.ENVIRONMENT
                          else "cli") from None


def _effort(effort: str | None, **old: str | None) -> str:
    """``--effort``, or an old spelling of it (``--examples``, ``--budget``, ``--profile``) with
    a notice on stderr: "examples" counts the inputs a search draws (``--max-examples``),
    "budget" names the budget profile, "profile" a rule set."""
    chosen = effort
    for name, value in old.items():
        if value is None:
            continue
        flag = f"--{name.removeprefix('old_')}"
        if chosen is not None and chosen != value:
            raise click.UsageError(f"--effort {chosen} and {flag} {value} disagree; {flag} is "
                                   "an old name of --effort: drop it")
        click.echo(f"eventproof: {flag} is now --effort (use --effort {value}); the old "
                   "name will be removed in the next release", err=True)
        chosen = value
    return chosen or "default"


#: Where the first run on the embedded default points next (docs/port-checklist.md, published).
PORT_CHECKLIST_URL = "https://github.com/eventproof/eventproof/blob/main/docs/port-checklist.md"


def _non_blank_impls(ctx: click.Context, param: click.Parameter,
                     values: tuple[str, ...]) -> tuple[str, ...]:
    for value in values:
        _non_blank_impl(ctx, param, value)
    return values


@main.command(cls=_Grouped)
@click_option("impl", "impls", multiple=True, callback=_non_blank_impls)
@fit_option
@click_option("rules", "rule_ids", multiple=True)
@click_option("effort", type=click.Choice(EFFORTS))
@click.option("--examples", "old_examples", type=click.Choice(EFFORTS), default=None, hidden=True,
              help="Old spelling of --effort (examples counts inputs, --max-examples).")
@click.option("--budget", "old_budget", type=click.Choice(EFFORTS),
              default=None, hidden=True,
              help="Old spelling of --effort (budget names the budget profile now).")
@click.option("--profile", "old_profile", type=click.Choice(EFFORTS),
              default=None, hidden=True,
              help="Old spelling of --effort (a profile is a rule set now).")
@click_option("max_examples", type=click.IntRange(min=1))
@click_option("seed", type=int)
@click_option("deterministic")
@click_option("ops")
@timeout_option
@click_option("max_time", type=float, callback=_seconds)
@isolate_option
@shell_option
@click_option("expect", "expect", type=click.Path(dir_okay=False, path_type=Path))
@click_option("update_expectations", is_flag=True)
@click_option("json", "json_path", type=click.Path(dir_okay=False, path_type=Path))
@click_option("junit", "junit_path", type=click.Path(dir_okay=False, path_type=Path))
@click_option("markdown", "markdown_path", type=click.Path(dir_okay=False, path_type=Path))
@click_option("reports", "reports_dir", type=click.Path(file_okay=False, path_type=Path))
@click_option("html", "html_dir", type=click.Path(path_type=Path))
@click_option("label", "labels", multiple=True)
@click_option("timings", is_flag=True)
@click_option("state_dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path(SETTINGS["state_dir"].default_for("cli")), show_default=True)
@click_option("jobs", show_default=True, show_envvar=True,
              callback=lambda ctx, _param, value: _jobs(value, ctx))
@click_option("shard")
@click_option("allow_untested", is_flag=True)
@click_option("exitfirst", is_flag=True)
@click_option("progress", "no_progress", is_flag=True)
@click_option("verbose", is_flag=True)
def run(
    impls: tuple[str, ...], rule_ids: tuple[str, ...], fit: str, effort: str | None,
    old_examples: str | None,
    old_budget: str | None,
    old_profile: str | None,
    max_examples: int | None, seed: int | None,
    deterministic: bool | None, ops: str | None, timeout: float, max_time: float | None,
    isolate: bool, use_shell: bool,
    expect: Path | None, update_expectations: bool, json_path: Path | None,
    junit_path: Path | None, markdown_path: Path | None, reports_dir: Path | None,
    html_dir: Path | None, labels: tuple[str, ...], timings: bool, state_dir: Path, jobs: int,
    shard: str | None, allow_untested: bool, exitfirst: bool, no_progress: bool,
    verbose: bool,
) -> None:
    """Search for inputs on which IMPL disagrees with the reference.

    With several --impl, each implementation is checked in turn, in its own run with the same
    settings; the exit code is 2 when one could not be checked, else 1 when one does not
    conform, else 0.
    """
    from . import _expectations
    from ._signals import on_sigterm_raise

    # SIGTERM (timeout, kill, a cancelled CI job) ends the run as Ctrl-C does: the program is
    # stopped, the partial reports are written, and the exit code is 143.
    on_sigterm_raise()
    to_stdout = json_path is not None and str(json_path) == "-"
    _writable_file("--json", json_path)
    report_stream = _report_stream(to_stdout)
    console = _console(stderr=to_stdout)
    effort = _effort(effort, old_examples=old_examples, old_budget=old_budget,
                     old_profile=old_profile)
    wanted = _parse_ops(ops)
    if update_expectations and expect is None:
        raise click.UsageError("--update-expectations needs --expect FILE to know what to rewrite")
    if len(impls) > 1:
        for option, value in (("--json", json_path), ("--junit", junit_path),
                              ("--markdown", markdown_path)):
            if value is not None:
                raise click.UsageError(
                    f"{option} {value} names one report, but {len(impls)} implementations are "
                    "checked; give --reports DIR instead (NAME.json, NAME.xml and NAME.md per "
                    "implementation)")
        if expect is not None:
            raise click.UsageError(
                f"--expect {expect} lists the expected failures of one implementation, but "
                f"{len(impls)} are checked; check each with its own --expect in a run of its own")
    if labels and html_dir is None:
        raise click.UsageError("--label heads a column of the --html matrix: give --html DIR too")
    if labels and len(labels) != len(impls or ("",)):
        raise click.UsageError(f"{len(labels)} --label for {len(impls or ('',))} --impl: give "
                               "one --label per --impl, in the same order, or none")
    if any(not label.strip() for label in labels):
        raise click.UsageError("--label '': a column needs a heading to be told apart by")
    is_deterministic = _ci() if deterministic is None else deterministic
    for option, path in (("--json", json_path), ("--junit", junit_path),
                         ("--markdown", markdown_path)):
        _writable_file(option, path)
    html_page = "index.html"
    if html_dir is not None:
        from ._console import html_target

        html_dir, html_page, note = html_target(html_dir)
        if note:
            _console(stderr=True).print(note, markup=False, soft_wrap=True)
    for option, directory in (("--reports", reports_dir), ("--html", html_dir)):
        if directory is not None:
            if directory.exists() and not directory.is_dir():
                _fail(f"{option} {directory}: is a file. Name a directory to write into")
            _writable_dir(option, directory)
    _writable_dir("--state-dir", state_dir)
    _hypothesis_home(state_dir)
    with _user_errors():
        expected = (_expectations.load_expectations(expect)
                    if expect is not None and expect.exists() and not update_expectations else {})
        if expect is not None and not expect.exists() and not update_expectations:
            _fail(f"--expect {expect}: no such file. Create it with --update-expectations, "
                  "or leave --expect out.")
        from ._shard import parse_shard, shard_ops

        selected = wanted if wanted is not None else OPS
        parsed = parse_shard(shard) if shard is not None else None
        if parsed is not None and not shard_ops(selected, parsed):
            _fail(f"--shard {shard}: this slice holds no operation (there are only "
                  f"{len(wanted or OPS)}); use fewer slices")
    specs = list(impls) or [_default_impl(fit)]
    if len(specs) > 1 and not is_deterministic and seed is None:
        import random

        seed = random.getrandbits(32)  # one random seed for every implementation of the run
    from ._check import CheckOptions
    from ._engine import Replays

    with _user_errors():
        options = CheckOptions(
            ops=wanted, shard=parsed, jobs=jobs, effort=effort, max_examples=max_examples,
            seed=seed, deterministic=is_deterministic, timeout=timeout, use_shell=use_shell,
            database=state_dir / "examples", allow_untested=allow_untested,
            max_time=max_time, isolate=isolate, exitfirst=exitfirst,
            rules=frozenset(rule_ids))
    # Only an implementation after the first replays searches (the digests of one run's searches
    # differ): a run of one keeps no trace.
    settings = _RunSettings(options=options, state_dir=state_dir, progress=not no_progress,
                            replays=Replays() if len(specs) > 1 else None)
    outputs = _Outputs(json_path=json_path, report_stream=report_stream, junit_path=junit_path,
                       markdown_path=markdown_path, reports_dir=reports_dir, html_dir=html_dir,
                       html_page=html_page, labels=labels, timings=timings, verbose=verbose)
    code = _Run(specs, settings, outputs, console, expected=expected,
                update_expectations=expect if update_expectations else None,
                first_run=not impls).execute()
    sys.exit(int(code))


@dataclass(frozen=True)
class _RunSettings:
    """What every implementation of one ``eventproof run`` is checked with: the check's options,
    and what only the command line has."""

    options: CheckOptions
    state_dir: Path
    progress: bool
    #: The traces of the run's searches that found nothing, replayed for the implementations
    #: after the first (None: a run of one implementation keeps none).
    replays: Replays | None = None


@dataclass(frozen=True)
class _Outputs:
    """Where one ``eventproof run`` reports: the files and directories its options name, and
    how the console shows each implementation."""

    json_path: Path | None
    report_stream: ReportStream | None
    junit_path: Path | None
    markdown_path: Path | None
    reports_dir: Path | None
    html_dir: Path | None
    html_page: str
    labels: tuple[str, ...]
    timings: bool
    verbose: bool


class _Run:
    """One ``eventproof run`` once its options are parsed: checks each implementation in turn,
    writes every report, the matrix and the summary, and decides the exit code."""

    def __init__(self, specs: list[str], settings: _RunSettings, outputs: _Outputs,
                 console: Console, *, expected: dict[str, str],
                 update_expectations: Path | None, first_run: bool) -> None:
        self.specs = specs
        self.settings = settings
        self.outputs = outputs
        self.console = console
        self.expected = expected
        #: The --expect file to rewrite with the first implementation's failures (None: none).
        self.update_expectations = update_expectations
        #: A run of the embedded default (no --impl): it ends by naming the next step.
        self.first_run = first_run
        self.checked: list[_Checked] = []

    def execute(self) -> ExitCode:
        """Check every implementation, report, and return the run's exit code."""
        specs, console = self.specs, self.console
        # Every implementation is started and answers its handshake before the first search, so
        # a misspelt one is reported in seconds, not after the others' runs.
        unusable = _start_each(specs, self.settings.options) if len(specs) > 1 else {}
        for index, spec in enumerate(specs, start=1):
            if len(specs) > 1:
                if index > 1:
                    console.print()
                console.print(Text(f"== {index}/{len(specs)}: --impl {shlex.quote(spec)}",
                                   style="bold"), soft_wrap=True)
            if spec in unusable:
                console.print(Text(f"  could not be checked: {_first_line(unusable[spec])}"),
                              soft_wrap=True)
                self.checked.append(_Checked(spec, None, error=unusable[spec]))
                continue
            entry = self.check_one(spec)
            if entry is None:
                continue
            self.checked.append(entry)
            if entry.verdict.exit_code in _ENDED_BY_SIGNAL:
                break
        return self.finish()

    def check_one(self, spec: str) -> _Checked | None:
        """Check ``spec`` and write its reports; None when, in a run of several, it could not
        be checked (then recorded as such)."""
        settings = self.settings
        if len(self.specs) == 1:
            with _user_errors():
                report = _check(spec, settings)
        else:
            try:
                remember: list[str] = []
                with _user_errors(remember):
                    report = _check(spec, settings)
            except SystemExit as stop:
                if stop.code != EXIT_USAGE:
                    raise
                self.checked.append(_Checked(spec, None, error=remember[-1] if remember else
                                             "could not be checked"))
                return None
        if self.update_expectations is not None:
            from . import _expectations

            expect = self.update_expectations
            with _user_errors():
                _expectations.write_expectations(expect, report)
            self.console.print(f"wrote {len(report.failed_rule_ids)} expectation(s) to {expect}")
            sys.exit(EXIT_CONFORMS)
        entry = _Checked(spec, report)
        outputs = self.outputs
        with _user_errors():
            _report_one(entry, self.checked, settings, self.console, expected=self.expected,
                        verbose=outputs.verbose, json_path=outputs.json_path,
                        report_stream=outputs.report_stream, junit_path=outputs.junit_path,
                        markdown_path=outputs.markdown_path, reports_dir=outputs.reports_dir,
                        html_dir=outputs.html_dir, timings=outputs.timings)
        return entry

    def finish(self) -> ExitCode:
        """The matrix, the summary of several implementations or the next step after the
        first run, a note on a run cut short; the exit code of every verdict."""
        specs, checked, console, outputs = self.specs, self.checked, self.console, self.outputs
        if outputs.html_dir is not None:
            # An implementation the run did not reach (it ended first) still has its column.
            ended = [_Checked(spec, None, error="not checked: the run ended before it reached "
                              "this implementation") for spec in specs[len(checked):]]
            _write_html(outputs.html_dir, [*checked, *ended], outputs.labels,
                        outputs.reports_dir, console, page_name=outputs.html_page)
        code = combined_exit_code(entry.verdict for entry in checked)
        if len(specs) > 1:
            _summarize(checked, console, skipped=specs[len(checked):], code=code)
        elif self.first_run and not any(entry.report is not None and entry.report.cut_short
                                        for entry in checked):
            _first_run_hint(console)
        for done in (entry.report for entry in checked if entry.report is not None):
            if done.cut_short:
                _console(stderr=True).print(Text.assemble(
                    (done.cut_short, "bold"), f" after {done.duration:.1f} s: the rules it "
                    "did not judge are reported untested"), soft_wrap=True)
        return code


@dataclass
class _Checked:
    """One implementation of a run: its report (None when it could not be checked) and the
    files written for it."""

    spec: str
    report: RunReport | None
    json_file: Path | None = None
    #: Why it could not be checked (when :attr:`report` is None).
    error: str = ""

    @property
    def verdict(self) -> RunVerdict:
        """The report's verdict, or the verdict on an implementation that could not be
        checked."""
        if self.report is None:
            return RunVerdict.could_not_check(self.error or "could not be checked")
        return self.report.verdict


def _start_each(specs: list[str], options: CheckOptions) -> dict[str, str]:
    """Start each implementation and take its handshake, then stop it: the ones that cannot
    start, each with its error (printed once, here)."""
    unusable: dict[str, str] = {}
    for spec in dict.fromkeys(specs):
        remember: list[str] = []
        try:
            with _user_errors(remember):
                adapter = options.adapter_for(spec)
                try:
                    adapter.start()
                finally:
                    adapter.stop()
        except SystemExit as stop:
            if stop.code != EXIT_USAGE:
                raise
            unusable[spec] = remember[-1] if remember else "could not be started"
    return unusable


def _check(spec: str, settings: _RunSettings) -> RunReport:
    from ._check import check

    update, stop = _progress(_console(stderr=True), settings.progress,
                             settings.options.checked_ops)
    try:
        return check(spec, settings.options, on_event=update, replays=settings.replays)
    finally:
        stop()


def _report_one(entry: _Checked, earlier: list[_Checked], settings: _RunSettings,
                console: Console, *, expected: dict[str, str], verbose: bool,
                json_path: Path | None, report_stream: ReportStream | None,
                junit_path: Path | None, markdown_path: Path | None,
                reports_dir: Path | None, html_dir: Path | None, timings: bool) -> None:
    """Apply the expectations, save the failure cases, print the summary and write every
    report of one checked implementation."""
    from . import _replay, _reports
    from ._matrix import slugs
    from ._replay import implementation_directory
    from ._results import apply_expectations

    assert entry.report is not None
    report = entry.report = apply_expectations(entry.report, expected)
    name = str(report.implementation.get("name", "implementation"))
    # Two implementations declaring one name would share (and clean up) each other's case
    # files: the second one's go under --state-dir/<NAME-2>/failures/.
    directory = implementation_directory(name)
    same = [other for other in earlier if other.report is not None and implementation_directory(
        str(other.report.implementation.get("name", "implementation"))) == directory]
    named = [str(other.report.implementation.get("name", "implementation"))
             for other in earlier if other.report is not None] + [name]
    slug = slugs(named)[-1]
    failures = settings.state_dir / "failures" if not same else (
        settings.state_dir / slug / "failures")
    files: dict[str, Path] = {}
    _write("--state-dir", failures,
           lambda: files.update(_replay.save_failures(report, failures)))
    spec = entry.spec
    _reports.render_console(report, console, verbose=verbose, replay_files=files,
                            impl_spec=spec)
    if json_path is not None and str(json_path) == "-":
        assert report_stream is not None
        report_stream.write(_reports.dumps_json(_reports.report_document(
            report, replay_files=files, timings=timings), indent=2) + "\n")
    elif json_path is not None:
        _write("--json", json_path, lambda: _reports.write_json(
            report, json_path, replay_files=files, timings=timings))
        entry.json_file = json_path
    if junit_path is not None:
        _write("--junit", junit_path, lambda: _reports.write_junit(
            report, junit_path, replay_files=files, impl_spec=spec))
    if markdown_path is not None:
        _write("--markdown", markdown_path, lambda: _reports.write_markdown(
            report, markdown_path, replay_files=files, impl_spec=spec))
    target = reports_dir if reports_dir is not None else (
        html_dir / "reports" if html_dir is not None and entry.json_file is None else None)
    if target is None:
        return
    option = "--reports" if reports_dir is not None else "--html"
    document = target / f"{slug}.json"
    _write(option, document, lambda: _reports.write_json(
        report, document, replay_files=files, timings=timings))
    entry.json_file = document
    if reports_dir is not None:
        _write(option, target / f"{slug}.xml", lambda: _reports.write_junit(
            report, target / f"{slug}.xml", replay_files=files, impl_spec=spec))
        _write(option, target / f"{slug}.md", lambda: _reports.write_markdown(
            report, target / f"{slug}.md", replay_files=files, impl_spec=spec))


def _write_html(html_dir: Path, checked: list[_Checked], labels: tuple[str, ...],
                reports_dir: Path | None, console: Console, *,
                page_name: str = "index.html") -> None:
    """The matrix of every implementation of the run, one column each: the report of each one
    checked, and for one that could not be checked a short report of its command and verdict
    (``could not be checked``, its error), written next to the others."""
    from ._json import dumps_json
    from ._matrix import MatrixError, slugs, unchecked_report, write_matrix

    target = reports_dir if reports_dir is not None else html_dir / "reports"
    unchecked = [entry for entry in checked if entry.report is None]
    names = slugs(f"unchecked-{entry.spec}" for entry in unchecked)
    option = "--reports" if reports_dir is not None else "--html"
    for entry, name in zip(unchecked, names, strict=True):
        document = target / f"{name}.json"
        text = dumps_json(unchecked_report(entry.spec, entry.verdict), indent=2) + "\n"

        def save(path: Path = document, text: str = text) -> None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")

        _write(option, document, save)
        entry.json_file = document
    shown = [(entry, label) for entry, label in zip(
        checked, labels or [""] * len(checked), strict=False) if entry.json_file is not None]
    if not shown:
        _console(stderr=True).print(f"no report to render under --html {html_dir}: no "
                                    "implementation was checked", markup=False, soft_wrap=True)
        return
    try:
        written = write_matrix(html_dir, [entry.json_file for entry, _ in shown
                                          if entry.json_file is not None],
                               labels=[label for _, label in shown] if labels else None,
                               page_name=page_name)
    except MatrixError as error:
        _fail(str(error))
    except OSError as error:
        _fail(f"--html {html_dir}: the matrix could not be written "
              f"({error.strerror or error}). Name a directory you can write to")
    console.print(f"matrix: {written[0]} ({len(shown)} report(s), {len(written) - 1} "
                  "badge(s))", markup=False, soft_wrap=True)


def _summarize(checked: list[_Checked], console: Console, *, skipped: list[str],
               code: int) -> None:
    """One line per implementation (its verdict first, so ``grep`` selects by verdict), then
    the run's verdict and the exit code the process returns."""
    console.print()
    conforming = sum(1 for entry in checked if entry.verdict.conforms)
    console.print(Text(f"{conforming} of {len(checked) + len(skipped)} implementation(s) "
                       "conform", style="bold"), soft_wrap=True)
    styles = {"conforms": "green", "interrupted": "magenta", "terminated": "magenta",
              "checked only part": "yellow", "stale expectations": "yellow"}
    for entry in checked:
        verdict = entry.verdict
        line = Text(f"  {verdict.headline:<20}", style=styles.get(verdict.headline, "red"))
        line.append(f"--impl {shlex.quote(entry.spec)}")
        if entry.report is not None:
            identity = entry.report.implementation
            declared = one_line(" ".join(str(identity[key]) for key in ("name", "version")
                                         if identity.get(key)))
            line.append(f"  ({declared or 'unnamed implementation'})")
            line.append(f"  {verdict.line()}")
        else:
            line.append(f"  ({_first_line(entry.error)})")
        if entry.json_file is not None:
            line.append(f"  report: {entry.json_file}")
        console.print(line, soft_wrap=True)
    for spec in skipped:
        console.print(Text(f"  {'not checked':<20}--impl {shlex.quote(spec)}  (the run ended "
                           "first)"), soft_wrap=True)
    meanings: dict[int, str] = {EXIT_CONFORMS: "every implementation conforms",
               EXIT_NONCONFORMING: "an implementation does not conform",
               EXIT_USAGE: "an implementation could not be checked",
               ExitCode.INTERRUPTED: "the run was interrupted",
               ExitCode.TERMINATED: "the run was terminated"}
    meaning = meanings[code]
    console.print(Text(f"exit code {code}: {meaning}"), soft_wrap=True)


def _first_line(text: str, limit: int = 300) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[:limit] + "…"


def _first_run_hint(console: Console) -> None:
    """After a run of the embedded default: what to do next, one instruction per line."""
    console.print()
    console.print("Next: check your implementation with  eventproof run --impl "
                  "'node my-port/eventproof-port.mjs'  (any command speaking spec/protocol.md, "
                  "or python:MODULE:ATTR); start one from a template with  eventproof new-port "
                  "js my-port  (or typescript, go)", markup=False, soft_wrap=True)
    console.print(f"      the traps each language falls into, with the rule that catches each: "
                  f"docs/port-checklist.md ({PORT_CHECKLIST_URL})", markup=False, soft_wrap=True)

@main.command()
@click.argument("files", nargs=-1,
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--impl", "impl", metavar="SPEC", default=None, callback=_non_blank_impl,
    help="Replay every case against this implementation ('python:MODULE:ATTR' or a command "
         "line) instead of the one it was saved from; each case saved from another says so. "
         "Default: each case's own implementation, as its file records it.")
@click.option("--fit", type=click.Choice(FIT_STRATEGIES), default=None, hidden=True,
              help="Accepted for older scripts; a replay never falls back to the reference.")
@click.option("--timeout", type=float, default=None, callback=_seconds,
              help="Seconds one request may take (default: the --timeout each case's run used).")
@click.option("--isolate/--in-process", default=None,
              help="Run a python: implementation in a worker process, or in this one "
                   "(default: as each case's run did).")
@click.option("--shell/--no-shell", "use_shell", default=None,
              help="Start the implementation through the shell, or not (default: as each "
                   "case's run did).")
@click.option("--state-dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path(".eventproof"), show_default=True,
              help="Without FILES, replay every case saved under this directory's failures/.")
@click.option("--prune", is_flag=True,
              help="Remove the case files of the cases that are fixed now (and say which).")
def replay(files: tuple[Path, ...], impl: str | None, fit: str | None,
           timeout: float | None, isolate: bool | None, use_shell: bool | None,
           state_dir: Path, prune: bool) -> None:
    """Re-run saved failure case files (default: every saved failure) and say which are fixed.

    Each case is replayed against the implementation it was saved from (the command, --shell,
    --timeout and --isolate its file records); --impl replays every case against another one
    instead, and says so on each case saved from another. Each input is asked twice: answers
    that differ are unstable, never fixed. The exit code is the run's for the same rules: 0
    when every MUST rule's case is fixed and none is unstable (a SHOULD rule decides nothing).
    """
    from . import _replay
    from ._versions import HYPOTHESIS_VERSION

    console = _console()
    if not files:
        files = tuple(sorted((state_dir / "failures").glob("*/*.json"))
                      + sorted((state_dir).glob("*/failures/*/*.json")))
        if not files:
            _fail(f"no saved failures under {state_dir / 'failures'}: `eventproof run` saves "
                  "one case file per broken rule there; name case files to replay them")
    with _user_errors():
        cases = _replay.load_cases(files)
    for case in cases:
        if case.hypothesis_version and case.hypothesis_version != HYPOTHESIS_VERSION:
            console.print(f"note: {case.path} was found with Hypothesis {case.hypothesis_version}"
                          f", this is {HYPOTHESIS_VERSION}: the saved input replays exactly, but "
                          "rerunning the search may draw other inputs", markup=False,
                          soft_wrap=True)
    del fit  # each case goes to the implementation it was saved from, never to a reference
    with _user_errors():
        groups = _replay.plan_replay(cases, impl=impl, timeout=timeout, use_shell=use_shell,
                                     isolate=isolate)
    outcomes: dict[int, tuple[_replay.ReplayResult, str]] = {}
    for group in groups:
        where: contextlib.AbstractContextManager[Any] = contextlib.nullcontext()
        here = ""
        if group.cwd is not None and Path(group.cwd) != Path.cwd():
            if Path(group.cwd).is_dir():
                where = contextlib.chdir(group.cwd)
                here = f" in {group.cwd} (the directory the run that saved them ran in)"
            else:
                here = (f" in this directory: the one the run that saved them ran in, "
                        f"{group.cwd}, no longer exists")
        console.print(Text(f"replaying {len(group.cases)} case(s) against {group.options()}"
                           f"{here}"), soft_wrap=True)
        with _user_errors(), where:
            results = _replay.replay(group.cases, group.impl, timeout=group.timeout,
                                     use_shell=group.use_shell, isolate=group.isolate,
                                     expect_name=group.expect_name)
        for case, result, note in zip(group.cases, results, group.notes, strict=True):
            outcomes[next(index for index, each in enumerate(cases) if each is case)] = (
                result, note)
    ordered = [outcomes[index] for index in range(len(cases))]
    for result, note in ordered:
        fixed = result.status == "fixed"
        line = Text.assemble((result.status, "green" if fixed else "red"),
                             f"  {result.case.path}  ({result.case.rule})")
        if note:
            line.append(f"  [{note}]", style="yellow")
        console.print(line, soft_wrap=True)
        if not fixed and result.message:
            console.print(Text(f"    {result.message}"), soft_wrap=True)
    verdict = _replay.ReplayVerdict.of([result for result, _note in ordered])
    if prune:
        for path in _replay.prune(result for result, _note in ordered):
            console.print(Text(f"removed {path} (fixed)"), soft_wrap=True)
    console.print(Text(verdict.line(), style="green" if verdict.exit_code == 0 else "bold red"),
                  soft_wrap=True)
    sys.exit(int(verdict.exit_code))


@main.command()
@impl_option
@fit_option
@timeout_option
@shell_option
@isolate_option
@click.option("--rule", "rule_filter", default=None, help="Only vectors of rules with this prefix.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the vectors report (schemas/vectors-report.json) here; '-' writes it "
                   "to stdout (the console summary then goes to stderr).")
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write a JUnit XML report here: one testsuite per vector file, one testcase "
                   "per vector.")
def vectors(impl: str | None, fit: str, timeout: float, use_shell: bool, isolate: bool,
            rule_filter: str | None, json_path: Path | None, junit_path: Path | None) -> None:
    """Run the language-neutral vectors of spec/vectors/ against IMPL (a smoke check)."""
    from . import _vectors

    to_stdout = json_path is not None and str(json_path) == "-"
    for option, path in (("--json", json_path), ("--junit", junit_path)):
        _writable_file(option, path)
    report_stream = _report_stream(to_stdout)
    console = _console(stderr=to_stdout)
    spec = impl or _default_impl(fit)
    with _user_errors():
        outcome = _vectors.run_vectors(spec, timeout=timeout, use_shell=use_shell,
                                       rule_prefix=rule_filter, isolate=isolate)
    _vectors.render(outcome, console, impl_spec=spec)
    if report_stream is not None:
        report_stream.write(_vectors.dumps_vectors_document(outcome, impl_spec=spec))
    elif json_path is not None:
        _write("--json", json_path,
               lambda: _vectors.write_vectors_json(outcome, json_path, impl_spec=spec))
    if junit_path is not None:
        _write("--junit", junit_path,
               lambda: _vectors.write_vectors_junit(outcome, junit_path, impl_spec=spec))
    sys.exit(outcome.exit_code)


@main.command()
@click.option("--where", "where", metavar="RULE_ID", default=None,
              help="Print every place the rule lives: spec section, schema, reference, check, "
                   "input families, vectors and miniatures.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the rules as one JSON array (id, level, profile, op, section, title).")
def rules(where: str | None, as_json: bool) -> None:
    """List every rule: id, level, operation and spec section."""
    from ._operations import RULES, RULES_BY_ID

    console = _console()
    if as_json:
        import json

        click.echo(json.dumps([{"id": rule.id, "level": rule.level, "profile": rule.profile,
                                "op": rule.op, "section": rule.section, "title": rule.title}
                               for rule in RULES], ensure_ascii=False, indent=2))
        return
    if where is not None:
        from ._where import describe

        if where not in RULES_BY_ID:
            close = difflib.get_close_matches(where, RULES_BY_ID, n=3)
            hint = f" Did you mean {', '.join(close)}?" if close else ""
            raise click.BadParameter(f"{where!r} is not a rule id.{hint} `eventproof rules` "
                                     "lists them.", param_hint="--where")
        console.print(describe(where), markup=False, soft_wrap=True)
        return
    for rule in RULES:
        console.print(f"{rule.id:28} {rule.level:6} {rule.op:9} {rule.section:20} {rule.title}",
                      markup=False)


@main.command("spec")
@click.argument("section", nargs=-1, required=True)
def spec_command(section: tuple[str, ...]) -> None:
    """Print a section of the spec, from the copy installed with the kit.

    SECTION as reports cite it: selection.md#3.1, 'spec/wire.md §5.2', budget 5.3, or a file
    alone (protocol) for its table of contents. Exit code 2 for a section that does not exist.
    """
    from ._spec_text import SpecError, find_section

    try:
        found = find_section(" ".join(section))
    except SpecError as error:
        _fail(str(error))
    _console().print(found.text, markup=False, soft_wrap=True, highlight=False)


#: Commands whose modules load only when the command runs or is listed (``eventproof run``
#: never pays for the audit, the benchmarks or the templates): name -> (module, attribute).
LAZY_COMMANDS = {
    "audit": ("eventproof.conformance.audit", "audit_command"),
    "bench": ("eventproof.conformance._bench", "bench"),
    "new-port": ("eventproof.conformance._new_port", "new_port"),
    "report": ("eventproof.conformance._report_cli", "report"),
}


def entry(argv: list[str] | None = None) -> Any:
    """Run the CLI in process (tests)."""
    return main.main(args=argv, prog_name="eventproof", standalone_mode=False)
