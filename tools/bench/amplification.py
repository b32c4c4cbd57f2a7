"""The amplification table: what a parent's JSONL record costs while a child agent streams.

A simulated child streams turns of text deltas and large tool results. Its parent runs it as a
tool and, the way the system of seed 002 did before its fix, turns every child event into one
``tool_execution_update`` whose ``partialResult.details.messages`` is the child's whole message
list so far. The parent's record is then written three ways (spec/wire.md §3-5):

(a) naive: every event serialized as it is, frames included, no projection;
(b) facts only: ``project_event(..., include_live_events=False)``, the default of spec/wire.md
    §4.1: frames project to nothing;
(c) live events opted in: ``include_live_events=True`` at the default ``maxBytes`` (262144), so
    the backstop of spec/wire.md §5 bounds each oversized update.

Bytes and lines go to an in-memory counter, never to disk. A naive update repeats messages that
were already counted, so its size is computed from parts: the line without messages plus each
message's canonical size plus the commas between them, which is exactly how a JSON array
serializes (spec/wire.md §6). ``verify_every`` serializes real lines through the reference and
checks the arithmetic against them; the tests verify every line of a small child.

Run ``python tools/bench/amplification.py`` to print the table.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from eventproof.conformance._workloads import corpus, fresh_text
from eventproof.reference import (
    DEFAULT_MAX_BYTES,
    bound_live_update,
    canonical_bytes,
    project_event,
)

MiB = 1024 * 1024
#: The child's final answer: the same text whatever the child's size, so (b) can be compared.
FINAL_ANSWER_CHARS = 2000
#: Non-delta child events per turn that the parent mirrors: message_start/end of the assistant
#: message, tool_execution_start, two output chunks, tool_execution_end, message_start/end of
#: the tool result (the seed's reproduction saw about eight per turn: 1367 updates for 20 x 60).
OTHER_UPDATES_PER_TURN = 8


@dataclass(frozen=True)
class Child:
    """A simulated child: ``turns`` turns of ``deltas`` text deltas and one tool result each."""

    turns: int
    deltas: int
    result_bytes: int

    @property
    def label(self) -> str:
        return (f"{self.turns} turns x {self.deltas} deltas, "
                f"{self.result_bytes // 1000} KB tool results")


#: The seed's two reproductions (20 x 60 with 20 KB results, 40 x 150 with 40 KB) and 80 turns.
CHILDREN = (Child(20, 60, 20_000), Child(40, 150, 40_000), Child(80, 150, 40_000))


@dataclass
class Record:
    """An in-memory JSONL sink that only counts: lines, bytes (with newlines), the largest line."""

    bytes: int = 0
    lines: int = 0
    largest: int = 0

    def write(self, size: int) -> None:
        self.lines += 1
        self.bytes += size + 1  # the line feed
        self.largest = max(self.largest, size)


@dataclass
class Row:
    """One child and the parent's record written the three ways."""

    child: Child
    updates: int = 0
    naive: Record = field(default_factory=Record)
    facts: Record = field(default_factory=Record)
    live: Record = field(default_factory=Record)
    verified_lines: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "turns": self.child.turns, "deltas": self.child.deltas,
            "result_bytes": self.child.result_bytes, "label": self.child.label,
            "updates": self.updates, "verified_lines": self.verified_lines,
            **{f"{name}_{key}": getattr(getattr(self, name), key)
               for name in ("naive", "facts", "live") for key in ("bytes", "lines", "largest")},
        }


@dataclass
class _NaiveUpdate:
    """A mirrored child event: the update line without messages, and the messages it carries."""

    envelope: dict[str, Any]  # partialResult.details.messages is []
    messages: list[dict[str, Any]]
    messages_bytes: int  # sum of the canonical sizes of ``messages``


# -- the simulated run --------------------------------------------------------------------------


