"""The reference's selection profile: rule, fold and result contract (spec/selection.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from eventproof.reference._errors import InvalidInput
from eventproof.reference._implementation import Reference
from eventproof.reference._selection import OutputFold, fold_results, select_output
from eventproof.reference._settle import (
    HEADLINES,
    apply_cancellation,
    headline_for,
    settle_run,
    stop_reason_of,
    tool_result_text,
)
from hypothesis import given
from hypothesis import strategies as st

SPEC = Path(__file__).resolve().parents[2] / "spec" / "selection.md"

# -- small builders -------------------------------------------------------------------------------


def event(type_: str, data: Any, seq: int = 0, **extra: Any) -> dict[str, Any]:
    return {"type": type_, "seq": seq, "time": "2025-01-01T00:00:00Z", "data": data, **extra}


def message(*content: Any, **data: Any) -> dict[str, Any]:
    return event("assistant/message",
                 {"message": {"role": "assistant", "content": list(content)}, **data})


def usage_only() -> dict[str, Any]:
    """The empty message the loop logs after a max-tokens step whose tool calls were dropped."""
    return message(usage={"inputTokens": 900, "outputTokens": 4096})


def chunk(**fields: Any) -> dict[str, Any]:
    return event("assistant/chunk", {"chunk": fields})


def delta(text: str, index: int = 0) -> dict[str, Any]:
    return chunk(type="text-delta", index=index, text=text)


def turn_end(kind: str, turn: int = 1) -> dict[str, Any]:
    return event("turn/end", {"turn": turn, "reason": {"kind": kind}})


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def reasoning(value: str) -> dict[str, Any]:
    return {"type": "reasoning", "text": value}


TOOL_CALL = {"type": "tool-call", "id": "call_1", "name": "grep", "arguments": {"q": "x"}}
TOOL_RESULT = {"type": "tool-result", "toolCallId": "call_1", "content": [text("3 hits")]}
IMAGE = {"type": "image", "attachment": {"mediaType": "image/png", "data": "AA=="}}


def raises_invalid(call: Any, path: str, fix_words: str) -> InvalidInput:
    """Run ``call``, expecting InvalidInput at ``path`` whose message names the path and the fix."""
    with pytest.raises(InvalidInput) as caught:
        call()
    error = caught.value
    assert error.path == path
    assert str(error).startswith(path + ":")
    assert fix_words in error.fix
    assert error.fix in str(error)
    assert "selection.md §" in str(error)
    return error


# -- §3 selection ---------------------------------------------------------------------------------


def test_empty_log_selects_nothing() -> None:
    """A log without events has no output (§3.3)."""
    assert select_output([]) is None


def test_last_non_empty_message_is_returned_as_given() -> None:
    """The last non-empty message's content comes back block for block, unchanged (§3.1)."""
    content = [reasoning("r"), text("a"), TOOL_CALL, {"type": "future-block", "x": 1}]
    log = [message(text("earlier")), message(*content)]
    output = select_output(log)
    assert output == content
    assert output is not None
    assert all(got is want for got, want in zip(output, content, strict=True))


def test_later_non_empty_message_replaces_earlier() -> None:
    """Of two non-empty messages the later one wins (§3.1)."""
    assert select_output([message(text("first")), message(text("second"))]) == [text("second")]


def test_empty_terminal_message_after_max_tokens_keeps_earlier_answer() -> None:
    """The usage-only message after a max-tokens step never hides the earlier answer (§3.2)."""
    log = [
        event("turn/start", {"turn": 1}),
        delta("Found 3 call sites."),
        message(text("Found 3 call sites.")),
        chunk(type="tool-call-delta", index=0, id="call_7", name="edit", argumentsDelta="{"),
        usage_only(),
        turn_end("max-tokens"),
    ]
    assert select_output(log) == [text("Found 3 call sites.")]


def test_empty_message_never_hides_streamed_text() -> None:
    """Streamed text survives an empty message before or after it (§3.2, §3.3)."""
    assert select_output([delta("Hel"), usage_only(), delta("lo")]) == [text("Hello")]


def test_only_empty_messages_select_nothing() -> None:
    """Empty-content messages alone are no output: null, never [] (§3.2)."""
    assert select_output([usage_only(), message()]) is None


