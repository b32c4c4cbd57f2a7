"""Every blind bug is real: on one hand-written input its answer differs from the reference's,
and the unplanted port answers that input exactly like the reference."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from eventproof.reference import Reference

from .bugs import BUGS
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

# -- judging -------------------------------------------------------------------------------------

BY_NAME = {bug.__name__: bug for bug in BUGS}


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


def test_every_bug_has_a_witness_of_its_op() -> None:
    assert len(BUGS) >= 30
    assert set(WITNESSES) == set(BY_NAME), set(WITNESSES) ^ set(BY_NAME)
    for name, (op, _) in WITNESSES.items():
        assert op == getattr(BY_NAME[name], "OP", None), name


def test_every_bug_names_a_rule() -> None:
    for bug in BUGS:
        doc = bug.__doc__ or ""
        assert "§" in doc, bug.__name__
        assert "rule `" in doc, bug.__name__


@pytest.mark.parametrize("name", sorted(WITNESSES))
def test_bug_differs_from_the_reference(name: str) -> None:
    bug = BY_NAME[name]
    op, input = WITNESSES[name]
    expected = answer(Reference(strategy(bug)), op, input)
    got = answer(bug(), op, input)
    assert not same(got, expected), f"{name} answers like the reference: {got}"


@pytest.mark.parametrize("name", sorted(WITNESSES))
def test_port_agrees_with_the_reference(name: str) -> None:
    bug = BY_NAME[name]
    op, input = WITNESSES[name]
    port = MaximalPort() if strategy(bug) == "maximal" else Port()
    expected = answer(Reference(strategy(bug)), op, input)
    got = answer(port, op, input)
    if expected[0] == "errored":
        assert got[0] == "errored", got
    else:
        assert got == expected  # project lines compared as exact strings: the bytes agree


def test_witnesses_exercise_both_errored_and_output() -> None:
    outcomes = {answer(Reference(strategy(BY_NAME[n])), *WITNESSES[n])[0] for n in WITNESSES}
    assert outcomes == {"output", "errored"}
