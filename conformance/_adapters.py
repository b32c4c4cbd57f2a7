"""Talk to an implementation under test, in this process or as a long-lived program.

An :class:`Adapter` turns one request into one outcome and never hangs or crashes the harness:
an implementation that loops, dies, writes garbage or floods its streams gets a
:class:`TimedOut`, :class:`Crashed` or :class:`Broken` answer within bounded time and memory,
and is restarted (spec/protocol.md §7). :func:`adapter_for` turns what the user passed to
``--impl`` into an adapter, or a :class:`UsageError` that says how to fix it.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
import inspect
import json
import math
import os
import queue
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, TracebackType
from typing import IO, Any, Final, Protocol

from ._model import ImplErrored
from ._protocol import (
    START,
    STOP,
    ProtocolError,
    RunErrored,
    RunOutput,
    RunRequest,
    RunResponse,
    RunSkipped,
    StartResponse,
    encode,
    frozen_exception,
    parse_line,
    run_response_from_json,
    shown,
    start_response_from_json,
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


@dataclass(frozen=True)
class Crashed:
    """The implementation died (or cannot be restarted any more) while answering."""

    #: What happened, e.g. ``the program exited with code 3 while answering run request seq 5 …``.
    message: str
    #: What the program wrote on stderr while handling the request (the newest 64 KiB).
    stderr: str = ""
    #: The exit status (negative: killed by that signal), or ``None`` when unknown.
    exit_code: int | None = None


@dataclass(frozen=True)
class TimedOut:
    """No answer within ``seconds``; the implementation was stopped and will be restarted."""

    seconds: float
    stderr: str = ""


@dataclass(frozen=True)
class Broken:
    """The answer broke the protocol; ``error`` says how."""

    error: ProtocolError
    stderr: str = ""


#: Every answer an adapter gives to a run request. ``ImplErrored`` is the ``errored`` answer.
Response = Ok | Skipped | ImplErrored | Crashed | TimedOut | Broken


@frozen_exception
@dataclass(frozen=True)
class UsageError(Exception):
    """What the user named as the implementation cannot be used: the value, where, why, the fix."""

    #: The value as the user gave it.
    value: str
    #: Where it came from, e.g. ``--impl``.
    source: str
    #: Why it cannot be used.
    reason: str
    #: What to do instead.
    fix: str
    #: Evidence shown after the fix, e.g. the end of the program's stderr; often empty.
    detail: str = ""

    def __str__(self) -> str:
        end = "" if self.fix.endswith((".", "?", "!")) else "."
        text = f"{self.source} {self.value!r}: {self.reason}. {self.fix}{end}"
        return f"{text}\n{self.detail}" if self.detail else text


class Adapter(Protocol):
    """One implementation under test behind start/run/stop, however it runs."""

    #: What runs, for messages and reports: ``python:pkg.mod:Impl`` or the command line.
    description: str
    #: Seconds a request may take unless :meth:`run` is given another bound.
    timeout: float

    def start(self) -> StartResponse:
        """Perform the handshake and return it; calling it again returns the same answer.

        Raises :class:`UsageError` when the implementation cannot be started at all and
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

    def stderr_tail(self) -> str:
        """The newest part of what the implementation wrote on stderr ("" when not captured)."""
        ...

    def exhausted(self) -> bool:
        """True when no further request can be answered (the restart budget is spent)."""
        ...


# -- JSON values ----------------------------------------------------------------------------------


def _kind(value: Any) -> str:
    return type(value).__name__


def non_json_reason(value: Any) -> str | None:
    """Why ``value`` is not a JSON value (the path and the fix), or ``None`` when it is one.

    ``json.dumps`` would quietly turn a tuple into a list and ``1`` into ``"1"`` as a key; the
    subprocess path can never send those, so the in-process path must not accept them either.
    """
    stack: list[tuple[str, Any]] = [("$", value)]
    while stack:
        path, item = stack.pop()
        if item is None or isinstance(item, bool | str | int):
            continue
        if isinstance(item, float):
            if not math.isfinite(item):
                return f"{path} is {item!r}, which JSON cannot represent; return a finite number"
            continue
        if isinstance(item, list):
            stack.extend((f"{path}[{index}]", each) for index, each in enumerate(item))
            continue
        if isinstance(item, dict):
            for key, each in item.items():
                if not isinstance(key, str):
                    return (f"{path} has the key {key!r} ({_kind(key)}); JSON object keys are "
                            "strings: convert the key with str()")
                stack.append((f"{path}[{json.dumps(key)}]", each))
            continue
        if isinstance(item, tuple):
            return f"{path} is a tuple; JSON has arrays only: return a list"
        return (f"{path} is a value of type {_kind(item)} ({shown(repr(item), 80)}); return only "
                "dict, list, str, int, float, bool or None")
    return None


