"""Every blind bug is real: on one hand-written input its answer differs from the reference's,
and the unplanted port answers that input exactly like the reference."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from eventproof.conformance._schemas import validator_for
from eventproof.reference import Reference

from .bugs import BUGS
from .full_bugs import FULL_BUGS
from .full_port import FullPort
from .port import Canon, MaximalPort, Port

# -- builders ----------------------------------------------------------------------------------


def session(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"type": kind, "seq": 0, "time": "t0", "data": data}


def message(content: list[Any], **extra: Any) -> dict[str, Any]:
    return session("assistant/message",
                   {"message": {"role": "assistant", "content": content}, **extra})


def chunk(chunk_type: str, **members: Any) -> dict[str, Any]:
    return session("assistant/chunk", {"chunk": {"type": chunk_type, **members}})


def delta(text: str, index: int = 0) -> dict[str, Any]:
    return chunk("text-delta", index=index, text=text)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def select(*events: dict[str, Any]) -> tuple[str, Any]:
    return "select", {"events": list(events)}


def fold(*pushes: dict[str, Any]) -> tuple[str, Any]:
    return "fold", {"pushes": list(pushes)}


def classify(event_type: str) -> tuple[str, Any]:
    return "classify", {"event": {"type": event_type}}


def project(event: dict[str, Any], include: bool = True,
            max_bytes: Any = 262144) -> tuple[str, Any]:
    return "project", {"event": event, "includeLiveEvents": include, "maxBytes": max_bytes}


def update(partial_result: Any, call_id: str = "call_01", name: str = "bash",
           args: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "tool_execution_update", "toolCallId": call_id, "toolName": name,
            "args": {} if args is None else args, "partialResult": partial_result}


def blocks(*pieces: Any) -> dict[str, Any]:
    return {"content": list(pieces)}


def streaming(step: dict[str, Any], role: str = "assistant",
              **message_members: Any) -> dict[str, Any]:
    return {"type": "message_update",
            "message": {"role": role, "content": [], **message_members},
            "assistantMessageEvent": step}


PARTIAL = {"role": "assistant",
           "content": [text("Let me read it."),
                       {"type": "toolCall", "id": "call_01", "name": "read",
                        "arguments": {"path": "README.md"}}]}
BIG_ARGS = {"blob": "y" * 5000}  # puts an update over 3215 bytes while its text stays small
LONG_TEXT = blocks(text("x" * 5000))


def exact_size_update(measure_pad: int = 0) -> tuple[str, Any]:
    """An update whose canonical line is exactly maxBytes bytes long."""
    event = update(blocks(text("z" * 3300)))
    size = len(Canon().serialize(event).encode("utf-8")) + measure_pad
    return project(event, max_bytes=size)


def nested(**members: Any) -> dict[str, Any]:
    return {"type": "agent_start", **members}


# -- one witness per bug ----------------------------------------------------------------------

WITNESSES: dict[str, tuple[str, Any]] = {
    # select
    "EmptyMessageResetsSelection": select(message([text("A")]), message([])),
    "FirstMessageWins": select(message([text("A")]), message([text("B")])),
    "LaterTextWins": select(message([text("A")]), delta("later")),
    "InterruptedMessageIgnored": select(delta("x"), message([text("A")], interrupted=True)),
    "ReasoningDeltaJoined": select(chunk("reasoning-delta", index=0, text="think "),
                                   delta("answer")),
    "TextlessMessageSkipped": select(delta("Let me think"),
                                     message([{"type": "reasoning", "text": "plan"}])),
    "BlankTextIsNoOutput": select(delta(" "), delta("\n")),
    "DeltasJoinedPerBlock": select(delta("a", 0), delta("b", 1)),
    "UnknownEventRefused": select(session("subagent/heartbeat", {"alive": True}),
                                  message([text("A")])),
    "UnknownChunkRefused": select(chunk("citation", index=0), delta("a")),
    "BlocksRebuilt": select(message([{"type": "text", "text": "A", "cache": {"ttl": 5}}])),
    "UnknownBlocksDropped": select(message([{"type": "audio", "clip": {}}])),
    "DraftDroppedByMessage": select(delta("partial answer"), message([])),
    "UserMessageSelected": select(delta("a"),
                                  session("user/message",
                                          {"message": {"role": "user",
                                                       "content": [text("u")]}})),
    # fold
    "FoldNoInitialCollect": fold({"text": "a"}),
    "FoldCollectsBeforePush": fold({"text": "a"}),
    "FoldEmptyTextPushCounts": fold({"text": ""}),
    "FoldSharedTextBlock": fold({"text": "a"}, {"text": "b"}),
    "FoldRawTextOverridesMessage": fold({"event": message([text("A")])}, {"text": "x"}),
    "FoldEventChunksIgnored": fold({"event": delta("a")}),
    # classify
    "ClassifyLoose": classify("Message_Update"),
    "ClassifyBySuffix": classify("status_update"),
    "ClassifyUnknownRefused": classify("heartbeat"),
    # project: opt-in and projections
    "OptInAfterChecks": project(streaming({"type": "text_delta", "contentIndex": 0,
                                           "delta": "x",
                                           "partial": {"role": "assistant", "content": []}},
                                          role="user"), include=False),
    "ProjectUnknownTypeRefused": project({"type": "heartbeat"}, include=False),
    "FactExtraMembersDropped": project({"type": "agent_start", "runId": "r1"}),
    "TurnEndKeepsExtraMembers": project({"type": "turn_end", "turnIndex": 3,
                                         "message": {"role": "assistant", "content": []},
                                         "toolResults": []}),
    "WillRetryOmitted": project({"type": "agent_end", "messages": []}),
    "AgentEndCountsAssistantOnly": project({"type": "agent_end", "willRetry": True,
                                            "messages": [{"role": "user", "content": "hi"}]}),
    "UsageNullWhenAbsent": project(streaming({"type": "done", "reason": "stop",
                                              "message": {"role": "assistant",
                                                          "content": []}})),
    "UsageEmptyDropped": project(streaming({"type": "done", "reason": "stop",
                                            "message": {"role": "assistant", "content": []}},
                                           usage={})),
    "PartialKeptOnNonDeltas": project(streaming({"type": "text_start", "contentIndex": 0,
                                                 "partial": PARTIAL})),
    "ToolcallNameKey": project(streaming({"type": "toolcall_start", "contentIndex": 1,
                                          "partial": PARTIAL})),
    "ToolcallSpreadReversed": project(streaming({"type": "toolcall_start", "id": "stale",
                                                 "contentIndex": 1, "partial": PARTIAL})),
    "ToolcallBlockTypeUnchecked": project(streaming({"type": "toolcall_start",
                                                     "contentIndex": 0, "partial": PARTIAL})),
    "NonAssistantUpdateWritten": project(streaming({"type": "text_delta", "contentIndex": 0,
                                                    "delta": "x", "partial": PARTIAL},
                                                   role="user")),
    "ContentIndexFloatRefused": project(streaming({"type": "toolcall_start",
                                                   "contentIndex": 1.0, "partial": PARTIAL})),
    "MaxBytesFloatRefused": project({"type": "agent_start"}, max_bytes=4096.0),
    "MinMaxBytesExclusive": project({"type": "agent_start"}, max_bytes=3215),
    # project: the backstop
    "ToolEndBounded": project({"type": "tool_execution_end", "toolCallId": "c",
                               "toolName": "t", "result": LONG_TEXT, "isError": False},
                              max_bytes=3215),
    "BoundAtEqualSize": exact_size_update(),
    "SizeInCodePoints": project(update(blocks(text("é" * 2000))), max_bytes=3215),
    "DefaultSeparatorsMeasured": exact_size_update(),
    "IdsClippedInUtf16": project(update(LONG_TEXT, call_id="\U0001F600" * 300), max_bytes=3215),
    "IdsClippedInBytes": project(update(LONG_TEXT, call_id="é" * 300), max_bytes=3215),
    "IdsNeverClipped": project(update(LONG_TEXT, call_id="a" * 300, name="\u0000" * 300),
                               max_bytes=3215),
    "IdsClippedAlways": project(update(blocks(text("ok")), call_id="a" * 300)),
    "TailInUtf16Units": project(update(blocks(text("ab" + "\U0001F600" * 1000))),
                                max_bytes=3215),
    "SliceMinusZeroTail": project(update(blocks(text("abc")), call_id="\u0000" * 300,
                                         name="\u0000" * 300), max_bytes=3215),
    "MarkerAfterTail": project(update(LONG_TEXT), max_bytes=3215),
    "MarkerWithoutLineFeed": project(update(LONG_TEXT), max_bytes=3215),
    "HalvingSkipsFullText": project(update(blocks(text("short")), args=BIG_ARGS),
                                    max_bytes=3215),
    "HalvingRoundsUp": project(update(blocks(text("x" * 5001))), max_bytes=3215),
    "TextJoinedWithLineFeeds": project(update(blocks(text("a"), text("b")), args=BIG_ARGS),
                                       max_bytes=3215),
    "TextFromAnyBlock": project(update(blocks({"type": "thinking", "text": "t"}, text("x")),
                                       args=BIG_ARGS), max_bytes=3215),
    "StringPayloadIgnored": project(update("hello", args=BIG_ARGS), max_bytes=3215),
    "TextBlockNonStringText": project(update(blocks({"type": "text", "text": 5}, text("x")),
                                             args=BIG_ARGS), max_bytes=3215),
    "WellFormedAfterJoin": project(update(blocks(text("\ud83d"), text("\ude00")),
                                          args=BIG_ARGS), max_bytes=3215),
    "BoundedKeepsDetails": project(update({"content": [text("x")], "details": {"exit": 0}},
                                          args=BIG_ARGS), max_bytes=3215),
    "BoundedFormAsSortedMap": project(update(blocks(text("x")), args=BIG_ARGS), max_bytes=3215),
    "MaximalStopsOneShort": project(update(LONG_TEXT, call_id="c", name="t"), max_bytes=3215),
    "MaximalIdCostInCodePoints": project(update(LONG_TEXT, call_id="\u0000" * 10),
                                         max_bytes=3215),
    "MaximalCostUnescaped": project(update(blocks(text("\u0000" * 2000))), max_bytes=3215),
    # project: canonical serialization
    "EscapesLineSeparators": project(nested(note="a\u2028b")),
    "HtmlSafeEscapes": project(nested(note="<b>&</b>")),
    "NonAsciiEscaped": project(nested(note="é\U0001F600")),
    "UppercaseHexEscapes": project(nested(note="\u001f")),
    "NoShortControlEscapes": project(nested(note="a\nb\tc")),
    "LoneSurrogatesEscaped": project(nested(note="\ud800")),
    "MemberNamesNotWellFormed": project(nested(details={"\ud800": 1})),
    "DuplicateNamesKeepFirstValue": project(nested(details=dict([("\ud800", 1), ("\udc00", 2)]))),
    "PythonFloatRepr": project(nested(value=30.0)),
    "NegativeZeroWritten": project(nested(value=-0.0)),
    "IntegralDoublesExact": project(nested(value=float(2**60))),
    "ArrayIndexByIsdigit": project(nested(details={"b": 1, "01": 2})),
    "ArrayIndexBoundInclusive": project(nested(details={"b": 1, "4294967295": 2})),
    "InsertionOrderOnly": project(nested(details={"b": 1, "2": 2})),
    # project: numbers (§7)
    "LargeIntegersWritten": project(nested(seed=2**60)),
    "SafeIntegerOffByOne": project(nested(seed=2**53)),
    "LargeDoublesRefused": project(nested(value=1e20)),
    "DroppedMembersChecked": project({"type": "turn_end",
                                      "message": {"role": "assistant", "content": [],
                                                  "usage": {"tokens": 2**60}},
                                      "toolResults": []}),
    "BoundedNumbersUnchecked": project(update(LONG_TEXT, args={"seed": 2**60}), max_bytes=3215),
}

# -- settle (selection.md §5) ------------------------------------------------------------------


def logged(kind: str, data: dict[str, Any], seq: int = 0) -> dict[str, Any]:
    """A session event with the envelope the schema asks for (integer seq and time)."""
    return {"type": kind, "seq": seq, "time": 1767225600000 + seq, "data": data}


def turn_start(turn: Any) -> dict[str, Any]:
    return logged("turn/start", {"turn": turn})


def step_start(turn: Any) -> dict[str, Any]:
    return logged("step/start", {"turn": turn, "step": 0})


REASONS: dict[str, dict[str, Any]] = {
    "aborted": {"kind": "aborted", "reason": {"kind": "user"}},
    "error": {"kind": "error", "error": {"message": "provider failed", "code": "E500"}},
}


def turn_end(turn: Any, kind: str) -> dict[str, Any]:
    return logged("turn/end", {"turn": turn, "reason": REASONS.get(kind, {"kind": kind})})


def splice(removed: int = 1, canceled: bool = False, inserted: list[Any] | None = None,
           target: str = "next-turn") -> dict[str, Any]:
    data: dict[str, Any] = {"target": target, "start": 0,
                            "inserted": [] if inserted is None else inserted}
    if removed:
        data["removedCount"] = removed
    if canceled:
        data["outcome"] = "canceled"
    return logged("agent/inbox/spliced", data)


USER = {"id": "msg_u1", "role": "user", "content": [text("follow up")],
        "source": {"kind": "user"}}


def said(*content: dict[str, Any], **source: Any) -> dict[str, Any]:
    return logged("assistant/message",
                  {"turn": 1, "step": 0,
                   "message": {"id": "msg_a1", "role": "assistant", "content": list(content),
                               "source": {"kind": "model", "provider": "p", "model": "m",
                                          **source}}})


def renumbered(events: list[dict[str, Any]], seqs: list[int],
               times: list[int]) -> list[dict[str, Any]]:
    """The events with these seq numbers and times (the log order stays the list order)."""
    return [{**e, "seq": seq, "time": 1767225600000 + time}
            for e, seq, time in zip(events, seqs, times, strict=True)]


TWO_TURNS = [*(turn_start(1), step_start(1)), turn_end(1, "max-tokens"), turn_start(2),
             splice(), turn_end(2, "blocked")]


def streamed(value: str) -> dict[str, Any]:
    return logged("assistant/chunk",
                  {"turn": 1, "step": 0, "chunk": {"type": "text-delta", "index": 0,
                                                   "text": value}})


def one_shot(*events: dict[str, Any], cancelled: bool = False,
             **extra: Any) -> tuple[str, Any]:
    return "settle", {"events": list(events), "cancelled": cancelled, **extra}


def continuable(*events: dict[str, Any]) -> tuple[str, Any]:
    return "settle", {"events": list(events), "mode": "continuable"}


STEPPED = (turn_start(1), step_start(1))

# -- budget (budget.md) ------------------------------------------------------------------------


def task(status: str = "completed", body: str = "t", **heavy: Any) -> dict[str, Any]:
    return {"id": "call_1", "agent": "worker", "status": status, "task": body, **heavy}


def details(*records: dict[str, Any], shared: int = 0, task_floor: int = 64,
            output_floor: int = 128, diagnostic_floor: int = 64) -> tuple[str, Any]:
    return "details", {"records": list(records), "sharedBytes": shared,
                       "taskFloorBytes": task_floor, "outputFloorBytes": output_floor,
                       "diagnosticFloorBytes": diagnostic_floor}


def roster(*records: dict[str, Any], max_bytes: int = 49152) -> tuple[str, Any]:
    return "roster", {"records": list(records), "maxBytes": max_bytes}


def live_size(*records: dict[str, Any]) -> int:
    """The size of the roster of all these records, by the clean port."""
    port = FullPort()
    return port.bytes_of([port.live_record(r) for r in records])


def row(n: int) -> dict[str, Any]:
    return {"id": f"call_{n}", "agent": "worker", "status": "running", "task": f"task {n}"}


def lane(*updates: tuple[list[int], int]) -> tuple[str, Any]:
    rosters = []
    for rows, omitted in updates:
        update: dict[str, Any] = {"results": [row(n) for n in rows]}
        if omitted:
            update["omittedResults"] = omitted
        rosters.append(update)
    return "lane", {"updates": rosters}


def timeline(*events: tuple[int, str, Any], interval: int = 100) -> tuple[str, Any]:
    """(at, kind, state) changes and (at, "return", None) for the return."""
    return "publish", {"intervalMs": interval,
                       "events": [{"at": at, "kind": kind} if kind == "return"
                                  else {"at": at, "kind": kind, "state": state}
                                  for at, kind, state in events]}


FULL_WITNESSES: dict[str, tuple[str, Any]] = {
    # settle: the account of consumed work
    "LastTurnEndDecides": one_shot(*STEPPED, turn_end(1, "max-tokens"), turn_start(2),
                                   turn_end(2, "completed")),
    "ClaimedCompletedAccounts": one_shot(*STEPPED, turn_end(1, "max-tokens"), turn_start(2),
                                         splice(), turn_end(2, "completed")),
    "TurnEndUsesOpenTurn": one_shot(turn_start(1), step_start(2), turn_end(2, "max-tokens")),
    "TurnStartClearsMarks": one_shot(step_start(1), turn_start(1), turn_end(1, "max-tokens")),
    "StepMarksOnlyOpenTurn": one_shot(step_start(1), turn_end(1, "max-tokens")),
    "SteppedTurnDropsClaim": one_shot(turn_start(1), splice(), step_start(1),
                                      turn_end(1, "completed"), turn_end(1, "blocked")),
    "TurnEndLeavesTurnOpen": one_shot(*STEPPED, turn_end(1, "completed"), splice(),
                                      turn_end(1, "blocked")),
    "TurnZeroNeverOpen": one_shot(turn_start(0), splice(), turn_end(0, "blocked")),
    "MinusOneMeansNoTurn": one_shot(turn_start(-1), splice(), turn_end(-1, "blocked")),
    "TurnKeyedByLiteral": one_shot(turn_start(1), step_start(1.0), turn_end(1, "max-tokens")),
    "InsertionIsClaim": one_shot(turn_start(1), splice(removed=0, inserted=[USER]),
                                 turn_end(1, "blocked")),
    "ReplacementDropsWork": continuable(*STEPPED, turn_end(1, "completed"),
                                        splice(canceled=True, inserted=[USER])),
    "DroppedNeverCleared": continuable(splice(canceled=True), *STEPPED,
                                       turn_end(1, "completed")),
    "DroppedClearedByAnyTurnEnd": continuable(*STEPPED, turn_end(1, "completed"),
                                              splice(canceled=True), turn_start(2),
                                              turn_end(2, "completed")),
    "EventsSortedByTime": one_shot(*renumbered(TWO_TURNS, [0, 1, 2, 3, 4, 5],
                                               [5, 6, 7, 8, 9, 1])),
    "EventsSortedBySeq": one_shot(*renumbered(TWO_TURNS, [1, 2, 3, 4, 5, 0],
                                              [0, 1, 2, 3, 4, 5])),
    "MessageMarksStep": one_shot(turn_start(1), splice(), said(text("done")),
                                 turn_end(1, "completed")),
    "ToolCallMarksStep": one_shot(turn_start(1),
                                  logged("tool/call", {"turn": 1, "step": 0, "callId": "call_1",
                                                       "name": "bash", "arguments": "{"}),
                                  turn_end(1, "max-tokens")),
    "IgnorableEventsSkipped": one_shot(turn_start(1), {**step_start(1), "ignorable": True},
                                       turn_end(1, "max-tokens")),
    "ClaimsOnlyNextTurnTarget": one_shot(turn_start(1), splice(target="next-step"),
                                         turn_end(1, "blocked")),
    "DroppedByNetRemoval": continuable(*STEPPED, turn_end(1, "completed"),
                                       splice(removed=2, canceled=True, inserted=[USER])),
    "MessageWithExtraSourceSkipped": one_shot(said(text("done"), region="eu")),
    # settle: the two paths
    "OneShotInterruptedAborted": one_shot(*STEPPED, turn_end(1, "interrupted")),
    "OneShotReadsDropped": one_shot(*STEPPED, turn_end(1, "completed"),
                                    splice(canceled=True)),
    "BlockedIsError": one_shot(*STEPPED, turn_end(1, "blocked")),
    "CancelledOverridesCompleted": one_shot(*STEPPED, turn_end(1, "completed"),
                                            cancelled=True),
    "CancelledOnlyWithoutEnd": one_shot(*STEPPED, turn_end(1, "max-tokens"), cancelled=True),
    "ContinuableNoEndError": continuable(),
    "ContinuableUnknownKindCompleted": continuable(*STEPPED, turn_end(1, "paused")),
    "ContinuableDroppedOverridesFailure": continuable(*STEPPED, turn_end(1, "error"),
                                                      splice(canceled=True)),
    "ModePresentMeansContinuable": one_shot(mode="one-shot"),
    # settle: the answer
    "LastAssistantEmptyList": one_shot(),
    "ToolResultOnContinuable": continuable(),
    "EmptyDiagnosticDropped": one_shot(diagnostic=""),
    "DiagnosticAfterPartial": one_shot(streamed("half"), diagnostic="quota"),
    "ReasoningInToolText": one_shot(said({"type": "reasoning", "text": "plan "}, text("answer"))),
    "PartialLineWithoutText": one_shot(said({"type": "reasoning", "text": "plan"})),
    # details
    "DetailsSpreadsRecord": details(task(messages=[{"role": "user", "content": "hi"}])),
    "TruncatedEmptyListWritten": details(task(output="done")),
    "TruncatedInClaimOrder": details(task(body="t" * 200, output="o" * 300)),
    "AgentNotClipped": details({**task(), "agent": "a" * 300}),
    "IdentityClippedInUtf16": details({**task(), "id": "\U0001F600" * 300}),
    "ErrorMessageKeptAsTail": details(task("failed", errorMessage="Error: " + "e" * 200)),
    "ZeroAllowanceKeepsWhole": details(task(output="o" * 300), output_floor=0),
    "CutCountsCodePoints": details(task(output="é" * 200)),
    "CutCostUnescaped": details(task(output="\u0000" * 100)),
    "CutExclusiveAllowance": details(task(output="o" * 128)),
    "HeavyFieldsNotWellFormed": details(task(output="ok \ud800")),
    "DiagnosticFloorPerField": details(task("failed", errorMessage="e" * 10, stderr="s" * 100)),
    "UnusedFloorToShare": details(task(), task(output="o" * 300)),
    "FirstComeShare": details(task(output="a" * 300), task(output="b" * 300), shared=200),
    "ShareFixedAtStart": details(task(output="a"), task(output="b" * 500), shared=200),
    "ShareRoundedUp": details(task(output="a" * 300), task(output="b" * 300), shared=3),
    "ShareDividesByRecordsAfter": details(task(output="a" * 300), task(output="b" * 300),
                                          shared=200),
    "FloorsChargedToBudget": details(task(output="a" * 300), task(output="b" * 300),
                                     shared=100),
    "FailureClaimsOutputFirst": details(task("failed", output="o" * 300,
                                             errorMessage="e" * 300), shared=100),
    "TaskClaimsFirst": details(task(body="t" * 300, output="o" * 300), shared=100),
    "StderrBeforeErrorMessage": details(task("failed", errorMessage="e" * 50,
                                             stderr="s" * 300)),
    "FailureByErrorMessage": details(task(output="o" * 300, errorMessage="e" * 300),
                                     shared=100),
    "FloorOrShareNotBoth": details(task(output="o" * 300), shared=100),
    "EmptyCutFieldDropped": details(task(output="")),
    # roster
    "RosterSkipsOversized": roster({**task(), "id": "a" * 300}, task(), max_bytes=150),
    "RosterExactFitDropped": roster(task(output="done"),
                                    max_bytes=live_size(task(output="done"))),
    "RosterSizeWithoutBrackets": roster(task(output="done"),
                                        max_bytes=live_size(task(output="done")) - 1),
    "RosterSizeInCodePoints": roster(task(body="é" * 30),
                                     max_bytes=live_size(task(body="é" * 30)) - 30),
    "RosterZeroCountWritten": roster(task()),
    "LiveRecordKeepsError": roster(task("failed", errorMessage="exit 1")),
    "LiveFloorsSwapped": roster(task(body="t" * 100)),
    "LiveOutputFromHead": roster(task(output="a" * 100 + "b" * 100)),
    # lane
    "LaneReplacesRoster": lane(([0, 1], 0), ([0], 1)),
    "LaneNotCapped": lane(([0, 1, 2], 0), ([0], 0)),
    "LaneKeepsUpdateCount": lane(([0, 1, 2], 0), ([0], 2)),
    "LaneCountClearedAfterMerge": lane(([0], 0), ([0], 5)),
    "LaneTotalNeverShrinks": lane(([0, 1], 0), ([0], 0)),
    "LaneTotalFromMerged": lane(([0, 1, 2], 0), ([0], 2)),
    "LaneStatesAliased": lane(([0], 0), ([1, 2], 0)),
    # publish
    "StatusPublishedAtOnce": timeline((0, "update", 1), (10, "status", 2), (500, "return", None)),
    "NoTerminalFlush": timeline((0, "update", 1), (10, "update", 2), (20, "return", None)),
    "LateCallbacksPublished": timeline((0, "update", 1), (10, "return", None),
                                       (500, "update", 2)),
    "FlushAtWindowEnd": timeline((0, "update", 1), (10, "update", 2), (20, "return", None)),
    "NoTrailingEdge": timeline((0, "update", 1), (10, "update", 2), (300, "update", 3),
                               (300, "return", None)),
    "SameInstantNotCoalesced": timeline((0, "update", 1), (0, "update", 2),
                                        (500, "return", None)),
    "DebouncedWindow": timeline((0, "update", 1), (50, "update", 2), (120, "update", 3),
                                (500, "return", None)),
    "TerminalAlwaysRepublished": timeline((0, "update", 1), (10, "return", None)),
    "TrailingBeatsChangeAtBoundary": timeline((0, "update", 1), (50, "update", 2),
                                              (100, "update", 3), (500, "return", None)),
}

# -- judging -------------------------------------------------------------------------------------

ALL_BUGS: list[type] = [*BUGS, *FULL_BUGS]
BY_NAME = {bug.__name__: bug for bug in ALL_BUGS}
ALL_WITNESSES = {**WITNESSES, **FULL_WITNESSES}


def answer(impl: Any, op: str, input: Any) -> tuple[str, Any]:
    """What the harness would record: the output copied through JSON, or errored."""
    try:
        output = impl.run(op, copy.deepcopy(input))
    except NotImplementedError:
        return ("skipped", None)
    except Exception as error:  # any other exception is "errored" (protocol.md §8)
        return ("errored", type(error).__name__)
    return ("output", json.loads(json.dumps(output)))


def same(a: tuple[str, Any], b: tuple[str, Any]) -> bool:
    """Equal answers; two errors are equal whatever their wording."""
    if a[0] == "errored" or b[0] == "errored":
        return a[0] == b[0]
    return a == b


def strategy(bug: type) -> str:
    return "maximal" if issubclass(bug, MaximalPort) else "halving"


def clean_port(bug: type) -> Port:
    """The port the bug was planted in, unplanted."""
    if issubclass(bug, MaximalPort):
        return MaximalPort()
    return FullPort() if issubclass(bug, FullPort) else Port()


def test_every_bug_has_a_witness_of_its_op() -> None:
    assert len(BUGS) >= 30
    assert len(FULL_BUGS) >= 30
    assert set(ALL_WITNESSES) == set(BY_NAME), set(ALL_WITNESSES) ^ set(BY_NAME)
    for name, (op, _) in ALL_WITNESSES.items():
        assert op == getattr(BY_NAME[name], "OP", None), name


def test_every_bug_names_a_rule() -> None:
    for bug in ALL_BUGS:
        doc = bug.__doc__ or ""
        assert "§" in doc, bug.__name__
        assert "rule `" in doc, bug.__name__


@pytest.mark.parametrize("name", sorted(FULL_WITNESSES))
def test_settle_and_budget_witnesses_are_valid_input(name: str) -> None:
    """The harness sends only schema-valid input: a witness outside the schema proves nothing."""
    op, input = FULL_WITNESSES[name]
    errors = [e.message for e in validator_for(f"op-{op}.json#/$defs/input").iter_errors(input)]
    assert not errors, errors


@pytest.mark.parametrize("name", sorted(ALL_WITNESSES))
def test_bug_differs_from_the_reference(name: str) -> None:
    bug = BY_NAME[name]
    op, input = ALL_WITNESSES[name]
    expected = answer(Reference(strategy(bug)), op, input)
    got = answer(bug(), op, input)
    assert not same(got, expected), f"{name} answers like the reference: {got}"


@pytest.mark.parametrize("name", sorted(ALL_WITNESSES))
def test_port_agrees_with_the_reference(name: str) -> None:
    bug = BY_NAME[name]
    op, input = ALL_WITNESSES[name]
    expected = answer(Reference(strategy(bug)), op, input)
    got = answer(clean_port(bug), op, input)
    if expected[0] == "errored":
        assert got[0] == "errored", got
    else:
        assert got == expected  # project lines compared as exact strings: the bytes agree


def test_witnesses_exercise_both_errored_and_output() -> None:
    outcomes = {answer(Reference(strategy(BY_NAME[n])), *WITNESSES[n])[0] for n in WITNESSES}
    assert outcomes == {"output", "errored"}
