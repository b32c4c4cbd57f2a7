"""The console every command prints to, and the one way a command stops on a user's mistake.

Styles come from rich ``Text`` objects only: the console reads no markup, so text from a schema,
a spec line, an input or an implementation is always printed as written.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, Final, NoReturn, TextIO

from rich.console import Console
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from ._results import ExitCode

#: The widths a console takes from ``COLUMNS`` (a narrower or wider value is ignored: at 0 rich
#: prints nothing at all, and at a billion it pads every line).
CONSOLE_COLUMNS: Final = range(20, 1001)
#: What no console line shows as itself: the C0 controls but the line feed (ESC starts a
#: terminal command, NUL and TAB pass for other text), DEL, the C1 controls, and the invisible
#: marks that reorder or hide text (bidirectional overrides, zero-width characters).
_UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e"
                     "\u2060-\u2069\ufeff]")


def escape_controls(text: str) -> str:
    """``text`` with every character of :data:`_UNSAFE` written as its escape (``\\x1b``,
    ``\\u202e``), so that what a console shows is what the string holds."""
    return _UNSAFE.sub(lambda match: (f"\\x{ord(match.group()):02x}" if ord(match.group()) < 0x100
                                      else f"\\u{ord(match.group()):04x}"), text)


class _EscapingConsole(Console):
    """A console on which no text can reach the terminal as a command: every segment of text
    is escaped (:func:`escape_controls`) as it is written; only rich's own control segments
    (cursor moves of a live status line) and the styles it renders are written as they are."""

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        return super()._render_buffer(
            segment if segment.control or not _UNSAFE.search(segment.text)
            else Segment(escape_controls(segment.text), segment.style, segment.control)
            for segment in buffer)


def _environment() -> dict[str, str]:
    """The environment the console reads, without a ``COLUMNS`` or ``LINES`` it cannot use."""
    environ = dict(os.environ)
    for name in ("COLUMNS", "LINES"):
        value = environ.get(name, "").strip()
        if name in environ and not (value.isdigit() and (
                int(value) in CONSOLE_COLUMNS if name == "COLUMNS" else int(value) >= 1)):
            del environ[name]
    return environ


def console(*, stderr: bool = False) -> Console:
    """A console that never hard-wraps a line in a pipe (``eventproof rules | grep`` keeps a rule
    on one line), writes no escape code at all for NO_COLOR, TERM=dumb (or --no-color) and
    outside a terminal, and escapes every control character of the text it prints."""
    stream = sys.stderr if stderr else sys.stdout
    plain = bool(os.environ.get("NO_COLOR")) or os.environ.get("TERM") == "dumb"
    try:
        tty = stream is not None and stream.isatty()
    except (OSError, ValueError):
        tty = False
    # markup=False: text from a schema, a spec line, an input or an implementation never becomes
    # console markup (``[a-z]`` in a pattern would vanish); styles come from Text objects only.
    return _EscapingConsole(highlight=False, stderr=stderr, soft_wrap=not tty,
                            color_system=None if plain else "auto", markup=False,
                            _environ=_environment())


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
    if option == "--json" and str(path) == "-" and (
            1 in CLOSED_AT_START or sys.stdout is None):
        fail("--json -: standard output is closed, so the report cannot be written there. "
             "Name a file (--json report.json), or run with standard output open")
    if path is None or (option == "--json" and str(path) == "-"):
        return
    if str(path) == "-":
        fail(f"{option} -: only --json writes to stdout; name a file for {option}")
    _not_a_trap(option, path)
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


def _not_a_trap(option: str, path: Path) -> None:
    """Refuse a report path that is a FIFO or a socket: opening a FIFO waits for a reader that
    may never come (and a probe would end the reader it has). A device (``/dev/null``, a
    terminal) is written."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        kind = "a FIFO (a named pipe, or a pipe such as /dev/stdout in a pipeline)" \
            if stat.S_ISFIFO(mode) else "a socket"
        to_stdout = " (--json - writes the JSON report to standard output)" \
            if option == "--json" else ""
        fail(f"{option} {path}: is {kind}, and writing a report to one could wait for ever. "
             f"Name a regular file{to_stdout}")


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

# -- the standard streams -------------------------------------------------------------------------


