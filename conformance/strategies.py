"""Public Hypothesis strategies for agent event streams, for use in your own property tests.

Every strategy yields schema-valid JSON values (see ``schemas/``); ``op_inputs`` yields the inputs
``eventproof run`` sends for one operation, so a port can run the same search in its own suite::

    from hypothesis import given
    from eventproof.conformance.strategies import op_inputs

    @given(op_inputs("project"))
    def test_my_projection_fits(request): ...
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from . import _operations
from ._model import Capabilities
from .selection.strategies.events import assistant_messages, session_events
from .selection.strategies.logs import session_logs
from .selection.strategies.values import chunks, content_blocks
from .wire.strategies.events import (
    agent_events,
    assistant_message_events,
    partial_results,
    tool_execution_updates,
)
from .wire.strategies.values import json_values

__all__ = [
    "agent_events",
    "assistant_message_events",
    "assistant_messages",
    "chunks",
    "content_blocks",
    "json_values",
    "op_inputs",
    "partial_results",
    "session_events",
    "session_logs",
    "tool_execution_updates",
]


def op_inputs(op: str, capabilities: Capabilities | None = None) -> st.SearchStrategy[Any]:
    """Inputs for ``op`` exactly as the harness generates them for an implementation declaring
    ``capabilities`` (default: every op, ``halving``, variable ``maxBytes``)."""
    if op not in _operations.OPS:
        raise ValueError(f"{op!r} is not an operation; use one of {', '.join(_operations.OPS)}")
    operation = _operations.OPERATIONS_BY_NAME[op]
    return operation.inputs(capabilities or Capabilities())  # type: ignore[no-any-return]