def _json_copy(value: Any) -> Any:
    """A detached copy of the JSON value ``value``, exactly as the subprocess path would see it."""
    return json.loads(json.dumps(value, ensure_ascii=True, allow_nan=False))


# -- in process -----------------------------------------------------------------------------------


class _DeadlinePassed(BaseException):
    """Raised inside a call whose deadline passed. A BaseException, so that an implementation's
    own ``except Exception`` does not swallow it."""


@dataclass(frozen=True)
class _Returned:
    value: Any


@dataclass(frozen=True)
class _Raised:
    error: BaseException


class _Expired:
    pass


_EXPIRED: Final = _Expired()
_CallResult = _Returned | _Raised | _Expired


def _alarm_available() -> bool:
    """Whether SIGALRM can bound a call here: main thread, POSIX, and no timer already running
    (a test runner's own timeout must not be clobbered)."""
    return (
        hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    )


def call_with_deadline(call: Callable[[], Any], seconds: float) -> _CallResult:
    """Run ``call`` for at most ``seconds``.

    In the main thread a SIGALRM handler raises inside the call, which interrupts even a pure
    Python ``while True: pass``. Elsewhere the call runs in a daemon thread that is abandoned
    when the deadline passes (Python cannot stop a thread).
    """
    if _alarm_available():
        return _call_with_alarm(call, seconds)
    return _call_in_thread(call, seconds)


def _call_with_alarm(call: Callable[[], Any], seconds: float) -> _CallResult:
    armed = [True]

    def on_alarm(signum: int, frame: FrameType | None) -> None:
        # After disarming, a late signal must not escape into the harness.
        if armed[0]:
            raise _DeadlinePassed

    previous = signal.signal(signal.SIGALRM, on_alarm)
    try:
        try:
            signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-3))
            try:
                value = call()
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                armed[0] = False
        except _DeadlinePassed:
            return _EXPIRED
        except (Exception, SystemExit) as error:
            return _Raised(error)
        return _Returned(value)
    finally:
        signal.signal(signal.SIGALRM, previous)


