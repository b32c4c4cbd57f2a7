"""Boundaries: every threshold the spec states is drawn exactly at it, just below and just above,
within the quick budget, next to the cut or the bound it decides.

Each threshold is measured on the inputs a quick search of its operation draws (every family
with its share, derandomized, as the engine generates them), with the reference's answer where
the threshold is one of the answer (a publish window, the roster's bound).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from eventproof.conformance._model import Capabilities
from eventproof.reference import Reference, canonical_bytes
from helpers import quick_inputs

CAPABILITIES = Capabilities()
REFERENCE = Reference()


# -- wire: the byte bound (wire.md §5.1) and the cost table (§6.5) ----------------------------

def _bound_offsets() -> Iterator[int]:
    """For each opted-in update, its line's size minus maxBytes."""
    for op_input in quick_inputs("project"):
        event = op_input["event"]
        if event.get("type") == "tool_execution_update" and op_input["includeLiveEvents"]:
            try:
                yield len(canonical_bytes(event)) - op_input["maxBytes"]
            except ValueError:
                continue


#: The edges of the cost table of wire.md §6.5: the last code point of one cost and the first of
#: the next.
COST_EDGES = {
    "U+001F (6 bytes)": "\x1f", "U+0020 (1 byte)": " ", "U+007F (1 byte)": "\x7f",
    "U+0080 (2 bytes)": "\x80", "U+07FF (2 bytes)": "\u07ff", "U+0800 (3 bytes)": "\u0800",
    "U+FFFF (3 bytes)": "\uffff", "U+10000 (4 bytes)": "\U00010000",
    "a lone surrogate (3 bytes)": "\ud800",
}


def _strings(value: Any) -> Iterator[str]:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


# -- budget: the roster's bound (§6.2), the publish window (§8.2) ------------------------------

def _roster_offsets() -> Iterator[int]:
    """For each roster, the bytes its results take minus maxBytes, and the bytes one more
    record would take minus maxBytes (the cut the bound decides)."""
    for op_input in quick_inputs("roster"):
        answer = REFERENCE.run("roster", op_input)
        shown = answer["results"]
        size = len(json.dumps(shown, ensure_ascii=False, separators=(",", ":")).encode(
            "utf-8", "surrogatepass"))
        yield size - op_input["maxBytes"]
        if "omittedResults" in answer:
            more = REFERENCE.run("roster", {**op_input, "maxBytes": 10**9})["results"]
            bigger = more[:len(shown) + 1]
            yield len(json.dumps(bigger, ensure_ascii=False, separators=(",", ":")).encode(
                "utf-8", "surrogatepass")) - op_input["maxBytes"]


def _window_offsets() -> Iterator[int]:
    """For each change, its time minus the time the window after the last publish before it
    ends (``last + W``)."""
    for op_input in quick_inputs("publish"):
        window = op_input["intervalMs"]
        publishes = REFERENCE.run("publish", op_input)["publishes"]
        for event in op_input["events"]:
            if event["kind"] == "return":
                break
            before = [publish["at"] for publish in publishes if publish["at"] < event["at"]]
            if before:
                yield event["at"] - (before[-1] + window)


def _floor_offsets() -> Iterator[int]:
    """For each record of the final details with a floor that leaves no share (sharedBytes 0),
    the cost of its task minus the task floor."""
    for op_input in quick_inputs("details"):
        floor = op_input["taskFloorBytes"]
        for record in op_input["records"]:
            task = record.get("task")
            if isinstance(task, str) and op_input["sharedBytes"] == 0:
                yield len(json.dumps(task, ensure_ascii=False).encode(
                    "utf-8", "surrogatepass")) - 2 - floor


#: Each threshold: the offsets from it that the quick draws meet, and the ones that must be met.
THRESHOLDS: dict[str, tuple[Callable[[], Iterator[int]], set[int]]] = {
    "wire.md §5.1 maxBytes": (_bound_offsets, {-1, 0, 1}),
    "budget.md §6.2 roster maxBytes": (_roster_offsets, {-1, 0, 1}),
    "budget.md §8.2 publish window": (_window_offsets, {-1, 0, 1}),
}


@pytest.mark.parametrize("name", list(THRESHOLDS))
def test_each_threshold_is_drawn_at_below_and_above(name: str) -> None:
    offsets, wanted = THRESHOLDS[name]
    met = set(offsets())
    assert wanted <= met, f"{name}: drawn at offsets {sorted(met & {-2, -1, 0, 1, 2})}, " \
        f"never at {sorted(wanted - met)}"


@pytest.mark.parametrize("edge", list(COST_EDGES))
def test_each_edge_of_the_cost_table_is_drawn_next_to_the_bound(edge: str) -> None:
    """Within 40 bytes of maxBytes, where one byte decides whether the line is bounded."""
    character = COST_EDGES[edge]
    near = [op_input["event"] for op_input in quick_inputs("project")
            if op_input["event"].get("type") == "tool_execution_update"]
    assert any(character in text for event in near for text in _strings(event)), edge
