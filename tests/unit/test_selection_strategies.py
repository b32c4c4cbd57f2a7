"""The selection strategies generate schema-valid inputs, and often enough the runs users hit."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping
from functools import cache
from itertools import pairwise
from typing import Any

import pytest
from eventproof.conformance._engine import isolated_constants, split_examples
from eventproof.conformance._model import Capabilities
from eventproof.conformance._operations import OPERATIONS_BY_NAME
from eventproof.conformance._schemas import schema_issues
from eventproof.conformance.selection import OPERATIONS as PROFILE_OPERATIONS
from eventproof.conformance.selection.checks.settle import account_of
from eventproof.conformance.selection.strategies import (
    REASON_KINDS,
    assistant_messages,
    chunks,
    content_blocks,
    session_events,
    session_logs,
)
from eventproof.reference._settle import consumed_work
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

#: The size of the fixed-seed sample the distribution tests count over.
SAMPLE = 300
#: The sample of an operation searched by several families: each family gets its share of it.
FAMILIES_SAMPLE = 600
INPUTS = {op.name: op.inputs for op in PROFILE_OPERATIONS}
SELECTION_OPS = list(INPUTS)


@pytest.mark.parametrize("op", SELECTION_OPS)
@given(data=st.data())
def test_op_inputs_are_schema_valid(op: str, data: st.DataObject) -> None:
    """Every generated op input validates against ``op-<op>.json#/$defs/input``."""
    op_input = data.draw(INPUTS[op](Capabilities()))
    assert schema_issues(op_input, f"op-{op}.json#/$defs/input") == []


@pytest.mark.parametrize(("strategy", "schema"), [
    (content_blocks, "content-block.json"),
    (chunks, "chunk.json"),
    (session_events, "session-event.json"),
    (assistant_messages, "session-event.json#/$defs/assistantMessage"),
    (session_logs, "session-event.json#/$defs/log"),
], ids=lambda value: getattr(value, "__name__", value))
@given(data=st.data())
def test_building_blocks_are_schema_valid(
    strategy: Callable[[], st.SearchStrategy[Any]], schema: str, data: st.DataObject,
) -> None:

    """Every public building block generates values its schema accepts."""
    assert schema_issues(data.draw(strategy()), schema) == []


@given(assistant_messages(empty=True), assistant_messages(empty=False))
def test_empty_means_usage_only(empty: dict[str, Any], full: dict[str, Any]) -> None:
    """``empty=True`` gives usage-only messages (content [] with usage); ``empty=False`` content."""
    assert empty["data"]["message"]["content"] == []
    assert "usage" in empty["data"]
    assert full["data"]["message"]["content"]


@pytest.mark.parametrize("op", SELECTION_OPS)
@given(data=st.data())
def test_observations_are_finite_numbers(op: str, data: st.DataObject) -> None:
    """Each observer maps a generated input to finite floats (what hypothesis.target accepts)."""
    observations = OPERATIONS_BY_NAME[op].observer(data.draw(INPUTS[op](Capabilities())))
    assert all(isinstance(value, float) and math.isfinite(value)
               for value in observations.values())


# -- the distribution: counted over a fixed-seed sample -----------------------------------------

