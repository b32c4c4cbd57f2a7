"""Helpers shared by the tests and the benchmarks (``tests/`` is on their import path)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def without_duration(document: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON report (schemas/report.json) without ``durationSeconds``: all that two
    deterministic runs of one implementation must agree on, however they ran."""
    return {key: value for key, value in document.items() if key != "durationSeconds"}
