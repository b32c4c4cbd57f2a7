"""Where the bytes go: a value written again and again is found at whatever depth it sits, named
by its JSONPath pattern with how many distinct values were written how many times, and the
bytes written again; the figures hold only digests, never the values."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from audit_logs import audit_bytes
from eventproof.conformance.audit._render import document
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


def _heavy(index: int) -> dict[str, Any]:
    """A message of about 5 KiB (values of 4 KiB or more are looked into), none of its members
    nine tenths of it (a value made mostly of one member is named by that member)."""
    return {"role": "assistant",
            "text": f"step {index}: " + "reads a file and writes a patch " * 80,
            "thinking": f"and then {index}: " + "runs the tests again " * 120}


@st.composite
def _mirrored(draw: st.DrawFn) -> tuple[list[bytes], str, int, int]:
    """Lines that each hold, at a drawn path of any depth, one of a few heavy values."""
    steps = draw(st.lists(st.sampled_from(["details", "results", "[*]", "messages", "state"]),
                          min_size=1, max_size=9))
    distinct = draw(st.integers(1, 4))
    chosen = draw(st.lists(st.integers(0, distinct - 1), min_size=2, max_size=12))
    lines = []
    for number, index in enumerate(chosen):
        value: Any = _heavy(index)
        for step in reversed(steps):  # each wrapper differs from line to line
            value = [value, number] if step == "[*]" else {step: value, "n": number}
        lines.append(orjson.dumps({"type": "tool_execution_update", "toolCallId": "c",
                                   "toolName": "task", "n": number, "partialResult": value}))
    path = "$.partialResult" + "".join(step if step == "[*]" else f".{step}" for step in steps)
    return lines, path, len(set(chosen)), len(chosen)


@SETTINGS
@given(_mirrored())
def test_a_value_written_again_is_found_at_any_depth(drawn: tuple[list[bytes], str, int,
                                                                  int]) -> None:
    lines, path, distinct, occurrences = drawn
    figures = document(audit_bytes(b"".join(line + b"\n" for line in lines),
                                   live_events=True))["bytes"]
    rows = {row["path"]: row for row in figures["repeated"]}
    if occurrences == distinct:
        assert path not in rows
        return
    row = rows[path]
    assert (row["distinct"], row["occurrences"]) == (distinct, occurrences)
    size = {index: len(orjson.dumps(_heavy(index))) for index in range(4)}
    assert row["repeatedBytes"] < row["bytes"] <= occurrences * max(size.values())
    # its members repeat only because it does: they are not named apart
    assert not any(other.startswith(path) and other != path for other in rows)


def test_a_mirrored_transcript_is_named_where_it_sits() -> None:
    """The live updates of a delegation each mirror the child's whole transcript, five levels
    below the event: 6 distinct messages written 42 times make up nearly all the bytes."""
    transcript = [_heavy(index) for index in range(6)]
    lines = []
    for _ in range(2):
        for length in range(1, 7):
            update = {"type": "tool_execution_update", "toolCallId": "c", "toolName": "task",
                      "partialResult": {"content": [{"type": "text", "text": "working"}],
                                        "details": {"results": [
                                            {"id": "t1", "messages": transcript[:length]}]}}}
            lines.append(orjson.dumps(update) + b"\n")
    log = b"".join(lines)
    figures = document(audit_bytes(log, live_events=True))["bytes"]
    row = figures["repeated"][0]
    assert row["path"] == "$.partialResult.details.results[*].messages[*]"
    assert (row["distinct"], row["occurrences"]) == (6, 42)
    assert row["bytes"] > 0.9 * len(log)
    assert row["repeatedBytes"] == row["bytes"] - sum(len(orjson.dumps(item))
                                                      for item in transcript)


_KEYS = st.sampled_from(["a", "b", "a", "text", "c", "d", "n", "w"])
_TRICKY = st.sampled_from(['","b":', ',"b":1', '"', "\\", "x" * 300, "é" * 200, "\x01" * 100])
_VALUES = st.recursive(
    st.none() | st.integers(-(2**53) + 1, 2**53 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5) | _TRICKY | st.builds(lambda n: "y" * n, st.integers(200, 1500)),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, min_size=1,
                                                                 max_size=7),
    max_leaves=20)


def _unspanned(value: Any, data: Any, low: int, high: int) -> Any:
    items = value.items() if isinstance(value, dict) else (("[*]", item) for item in value)
    return ((key, item, None) for key, item in items)


@settings(SETTINGS, max_examples=150)
@given(st.lists(_VALUES, min_size=1, max_size=4))
def test_members_read_from_the_line_count_as_members_written_again(
        values: list[Any]) -> None:
    """The spans of members found in a line's writing are exactly their own writings: the
    figures equal those of writing every member again, names repeated inside members, quotes
    inside strings and members that are never counted (scalars, short strings) between the
    counted ones included."""
    from eventproof.conformance.audit import _bytes

    def figures(spans: Any) -> dict[str, Any]:
        stats = _bytes.ByteStats()
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_bytes, "_spans", spans)
            # The Python walk, whose spans this is about, compiled walk or not (the compiled
            # walk is held to it in test_byte_walk.py).
            patch.setattr(_bytes, "BYTE_WALK", None)
            for number, value in enumerate(values):
                event = {"type": "x", "v": value, "n": number, "w": [value], "s": "short",
                         "z": {"b": {"b": value, "a": value}, "a": 1}, "t": True, "u": value}
                written = orjson.dumps(event)
                stats.line("run.jsonl", number, 0, "x", len(written), event, written)
        return stats.document()

    assert figures(_bytes._spans) == figures(_unspanned)
