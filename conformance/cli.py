"""The ``eventproof`` command line: ``run``, ``vectors``, ``replay``, ``rules``, ``bench``.

Exit codes: 0 the implementation conforms, 1 it does not (or an expectation went stale), 2 a usage
or harness error. A user mistake prints one clear message, never a traceback.
"""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import click
from rich.console import Console

from ._model import FIT_STRATEGIES
from ._operations import OPS

#: The embedded default: the reference checked against itself.
DEFAULT_IMPL = "python:eventproof.reference:Reference"

EXIT_CONFORMS, EXIT_NONCONFORMING, EXIT_USAGE = 0, 1, 2


def _fail(message: str) -> NoReturn:
    Console(stderr=True, highlight=False).print(f"[bold red]error:[/] {message}")
    sys.exit(EXIT_USAGE)


@contextmanager
def _user_errors() -> Iterator[None]:
    """Turn every error that a user can fix into one clear message and exit code 2."""
    from ._errors import ExpectationsError, HarnessError, ProtocolError, UsageError

    try:
        yield
    except (UsageError, HarnessError, ExpectationsError, ProtocolError) as error:
        _fail(str(error))


def _default_impl(fit: str) -> str:
    return DEFAULT_IMPL if fit == "halving" else "python:eventproof.reference:maximal_reference"


