"""The counts a run keeps once for all its worker processes of ``--jobs``: the restart limit
(spec/protocol.md §7.4), one count for the whole run shared by every operation, family search
and worker, so that a program that can no longer answer costs a bounded time in all, not a
bounded time per search or per worker; and the run requests' seq (§5.1), one number per
request over the whole run."""

from __future__ import annotations

import threading
import time
from typing import Any

__all__ = ["MAX_RESTARTS", "RestartCount", "SeqCounter"]

#: Restarts in a row without an answered request before the program is given up on.
MAX_RESTARTS = 3
#: The most bytes of the reason kept (it is shown in reports, clipped far below this anyway).
_REASON_BYTES = 4096
_IN_A_ROW, _GIVEN_UP, _STARTED, _GIVEN_UP_AT = range(4)


class RestartCount:
    """Restarts in a row without an answered request, and whether, when and why the program was
    given up on. Local to one process by default; with a :mod:`multiprocessing` ``context``, in
    shared memory that the worker processes started from that context inherit."""

    def __init__(self, limit: int = MAX_RESTARTS, *, context: Any | None = None) -> None:
        self.limit = limit
        numbers = [0.0, 0.0, time.monotonic(), 0.0]
        self._numbers: Any
        self._reason: Any
        self._lock: Any
        if context is None:
            self._numbers, self._reason = numbers, bytearray(_REASON_BYTES)
            self._lock = threading.Lock()
        else:
            self._numbers = context.Array("d", numbers, lock=False)
            self._reason = context.Array("c", _REASON_BYTES, lock=False)
            self._lock = context.Lock()

    @property
    def in_a_row(self) -> int:
        """Restarts since the last answered request, in the whole run."""
        return int(self._numbers[_IN_A_ROW])

    def take(self) -> int | None:
        """Count one restart: its number in the row (from 1), or None when the limit is reached
        (or the program was given up on), in which case nothing is counted."""
        with self._lock:
            if self._numbers[_GIVEN_UP] or self._numbers[_IN_A_ROW] >= self.limit:
                return None
            self._numbers[_IN_A_ROW] += 1
            return int(self._numbers[_IN_A_ROW])

    def answered(self) -> None:
        """A request was answered: the row starts again (unless the program was given up on)."""
        if self._numbers[_IN_A_ROW]:
            with self._lock:
                self._numbers[_IN_A_ROW] = 0

    def spent(self) -> bool:
        """Whether no restart is left (or the program was given up on)."""
        return bool(self._numbers[_GIVEN_UP]) or self._numbers[_IN_A_ROW] >= self.limit

    def give_up(self, reason: str) -> str:
        """Give the program up for the rest of the run, with ``reason`` and the time (the first
        reason given stands); the reason the run gave it up for."""
        with self._lock:
            if not self._numbers[_GIVEN_UP]:
                seconds = time.monotonic() - self._numbers[_STARTED]
                text = f"{reason} (given up on {seconds:.1f} s into the run)"
                data = text.encode("utf-8")[:_REASON_BYTES].decode("utf-8", "ignore").encode()
                self._reason[:len(data)] = data
                self._numbers[_GIVEN_UP_AT] = seconds
                self._numbers[_GIVEN_UP] = 1.0
        given = self.given_up()
        assert given is not None
        return given

    def given_up(self) -> str | None:
        """Why the program was given up on, or None while it was not."""
        if not self._numbers[_GIVEN_UP]:
            return None
        return bytes(self._reason[:]).rstrip(b"\0").decode("utf-8", "replace")

    @property
    def given_up_at(self) -> float | None:
        """Seconds into the run when the program was given up on, or None."""
        return self._numbers[_GIVEN_UP_AT] if self._numbers[_GIVEN_UP] else None


class SeqCounter:
    """The ``seq`` of the run's next run request: different for every run request over the
    harness's whole run, and increasing (spec/protocol.md §5.1). Local to one process by
    default; with a :mod:`multiprocessing` ``context``, in shared memory that the worker
    processes started from that context inherit, so that the programs of ``--jobs`` never
    see one seq twice."""

    def __init__(self, *, context: Any | None = None) -> None:
        self._last: Any
        self._lock: Any
        if context is None:
            self._last, self._lock = [0], threading.Lock()
        else:
            self._last, self._lock = context.Array("q", [0], lock=False), context.Lock()

    def next(self) -> int:
        """The next seq of the run (from 1)."""
        with self._lock:
            self._last[0] += 1
            return int(self._last[0])

