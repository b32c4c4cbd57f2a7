"""The versions a run is judged under: the kit, the report shape and the protocol."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from eventproof.reference import SPEC_VERSION

from ._protocol import PROTOCOL_VERSION

__all__ = [
    "HYPOTHESIS_VERSION", "PROTOCOL_VERSION", "REPORT_VERSION", "SPEC_VERSION", "SUITE_VERSION",
]


def _suite_version() -> str:
    try:
        return version("eventproof")
    except PackageNotFoundError:  # pragma: no cover - only when run from a bare checkout
        return "0+unknown"


#: The version of this distribution (the suite that judged the run).
SUITE_VERSION: str = _suite_version()
#: The Hypothesis release that generated the inputs: another release draws other inputs from the
#: same seed, so reports and case files record it.
HYPOTHESIS_VERSION: str = version("hypothesis")
#: The version of the JSON report's shape; bumped on any incompatible change to schemas/report.json.
REPORT_VERSION = 3
