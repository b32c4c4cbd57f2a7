"""Session logs: the audit folds a child's events into what settle reads, and that fold settles
every log exactly as the whole log does (packed chunk rows and fork seeds included); a record
of the child's result is judged against the reference's settle, and the historical bug (the
last assistant message taken as the output) is found whenever it makes a difference."""

from __future__ import annotations

import json
from typing import Any

from audit_logs import audit_bytes, counts, lines
from eventproof.conformance._json import same_json
from eventproof.conformance.audit._sessions import SessionReader
from eventproof.conformance.selection.strategies import session_logs
from eventproof.reference import InvalidInput, settle_run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

Event = dict[str, Any]
SETTINGS = settings(max_examples=50, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


def _packable(event: Event) -> bool:
    data, chunk = event.get("data"), (event.get("data") or {}).get("chunk")
    return (event.get("type") == "assistant/chunk" and set(event) == {"type", "seq", "time", "data"}
            and isinstance(data, dict) and set(data) == {"turn", "step", "chunk"}
            and isinstance(chunk, dict) and set(chunk) == {"type", "index", "text"}
            and chunk.get("type") == "text-delta" and isinstance(chunk.get("text"), str))


def packed(events: list[Event]) -> list[Event]:
    """``events`` with every run of three or more plain text deltas as one text-chunks row,
    as a dsh-style writer packs them."""
    out: list[Event] = []
    run: list[Event] = []

    def flush() -> None:
        if len(run) >= 3:
            first = run[0]
            out.append({"type": "text-chunks", "seq0": first["seq"], "time0": first["time"],
                        "data": {"turn": first["data"]["turn"], "step": first["data"]["step"],
                                 "index": first["data"]["chunk"]["index"],
                                 "dt": [0] * (len(run) - 1),
                                 "texts": [item["data"]["chunk"]["text"] for item in run]}})
        else:
            out.extend(run)
        run.clear()

    for event in events:
        if _packable(event):
            run.append(event)
        else:
            flush()
            out.append(event)
    flush()
    return out


def folded(log: list[Event], header: Event | None = None) -> list[Event]:
    reader = SessionReader("run.jsonl")
    for number, value in enumerate(([header] if header else []) + log, start=1):
        reader.line(json.loads(json.dumps(value)), number, 0, b"")
    return reader.summary.settle_events()


def _settled(events: list[Event]) -> list[Any]:
    answers = []
    for options in ({"cancelled": False}, {"cancelled": True, "diagnostic": ""},
                    {"mode": "continuable"}):
        try:
            answers.append(settle_run(events, **options))
        except InvalidInput as error:
            answers.append(type(error).__name__)
    return answers


@SETTINGS
@given(session_logs())
def test_the_fold_settles_like_the_whole_log(log: list[Event]) -> None:
    # same_json: a line read back holds a surrogate pair as the astral character it encodes
    assert same_json(_settled(folded(log)), _settled(log))


@SETTINGS
@given(session_logs())
def test_packed_rows_settle_like_the_events_they_hold(log: list[Event]) -> None:
    assert same_json(_settled(folded(packed(log))), _settled(log))


@SETTINGS
@given(session_logs(), session_logs())
def test_a_fork_seed_is_not_part_of_the_run(seed: list[Event], log: list[Event]) -> None:
    header = {"type": "session", "version": 3, "id": "child", "createdAt": 0,
              "parentSession": "parent", "seedLength": len(seed), "delegationDepth": 1}
    assert same_json(_settled(folded(seed + log, header)), _settled(log))


def _last_message_content(log: list[Event]) -> Any:
    """What the historical consumers reported: the content of the last assistant message."""
    contents = [event["data"]["message"]["content"] for event in log
                if event["type"] == "assistant/message"]
    return contents[-1] if contents else None


@SETTINGS
@given(session_logs(), st.booleans())
def test_a_record_is_judged_against_settle(log: list[Event], wrong: bool) -> None:
    try:
        settled = settle_run(log, cancelled=False)
    except InvalidInput:
        return
    end = dict(settled["end"])
    stale = _last_message_content(log)
    if wrong and stale is not None:
        end["lastAssistantMessage"] = stale
    record = {"type": "subagent/end", "seq": len(log), "time": 0, "data": end}
    report = audit_bytes(lines(*log, record), kind="session")
    differs = wrong and stale is not None and stale != settled["end"].get("lastAssistantMessage")
    assert counts(report).get("settle.last-assistant", 0) == (1 if differs else 0)
    assert counts(report).get("settle.one-shot-reason", 0) == 0
    assert report.records == (1 if log else 0)  # an empty log holds no child
