"""Ports wrong only on a fact a shipped vector pins are caught by a quick run on every seed: every
run asks each operation its vectors (the ``shipped-vectors`` family), where a drawn search meets
such a fact on some seeds only.

Each port is the reference with one misreading, written from the spec: text deltas joined in
index order (selection.md §3.3 joins them in log order), a message carrying usage taken for an
empty one (§3.1: content length decides), an empty usage dropped from a projected line (wire.md
§4.3 keeps the message's usage as it is), a shared budget held in 32 bits (budget.md §1: any
integer).
"""

from __future__ import annotations

from typing import Any

import pytest
from eventproof.conformance._json import same_json
from eventproof.conformance._model import Capabilities
from eventproof.conformance._traps import trap_families
from eventproof.reference import Reference
from helpers import conforms_on_a_quick_run
from hypothesis import find, settings


def _events(op_input: Any) -> list[Any]:
    events = op_input.get("events") if isinstance(op_input, dict) else None
    return events if isinstance(events, list) else []


class DeltasByIndex(Reference):
    """Joins the streamed text fallback by each delta's ``index``, not in log order."""

    def run(self, op: str, input: Any) -> Any:
        answer = super().run(op, input)
        if op != "select" or not answer or answer[0].get("type") != "text" or any(
                event.get("type") == "assistant/message" and (event.get("data") or {}).get(
                    "message", {}).get("content") for event in _events(input)
                if isinstance(event, dict)):
            return answer
        deltas = [chunk for event in _events(input) if isinstance(event, dict)
                  and event.get("type") == "assistant/chunk"
                  for chunk in [(event.get("data") or {}).get("chunk") or {}]
                  if chunk.get("type") == "text-delta" and isinstance(chunk.get("text"), str)]
        ordered = sorted(deltas, key=lambda chunk: chunk["index"]
                         if isinstance(chunk.get("index"), int | float) else 0)
        return [{"type": "text", "text": "".join(chunk["text"] for chunk in ordered)}]


class UsageMeansEmpty(Reference):
    """Takes a message that carries usage for the usage-only message of a step: skipped."""

    def run(self, op: str, input: Any) -> Any:
        if op == "select":
            input = {**input, "events": [
                event for event in _events(input)
                if not (isinstance(event, dict) and event.get("type") == "assistant/message"
                        and "usage" in (event.get("data") or {}))]}
        return super().run(op, input)


class EmptyUsageDropped(Reference):
    """Drops a message's usage when it is ``{}`` (``if (usage && Object.keys(usage).length)``)."""

    def run(self, op: str, input: Any) -> Any:
        event = input.get("event") if op == "project" and isinstance(input, dict) else None
        message = event.get("message") if isinstance(event, dict) else None
        if isinstance(message, dict) and message.get("usage") == {}:
            rest = {key: value for key, value in message.items() if key != "usage"}
            input = {**input, "event": {**event, "message": rest}}
        return super().run(op, input)


class SharedBytesIn32Bits(Reference):
    """Holds the shared budget in 32 unsigned bits: a budget past 2^32 wraps."""

    def run(self, op: str, input: Any) -> Any:
        shared = input.get("sharedBytes") if op == "details" and isinstance(input, dict) else None
        if isinstance(shared, int) and not isinstance(shared, bool) and shared >= 2**32:
            input = {**input, "sharedBytes": shared % 2**32}
        return super().run(op, input)


PORTS: dict[type[Reference], str] = {
    DeltasByIndex: "select", UsageMeansEmpty: "select", EmptyUsageDropped: "project",
    SharedBytesIn32Bits: "details",
}
CASES = list(PORTS.items())
IDS = [cls.__name__ for cls in PORTS]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("cls", "op"), CASES, ids=IDS)
def test_a_quick_search_catches_each_port_on_every_seed(cls: type[Reference], op: str,
                                                         seed: int) -> None:
    """A quick search of ``op`` from any seed finds the port."""
    assert not conforms_on_a_quick_run(cls(), op, seed), (cls.__name__, op, seed)


@pytest.mark.parametrize(("cls", "op"), CASES, ids=IDS)
def test_a_shipped_vector_every_run_asks_shows_each_port(cls: type[Reference], op: str) -> None:
    """The catch is by construction: an input of the ``shipped-vectors`` family, which every run
    asks, is answered otherwise by the port than by the reference."""
    (family,) = [family for family in trap_families(op, Capabilities())
                 if family.name == "shipped-vectors"]

    def differs(op_input: Any) -> bool:
        try:
            return not same_json(cls().run(op, op_input), Reference().run(op, op_input))
        except Exception:  # the reference refuses it: a vector of an error, not of this fact
            return False

    find(family.strategy, differs, settings=settings(database=None, max_examples=500))
