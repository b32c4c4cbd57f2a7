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
    ABSENT,
    HEADLINES,
    ConsumedWork,
    consumed_work,
    continuable_stop_reason,
    headline_for,
    one_shot_stop_reason,
    settle_run,
    tool_result_text,
)
from hypothesis import given
from hypothesis import strategies as st

SPEC = Path(__file__).resolve().parents[2] / "spec" / "selection.md"

# -- small builders -------------------------------------------------------------------------------


def event(type_: str, data: Any, seq: int = 0, **extra: Any) -> dict[str, Any]:
    return {"type": type_, "seq": seq, "time": 1767225600000 + seq, "data": data, **extra}


SOURCE = {"kind": "model", "provider": "deepseek", "model": "deepseek-chat"}


def message(*content: Any, turn: int = 1, step: int = 0, **data: Any) -> dict[str, Any]:
    return event("assistant/message", {
        "turn": turn, "step": step,
        "message": {"id": "msg_a1", "role": "assistant", "content": list(content),
                    "source": dict(SOURCE)},
        **data,
    })


def usage_only() -> dict[str, Any]:
    """The empty message the loop logs after a max-tokens step whose tool calls were dropped."""
    return message(usage={"inputTokens": 900, "outputTokens": 4096})


def chunk(**fields: Any) -> dict[str, Any]:
    return event("assistant/chunk", {"turn": 1, "step": 0, "chunk": fields})


def delta(text: str, index: int = 0) -> dict[str, Any]:
    return chunk(type="text-delta", index=index, text=text)


def turn_start(turn: int = 1) -> dict[str, Any]:
    return event("turn/start", {"turn": turn})


def step_start(turn: int = 1, step: int = 0) -> dict[str, Any]:
    return event("step/start", {"turn": turn, "step": step})


def turn_end(kind: str, turn: int = 1) -> dict[str, Any]:
    reason: dict[str, Any] = {"kind": kind}
    if kind == "aborted":
        reason["reason"] = {"kind": "parent"}
    if kind == "error":
        reason["error"] = {"message": "overloaded", "code": "RATE_LIMIT"}
    return event("turn/end", {"turn": turn, "reason": reason})


def user_message(words: str = "Find the call sites.", mid: str = "msg_u1") -> dict[str, Any]:
    return {"id": mid, "role": "user", "content": [text(words)], "source": {"kind": "user"}}


def claim() -> dict[str, Any]:
    """The loop claiming the next queued prompt as its open turn's input."""
    return event("agent/inbox/spliced",
                 {"target": "next-turn", "start": 0, "removedCount": 1, "inserted": []})


def cancel(*replacement: dict[str, Any]) -> dict[str, Any]:
    """A pending prompt cancelled out of the inbox, replaced by ``replacement`` when given."""
    return event("agent/inbox/spliced", {"target": "next-turn", "start": 0, "removedCount": 1,
                                         "inserted": list(replacement), "outcome": "canceled"})


def enqueue() -> dict[str, Any]:
    """A prompt put on the inbox: a pure insertion, no removedCount."""
    return event("agent/inbox/spliced",
                 {"target": "next-turn", "start": 0, "inserted": [user_message()]})


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def reasoning(value: str) -> dict[str, Any]:
    return {"type": "reasoning", "text": value}


TOOL_CALL = {"type": "tool-call", "id": "call_1", "name": "grep", "arguments": '{"q": "x"}'}
TOOL_RESULT = {"type": "tool-result", "toolCallId": "call_1", "content": [text("3 hits")]}
TOOL_RESULT_EVENT = event("tool/result", {
    "turn": 1, "step": 0,
    "message": {"id": "msg_t1", "role": "user", "content": [TOOL_RESULT],
                "source": {"kind": "tool", "callId": "call_1"}},
})
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
        turn_start(),
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
        TOOL_RESULT_EVENT,
        event("tool/call", {"turn": 1, "step": 0, "callId": "call_1", "name": "grep",
                            "arguments": '{"q": "x"}'}),
        event("user/message", user_message("question")),
        enqueue(),
        cancel(user_message("replacement", "msg_u2")),
        turn_start(),
        step_start(),
        event("step/end", {"turn": 1, "step": 0}),
        turn_end("completed"),
        event("subagent/heartbeat", {"alive": True}),
        event("assistant/message/v2", {"message": {"role": "assistant",
                                                   "content": [text("unknown type")]}}),
        event("user/message", {"id": "m", "role": "assistant", "content": [text("mislabelled")],
                               "source": {"kind": "user"}}),
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
    st.just(TOOL_RESULT_EVENT),
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


