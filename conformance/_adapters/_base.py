"""What every adapter answers: the response types, the :class:`Adapter` protocol and the
JSON-value guard on in-process answers."""

from __future__ import annotations

import difflib
import json
import math
import os
import shutil
from dataclasses import dataclass, replace
from typing import Any, Final, Protocol

from .._clip import MESSAGE_CHARACTERS, STDERR_CHARACTERS, TEXT_CHARACTERS, clip_text
from .._errors import ImplementationError, ProtocolError
from .._model import ImplErrored
from .._protocol import (
    StartResponse,
    dumps_literal,
)

MiB: Final = 1024 * 1024
#: The longest answer line read before giving up on it (spec/protocol.md §2.3).
DEFAULT_MAX_LINE_BYTES: Final = 64 * MiB
#: How much of a program's stderr is kept: the newest bytes, for the reports.
STDERR_TAIL_BYTES: Final = 64 * 1024
#: How long a stopped program gets to exit on its own before it is terminated, then killed.
STOP_GRACE_SECONDS: Final = 1.0
#: How long a program that closed its stdout gets to exit before it is killed.
EXIT_GRACE_SECONDS: Final = 1.0
_READ_CHUNK = 64 * 1024


# -- outcomes -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ok:
    """The implementation answered with ``output`` (a JSON value)."""

    output: Any


@dataclass(frozen=True)
class Skipped:
    """The implementation declined the request (spec/protocol.md §5.3)."""

    reason: str
    issue_url: str | None = None

    def __post_init__(self) -> None:
        # Text of the implementation, clipped where it enters (_clip): no report grows with it.
        object.__setattr__(self, "reason", clip_text(self.reason))
        if self.issue_url is not None:
            object.__setattr__(self, "issue_url", clip_text(self.issue_url))


@dataclass(frozen=True)
class Crashed:
    """The implementation died (or cannot be restarted any more) while answering."""

    #: What happened, e.g. ``the program exited with code 3 while answering run request seq 5 …``.
    message: str
    #: What the program wrote on stderr while handling the request (the newest 64 KiB).
    stderr: str = ""
    #: The exit status (negative: killed by that signal), or ``None`` when unknown.
    exit_code: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "message", clip_text(self.message, MESSAGE_CHARACTERS))
        object.__setattr__(self, "stderr", clip_text(self.stderr, STDERR_CHARACTERS, keep="end"))


@dataclass(frozen=True)
class TimedOut:
    """No answer within ``seconds``; the implementation was stopped and will be restarted."""

    seconds: float
    stderr: str = ""
    #: The configured timeout, when this deadline was a shorter one (after an earlier hang).
    shortened_from: float | None = None
    #: What the program wrote on stdout of a line it never ended ("" when nothing).
    unfinished: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "stderr", clip_text(self.stderr, STDERR_CHARACTERS, keep="end"))

    def describe(self) -> str:
        """``no answer within 1 s`` and, for a shortened deadline, why it was shorter; and what
        was written of a line never ended."""
        text = f"no answer within {self.seconds:g} s"
        if self.shortened_from is not None:
            text += (f" (a deadline shortened after an earlier hang to 10 times the slowest "
                     f"answer; --timeout is {self.shortened_from:g} s)")
        if self.unfinished:
            text += f": {self.unfinished}"
        return text


@dataclass(frozen=True)
class Broken:
    """The answer broke the protocol; ``error`` says how."""

    error: ProtocolError
    stderr: str = ""

    def __post_init__(self) -> None:
        error = self.error
        clipped = replace(error, field=clip_text(error.field, TEXT_CHARACTERS),
                          received=clip_text(error.received, MESSAGE_CHARACTERS))
        if clipped != error:
            object.__setattr__(self, "error", clipped)
        object.__setattr__(self, "stderr", clip_text(self.stderr, STDERR_CHARACTERS, keep="end"))


#: Every answer an adapter gives to a run request. ``ImplErrored`` is the ``errored`` answer.
Response = Ok | Skipped | ImplErrored | Crashed | TimedOut | Broken


@dataclass(frozen=True)
class AfterLastAnswer:
    """What a program wrote on stdout after its last answer, found when it was stopped: the
    request that answer was for (its operation and input) and the protocol error, the answer
    to that request as it now stands (spec/protocol.md §6)."""

    op: str
    input: Any
    broken: Broken


