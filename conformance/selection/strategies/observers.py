"""The selection profile's strategies: observations."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .events import (
    _chunk,
)

# -- observations for hypothesis.target ------------------------------------------------------------

def _data(event: Any) -> Mapping[str, Any]:
    data = event.get("data") if isinstance(event, Mapping) else None
    return data if isinstance(data, Mapping) else {}


def _content_length(event: Any) -> int | None:
    """The content length of an assistant/message, or None for any other event."""
    if not isinstance(event, Mapping) or event.get("type") != "assistant/message":
        return None
    message = _data(event).get("message")
    content = message.get("content") if isinstance(message, Mapping) else None
    return len(content) if isinstance(content, list) else None


def _chunk_type(event: Any) -> str | None:
    if not isinstance(event, Mapping) or event.get("type") != "assistant/chunk":
        return None
    chunk = _data(event).get("chunk")
    kind = chunk.get("type") if isinstance(chunk, Mapping) else None
    return kind if isinstance(kind, str) else None


#: Observations saturate here: two empty messages after the last non-empty one already make the
#: boundary case, and a bounded score lets Hypothesis stop hill-climbing and keep generating
#: diverse logs instead of ever longer ones.
TARGET_CAP = 2.0


def _capped(count: int) -> float:
    return min(float(count), TARGET_CAP)


def log_observations(events: Sequence[Any]) -> dict[str, float]:
    """What steers a log toward the selection's boundaries (selection.md §3).

    Empty messages and streamed text *after* the last non-empty message are where a wrong rule
    picks the wrong output (both are 0 when no message has content); non-text deltas with no
    non-empty message are where a wrong fallback counts what it must not.
    """
    last = max((i for i, e in enumerate(events) if (_content_length(e) or 0) > 0), default=-1)
    after = events[last + 1:] if last >= 0 else []
    return {
        "empty messages after the last non-empty one": _capped(
            sum(1 for e in after if _content_length(e) == 0)),
        "text deltas after the last non-empty message": _capped(
            sum(1 for e in after if _chunk_type(e) == "text-delta")),
        "non-text deltas without a non-empty message": _capped(
            sum(1 for e in events if _chunk_type(e) in ("reasoning-delta", "tool-call-delta"))
            if last < 0 else 0),
    }


def observe_select(op_input: Any) -> dict[str, float]:
    events = op_input.get("events") if isinstance(op_input, Mapping) else None
    return log_observations(events if isinstance(events, list) else [])


def observe_fold(op_input: Any) -> dict[str, float]:
    pushes = op_input.get("pushes") if isinstance(op_input, Mapping) else None
    pushes = pushes if isinstance(pushes, list) else []
    events = [
        _chunk({"type": "text-delta", "index": 0, "text": push["text"]}) if "text" in push
        else push.get("event")
        for push in pushes if isinstance(push, Mapping)
    ]
    observations = log_observations(events)
    observations["text pushes"] = _capped(
        sum(1 for p in pushes if isinstance(p, Mapping) and "text" in p))
    return observations


def observe_settle(op_input: Any) -> dict[str, float]:
    events = op_input.get("events") if isinstance(op_input, Mapping) else None
    events = events if isinstance(events, list) else []
    observations = log_observations(events)
    # Several turn/end events: only the last one decides the stop reason (selection.md §5.1).
    observations["turn/end events"] = _capped(
        sum(1 for e in events if isinstance(e, Mapping) and e.get("type") == "turn/end"))
    return observations
