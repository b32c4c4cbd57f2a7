"""Helpers shared by the tests and the benchmarks (``tests/`` is on their import path)."""

from __future__ import annotations

import signal
from collections.abc import Mapping
from typing import Any


def without_duration(document: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON report (schemas/report.json) without ``durationSeconds``: all that two
    deterministic runs of one implementation must agree on, however they ran."""
    return {key: value for key, value in document.items() if key != "durationSeconds"}


def sigint_as_at_a_terminal() -> None:
    """``preexec_fn`` for a run a test interrupts: the child takes SIGINT by default, as it would
    at a terminal. A test session started in the background (``&`` in a script, ``nohup``) has
    SIGINT ignored, every child inherits that, and Python then never raises KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
