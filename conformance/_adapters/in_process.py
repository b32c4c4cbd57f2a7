"""Implementations in this process (spec/protocol.md §8): a deadline on every call, a fresh
object after a hang, and exceptions turned into answers."""

from __future__ import annotations

import contextlib
import inspect
import io
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType, TracebackType
from typing import Any, Final

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
        with self._capture():
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
        # A private copy: the implementation can never alter the harness's.
        request_input = _request_copy(input)
        impl = self._impl
        mark = self._output.mark()
        started = time.perf_counter()
        with self._capture():
            result = call_with_deadline(lambda: impl.run(op, request_input), seconds)
        self.last_exchange_seconds = time.perf_counter() - started
        if isinstance(result, _Expired):
            self._restart()
            return TimedOut(seconds, self._output.since(mark))
        if isinstance(result, _Raised):
            outcome = _outcome_of_exception(result.error, op)
            if isinstance(outcome, Crashed):
                outcome = Crashed(outcome.message, self._output.since(mark), outcome.exit_code)
            return outcome
        problem = non_json_reason(result.value)
        if problem is not None:
            return ImplErrored(f"the output is not a JSON value: {problem}")
        try:
            return Ok(_json_copy(result.value))
        except RecursionError:
            return ImplErrored("the output is nested too deeply to be copied as JSON")

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

    def stderr_tail(self) -> str:
        """What the implementation printed on stdout (its stderr is the harness's own)."""
        return self._output.tail()

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


