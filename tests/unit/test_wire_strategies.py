"""The wire profile's strategies generate schema-valid inputs that reach what the rules judge."""

from __future__ import annotations

import json
import math
from typing import Any

from eventproof.conformance._engine import EFFORTS, isolated_constants, split_examples
from eventproof.conformance._model import Capabilities
from eventproof.conformance._schemas import schema_issues
from eventproof.conformance.wire import OPERATIONS as PROFILE_OPERATIONS
from eventproof.conformance.wire.strategies import (
    ASSISTANT_EVENT_TYPES,
    KNOWN_TYPES,
    MAX_SAFE_INTEGER,
    agent_events,
    assistant_message_events,
    full_text_bounded_size,
    json_values,
    max_bytes_values,
    observe_project,
    project_families,
    tool_execution_updates,
)
from eventproof.reference import DEFAULT_MAX_BYTES, InvalidInput, canonical_bytes, well_formed
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

INPUTS = {op.name: op.inputs for op in PROFILE_OPERATIONS}


CAPABILITIES = Capabilities()
#: Examples per search at the default effort.
ENGINE_EXAMPLES = EFFORTS["default"]



def counted(max_examples: int = 100) -> Any:
    """Settings for a test that counts what a strategy yields: the same sample on every run and
    in every install (see ``isolated_constants``), so the count cannot flake."""
    return settings(max_examples=max_examples, derandomize=True, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck))


def _numbers(value: Any) -> list[Any]:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return []
    if isinstance(value, (int, float)):
        return [value]
    items = value.values() if isinstance(value, dict) else value
    return [number for item in items for number in _numbers(item)]


@given(INPUTS["project"](CAPABILITIES))
def test_project_inputs_are_schema_valid(op_input: dict[str, Any]) -> None:
    """Every generated project input validates against op-project.json#/$defs/input."""
    assert schema_issues(op_input, "op-project.json#/$defs/input") == []


@given(INPUTS["classify"](CAPABILITIES))
def test_classify_inputs_are_schema_valid(op_input: dict[str, Any]) -> None:
    """Every generated classify input validates against op-classify.json#/$defs/input."""
    assert schema_issues(op_input, "op-classify.json#/$defs/input") == []


@given(INPUTS["project"](Capabilities(variable_max_bytes=False)))
def test_fixed_max_bytes_is_the_default(op_input: dict[str, Any]) -> None:
    """An implementation that cannot vary maxBytes only ever gets 262144."""
    assert op_input["maxBytes"] == DEFAULT_MAX_BYTES


#: The project families built to hold numbers a line cannot carry (wire.md §7).
NUMBER_FAMILIES = ("numbers", "dropped-numbers")
#: The families built from the shipped vectors, which hold the vectors of project.numbers.
FROM_VECTORS = ("shipped-vectors", "language-traps", "past-fixed-sizes")
OTHER_PROJECT_INPUTS = st.one_of([family.strategy for family in project_families(CAPABILITIES)
                                  if family.name not in NUMBER_FAMILIES + FROM_VECTORS])


@given(OTHER_PROJECT_INPUTS)
def test_inputs_carry_only_numbers_the_spec_accepts(op_input: dict[str, Any]) -> None:
    """Outside the number families, no integer beyond ±(2^53-1), NaN or infinity: every event
    has a canonical line."""
    canonical_bytes(op_input["event"])  # raises InvalidInput for a refused number
    for number in _numbers(op_input["event"]):
        if isinstance(number, int):
            assert abs(number) <= MAX_SAFE_INTEGER
        else:
            assert math.isfinite(number)


def test_updates_land_on_both_sides_of_the_bound() -> None:
    """Within the engine's default budget, updates land a few bytes over maxBytes and a few
    bytes under it (or on it)."""
    offsets: set[int] = set()

    @counted(ENGINE_EXAMPLES)
    @given(max_bytes_values(CAPABILITIES).flatmap(
        lambda max_bytes: st.tuples(st.just(max_bytes),
                                    tool_execution_updates(max_bytes=max_bytes))))
    def record(drawn: tuple[int, dict[str, Any]]) -> None:
        max_bytes, event = drawn
        offsets.add(len(canonical_bytes(event)) - max_bytes)

    with isolated_constants():
        record()
    assert any(0 < offset <= 64 for offset in offsets), sorted(offsets)
    assert any(-64 <= offset <= 0 for offset in offsets), sorted(offsets)