def test_cancelled_child_with_only_chunk_text() -> None:
    """A child cancelled mid-stream reports its streamed text deltas, joined in log order (§3.3)."""
    log = [delta("All 12 "), delta("tests ", index=3), delta("pass", index=1)]
    assert select_output(log) == [text("All 12 tests pass")]


def test_empty_text_deltas_select_nothing() -> None:
    """Text deltas that join to "" are no output (§3.3)."""
    assert select_output([delta(""), delta("")]) is None


@pytest.mark.parametrize("order", ["text-first", "text-after"])
def test_reasoning_only_message_beats_streamed_text(order: str) -> None:
    """Content length decides: a reasoning-only message wins over streamed text (§3.1)."""
    only_reasoning = message(reasoning("The user wants a plan."))
    log = ([delta("visible"), only_reasoning] if order == "text-first"
           else [only_reasoning, delta("visible")])
    assert select_output(log) == [reasoning("The user wants a plan.")]


def test_tool_call_only_message_beats_streamed_text() -> None:
    """A message holding only a tool call is non-empty and wins over streamed text (§3.1)."""
    assert select_output([delta("Let me look"), message(TOOL_CALL)]) == [TOOL_CALL]


def test_non_empty_message_beats_later_streamed_text() -> None:
    """A complete message wins over text streamed after it, e.g. before a cancel (§3.1)."""
    log = [message(text("Step 1 done.")), delta("Step 2 is half")]
    assert select_output(log) == [text("Step 1 done.")]


def test_interrupted_message_counts_like_any_other() -> None:
    """A message marked interrupted is selected like any non-empty message (§3.1)."""
    log = [message(text("complete")), message(text("Half an ans"), interrupted=True)]
    assert select_output(log) == [text("Half an ans")]


def test_what_never_contributes() -> None:
    """Reasoning and tool-call deltas, other chunks, tool events, user messages and unknown
    types never contribute (§3.4, §2.6)."""
    log = [
        chunk(type="reasoning-delta", index=0, text="thinking"),
        chunk(type="tool-call-delta", index=1, id="call_1", name="grep", argumentsDelta="{}"),
        chunk(type="block-start", index=2, blockType="text"),
        chunk(type="block-end", index=2, block=text("from a block end")),
        chunk(type="usage", usage={"outputTokens": 3}),
        chunk(type="finish", reason={"kind": "stop"}),
        chunk(type="citation-delta", index=0, text="an unknown chunk type"),
        event("tool/result", {"content": TOOL_RESULT}),
        event("tool/call", {"content": TOOL_CALL}),
        event("user/message", {"message": {"role": "user", "content": [text("question")]}}),
        event("turn/start", {"turn": 1}),
        event("step/start", {"step": 0}),
        event("step/end", {"step": 0}),
        turn_end("completed"),
        event("subagent/heartbeat", {"alive": True}),
        event("assistant/message/v2", {"message": {"role": "assistant",
                                                   "content": [text("unknown type")]}}),
    ]
    assert select_output(log) is None


def test_extra_keys_are_ignored() -> None:
    """Members beyond the known ones change nothing (§2.1)."""
    log = [
        event("assistant/chunk",
              {"chunk": {"type": "text-delta", "index": 0, "text": "a", "extra": 1}, "x": 2},
              source="replay"),
    ]
    assert select_output(log) == [text("a")]


def test_unread_values_are_not_checked() -> None:
    """Values the rule never reads do not stop it, even when the schema forbids them (§6)."""
    log = [
        chunk(type="reasoning-delta", index=0, text=5),
        {"type": "some/unknown"},
        event("user/message", None),
        message(text("ok"), interrupted="not a boolean"),
    ]
    assert select_output(log) == [text("ok")]


# -- §4 fold --------------------------------------------------------------------------------------


def test_push_text_empty_is_a_no_op() -> None:
    """push_text("") changes nothing, before and after other text (§4.1)."""
    fold = OutputFold()
    fold.push_text("")
    assert fold.collect() is None
    fold.push_text("Hel")
    fold.push_text("")
    assert fold.collect() == [text("Hel")]


