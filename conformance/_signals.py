"""The signals that end a run: Ctrl-C (SIGINT) and SIGTERM (``timeout``, ``kill``, a cancelled
CI job) end it the same way: the searches under way stop, the program under test is stopped with
its whole process group, the partial reports are written, and the exit code says which signal
it was (130, 143).

SIGTERM raises :class:`Terminated`, a :class:`KeyboardInterrupt`, so every path that already
ends a run cleanly on Ctrl-C ends it on SIGTERM too; :func:`stop_reason` tells them apart where
the ending is recorded.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

from ._results import StopReason

__all__ = ["Terminated", "on_sigterm_raise", "stop_reason"]


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: the run ends as on Ctrl-C, recorded as terminated (exit code 143)."""


def stop_reason(error: BaseException) -> StopReason:
    """How a run that ``error`` (a KeyboardInterrupt) ended is recorded."""
    return StopReason.TERMINATED if isinstance(error, Terminated) else StopReason.INTERRUPTED


def on_sigterm_raise(*, once: bool = True) -> None:
    """Make SIGTERM raise :class:`Terminated` in the main thread (from now on, in this process).

    With ``once``, a later SIGTERM is ignored: the run is already ending, and its partial
    reports must get written (a CI runner that will not wait sends SIGKILL)."""
    if threading.current_thread() is not threading.main_thread():
        return

    def _raise(_signum: int, _frame: FrameType | None) -> None:
        if once:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise Terminated

    signal.signal(signal.SIGTERM, _raise)