def test_project_inputs_reach_the_bound() -> None:
    """Within the engine's default budget, the project strategy offers an opted-in update over
    maxBytes and one within it."""
    seen: set[str] = set()

    @counted(ENGINE_EXAMPLES)
    @given(INPUTS["project"](CAPABILITIES))
    def record(op_input: dict[str, Any]) -> None:
        event = op_input["event"]
        if event["type"] == "tool_execution_update" and op_input["includeLiveEvents"]:
            try:
                over = len(canonical_bytes(event)) > op_input["maxBytes"]
            except InvalidInput:  # a number a line cannot carry (the number families)
                return
            seen.add("over" if over else "fits")

    with isolated_constants():
        record()
    assert seen == {"over", "fits"}


def test_number_families_put_every_kind_of_number_everywhere() -> None:
    """Within their share of the engine's default budget, the number families put integers past
    2^53 - 1, overflowing numbers and numbers a line does carry into carried and into dropped
    members."""
    seen: set[tuple[str, str]] = set()
    families = project_families(CAPABILITIES)
    shares = dict(zip([family.name for family in families],
                      split_examples(ENGINE_EXAMPLES, families), strict=True))

    def kind(number: Any) -> str:
        if isinstance(number, float) and not math.isfinite(number):
            return "overflow"
        return "too big" if isinstance(number, int) and abs(number) > MAX_SAFE_INTEGER else "fine"

    def recorder(family: Any) -> Any:
        @counted(shares[family.name])
        @given(family.strategy)
        def record(op_input: dict[str, Any]) -> None:
            for number in _numbers(op_input["event"]):
                if isinstance(number, float) or abs(number) > 2**52:
                    seen.add((family.name, kind(number)))
        return record

    for family in families:
        if family.name in NUMBER_FAMILIES:
            with isolated_constants():
                recorder(family)()
    assert seen == {(name, what) for name in NUMBER_FAMILIES
                    for what in ("overflow", "too big", "fine")}


def test_agent_events_cover_every_type() -> None:
    """Every known event type and unknown ones come up within 300 examples."""
    seen: set[str] = set()

    @counted(300)
    @given(agent_events())
    def record(event: dict[str, Any]) -> None:
        seen.add(event["type"] if event["type"] in KNOWN_TYPES else "unknown")

    with isolated_constants():
        record()
    assert seen == {*KNOWN_TYPES, "unknown"}


def test_assistant_message_events_cover_every_type_and_both_mistakes() -> None:
    """Every assistantMessageEvent type comes up within 300 examples, types §2 does not name
    too, and so do both erroneous kinds of §4.5."""
    seen: set[str] = set()

    @counted(300)
    @given(assistant_message_events())
    def record(event: dict[str, Any]) -> None:
        ame = event["assistantMessageEvent"]
        seen.add(ame["type"])
        if event["message"]["role"] != "assistant":
            seen.add("non-assistant")
        if ame["type"] == "toolcall_start":
            content = ame["partial"]["content"]
            index = int(ame["contentIndex"])  # 1.0 is the integer 1 (wire.md §1)
            if index >= len(content) or content[index].get("type") != "toolCall":
                seen.add("no tool call")

    with isolated_constants():
        record()
    assert seen == {*ASSISTANT_EVENT_TYPES, "citation_delta", "toolcall_progress",
                    "server_tool", "non-assistant", "no tool call"}


def test_json_values_carry_awkward_numbers_and_names() -> None:
    """Payloads carry integral floats and integer-like member names that canonical order moves."""
    seen: set[str] = set()

    @counted(300)
    @given(json_values())
    def record(value: Any) -> None:
        text = canonical_bytes(value).decode("utf-8")
        if any(isinstance(n, float) and n.is_integer() for n in _numbers(value)):
            seen.add("integral float")
        ascii_names = isinstance(value, dict) and all(key.isascii() for key in value)
        if ascii_names and list(value) != list(json.loads(text)):
            seen.add("reordered names")
        if "\ufffd" in text:
            seen.add("replaced surrogate")

    with isolated_constants():
        record()
    assert seen == {"integral float", "reordered names", "replaced surrogate"}