class Adapter(Protocol):
    """One implementation under test behind start/run/stop, however it runs."""

    #: What runs, for messages and reports: ``python:pkg.mod:Impl`` or the command line.
    description: str
    #: Seconds a request may take unless :meth:`run` is given another bound.
    timeout: float

    def start(self) -> StartResponse:
        """Perform the handshake and return it; calling it again returns the same answer.

        Raises :class:`ImplementationError` when the implementation cannot be started at all and
        :class:`ProtocolError` when its handshake is wrong (e.g. another protocol version).
        """
        ...

    def run(self, op: str, input: Any, *, timeout: float | None = None) -> Response:
        """Answer one request within ``timeout`` seconds (default :attr:`timeout`); never raises
        for anything the implementation does."""
        ...

    def stop(self) -> None:
        """Release the implementation; idempotent."""
        ...

    def after_last_answer(self) -> AfterLastAnswer | None:
        """Once stopped: what the implementation wrote after its last answer, which no request
        was left to read (None: nothing, or no stdout of its own to write on)."""
        ...

    def stderr_tail(self) -> str:
        """The newest part of what the implementation wrote on stderr ("" when not captured)."""
        ...

    def exhausted(self) -> bool:
        """True when no further request can be answered (the restart limit is reached); then
        :meth:`given_up` says why."""
        ...

    def given_up(self) -> str | None:
        """Why no further request can be answered (when, and the last failure), or None while
        one can."""
        ...


# -- JSON values ----------------------------------------------------------------------------------


def _kind(value: Any) -> str:
    return type(value).__name__


#: The most digits an integer may have (as a program's answer may, spec/protocol.md §2.3).
MAX_INTEGER_DIGITS: Final = 4300
_INTEGER_BOUND: Final = 10 ** MAX_INTEGER_DIGITS
#: How deep a value is walked before it is called too deep (``json`` copies about 1,000 levels).
MAX_NONJSON_DEPTH: Final = 2000


def non_json_reason(value: Any) -> str | None:
    """Why ``value`` is not a JSON value (the path and the fix), or ``None`` when it is one.

    ``json.dumps`` would quietly turn a tuple into a list and ``1`` into ``"1"`` as a key; the
    subprocess path can never send those, so the in-process path must not accept them either.
    A container that holds itself is refused by its path (it would never end), and so is an
    integer longer than a program may send. Every reason is the same text for the same fault:
    no memory address, nothing an object's own ``__repr__`` says.
    """
    # Depth first, with the containers on the current path: a list that holds itself is a cycle,
    # one that holds the same list twice is not.
    stack: list[tuple[str, Any] | None] = [("$", value)]
    path_ids: list[int] = []
    on_path: set[int] = set()
    while stack:
        entry = stack.pop()
        if entry is None:  # the end of a container's members
            on_path.discard(path_ids.pop())
            continue
        path, item = entry
        if item is None or isinstance(item, bool | str):
            continue
        if isinstance(item, int):
            if -_INTEGER_BOUND < item < _INTEGER_BOUND:
                continue
            return (f"{path} is an integer of more than {MAX_INTEGER_DIGITS} digits, which no "
                    "program may send (spec/protocol.md §2.3); return a shorter number")
        if isinstance(item, float):
            if not math.isfinite(item):
                return (f"{path} is {float(item)!r}, which JSON cannot represent; return a finite "
                        "number")
            continue
        if isinstance(item, list | dict):
            if len(path_ids) >= MAX_NONJSON_DEPTH:
                return (f"it is nested more than {MAX_NONJSON_DEPTH} levels deep, deeper than "
                        "JSON can be copied; return a flatter value")
            if id(item) in on_path:
                return (f"{path} is a {_kind(item)} that contains itself, which JSON cannot "
                        "represent; return a tree of fresh values")
            on_path.add(id(item))
            path_ids.append(id(item))
            stack.append(None)
            if isinstance(item, list):
                stack.extend((f"{path}[{index}]", each)
                             for index, each in reversed(list(enumerate(item))))
                continue
            members: list[tuple[str, Any]] = []
            for key, each in item.items():
                if not isinstance(key, str):
                    return (f"{path} has {_plain_key(key)}; JSON object keys are strings: "
                            "convert the key with str()")
                members.append((f"{path}[{json.dumps(key)}]", each))
            stack.extend(reversed(members))
            continue
        if isinstance(item, tuple):
            return f"{path} is a tuple; JSON has arrays only: return a list"
        return (f"{path} is a value of type {_kind(item)}; return only dict, list, str, int, "
                "float, bool or None")
    return None


def _plain_key(key: Any) -> str:
    """A number, bool or None key as Python writes it; anything else by its type alone (a repr
    may hold a memory address, raise, or never end)."""
    if type(key) in (bool, type(None), float) or (
            type(key) is int and -10 ** 30 < key < 10 ** 30):
        return f"the key {key!r} ({_kind(key)})"
    return f"a key of type {_kind(key)}"


def _json_copy(value: Any) -> Any:
    """A detached copy of the JSON value ``value``, exactly as the subprocess path would see it."""
    return json.loads(json.dumps(value, ensure_ascii=True, allow_nan=False))


