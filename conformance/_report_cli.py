"""``eventproof report``: render JSON reports as a conformance matrix page and badges."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import click
from rich.console import Console
from rich.text import Text


@click.command("report")
@click.argument("reports", nargs=-1, required=True, metavar="REPORT.json...",
                type=click.Path(dir_okay=False, path_type=Path))
@click.option("--html", "html_dir", default=None, metavar="DIR",
              type=click.Path(path_type=Path),
              help="Write the matrix page (DIR/index.html) and one badge per implementation "
                   "(DIR/badges/NAME.json, a shields.io endpoint file) here; a FILE.html is "
                   "taken as the page's name, with a note.")
@click.option("--merge", "merge_path", default=None, metavar="OUT.json",
              type=click.Path(dir_okay=False, path_type=Path),
              help="Join the JSON reports of the slices of one run (--shard K/N) into OUT.json.")
@click.option("--junit", "junit_path", default=None, metavar="FILE",
              type=click.Path(dir_okay=False, path_type=Path),
              help="With --merge: also write the merged run's JUnit XML here.")
@click.option("--markdown", "markdown_path", default=None, metavar="FILE",
              type=click.Path(dir_okay=False, path_type=Path),
              help="With --merge: also write the merged run's Markdown summary here.")
@click.option("--title", default="eventproof conformance matrix", show_default=True,
              help="The page's title.")
@click.option("--label", "labels", multiple=True, metavar="TEXT",
              help="With --html: the heading of a report's column, once per report in order "
                   "(default: the implementation's name and version, numbered when equal).")
def report(reports: tuple[Path, ...], html_dir: Path | None, merge_path: Path | None,
           junit_path: Path | None, markdown_path: Path | None, title: str,
           labels: tuple[str, ...]) -> None:
    """Render reports of `eventproof run --json` as one static HTML matrix and badges, or join
    the reports of every slice of a sharded run (--merge; a slice missing or given twice, or
    slices of different runs, are refused).

    Each report is one column: give several (one per implementation, or per version) to compare
    them; the document `eventproof run --html` writes for an implementation that could not be
    checked is a column too. The page needs no network and opens from file://.
    """
    from ._console import console as _console
    from ._matrix import MatrixError, write_matrix

    console = _console()
    if (html_dir is None) == (merge_path is None):
        raise click.UsageError("give --html DIR (the matrix page) or --merge OUT.json (join the "
                               "slices of a sharded run)")
    if merge_path is None and (junit_path is not None or markdown_path is not None):
        raise click.UsageError("--junit and --markdown go with --merge (the reports of one run "
                               "have their own, written by `eventproof run`)")
    if merge_path is not None:
        if labels:
            raise click.UsageError("--label heads the columns of --html; --merge has none")
        _merge(reports, merge_path, console, junit=junit_path, markdown=markdown_path)
        return
    assert html_dir is not None
    if labels and len(labels) != len(reports):
        raise click.UsageError(f"{len(labels)} --label for {len(reports)} report(s): give one "
                               "--label per report, in the same order, or none")
    from ._console import html_target

    html_dir, page_name, note = html_target(html_dir)
    if note:
        _console(stderr=True).print(note, markup=False, soft_wrap=True)
    try:
        written = write_matrix(html_dir, reports, title=title, labels=labels or None,
                               page_name=page_name, on_note=_note)
    except MatrixError as error:
        _die(str(error))
    except OSError as error:
        _die(f"--html {html_dir}: the matrix could not be written ({error.strerror or error}); "
             "name a directory you can write to")
    console.print(f"wrote {written[0]} ({len(reports)} report(s)) and "
                  f"{len(written) - 1} badge(s) under {written[0].parent / 'badges'}",
                  markup=False, soft_wrap=True)


def _merge(reports: tuple[Path, ...], out: Path, console: Console, *,
           junit: Path | None, markdown: Path | None) -> None:
    from ._errors import HarnessError
    from ._json import dumps_json
    from ._matrix import DISAGREEMENT, OLDER_VERSION, MatrixError, load_report
    from ._reports import write_junit, write_markdown
    from ._results import report_from_document, verdict_of_document
    from ._schemas import schema_issues
    from ._shard import merge_documents

    documents = []
    for path in reports:
        try:
            document = load_report(path)
        except MatrixError as error:
            _die(str(error))
        for member in (OLDER_VERSION, DISAGREEMENT):
            notice = document.pop(member, None)
            if notice:
                _note(str(notice))
        issues = schema_issues(document, "report.json#/$defs/checked")
        if issues:
            _die(f"{path}: not a report of this eventproof ({issues[0]}); give the files "
                 "`eventproof run --json` wrote, unedited")
        documents.append(document)
    try:
        merged = merge_documents(documents, [str(path) for path in reports])
    except HarnessError as error:
        _die(str(error))
    verdict = verdict_of_document(merged)
    targets: list[tuple[str, Path | None, Callable[[], object]]] = [
        ("--merge", out, lambda: out.write_text(dumps_json(merged, indent=2) + "\n",
                                                encoding="utf-8")),
        ("--junit", junit, lambda: write_junit(report_from_document(merged), junit or out)),
        ("--markdown", markdown,
         lambda: write_markdown(report_from_document(merged), markdown or out))]
    for option, target, write in targets:
        if target is None:
            continue
        try:
            write()
        except OSError as error:
            _die(f"{option} {target}: cannot be written ({error.strerror}); choose a writable "
                 "path")
    console.print(Text.assemble(
        f"wrote {out}: {len(merged['results'])} rules from {len(reports)} slice(s); ",
        (verdict.line(), "bold green" if verdict.conforms else "bold red")), soft_wrap=True)
    sys.exit(int(verdict.exit_code))


def _note(message: str) -> None:
    """A report read back whose stored verdict is not the one its results give (the page, the
    badge and the merge show the verdict judged again), or of an older version: said on
    stderr."""
    from ._console import console as _console

    _console(stderr=True).print(Text.assemble(("note:", "bold yellow"), " ", message),
                                soft_wrap=True)


def _die(message: str) -> NoReturn:
    from ._console import console as _console

    _console(stderr=True).print(Text.assemble(("error:", "bold red"), " ", message),
                                soft_wrap=True)
    sys.exit(2)