def test_push_text_equals_pushing_a_text_delta() -> None:
    """push_text(t) has exactly the effect of a text-delta chunk with text t (§4.1)."""
    by_text, by_event = OutputFold(), OutputFold()
    for piece in ("a", "", "bc"):
        by_text.push_text(piece)
        by_event.push(delta(piece))
        assert by_text.collect() == by_event.collect()


def test_collect_does_not_change_the_fold() -> None:
    """collect() is an observation: asking twice gives the same answer, and mutating an answer
    does not reach the fold (§4.1)."""
    fold = OutputFold()
    fold.push(message(text("a")))
    first = fold.collect()
    assert first is not None
    first.append(text("mutated"))
    assert fold.collect() == [text("a")]


def test_fold_results_shape_and_values() -> None:
    """fold answers len(pushes)+1 collect() results, the first before any push (§4.1)."""
    pushes = [
        {"text": "Hel"},
        {"text": ""},
        {"event": usage_only()},
        {"event": message(text("Hello."))},
        {"text": " More"},
    ]
    hel, hello = [text("Hel")], [text("Hello.")]
    assert fold_results(pushes) == [None, hel, hel, hel, hello, hello]
    assert fold_results([]) == [None]


def test_fold_content_path_names_the_selected_message() -> None:
    """The fold remembers where the selected content sat, for error messages (§6)."""
    fold = OutputFold()
    assert fold.content_path is None
    fold.push(message(text("a")), path="$.events[4]")
    assert fold.content_path == "$.events[4].data.message.content"


# A small local strategy: logs drawn from the shapes that matter to §3 (§3.1-§3.4).
_texts = st.sampled_from(["", "a", "bc", "é", "\n", "😀"])
_blocks = st.one_of(
    st.builds(text, _texts), st.builds(reasoning, _texts), st.just(TOOL_CALL), st.just(IMAGE),
)
_events = st.one_of(
    st.builds(lambda content, cut: message(*content, **({"interrupted": True} if cut else {})),
              st.lists(_blocks, max_size=2), st.booleans()),
    st.builds(delta, _texts, st.integers(0, 3)),
    st.builds(lambda t: chunk(type="reasoning-delta", index=0, text=t), _texts),
    st.just(chunk(type="tool-call-delta", index=1, id="call_1", argumentsDelta="{")),
    st.just(event("tool/result", {"content": TOOL_RESULT})),
    st.builds(turn_end, st.sampled_from(["completed", "max-tokens", "blocked", "x"])),
    st.just(event("subagent/heartbeat", {})),
)
_pushes = st.lists(
    st.one_of(st.builds(lambda e: {"event": e}, _events), st.builds(lambda t: {"text": t}, _texts)),
    max_size=8,
)


def _as_event(push: dict[str, Any]) -> dict[str, Any]:
    """The session event a push stands for: a text push is a text-delta chunk (§4.1)."""
    return push["event"] if "event" in push else delta(push["text"])


def _spec_literal(events: list[dict[str, Any]]) -> list[Any] | None:
    """§3 restated as literally as possible, independent of the reference's fold."""
    non_empty = [e["data"]["message"]["content"] for e in events
                 if e["type"] == "assistant/message" and e["data"]["message"]["content"]]
    if non_empty:
        return list(non_empty[-1])
    chunks = [e["data"]["chunk"] for e in events if e["type"] == "assistant/chunk"]
    joined = "".join(c["text"] for c in chunks if c["type"] == "text-delta")
    return [text(joined)] if joined else None


@given(_pushes)
def test_fold_equals_batch_at_every_prefix(pushes: list[dict[str, Any]]) -> None:
    """After every push, the fold's answer equals the batch selection of that prefix (§4.2)."""
    results = fold_results(pushes)
    assert len(results) == len(pushes) + 1
    for k, result in enumerate(results):
        assert result == select_output([_as_event(p) for p in pushes[:k]])


@given(st.lists(_events, max_size=8))
def test_selection_matches_the_rule_as_written(events: list[dict[str, Any]]) -> None:
    """The reference agrees with a literal restatement of §3 on generated logs."""
    assert select_output(events) == _spec_literal(events)


