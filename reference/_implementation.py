"""The reference as an implementation under test: the handshake and every operation.

``Reference`` is what ``eventproof run`` checks by default, what the harness computes expected
answers with, and the model a port copies: ``start()`` answers the handshake, ``run(op, input)``
answers one request with a JSON value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import _budget, _selection, _settle, _wire
from ._backstop import DEFAULT_MAX_BYTES
from ._errors import InvalidInput

SPEC_VERSION = "1.0"
OPS = ("select", "fold", "settle", "classify", "project", "details", "roster", "lane", "publish")


def _require_mapping(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidInput(
            value=value, path=path, reason="is not a JSON object",
            fix="Send the operation input as an object, as schemas/op-<op>.json describes.",
        )
    return value


def _require_list(value: Any, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise InvalidInput(
            value=value, path=path, reason="is not a JSON array",
            fix="Send a list here, as schemas/op-<op>.json describes.",
        )
    return value


class Reference:
    """The reference implementation of every operation, for one fit strategy."""

    def __init__(self, fit_strategy: str = "halving") -> None:
        if fit_strategy not in ("halving", "maximal"):
            raise InvalidInput(
                value=fit_strategy, path="fit_strategy", reason="is not a fit strategy",
                fix="Use 'halving' or 'maximal' (spec/wire.md §5.5).",
            )
        self.fit_strategy = fit_strategy

    def start(self) -> dict[str, Any]:
        """The handshake answer (spec/protocol.md)."""
        from importlib.metadata import PackageNotFoundError, version

        try:
            own_version = version("eventproof")
        except PackageNotFoundError:  # pragma: no cover - only when run from a bare checkout
            own_version = "0+unknown"
        return {
            "version": 1,
            "implementation": {
                "name": f"eventproof-reference-{self.fit_strategy}",
                "language": "python",
                "version": own_version,
                "homepage": "https://github.com/eventproof/eventproof",
                "issues": "https://github.com/eventproof/eventproof/issues",
            },
            "capabilities": {
                "ops": list(OPS),
                "fitStrategy": self.fit_strategy,
                "variableMaxBytes": True,
            },
        }

    def run(self, op: str, input: Any) -> Any:
        """Answer one request; raises :class:`InvalidInput` for an erroneous input."""
        request = _require_mapping(input, "$")
        if op == "select":
            return _selection.select_output(_require_list(request.get("events"), "$.events"))
        if op == "fold":
            return _selection.fold_results(_require_list(request.get("pushes"), "$.pushes"))
        if op == "settle":
            # selection.md §7: "mode" picks the settlement path (one-shot when left out); the
            # members a request leaves out are passed as absent, so that settle_run can tell a
            # missing "cancelled" (an error for a one-shot run) from a given one.
            members = {name: request[name] for name in ("cancelled", "diagnostic")
                       if name in request}
            return _settle.settle_run(
                _require_list(request.get("events"), "$.events"),
                mode=request.get("mode", _settle.ONE_SHOT), **members,
            )
        if op == "classify":
            return _wire.classify_event(_require_mapping(request.get("event"), "$.event"))
        if op == "project":
            include = request.get("includeLiveEvents", False)
            if not isinstance(include, bool):
                raise InvalidInput(value=include, path="$.includeLiveEvents",
                                   reason="is not a boolean", fix="Send true or false.")
            max_bytes = request.get("maxBytes", DEFAULT_MAX_BYTES)
            line = _wire.project_event(
                _require_mapping(request.get("event"), "$.event"),
                include_live_events=include, max_bytes=max_bytes,
                fit_strategy=self.fit_strategy,
            )
            return None if line is None else {"line": line.decode("utf-8")}
        if op == "details":  # spec/budget.md §3-5
            return _budget.final_details(
                request.get("records"), shared_bytes=request.get("sharedBytes"),
                task_floor_bytes=request.get("taskFloorBytes"),
                output_floor_bytes=request.get("outputFloorBytes"),
                diagnostic_floor_bytes=request.get("diagnosticFloorBytes"))
        if op == "roster":  # budget.md §6
            return _budget.live_roster(request.get("records"), max_bytes=request.get("maxBytes"))
        if op == "lane":  # budget.md §7
            return _budget.merge_lane(request.get("updates"))
        if op == "publish":  # budget.md §8
            return _budget.publish_schedule(request.get("events"),
                                            interval_ms=request.get("intervalMs"))
        raise InvalidInput(
            value=op, path="op", reason="is not an operation of this spec",
            fix=f"Use one of {', '.join(OPS)}.",
        )


def reference_for(fit_strategy: str = "halving") -> Reference:
    """A reference for ``fit_strategy``; the factory ``--impl python:`` accepts."""
    return Reference(fit_strategy)


def maximal_reference() -> Reference:
    """The reference with the ``maximal`` fit strategy (``--impl python:…:maximal_reference``)."""
    return Reference("maximal")
