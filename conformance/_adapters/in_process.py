"""Implementations in this process (spec/protocol.md §8): a deadline on every call, a fresh
object after a hang, and exceptions turned into answers."""

from __future__ import annotations

import _thread
import contextlib
import ctypes
import inspect
import io
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Final

from .._clip import TEXT_CHARACTERS, foreign_text
from .._errors import ImplementationError, ProtocolError
from .._model import ImplErrored
from .._protocol import (
    StartResponse,
    handshake_changed,
    start_response_from_json,
)
from ._base import (
    STDERR_TAIL_BYTES,
    Crashed,
    Ok,
    Response,
    Skipped,
    TimedOut,
    _json_copy,
    _kind,
    _request_copy,
    non_json_reason,
)
from .pipes import _StderrRing

# -- in process -----------------------------------------------------------------------------------


class _DeadlinePassed(BaseException):
    """Raised inside a call whose deadline passed. A BaseException, so that an implementation's
    own ``except Exception`` does not swallow it."""


@dataclass(frozen=True)
class _Returned:
    value: Any


@dataclass(frozen=True)
class _Raised:
    """What a call raised, with its text taken on the call's thread (``__str__`` is the
    implementation's code too, and may raise or hang)."""

    error: BaseException
    #: ``str(error)``, made safe (:func:`foreign_text`).
    message: str
    #: For ``SystemExit``: the status as ``sys.exit`` was given it.
    status: str = ""

    @classmethod
    def of(cls, error: BaseException) -> _Raised:
        message = foreign_text(lambda: str(error), "the message", TEXT_CHARACTERS,
                               passes=(_DeadlinePassed,))
        status = ""
        if isinstance(error, SystemExit):
            code = error.code
            status = (repr(code) if code is None or isinstance(code, int) else foreign_text(
                lambda: repr(code), "the exit status", passes=(_DeadlinePassed,)))
        return cls(error, message, status)

    @property
    def text(self) -> str:
        """``"<exception type>: <message>"`` (spec/protocol.md §8)."""
        return f"{type(self.error).__name__}: {self.message}"


class _Expired:
    pass


_EXPIRED: Final = _Expired()
_CallResult = _Returned | _Raised | _Expired

#: How long a call that overran its deadline gets to unwind after it is interrupted, before it
#: is abandoned where it is (a thread blocked in C cannot be stopped).
_UNWIND_SECONDS: Final = 0.2


def call_with_deadline(call: Callable[[], Any], seconds: float) -> _CallResult:
    """Run ``call`` for at most ``seconds``, fenced from the harness (spec/protocol.md §8).

    The call runs on a thread of its own while the calling thread waits, so nothing it raises
    (a ``BaseException`` of its own, ``KeyboardInterrupt``, ``SystemExit``) unwinds the harness,
    a signal handler it installs is refused (only the main thread may install one) and cannot
    defeat the deadline, and Ctrl-C still reaches the harness. When the deadline passes the call
    is interrupted where it runs Python code and, if it does not stop within
    :data:`_UNWIND_SECONDS`, abandoned. What it sets process-wide and the harness relies on
    (``sys.stdout``, ``sys.stderr``, the recursion limit, an ignored SIGALRM) is put back after
    every call, and the recursion limit may not be lowered while it runs.
    """
    box: list[_CallResult] = []
    # A lock, not an Event: waking from it runs no Python frame, so a recursion limit the call
    # lowered cannot raise in the harness before it is put back (the next line after the wait).
    gate = _thread.allocate_lock()
    gate.acquire()
    limit = sys.getrecursionlimit()

    def target() -> None:
        try:
            try:
                box.append(_Returned(call()))
            except BaseException as error:  # every exception is an answer
                if not isinstance(error, _DeadlinePassed):
                    box.append(_Raised.of(error))
        except BaseException:
            # Nothing may reach the thread's excepthook: it would print the exception, and its
            # __str__ is the implementation's (it may never end).
            pass
        finally:
            gate.release()

    saved = _ProcessState.save()
    worker = threading.Thread(target=target, name="eventproof-call", daemon=True)
    try:
        worker.start()
        finished = gate.acquire(True, seconds)
        _set_recursion_limit(limit)
        if finished:
            # Let the thread end, so that no call is counted among the live threads after it
            # returned (worker processes are forked only from a process with one thread).
            worker.join(_UNWIND_SECONDS)
        else:
            _interrupt(worker)
            gate.acquire(True, _UNWIND_SECONDS)
            _set_recursion_limit(limit)
    except BaseException:  # Ctrl-C or SIGTERM while waiting: the call must stop too
        _set_recursion_limit(limit)
        _interrupt(worker)
        raise
    finally:
        saved.restore()
    if not finished or not box:
        return _EXPIRED
    return box[0]


