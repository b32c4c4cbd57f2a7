"""Session logs of the selection profile (spec/selection.md §2), as a dsh-style harness writes
them: one ``session.jsonl`` (or ``.jsonl.zstd``) per session directory, a ``session`` header line
first (its ``id``, the ``parentSession`` of a child and the ``seedLength`` of a fork seed), then
the session events, with runs of delta chunks packed into ``text-chunks`` rows.

Where the logs hold a child run's events *and* the parent's record of its result — a
``subagent/end`` lifecycle record, or the parent's ``tool/result`` of the delegation tool call —
the record must agree with what the reference's ``settle`` gives on the child's events.

Memory stays small: a child's events are folded as they are read into what ``settle`` reads —
the turn, step and inbox events (small), the last non-empty assistant message and the streamed
text — which give the same settlement as the whole log (selection depends on nothing else,
consumed work on nothing but those events).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from eventproof.reference import InvalidInput, settle_run

from .._json import first_difference, render, same_json
from ._findings import Tallies, excerpt

SESSION_TYPES = frozenset({
    "assistant/message", "assistant/chunk", "tool/call", "tool/result", "turn/start",
    "turn/end", "step/start", "step/end", "user/message", "agent/inbox/spliced",
    "subagent/descriptor", "subagent/end", "text-chunks", "reasoning-chunks",
    "tool-call-chunks",
})
PACKED_ROWS = frozenset({"text-chunks", "reasoning-chunks", "tool-call-chunks"})
_STRUCTURAL = frozenset({"turn/start", "turn/end", "step/start", "agent/inbox/spliced"})


@dataclass
class Record:
    """A parent's record of a child's result, where it sat in the logs."""

    kind: str  # "end" (a subagent/end record) or "tool" (the delegation tool's result)
    file: str
    line: int
    offset: int
    excerpt: str
    fields: dict[str, Any]
    #: Strings of the record that may name the child's session (ids, meta).
    names: tuple[str, ...] = ()
    call_id: str | None = None


@dataclass
class Call:
    """A tool call of a parent log, reduced to what can identify the child it started."""

    call_id: str
    name: str
    line: int
    time: float | None
    #: Digests of the string members of its arguments (at any depth): the delegated task.
    strings: frozenset[bytes]
    background: bool


@dataclass
class SessionSummary:
    """What one session log holds for the selection audit."""

    file: str
    id: str | None = None
    parent: str | None = None
    created: float = 0
    seed_length: int = 0
    mode: str = "one-shot"
    events: int = 0
    #: turn/step/inbox events after the seed, reduced to what settle reads.
    structure: list[dict[str, Any]] = field(default_factory=list)
    last_content: list[Any] | None = None
    text: list[str] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    #: tool calls of this (parent) log, in log order
    calls: list[Call] = field(default_factory=list)
    tool_results: dict[str, Record] = field(default_factory=dict)
    #: when each tool result was written (the event's ``time``), by call id
    result_times: dict[str, float] = field(default_factory=dict)
    #: digests of the texts of the first user messages after the seed, in order: the task the
    #: child was given (a delegation's prompt) is the first, unless context was injected
    #: before it; and the label of its descriptor
    tasks: list[bytes] = field(default_factory=list)
    label: str | None = None

    def settle_events(self) -> list[dict[str, Any]]:
        """A log with the same settlement as the child's run (see the module docstring)."""
        events = list(self.structure)
        if self.last_content is not None:
            events.append({"type": "assistant/message",
                           "data": {"message": {"role": "assistant",
                                                "content": self.last_content}}})
        if self.text:
            events.append({"type": "assistant/chunk",
                           "data": {"chunk": {"type": "text-delta", "text": "".join(self.text)}}})
        return events