class _Simulation:
    def __init__(self, child: Child, seed: int) -> None:
        self.child = child
        self.rng = random.Random(f"eventproof-amplification:{seed}:{child}")
        self.prose = corpus("prose", seed)
        self.tool = corpus("tool", seed)
        self.time = 1_761_571_622_000
        self.messages: list[dict[str, Any]] = []
        self.messages_bytes = 0
        # Independent of the child's size: the parent's facts must not depend on it.
        fixed = random.Random(f"eventproof-amplification-final:{seed}")
        self.task = fresh_text(self.prose, fixed.randrange(len(self.prose)), 300)
        self.final_answer = fresh_text(self.prose, fixed.randrange(len(self.prose)),
                                       FINAL_ANSWER_CHARS)

    def text(self, source: str, length: int) -> str:
        return fresh_text(source, self.rng.randrange(len(source)), length)

    def tick(self) -> int:
        self.time += 250
        return self.time

    def add_message(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        self.messages_bytes += len(canonical_bytes(message))

    def mirror(self, progress: str) -> _NaiveUpdate:
        """The parent's update for one child event, as seed 002 built it before the fix."""
        envelope = {
            "type": "tool_execution_update", "toolCallId": "toolu_01subagentCall000000001",
            "toolName": "subagent", "args": {"task": self.task},
            "partialResult": {"content": [{"type": "text", "text": progress}],
                              "details": {"messages": []}},
        }
        return _NaiveUpdate(envelope, list(self.messages), self.messages_bytes)

    def child_updates(self) -> Iterator[_NaiveUpdate]:
        child = self.child
        for turn in range(child.turns):
            usage = {"input": 2000 + 40 * turn, "output": 4 * child.deltas, "cacheRead": 0,
                     "cacheWrite": 0, "totalTokens": 2000 + 40 * turn + 4 * child.deltas,
                     "cost": {"input": (2000 + 40 * turn) * 3e-06, "output": child.deltas * 6e-05,
                              "total": (2000 + 40 * turn) * 3e-06 + child.deltas * 6e-05}}
            yield self.mirror("")  # message_start
            streamed = ""
            for _ in range(child.deltas):
                streamed += self.text(self.prose, self.rng.randint(3, 8))
                yield self.mirror(streamed)  # message_update (text_delta)
            call_id = f"toolu_01child{turn:016d}"
            self.add_message({
                "role": "assistant",
                "content": [{"type": "text", "text": streamed},
                            {"type": "toolCall", "id": call_id, "name": "bash",
                             "arguments": {"command": self.text(self.tool, 60)}}],
                "usage": usage, "stopReason": "toolUse", "timestamp": self.tick(),
            })
            yield self.mirror(streamed)  # message_end
            yield self.mirror(streamed)  # tool_execution_start
            result = self.text(self.tool, child.result_bytes)
            third = len(result) // 3
            yield self.mirror(result[:third])  # tool_execution_update: a chunk of output
            yield self.mirror(result[:2 * third])
            yield self.mirror(result[-2000:])  # tool_execution_end
            self.add_message({
                "role": "toolResult", "toolCallId": call_id, "toolName": "bash",
                "content": [{"type": "text", "text": result}], "isError": False,
                "timestamp": self.tick(),
            })
            yield self.mirror(result[-2000:])  # message_start (tool result)
            yield self.mirror(result[-2000:])  # message_end (tool result)

    def parent_events(self) -> Iterator[dict[str, Any] | _NaiveUpdate]:
        """The parent's own events around the child's mirrored updates."""
        user = {"role": "user", "content": [{"type": "text", "text": self.task}],
                "timestamp": self.tick()}
        call = {"type": "toolCall", "id": "toolu_01subagentCall000000001", "name": "subagent",
                "arguments": {"task": self.task}}
        usage = {"input": 1200, "output": 90, "cacheRead": 0, "cacheWrite": 0,
                 "totalTokens": 1290, "cost": {"input": 0.0036, "output": 0.00135,
                                               "total": 0.00495}}

        def assistant(content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
            return {"role": "assistant", "content": content, "usage": usage, "stopReason": stop,
                    "timestamp": self.time}

        intro = "I will delegate this to a subagent."
        yield {"type": "agent_start"}
        yield {"type": "turn_start"}
        yield {"type": "message_start", "message": user}
        yield {"type": "message_end", "message": user}
        yield {"type": "message_start", "message": assistant([], "toolUse")}
        for end in range(7, len(intro) + 1, 7):
            partial = assistant([{"type": "text", "text": intro[:end]}], "toolUse")
            yield {"type": "message_update", "message": partial,
                   "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0,
                                             "delta": intro[end - 7:end], "partial": partial}}
        first = assistant([{"type": "text", "text": intro}, call], "toolUse")
        yield {"type": "message_end", "message": first}
        yield {"type": "tool_execution_start", "toolCallId": call["id"], "toolName": "subagent",
               "args": call["arguments"]}
        yield from self.child_updates()
        result = {"content": [{"type": "text", "text": self.final_answer}],
                  "details": {"status": "completed"}}
        yield {"type": "tool_execution_end", "toolCallId": call["id"], "toolName": "subagent",
               "result": result, "isError": False}
        tool_result = {"role": "toolResult", "toolCallId": call["id"], "toolName": "subagent",
                       **result, "isError": False, "timestamp": self.time}
        yield {"type": "message_start", "message": tool_result}
        yield {"type": "message_end", "message": tool_result}
        yield {"type": "turn_end", "message": first, "toolResults": [tool_result]}
        yield {"type": "turn_start"}
        last = assistant([{"type": "text", "text": "The subagent finished; see its answer."}],
                         "stop")
        yield {"type": "message_start", "message": last}
        yield {"type": "message_end", "message": last}
        yield {"type": "turn_end", "message": last, "toolResults": []}
        yield {"type": "agent_end", "messages": [user, first, tool_result, last]}


def _naive_size(update: _NaiveUpdate) -> int:
    """Bytes of the update line with its messages: ``[]`` becomes ``[m1,m2,…]`` (wire.md §6)."""
    count = len(update.messages)
    return len(canonical_bytes(update.envelope)) + update.messages_bytes + max(0, count - 1)


def _real(update: _NaiveUpdate) -> dict[str, Any]:
    event = dict(update.envelope)
    event["partialResult"] = {"content": update.envelope["partialResult"]["content"],
                              "details": {"messages": update.messages}}
    return event


def simulate(child: Child, *, max_bytes: int = DEFAULT_MAX_BYTES, seed: int = 0,
             verify_every: int = 0) -> Row:
    """Write the parent's record of ``child`` the three ways and count what each wrote.

    With ``verify_every`` = n > 0, every n-th mirrored update (and the last) is also serialized
    and projected for real through the reference, and the counts must agree exactly.
    """
    row = Row(child)
    simulation = _Simulation(child, seed)
    pending: tuple[int, int, _NaiveUpdate] | None = None
    for item in simulation.parent_events():
        if isinstance(item, _NaiveUpdate):
            row.updates += 1
            naive = _naive_size(item)
            row.naive.write(naive)
            # §5.1: an opted-in update longer than maxBytes is replaced by its bounded form,
            # which keeps neither args nor details, so it is computed without the messages.
            if naive <= max_bytes:
                live = naive
            else:
                live = len(canonical_bytes(bound_live_update(
                    item.envelope, max_bytes=max_bytes, fit_strategy="halving")))
            row.live.write(live)
            if verify_every and row.updates % verify_every == 0:
                row.verified_lines += _verify(item, naive, live, max_bytes)
            pending = (naive, live, item)
            continue  # a frame: (b) writes nothing (wire.md §4.1)
        row.naive.write(len(canonical_bytes(item)))
        for record, include in ((row.facts, False), (row.live, True)):
            line = project_event(item, include_live_events=include, max_bytes=max_bytes)
            if line is not None:
                record.write(len(line))
    if verify_every and pending is not None:
        row.verified_lines += _verify(pending[2], pending[0], pending[1], max_bytes)
    return row


def _verify(update: _NaiveUpdate, naive: int, live: int, max_bytes: int) -> int:
    event = _real(update)
    real_naive = len(canonical_bytes(event))
    line = project_event(event, include_live_events=True, max_bytes=max_bytes)
    real_live = 0 if line is None else len(line)
    if (real_naive, real_live) != (naive, live):
        raise AssertionError(
            f"the counted sizes ({naive}, {live}) differ from the real lines "
            f"({real_naive}, {real_live}) for an update carrying {len(update.messages)} messages")
    return 1


def amplification_table(children: tuple[Child, ...] = CHILDREN, *,
                        max_bytes: int = DEFAULT_MAX_BYTES, verify_every: int = 997) -> list[Row]:
    """One :class:`Row` per child (the table of docs/benchmark.md)."""
    return [simulate(child, max_bytes=max_bytes, verify_every=verify_every)
            for child in children]


def _mib(count: int) -> str:
    return f"{count / MiB:,.3f}" if count < 10 * MiB else f"{count / MiB:,.1f}"


def format_table(rows: list[Row]) -> str:
    """The table as Markdown: bytes, lines and the largest line of each way of writing."""
    header = ("| child | mirrored updates | (a) naive MiB | (a) lines | (a) largest line MiB "
              "| (b) facts only MiB | (b) lines | (c) live, bounded MiB | (c) lines "
              "| (c) largest line MiB |")
    lines = [header, "|" + "---|" * 10]
    for row in rows:
        lines.append(
            f"| {row.child.label} | {row.updates:,} | {_mib(row.naive.bytes)} "
            f"| {row.naive.lines:,} | {_mib(row.naive.largest)} | {_mib(row.facts.bytes)} "
            f"| {row.facts.lines:,} | {_mib(row.live.bytes)} | {row.live.lines:,} "
            f"| {_mib(row.live.largest)} |"
        )
    return "\n".join(lines)


def main() -> int:
    print(format_table(amplification_table()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