class _Tolerant(io.TextIOBase):
    """A standard stream that cannot end a run: text the stream's encoding cannot hold is
    written escaped (an ASCII console), and once the reader has gone (a closed pipe, ``| head``)
    or the descriptor is closed, what is written is dropped, so the reports are still written
    and the exit code is still the verdict's."""

    def __init__(self, inner: TextIO, name: str) -> None:
        super().__init__()
        self._inner = inner
        self._name = name
        self.gone = False

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return str(getattr(self._inner, "encoding", None) or "utf-8")

    @property
    def errors(self) -> str:  # type: ignore[override]
        return "backslashreplace"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        try:
            return not self.gone and self._inner.isatty()
        except (OSError, ValueError):
            return False

    def fileno(self) -> int:
        return self._inner.fileno()

    def _lost(self) -> None:
        """The reader went away: drop what is pending, and anything written from now on."""
        self.gone = True
        with contextlib.suppress(OSError, ValueError):
            # Interpreter exit flushes the stream again: let that go to /dev/null.
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self._inner.fileno())
            os.close(null)

    def write(self, text: str) -> int:
        if self.gone:
            return len(text)
        try:
            try:
                self._inner.write(text)
            except UnicodeEncodeError:
                self._inner.write(text.encode(self.encoding, "backslashreplace")
                                  .decode(self.encoding))
        except (OSError, ValueError):
            self._lost()
        return len(text)

    def flush(self) -> None:
        if self.gone:
            return
        try:
            self._inner.flush()
        except (OSError, ValueError):
            self._lost()


#: The standard descriptors that were closed when the command started (``>&-``).
CLOSED_AT_START: set[int] = set()


def _open_descriptors() -> None:
    """Give a closed standard descriptor (``>&-``) /dev/null, so that no file the run opens
    takes its number and receives what is printed."""
    for number in (0, 1, 2):
        try:
            os.fstat(number)
        except OSError:
            CLOSED_AT_START.add(number)
            null = os.open(os.devnull, os.O_RDWR)
            if null != number:
                os.dup2(null, number)
                os.close(null)


def guard_streams() -> Callable[[], None]:
    """Make ``sys.stdout`` and ``sys.stderr`` :class:`_Tolerant` (a closed stream becomes
    /dev/null) for one command; returns what puts them back."""
    saved = (sys.stdout, sys.stderr)
    _open_descriptors()
    streams: list[Any] = []
    for number, stream in ((1, sys.stdout), (2, sys.stderr)):
        if stream is None:  # closed when Python started
            stream = open(number, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        if isinstance(stream, _Tolerant):
            streams.append(stream)
            continue
        if isinstance(stream, io.TextIOWrapper):
            with contextlib.suppress(ValueError, io.UnsupportedOperation):
                stream.reconfigure(errors="backslashreplace")
        streams.append(_Tolerant(stream, "standard output" if number == 1
                                 else "standard error"))
    sys.stdout, sys.stderr = streams

    def restore() -> None:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        sys.stdout, sys.stderr = saved

    return restore


class ReportStream:
    """Standard output kept for a report alone (``--json -``): its descriptor is set aside and
    descriptor 1 becomes stderr for the rest of the run, so nothing else (a thread of an
    in-process implementation, a module that prints when imported, a C library) can write into
    the report. The report is written as UTF-8 whatever the console's encoding (RFC 8259)."""

    def __init__(self) -> None:
        self._binary: BinaryIO | None = None
        self._text: Any = None
        self.restore: Callable[[], None] = lambda: None
        stdout = sys.stdout
        with contextlib.suppress(Exception):
            stdout.flush()
        try:
            number = stdout.fileno()
            os.fstat(number)
        except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
            self._text = stdout  # not a descriptor (a test's capture): write to it as it is
            return
        kept = os.dup(number)
        os.dup2(2, number)
        self._binary = os.fdopen(kept, "wb", buffering=0)
        saved = sys.stdout
        sys.stdout = sys.stderr

        def restore() -> None:
            sys.stdout = saved
            with contextlib.suppress(OSError):
                os.dup2(kept, number)

        self.restore = restore

    def write(self, text: str) -> None:
        """Write the whole report; a reader that went away loses it, nothing else does."""
        try:
            if self._binary is not None:
                data = memoryview(text.encode("utf-8", "surrogatepass"))
                while data:
                    data = data[self._binary.write(data) or 0:]
            else:
                self._text.write(text)
                self._text.flush()
        except (OSError, ValueError):
            pass