def _request_copy(value: Any) -> Any:
    """A detached copy of a request's input as a program would parse it: an overflowing number
    (``1e400`` on the wire, wire.md §7) reads as an infinity."""
    return json.loads(dumps_literal(value))


def looks_like_python_spec(word: str) -> str | None:
    """``pkg.mod:Impl`` or ``pkg/mod.py:Impl`` → the ``python:`` spec the user probably meant."""
    module, sep, attr = word.partition(":")
    if not sep or not module or not attr or "/" in attr:
        return None
    if module.endswith(".py"):
        module = module[:-3].replace("/", ".").replace(os.sep, ".").strip(".")
    if module.replace(".", "").replace("_", "").isalnum() and attr.replace(".", "").replace(
        "_", ""
    ).isalnum():
        return f"python:{module}:{attr}"
    return None


#: Interpreters a command line commonly starts with (to say "the interpreter" and suggest one).
_INTERPRETERS = ("python3", "python", "pypy3", "node", "deno", "bun", "ruby", "perl", "php",
                 "java", "dotnet", "bash", "sh", "Rscript", "julia", "lua", "elixir", "racket")


def shebang_problem(program: str) -> tuple[str, str] | None:
    """Why the script ``program`` (a path, or a name on PATH) cannot start because of its
    ``#!`` line, and the fix: the interpreter it names does not exist, or ``env`` cannot find
    it on PATH. None when it has no such line or the interpreter is there."""
    path = program if os.sep in program else (shutil.which(program) or program)
    try:
        with open(path, "rb") as stream:
            first = stream.read(256).split(b"\n", 1)[0]
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    line = first.decode("utf-8", "replace").rstrip("\r")
    words = line[2:].split()
    if not words:
        return (f"its first line ({line!r}) names no interpreter",
                "Name one, e.g. #!/usr/bin/env python3, or run the file through its interpreter")
    interpreter = words[0]
    fix = (f"Install it, or correct the first line of {program}, or run the file through an "
           f"interpreter that is installed, e.g. --impl '{_suggest(interpreter)} {program}'")
    if not os.path.exists(interpreter):
        return (f"the interpreter its first line names ({line!r}) does not exist: "
                f"{interpreter!r}", fix)
    if os.path.basename(interpreter) == "env":
        rest = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
        if rest and shutil.which(rest[0]) is None:
            return (f"the interpreter its first line names ({line!r}) was not found on PATH: "
                    f"{rest[0]!r}", fix.replace(_suggest(interpreter), _suggest(rest[0])))
    return None


def _suggest(interpreter: str) -> str:
    """An installed interpreter close to ``interpreter`` by name (``python9`` → ``python3``)."""
    name = os.path.basename(interpreter)
    installed = [each for each in _INTERPRETERS if shutil.which(each) is not None]
    stem = name.rstrip("0123456789.")
    same = [each for each in installed if each.rstrip("0123456789.") == stem]
    close = same or difflib.get_close_matches(name, installed, n=1, cutoff=0.5)
    return close[0] if close else (installed[0] if installed else "INTERPRETER")


def not_found(program: str, value: str, source: str, argv: list[str] | None = None) -> \
        ImplementationError:
    """The program of a command line cannot be started: which word, and why (the program is
    missing, the interpreter a script names on its first line is, or the interpreter the
    command line names to run a file is)."""
    problem = shebang_problem(program) if os.path.isfile(program) or (
        os.sep not in program and shutil.which(program)) else None
    if problem is not None:
        return ImplementationError(value=value, source=source,
                                   reason=f"the program {program!r} cannot start: {problem[0]}",
                                   fix=problem[1])
    script = next((word for word in (argv or [])[1:] if not word.startswith("-")), None)
    if script is not None and os.path.isfile(script) and os.sep not in program:
        return ImplementationError(
            value=value, source=source,
            reason=f"the interpreter {program!r}, named to run {script}, was not found on PATH",
            fix=f"Install it, or name one that is installed: --impl "
                f"'{_suggest(program)} {script}'")
    meant = looks_like_python_spec(program)
    if meant is not None:
        fix = f"Did you mean {meant}? An object in this process is named python:MODULE:ATTR"
    elif program.endswith((".js", ".mjs", ".cjs")):
        fix = f"Run it through Node: --impl 'node {program}'"
    elif program.endswith(".py"):
        fix = f"Run it through Python: --impl 'python3 {program}'"
    elif os.sep in program or program.startswith("."):
        fix = "Check the path (it is relative to the current directory, " f"{os.getcwd()})"
    else:
        fix = ("Check the spelling, install the program, or give its full path. The command is "
               "split like a POSIX shell does and run without one; add --shell for pipes, "
               "redirections or variables")
    where = "does not exist" if (os.sep in program) else "was not found on PATH"
    return ImplementationError(
        value=value, source=source, reason=f"the program {program!r} {where}", fix=fix)
