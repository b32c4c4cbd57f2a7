"""eventproof's reference implementation: the spec in code.

One small module per rule: ``_selection`` (spec/selection.md §3-4), ``_settle`` (§5), ``_wire``
(classification and projection, spec/wire.md §3-4), ``_backstop`` (§5), ``_canonical`` (§6),
``_budget`` (spec/budget.md).
This package never imports ``eventproof.conformance`` or hypothesis.
"""

from ._backstop import (
    DEFAULT_MAX_BYTES,
    ID_CLIP_CODE_POINTS,
    MARKER,
    MIN_MAX_BYTES,
    bound_live_update,
    extract_text,
)
from ._budget import (
    DEFAULT_DIAGNOSTIC_FLOOR_BYTES,
    DEFAULT_INTERVAL_MS,
    DEFAULT_OUTPUT_FLOOR_BYTES,
    DEFAULT_ROSTER_BYTES,
    DEFAULT_SHARED_BYTES,
    DEFAULT_TASK_FLOOR_BYTES,
    final_details,
    live_roster,
    merge_lane,
    publish_schedule,
)
from ._canonical import canonical_bytes, well_formed
from ._errors import InvalidInput
from ._implementation import (
    OPS,
    SPEC_VERSION,
    Reference,
    maximal_reference,
    reference_for,
)
from ._selection import OutputFold, fold_results, select_output
from ._settle import settle_run
from ._wire import classify_event, project_event

__all__ = [
    "DEFAULT_DIAGNOSTIC_FLOOR_BYTES",
    "DEFAULT_INTERVAL_MS",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_OUTPUT_FLOOR_BYTES",
    "DEFAULT_ROSTER_BYTES",
    "DEFAULT_SHARED_BYTES",
    "DEFAULT_TASK_FLOOR_BYTES",
    "ID_CLIP_CODE_POINTS",
    "MARKER",
    "MIN_MAX_BYTES",
    "OPS",
    "SPEC_VERSION",
    "InvalidInput",
    "OutputFold",
    "Reference",
    "bound_live_update",
    "canonical_bytes",
    "classify_event",
    "extract_text",
    "final_details",
    "fold_results",
    "live_roster",
    "maximal_reference",
    "merge_lane",
    "project_event",
    "publish_schedule",
    "reference_for",
    "select_output",
    "settle_run",
    "well_formed",
]