class SessionReader:
    """Folds the lines of one session log into a :class:`SessionSummary`."""

    def __init__(self, file: str) -> None:
        self.summary = SessionSummary(file)
        self.first = True

    def line(self, value: dict[str, Any], number: int, offset: int, raw: bytes) -> None:
        summary = self.summary
        kind = value.get("type")
        if self.first:
            self.first = False
            if kind == "session":
                summary.id = value.get("id") if isinstance(value.get("id"), str) else None
                parent = value.get("parentSession")
                summary.parent = parent if isinstance(parent, str) else None
                created = value.get("createdAt")
                summary.created = created if isinstance(created, int | float) else 0
                seed = value.get("seedLength")
                summary.seed_length = seed if type(seed) is int and seed > 0 else 0
                return
        if kind in PACKED_ROWS:
            self._packed(value)
            return
        summary.events += 1
        if kind == "subagent/end":
            payload = value.get("data")
            data: dict[str, Any] = payload if isinstance(payload, dict) else value
            names = tuple(item for key, item in data.items()
                          if isinstance(item, str) and key not in ("stopReason", "type"))
            summary.records.append(Record("end", summary.file, number, offset, excerpt(raw),
                                          dict(data), names))
            return
        body = value.get("data")
        if not isinstance(body, dict):
            return
        data = body
        time = value.get("time")
        when = float(time) if isinstance(time, int | float) and not isinstance(time, bool) \
            else None
        if kind == "subagent/descriptor":
            if data.get("mode") == "continuable":
                summary.mode = "continuable"
            if isinstance(data.get("label"), str) and summary.label is None:
                summary.label = data["label"]
        elif kind == "tool/call":
            if isinstance(data.get("callId"), str):
                summary.calls.append(_call(data, number, when))
        elif kind == "tool/result":
            self._tool_result(data, number, offset, raw, when)
        if summary.events <= summary.seed_length:
            return  # the fork seed: events of an earlier run (selection.md §5)
        if len(summary.tasks) < TASKS_KEPT:
            texts = [data.get("content")] if kind == "user/message" else [
                item.get("content") for item in data["inserted"] if isinstance(item, dict)
            ] if kind == "agent/inbox/spliced" and isinstance(data.get("inserted"), list) else []
            for content in texts:
                digest = _text_digest(content)
                if digest is not None and digest not in summary.tasks:
                    summary.tasks.append(digest)
        if kind in _STRUCTURAL:
            summary.structure.append(_reduced(kind, data))
        elif kind == "assistant/message":
            message = data.get("message")
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, list) and content:
                summary.last_content = content
        elif kind == "assistant/chunk":
            chunk = data.get("chunk")
            if isinstance(chunk, dict) and chunk.get("type") == "text-delta" and \
                    isinstance(chunk.get("text"), str):
                summary.text.append(chunk["text"])

    def _packed(self, value: dict[str, Any]) -> None:
        """A packed run of delta chunks: one event per member (only text deltas are read)."""
        data = value.get("data")
        pieces = data.get("texts" if value["type"] != "tool-call-chunks" else "args") \
            if isinstance(data, dict) else None
        members = len(pieces) if isinstance(pieces, list) else 1
        before = self.summary.events
        self.summary.events += members
        if value["type"] != "text-chunks" or not isinstance(pieces, list):
            return
        skip = max(0, self.summary.seed_length - before)
        self.summary.text.extend(piece for piece in pieces[skip:] if isinstance(piece, str))

    def _tool_result(self, data: dict[str, Any], number: int, offset: int,
                     raw: bytes, when: float | None) -> None:
        message = data.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            return
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool-result" and \
                    isinstance(block.get("toolCallId"), str):
                inner = block.get("content")
                text = "".join(piece["text"] for piece in inner if isinstance(piece, dict)
                               and piece.get("type") == "text"
                               and isinstance(piece.get("text"), str)) \
                    if isinstance(inner, list) else ""
                names = (*_strings(data.get("meta")), *_named_ids(text))
                if when is not None:
                    self.summary.result_times[block["toolCallId"]] = when
                self.summary.tool_results[block["toolCallId"]] = Record(
                    "tool", self.summary.file, number, offset, excerpt(raw),
                    {"isError": bool(block.get("isError", False)), "text": text}, names,
                    block["toolCallId"])


#: What a delegation tool answers when it started a child in the background instead of
#: waiting for its result ([H] tool-subagent's rendering): such a result is not judged.
BACKGROUND_ANSWERS = ("started background subagent job ", "started subagent ")


#: User messages after the seed whose texts are kept (as digests) to identify a child's call.
TASKS_KEPT = 8
#: String members of a call's arguments kept (as digests) to identify the child it started.
MAX_ARGUMENT_STRINGS = 64


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _call(data: dict[str, Any], number: int, when: float | None) -> Call:
    """A tool call: its id, name, and what its raw arguments hold (a call whose arguments are
    not a JSON object identifies no child)."""
    arguments = data.get("arguments")
    parsed: Any = None
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments)
        except (ValueError, RecursionError):
            parsed = None
    elif isinstance(arguments, dict):
        parsed = arguments
    strings = frozenset(_digest(text) for text in _strings(parsed)[:MAX_ARGUMENT_STRINGS]
                        if text) if isinstance(parsed, dict) else frozenset()
    background = isinstance(parsed, dict) and parsed.get("run_in_background") is True
    name = data.get("name")
    return Call(data["callId"], name if isinstance(name, str) else "", number, when, strings,
                background)


def _text_digest(content: Any) -> bytes | None:
    """The digest of the text of a message's content (a string, or its text blocks joined)."""
    if isinstance(content, str):
        return _digest(content) if content else None
    if not isinstance(content, list):
        return None
    text = "".join(block["text"] for block in content if isinstance(block, dict)
                   and block.get("type") == "text" and isinstance(block.get("text"), str))
    return _digest(text) if text else None