# -- §5.1 consumed work ---------------------------------------------------------------------------

ONE_SHOT_MAP = {"completed": "completed", "max-tokens": "max-tokens", "aborted": "aborted",
                "blocked": "refusal", "error": "error", "interrupted": "error", "paused": "error"}
CONTINUABLE_MAP = {"max-tokens": "max-tokens", "aborted": "aborted", "interrupted": "aborted",
                   "error": "error", "blocked": "refusal", "paused": "error"}
KINDS = sorted(ONE_SHOT_MAP)


def stepped_turn(kind: str, *content: Any, turn: int = 1) -> list[dict[str, Any]]:
    """One turn that claimed its prompt, entered a step and ended with ``kind``."""
    return [turn_start(turn), claim(), step_start(turn), message(*content, turn=turn),
            event("step/end", {"turn": turn, "step": 0}), turn_end(kind, turn)]


def work(*events: dict[str, Any]) -> ConsumedWork:
    return consumed_work(list(events))


def test_no_events_no_end() -> None:
    """An empty log has no end and dropped nothing (§5.1)."""
    assert work() == ConsumedWork(end_kind=None, dropped_unrun=False)


def test_later_turn_without_step_does_not_replace_the_end() -> None:
    """A stepped turn ends max-tokens, then a turn that never reached a step ends completed: the
    end is the max-tokens turn, and one-shot settles max-tokens with the partial output
    (settle.accounting-turn). Reading the last turn/end would say completed."""
    log = [*stepped_turn("max-tokens", text("Found 3 call sites.")), usage_only(),
           turn_start(2), turn_end("completed", 2)]
    assert consumed_work(log).end_kind == "max-tokens"
    settled = settle_run(log, cancelled=False)
    assert settled["result"] == {"output": [text("Found 3 call sites.")],
                                 "stopReason": "max-tokens"}
    assert settled["toolResult"]["isError"] is True
    assert settle_run(log, mode="continuable")["result"]["stopReason"] == "max-tokens"


@pytest.mark.parametrize("kind", KINDS)
def test_stepped_turn_always_accounts(kind: str) -> None:
    """A turn that entered a step accounts for work whatever its reason (§5.1 step 4)."""
    assert work(turn_start(), step_start(), turn_end(kind)).end_kind == kind


@pytest.mark.parametrize("kind", KINDS)
def test_claimed_unstepped_turn_accounts_unless_completed(kind: str) -> None:
    """A claimed turn without a step accounts for work exactly when it did not complete."""
    expected = None if kind == "completed" else kind
    assert work(turn_start(), claim(), turn_end(kind)).end_kind == expected


@pytest.mark.parametrize("kind", KINDS)
def test_turn_without_claim_or_step_never_accounts(kind: str) -> None:
    """A turn that neither stepped nor claimed accounts for nothing, even after an enqueue."""
    assert work(turn_start(), enqueue(), turn_end(kind)).end_kind is None
    assert work(*stepped_turn("error"), turn_start(2), turn_end(kind, 2)).end_kind == "error"


def test_insertion_is_not_a_claim() -> None:
    """A splice without removedCount consumes nothing, whatever else it carries (§5.1 step 3)."""
    odd = event("agent/inbox/spliced", {"target": "next-step", "start": 0, "inserted": [],
                                        "outcome": "canceled"})
    assert work(turn_start(), odd, turn_end("blocked")) == ConsumedWork(None, False)


