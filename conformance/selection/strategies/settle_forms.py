"""The selection profile's strategies: how a settle log is written.

The account of consumed work (selection.md §5.1) reads turn numbers by equality, the list order
as the log order, and nothing else of an event but its type, ``data.turn``, the splice members
and the ``turn/end`` kind. Everything else a log may carry is written here, over a log a settle
family built, without changing what the log means:

- its turn numbers, relabelled one to one onto any integers (0, negatives, 2^53 - 1 and beyond,
  where a double-based reader merges neighbours), and each event's number written as an integer
  or as the integral double of the same number (``1.0``, selection.md §1), event by event, so
  that one turn is written both ways; its step numbers likewise;
- its ``seq`` and ``time`` in any order: backwards, shuffled, repeated, from 0, beyond 2^53 - 1
  (§2: carried, never consulted);
- members the schemas name but the account never reads (usage counts at their edges, a
  failure's ``status``, ``requestId`` and ``providerRetryAfterMs``, an envelope's
  ``sourceEventSeqs`` and ``surfaceOp``, chunk indexes, splice ``start`` and ``removedCount``
  at their edges), and members no schema names, on every object that is open (§2.1).

Each of these is drawn once per log (shrinking to "as built"), so a counterexample that needs
none of them loses them all at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from hypothesis import strategies as st

from ..._reused import BOOLEANS, Cycle, integers, sampled
from .events import MAX_SAFE_INTEGER
from .values import BASE_TIME, Event, _copied

#: Turn numbers a relabelled log puts its turns on (selection.md §2.4: any integer): the falsy
#: 0, the sentinel-looking -1, the largest integer a double holds exactly and its neighbours
#: beyond (2^53 and 2^53 + 1 are one double), far negatives, and small ones.
EDGE_TURNS: tuple[int, ...] = (
    0, -1, MAX_SAFE_INTEGER, 2**53, 2**53 + 1, -(2**53) - 1, 2**64 + 1, 1, 2, 3, 7, -2,
)
#: How a log's turn numbers are written: as built; relabelled onto :data:`EDGE_TURNS`; each
#: event's number as an integer or an integral double, event by event; or both.
TURN_WRITINGS: tuple[str, ...] = ("as-built", "relabelled", "mixed", "relabelled-mixed")
#: How a log's seq and time are written (never consulted, §2): as numbered; backwards; shuffled;
#: one value repeated; from 0; beyond 2^53 - 1; as integral doubles.
ORDERS: tuple[str, ...] = ("as-numbered", "backwards", "shuffled", "repeated", "from-zero",
                           "beyond", "doubles")
#: Step numbers (never read by the account): the edges of an integer.
EDGE_STEPS: tuple[int, ...] = (0, -1, MAX_SAFE_INTEGER, 2**53 + 1, 3)
#: Usage counts at their edges (selection.md §2.2: integers ≥ 0).
EDGE_COUNTS: tuple[int | float, ...] = (0, 1, 812, MAX_SAFE_INTEGER, 2**53 + 1, 4096.0)
#: Splice starts and removed counts at their edges (§2.4: start ≥ 0, removedCount ≥ 1; neither
#: decides what a splice means).
EDGE_STARTS: tuple[int | float, ...] = (0, 3, MAX_SAFE_INTEGER, 2**53 + 1, 2.0)
EDGE_REMOVALS: tuple[int | float, ...] = (1, 2, MAX_SAFE_INTEGER, 2**53 + 1, 3.0)
#: Chunk indexes (never read, §3.3) at their edges.
EDGE_CHUNK_INDEXES: tuple[int | float, ...] = (0, MAX_SAFE_INTEGER, 2**53 + 1, 1.0, 2)
_PRESENCE = (True, False)
_MUTATION_COUNTS = (1, 0, 5)
#: The member no schema names, as producers add them (§2.1).
EXTRA = "x-origin"

#: What a tool result may carry as ``meta``: any JSON value.
_TOOL_META: tuple[Any, ...] = (None, 0, "cached", [1, 2], 2**53 + 1)
#: Event types whose ``data`` carries ``turn`` (selection.md §2.3, §2.4).
_TURN_EVENTS = frozenset({
    "assistant/chunk", "assistant/message", "tool/call", "tool/result", "step/start", "step/end",
    "turn/start", "turn/end",
})
#: Event types whose ``data`` is a message (or holds one) a producer may cite sources for.
_MESSAGE_EVENTS = frozenset({"assistant/message", "tool/result", "user/message"})


def _exact_double(number: int) -> int | float:
    """``number`` as the integral double of the same value, when a double holds it exactly."""
    return float(number) if abs(number) <= 2**53 else number


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _relabel(events: list[Event], labels: Sequence[int], key: str) -> None:
    """Give the distinct ``data[key]`` numbers of the log, in order of first appearance, the
    numbers ``labels`` (one to one: equal numbers stay equal, distinct ones stay distinct)."""
    mapping: dict[int | float, int] = {}
    for event in events:
        data = event["data"]
        if event["type"] in _TURN_EVENTS and isinstance(data, dict) and _is_number(data.get(key)):
            number = data[key]
            if number not in mapping:
                if len(mapping) == len(labels):
                    return  # more distinct numbers than labels: leave the log as built
                mapping[number] = labels[len(mapping)]
    for event in events:
        data = event["data"]
        if event["type"] in _TURN_EVENTS and isinstance(data, dict) and _is_number(data.get(key)):
            data[key] = mapping[data[key]]


def _wide_usage(cycle: Cycle) -> dict[str, Any]:
    """A usage record with its counts at their edges, its optional members and one no schema
    names."""
    wide: dict[str, Any] = {"inputTokens": cycle.pick(EDGE_COUNTS, "inputTokens"),
                            "outputTokens": cycle.pick(EDGE_COUNTS, "outputTokens")}
    for name in ("cacheReadTokens", "cacheWriteTokens", "reasoningTokens"):
        if cycle.pick(_PRESENCE, name):
            wide[name] = cycle.pick(EDGE_COUNTS, name)
    if cycle.pick(_PRESENCE):
        wide[EXTRA] = "meter"
    return wide


#: HTTP statuses a failure may carry (an integer: the schema bounds it no further).
EDGE_STATUSES: tuple[int | float, ...] = (429, 0, -1, MAX_SAFE_INTEGER, 2**53 + 1, 503.0)
#: The seqs a message event cites as its sources: none, some, many, at the edges.
_SOURCE_SEQS: tuple[tuple[int | float, ...], ...] = (
    (0,), (), (0, 1, 2, 3, 4), (MAX_SAFE_INTEGER,), (2.0, 2**53 + 1),
)
#: How a message entered the model-visible surface: appended, or replacing a range (its bounds
#: any integers, and a member no schema names).
_SURFACE_OPS: tuple[Any, ...] = (
    "append", {"op": "replace", "start": 0, "end": 0},
    {"op": "replace", "start": -1, "end": MAX_SAFE_INTEGER, EXTRA: 1},
    {"op": "replace", "start": 2**53 + 1, "end": -(2**53) - 1},
    {"op": "replace", "start": 1.0, "end": 3.0},
    {"op": "replace", "start": MAX_SAFE_INTEGER, "end": 2**64 + 1},
)


#: A failure's optional members and their values (the status at its edges, taken in turn).
_FAILURE_MEMBERS: dict[str, Any] = {
    "status": EDGE_STATUSES, "providerRetryAfterMs": (1500.5, 0, MAX_SAFE_INTEGER, 30.0),
    "requestId": ("req_7f3a", ""), EXTRA: ("provider",)}
#: Whether a failure carries each of them, in turn: mostly, so that a log with a few failures
#: meets every edge of a status.
_MOSTLY_PRESENT = (True, True, True, False)


def _wide_failure(cycle: Cycle, failure: dict[str, Any]) -> dict[str, Any]:
    """A provider failure as the loop records it: with or without its HTTP status, the
    provider's retry delay, its request id and a member no schema names, each in turn, and
    each present one at its next edge."""
    wide = {key: value for key, value in failure.items() if key not in _FAILURE_MEMBERS}
    for name, values in _FAILURE_MEMBERS.items():
        if cycle.pick(_MOSTLY_PRESENT, f"failure.{name}"):
            wide[name] = cycle.pick(values, name)
    return wide


def _widen_chunk(cycle: Cycle, chunk: dict[str, Any]) -> None:
    if "index" in chunk and _is_number(chunk["index"]):
        chunk["index"] = cycle.pick(EDGE_CHUNK_INDEXES, str(chunk.get("type")))
    if isinstance(chunk.get("usage"), dict):
        chunk["usage"] = _wide_usage(cycle)
    reason = chunk.get("reason")
    if isinstance(reason, dict) and isinstance(reason.get("failure"), dict):
        reason["failure"] = _wide_failure(cycle, reason["failure"])
    if isinstance(chunk.get("block"), dict) and chunk["block"].get("type") == "reasoning":
        chunk["block"][EXTRA] = "signature"
    chunk[EXTRA] = "stream"


def _widen_message(message: Any) -> None:
    if not isinstance(message, dict):
        return
    message[EXTRA] = "message"
    if isinstance(message.get("source"), dict):
        message["source"] = {**message["source"], EXTRA: "source"}
    for block in message.get("content", ()):
        if isinstance(block, dict) and block.get("type") in ("reasoning", "tool-result"):
            block[EXTRA] = "signature"
            if block["type"] == "tool-result":
                block["isError"] = False


def _widen(cycle: Cycle, event: Event) -> None:
    """Every open object of ``event`` with a member no schema names, and the optional members
    the schemas name at their edges (selection.md §2.1): none is ever read by the account."""
    event["x-trace"] = {"span": "a1"}
    data = event["data"]
    if not isinstance(data, dict):
        return
    kind = event["type"]
    if kind in _MESSAGE_EVENTS:
        event["sourceEventSeqs"] = list(cycle.pick(_SOURCE_SEQS))
        event["surfaceOp"] = _copied(cycle.pick(_SURFACE_OPS))
    data[EXTRA] = "loop"
    if kind == "assistant/message":
        _widen_message(data.get("message"))
        if isinstance(data.get("usage"), dict):
            data["usage"] = _wide_usage(cycle)
    elif kind == "tool/result":
        _widen_message(data.get("message"))
        if cycle.pick(_PRESENCE, "error"):
            data["error"] = {"name": "ToolError", "code": "EXIT_1", EXTRA: 1}
        if cycle.pick(_PRESENCE, "meta"):
            data["meta"] = _copied(cycle.pick(_TOOL_META))
        if cycle.pick(_PRESENCE, "mutations"):
            data["mutations"] = [{"path": f"src/{n}.py", "kind": "edit"}
                                 for n in range(cycle.pick(_MUTATION_COUNTS))]
    elif kind == "user/message":
        _widen_message(data)
    elif kind == "assistant/chunk" and isinstance(data.get("chunk"), dict):
        _widen_chunk(cycle, data["chunk"])
    elif kind == "turn/end" and isinstance(data.get("reason"), dict):
        reason = data["reason"] = {**data["reason"], EXTRA: "reason"}
        if isinstance(reason.get("reason"), dict):
            reason["reason"] = {**reason["reason"], EXTRA: "cause"}
        if isinstance(reason.get("error"), dict):
            reason["error"] = _wide_failure(cycle, reason["error"])
    elif kind == "agent/inbox/spliced":
        data["start"] = cycle.pick(EDGE_STARTS, "start")
        if "removedCount" in data:
            # Any count: the same meaning.
            data["removedCount"] = cycle.pick(EDGE_REMOVALS, "removedCount")
        for message in data.get("inserted", ()):
            _widen_message(message)


@cache
def _labels() -> st.SearchStrategy[list[int]]:
    return st.permutations(EDGE_TURNS)


@cache
def _step_labels() -> st.SearchStrategy[list[int]]:
    return st.permutations(EDGE_STEPS)


@cache
def _shuffled(count: int) -> st.SearchStrategy[list[int]]:
    return st.permutations(range(count))


def written(draw: st.DrawFn, events: list[Event], *, relabel: bool = True) -> list[Event]:
    """``events`` (a numbered log, changed in place and returned) written one of the ways of the
    module docstring; with ``relabel`` False its turn numbers keep their values (the family
    chose them), written as integers or doubles."""
    writing = draw(sampled(TURN_WRITINGS))
    if relabel and writing.startswith("relabelled"):
        relabelled(draw, events)
    if writing.endswith("mixed"):
        # Every other event writes its numbers as doubles: a turn of two events is written
        # both ways.
        start = draw(BOOLEANS)
        for index, event in enumerate(events, start=start):
            if index % 2:
                _as_doubles(event)
    reordered(draw, events)
    if draw(_WIDENED):
        widened(Cycle(draw(integers(0, 11))), events)
    return events


def relabelled(draw: st.DrawFn, events: list[Event]) -> None:
    """Relabel the log's turn and step numbers, one to one, onto drawn orders of
    :data:`EDGE_TURNS` and :data:`EDGE_STEPS`."""
    _relabel(events, draw(_labels()), "turn")
    _relabel(events, draw(_step_labels()), "step")


def _as_doubles(event: Event) -> None:
    """``event``'s turn and step numbers written as the integral doubles of the same numbers."""
    data = event["data"]
    if event["type"] in _TURN_EVENTS and isinstance(data, dict):
        for key in ("turn", "step"):
            if isinstance(data.get(key), int):
                data[key] = _exact_double(data[key])