def test_observer_peaks_at_both_edges_of_the_bound() -> None:
    """One score peaks when the line is exactly maxBytes; the other, given to lines over the
    bound only, tops out once the bounded form cannot keep the whole text."""
    event = {"type": "tool_execution_update", "toolCallId": "c", "toolName": "t",
             "args": {"command": "make " * 40}, "partialResult": "x" * 100}
    line = len(canonical_bytes(event))
    bounded = full_text_bounded_size(event)
    assert bounded < line  # the bounded form drops args
    scores = {max_bytes: list(observe_project({"event": event, "includeLiveEvents": True,
                                               "maxBytes": max_bytes}).values())
              for max_bytes in range(bounded - 3, line + 3)}
    assert max(scores, key=lambda max_bytes: scores[max_bytes][0]) == line
    assert [max_bytes for max_bytes, score in scores.items() if score[1:] == [0.0]] == [
        bounded - 3, bounded - 2, bounded - 1]
    assert all(len(score) == 1 for max_bytes, score in scores.items() if max_bytes >= line)
    assert observe_project({"event": {"type": "turn_start"}, "maxBytes": 4096}) == {}


def _family_share(name: str) -> tuple[Any, int]:
    """A project family's strategy and its share of the engine's default budget."""
    families = project_families(CAPABILITIES)
    shares = dict(zip([family.name for family in families],
                      split_examples(ENGINE_EXAMPLES, families), strict=True))
    family = next(family for family in families if family.name == name)
    return family.strategy, shares[name]


def test_classify_inputs_hold_near_misses_of_the_frame_types() -> None:
    """Within the default budget, classify gets unknown types that a loose comparison takes for
    a frame: another case or white space around a frame's name, and an unknown ``*_update``."""
    seen: set[str] = set()
    frames = ("message_update", "tool_execution_update")

    @counted(ENGINE_EXAMPLES)
    @given(INPUTS["classify"](CAPABILITIES))
    def record(op_input: dict[str, Any]) -> None:
        kind = op_input["event"]["type"]
        if kind in KNOWN_TYPES:
            return
        if kind.strip().lower() in frames:
            seen.add("case or space")
        if kind.endswith("_update"):
            seen.add("other _update")

    with isolated_constants():
        record()
    assert seen == {"case or space", "other _update"}


def test_message_updates_carry_odd_usages_and_integral_doubles() -> None:
    """Within the message-updates family's share, a message's usage is ``{}`` and a
    ``contentIndex`` is spelled as a double (``1.0``)."""
    seen: set[str] = set()
    strategy, share = _family_share("message-updates")

    @counted(share)
    @given(strategy)
    def record(op_input: dict[str, Any]) -> None:
        message = op_input["event"]["message"]
        if message.get("usage") == {}:
            seen.add("empty usage")
        if isinstance(op_input["event"]["assistantMessageEvent"].get("contentIndex"), float):
            seen.add("contentIndex double")

    with isolated_constants():
        record()
    assert seen == {"empty usage", "contentIndex double"}


def _text_kinds(blocks: list[Any]) -> set[str]:
    """What extraction (wire.md §5.3) tells apart among the blocks after the first text block."""
    kinds: set[str] = set()
    texts = [i for i, b in enumerate(blocks)
             if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)]
    for i, block in enumerate(blocks):
        if not isinstance(block, dict):
            continue
        text = block.get("text")
        if block.get("type") == "text" and "text" in block and not isinstance(text, str):
            kinds.add("non-string text")
        elif block.get("type") != "text" and isinstance(text, str):
            kinds.add("string text, not a text block")
        elif i in texts and texts.index(i) > 0:
            previous = blocks[texts[texts.index(i) - 1]]["text"]
            kinds.add("two text blocks")
            if previous and "\ud800" <= previous[-1] <= "\udbff" and text and \
                    "\udc00" <= text[0] <= "\udfff":
                kinds.add("pair split across blocks")
    return kinds