def test_removed_count_presence_decides_not_its_value() -> None:
    """Any removedCount member makes the splice a removal (§5.1 step 3)."""
    zero = event("agent/inbox/spliced",
                 {"target": "next-turn", "start": 0, "removedCount": 0, "inserted": []})
    assert work(turn_start(), zero, turn_end("blocked")).end_kind == "blocked"


def test_claim_outside_any_turn_is_ignored() -> None:
    """A claim before any turn/start, or after a turn/end closed the turn, marks nothing."""
    assert work(claim(), turn_start(), turn_end("blocked")).end_kind is None
    assert work(turn_start(), turn_end("completed"), claim(), turn_end("blocked")).end_kind is None


def test_claim_marks_the_open_turn_not_the_turn_end_number() -> None:
    """A claim belongs to the open turn; a later turn/start replaces the open turn."""
    log = [turn_start(1), turn_start(2), claim(), turn_end("blocked", 1)]
    assert work(*log).end_kind is None
    assert work(*log, turn_end("aborted", 2)).end_kind == "aborted"


def test_step_marks_its_own_turn_even_when_not_open() -> None:
    """step/start marks data.turn, open or not; a turn/end without turn/start uses the mark."""
    assert work(step_start(turn=3), turn_end("error", 3)).end_kind == "error"
    assert work(turn_start(1), step_start(turn=3), turn_end("error", 1)).end_kind is None


def test_turn_end_closes_whichever_turn_is_open() -> None:
    """A turn/end of another number still closes the open turn: a later claim is outside."""
    log = [turn_start(1), turn_end("completed", 2), claim(), turn_end("aborted", 1)]
    assert work(*log).end_kind is None


def test_marks_outlive_their_turn_and_repeat_by_number() -> None:
    """Marks are keyed by number and removed only by a turn/end of that number (§5.1)."""
    # A stepped mark waits for its turn/end across a second turn/start of the same number.
    assert work(turn_start(), step_start(), turn_start(), turn_end("aborted")).end_kind == "aborted"
    # A stepped mark is used once: a second turn/end of the number finds nothing.
    once = [turn_start(), step_start(), turn_end("max-tokens"), turn_start(), turn_end("error")]
    assert work(*once).end_kind == "max-tokens"
    # A stepped and claimed turn keeps its claim for the next turn/end of its number.
    stale = [turn_start(), claim(), step_start(), turn_end("completed"),
             turn_start(), turn_end("aborted")]
    assert work(*stale).end_kind == "aborted"
    # ... but a completed second turn/end uses the stale claim without accounting.
    used = [*stale[:4], turn_start(), turn_end("completed"), turn_start(), turn_end("aborted")]
    assert work(*used).end_kind == "completed"


def test_cancellation_with_nothing_inserted_drops_work() -> None:
    """settle.dropped-unrun: an empty cancellation sets it, a replacement does not."""
    assert work(cancel()).dropped_unrun is True
    assert work(cancel(user_message("instead", "msg_u2"))).dropped_unrun is False
    assert work(turn_start(), cancel()).dropped_unrun is True  # inside a turn: still a drop


def test_dropped_unrun_is_cleared_only_by_an_accounting_turn() -> None:
    """Once set, only a later accounting turn/end clears dropped unrun."""
    dropped = [*stepped_turn("completed", text("a")), cancel()]
    assert work(*dropped).dropped_unrun is True
    assert work(*dropped, cancel(user_message("b", "msg_u2"))).dropped_unrun is True
    assert work(*dropped, turn_start(2), turn_end("completed", 2)).dropped_unrun is True
    assert work(*dropped, turn_start(2), claim(), turn_end("completed", 2)).dropped_unrun is True
    assert work(*dropped, *stepped_turn("completed", text("b"), turn=2)).dropped_unrun is False
    assert work(*dropped, turn_start(2), claim(), turn_end("blocked", 2)) == ConsumedWork(
        "blocked", False)


