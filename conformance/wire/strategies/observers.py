"""The wire profile's strategies: observers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eventproof.reference import (
    canonical_bytes,
)

from .events import (
    full_text_bounded_size,
)

# -- observers (hypothesis.target) -----------------------------------------------------------


def observe_project(op_input: Any) -> dict[str, float]:
    """Steer toward the byte boundary, from both sides of the backstop.

    Two scores, each peaking at 0: minus the distance of the update's canonical line from
    ``maxBytes`` (a line at the bound fits; one byte more and it is bounded), and, for a line
    over the bound, minus the bytes its bounded form with the whole text lacks to be over
    ``maxBytes`` (0 once the tail must be cut, where the fit strategies part). Hypothesis spends
    what is left of a search of under 1000 examples climbing from the best example of each.
    """
    event = op_input.get("event") if isinstance(op_input, Mapping) else None
    max_bytes = op_input.get("maxBytes") if isinstance(op_input, Mapping) else None
    if not isinstance(event, Mapping) or event.get("type") != "tool_execution_update":
        return {}
    if not isinstance(max_bytes, int):
        return {}
    # The bounded forms hold strings only and never fail; each is measured only when the score
    # needs it (an observer runs on every example).
    if full_text_bounded_size(event, text="") + 64 > max_bytes:
        # The ids leave no room for a tail (the smallest bound, see edge_updates): such updates
        # are generated directly, and climbing from one would explore nothing else.
        return {}
    try:
        line = len(canonical_bytes(event))
    except ValueError:  # a value the spec refuses: nothing to steer by
        return {}
    scores = {"minus bytes from maxBytes": -float(abs(line - max_bytes))}
    if line > max_bytes:  # only a line over the bound is bounded
        # Flat at the top: every update whose tail must be cut scores 0, so the climb moves
        # sideways through many of them (other units, leads, ids) instead of polishing one.
        bounded = full_text_bounded_size(event)
        scores["bytes the whole-text bounded form lacks to be over maxBytes, negated"] = (
            -float(max(0, max_bytes + 1 - bounded)))
    return scores
