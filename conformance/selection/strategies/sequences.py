"""The selection profile's strategies: settle logs as sequences of event kinds.

The account of consumed work (selection.md §5.1) is a state machine over the log: which turn is
open, whether it stepped, what a splice claimed or cancelled, which ``turn/end`` closes what. Its
wrong readings show in *orders*: a turn started inside an open turn, a step after its turn's end
and another end of that number, a claim whose splice also inserts messages, a cancellation that
targets the next step, an exact repeat of an event. So the ``event-pairs`` family is built, not
drawn: one walk through every ordered pair of :data:`KINDS` (each kind after itself too: repeats;
a turn/start after a turn/start: nesting; a step or a message after a turn/end: late), cut into
short logs that overlap by one event, so every pair is two neighbours of one log; then every
splice form in every turn state (:data:`STATES`), and every kind repeated, nested and late, each
in a log of its own (:func:`sequence_logs`). Each log is asked on
both paths, in turn. :func:`coverage` reads the pairs and states back from the logs themselves,
and a test holds a quick run's record complete.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from hypothesis import strategies as st

from .events import (
    _cancellation,
    _claim,
    _in_turn,
    _insertion,
    _message,
    _splice,
    _step_end,
    _step_start,
    _turn_end,
    _turn_start,
    _user_value,
    _with_envelope,
)
from .values import REASON_KINDS, UNKNOWN_REASON_KINDS, Event

#: The kinds of settle event, as the account tells them apart.
KINDS: tuple[str, ...] = (
    "turn-start",           # a turn/start of a new number
    "turn-start-again",     # a turn/start of the number open now
    "step-start",
    "step-end",
    "message",              # an assistant message with text
    "turn-end",             # a turn/end of the number open now
    "turn-end-earlier",     # a turn/end of an earlier turn's number
    "claim",                # a splice removing pending input for the next turn
    "claim-next-step",      # the same, for the next step
    "claim-inserting",      # a claim whose splice also inserts a message
    "cancellation",         # pending input cancelled
    "cancellation-next-step",
    "insertion",            # new pending input, nothing removed
    "repeat",               # the event two before, exactly (seq and time too)
)
#: The splice kinds, met in every turn state.
SPLICES: tuple[str, ...] = ("claim", "claim-next-step", "claim-inserting", "cancellation",
                            "cancellation-next-step", "insertion")
#: The turn states a splice may meet: no turn yet, a turn open, a turn stepped, a turn ended.
STATES: tuple[str, ...] = ("outside", "open", "stepped", "ended")
#: Events per log of the walk (neighbours overlap by one, so every pair is in one log).
WALK_LOG = 12
#: The ways a request settles, in turn: one-shot, continuable, one-shot cancelled.
_MODES: tuple[dict[str, Any], ...] = ({"cancelled": False}, {"mode": "continuable"},
                                      {"mode": "one-shot", "cancelled": True})
#: The reasons of a log's ends, in turn: the first two map to themselves on both paths.
_ENDS: tuple[str, ...] = ("max-tokens", "completed", *(
    kind for kind in REASON_KINDS + UNKNOWN_REASON_KINDS[:1]
    if kind not in ("max-tokens", "completed")))


def _walk(kinds: tuple[str, ...]) -> list[str]:
    """A closed walk through every ordered pair of ``kinds`` once (an Euler circuit of the
    complete graph with loops, Hierholzer's algorithm): len(kinds)^2 + 1 kinds."""
    left = {kind: list(reversed(kinds)) for kind in kinds}
    stack, walk = [kinds[0]], []
    while stack:
        here = stack[-1]
        if left[here]:
            stack.append(left[here].pop())
        else:
            walk.append(stack.pop())
    return walk[::-1]


@dataclass
class _Log:
    """A log being written, with the turn it is in."""

    events: list[Event] = field(default_factory=list)
    turn: int = 0
    turns: list[int] = field(default_factory=list)
    step: int = 0
    ends: int = 0

    def add(self, kind: str) -> None:
        if kind == "repeat" and self.events:
            self.events.append(dict(self.events[-2 if len(self.events) > 1 else -1]))
            return
        event = self._event(kind)
        self.events.append(_with_envelope(event, len(self.events), {}))

    def _event(self, kind: str) -> Event:
        if kind == "turn-start":
            self.turn = max(self.turns, default=0) + 1
            self.turns.append(self.turn)
            self.step = 0
            return _turn_start(self.turn)
        if kind in ("turn-start-again", "repeat"):
            return _turn_start(self.turn)
        if kind == "step-start":
            self.step += 1
            return _step_start(self.turn, self.step)
        if kind == "step-end":
            return _step_end(self.turn, self.step)
        if kind == "message":
            text = f"answer {len(self.events)}"
            return _in_turn(_message([{"type": "text", "text": text}]), self.turn, self.step)
        if kind in ("turn-end", "turn-end-earlier"):
            self.ends += 1
            earlier = [turn for turn in self.turns if turn != self.turn]
            turn = earlier[-1] if kind == "turn-end-earlier" and earlier else self.turn
            if kind == "turn-end-earlier" and not earlier:
                turn = self.turn - 1
            return _turn_end(turn, _ENDS[(self.ends - 1) % len(_ENDS)])
        if kind == "claim":
            return _claim()
        if kind == "claim-next-step":
            return _claim("next-step")
        if kind == "claim-inserting":
            return _splice(removed=1, inserted=[_user_value([{"type": "text", "text": "more"}])])
        if kind == "cancellation":
            return _cancellation()
        if kind == "cancellation-next-step":
            return _splice(removed=1, canceled=True, target="next-step")
        if kind == "insertion":
            return _insertion()
        raise ValueError(f"unknown kind {kind!r}")


def _log_of(kinds: Iterable[str]) -> list[Event]:
    log = _Log()
    for kind in kinds:
        log.add(kind)
    return log.events


#: The events that put a log in each turn state.
_INTO: dict[str, tuple[str, ...]] = {
    "outside": (), "open": ("turn-start", "message", "turn-start"),
    "stepped": ("turn-start", "step-start", "message"),
    "ended": ("turn-start", "message", "turn-end"),
}


@cache
def sequence_logs() -> tuple[list[Event], ...]:
    """The walk's logs (a turn/start, then the walk's next kinds); one log per splice kind and
    turn state: the events that reach the state, the splice, and an end of the turn last
    opened, which accounts for work by the splice alone; then each kind repeated (and the end
    after it too), nested in a second turn/start, and late (after its turn's end, then another
    end of that number); and each splice before any turn, then a turn."""
    walk = _walk(KINDS)
    # Each opens a turn first, so that its first kind reads as itself.
    logs = [_log_of(("turn-start", *walk[start:start + WALK_LOG]))
            for start in range(0, len(walk) - 1, WALK_LOG - 1)]
    for state in STATES:
        for splice in SPLICES:
            logs.append(_log_of((*_INTO[state], splice, "turn-end")))
    for kind in KINDS:
        logs.extend(_log_of(form) for form in (
            ("turn-start", kind, kind, "turn-end", "turn-end"),      # repeated
            ("turn-start", "turn-start", kind, "turn-end"),           # nested
            ("turn-start", "turn-end", kind, "turn-end"),             # late
        ))
    for splice in SPLICES:                                            # before any turn
        logs.append(_log_of((splice, "turn-start", "turn-end")))
    # A step repeated exactly after its turn's end, then another end of that number.
    logs.append(_log_of(("turn-start", "step-start", "turn-end", "repeat", "turn-end")))
    return tuple(logs)


@cache
def sequence_requests() -> tuple[dict[str, Any], ...]:
    """Each log of :func:`sequence_logs` as a settle request, the paths in turn: the walk's
    also cancelled, the others (whose ends decide) on the two paths that read them."""
    walked = len(range(0, len(_walk(KINDS)) - 1, WALK_LOG - 1))
    return tuple({"events": events, **(_MODES[index % len(_MODES)] if index < walked
                                       else _MODES[index % 2])}
                 for index, events in enumerate(sequence_logs()))


def sequence_inputs() -> st.SearchStrategy[dict[str, Any]]:
    """A choice among :func:`sequence_requests` (a fixed share asks each once)."""
    return st.sampled_from(sequence_requests())


# -- the coverage record -----------------------------------------------------------------------

@dataclass
class Coverage:
    """Which ordered pairs of kinds, and which splice kinds in which turn states, logs met."""

    pairs: set[tuple[str, str]] = field(default_factory=set)
    splices: set[tuple[str, str]] = field(default_factory=set)

    def missing(self) -> list[str]:
        """What a complete record has and this one lacks, named."""
        lacking = [f"{a} then {b}" for a in KINDS for b in KINDS if (a, b) not in self.pairs]
        lacking += [f"{kind} while {state}" for kind in SPLICES for state in STATES
                    if (kind, state) not in self.splices]
        return lacking


def _kind(event: Any, earlier: Any, turn: Any) -> str | None:
    """The kind of ``event`` two events after ``earlier`` in a log whose open turn is numbered
    ``turn``."""
    if event == earlier:
        return "repeat"
    if not isinstance(event, dict) or not isinstance(event.get("data"), dict):
        return None
    data, kind = event["data"], event.get("type")
    if kind == "turn/start":
        return "turn-start-again" if data.get("turn") == turn else "turn-start"
    if kind == "turn/end":
        return "turn-end" if data.get("turn") == turn else "turn-end-earlier"
    if kind in ("step/start", "step/end"):
        return "step-start" if kind == "step/start" else "step-end"
    if kind == "assistant/message":
        return "message"
    if kind != "agent/inbox/spliced":
        return None
    next_step = data.get("target") == "next-step"
    if data.get("outcome") == "canceled":
        return "cancellation-next-step" if next_step else "cancellation"
    if "removedCount" not in data:
        return "insertion"
    if data.get("inserted"):
        return "claim-inserting"
    return "claim-next-step" if next_step else "claim"


def coverage(requests: Iterable[Any]) -> Coverage:
    """The pairs and splice states the settle ``requests`` meet, read from their logs."""
    record = Coverage()
    for request in requests:
        events = request.get("events") if isinstance(request, dict) else None
        if not isinstance(events, list):
            continue
        state, turn, before = "outside", None, None
        for index, event in enumerate(events):
            kind = _kind(event, events[index - 2] if index > 1 else None, turn)
            if kind is not None and before is not None:
                record.pairs.add((before, kind))
            if kind in SPLICES:
                record.splices.add((kind, state))
            if kind in ("turn-start", "turn-start-again"):
                state, turn = "open", event["data"].get("turn")
            elif kind == "step-start" and state in ("open", "stepped"):
                state = "stepped"
            elif kind == "turn-end" or (kind == "repeat" and event.get("type") == "turn/end"):
                state = "ended"
            before = kind
    return record