def test_cancellation_before_the_end_is_reported_by_the_end() -> None:
    """A drop before the accounting turn closed is that turn's to report (settle.dropped-unrun)."""
    assert work(turn_start(), cancel(), step_start(), turn_end("completed")) == ConsumedWork(
        "completed", False)


# -- §5.2 one-shot and §5.3 continuable stop reasons -----------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_one_shot_mapping(kind: str) -> None:
    """The end's kind maps to the one-shot stop reason, in result and end alike (§5.2)."""
    settled = settle_run(stepped_turn(kind), cancelled=False)
    assert settled["result"]["stopReason"] == ONE_SHOT_MAP[kind]
    assert settled["end"]["stopReason"] == ONE_SHOT_MAP[kind]


@pytest.mark.parametrize("kind", [k for k in KINDS if k != "completed"])
def test_continuable_mapping(kind: str) -> None:
    """The end's kind maps to the continuable stop reason; dropped work cannot override a
    recorded failure (§5.3)."""
    for log in (stepped_turn(kind), [*stepped_turn(kind), cancel()]):
        assert settle_run(log, mode="continuable")["result"]["stopReason"] == CONTINUABLE_MAP[kind]


@pytest.mark.parametrize(("log", "reason"), [
    ([], "completed"),
    ([cancel()], "aborted"),
    ([cancel(user_message("instead", "msg_u2"))], "completed"),
    (stepped_turn("completed"), "completed"),
    ([*stepped_turn("completed"), cancel()], "aborted"),
    ([turn_start(), claim(), turn_end("completed")], "completed"),
])
def test_continuable_completed_or_no_end_depends_on_dropped_work(
    log: list[dict[str, Any]], reason: str,
) -> None:
    """completed, and no end, settle completed unless work was dropped unrun (§5.3)."""
    assert settle_run(log, mode="continuable")["result"]["stopReason"] == reason
    assert continuable_stop_reason(consumed_work(log)) == reason


def test_one_shot_ignores_dropped_work_and_no_end_is_error() -> None:
    """One-shot never reads dropped unrun; without an end it settles error (§5.2)."""
    assert settle_run([*stepped_turn("completed"), cancel()],
                      cancelled=False)["result"]["stopReason"] == "completed"
    assert settle_run([], cancelled=False)["result"]["stopReason"] == "error"
    assert one_shot_stop_reason(ConsumedWork(None, True), cancelled=False) == "error"


@pytest.mark.parametrize("kind", [k for k in KINDS if k != "completed"])
def test_cancelled_one_shot_that_did_not_complete_is_aborted(kind: str) -> None:
    """settle.cancelled: every recorded reason but completed becomes aborted."""
    settled = settle_run(stepped_turn(kind), cancelled=True)
    assert settled["result"]["stopReason"] == "aborted"
    assert settled["toolResult"]["text"] == "Error: subagent run was cancelled"


def test_cancelled_completed_stays_completed() -> None:
    """A cancel that arrives after the end completed changes nothing (settle.cancelled)."""
    log = stepped_turn("completed", text("Done."))
    assert settle_run(log, cancelled=True) == settle_run(log, cancelled=False)
    assert settle_run(log, cancelled=True)["toolResult"] == {"isError": False, "text": "Done."}


def test_paths_differ_on_the_same_log() -> None:
    """interrupted, no end and dropped work settle differently on the two paths (§5.3)."""
    interrupted = stepped_turn("interrupted", text("Half"))
    assert settle_run(interrupted, cancelled=False)["result"]["stopReason"] == "error"
    assert settle_run(interrupted, mode="continuable")["result"]["stopReason"] == "aborted"
    assert settle_run([delta("x")], cancelled=False)["end"]["stopReason"] == "error"
    assert settle_run([delta("x")], mode="continuable")["end"]["stopReason"] == "completed"


A_RUN = [enqueue(), turn_start(), claim(), step_start(), delta("Pat"), delta("ched"),
         message(text("Patched.")), event("step/end", {"turn": 1, "step": 0}),
         turn_end("completed"), turn_start(2), turn_end("completed", 2)]
