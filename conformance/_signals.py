"""The signals that end a run: Ctrl-C (SIGINT), SIGTERM (``timeout``, ``kill``, a cancelled CI
job) and SIGHUP (the terminal or the ssh session that started the run closed) end it the same
way: the request under way is abandoned, the searches stop, the program under test is stopped
with its whole process group (in every worker process of ``--jobs``), the partial reports are
written, and the exit code says which signal it was: 130 for SIGINT, 143 for SIGTERM and SIGHUP
(spec/protocol.md §6).

SIGTERM and SIGHUP raise :class:`Terminated`, a :class:`KeyboardInterrupt`, so every path that
already ends a run cleanly on Ctrl-C ends it on them too; :func:`stop_reason` tells them apart
where the ending is recorded.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

from ._results import StopReason

__all__ = ["Terminated", "on_sigterm_raise", "stop_reason"]


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived: the run ends as on Ctrl-C, recorded as terminated (exit code
    143)."""


def stop_reason(error: BaseException) -> StopReason:
    """How a run that ``error`` (a KeyboardInterrupt) ended is recorded."""
    return StopReason.TERMINATED if isinstance(error, Terminated) else StopReason.INTERRUPTED


#: The signals that terminate a run (exit code 143); SIGHUP is missing on Windows.
TERMINATING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP")
                    if hasattr(signal, name))


def on_sigterm_raise(*, once: bool = True) -> None:
    """Make SIGTERM and SIGHUP raise :class:`Terminated` in the main thread (from now on, in
    this process).

    A signal already ignored when the run starts (SIGHUP under ``nohup``) stays ignored. With
    ``once``, a later SIGTERM or SIGHUP is ignored: the run is already ending, and its
    partial reports must get written (a CI runner that will not wait sends SIGKILL)."""
    if threading.current_thread() is not threading.main_thread():
        return

    def _raise(_signum: int, _frame: FrameType | None) -> None:
        if once:
            for number in TERMINATING:
                signal.signal(number, signal.SIG_IGN)
        raise Terminated

    for number in TERMINATING:
        if signal.getsignal(number) is not signal.SIG_IGN:  # nohup's ignored SIGHUP stays so
            signal.signal(number, _raise)