def doubled_by_type(events: list[Event], start: int) -> None:
    """Every other event of each type (from ``start``) writes its numbers as doubles: every
    type that occurs twice is written both ways, whatever the order of the log."""
    seen: dict[str, int] = {}
    for event in events:
        at = seen[event["type"]] = seen.get(event["type"], start) + 1
        if at % 2:
            _as_doubles(event)


def reordered(draw: st.DrawFn, events: list[Event]) -> None:
    """The log's seq and time written one of the :data:`ORDERS` (never consulted, §2)."""
    order = draw(sampled(ORDERS))
    count = len(events)
    if order == "backwards":
        for index, event in enumerate(events):
            event["seq"], event["time"] = count - index, BASE_TIME - 1000 * index
    elif order == "shuffled" and count > 1:
        seqs = draw(_shuffled(count))
        times = draw(_shuffled(count))
        for event, seq, time in zip(events, seqs, times, strict=True):
            event["seq"], event["time"] = seq, BASE_TIME + 1000 * time
    elif order == "repeated":
        for event in events:
            event["seq"], event["time"] = 3, BASE_TIME
    elif order == "from-zero":
        for index, event in enumerate(events):
            event["seq"], event["time"] = index, index // 2
    elif order == "beyond":
        for index, event in enumerate(events):
            event["seq"] = event["time"] = MAX_SAFE_INTEGER + index
    elif order == "doubles":
        for event in events:
            event["seq"], event["time"] = float(event["seq"]), float(event["time"])


def widened(cycle: Cycle, events: list[Event]) -> None:
    """Every event of the log with the members of :func:`_widen`, their edges taken in turn."""
    for event in events:
        _widen(cycle, event)


#: Whether a log's objects carry the members of :func:`_widen`: three logs in four, none in the
#: simplest draw.
_WIDENED = st.sampled_from((False, True, True, True))
