"""``eventproof report``: render JSON reports as a conformance matrix page and badges."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape


@click.command("report")
@click.argument("reports", nargs=-1, required=True, metavar="REPORT.json...",
                type=click.Path(dir_okay=False, path_type=Path))
@click.option("--html", "html_dir", required=True, metavar="DIR",
              type=click.Path(file_okay=False, path_type=Path),
              help="Write the matrix page (DIR/index.html) and one badge per implementation "
                   "(DIR/badges/NAME.json, a shields.io endpoint file) here.")
@click.option("--title", default="eventproof conformance matrix", show_default=True,
              help="The page's title.")
def report(reports: tuple[Path, ...], html_dir: Path, title: str) -> None:
    """Render reports of `eventproof run --json` as one static HTML matrix and badges.

    Each report is one column: give several (one per implementation, or per version) to compare
    them. The page needs no network and opens from file://.
    """
    from ._matrix import MatrixError, write_matrix

    console = Console(highlight=False)
    try:
        written = write_matrix(html_dir, reports, title=title)
    except MatrixError as error:
        Console(stderr=True, highlight=False).print(
            f"[bold red]error:[/] {escape(str(error))}", soft_wrap=True)
        sys.exit(2)
    console.print(f"wrote {written[0]} ({len(reports)} report(s)) and "
                  f"{len(written) - 1} badge(s) under {written[0].parent / 'badges'}",
                  markup=False, soft_wrap=True)