# -- §5 result contract ---------------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "reason"), [
    ("completed", "completed"),
    ("max-tokens", "max-tokens"),
    ("aborted", "aborted"),
    ("blocked", "refusal"),
    ("error", "error"),
    ("interrupted", "error"),
    ("a-kind-from-the-future", "error"),
])
def test_stop_reason_mapping(kind: str, reason: str) -> None:
    """Each turn/end kind maps to its stop reason, in result and end alike (§5.1)."""
    settled = settle_run([turn_end(kind)], cancelled=False)
    assert settled["result"]["stopReason"] == reason
    assert settled["end"]["stopReason"] == reason
    assert stop_reason_of([turn_end(kind)]) == reason


def test_no_turn_end_is_error() -> None:
    """A log that never ended a turn settles as error (§5.1)."""
    assert stop_reason_of([message(text("a"))]) == "error"
    assert settle_run([], cancelled=False)["result"]["stopReason"] == "error"


@pytest.mark.parametrize(("kinds", "reason"), [
    (["completed", "error"], "error"),
    (["error", "completed"], "completed"),
    (["max-tokens", "blocked"], "refusal"),
])
def test_last_turn_end_decides(kinds: list[str], reason: str) -> None:
    """Only the last turn/end counts (§5.1)."""
    log = [turn_end(kind, turn) for turn, kind in enumerate(kinds)]
    assert stop_reason_of(log) == reason


@pytest.mark.parametrize("kind", ["max-tokens", "aborted", "blocked", "error", "interrupted"])
def test_cancelled_run_that_did_not_complete_is_aborted(kind: str) -> None:
    """Cancellation turns every stop reason but completed into aborted (§5.2)."""
    settled = settle_run([turn_end(kind)], cancelled=True)
    assert settled["result"]["stopReason"] == "aborted"
    assert settled["toolResult"]["text"] == "Error: subagent run was cancelled"


def test_cancelled_without_turn_end_is_aborted() -> None:
    """A cancelled run that never ended a turn is aborted, not error (§5.2)."""
    assert settle_run([delta("x")], cancelled=True)["end"]["stopReason"] == "aborted"


def test_cancelled_completed_stays_completed() -> None:
    """A cancel that arrives after the run completed changes nothing (§5.2)."""
    log = [message(text("Done.")), turn_end("completed")]
    assert settle_run(log, cancelled=True) == settle_run(log, cancelled=False)
    assert settle_run(log, cancelled=True)["toolResult"] == {"isError": False, "text": "Done."}
    assert apply_cancellation("completed", cancelled=True) == "completed"
    assert apply_cancellation("error", cancelled=False) == "error"


def test_output_and_last_assistant_message_share_the_selection() -> None:
    """result.output and end.lastAssistantMessage are both the selection (§5.3, §5.4)."""
    log = [message(text("a"), reasoning("r")), usage_only(), turn_end("max-tokens")]
    settled = settle_run(log, cancelled=False)
    assert settled["result"]["output"] == [text("a"), reasoning("r")]
    assert settled["end"]["lastAssistantMessage"] == [text("a"), reasoning("r")]


def test_absent_last_assistant_message_without_selection() -> None:
    """Without a selection, output is [] and lastAssistantMessage is absent, not [] (§5.3, §5.4)."""
    settled = settle_run([usage_only(), turn_end("completed")], cancelled=False)
    assert settled == {
        "result": {"output": [], "stopReason": "completed"},
        "end": {"stopReason": "completed"},
        "toolResult": {"isError": False, "text": ""},
    }
    assert "lastAssistantMessage" not in settled["end"]


def test_completed_tool_result_joins_text_blocks_only() -> None:
    """A completed run's tool text is its text blocks joined with "", nothing else (§5.5)."""
    log = [message(reasoning("r"), text("Patched "), IMAGE, TOOL_CALL, text("both.")),
           turn_end("completed")]
    settled = settle_run(log, cancelled=False, diagnostic="ignored when completed")
    assert settled["toolResult"] == {"isError": False, "text": "Patched both."}


@pytest.mark.parametrize(("kind", "headline"), [
    ("aborted", "subagent run was cancelled"),
    ("error", "subagent run failed"),
    ("max-tokens", "subagent run hit its token limit before finishing"),
    ("blocked", "subagent declined the task"),
])
def test_headline_per_stop_reason(kind: str, headline: str) -> None:
    """Each non-completed stop reason has its fixed headline (§5.5)."""
    settled = settle_run([turn_end(kind)], cancelled=False)
    assert settled["toolResult"] == {"isError": True, "text": "Error: " + headline}


