"""The pipes to a program: bounded line reads, a stderr ring buffer, a non-blocking writer and
the process group it runs in."""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from .._errors import ProtocolError
from .._protocol import (
    STOP,
    encode,
)
from ._base import _READ_CHUNK, EXIT_GRACE_SECONDS, STOP_GRACE_SECONDS

#: How often a wait for an answer checks that the program's first process is still alive.
_POLL_SECONDS = 0.05
#: How long an answer the exited leader left in the pipe gets to arrive.
_EXIT_SECONDS = 0.25
#: How long a stopped program's stdout may take to end, once every process of its group is gone.
_DRAIN_SECONDS = 5.0
#: How many bytes of each end of an unfinished line a message shows.
_SHOWN_BYTES = 80


def unfinished_words(head: bytes, tail: bytes, count: int) -> str:
    """What a program wrote on stdout without ending the line, and the fix ("" for nothing):
    the bytes, that no line feed came, and a line ended by CR alone said as such."""
    if not count:
        return ""
    shown = repr(head) if count <= len(head) else f"{head!r} … {tail!r}"
    text = (f"it wrote {count} byte(s) on stdout but no line feed (\\n) after them: "
            f"{shown}")
    if b"\r" in head or b"\r" in tail:
        return (text + "; its lines end with a carriage return (\\r) alone, which does not end a "
                "line: end each answer with \\n (\\r\\n is fine too) (spec/protocol.md §2.1)")
    return (text + "; an answer counts once its line feed arrives: end each answer with \\n "
            "and flush stdout (spec/protocol.md §2.1, §2.2)")


# -- out of process -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Overlong:
    """The program wrote more than the line limit without a newline."""

    prefix: bytes
    #: Bytes of the line that had arrived when it was reported (more than the limit).
    received: int = 0


@dataclass(frozen=True)
class _LeaderExited:
    """The program's first process exited while its stdout stayed open (a process it started
    still holds it)."""

    code: int | None


@dataclass(frozen=True)
class _EndOfStream:
    """The program closed its stdout (it exited, most likely)."""

    pending: int  # bytes of an unfinished line


@dataclass(frozen=True)
class _Abandoned:
    """The run gave the program up while a request was under way (spec/protocol.md §7.4)."""


_Line = bytes | bytearray | _Overlong | _EndOfStream | _LeaderExited


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
        #: The line not yet ended: its first and last bytes and its length so far.
        self._unfinished: tuple[bytes, bytes, int] = (b"", b"", 0)
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
                            prefix = bytes(partial[:200]) or piece[:200]
                            self._put(_Overlong(prefix, len(partial) + len(piece)))
                            partial = bytearray()
                            discarding = True
                        else:
                            partial += piece
                            self.peak = max(self.peak, len(partial))
                    if newline < 0:
                        break
                    if not discarding:
                        self._unfinished = (b"", b"", 0)
                        self._put(partial)
                        partial = bytearray()
                    discarding = False
                    start = newline + 1
                if partial:
                    self._unfinished = (bytes(partial[:_SHOWN_BYTES]),
                                        bytes(partial[-_SHOWN_BYTES:]), len(partial))
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

    def unfinished(self) -> str:
        """What the program wrote of a line it has not ended, in words ("" when nothing)."""
        head, tail, count = self._unfinished
        return unfinished_words(head, tail, count)

    def ready(self) -> _Line | None:
        """A line that is already waiting, without waiting for one."""
        try:
            return self._lines.get_nowait()
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
        #: How long the last :meth:`exchange` waited, from sending to its answer or deadline.
        self.seconds = 0.0
        #: True while :meth:`exchange` waits for an answer (a stop from another thread, as when
        #: the run is ending, then leaves stdout to that wait).
        self._exchanging = False

    def exchange(self, payload: bytes, seconds: float,
                 abandon: Callable[[], bool] | None = None) -> _Line | _Abandoned | None:
        """Send one request and wait for one line; ``None`` when ``seconds`` pass first, and
        :class:`_Abandoned` as soon as ``abandon()`` is true (asked at every poll).

        When the program's first process exits while something it started keeps stdout open,
        no end of stream ever comes: that is a crash with the leader's exit status, reported
        once the answer it may have left in the pipe has had a moment to arrive.
        """
        self._exchanging = True
        try:
            return self._exchange(payload, seconds, abandon)
        finally:
            self._exchanging = False

    def _exchange(self, payload: bytes, seconds: float,
                  abandon: Callable[[], bool] | None) -> _Line | _Abandoned | None:
        started = time.monotonic()
        deadline = started + seconds
        self.writer.send(payload)
        while True:
            if abandon is not None and abandon():
                self.seconds = time.monotonic() - started
                return _Abandoned()
            now = time.monotonic()
            line = self.lines.next_line(min(deadline, now + _POLL_SECONDS))
            if line is not None:
                self.seconds = time.monotonic() - started
                return line
            code = self.popen.poll()
            if code is not None:
                line = self.lines.next_line(min(deadline, time.monotonic() + _EXIT_SECONDS))
                self.seconds = time.monotonic() - started
                return line if line is not None else _LeaderExited(code)
            if time.monotonic() >= deadline:
                self.seconds = time.monotonic() - started
                return None

    def alive(self) -> bool:
        return self.popen.poll() is None

    def _signal_group(self, number: int) -> None:
        # The program was started in its own session: its children die with it (spec §7.4).
        # The group is signalled even after its leader exited: a process the program started
        # may still be in it. The group id cannot be reused while any member lives.
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
        self._signal_group(getattr(signal, "SIGKILL", signal.SIGTERM))
        return self._finish()

    def exit_after_eof(self) -> int | None:
        """After stdout closed: the exit status, or ``None`` when it lingered and was killed.
        Whatever the program started is killed either way."""
        try:
            code = self.popen.wait(timeout=EXIT_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            self.kill()
            return None
        self._signal_group(getattr(signal, "SIGKILL", signal.SIGTERM))
        return self._reap(code)

    def stop(self) -> _Line | None:
        """Ask politely (spec §6), then terminate, then kill. Returns what the program wrote on
        stdout after its last answer (before the stop request or in answer to it): its first
        line, a line over the limit, or the end of stdout after bytes no newline ended; None
        when it wrote nothing."""
        if self.alive():
            self.writer.send(encode(STOP))
            self.writer.close()
            try:
                self.popen.wait(timeout=STOP_GRACE_SECONDS)
            except subprocess.TimeoutExpired:
                self._signal_group(signal.SIGTERM)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.popen.wait(timeout=STOP_GRACE_SECONDS)
        # Killed if still running, and what the program left behind (a process it started
        # that outlived it) goes too. Its stdout is still read (below), then closed.
        self._signal_group(getattr(signal, "SIGKILL", signal.SIGTERM))
        # Every process that could hold stdout is gone: the end of stdout comes at once, after
        # whatever was written before it (the bound is for a loaded machine's reader thread,
        # and for a process that left the group still holding stdout). Stopped in the middle of
        # a request, nothing it wrote comes after its last answer.
        written = (None if self._exchanging
                   else self.lines.next_line(time.monotonic() + _DRAIN_SECONDS))
        self._finish()
        if isinstance(written, _EndOfStream) and not written.pending:
            return None
        return written

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


