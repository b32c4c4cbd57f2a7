"""The public strategies yield values that the shipped schemas accept (the suite speaks its own
spec)."""

from __future__ import annotations

import importlib
import types
from typing import Any

import pytest
from eventproof.conformance import strategies
from eventproof.conformance._model import Capabilities
from eventproof.conformance._operations import OPS
from eventproof.conformance._schemas import schema_issues
from hypothesis import given, settings
from hypothesis import strategies as st

PAIRS = [
    (strategies.session_events(), "session-event.json"),
    (strategies.session_logs(), "session-event.json#/$defs/log"),
    (strategies.content_blocks(), "content-block.json"),
    (strategies.chunks(), "chunk.json"),
    (strategies.agent_events(), "agent-event.json"),
    (strategies.assistant_message_events(), "agent-event.json"),
    (strategies.tool_execution_updates(max_bytes=4096), "agent-event.json"),
]


@pytest.mark.parametrize(("strategy", "schema"), PAIRS, ids=[name for _, name in PAIRS])
@settings(max_examples=30)
@given(data=st.data())
def test_strategy_values_validate(strategy: Any, schema: str, data: st.DataObject) -> None:
    """Every value a public strategy draws validates against the schema it claims to follow."""
    value = data.draw(strategy)
    assert schema_issues(value, schema) == []


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("fit", ["halving", "maximal"])
@settings(max_examples=25)
@given(data=st.data())
def test_op_inputs_validate(op: str, fit: str, data: st.DataObject) -> None:
    """op_inputs yields inputs valid under the operation's input schema, for either strategy."""
    capabilities = Capabilities(fit_strategy=fit)  # type: ignore[arg-type]
    value = data.draw(strategies.op_inputs(op, capabilities))
    assert schema_issues(value, f"op-{op}.json#/$defs/input") == []


def test_op_inputs_rejects_unknown_operation() -> None:
    """An unknown operation name is refused with the list of real ones."""
    with pytest.raises(ValueError, match="use one of select"):
        strategies.op_inputs("serialize")


def test_public_surface_is_exactly_all() -> None:
    """The module exports exactly what __all__ lists, so nothing private leaks."""
    public = {name for name in vars(strategies) if not name.startswith("_")}
    imported_helpers = {"annotations", "Any", "st", "OPS", "Capabilities"}
    assert public - imported_helpers == set(strategies.__all__)


@pytest.mark.parametrize("profile", ["selection", "wire", "budget"])
def test_a_profile_strategies_package_exports_its_public_strategies_alone(profile: str) -> None:
    """Each profile's strategies package names its public strategies (``__all__``) and nothing
    private: a private helper is imported from the module that defines it."""
    package = importlib.import_module(f"eventproof.conformance.{profile}.strategies")
    submodules = {name for name, value in vars(package).items()
                  if isinstance(value, types.ModuleType)}
    names = {name for name in vars(package) if not name.startswith("__")} - submodules
    assert {name for name in names if name.startswith("_")} == set()
    assert names - {"annotations"} == set(package.__all__)