COMPLETED_AT = 8  # the index of the accounting turn/end of A_RUN


@pytest.mark.parametrize("cut", range(len(A_RUN) + 1))
def test_cancellation_at_every_point_of_a_run(cut: int) -> None:
    """A run cut at every point: one-shot cancelled is aborted until its end completed; a
    continuable epoch cut there with its queued input dropped is aborted in every case, since the
    drop comes after the end (§5.2, §5.3)."""
    prefix = A_RUN[:cut]
    one_shot = settle_run(prefix, cancelled=True)
    expected = "completed" if cut > COMPLETED_AT else "aborted"
    assert one_shot["result"]["stopReason"] == expected
    continuable = settle_run([*prefix, cancel()], mode="continuable")
    assert continuable["result"]["stopReason"] == "aborted"
    replaced = settle_run([*prefix, cancel(user_message("b", "msg_u2"))], mode="continuable")
    assert replaced["result"]["stopReason"] == "completed"
    assert "toolResult" not in continuable
    assert one_shot["result"]["output"] == continuable["result"]["output"]


# A literal restatement of §5.1-§5.3 on generated logs with few turn numbers, so that numbers
# repeat, turn/ends come without turn/starts and splices fall outside turns.
_turns = st.integers(1, 3)
_kinds = st.sampled_from(KINDS)
_work_events = st.one_of(
    st.builds(turn_start, _turns),
    st.builds(lambda t: step_start(turn=t), _turns),
    st.builds(lambda k, t: turn_end(k, t), _kinds, _turns),
    st.just(claim()), st.just(cancel()), st.just(enqueue()),
    st.just(cancel(user_message("instead", "msg_u2"))),
    st.builds(lambda t: delta(t), st.sampled_from(["", "a"])),
    st.just(message(text("m"))), st.just(usage_only()),
)


def _settle_literal(events: list[dict[str, Any]], mode: str, cancelled: bool) -> str:
    """§5.1-§5.3 as written, with lists of marks instead of the reference's sets."""
    stepped: list[int] = []
    claimed: list[int] = []
    open_turn: int | None = None
    end: str | None = None
    dropped = False
    for e in events:
        data = e["data"]
        if e["type"] == "turn/start":
            open_turn = data["turn"]
        elif e["type"] == "step/start" and data["turn"] not in stepped:
            stepped.append(data["turn"])
        elif e["type"] == "agent/inbox/spliced" and "removedCount" in data:
            if data.get("outcome") == "canceled":
                dropped = dropped or data["inserted"] == []
            elif open_turn is not None and open_turn not in claimed:
                claimed.append(open_turn)
        elif e["type"] == "turn/end":
            open_turn = None
            accounts = False
            if data["turn"] in stepped:
                stepped.remove(data["turn"])
                accounts = True
            elif data["turn"] in claimed:
                claimed.remove(data["turn"])
                accounts = data["reason"]["kind"] != "completed"
            if accounts:
                end, dropped = data["reason"]["kind"], False
    if mode == "one-shot":
        recorded = "error" if end is None else ONE_SHOT_MAP.get(end, "error")
        return "aborted" if cancelled and recorded != "completed" else recorded
    if end in (None, "completed"):
        return "aborted" if dropped else "completed"
    return CONTINUABLE_MAP[end]


@given(st.lists(_work_events, max_size=12), st.booleans())
def test_stop_reasons_match_the_rules_as_written(
    events: list[dict[str, Any]], cancelled: bool,
) -> None:
    """The reference agrees with a literal restatement of §5.1-§5.3, both paths."""
    one_shot = settle_run(events, cancelled=cancelled)
    assert one_shot["result"]["stopReason"] == _settle_literal(events, "one-shot", cancelled)
    continuable = settle_run(events, mode="continuable")
    assert continuable["result"]["stopReason"] == _settle_literal(events, "continuable", False)
    assert continuable["end"] == {**one_shot["end"], "stopReason": continuable["end"]["stopReason"]}