def _ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def _parse_ops(value: str | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    ops = tuple(part.strip() for part in value.split(",") if part.strip())
    unknown = [op for op in ops if op not in OPS]
    if unknown:
        raise click.BadParameter(
            f"{', '.join(map(repr, unknown))} is not an operation; use a comma-separated subset "
            f"of {','.join(OPS)}", param_hint="--ops")
    return ops


def _progress(
    console: Console, enabled: bool
) -> tuple[Callable[[str, str], None], Callable[[], None]]:
    """A live status line on a terminal; nothing at all elsewhere (CI logs stay clean)."""
    if not enabled or not console.is_terminal:
        return (lambda op, message: None), (lambda: None)
    status = console.status("starting")
    status.start()

    def update(op: str, message: str) -> None:
        status.update(f"[bold]{op}[/]: {message}")

    return update, status.stop


impl_option = click.option(
    "--impl", "impl", metavar="SPEC", default=None,
    help="The implementation under test: 'python:MODULE:ATTR' (in process) or a command line "
         "speaking spec/protocol.md. Default: the bundled reference.")
timeout_option = click.option(
    "--timeout", type=click.FloatRange(min=0.1), default=10.0, show_default=True,
    help="Seconds one request may take before the implementation is stopped and restarted.")
shell_option = click.option(
    "--shell", "use_shell", is_flag=True,
    help="Start --impl through the shell (pipes, env assignments); off by default.")
fit_option = click.option(
    "--fit", type=click.Choice(FIT_STRATEGIES), default="halving", show_default=True,
    help="Fit strategy of the bundled reference when --impl is not given.")


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``--version``: the kit and the spec, suite, protocol and report versions it speaks."""
    if not value or ctx.resilient_parsing:
        return
    from importlib.metadata import version

    from eventproof.reference import SPEC_VERSION

    from ._protocol import PROTOCOL_VERSION
    from ._versions import REPORT_VERSION, SUITE_VERSION
    from ._operations import RULES

    click.echo(f"eventproof {version('eventproof')}\nspec {SPEC_VERSION}\n"
               f"suite {SUITE_VERSION} ({len(RULES)} rules)\nprotocol {PROTOCOL_VERSION}\n"
               f"report {REPORT_VERSION}")
    ctx.exit()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True,
              callback=_print_version, help="Show the kit, spec, suite and protocol versions.")
def main() -> None:
    """Check an AI-agent event-stream implementation against the eventproof spec."""


def _budget(budget: str | None, old_profile: str | None) -> str:
    """``--budget``, or the deprecated ``--profile`` with a notice on stderr."""
    if old_profile is not None:
        if budget is not None and budget != old_profile:
            raise click.UsageError(f"--budget {budget} and --profile {old_profile} disagree; "
                                   "--profile is the old name of --budget: drop it")
        click.echo(f"eventproof: --profile is deprecated and will be removed in the next release; "
                   f"use --budget {old_profile} (a profile now names a rule set: selection, "
                   "wire …)", err=True)
        return budget or old_profile
    return budget or "default"


@main.command()
@impl_option
@fit_option
@click.option("--budget", type=click.Choice(["quick", "default", "thorough"]), default=None,
              help="Example budget per operation search: quick 60, default 200, thorough 2000.")
@click.option("--profile", "old_profile", type=click.Choice(["quick", "default", "thorough"]),
              default=None, hidden=True,
              help="Deprecated spelling of --budget (a profile is a rule set now).")
@click.option("--max-examples", type=click.IntRange(min=1), default=None,
              help="Override the budget's examples per operation search.")
@click.option("--seed", type=int, default=None,
              help="Seed the search (ignored with --deterministic).")
@click.option("--deterministic/--random", default=None,
              help="Derandomized search, no example database: the CI mode. Default: on when the "
                   "CI environment variable is set, off otherwise.")
@click.option("--ops", default=None, metavar="OP[,OP...]",
              help=f"Only these operations (default: all of {','.join(OPS)}).")
@timeout_option
@shell_option
@click.option("--expect", "expect", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Expected-failures file: '<rule-id> <message prefix>' per line.")
@click.option("--update-expectations", is_flag=True,
              help="Rewrite the --expect file with this run's failures (then exit 0).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the JSON report (schemas/report.json) here.")
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write a JUnit XML report here.")
@click.option("--markdown", "markdown_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write a Markdown summary here.")
@click.option("--state-dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path(".eventproof"), show_default=True,
              help="Where failure case files (failures/) and the example database (examples/) go.")
@click.option("--no-progress", is_flag=True, help="No live status line.")
@click.option("-v", "--verbose", is_flag=True, help="Show passing rules too.")
def run(
    impl: str | None, fit: str, budget: str | None, old_profile: str | None,
    max_examples: int | None, seed: int | None,
    deterministic: bool | None, ops: str | None, timeout: float, use_shell: bool,
    expect: Path | None, update_expectations: bool, json_path: Path | None,
    junit_path: Path | None, markdown_path: Path | None, state_dir: Path, no_progress: bool,
    verbose: bool,
) -> None:
    """Search for inputs on which IMPL disagrees with the reference."""
    from . import _expectations, _replay, _reports
    from ._engine import apply_expectations, check_implementation

    console = Console(highlight=False)
    budget = _budget(budget, old_profile)
    wanted = _parse_ops(ops)
    if update_expectations and expect is None:
        raise click.UsageError("--update-expectations needs --expect FILE to know what to rewrite")
    is_deterministic = _ci() if deterministic is None else deterministic
    with _user_errors():
        expected = (_expectations.load_expectations(expect)
                    if expect is not None and expect.exists() and not update_expectations else {})
        if expect is not None and not expect.exists() and not update_expectations:
            _fail(f"--expect {expect}: no such file. Create it with --update-expectations, "
                  "or leave --expect out.")
        update, stop = _progress(Console(stderr=True), not no_progress)
        try:
            report = check_implementation(
                impl or _default_impl(fit), ops=wanted, budget=budget,
                max_examples=max_examples, seed=seed, deterministic=is_deterministic,
                timeout=timeout, use_shell=use_shell, database=state_dir / "examples",
                on_progress=update,
            )
        finally:
            stop()
        if update_expectations:
            assert expect is not None
            _expectations.write_expectations(expect, report)
            console.print(f"wrote {len(report.failed_rule_ids)} expectation(s) to {expect}")
            sys.exit(EXIT_CONFORMS)
        report = apply_expectations(report, expected)
        files = _replay.save_failures(report, state_dir / "failures")
        spec = impl or _default_impl(fit)
        _reports.render_console(report, console, verbose=verbose, replay_files=files,
                                impl_spec=spec)
        if json_path:
            _reports.write_json(report, json_path, replay_files=files)
        if junit_path:
            _reports.write_junit(report, junit_path, replay_files=files, impl_spec=spec)
        if markdown_path:
            _reports.write_markdown(report, markdown_path, replay_files=files, impl_spec=spec)
    sys.exit(EXIT_CONFORMS if report.conforms else EXIT_NONCONFORMING)


@main.command()
@click.argument("files", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@impl_option
@fit_option
@timeout_option
@shell_option
def replay(files: tuple[Path, ...], impl: str | None, fit: str, timeout: float,
           use_shell: bool) -> None:
    """Re-run saved failure case files and say which are fixed."""
    from . import _replay

    console = Console(highlight=False)
    with _user_errors():
        cases = _replay.load_cases(files)
        results = _replay.replay(cases, impl or _default_impl(fit), timeout=timeout,
                                 use_shell=use_shell)
    still = 0
    for path, result in zip(files, results, strict=True):
        fixed = result.status == "fixed"
        still += not fixed
        mark = "[green]fixed[/]" if fixed else f"[red]{result.status}[/]"
        console.print(f"{mark}  {path}  ({result.case.rule})", soft_wrap=True)
        if not fixed and result.message:
            console.print(f"    {result.message}", markup=False, soft_wrap=True)
    console.print(f"{len(results) - still} fixed, {still} still failing")
    sys.exit(EXIT_CONFORMS if still == 0 else EXIT_NONCONFORMING)


@main.command()
@impl_option
@fit_option
@timeout_option
@shell_option
@click.option("--rule", "rule_filter", default=None, help="Only vectors of rules with this prefix.")
def vectors(impl: str | None, fit: str, timeout: float, use_shell: bool,
            rule_filter: str | None) -> None:
    """Run the language-neutral vectors of spec/vectors/ against IMPL (a smoke check)."""
    from . import _vectors

    console = Console(highlight=False)
    with _user_errors():
        outcome = _vectors.run_vectors(impl or _default_impl(fit), timeout=timeout,
                                       use_shell=use_shell, rule_prefix=rule_filter)
    _vectors.render(outcome, console)
    sys.exit(EXIT_CONFORMS if outcome.conforms else EXIT_NONCONFORMING)


@main.command()
@click.option("--where", "where", metavar="RULE_ID", default=None,
              help="Print every place the rule lives: spec section, schema, reference, check, "
                   "input families, vectors and miniatures.")
def rules(where: str | None) -> None:
    """List every rule: id, level, operation and spec section."""
    from ._operations import RULES, RULES_BY_ID

    console = Console(highlight=False)
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


def _add_optional_commands() -> None:
    """Commands whose modules are optional extras (benchmarking needs pytest-benchmark)."""
    try:
        from ._bench import bench
    except ImportError:  # pragma: no cover - the module ships with the package
        return
    main.add_command(bench)


_add_optional_commands()

from ._report_cli import report  # noqa: E402

main.add_command(report)


def entry(argv: list[str] | None = None) -> Any:
    """Run the CLI in process (tests)."""
    return main.main(args=argv, prog_name="eventproof", standalone_mode=False)