@cache
def sample(op: str) -> tuple[Any, ...]:
    """``SAMPLE`` inputs of ``op``, the same ones on every run (derandomized generation).

    An operation searched by several families is sampled as the engine searches it: each family
    on its own, with its share of the examples.
    """
    families = OPERATIONS_BY_NAME[op].families(Capabilities())
    if len(families) > 1:
        return tuple(op_input for family, budget in zip(
            families, split_examples(FAMILIES_SAMPLE, families), strict=True)
            for op_input in _drawn(family.strategy, budget, f"{op}:{family.name}"))
    found: list[Any] = []

    @settings(max_examples=SAMPLE, database=None, derandomize=True, deadline=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(INPUTS[op](Capabilities()))
    def collect(op_input: Any) -> None:
        found.append(op_input)

    with isolated_constants():  # the same sample in every install
        collect()
    return tuple(found)


def _drawn(strategy: st.SearchStrategy[Any], count: int, name: str) -> list[Any]:
    """``count`` derandomized draws of ``strategy``, seeded by ``name``."""
    found: list[Any] = []

    @settings(max_examples=count, database=None, derandomize=True, deadline=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(op_input: Any) -> None:
        found.append(op_input)

    collect.hypothesis.inner_test._hypothesis_internal_add_digest = (  # type: ignore
        f"sample:{name}".encode())
    with isolated_constants():
        collect()
    return found


def _content(event: Mapping[str, Any]) -> list[Any] | None:
    if event["type"] != "assistant/message":
        return None
    content: list[Any] = event["data"]["message"]["content"]
    return content


def _chunk(event: Mapping[str, Any]) -> Mapping[str, Any]:
    return event["data"]["chunk"] if event["type"] == "assistant/chunk" else {}


def _texts(events: list[Any]) -> list[str]:
    return [_chunk(e)["text"] for e in events if _chunk(e).get("type") == "text-delta"]


def _has_text(events: list[Any]) -> bool:
    return any(_texts(events)) or any(
        block.get("type") == "text" and block.get("text")
        for e in events for block in (_content(e) or []))


def empty_message_last_after_text(events: list[Any]) -> bool:
    messages = [i for i, e in enumerate(events) if _content(e) is not None]
    return bool(messages) and messages[-1] == len(events) - 1 and events[-1]["data"]["message"][
        "content"] == [] and _has_text(events[:-1])


def only_chunks(events: list[Any]) -> bool:
    return bool(events) and all(e["type"] == "assistant/chunk" for e in events)


def reasoning_only_message_then_text(events: list[Any]) -> bool:
    for i, event in enumerate(events):
        content = _content(event)
        if content and all(block.get("type") == "reasoning" for block in content):
            return any(_texts(events[i + 1:]))
    return False


def stream_cut_mid_block(events: list[Any]) -> bool:
    started = {_chunk(e)["index"] for e in events if _chunk(e).get("type") == "block-start"}
    ended = {_chunk(e)["index"] for e in events if _chunk(e).get("type") == "block-end"}
    return bool(started - ended)


def interrupted_prefix(events: list[Any]) -> bool:
    return any(e["type"] == "assistant/message" and e["data"].get("interrupted") is True
               for e in events)


def interleaved_indexes(events: list[Any]) -> bool:
    indexes = [_chunk(e)["index"] for e in events if "index" in _chunk(e)]
    return any(later < earlier for earlier, later in pairwise(indexes))


def tool_results(events: list[Any]) -> bool:
    return any(e["type"] == "tool/result" for e in events)


def unknown_event_types(events: list[Any]) -> bool:
    known = {"assistant/message", "assistant/chunk", "tool/result", "tool/call", "turn/start",
             "turn/end", "step/start", "step/end", "user/message", "agent/inbox/spliced"}
    return any(e["type"] not in known for e in events)


def unknown_chunk_types(events: list[Any]) -> bool:
    known = {"block-start", "text-delta", "reasoning-delta", "tool-call-delta", "block-end",
             "usage", "finish"}
    return any(_chunk(e) and _chunk(e)["type"] not in known for e in events)


def user_messages(events: list[Any]) -> bool:
    return any(e["type"] == "user/message" for e in events)


def many_turns(events: list[Any]) -> bool:
    return sum(1 for e in events if e["type"] == "turn/start") >= 2


def empty_text_delta(events: list[Any]) -> bool:
    return "" in _texts(events)


def astral_text(events: list[Any]) -> bool:
    return any(ord(c) > 0xFFFF for text in _texts(events) for c in text)


def control_characters(events: list[Any]) -> bool:
    return any(ord(c) < 0x20 for text in _texts(events) for c in text)


def lone_surrogates(events: list[Any]) -> bool:
    return any(0xD800 <= ord(c) <= 0xDFFF for text in _texts(events) for c in text)


def textless_message_beats_text(events: list[Any]) -> bool:
    non_empty = [c for e in events if (c := _content(e))]
    return bool(non_empty) and not any(b.get("type") == "text" for b in non_empty[-1]) and any(
        _texts(events))


def unknown_block_types(events: list[Any]) -> bool:
    known = {"text", "reasoning", "image", "tool-call", "tool-result"}
    return any(block.get("type") not in known for e in events for block in (_content(e) or []))


def extra_block_members(events: list[Any]) -> bool:
    pinned = {"type", "text", "attachment", "id", "name", "arguments", "toolCallId", "content",
              "isError"}
    return any(set(block) - pinned for e in events for block in (_content(e) or []))


def raw_tool_arguments(events: list[Any]) -> bool:
    return any(e["type"] == "tool/call" and isinstance(e["data"]["arguments"], str)
               for e in events)


LOG_SHAPES: dict[str, Callable[[list[Any]], bool]] = {
    f.__name__: f for f in (
        empty_message_last_after_text, only_chunks, reasoning_only_message_then_text,
        stream_cut_mid_block, interrupted_prefix, interleaved_indexes, tool_results,
        unknown_event_types, unknown_chunk_types, user_messages, many_turns, empty_text_delta,
        astral_text, control_characters, lone_surrogates, textless_message_beats_text,
        unknown_block_types, extra_block_members, raw_tool_arguments,
    )
}


@pytest.mark.parametrize("shape", list(LOG_SHAPES))
def test_select_inputs_cover_each_log_shape(shape: str) -> None:
    """Each run shape users hit appears in the fixed sample of 300 generated select inputs."""
    hits = sum(LOG_SHAPES[shape](op_input["events"]) for op_input in sample("select"))
    assert hits >= 1, f"{shape}: {hits} of {SAMPLE}"


def _kinds(op_input: Mapping[str, Any]) -> list[str]:
    return [e["data"]["reason"]["kind"] for e in op_input["events"] if e["type"] == "turn/end"]


def _end(op_input: Mapping[str, Any]) -> str | None:
    """The kind of the end (selection.md §5.1), as the reference folds it."""
    return consumed_work(op_input["events"]).end_kind


def _one_shot(op_input: Mapping[str, Any]) -> bool:
    return op_input.get("mode", "one-shot") == "one-shot"


def _cancellations(op_input: Mapping[str, Any], replaced: bool) -> bool:
    return any(e["type"] == "agent/inbox/spliced" and e["data"].get("outcome") == "canceled"
               and bool(e["data"]["inserted"]) == replaced for e in op_input["events"])


def _turns(op_input: Mapping[str, Any], kind: str) -> list[Any]:
    return [e["data"]["turn"] for e in op_input["events"] if e["type"] == kind]


def _unstepped_turn_end(claimed: bool, kinds: tuple[str, ...]) -> Callable[
        [Mapping[str, Any]], bool]:
    """A turn/end of one of ``kinds`` whose turn never reached a step, claimed or not (§5.1)."""
    mark = "claimed" if claimed else "none"

    def found(op_input: Mapping[str, Any]) -> bool:
        decisions = account_of(op_input["events"]).decisions.values()
        return any(d.mark == mark and d.kind in kinds for d in decisions)
    return found


def _end_is_not_last_turn_end(op_input: Mapping[str, Any]) -> bool:
    kinds = _kinds(op_input)
    return bool(kinds) and _end(op_input) != kinds[-1]


def _claim_outside_a_turn(op_input: Mapping[str, Any]) -> bool:
    open_turn = False
    for event in op_input["events"]:
        if event["type"] == "turn/start":
            open_turn = True
        elif event["type"] == "turn/end":
            open_turn = False
        elif (event["type"] == "agent/inbox/spliced" and "removedCount" in event["data"]
              and "outcome" not in event["data"] and not open_turn):
            return True
    return False


SETTLE_SHAPES: dict[str, Callable[[Mapping[str, Any]], bool]] = {
    **{f"an end of kind {kind}, {mode}": (
        lambda op_input, kind=kind, mode=mode: _end(op_input) == kind
        and _one_shot(op_input) == (mode == "one-shot"))
       for kind in REASON_KINDS for mode in ("one-shot", "continuable")},
    "an end of an unknown kind": lambda op_input: _end(op_input) not in (None, *REASON_KINDS),
    "no end, one-shot": lambda op_input: _end(op_input) is None and _one_shot(op_input),
    "no end, continuable": lambda op_input: _end(op_input) is None and not _one_shot(op_input),
    "the end is not the last turn/end": _end_is_not_last_turn_end,
    "a claimed turn blocked before its first step": _unstepped_turn_end(True, ("blocked",)),
    "a claimed turn cancelled or failed before its first step": _unstepped_turn_end(
        True, ("aborted", "error")),
    "a claimed turn completed without a step": _unstepped_turn_end(True, ("completed",)),
    "an unclaimed turn without a step": _unstepped_turn_end(
        False, ("completed", "blocked", "aborted")),
    "a cancellation without replacement": lambda op_input: _cancellations(op_input, False),
    "a cancellation with a replacement": lambda op_input: _cancellations(op_input, True),
    "work dropped unrun, continuable": lambda op_input: not _one_shot(op_input) and consumed_work(
        op_input["events"]).dropped_unrun,
    "a drop cleared by a later end": lambda op_input: _cancellations(op_input, False) and not (
        consumed_work(op_input["events"]).dropped_unrun),
    "a repeated turn number": lambda op_input: any(
        count > 1 for count in Counter(_turns(op_input, "turn/start")).values()),
    "a turn/end without turn/start": lambda op_input: bool(
        set(_turns(op_input, "turn/end")) - set(_turns(op_input, "turn/start"))),
    "a claim outside any turn": _claim_outside_a_turn,
    "explicit one-shot mode": lambda op_input: op_input.get("mode") == "one-shot",
    "cancelled after completing": lambda op_input: _one_shot(op_input) and op_input[
        "cancelled"] and _end(op_input) == "completed",
    "cancelled without completing": lambda op_input: _one_shot(op_input) and op_input[
        "cancelled"] and _end(op_input) != "completed",
    "no diagnostic": lambda op_input: _one_shot(op_input) and "diagnostic" not in op_input,
    "empty diagnostic": lambda op_input: op_input.get("diagnostic") == "",
    "a diagnostic": lambda op_input: bool(op_input.get("diagnostic")),
}


@pytest.mark.parametrize("shape", list(SETTLE_SHAPES))
def test_settle_inputs_cover_each_ending(shape: str) -> None:
    """Each way a run ends (every kind on both paths, the turns that account for no work,
    cancellations, irregular logs, diagnostics) appears at least 3 times in 600."""
    hits = sum(bool(SETTLE_SHAPES[shape](op_input)) for op_input in sample("settle"))
    assert hits >= 3, f"{shape}: {hits} of {FAMILIES_SAMPLE}"


FOLD_SHAPES: dict[str, Callable[[list[Any]], bool]] = {
    "event pushes only": lambda pushes: bool(pushes) and all("event" in p for p in pushes),
    "text pushes only": lambda pushes: bool(pushes) and all("text" in p for p in pushes),
    "events and text mixed": lambda pushes: {"event", "text"} <= {k for p in pushes for k in p},
    "an empty text push": lambda pushes: any(p.get("text") == "" for p in pushes),
}


@pytest.mark.parametrize("shape", list(FOLD_SHAPES))
def test_fold_inputs_cover_each_transport(shape: str) -> None:
    """Each way pushes arrive (events, raw text, both, "") appears at least 3 times in 300."""
    hits = sum(FOLD_SHAPES[shape](op_input["pushes"]) for op_input in sample("fold"))
    assert hits >= 3, f"{shape}: {hits} of {SAMPLE}"