def test_reserved_headline_names_the_reason() -> None:
    """A stop reason without a headline gets the reserved form naming it (§5.5)."""
    assert headline_for("paused") == "subagent run ended abnormally (paused)"
    assert set(HEADLINES) == {"aborted", "error", "max-tokens", "refusal"}


@pytest.mark.parametrize(("diagnostic", "partial", "expected"), [
    (None, False, "Error: subagent run failed"),
    ("", False, "Error: subagent run failed"),
    ("boom", False, "Error: subagent run failed\nDiagnostic: boom"),
    (None, True, "Error: subagent run failed\nPartial output before the run ended:\nHel"),
    ("", True, "Error: subagent run failed\nPartial output before the run ended:\nHel"),
    ("boom", True,
     "Error: subagent run failed\nDiagnostic: boom\nPartial output before the run ended:\nHel"),
])
def test_error_text_lines(diagnostic: str | None, partial: bool, expected: str) -> None:
    """The diagnostic line appears only for a non-empty diagnostic, the partial-output line only
    for non-empty text, in that order (§5.5)."""
    log = [delta("Hel")] if partial else []
    settled = settle_run(log, cancelled=False, diagnostic=diagnostic)
    assert settled["toolResult"] == {"isError": True, "text": expected}


def test_reasoning_only_partial_output_adds_no_line() -> None:
    """Partial output without text blocks adds no partial-output line (§5.5)."""
    settled = settle_run([message(reasoning("r"))], cancelled=False)
    assert settled["toolResult"]["text"] == "Error: subagent run failed"
    assert settled["end"]["lastAssistantMessage"] == [reasoning("r")]


def test_tool_result_text_of_nothing_is_empty() -> None:
    """No selection gives the empty text (§5.5)."""
    assert tool_result_text(None) == ""
    assert tool_result_text([]) == ""


# -- the spec's worked examples -------------------------------------------------------------------

_EXAMPLE = re.compile(r"Input \(`(\w+)`\):\s*```json\n(.*?)```\s*Output:\s*```json\n(.*?)```", re.S)
_SPEC_EXAMPLES = _EXAMPLE.findall(SPEC.read_text("utf-8"))


def test_spec_has_worked_examples() -> None:
    """spec/selection.md carries worked examples for all three operations."""
    assert {op for op, _, _ in _SPEC_EXAMPLES} == {"select", "fold", "settle"}


@pytest.mark.parametrize(("op", "given_input", "stated_output"), _SPEC_EXAMPLES,
                         ids=[f"{op}-{n}" for n, (op, _, _) in enumerate(_SPEC_EXAMPLES)])
def test_spec_worked_example(op: str, given_input: str, stated_output: str) -> None:
    """The reference answers each worked example of spec/selection.md exactly as the spec states."""
    assert Reference().run(op, json.loads(given_input)) == json.loads(stated_output)


# -- §6 invalid input -----------------------------------------------------------------------------

_BAD_LOGS: list[tuple[Any, str, str]] = [
    ({"not": "a list"}, "$.events", "list"),
    ([message(text("a")), "event"], "$.events[1]", "object"),
    ([{"seq": 0, "data": {}}], "$.events[0].type", '"type"'),
    ([{"type": 7, "data": {}}], "$.events[0].type", '"type"'),
    ([event("assistant/message", None)], "$.events[0].data", '"data"'),
    ([event("assistant/message", {})], "$.events[0].data.message", '"message"'),
    ([event("assistant/message", {"message": {"role": "assistant", "content": "Done."}})],
     "$.events[0].data.message.content", "list"),
    ([event("assistant/message", {"message": {"role": "assistant"}})],
     "$.events[0].data.message.content", "usage-only"),
    ([delta("a"), event("assistant/chunk", {"chunk": "text-delta"})],
     "$.events[1].data.chunk", '"chunk"'),
    ([event("assistant/chunk", {"chunk": {"index": 0, "text": "a"}})],
     "$.events[0].data.chunk.type", '"type"'),
    ([event("assistant/chunk", {"chunk": {"type": "text-delta", "index": 0, "text": 5}})],
     "$.events[0].data.chunk.text", "text-delta"),
    ([event("assistant/chunk", {"chunk": {"type": "text-delta", "index": 0}})],
     "$.events[0].data.chunk.text", "text-delta"),
]