def _named_ids(text: str) -> tuple[str, ...]:
    """The id a background answer names (``started subagent ID``)."""
    for answer in BACKGROUND_ANSWERS:
        if text.startswith(answer):
            return (text[len(answer):].strip(),)
    return ()


def _strings(value: Any, depth: int = 0) -> list[str]:
    if isinstance(value, str):
        return [value]
    if depth > 4:
        return []
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item, depth + 1)]
    if isinstance(value, list):
        return [text for item in value[:32] for text in _strings(item, depth + 1)]
    return []


def _reduced(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """The part of a turn, step or inbox event that consumed work reads (selection.md §5.1)."""
    if kind == "agent/inbox/spliced":
        kept: dict[str, Any] = {key: data[key] for key in ("removedCount", "outcome")
                                if key in data}
        inserted = data.get("inserted")
        kept["inserted"] = ([{}] if inserted else []) if isinstance(inserted, list) else inserted
        return {"type": kind, "data": kept}
    turn: dict[str, Any] = {"turn": data.get("turn")}
    if kind == "turn/end":
        reason = data.get("reason")
        turn["reason"] = {"kind": reason.get("kind")} if isinstance(reason, dict) else reason
    return {"type": kind, "data": turn}


# -- linking children to their records, and judging -----------------------------------------


def judge_sessions(summaries: list[SessionSummary], tallies: Tallies,
                   notices: list[str] | None = None) -> int:
    """Find each child's records in the logs and judge them; answer how many records were
    judged. A child whose record the logs do not identify is not judged: ``notices`` is told
    why, naming the evidence."""
    told = notices if notices is not None else []
    by_id = {summary.id: summary for summary in summaries if summary.id is not None}
    judged = 0
    for summary in summaries:
        for record in summary.records:
            child = next((by_id[name] for name in record.names if name in by_id), None)
            if child is None and summary.events > len(summary.records):
                child = summary  # a lifecycle record written into the child's own log
            if child is not None:
                judged += _judge(child, record, tallies)
    for parent in summaries:
        if parent.id is None:
            continue
        children = [summary for summary in summaries if summary.parent == parent.id]
        if not children:
            continue
        for child, call in pair_children(parent, children, told):
            result = parent.tool_results.get(call.call_id)
            if result is not None and not call.background:
                judged += _judge(child, result, tallies)
    return judged


def pair_children(parent: SessionSummary, children: list[SessionSummary],
                  notices: list[str]) -> list[tuple[SessionSummary, Call]]:
    """Each child of ``parent`` with the tool call that started it, by what identifies them in
    the logs, never by position: the child's session id named by the call's result (its
    ``meta``, or a background answer), else the child's task — the text of its first user
    message after the seed, and its descriptor's label — held by the call's arguments, with the
    times (the call written before the child was created, its result after) to tell apart calls
    that hold the same task. A child no call identifies, or several alike, is told to
    ``notices`` and left out."""
    pairs: list[tuple[SessionSummary, Call]] = []
    taken: set[str] = set()
    calls = {call.call_id: call for call in parent.calls}
    rest: list[SessionSummary] = []
    for child in children:
        named = next((call for call_id, call in calls.items() if call_id not in taken and (
            result := parent.tool_results.get(call_id)) is not None
            and child.id in result.names), None)
        if named is not None:
            taken.add(named.call_id)
            pairs.append((child, named))
        else:
            rest.append(child)

    def holds_label(child: SessionSummary, call: Call) -> bool:
        return child.label is None or not child.label or _digest(child.label) in call.strings

    def holding(child: SessionSummary) -> list[Call]:
        """The calls that hold the child's first user message (its task), else one of the
        next ones (context injected before the task)."""
        for tasks in (child.tasks[:1], child.tasks[1:]):
            found = [call for call in parent.calls if holds_label(child, call)
                     and any(task in call.strings for task in tasks)]
            if found:
                return found
        return []

    def in_time(child: SessionSummary, call: Call) -> bool:
        if call.time is None or not child.created:
            return True
        finished = parent.result_times.get(call.call_id)
        return call.time <= child.created and (
            call.background or finished is None or child.created <= finished)

    candidates = {id(child): holding(child) for child in rest}
    progress = True
    while progress and rest:
        progress = False
        for child in list(rest):
            left = [call for call in candidates[id(child)] if call.call_id not in taken]
            if len(left) > 1:
                timed = [call for call in left if in_time(child, call)]
                left = timed if timed else left
            if len(left) == 1:
                taken.add(left[0].call_id)
                pairs.append((child, left[0]))
                rest.remove(child)
                progress = True
    for child in rest:
        left = [call for call in candidates[id(child)] if call.call_id not in taken]
        where = f"child session {child.id} ({child.file})"
        if not child.tasks:
            notices.append(f"{where} is not judged: it holds no user message after its seed, "
                           f"so no call of {parent.file} can be identified as the one that "
                           "started it")
        elif not left:
            notices.append(f"{where} is not judged: no tool call of {parent.file} holds its "
                           "task (the text of its first user message"
                           + (", and its descriptor's label" if child.label else "")
                           + ") in its arguments, nor does a result name its id")
        else:
            lines = ", ".join(f"{call.call_id} (line {call.line})" for call in left[:5])
            notices.append(f"{where} is not judged: {len(left)} tool calls of {parent.file} "
                           f"hold its task, and nothing in the logs tells which started it: "
                           f"{lines}")
    return pairs


def _settled(child: SessionSummary, cancelled: bool | None,
             diagnostic: str | None) -> dict[str, Any] | None:
    events = child.settle_events()
    settled: dict[str, Any]
    try:
        if child.mode == "continuable":
            settled = settle_run(events, mode="continuable")
        elif diagnostic is None:
            settled = settle_run(events, cancelled=cancelled)
        else:
            settled = settle_run(events, cancelled=cancelled, diagnostic=diagnostic)
        return settled
    except InvalidInput:
        return None


def _diagnostic(text: str) -> str | None:
    marker = "\nDiagnostic: "
    if marker not in text:
        return None
    shown = text.split(marker, 1)[1]
    return shown.split("\nPartial output before the run ended:\n", 1)[0]


def _judge(child: SessionSummary, record: Record, tallies: Tallies) -> int:
    if record.kind == "tool" and (child.mode == "continuable" or (
            not record.fields["isError"] and record.fields["text"].startswith(
                BACKGROUND_ANSWERS))):
        return 0  # a continuable or background child's delegation answers an id (§5.6)
    diagnostic = _diagnostic(str(record.fields.get("text", ""))) if record.kind == "tool" \
        else None
    variants = [settled for cancelled in ((None,) if child.mode == "continuable"
                                          else (False, True))
                if (settled := _settled(child, cancelled, diagnostic)) is not None]
    if not variants:
        return 0
    expected = variants[0]
    where = f"the reference's settle on the {child.events:,} events of {child.file}"

    def find(rule_id: str, message: str) -> None:
        tallies.add_excerpt(rule_id, record.file, record.line, record.offset, record.excerpt,
                            message)

    if record.kind == "tool":
        tallies.judged("settle.tool-result")
        got = {"isError": record.fields["isError"], "text": record.fields["text"]}
        if not any(same_json(got, settled["toolResult"]) for settled in variants):
            want = expected["toolResult"]
            find("settle.tool-result",
                 f"the delegation tool's result is {render(got, 120)}; {where} gives "
                 f"{render(want, 200)} ({_difference(got, want)})")
        return 1
    fields = record.fields
    if "output" in fields:
        tallies.judged("settle.output")
        if not same_json(fields["output"], expected["result"]["output"]):
            find("settle.output", f"the recorded output is {render(fields['output'], 100)}; "
                                  f"{where} selects {render(expected['result']['output'], 160)}")
    tallies.judged("settle.last-assistant")
    want_last = expected["end"].get("lastAssistantMessage")
    if "lastAssistantMessage" in fields:
        got_last = fields["lastAssistantMessage"]
        if got_last == []:
            find("settle.last-assistant",
                 "lastAssistantMessage is []: it is absent when the child produced nothing, "
                 f"and never []; {where} selects {render(want_last, 160)}")
        elif want_last is None or not same_json(got_last, want_last):
            find("settle.last-assistant",
                 f"lastAssistantMessage is {render(got_last, 100)}; {where} selects "
                 f"{render(want_last, 160) if want_last is not None else 'nothing (absent)'}")
    elif want_last is not None:
        find("settle.last-assistant",
             f"lastAssistantMessage is absent; {where} selects {render(want_last, 160)}")
    if "stopReason" in fields:
        rule_id = ("settle.continuable-reason" if child.mode == "continuable"
                   else "settle.one-shot-reason")
        tallies.judged(rule_id)
        reasons = sorted({settled["result"]["stopReason"] for settled in variants})
        if fields["stopReason"] not in reasons:
            find(rule_id, f"stopReason is {fields['stopReason']!r}; {where} on the "
                          f"{child.mode} path gives {' or '.join(map(repr, reasons))}"
                          + (" (cancelled or not)" if len(reasons) > 1 else ""))
    return 1


def _difference(got: Any, want: Any) -> str:
    difference = first_difference(got, want)
    return "they differ" if difference is None else f"first difference at {difference.path}"


def looks_like_session(types: list[str]) -> bool:
    """True when the types of a log's first lines are those of a session log."""
    known = [kind for kind in types if kind in SESSION_TYPES or kind == "session"]
    return bool(known) and len(known) * 2 >= len(types)
