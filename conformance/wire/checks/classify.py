"""Checks of the ``classify`` rule (spec/wire.md §3): facts and frames."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ..._json import well_formed
from ..._model import Case, Errored, ImplErrored, Violation, judges
from ..explain import (
    FRAME_TYPES,
    compact,
    shown,
)


@judges("classify.kind")
def check_classify_kind(case: Case) -> Iterator[Violation]:
    """classify.kind (wire.md §3): frames are exactly message_update and tool_execution_update."""
    if case.op != "classify" or isinstance(case.expected, Errored):
        return
    event = case.input.get("event") if isinstance(case.input, Mapping) else None
    kind = event.get("type") if isinstance(event, Mapping) else None
    if not isinstance(kind, str):
        return
    want = "frame" if well_formed(kind) in FRAME_TYPES else "fact"
    known = kind in FRAME_TYPES or kind in {
        "agent_start", "agent_end", "turn_start", "turn_end", "message_start", "message_end",
        "tool_execution_start", "tool_execution_end"}
    label = f"the event type {compact(kind)}" + ("" if known else " (a type spec/wire.md does "
                                                "not name)")
    actual = case.actual
    if isinstance(actual, ImplErrored):
        yield Violation("classify.kind", (
            f"you answered errored ({actual.message[:200]}) for {label}; classify never fails "
            f"on a schema-valid event: the answer is \"{want}\" (wire.md §3)"))
    elif actual != want:
        why = ("only message_update and tool_execution_update are frames; every other type, "
               "unknown ones included, is a fact (an unknown event kept as a fact is never lost)")
        yield Violation("classify.kind", (
            f"your answer is {shown(actual)} for {label}; the answer is \"{want}\": {why}"))


# ============================================================================================
# project
# ============================================================================================