# -- §5.4-§5.6 result, lifecycle event, tool result ----------------------------------------------


@pytest.mark.parametrize("mode", ["one-shot", "continuable"])
def test_output_and_last_assistant_message_share_the_selection(mode: str) -> None:
    """result.output and end.lastAssistantMessage are both the selection (§5.4, §5.5)."""
    log = [*stepped_turn("max-tokens", text("a"), reasoning("r")), usage_only()]
    flags: dict[str, Any] = {"cancelled": False} if mode == "one-shot" else {}
    settled = settle_run(log, mode=mode, **flags)
    assert settled["result"]["output"] == [text("a"), reasoning("r")]
    assert settled["end"]["lastAssistantMessage"] == [text("a"), reasoning("r")]


def test_absent_last_assistant_message_without_selection() -> None:
    """Without a selection, output is [] and lastAssistantMessage is absent, not [] (§5.4, §5.5),
    on both paths; only the one-shot answer has a tool result (§5.6)."""
    log = [turn_start(), step_start(), usage_only(), turn_end("completed")]
    assert settle_run(log, cancelled=False) == {
        "result": {"output": [], "stopReason": "completed"},
        "end": {"stopReason": "completed"},
        "toolResult": {"isError": False, "text": ""},
    }
    assert settle_run(log, mode="continuable") == {
        "result": {"output": [], "stopReason": "completed"},
        "end": {"stopReason": "completed"},
    }


def test_completed_tool_result_joins_text_blocks_only() -> None:
    """A completed run's tool text is its text blocks joined with "", nothing else (§5.6)."""
    log = stepped_turn("completed", reasoning("r"), text("Patched "), IMAGE, TOOL_CALL,
                       text("both."))
    settled = settle_run(log, cancelled=False, diagnostic="ignored when completed")
    assert settled["toolResult"] == {"isError": False, "text": "Patched both."}


@pytest.mark.parametrize(("kind", "headline"), [
    ("aborted", "subagent run was cancelled"),
    ("error", "subagent run failed"),
    ("max-tokens", "subagent run hit its token limit before finishing"),
    ("blocked", "subagent declined the task"),
])
def test_headline_per_stop_reason(kind: str, headline: str) -> None:
    """Each non-completed stop reason has its fixed headline (§5.6)."""
    settled = settle_run([turn_start(), step_start(), turn_end(kind)], cancelled=False)
    assert settled["toolResult"] == {"isError": True, "text": "Error: " + headline}


def test_reserved_headline_names_the_reason() -> None:
    """A stop reason without a headline gets the reserved form naming it (§5.6)."""
    assert headline_for("paused") == "subagent run ended abnormally (paused)"
    assert set(HEADLINES) == {"aborted", "error", "max-tokens", "refusal"}


@pytest.mark.parametrize(("diagnostic", "partial", "expected"), [
    (ABSENT, False, "Error: subagent run failed"),
    ("", False, "Error: subagent run failed\nDiagnostic: "),
    ("boom", False, "Error: subagent run failed\nDiagnostic: boom"),
    (ABSENT, True, "Error: subagent run failed\nPartial output before the run ended:\nHel"),
    ("", True,
     "Error: subagent run failed\nDiagnostic: \nPartial output before the run ended:\nHel"),
    ("boom", True,
     "Error: subagent run failed\nDiagnostic: boom\nPartial output before the run ended:\nHel"),
])
def test_error_text_lines(diagnostic: Any, partial: bool, expected: str) -> None:
    """The diagnostic line appears whenever a diagnostic is given, even "", the partial-output
    line only for non-empty text, in that order (settle.tool-result)."""
    log = [delta("Hel")] if partial else []
    settled = settle_run(log, cancelled=False, diagnostic=diagnostic)
    assert settled["toolResult"] == {"isError": True, "text": expected}


def test_reasoning_only_partial_output_adds_no_line() -> None:
    """Partial output without text blocks adds no partial-output line (§5.6)."""
    settled = settle_run([message(reasoning("r"))], cancelled=False)
    assert settled["toolResult"]["text"] == "Error: subagent run failed"
    assert settled["end"]["lastAssistantMessage"] == [reasoning("r")]