def _interrupt(worker: threading.Thread) -> None:
    """Raise :class:`_DeadlinePassed` in ``worker`` at its next Python instruction."""
    ident = worker.ident
    if ident is not None and worker.is_alive():
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident),
                                                   ctypes.py_object(_DeadlinePassed))


#: ``sys.setrecursionlimit`` itself, for the harness's own use while a call runs.
_set_recursion_limit: Final = sys.setrecursionlimit


def _lower_limit_refused(floor: int) -> Callable[[int], None]:
    """``sys.setrecursionlimit`` while a call runs: the limit is one for the whole process, and
    the harness's own thread is deeper than an implementation's (lowered under it, Python
    aborts), so a call may raise it (put back afterwards) but not lower it below ``floor``."""
    def set_recursion_limit(limit: int) -> None:
        if threading.current_thread() is not threading.main_thread() and limit < floor:
            raise ValueError(
                f"sys.setrecursionlimit({limit}) in an in-process implementation: the limit is "
                "the harness's too, and may not be lowered while it runs (spec/protocol.md §8); "
                "run it isolated (--isolate) to set its own")
        _set_recursion_limit(limit)
    return set_recursion_limit


@dataclass
class _ProcessState:
    """What a call may change for the whole process and the harness needs back."""

    stdout: Any
    stderr: Any
    recursion_limit: int
    alarm: Any

    @classmethod
    def save(cls) -> _ProcessState:
        alarm = None
        # An alarm the implementation sets must not end the harness (SIGALRM's default
        # action), unless someone (a test runner's timeout) already handles it.
        if (threading.current_thread() is threading.main_thread()
                and hasattr(signal, "SIGALRM")
                and signal.getsignal(signal.SIGALRM) == signal.SIG_DFL):
            alarm = signal.signal(signal.SIGALRM, signal.SIG_IGN)
        limit = sys.getrecursionlimit()
        if sys.setrecursionlimit is _set_recursion_limit:
            sys.setrecursionlimit = _lower_limit_refused(limit)
        return cls(sys.stdout, sys.stderr, limit, alarm)

    def restore(self) -> None:
        sys.stdout, sys.stderr = self.stdout, self.stderr
        if sys.setrecursionlimit is not _set_recursion_limit and getattr(
                sys.setrecursionlimit, "__qualname__", "").startswith("_lower_limit_refused"):
            sys.setrecursionlimit = _set_recursion_limit
        if sys.getrecursionlimit() != self.recursion_limit:
            _set_recursion_limit(self.recursion_limit)
        if self.alarm is not None:
            # No one else uses the timer: an alarm the implementation left set is cancelled.
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.alarm)