@pytest.mark.parametrize(("log", "path", "fix_words"), _BAD_LOGS,
                         ids=[f"{path}-{n}" for n, (_, path, _) in enumerate(_BAD_LOGS)])
def test_select_invalid_input_names_path_and_fix(log: Any, path: str, fix_words: str) -> None:
    """Each malformed value select reads raises InvalidInput naming its path and the fix (§6)."""
    error = raises_invalid(lambda: select_output(log), path, fix_words)
    assert error.reason.startswith("is not")


@pytest.mark.parametrize(("log", "path", "fix_words"), _BAD_LOGS,
                         ids=[f"{path}-{n}" for n, (_, path, _) in enumerate(_BAD_LOGS)])
def test_settle_invalid_log_names_path_and_fix(log: Any, path: str, fix_words: str) -> None:
    """settle reads the log as select does and refuses the same malformed values (§6)."""
    raises_invalid(lambda: settle_run(log, cancelled=False), path, fix_words)


@pytest.mark.parametrize(("pushes", "path", "fix_words"), [
    ("Hel", "$.pushes", "pushes"),
    (["Hel"], "$.pushes[0]", "exactly one"),
    ([{"text": "a"}, {}], "$.pushes[1]", "exactly one"),
    ([{"event": message(), "text": "a"}], "$.pushes[0]", "exactly one"),
    ([{"text": 5}], "$.pushes[0].text", "Push text"),
    ([{"event": 5}], "$.pushes[0].event", "object"),
    ([{"event": event("assistant/message", {"message": {"content": None}})}],
     "$.pushes[0].event.data.message.content", "list"),
])
def test_fold_invalid_input_names_path_and_fix(pushes: Any, path: str, fix_words: str) -> None:
    """Each malformed push raises InvalidInput naming its path and the fix (§6)."""
    raises_invalid(lambda: fold_results(pushes), path, fix_words)


def test_direct_fold_paths_default_to_the_root() -> None:
    """OutputFold used directly locates errors from "$" (§6)."""
    raises_invalid(lambda: OutputFold().push(event("assistant/message", {})),
                   "$.data.message", '"message"')
    raises_invalid(lambda: OutputFold().push_text(None), "$", "Push text")


@pytest.mark.parametrize(("kwargs", "path", "fix_words"), [
    ({"events": [], "cancelled": "no"}, "$.cancelled", "true"),
    ({"events": [], "cancelled": False, "diagnostic": 3}, "$.diagnostic", "string"),
    ({"events": [event("turn/end", {"turn": 1})], "cancelled": False},
     "$.events[0].data.reason", '"reason"'),
    ({"events": [event("turn/end", {"turn": 1, "reason": {"kind": None}}), turn_end("completed")],
      "cancelled": False},
     "$.events[0].data.reason.kind", "string kind"),
    ({"events": [event("turn/end", None)], "cancelled": False}, "$.events[0].data", '"data"'),
    ({"events": [message(text("a"), "b")], "cancelled": False},
     "$.events[0].data.message.content[1]", "objects"),
    ({"events": [message(), message(reasoning("r"), {"type": "text", "text": 1})],
      "cancelled": False},
     "$.events[1].data.message.content[1].text", '"text"'),
])
def test_settle_invalid_input_names_path_and_fix(
    kwargs: dict[str, Any], path: str, fix_words: str,
) -> None:
    """Each malformed value settle reads raises InvalidInput naming its path and the fix (§6)."""
    raises_invalid(lambda: settle_run(**kwargs), path, fix_words)


def test_unknown_types_never_raise() -> None:
    """Unknown event and chunk types are never errors, whatever their data (§2.6, §6)."""
    log = [event("x/y", "not an object"), chunk(type="future", text=5), {"type": "z", "x": 1}]
    assert select_output(log) is None
    assert settle_run(log, cancelled=False)["result"]["stopReason"] == "error"
