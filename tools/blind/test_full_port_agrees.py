"""The unplanted full port answers like the reference on drawn input, not only on the witnesses.

A bug's catch rate means something only if the port it was planted in is right everywhere else.
The inputs are drawn here from the spec's shapes (spec/budget.md §2, §6-8 and spec/selection.md
§2.4, §5.1), independently of the kit's own generators, with the edges those texts name: turn 0
and negative turns, repeated turn numbers, claims outside a turn, insertions, replacements and
cancellations; zero floors and budgets, control, non-ASCII, astral and lone-surrogate text;
rosters at their bound; same-instant changes, the window's end and late callbacks.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from eventproof.reference import Reference
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .full_port import FullPort

PIECES = st.sampled_from(["a", "é", "€", "\U0001F600", "\u0000", "\n", '"', "\ud800", "\udc00",
                          " ", "xyz"])
TEXT = st.lists(PIECES, max_size=60).map("".join)
STATUS = st.sampled_from(["pending", "running", "completed", "failed", "cancelled"])


@st.composite
def records(draw: st.DrawFn) -> dict[str, Any]:
    record: dict[str, Any] = {"id": draw(TEXT), "agent": draw(TEXT), "status": draw(STATUS),
                              "task": draw(TEXT)}
    for field in ("output", "errorMessage", "stderr"):
        if draw(st.booleans()):
            record[field] = draw(TEXT)
    if draw(st.booleans()):
        record["messages"] = [{"role": "user", "content": draw(TEXT)}]
    return record


SMALL = st.integers(min_value=0, max_value=400)
DETAILS = st.fixed_dictionaries({"records": st.lists(records(), max_size=6),
                                 "sharedBytes": SMALL, "taskFloorBytes": SMALL,
                                 "outputFloorBytes": SMALL, "diagnosticFloorBytes": SMALL})
ROSTER = st.fixed_dictionaries({"records": st.lists(records(), max_size=6),
                                "maxBytes": st.integers(min_value=2, max_value=2000)})

LIVE = st.fixed_dictionaries({"id": st.sampled_from(["a", "b", "c"]), "agent": st.just("w"),
                              "status": STATUS, "task": st.just("t")})


@st.composite
def rosters(draw: st.DrawFn) -> dict[str, Any]:
    update: dict[str, Any] = {"results": draw(st.lists(LIVE, max_size=4))}
    if draw(st.booleans()):
        update["omittedResults"] = draw(st.integers(min_value=1, max_value=4))
    return update


LANE = st.fixed_dictionaries({"updates": st.lists(rosters(), max_size=6)})


@st.composite
def timelines(draw: st.DrawFn) -> dict[str, Any]:
    window = draw(st.sampled_from([1, 10, 100]))
    steps = draw(st.lists(st.sampled_from([0, 0, 1, window - 1, window, window + 1, 3 * window]),
                          max_size=12))
    events: list[dict[str, Any]] = []
    at = draw(st.integers(min_value=0, max_value=5))
    for step in steps:
        at += step
        events.append({"at": at, "kind": draw(st.sampled_from(["update", "status"])),
                       "state": draw(st.integers(min_value=0, max_value=9))})
    position = draw(st.integers(min_value=0, max_value=len(events)))
    before = events[position - 1]["at"] if position else 0
    returned = before + draw(st.sampled_from([0, 0, 1, window]))
    late = [{**e, "at": max(e["at"], returned)} for e in events[position:]]
    return {"intervalMs": window, "events": [*events[:position], {"at": returned,
                                                                   "kind": "return"}, *late]}


TURN = st.sampled_from([0, 1, 2, -1, 1.0])
KIND = st.sampled_from(["completed", "max-tokens", "aborted", "blocked", "error", "interrupted",
                        "paused"])
USER = {"id": "u", "role": "user", "content": [], "source": {"kind": "user"}}


@st.composite
def settle_events(draw: st.DrawFn) -> dict[str, Any]:
    shape = draw(st.sampled_from(["turn/start", "step/start", "turn/end", "splice",
                                  "message", "delta"]))
    if shape in ("turn/start", "step/start"):
        return {"type": shape, "seq": 0, "time": 0, "data": {"turn": draw(TURN), "step": 0}}
    if shape == "turn/end":
        return {"type": shape, "seq": 0, "time": 0,
                "data": {"turn": draw(TURN), "reason": {"kind": draw(KIND)}}}
    if shape == "splice":
        data: dict[str, Any] = {"target": "next-turn", "start": 0,
                                "inserted": draw(st.sampled_from([[], [USER]]))}
        if draw(st.booleans()):
            data["removedCount"] = 1
            if draw(st.booleans()):
                data["outcome"] = "canceled"
        return {"type": "agent/inbox/spliced", "seq": 0, "time": 0, "data": data}
    if shape == "message":
        content = draw(st.sampled_from([[], [{"type": "text", "text": "t"}],
                                        [{"type": "reasoning", "text": "r"}]]))
        return {"type": "assistant/message", "seq": 0, "time": 0,
                "data": {"message": {"role": "assistant", "content": content}}}
    return {"type": "assistant/chunk", "seq": 0, "time": 0,
            "data": {"chunk": {"type": "text-delta", "index": 0,
                               "text": draw(st.sampled_from(["", "hi"]))}}}


@st.composite
def settles(draw: st.DrawFn) -> dict[str, Any]:
    input: dict[str, Any] = {"events": draw(st.lists(settle_events(), max_size=10))}
    mode = draw(st.sampled_from([None, "one-shot", "continuable"]))
    if mode is not None:
        input["mode"] = mode
    if mode != "continuable":
        input["cancelled"] = draw(st.booleans())
        if draw(st.booleans()):
            input["diagnostic"] = draw(st.sampled_from(["", "quota"]))
    return input


def answer(impl: Any, op: str, input: Any) -> Any:
    return json.loads(json.dumps(impl.run(op, copy.deepcopy(input))))


OPS = {"settle": settles(), "details": DETAILS, "roster": ROSTER, "lane": LANE,
       "publish": timelines()}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          database=None)
@given(data=st.data())
def test_full_port_agrees_with_the_reference(data: st.DataObject) -> None:
    op = data.draw(st.sampled_from(sorted(OPS)))
    input = data.draw(OPS[op])
    assert answer(FullPort(), op, input) == answer(Reference(), op, input)
