"""The versions a run is judged under: the kit, the report shape and the protocol."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from eventproof.reference import SPEC_VERSION

from ._protocol import PROTOCOL_VERSION

__all__ = [
    "HYPOTHESIS_VERSION", "OLDER_REPORT_VERSIONS", "PROTOCOL_VERSION", "REPORT_VERSION",
    "SPEC_VERSION", "SUITE_VERSION",
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
#: Version 4 calls the searches' effort ``effort`` (version 3: ``budget``).
REPORT_VERSION = 4
#: Older report versions still read back (``eventproof report``, ``--merge``, ``--html``), each
#: with the members it names otherwise: ``(old name, current name)``, at the top level and in
#: ``run``.
OLDER_REPORT_VERSIONS: dict[int, tuple[tuple[str, str], ...]] = {3: (("budget", "effort"),)}