def test_tool_result_text_of_nothing_is_empty() -> None:
    """No selection gives the empty text (§5.6)."""
    assert tool_result_text(None) == ""
    assert tool_result_text([]) == ""


def test_dispatch_reads_mode_and_absent_members() -> None:
    """The settle request: no mode is one-shot; a left-out diagnostic adds no line while a given
    "" does; a continuable request answers without a tool result (§7)."""
    reference = Reference()
    log = [delta("x")]
    assert reference.run("settle", {"events": log, "cancelled": False}) == settle_run(
        log, mode="one-shot", cancelled=False)
    with_empty = reference.run("settle", {"events": log, "cancelled": False, "diagnostic": ""})
    assert with_empty["toolResult"]["text"].startswith("Error: subagent run failed\nDiagnostic: ")
    assert set(reference.run("settle", {"events": log, "mode": "continuable"})) == {
        "result", "end"}


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
    ({"events": []}, "$.cancelled", "true"),
    ({"events": [], "cancelled": False, "diagnostic": 3}, "$.diagnostic", "string"),
    ({"events": [], "cancelled": False, "diagnostic": None}, "$.diagnostic", "leave the key out"),
    ({"events": [], "mode": "batch", "cancelled": False}, "$.mode", '"continuable"'),
    ({"events": [], "mode": None, "cancelled": False}, "$.mode", "leave it out"),
    ({"events": [], "mode": "continuable", "cancelled": True}, "$.cancelled", "Leave"),
    ({"events": [], "mode": "continuable", "cancelled": False}, "$.cancelled", "Leave"),
    ({"events": [], "mode": "continuable", "diagnostic": ""}, "$.diagnostic", "Leave"),
    ({"events": [event("turn/end", {"turn": 1})], "cancelled": False},
     "$.events[0].data.reason", '"reason"'),
    ({"events": [event("turn/end", {"turn": 1, "reason": {"kind": None}}), turn_end("completed")],
      "cancelled": False},
     "$.events[0].data.reason.kind", "string kind"),
    ({"events": [event("turn/end", None)], "cancelled": False}, "$.events[0].data", '"data"'),
    ({"events": [event("turn/end", {"reason": {"kind": "completed"}})], "cancelled": False},
     "$.events[0].data.turn", "integer"),
    ({"events": [event("turn/start", {"turn": "1"})], "cancelled": False},
     "$.events[0].data.turn", "integer"),
    ({"events": [event("step/start", {"turn": True, "step": 0})], "mode": "continuable"},
     "$.events[0].data.turn", "integer"),
    ({"events": [turn_start(), event("step/start", {"turn": 1.5, "step": 0})],
      "cancelled": False}, "$.events[1].data.turn", "integer"),
    ({"events": [event("agent/inbox/spliced", [])], "cancelled": False},
     "$.events[0].data", '"data"'),
    ({"events": [event("agent/inbox/spliced", {"removedCount": 1, "outcome": "canceled"})],
      "mode": "continuable"}, "$.events[0].data.inserted", "[] for none"),
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
    raises_invalid(lambda: Reference().run("settle", kwargs), path, fix_words)


def test_integral_float_turn_numbers_are_the_same_turn() -> None:
    """1.0 and 1 name one turn, as they do in every JSON reader (§6)."""
    log = [turn_start(), event("step/start", {"turn": 1.0, "step": 0}), turn_end("max-tokens")]
    assert consumed_work(log).end_kind == "max-tokens"
    assert repr(ABSENT) == "<absent>"


def test_unknown_types_never_raise() -> None:
    """Unknown event and chunk types are never errors, whatever their data (§2.6, §6)."""
    log = [event("x/y", "not an object"), chunk(type="future", text=5), {"type": "z", "x": 1}]
    assert select_output(log) is None
    assert settle_run(log, cancelled=False)["result"]["stopReason"] == "error"