def test_updates_over_the_bound_hold_every_kind_of_block() -> None:
    """Within the near-bound family's share, updates over maxBytes hold, next to their big text
    block, each kind of block extraction tells apart: a second text block, one completing a
    surrogate pair, a text block whose text is not a string, another type carrying a string."""
    seen: set[str] = set()
    strategy, share = _family_share("near-bound")

    @counted(share)
    @given(strategy)
    def record(op_input: dict[str, Any]) -> None:
        event, partial = op_input["event"], op_input["event"].get("partialResult")
        if len(canonical_bytes(event)) <= op_input["maxBytes"] or not isinstance(partial, dict):
            return
        if isinstance(partial.get("content"), list):
            seen.update(_text_kinds(partial["content"]))

    with isolated_constants():
        record()
    assert seen == {"two text blocks", "pair split across blocks", "non-string text",
                    "string text, not a text block"}


def test_lines_near_the_bound_hold_size_sensitive_values() -> None:
    """Within the near- and at-bound families' shares, lines of exactly maxBytes or a few bytes
    under it hold characters and numbers other encoders size differently (U+2028, ``<``,
    ``-0``, ``30.0``, ``1e-7``): one more byte each and the line is over the bound."""
    seen: set[Any] = set()
    for name in ("near-bound", "at-bound"):
        strategy, share = _family_share(name)

        @counted(share)
        @given(strategy)
        def record(op_input: dict[str, Any]) -> None:
            event = op_input["event"]
            offset = len(canonical_bytes(event)) - op_input["maxBytes"]
            if -8 <= offset <= 0:
                values = [*event["args"].get("values", []), *event["args"].get("sensitive", [])]
                seen.update(("-0" if isinstance(v, float) and math.copysign(1, v) < 0 and v == 0
                             else v) for v in values)
                if offset == 0 and values:
                    seen.add("at the bound")

        with isolated_constants():
            record()
    assert "at the bound" in seen, seen
    assert seen & {"\u2028", "\u2029", "<", ">", "&", "</script>", "a&b"}, seen
    assert seen & {"-0", 30.0, 1e-7, 100.0, 1.5e-7}, seen


def test_number_family_puts_large_integers_in_updates_over_the_bound() -> None:
    """Within the numbers family's share, an update whose line would be over maxBytes holds a
    number a line cannot carry in ``args`` or ``details``, which the bounded form drops (it is
    answered errored before any bounding, wire.md §7)."""
    seen: set[str] = set()
    strategy, share = _family_share("numbers")

    @counted(share)
    @given(strategy)
    def record(op_input: dict[str, Any]) -> None:
        event = op_input["event"]
        if event["type"] != "tool_execution_update":
            return
        dropped = [event["args"], event["partialResult"].get("details")]
        big = [n for n in _numbers(dropped) if not math.isfinite(n)
               or (isinstance(n, int) and abs(n) > MAX_SAFE_INTEGER)]
        size = len(json.dumps(event, ensure_ascii=False).encode())
        if big and size > op_input["maxBytes"]:
            seen.add("over")

    with isolated_constants():
        record()
    assert seen == {"over"}


def test_facts_hold_colliding_and_integer_like_member_names() -> None:
    """Within the facts family's share, an object holds two names that become one once
    well-formed (``"\\ud800"`` and ``"\\udc00"``), and one holds ``"4294967295"`` after a name that
    is not an array index (§6.1, §6.4)."""
    seen: set[str] = set()
    strategy, share = _family_share("facts")

    def visit(value: Any) -> None:
        if isinstance(value, list):
            for item in value:
                visit(item)
        if not isinstance(value, dict):
            return
        if len({well_formed(name) for name in value}) < len(value):
            seen.add("colliding")
        names = list(value)
        if "4294967295" in names and any(not n.isascii() or not n.isdigit()
                                         for n in names[:names.index("4294967295")]):
            seen.add("4294967295 after a name")
        for item in value.values():
            visit(item)

    @counted(share)
    @given(strategy)
    def record(op_input: dict[str, Any]) -> None:
        visit(op_input["event"])

    with isolated_constants():
        record()
    assert seen == {"colliding", "4294967295 after a name"}
