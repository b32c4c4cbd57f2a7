"""In-process misbehaviours, drawn by tests/integration/test_in_process_fence.py: the reference,
except that from the Nth run() call on it does one thing an implementation may do to the process
it runs in (raise, return, print or set something).

``Misbehaves`` reads ``EVENTPROOF_MISBEHAVIOUR=<name>:<from call>`` (the command line's way);
:func:`misbehaving` builds one directly. ``EVENTPROOF_PRINT_ON_IMPORT=1`` makes importing this
module print, as some packages do.
"""

from __future__ import annotations

import io
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from eventproof.reference import Reference

if os.environ.get("EVENTPROOF_PRINT_ON_IMPORT"):
    print("imported: a module that prints when imported")


class OwnBaseException(BaseException):
    """An exception that is not an Exception, of the implementation's own."""


class UnprintableError(Exception):
    def __str__(self) -> str:
        raise RuntimeError("__str__ fails")


class EndlessMessage(Exception):
    def __str__(self) -> str:
        while True:
            pass


class NotAString(Exception):
    def __str__(self) -> Any:
        return 42


class IterRaises(list[Any]):
    def __iter__(self) -> Any:
        raise ValueError("iterating fails")


def _self_list() -> Any:
    loop: list[Any] = []
    loop.append(loop)
    return loop


def _self_dict() -> Any:
    loop: dict[str, Any] = {"kind": "text"}
    loop["again"] = {"inner": loop}
    return loop


def _raise(error: BaseException) -> Callable[[], Any]:
    def act() -> Any:
        raise error
    return act


#: The name of the thread ``thread-prints`` starts (a test waits for it between examples).
CHATTER = "fenced-impl-chatter"


def _thread_prints() -> None:
    def chatter() -> None:
        for _ in range(20):
            print("thread output, not a report")
            time.sleep(0.01)
    threading.Thread(target=chatter, name=CHATTER, daemon=True).start()


def _recurse(depth: int = 0) -> Any:
    return _recurse(depth + 1)


#: What each misbehaviour does when it happens; ``None`` from the action means "then answer as
#: the reference does" (a side effect), anything else is returned (an answer).
ACTIONS: dict[str, Callable[[], Any]] = {
    "own-base-exception": _raise(OwnBaseException("mine")),
    "keyboard-interrupt": _raise(KeyboardInterrupt()),
    "system-exit-object": _raise(SystemExit(object())),
    "generator-exit": _raise(GeneratorExit()),
    "unprintable-error": _raise(UnprintableError()),
    "endless-message": _raise(EndlessMessage()),
    "message-not-a-string": _raise(NotAString()),
    "error-with-address": lambda: _raise(ValueError(f"bad {object()!r}"))(),
    "deep-recursion": _recurse,
    "self-list": _self_list,
    "self-dict": _self_dict,
    "generator": lambda: (item for item in range(0)),
    "object": object,
    "function": lambda: print,
    "huge-integer": lambda: 10 ** 5000,
    "huge-integer-nested": lambda: {"kind": [1, -(10 ** 5000)]},
    "iter-raises": lambda: IterRaises([1]),
    "hang": lambda: _recurse_forever(),
    "set-sigalrm": lambda: _set_sigalrm(),
    "alarm": lambda: _alarm(),
    "prints": lambda: print("printed by run()"),
    "thread-prints": _thread_prints,
    "recursion-limit": lambda: sys.setrecursionlimit(60),
    "replace-stdout": lambda: setattr(sys, "stdout", io.StringIO()),
    "replace-stderr": lambda: setattr(sys, "stderr", io.StringIO()),
}


def _recurse_forever() -> Any:
    while True:
        pass


def _set_sigalrm() -> None:
    """Its own SIGALRM handler: a harness that bounds calls with SIGALRM loses its deadline."""
    signal.signal(signal.SIGALRM, lambda *_: None)
    while True:
        pass


def _alarm() -> None:
    """An alarm whose default action ends the process it goes off in."""
    signal.setitimer(signal.ITIMER_REAL, 0.05)


#: The misbehaviours that leave the answer alone (the request is answered as the reference
#: would): the fence must keep the harness whole, and the answer is the reference's.
SIDE_EFFECTS = frozenset({"alarm", "prints", "thread-prints", "recursion-limit",
                          "replace-stdout", "replace-stderr"})


class _Misbehaving:
    def __init__(self, what: str, start_at: int) -> None:
        self.what = what
        self.start_at = start_at
        self.calls = 0
        self.reference = Reference()

    def start(self) -> dict[str, Any]:
        return dict(self.reference.start())

    def run(self, op: str, input: Any) -> Any:
        self.calls += 1
        if self.calls >= self.start_at:
            answer = ACTIONS[self.what]()
            if self.what not in SIDE_EFFECTS and answer is not None:
                return answer
        return self.reference.run(op, input)


def misbehaving(what: str, start_at: int = 1) -> _Misbehaving:
    """The reference, doing ``what`` from its ``start_at``-th run() call on."""
    return _Misbehaving(what, start_at)


def Misbehaves() -> _Misbehaving:
    """The misbehaviour ``EVENTPROOF_MISBEHAVIOUR`` names (``<name>:<from call>``)."""
    what, _, start_at = os.environ["EVENTPROOF_MISBEHAVIOUR"].partition(":")
    return _Misbehaving(what, int(start_at or 1))


class ControlName(Reference):
    """The reference, declaring a name and version that hold terminal control characters."""

    def start(self) -> dict[str, Any]:
        handshake = dict(super().start())
        handshake["implementation"] = {
            **handshake["implementation"],
            "name": os.environ.get("EVENTPROOF_NAME", "evil\x1b[2J\x1b]0;pwned\x07\x00\tname"),
            "version": "1\x1b[31m\u202e0"}
        return handshake