def _call_in_thread(call: Callable[[], Any], seconds: float) -> _CallResult:
    box: list[_CallResult] = []

    def target() -> None:
        try:
            box.append(_Returned(call()))
        except BaseException as error:  # a thread's exception has nowhere else to go
            box.append(_Raised(error))

    worker = threading.Thread(target=target, name="eventproof-call", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive() or not box:
        return _EXPIRED
    return box[0]


def _has_start_and_run(value: Any) -> bool:
    return (
        not isinstance(value, type)
        and callable(getattr(value, "start", None))
        and callable(getattr(value, "run", None))
    )


def _required_parameters(factory: Any) -> list[str]:
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # some builtins have none; assume it can be called bare
        return []
    return [
        name for name, parameter in signature.parameters.items()
        if parameter.default is inspect.Parameter.empty
        and parameter.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    ]


def _describe_object(value: Any) -> str:
    name = getattr(value, "__qualname__", None) or type(value).__qualname__
    module = getattr(value, "__module__", None) or type(value).__module__
    return f"python:{module}:{name}"


_OBJECT_FIX = (
    "Point at an object with start() -> dict and run(op, input), or at a class or function "
    "that builds one with no arguments (spec/protocol.md §8), e.g. "
    "python:eventproof.reference:Reference"
)


class InProcessAdapter:
    """An implementation object in this process, called directly (spec/protocol.md §8).

    Built from an object, or from a zero-argument factory (a class or a function); a factory is
    called again after a timeout (the in-process restart), since the object may be left in any
    state. Outputs are checked to be JSON values and copied through ``json`` so that this path
    sees exactly what the subprocess path would.
    """

    def __init__(
        self, obj_or_factory: Any, *, timeout: float, description: str | None = None,
        source: str = "--impl",
    ) -> None:
        self.timeout = timeout
        self.description = description or _describe_object(obj_or_factory)
        self._source = source
        self._factory: Callable[[], Any] | None = None
        #: How many times the factory built a fresh object (1 after construction).
        self.builds = 0
        if _has_start_and_run(obj_or_factory):
            self._impl = obj_or_factory
        elif callable(obj_or_factory):
            self._factory = obj_or_factory
            self._impl = self._build()
        else:
            raise UsageError(
                value=self.description, source=source,
                reason=f"is a value of type {_kind(obj_or_factory)}, which has no start() and "
                       "run() and is not callable",
                fix=_OBJECT_FIX,
            )
        self._handshake: StartResponse | None = None
        self._unavailable: str | None = None
        self._stopped = False

    def _usage_error(self, reason: str, fix: str) -> UsageError:
        return UsageError(value=self.description, source=self._source, reason=reason, fix=fix)

    def _build(self) -> Any:
        assert self._factory is not None
        missing = _required_parameters(self._factory)
        if missing:
            raise self._usage_error(
                f"is a callable that needs the argument(s) {', '.join(missing)}",
                "Point at a class or function callable with no arguments, e.g. "
                "def make(): return MyImpl(option=...) and python:my_module:make",
            )
        result = call_with_deadline(self._factory, self.timeout)
        if isinstance(result, _Expired):
            raise self._usage_error(
                f"did not return an implementation within {self.timeout:g} s",
                "Make the factory return quickly (do slow setup lazily), or raise --timeout",
            )
        if isinstance(result, _Raised):
            raise self._usage_error(
                f"raised {_kind(result.error)}: {result.error} when called with no arguments",
                "Make it callable with no arguments; check it with python -c 'import module; "
                "module.factory()'",
            )
        if not _has_start_and_run(result.value):
            raise self._usage_error(
                f"returned a value of type {_kind(result.value)}, which has no start() and run()",
                _OBJECT_FIX,
            )
        self.builds += 1
        return result.value

    def start(self) -> StartResponse:
        if self._handshake is None:
            self._handshake = self._start_once()
        return self._handshake

    def _start_once(self) -> StartResponse:
        result = call_with_deadline(self._impl.start, self.timeout)
        if isinstance(result, _Expired):
            raise self._usage_error(
                f"did not return from start() within {self.timeout:g} s",
                "Make start() return the handshake dict at once (spec/protocol.md §4.2), or "
                "raise --timeout",
            )
        if isinstance(result, _Raised):
            raise self._usage_error(
                f"raised {_kind(result.error)}: {result.error} in start()",
                "start() must return the handshake dict of spec/protocol.md §4.2; "
                "eventproof.reference.Reference().start() is an example",
            )
        problem = non_json_reason(result.value)
        if problem is not None:
            raise ProtocolError(
                message="the answer to the start request", field="$", expected="a JSON value",
                received=problem, fix="Return only JSON values from start() "
                "(spec/protocol.md §8).",
            )
        return start_response_from_json(_json_copy(result.value))

    def run(self, op: str, input: Any, *, timeout: float | None = None) -> Response:
        if self._stopped:
            raise RuntimeError(f"{self.description} was stopped; start a new adapter")
        self.start()
        if self._unavailable is not None:
            return Crashed(self._unavailable)
        seconds = self.timeout if timeout is None else timeout
        request_input = _json_copy(input)  # the implementation can never alter the harness's copy
        impl = self._impl
        result = call_with_deadline(lambda: impl.run(op, request_input), seconds)
        if isinstance(result, _Expired):
            self._restart()
            return TimedOut(seconds)
        if isinstance(result, _Raised):
            return _outcome_of_exception(result.error, op)
        problem = non_json_reason(result.value)
        if problem is not None:
            return ImplErrored(f"the output is not a JSON value: {problem}")
        try:
            return Ok(_json_copy(result.value))
        except RecursionError:
            return ImplErrored("the output is nested too deeply to be copied as JSON")

    def _restart(self) -> None:
        """After a timeout: build a fresh object and replay the handshake (factories only)."""
        if self._factory is None:
            return  # an object handed over as is can only be used as is (spec §8)
        try:
            self._impl = self._build()
            self._start_once()
        except (UsageError, ProtocolError) as error:
            self._unavailable = (
                f"the implementation could not be restarted after a timeout: {error}"
            )

    def stop(self) -> None:
        self._stopped = True

    def stderr_tail(self) -> str:
        return ""  # it shares our stderr; nothing is captured

    def exhausted(self) -> bool:
        return self._unavailable is not None

    def __enter__(self) -> InProcessAdapter:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def _outcome_of_exception(error: BaseException, op: str) -> Response:
    """spec/protocol.md §8: NotImplementedError skips, sys.exit crashes, anything else errs."""
    if isinstance(error, NotImplementedError):
        return Skipped(reason=str(error) or f"run() raised NotImplementedError for op {op}")
    if isinstance(error, SystemExit):
        code = error.code if isinstance(error.code, int) else None
        return Crashed(f"run() called sys.exit({error.code!r}) on op {op}", exit_code=code)
    if isinstance(error, Exception):
        return ImplErrored(f"{_kind(error)}: {error}")
    raise error  # KeyboardInterrupt and the like belong to the user


# -- out of process -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Overlong:
    """The program wrote more than the line limit without a newline."""

    prefix: bytes


@dataclass(frozen=True)
class _EndOfStream:
    """The program closed its stdout (it exited, most likely)."""

    pending: int  # bytes of an unfinished line


_Line = bytes | bytearray | _Overlong | _EndOfStream


class _StderrRing:
    """The newest bytes a program wrote on stderr, bounded; counts everything ever written."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._buffer = bytearray()
        self._total = 0
        self._lock = threading.Lock()

    def append(self, data: bytes) -> None:
        with self._lock:
            self._buffer += data
            self._total += len(data)
            if len(self._buffer) > self._limit:
                del self._buffer[: len(self._buffer) - self._limit]

    def mark(self) -> int:
        """A position; :meth:`since` returns what was written after it."""
        with self._lock:
            return self._total

    def since(self, mark: int) -> str:
        with self._lock:
            wanted = self._total - mark
            kept = min(wanted, len(self._buffer))
            data = bytes(self._buffer[len(self._buffer) - kept:]) if kept else b""
        text = data.decode("utf-8", "replace")
        if wanted > kept:
            text = f"[{wanted - kept} earlier bytes not kept]\n{text}"
        return text

    def tail(self) -> str:
        return self.since(0)


def _pump_stderr(stream: IO[bytes], ring: _StderrRing) -> None:
    """Read stderr continuously, so that a chatty program never blocks on a full pipe."""
    try:
        descriptor = stream.fileno()
        while chunk := os.read(descriptor, _READ_CHUNK):
            ring.append(chunk)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            stream.close()


class _LineReader:
    """Splits a program's stdout into lines on a thread, holding at most ``limit`` bytes of an
    unfinished line and one finished line at a time (spec/protocol.md §2.3)."""

    def __init__(self, stream: IO[bytes], limit: int) -> None:
        self._stream = stream
        self._limit = limit
        # One finished line waits at most; then the program blocks on its full pipe, which is
        # what bounds the memory a program that floods stdout can take.
        self._lines: queue.Queue[_Line] = queue.Queue(maxsize=1)
        self._closed = threading.Event()
        #: The most bytes of one line ever held (for the tests of the bound).
        self.peak = 0
        self._thread = threading.Thread(target=self._pump, name="eventproof-stdout", daemon=True)
        self._thread.start()

    def _put(self, item: _Line) -> None:
        while not self._closed.is_set():
            try:
                self._lines.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def _pump(self) -> None:
        partial = bytearray()
        discarding = False  # inside a line already reported as overlong
        try:
            descriptor = self._stream.fileno()
            while not self._closed.is_set():
                chunk = os.read(descriptor, _READ_CHUNK)
                if not chunk:
                    break
                start = 0
                while start <= len(chunk):
                    newline = chunk.find(b"\n", start)
                    end = len(chunk) if newline < 0 else newline
                    piece = chunk[start:end]
                    if not discarding:
                        if len(partial) + len(piece) > self._limit:
                            self._put(_Overlong(bytes(partial[:200]) or piece[:200]))
                            partial = bytearray()
                            discarding = True
                        else:
                            partial += piece
                            self.peak = max(self.peak, len(partial))
                    if newline < 0:
                        break
                    if not discarding:
                        self._put(partial)
                        partial = bytearray()
                    discarding = False
                    start = newline + 1
        except OSError:
            pass
        finally:
            self._put(_EndOfStream(len(partial)))
            with contextlib.suppress(OSError):
                self._stream.close()

    def next_line(self, deadline: float) -> _Line | None:
        """The next line, or ``None`` when ``deadline`` (``time.monotonic``) passes first."""
        try:
            return self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return None

    def close(self) -> None:
        self._closed.set()


class _Writer:
    """Writes requests on a thread, so that a program that stops reading stdin cannot block the
    harness: the request's deadline still passes."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._pending: queue.Queue[bytes | None] = queue.Queue()
        self._thread = threading.Thread(target=self._pump, name="eventproof-stdin", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        try:
            descriptor = self._stream.fileno()
            while (data := self._pending.get()) is not None:
                view = memoryview(data)
                while view:
                    view = view[os.write(descriptor, view):]
        except OSError:
            pass  # the program is gone; its missing answer tells the story
        finally:
            with contextlib.suppress(OSError):
                self._stream.close()

    def send(self, data: bytes) -> None:
        self._pending.put(data)

    def close(self) -> None:
        self._pending.put(None)


class _Program:
    """One running instance of the program, with the threads that serve its three streams."""

    def __init__(self, popen: subprocess.Popen[bytes], max_line_bytes: int, ring: _StderrRing):
        assert popen.stdin is not None
        assert popen.stdout is not None
        assert popen.stderr is not None
        self.popen = popen
        self.lines = _LineReader(popen.stdout, max_line_bytes)
        self.writer = _Writer(popen.stdin)
        self._stderr = threading.Thread(
            target=_pump_stderr, args=(popen.stderr, ring), name="eventproof-stderr", daemon=True
        )
        self._stderr.start()

    def exchange(self, payload: bytes, seconds: float) -> _Line | None:
        """Send one request and wait for one line; ``None`` when ``seconds`` pass first."""
        deadline = time.monotonic() + seconds
        self.writer.send(payload)
        return self.lines.next_line(deadline)

    def alive(self) -> bool:
        return self.popen.poll() is None

    def _signal_group(self, number: int) -> None:
        # The program was started in its own session: its children die with it (spec §7.4).
        try:
            if hasattr(os, "killpg"):
                os.killpg(self.popen.pid, number)
            elif number == getattr(signal, "SIGKILL", None):
                self.popen.kill()
            else:
                self.popen.terminate()
        except (ProcessLookupError, PermissionError):
            pass

    def kill(self) -> int | None:
        """Kill the program and everything it started; returns its exit status."""
        if self.alive():
            self._signal_group(getattr(signal, "SIGKILL", signal.SIGTERM))
        return self._finish()

    def exit_after_eof(self) -> int | None:
        """After stdout closed: the exit status, or ``None`` when it lingered and was killed."""
        try:
            return self._reap(self.popen.wait(timeout=EXIT_GRACE_SECONDS))
        except subprocess.TimeoutExpired:
            self.kill()
            return None

    def stop(self) -> None:
        """Ask politely (spec §6), then terminate, then kill."""
        if self.alive():
            self.writer.send(encode(STOP))
            self.writer.close()
            try:
                self.popen.wait(timeout=STOP_GRACE_SECONDS)
            except subprocess.TimeoutExpired:
                self._signal_group(signal.SIGTERM)
                try:
                    self.popen.wait(timeout=STOP_GRACE_SECONDS)
                except subprocess.TimeoutExpired:
                    self.kill()
        self._finish()

    def _finish(self) -> int | None:
        try:
            code = self.popen.wait(timeout=5.0)
        except subprocess.TimeoutExpired:  # pragma: no cover - a process immune to SIGKILL
            code = None
        return self._reap(code)

    def _reap(self, code: int | None) -> int | None:
        self.writer.close()
        self.lines.close()
        # Let the stderr pump read what the program wrote last, so that it is in the report.
        self._stderr.join(timeout=1.0)
        return code


def _exit_words(code: int | None) -> str:
    if code is None:
        return "closed its stdout without exiting"
    if code < 0:
        try:
            return f"was killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


class _StartFailed(Exception):
    """A (re)started program did not complete the handshake."""

    def __init__(self, reason: str, error: ProtocolError | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.error = error


class SubprocessAdapter:
    """One long-lived program speaking spec/protocol.md on its stdin and stdout.

    Every request has a deadline. A program that hangs, dies, or breaks the protocol is killed
    with everything it started, and restarted before the next request with the handshake
    replayed, at most ``max_restarts`` times in a row: an answered request resets the count, so
    a program that hangs on some inputs is checked to the end while one that can no longer
    answer anything is given up on; after that every request answers :class:`Crashed` at once.
    stderr is read all the time into a bounded buffer.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout: float,
        max_restarts: int = 3,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        use_shell: bool = False,
        start_timeout: float | None = None,
        description: str | None = None,
        source: str = "--impl",
    ) -> None:
        #: The command: a program and its arguments, or (with ``use_shell``) one shell command.
        self.argv = list(argv)
        self.description = description or (
            " ".join(self.argv) if use_shell else shlex.join(self.argv)
        )
        if not self.argv or not self.argv[0].strip():
            raise UsageError(
                value=self.description, source=source, reason="is an empty command",
                fix="Name the program that speaks spec/protocol.md, e.g. --impl 'node "
                    "eventproof-adapter.js', or an object in process: "
                    "--impl python:MODULE:ATTR",
            )
        self.timeout = timeout
        #: The handshake gets this long (default: :attr:`timeout`).
        self.start_timeout = timeout if start_timeout is None else start_timeout
        self.max_restarts = max_restarts
        self.max_line_bytes = max_line_bytes
        #: How many times the program was restarted so far.
        self.restarts = 0
        #: Restarts since the last answered request; bounded by :attr:`max_restarts`.
        self.restarts_in_a_row = 0
        self._env = None if env is None else dict(env)
        self._cwd = cwd
        self._use_shell = use_shell
        self._source = source
        self._stderr = _StderrRing(STDERR_TAIL_BYTES)
        self._program: _Program | None = None
        self._handshake: StartResponse | None = None
        self._needs_restart = False
        self._given_up: str | None = None
        self._stopped = False
        self._seq = 0
        self._peak_line_bytes = 0

    # -- the Adapter protocol ---------------------------------------------------------------------

    def start(self) -> StartResponse:
        if self._stopped:
            raise RuntimeError(f"{self.description} was stopped; start a new adapter")
        if self._handshake is not None:
            return self._handshake
        program = self._spawn()
        try:
            self._handshake = self._shake_hands(program)
        except _StartFailed as failure:
            if failure.error is not None:
                raise failure.error from None
            raise UsageError(
                value=self.description, source=self._source, reason=failure.reason,
                detail=self._stderr_excerpt(),
                fix="Run the command by hand and type {\"cmd\":\"start\",\"version\":1}: it must "
                "keep running, read requests line by line from stdin and answer each with one JSON "
                "line on stdout, flushed at once (spec/protocol.md §2, §4). If it only starts "
                "slowly, raise --timeout",
            ) from None
        self._program = program
        return self._handshake

    def run(self, op: str, input: Any, *, timeout: float | None = None) -> Response:
        if self._stopped:
            raise RuntimeError(f"{self.description} was stopped; start a new adapter")
        self.start()
        if self._needs_restart and self._given_up is None:
            self._restart()
        if self._given_up is not None:
            return Crashed(self._given_up, self._stderr.tail())
        program = self._program
        assert program is not None
        seconds = self.timeout if timeout is None else timeout
        self._seq += 1
        request = RunRequest(self._seq, op, input)
        payload = encode(request)
        mark = self._stderr.mark()
        line = program.exchange(payload, seconds)
        if line is None:
            program.kill()
            self._lost(program)
            return TimedOut(seconds, self._stderr.since(mark))
        if isinstance(line, _EndOfStream):
            code = program.exit_after_eof()
            self._lost(program)
            return Crashed(
                f"the program {_exit_words(code)} while answering {request.describe()}",
                self._stderr.since(mark), code,
            )
        message = f"the answer to {request.describe()}"
        if isinstance(line, _Overlong):
            program.kill()  # the rest of the line is still coming; only a restart resyncs
            self._lost(program)
            error = ProtocolError(
                message=message, field="the line",
                expected=f"at most {self.max_line_bytes} bytes before the newline",
                received=f"more than {self.max_line_bytes} bytes without a newline, starting "
                         f"{shown(line.prefix, 80)}",
                fix="End every answer with a newline and write nothing else on stdout "
                    "(spec/protocol.md §2.3).",
            )
            return Broken(error, self._stderr.since(mark))
        value: Any = None
        try:
            value = parse_line(line, message)
            response = run_response_from_json(value, request)
        except ProtocolError as error:
            if not _in_step(value, request):
                # Garbage, or another request's answer: whatever is still in the pipe cannot be
                # trusted, so the next request starts on a fresh program (spec §7.3).
                program.kill()
                self._lost(program)
            return Broken(error, self._stderr.since(mark))
        self.restarts_in_a_row = 0
        return _outcome_of_response(response)

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        program, self._program = self._program, None
        if program is not None:
            program.stop()
            self._note_peak(program)

    def stderr_tail(self) -> str:
        return self._stderr.tail()

    def exhausted(self) -> bool:
        return self._given_up is not None or (
            self._needs_restart and self.restarts_in_a_row >= self.max_restarts
        )

    @property
    def peak_line_bytes(self) -> int:
        """The most bytes of one answer line ever held in memory (never above the line limit)."""
        current = self._program.lines.peak if self._program is not None else 0
        return max(self._peak_line_bytes, current)

    def __enter__(self) -> SubprocessAdapter:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    # -- the program's life -----------------------------------------------------------------------

    def _usage_error(self, reason: str, fix: str) -> UsageError:
        return UsageError(value=self.description, source=self._source, reason=reason, fix=fix)

    def _stderr_excerpt(self) -> str:
        tail = self._stderr.tail().strip()
        if not tail:
            return "It wrote nothing on stderr."
        if len(tail) > 2000:
            tail = "…" + tail[-2000:]
        return "Its stderr ends with:\n" + "\n".join(f"  | {line}" for line in tail.splitlines())

    def _spawn(self) -> _Program:
        options: dict[str, Any] = {}
        if os.name == "posix":
            options["start_new_session"] = True  # a process group to kill as a whole (spec §7)
        else:  # pragma: no cover - exercised on Windows only
            options["creationflags"] = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
        command: str | list[str] = " ".join(self.argv) if self._use_shell else self.argv
        try:
            popen = subprocess.Popen(
                command, shell=self._use_shell, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, bufsize=0, env=self._env, cwd=self._cwd, **options,
            )
        except FileNotFoundError:
            raise _not_found(self.argv[0], self.description, self._source) from None
        except PermissionError:
            raise self._usage_error(
                f"cannot run {self.argv[0]!r}: it is not executable",
                f"Make it executable (chmod +x {shlex.quote(self.argv[0])}) or run it through "
                f"its interpreter, e.g. 'node {self.argv[0]}' or 'python3 {self.argv[0]}'",
            ) from None
        except OSError as error:
            raise self._usage_error(
                f"could not be started: {error}",
                "Check the command, its working directory and its environment",
            ) from None
        return _Program(popen, self.max_line_bytes, self._stderr)

    def _shake_hands(self, program: _Program) -> StartResponse:
        """Send the start request to a fresh program; on failure it is killed."""
        line = program.exchange(encode(START), self.start_timeout)
        try:
            if line is None:
                raise _StartFailed(
                    f"did not answer the start request within {self.start_timeout:g} s"
                )
            if isinstance(line, _EndOfStream):
                code = program.exit_after_eof()
                raise _StartFailed(f"{_exit_words(code)} before answering the start request")
            if isinstance(line, _Overlong):
                raise _StartFailed(
                    "answered the start request with a line longer than "
                    f"{self.max_line_bytes} bytes",
                    ProtocolError(
                        message="the answer to the start request", field="the line",
                        expected=f"at most {self.max_line_bytes} bytes before the newline",
                        received=f"more than {self.max_line_bytes} bytes, starting "
                                 f"{shown(line.prefix, 80)}",
                        fix="Answer the start request with one short JSON line "
                            "(spec/protocol.md §4.2).",
                    ),
                )
            try:
                return start_response_from_json(
                    parse_line(line, "the answer to the start request")
                )
            except ProtocolError as error:
                raise _StartFailed(str(error), error) from None
        except _StartFailed:
            program.kill()
            self._note_peak(program)
            raise

    def _lost(self, program: _Program) -> None:
        self._note_peak(program)
        self._program = None
        self._needs_restart = True

    def _note_peak(self, program: _Program) -> None:
        self._peak_line_bytes = max(self._peak_line_bytes, program.lines.peak)

    def _restart(self) -> None:
        """Start the program afresh and replay the handshake, within the restart budget."""
        reason = "it failed before"
        while self.restarts_in_a_row < self.max_restarts:
            self.restarts += 1
            self.restarts_in_a_row += 1
            self._stderr.append(
                f"\n[eventproof: restart {self.restarts_in_a_row} of {self.max_restarts} in a "
                "row]\n".encode()
            )
            try:
                program = self._spawn()
                self._shake_hands(program)
            except UsageError as error:
                reason = error.reason
                continue
            except _StartFailed as failure:
                reason = f"the restarted program {failure.reason}"
                continue
            self._program = program
            self._needs_restart = False
            return
        self._given_up = (
            f"restart budget exhausted: the program was restarted {self.restarts_in_a_row} "
            f"time(s) in a row without answering (max_restarts={self.max_restarts}) and is not "
            f"started again; {reason}"
        )
        self._needs_restart = False


def _in_step(value: Any, request: RunRequest) -> bool:
    """Whether a rejected answer still echoed the right seq, so the stream is in step."""
    return isinstance(value, dict) and type(value.get("seq")) is int and value["seq"] == request.seq


def _outcome_of_response(response: RunResponse) -> Response:
    if isinstance(response, RunOutput):
        return Ok(response.output)
    if isinstance(response, RunSkipped):
        return Skipped(response.reason, response.issue_url)
    assert isinstance(response, RunErrored)
    message = response.message
    if response.context is not None:
        message = f"{message} (context: {shown(response.context, 500)})"
    return ImplErrored(message)


# -- what the user named ----------------------------------------------------------------------


def _looks_like_python_spec(word: str) -> str | None:
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


def _not_found(program: str, value: str, source: str) -> UsageError:
    meant = _looks_like_python_spec(program)
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
    return UsageError(value=value, source=source, reason=f"the program {program!r} {where}",
                      fix=fix)


def _import_target(spec: str, source: str) -> Any:
    """The object that ``python:MODULE:ATTR`` names (ATTR may be dotted)."""
    body = spec[len("python:"):]
    module_name, sep, attr = body.partition(":")
    if not sep or not module_name or not attr:
        guess = ""
        if not sep and "." in body:
            module_part, _, name = body.rpartition(".")
            guess = f"Did you mean python:{module_part}:{name}? "
        raise UsageError(
            value=spec, source=source, reason="is not of the form python:MODULE:ATTR",
            fix=guess + "Name a module and an object in it, separated by a colon, e.g. "
                        "python:eventproof.reference:Reference",
        )
    if module_name.endswith(".py") or "/" in module_name:
        dotted = module_name.removesuffix(".py").replace("/", ".").strip(".")
        raise UsageError(
            value=spec, source=source, reason=f"names the file {module_name!r}, not a module",
            fix=f"Did you mean python:{dotted}:{attr}? Name the module as Python imports it, "
                "run from the directory that contains it",
        )
    cwd = os.getcwd()
    if cwd not in sys.path:
        # `--impl python:my_port:Impl` from a project directory must find my_port.py there.
        sys.path.insert(0, cwd)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        missing = error.name or ""
        if missing == module_name or module_name.startswith(missing + "."):
            raise UsageError(
                value=spec, source=source,
                reason=f"names the module {module_name!r}, which cannot be found (no module "
                       f"named {missing!r} in the current directory {cwd} or on sys.path)",
                fix="Check the spelling, run eventproof from the directory that contains the "
                    "module or its package, or install the package into this environment "
                    f"({sys.executable})",
            ) from None
        raise UsageError(
            value=spec, source=source,
            reason=f"names the module {module_name!r}, which imports {missing!r}, and that is "
                   "not installed",
            fix=f"Install {missing} into the environment eventproof runs in ({sys.executable})",
        ) from None
    except Exception as error:  # the user's module failed while importing: show why, no traceback
        raise UsageError(
            value=spec, source=source,
            reason=f"names the module {module_name!r}, which raised {_kind(error)}: {error} "
                   "while being imported",
            fix=f"Fix the module; python -c 'import {module_name}' must succeed",
        ) from None
    target: Any = module
    walked: list[str] = []
    for part in attr.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            names = [name for name in dir(target) if not name.startswith("_")]
            close = difflib.get_close_matches(part, names, n=1)
            owner = module_name + "".join(f".{name}" for name in walked)
            if close:
                fix = f"Did you mean python:{module_name}:{'.'.join([*walked, close[0]])}?"
            else:
                listed = ", ".join(names[:12]) or "no public names"
                fix = f"It defines: {listed}"
            raise UsageError(
                value=spec, source=source, reason=f"{owner} has no attribute {part!r}", fix=fix
            ) from None
        walked.append(part)
    return target


def _in_process(target: Any, description: str, source: str, timeout: float) -> InProcessAdapter:
    if not _has_start_and_run(target) and not callable(target):
        raise UsageError(
            value=description, source=source,
            reason=f"names a value of type {_kind(target)}, which has no start() and run()",
            fix=_OBJECT_FIX,
        )
    return InProcessAdapter(target, timeout=timeout, description=description, source=source)


def adapter_for(
    spec: str | object, *, timeout: float, use_shell: bool = False, source: str = "--impl"
) -> Adapter:
    """The adapter for what the user named (spec/protocol.md §8; docs/write-an-adapter.md).

    - ``"python:MODULE:ATTR"``: an object with ``start``/``run``, or a zero-argument factory of
      one, imported with the current directory on ``sys.path``, run in process;
    - any other string: a command line, split like a POSIX shell (``shlex``) and started without
      a shell unless ``use_shell``, speaking the protocol on stdin/stdout;
    - an object or a factory: run in process.

    An adapter already built (to pass options such as ``max_restarts``) is returned as it is.
    Raises :class:`UsageError` naming the value, ``source`` and the fix for every mistake.
    """
    if isinstance(spec, InProcessAdapter | SubprocessAdapter):
        return spec
    if not isinstance(spec, str):
        return _in_process(spec, _describe_object(spec), source, timeout)
    text = spec.strip()
    if not text:
        raise UsageError(
            value=spec, source=source, reason="is empty",
            fix="Name a command that speaks spec/protocol.md (e.g. 'node adapter.js') or an "
                "object in process: python:MODULE:ATTR",
        )
    if text.startswith("python:"):
        return _in_process(_import_target(text, source), text, source, timeout)
    if use_shell:
        return SubprocessAdapter([text], timeout=timeout, use_shell=True, source=source,
                                 description=text)
    try:
        argv = shlex.split(text)
    except ValueError as error:
        raise UsageError(
            value=spec, source=source, reason=f"cannot be split into words: {error}",
            fix="Balance the quotes, or quote the whole value once more for your shell",
        ) from None
    program = argv[0]
    if shutil.which(program) is None:
        if (os.sep in program or (os.altsep or os.sep) in program) and Path(program).is_file():
            raise UsageError(
                value=spec, source=source, reason=f"the program {program!r} is not executable",
                fix=f"Make it executable (chmod +x {shlex.quote(program)}) or run it through its "
                    f"interpreter, e.g. 'node {program}' or 'python3 {program}'",
            )
        raise _not_found(program, spec, source)
    return SubprocessAdapter(argv, timeout=timeout, source=source, description=text)
