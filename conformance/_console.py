"""The console every command prints to, and the one way a command stops on a user's mistake.

Styles come from rich ``Text`` objects only: the console reads no markup, so text from a schema,
a spec line, an input or an implementation is always printed as written.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ._results import ExitCode


def console(*, stderr: bool = False) -> Console:
    """A console that never hard-wraps a line in a pipe (``eventproof rules | grep`` keeps a rule
    on one line) and writes no escape code at all for NO_COLOR, TERM=dumb (or --no-color) and
    outside a terminal."""
    stream = sys.stderr if stderr else sys.stdout
    plain = bool(os.environ.get("NO_COLOR")) or os.environ.get("TERM") == "dumb"
    # markup=False: text from a schema, a spec line, an input or an implementation never becomes
    # console markup (``[a-z]`` in a pattern would vanish); styles come from Text objects only.
    return Console(highlight=False, stderr=stderr, soft_wrap=not stream.isatty(),
                   color_system=None if plain else "auto", markup=False)


def fail(message: str) -> NoReturn:
    console(stderr=True).print(Text.assemble(("error:", "bold red"), " ", message))
    sys.exit(ExitCode.USAGE)


@contextmanager
def user_errors(remember: list[str] | None = None) -> Iterator[None]:
    """Turn every error that a user can fix into one clear message and exit code 2; the message
    is also appended to ``remember`` when given (a summary names it again)."""
    from ._errors import EventproofError
    from ._protocol import HandshakeChanged
    from ._signals import Terminated

    try:
        yield
    except (EventproofError, HandshakeChanged) as error:
        # HandshakeChanged: a restarted program changed its handshake (a BaseException, so
        # that no search takes it for a failure of the implementation).
        if remember is not None:
            remember.append(str(error))
        fail(str(error))
    except KeyboardInterrupt as signalled:  # Ctrl-C, or SIGTERM (_signals.Terminated)
        terminated = isinstance(signalled, Terminated)
        console(stderr=True).print(Text("terminated" if terminated else "interrupted",
                                        style="bold"))
        sys.exit(ExitCode.TERMINATED if terminated else ExitCode.INTERRUPTED)
    except RecursionError as error:
        fail(f"eventproof ran out of stack ({error}) on a deeply nested value. This is a bug in "
              "eventproof, not in the implementation: please report it with the command line")
    except Exception as error:
        where = error.__traceback__
        while where is not None and where.tb_next is not None:
            where = where.tb_next
        at = (f" at {Path(where.tb_frame.f_code.co_filename).name}:{where.tb_lineno}"
              if where is not None else "")
        fail(f"internal error{at}: {type(error).__name__}: {error}. This is a bug in "
              "eventproof, not a verdict on the implementation: please report it with the "
              "command line")


def writable_file(option: str, path: Path | None) -> None:
    """Refuse, before the run, a report path that cannot be written (exit 2). Only ``--json``
    takes ``-`` (stdout)."""
    if path is None or (option == "--json" and str(path) == "-"):
        return
    if str(path) == "-":
        fail(f"{option} -: only --json writes to stdout; name a file for {option}")
    if path.is_dir():
        fail(f"{option} {path}: is a directory. Name a file to write the report to")
    existed = path.exists()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8"):
            pass
        if not existed:
            path.unlink()
    except OSError as error:
        fail(f"{option} {path}: cannot be written ({error.strerror or error}). Name a file in "
              "a directory you can write to")


def writable_dir(option: str, path: Path) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".eventproof-probe-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as error:
        fail(f"{option} {path}: cannot be written ({error.strerror or error}). Name a "
              "directory you can write to")


def write(option: str, path: Path, write: Callable[[], None]) -> None:
    try:
        write()
    except OSError as error:
        fail(f"{option} {path}: the report could not be written ({error.strerror or error}). "
              "Name a file in a directory you can write to")


def print_table(console: Console, table: Table) -> None:
    """Print ``table`` whole: on a terminal at its width, elsewhere (a pipe, a CI log, which
    rich would render 80 columns wide and wrap) at the table's own natural width, so that each
    row stays on one line whatever the log's width."""
    if console.is_terminal:
        console.print(table)
        return
    from rich.measure import Measurement as Span

    width = Span.get(console, console.options.update_width(1 << 16), table).maximum
    saved = console.width
    console.width = max(width, saved)  # print caps a width at the console's own
    try:
        console.print(table, crop=False)
    finally:
        console.width = saved


#: What ``--html`` names on every command (``run``, ``report``, ``audit``): a directory, whose
#: ``index.html`` is the page.
HTML_PAGE = "index.html"


def html_target(path: Path) -> tuple[Path, str, str]:
    """Where ``--html PATH`` writes its page, the same on every command: PATH is a directory and
    the page is its ``index.html`` (the matrix's badges go to ``badges/`` beside it). A PATH that
    names an HTML file (``.html`` or ``.htm``, not an existing directory) is accepted: the page is
    written to that file, and the note returned says so. Returns (directory, page name, note)."""
    if path.suffix.lower() in (".html", ".htm") and not path.is_dir():
        note = (f"note: --html takes a directory (DIR/{HTML_PAGE}, as on run, report and "
                f"audit); {path} names an HTML file, so the page is written to it")
        return path.parent, path.name, note
    return path, HTML_PAGE, ""

