"""``eventproof audit LOG...``: check the logs a harness really wrote, and show where their bytes
go. Exit codes as ``eventproof run``: 0 the logs conform, 1 a MUST rule is broken, 2 a log could
not be read (or held nothing to audit) or a usage error."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from eventproof.reference import DEFAULT_MAX_BYTES, MIN_MAX_BYTES

from ._audit import KINDS, Settings, audit, total_size
from ._source import MAX_LINE_BYTES, SourceError, expand


@click.command("audit")
@click.argument("logs", nargs=-1, required=True, metavar="LOG...")
@click.option("--kind", type=click.Choice(KINDS), default="auto", show_default=True,
              help="What the logs are: a projected wire log (what a pi-style harness writes "
                   "in its JSON or RPC mode), a session log of the selection profile (a "
                   "dsh-style session directory), or auto: detected from each log's first "
                   "lines. A kind the log's first lines contradict is refused.")
@click.option("--live-events", is_flag=True,
              help="The wire logs were written for a consumer that opted in to live events "
                   "(message_update and tool_execution_update frames are then expected).")
@click.option("--max-bytes", type=click.IntRange(min=MIN_MAX_BYTES), default=DEFAULT_MAX_BYTES,
              show_default=True,
              help="The backstop's bound on a tool_execution_update line (spec/wire.md §5).")
@click.option("--max-findings", type=click.IntRange(min=1), default=5, show_default=True,
              help="Findings shown per rule; every finding is still counted.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Audit in this many worker processes: one file each, and a large plain "
                   "wire log in chunks.")
@click.option("--max-line-bytes", type=click.IntRange(min=1024), default=MAX_LINE_BYTES,
              show_default=True,
              help="The longest line read: a longer one (or an endless input with no line "
                   "feed) stops the audit of that file with a message naming it.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the JSON report (schemas/audit-report.json) here; '-' writes it to "
                   "stdout (the console summary then goes to stderr).")
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write a JUnit XML report here: one test case per rule.")
@click.option("--markdown", "markdown_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write a Markdown summary here.")
@click.option("--html", "html_path", type=click.Path(path_type=Path), metavar="DIR",
              help="Write an HTML page into DIR (DIR/index.html, as run and report do): the "
                   "findings, and a plot of bytes along each log by event type; a FILE.html is "
                   "taken as the page's name, with a note.")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
@click.option("-v", "--verbose", is_flag=True, help="List passing rules too.")
def audit_command(logs: tuple[str, ...], kind: str, live_events: bool, max_bytes: int,
                  max_findings: int, jobs: int, max_line_bytes: int,
                  json_path: Path | None, junit_path: Path | None, markdown_path: Path | None,
                  html_path: Path | None, no_progress: bool, verbose: bool) -> None:
    """Check JSON Lines event logs a harness wrote (files, directories, globs, - for stdin;
    .gz and .zst read as they are) against every rule a written log can show, and show where
    their bytes go."""
    from .._console import console as _console
    from .._console import fail as _fail
    from .._console import html_target
    from .._console import user_errors as _user_errors
    from .._console import writable_file as _writable_file
    from .._console import write as _write
    from . import _render

    to_stdout = json_path is not None and str(json_path) == "-"
    console = _console(stderr=to_stdout)
    if html_path is not None:
        directory, page_name, note = html_target(html_path)
        html_path = directory / page_name
        if note:
            _console(stderr=True).print(note, markup=False, soft_wrap=True)
    for option, path in (("--json", json_path), ("--junit", junit_path),
                         ("--markdown", markdown_path), ("--html", html_path)):
        _writable_file(option, path)
    try:
        sources = expand(logs)
    except SourceError as error:
        _fail(str(error))
    settings = Settings(kind=kind, live_events=live_events, max_bytes=max_bytes,
                        max_findings=max_findings, jobs=jobs,
                        max_line_bytes=max_line_bytes)
    with _user_errors():
        progress_console = _console(stderr=True)
        if no_progress or not progress_console.is_terminal:
            report = audit(sources, settings)
        else:
            from rich.progress import Progress

            with Progress(console=progress_console, transient=True) as bar:
                task = bar.add_task("auditing", total=total_size(sources))
                report = audit(sources, settings,
                               progress=lambda read: bar.advance(task, read))
        _render.render_console(report, console, verbose=verbose)
        if to_stdout:
            click.echo(_render.dumps_document(report))
        elif json_path is not None:
            _write("--json", json_path, lambda: _render.write_json(report, json_path))
        if junit_path is not None:
            _write("--junit", junit_path, lambda: _render.write_junit(report, junit_path))
        if markdown_path is not None:
            _write("--markdown", markdown_path,
                   lambda: _render.write_markdown(report, markdown_path))
        if html_path is not None:
            _write("--html", html_path, lambda: _render.write_html(report, html_path))
    sys.exit(report.exit_code)