class _Captured(io.TextIOBase):
    """Stands for ``sys.stdout`` during a call: what the implementation prints is kept, like a
    program's stderr, instead of landing in the middle of a report."""

    def __init__(self, ring: _StderrRing) -> None:
        self._ring = ring

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._ring.append(str(text).encode("utf-8", "replace"))
        return len(text)


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
        self._output = _StderrRing(STDERR_TAIL_BYTES)
        #: How long the last run() call took (a rebuild after a timeout excluded).
        self.last_exchange_seconds = 0.0
        self._factory: Callable[[], Any] | None = None
        #: How many times the factory built a fresh object (1 after construction).
        self.builds = 0
        if _has_start_and_run(obj_or_factory):
            self._impl = obj_or_factory
        elif callable(obj_or_factory):
            self._factory = obj_or_factory
            self._impl = self._build()
        else:
            raise ImplementationError(
                value=self.description, source=source,
                reason=f"is a value of type {_kind(obj_or_factory)}, which has no start() and "
                       "run() and is not callable",
                fix=_OBJECT_FIX,
            )
        self._handshake: StartResponse | None = None
        self._unavailable: str | None = None
        self._stopped = False

    def _usage_error(self, reason: str, fix: str) -> ImplementationError:
        return ImplementationError(value=self.description, source=self._source, reason=reason,
                                   fix=fix)

    def _build(self) -> Any:
        assert self._factory is not None
        missing = _required_parameters(self._factory)
        if missing:
            raise self._usage_error(
                f"is a callable that needs the argument(s) {', '.join(missing)}",
                "Point at a class or function callable with no arguments, e.g. "
                "def make(): return MyImpl(option=...) and python:my_module:make",
            )
        with self._capture():
            result = call_with_deadline(self._factory, self.timeout)
        if isinstance(result, _Expired):
            raise self._usage_error(
                f"did not return an implementation within {self.timeout:g} s",
                "Make the factory return quickly (do slow setup lazily), or raise --timeout",
            )
        if isinstance(result, _Raised):
            raise self._usage_error(
                f"raised {result.text} when called with no arguments",
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
        start = self._impl.start
        with self._capture():
            result = call_with_deadline(lambda: _plain(start()), self.timeout)
        if isinstance(result, _Expired):
            raise self._usage_error(
                f"did not return from start() within {self.timeout:g} s",
                "Make start() return the handshake dict at once (spec/protocol.md §4.2), or "
                "raise --timeout",
            )
        if isinstance(result, _Raised):
            raise self._usage_error(
                f"raised {result.text} in start()",
                "start() must return the handshake dict of spec/protocol.md §4.2; "
                "eventproof.reference.Reference().start() is an example",
            )
        if isinstance(result.value, _NotJson):
            raise ProtocolError(
                message="the answer to the start request", field="$", expected="a JSON value",
                received=result.value.message, fix="Return only JSON values from start() "
                "(spec/protocol.md §8).",
            )
        return start_response_from_json(result.value)

    def run(self, op: str, input: Any, *, timeout: float | None = None) -> Response:
        if self._stopped:
            raise RuntimeError(f"{self.description} was stopped; start a new adapter")
        self.start()
        if self._unavailable is not None:
            return Crashed(self._unavailable)
        seconds = self.timeout if timeout is None else timeout
        # A private copy: the implementation can never alter the harness's.
        request_input = _request_copy(input)
        impl = self._impl
        mark = self._output.mark()
        started = time.perf_counter()
        with self._capture():
            # The output is checked and copied on the call's thread too, under its deadline:
            # a list subclass's own __iter__ is the implementation's code.
            result = call_with_deadline(lambda: _plain(impl.run(op, request_input)), seconds)
        self.last_exchange_seconds = time.perf_counter() - started
        if isinstance(result, _Expired):
            self._restart()
            return TimedOut(seconds, self._output.since(mark))
        if isinstance(result, _Raised):
            outcome = _outcome_of_exception(result, op)
            if isinstance(outcome, Crashed):
                outcome = Crashed(outcome.message, self._output.since(mark), outcome.exit_code)
            return outcome
        if isinstance(result.value, _NotJson):
            return ImplErrored(result.value.message)
        return Ok(result.value)

    @contextlib.contextmanager
    def _capture(self) -> Any:
        """Keep what the implementation prints on stdout (restored even when a call is
        abandoned: a thread still running prints to the real stdout again)."""
        with contextlib.redirect_stdout(_Captured(self._output)):
            yield

    def _restart(self) -> None:
        """After a timeout: build a fresh object and replay the handshake (factories only)."""
        if self._factory is None:
            return  # an object handed over as is can only be used as is (spec §8)
        try:
            self._impl = self._build()
            again = self._start_once()
        except (ImplementationError, ProtocolError) as error:
            self._unavailable = (
                f"the implementation could not be restarted after a timeout: {error}"
            )
            return
        if self._handshake is not None:
            changed = handshake_changed(self._handshake, again,
                                        "when it was built again after a timeout")
            if changed is not None:
                raise changed

    def stop(self) -> None:
        self._stopped = True

    def after_last_answer(self) -> None:
        """Nothing: an object in process answers by returning, and has no stdout of its own
        to write on after that (what it prints is kept, as its stderr would be)."""
        return None

    def stderr_tail(self) -> str:
        """What the implementation printed on stdout (its stderr is the harness's own)."""
        return self._output.tail()

    def exhausted(self) -> bool:
        return self._unavailable is not None

    def given_up(self) -> str | None:
        return self._unavailable

    def __enter__(self) -> InProcessAdapter:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


@dataclass(frozen=True)
class _NotJson:
    """Why what a call returned is not a JSON value (the errored answer's message)."""

    message: str


def _plain(value: Any) -> Any:
    """``value`` copied through JSON as a program would have sent it, or :class:`_NotJson`."""
    problem = non_json_reason(value)
    if problem is not None:
        return _NotJson(f"the output is not a JSON value: {problem}")
    try:
        return _json_copy(value)
    except RecursionError:
        return _NotJson("the output is nested too deeply to be copied as JSON")


def _outcome_of_exception(raised: _Raised, op: str) -> Response:
    """spec/protocol.md §8: NotImplementedError skips, any other ``Exception`` errs, and
    anything else raised (``sys.exit``, ``KeyboardInterrupt``, a ``BaseException`` of the
    implementation's own) is a crash of that request, as a program's death would be."""
    error = raised.error
    if isinstance(error, NotImplementedError):
        return Skipped(reason=raised.message or f"run() raised NotImplementedError for op {op}")
    if isinstance(error, SystemExit):
        code = error.code if isinstance(error.code, int) else None
        return Crashed(f"run() called sys.exit({raised.status}) on op {op}", exit_code=code)
    if isinstance(error, Exception):
        return ImplErrored(raised.text)
    return Crashed(f"run() raised {raised.text} on op {op}, which is not an Exception: the "
                   "request crashed (spec/protocol.md §8)")
