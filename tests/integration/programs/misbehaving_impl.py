"""In-process implementations that misbehave in run() (tests/integration/test_faults.py): the
reference, except on the third run call (``EVENTPROOF_FAULT_AT`` overrides which)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

from eventproof.reference import Reference


class _Faulty:
    def __init__(self) -> None:
        self._reference = Reference()
        self._calls = 0
        self._at = int(os.environ.get("EVENTPROOF_FAULT_AT", "3"))

    def start(self) -> dict[str, Any]:
        return self._reference.start()

    def run(self, op: str, input: Any) -> Any:
        self._calls += 1
        if self._calls % self._at == 0:
            self.fault()
        return self._reference.run(op, input)

    def fault(self) -> None:
        raise NotImplementedError


class ExitsHard(_Faulty):
    def fault(self) -> None:
        os._exit(9)


class KillsItself(_Faulty):
    def fault(self) -> None:
        os.kill(os.getpid(), signal.SIGKILL)


class Interrupts(_Faulty):
    def fault(self) -> None:
        raise KeyboardInterrupt


class SignalsTheHarness(_Faulty):
    """Sends SIGINT to its own process: in process, that is the harness (as Ctrl-C is)."""

    def fault(self) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)


class Prints(_Faulty):
    def fault(self) -> None:
        print("debug output from the implementation")


class SlowOnceReady(_Faulty):
    """The reference, answering each call after 0.2 s, having first created the file named by
    ``EVENTPROOF_READY_FILE``: a test signals the harness once the run is under way."""

    def run(self, op: str, input: Any) -> Any:
        ready = os.environ.get("EVENTPROOF_READY_FILE")
        if ready:
            Path(ready).touch()
        time.sleep(0.2)
        return self._reference.run(op, input)
