"""Deliberately wrong implementations of the selection profile, one planted bug each.

Each class answers the handshake like the reference (under its own name) and every request like
the reference, except for the one operation its docstring names, where it reproduces a bug: the
historical ones of the seed (three consumers that selected a child's output independently and
diverged) and the near misses a port is likely to write. ``MINIATURES`` maps each name to the class
and the rule id that must catch it; the miniature tests hold the suite to that.
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar

from eventproof.reference._settle import (
    ConsumedWork,
    consumed_work,
    continuable_stop_reason,
    delegation_tool_result,
    one_shot_stop_reason,
)

from miniatures import Miniature

PARTIAL_OUTPUT = "\nPartial output before the run ended:\n"


# -- small readers of a schema-valid log --------------------------------------------------------

def _is(event: Any, kind: str) -> bool:
    return isinstance(event, dict) and event.get("type") == kind


def _content(event: dict[str, Any]) -> list[Any]:
    content: list[Any] = event["data"]["message"]["content"]
    return content


def _messages(events: list[Any]) -> list[dict[str, Any]]:
    return [event for event in events if _is(event, "assistant/message")]


def _streamed(events: list[Any], chunk_types: tuple[str, ...] = ("text-delta",),
              joiner: str = "") -> str:
    pieces = []
    for event in events:
        if _is(event, "assistant/chunk"):
            chunk = event["data"]["chunk"]
            if chunk.get("type") in chunk_types:
                pieces.append(chunk.get("text", chunk.get("argumentsDelta", "")))
    return joiner.join(pieces)


def _as_output(text: str) -> list[dict[str, Any]] | None:
    return [{"type": "text", "text": text}] if text else None


def _last_non_empty(events: list[Any]) -> list[Any] | None:
    contents = [_content(m) for m in _messages(events) if _content(m)]
    return contents[-1] if contents else None


def _text_blocks(output: list[Any]) -> list[str]:
    return [b["text"] for b in output if isinstance(b, dict) and b.get("type") == "text"]


# -- select (selection.md §3) -------------------------------------------------------------------

class LastMessageUnfiltered(Miniature):
    """The seed's readResult: the last assistant message, empty or not. ``select.never-empty``."""

    name = "last-message-unfiltered"

    def select(self, input: Any) -> Any:
        messages = _messages(input["events"])
        if messages:
            return _content(messages[-1])
        return _as_output(_streamed(input["events"]))


class AnyMessageBeatsText(Miniature):
    """The seed's SDK observer: any message, even an empty one, beats streamed text.

    Caught by ``select.text-fallback``.
    """

    name = "any-message-beats-text"

    def select(self, input: Any) -> Any:
        events = input["events"]
        chosen = _last_non_empty(events)
        if chosen is not None:
            return chosen
        if _messages(events):
            return None  # the empty message "won": no output
        return _as_output(_streamed(events))


class NoTextFallback(Miniature):
    """The seed's in-process driver: no streamed-text fallback. ``select.text-fallback``."""

    name = "no-text-fallback"

    def select(self, input: Any) -> Any:
        return _last_non_empty(input["events"])


class TextPresenceDecides(Miniature):
    """A message counts only when it has a text block (not content length).

    Caught by ``select.last-message``.
    """

    name = "text-presence-decides"

    def select(self, input: Any) -> Any:
        events = input["events"]
        texty = [_content(m) for m in _messages(events) if _text_blocks(_content(m))]
        return texty[-1] if texty else _as_output(_streamed(events))


class CountsReasoningDeltas(Miniature):
    """The fallback text includes reasoning deltas. ``select.text-fallback``."""

    name = "counts-reasoning-deltas"

    def select(self, input: Any) -> Any:
        events = input["events"]
        chosen = _last_non_empty(events)
        if chosen is not None:
            return chosen
        return _as_output(_streamed(events, ("text-delta", "reasoning-delta")))


class CountsToolCallDeltas(Miniature):
    """The fallback text includes tool-call argument deltas. ``select.text-fallback``."""

    name = "counts-tool-call-deltas"

    def select(self, input: Any) -> Any:
        events = input["events"]
        chosen = _last_non_empty(events)
        if chosen is not None:
            return chosen
        return _as_output(_streamed(events, ("text-delta", "tool-call-delta")))


class CountsToolResults(Miniature):
    """The fallback text includes the text of tool results. ``select.text-fallback``."""

    name = "counts-tool-results"

    def select(self, input: Any) -> Any:
        events = input["events"]
        chosen = _last_non_empty(events)
        if chosen is not None:
            return chosen
        pieces = []
        for event in events:
            if _is(event, "tool/result"):
                for block in event["data"]["message"]["content"]:
                    pieces += _text_blocks(block.get("content", []))
            elif _is(event, "assistant/chunk") and event["data"]["chunk"]["type"] == "text-delta":
                pieces.append(event["data"]["chunk"]["text"])
        return _as_output("".join(pieces))


class EmptyListForNoOutput(Miniature):
    """``select`` answers ``[]`` instead of null when there is no output.

    Caught by ``select.never-empty``.
    """

    name = "empty-list-for-no-output"

    def select(self, input: Any) -> Any:
        output = self.reference.run("select", input)
        return [] if output is None else output


class LaterTextBeatsMessage(Miniature):
    """Text streamed after the last non-empty message replaces it (the cancelled later step).

    Caught by ``select.last-message``.
    """

    name = "later-text-beats-message"

    def select(self, input: Any) -> Any:
        events = input["events"]
        last = max((i for i, e in enumerate(events) if _is(e, "assistant/message") and _content(e)),
                   default=-1)
        later = _streamed(events[last + 1:])
        if last >= 0 and later:
            return _as_output(_streamed(events))
        return self.reference.run("select", input)


class SkipsInterruptedMessages(Miniature):
    """Messages marked ``interrupted: true`` are ignored. ``select.last-message``."""

    name = "skips-interrupted-messages"

    def select(self, input: Any) -> Any:
        kept = [e for e in input["events"]
                if not (_is(e, "assistant/message") and e["data"].get("interrupted") is True)]
        return self.reference.run("select", {"events": kept})


class FirstMessageWins(Miniature):
    """The first non-empty message wins instead of the last. ``select.last-message``."""

    name = "first-message-wins"

    def select(self, input: Any) -> Any:
        contents = [_content(m) for m in _messages(input["events"]) if _content(m)]
        return contents[0] if contents else self.reference.run("select", input)


class SelectJoinsWithNewlines(Miniature):
    """The fallback joins text deltas with ``"\\n"`` instead of ``""``. ``select.text-fallback``."""

    name = "select-joins-with-newlines"

    def select(self, input: Any) -> Any:
        events = input["events"]
        chosen = _last_non_empty(events)
        if chosen is not None:
            return chosen
        return _as_output(_streamed(events, joiner="\n"))


#: The block types and members a port that decodes into fixed structures knows (selection.md §2.5).
_PINNED_BLOCKS: dict[str, tuple[str, ...]] = {
    "text": ("type", "text"), "reasoning": ("type", "text"), "image": ("type", "attachment"),
    "tool-call": ("type", "id", "name", "arguments"),
    "tool-result": ("type", "toolCallId", "content", "isError"),
}
_PINNED_MESSAGE = ("id", "role", "content", "source")


def _decodes(event: dict[str, Any]) -> bool:
    """Whether a strict decoder accepts an assistant/message: known block types, known members."""
    message = event["data"]["message"]
    if set(message) - set(_PINNED_MESSAGE):
        return False
    return all(isinstance(block, dict) and block.get("type") in _PINNED_BLOCKS
               and not set(block) - set(_PINNED_BLOCKS[block["type"]])
               for block in message["content"])


class DropsUndecodableMessages(Miniature):
    """A port that decodes messages into fixed structures and silently skips the ones that fail:
    an unknown block type or an unknown member drops the whole message. ``select.last-message``.
    """

    name = "drops-undecodable-messages"

    def select(self, input: Any) -> Any:
        kept = [e for e in input["events"] if not (_is(e, "assistant/message") and not _decodes(e))]
        return self.reference.run("select", {"events": kept})


class RebuildsBlocks(Miniature):
    """A port that rebuilds each block from the members it knows: unknown members are lost.

    Caught by ``select.last-message`` (content is returned as given).
    """

    name = "rebuilds-blocks"

    def select(self, input: Any) -> Any:
        output = self.reference.run("select", input)
        if output is None:
            return None
        return [{key: block[key] for key in _PINNED_BLOCKS.get(block.get("type"), ("type",))
                 if key in block} if isinstance(block, dict) else block for block in output]


def _as_doubles(value: Any) -> Any:
    """``value`` as a reader that keeps every number as a double holds it: an integer beyond
    2^53 - 1 rounds to its nearest double (9007199254740993 reads as 9007199254740992)."""
    if isinstance(value, dict):
        return {key: _as_doubles(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_doubles(item) for item in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**53 - 1:
        return int(float(value))
    return value


class EchoesDoubles(Miniature):
    """A port that parses its input with a double-based JSON reader (JSON.parse): the blocks it
    echoes carry integers beyond 2^53 - 1 rounded.

    Caught by ``select.last-message`` (content is returned as given, and numbers compare
    exactly, selection.md §1).
    """

    name = "echoes-doubles"

    def select(self, input: Any) -> Any:
        return self.reference.run("select", _as_doubles(input))


class TurnsAsDoubles(Miniature):
    """Reads turn numbers as doubles: turns 9007199254740992 and 9007199254740993 are one turn,
    so a step of the one marks the other.

    Caught by ``settle.accounting-turn`` (turn numbers are compared exactly, selection.md §1).
    """

    name = "turns-as-doubles"

    def settle(self, input: Any) -> Any:
        events = [{**event, "data": {**event["data"], "turn": _as_doubles(event["data"]["turn"])}}
                  if isinstance(event.get("data"), dict) and "turn" in event["data"] else event
                  for event in input["events"]]
        return self.reference.run("settle", {**input, "events": events})


class CrashesOnUnknownTypes(Miniature):
    """``select`` raises on an event type it does not know (they must be ignored).

    Caught by ``select.agrees`` (an error on a valid input).
    """

    name = "crashes-on-unknown-types"
    KNOWN: ClassVar[frozenset[str]] = frozenset({
        "assistant/message", "assistant/chunk", "tool/result", "tool/call", "turn/start",
        "turn/end", "step/start", "step/end", "user/message", "agent/inbox/spliced",
    })

    def select(self, input: Any) -> Any:
        for event in input["events"]:
            if event["type"] not in self.KNOWN:
                raise ValueError(f"unsupported event type {event['type']!r}")
        return self.reference.run("select", input)


# -- fold (selection.md §4) ---------------------------------------------------------------------

class FoldIgnoresPushText(Miniature):
    """``push_text`` is a no-op for every piece, not only ``""``. ``fold.prefix``."""

    name = "fold-ignores-push-text"

    def fold(self, input: Any) -> Any:
        events: list[Any] = []
        results = [self.reference.run("select", {"events": events})]
        for push in input["pushes"]:
            if "event" in push:
                events.append(push["event"])
            results.append(self.reference.run("select", {"events": events}))
        return results


class FoldStartsWithEmptyList(Miniature):
    """The collect() before the first push is ``[]`` instead of null. ``fold.prefix``."""

    name = "fold-starts-with-empty-list"

    def fold(self, input: Any) -> Any:
        results = self.reference.run("fold", input)
        return [[], *results[1:]]


class FoldRightOnlyAtEnd(Miniature):
    """A fold that selects only when the stream is over: null until the last push.

    Caught by ``fold.prefix``.
    """

    name = "fold-right-only-at-end"

    def fold(self, input: Any) -> Any:
        results = self.reference.run("fold", input)
        return [None] * (len(results) - 1) + results[-1:]


class FoldOmitsInitialCollect(Miniature):
    """The fold answers only after each push, without the collect() before the first one.

    Caught by ``fold.shape``.
    """

    name = "fold-omits-initial-collect"

    def fold(self, input: Any) -> Any:
        results: list[Any] = self.reference.run("fold", input)
        return results[1:]


# -- settle (selection.md §5) -------------------------------------------------------------------

def _continuable(input: Any) -> bool:
    return bool(input.get("mode") == "continuable")


def _with_kinds(input: Any, renamed: dict[str, str], *, continuable: bool | None = None) -> Any:
    """The input with turn/end reason kinds renamed (the events are copied, never mutated);
    only on one path when ``continuable`` says which."""
    if continuable is not None and _continuable(input) != continuable:
        return input
    changed = copy.deepcopy(input)
    for event in changed["events"]:
        if _is(event, "turn/end"):
            kind = event["data"]["reason"]["kind"]
            event["data"]["reason"]["kind"] = renamed.get(kind, kind)
    return changed


def _restated(input: Any, answer: dict[str, Any], stop_reason: str) -> dict[str, Any]:
    """``answer`` with another stop reason, its tool result rebuilt to match (§5.5, §5.6)."""
    answer["result"]["stopReason"] = answer["end"]["stopReason"] = stop_reason
    if "toolResult" in answer:
        answer["toolResult"] = delegation_tool_result(
            stop_reason, answer["end"].get("lastAssistantMessage"), input.get("diagnostic"))
    return answer


class _WrongAccount(Miniature):
    """Settles with the reference's mappings, but from a wrong account of consumed work."""

    claims: ClassVar[bool] = True
    count_completed_claims: ClassVar[bool] = False
    last_wins: ClassVar[bool] = False
    clear_drops: ClassVar[bool] = True

    def account(self, events: list[Any]) -> ConsumedWork:
        stepped: set[Any] = set()
        claimed: set[Any] = set()
        open_turn: Any = None
        end: str | None = None
        dropped = False
        for event in events:
            data = event.get("data", {})
            if _is(event, "turn/start"):
                open_turn = data["turn"]
            elif _is(event, "step/start"):
                stepped.add(data["turn"])
            elif _is(event, "agent/inbox/spliced") and "removedCount" in data:
                if data.get("outcome") == "canceled":
                    dropped = dropped or not data["inserted"]
                elif open_turn is not None and self.claims:
                    claimed.add(open_turn)
            elif _is(event, "turn/end"):
                kind, turn, open_turn = data["reason"]["kind"], data["turn"], None
                if self.last_wins:
                    accounts = True
                elif turn in stepped:
                    stepped.discard(turn)
                    accounts = True
                elif turn in claimed:
                    claimed.discard(turn)
                    accounts = self.count_completed_claims or kind != "completed"
                else:
                    accounts = False
                if accounts:
                    end = kind
                    dropped = dropped and not self.clear_drops
        return ConsumedWork(end_kind=end, dropped_unrun=dropped)

    def settle(self, input: Any) -> Any:
        answer: dict[str, Any] = self.reference.run("settle", input)
        work = self.account(input["events"])
        reason = (continuable_stop_reason(work) if _continuable(input)
                  else one_shot_stop_reason(work, cancelled=input["cancelled"]))
        return _restated(input, answer, reason)


class LastTurnEndWins(_WrongAccount):
    """The stop reason comes from the last turn/end of the log, even one whose turn never reached
    a step and accounts for no work. Caught by ``settle.accounting-turn``."""

    name = "last-turn-end-wins"
    last_wins = True


class ClaimsIgnored(_WrongAccount):
    """Inbox claims are not read: only stepped turns account for work, so a claimed turn
    rejected before its first step reads as no end. ``settle.accounting-turn``."""

    name = "claims-ignored"
    claims = False


class ClaimedCompletedCounted(_WrongAccount):
    """A claimed turn that ended completed without a step is counted as accounting for work.

    Caught by ``settle.accounting-turn``.
    """

    name = "claimed-completed-counted"
    count_completed_claims = True


class DroppedUnrunNeverCleared(_WrongAccount):
    """Once a cancellation dropped work, an epoch stays aborted: a later accounting turn/end
    never clears the flag. Caught by ``settle.dropped-unrun``."""

    name = "dropped-unrun-never-cleared"
    clear_drops = False


class FirstTurnEndDecides(Miniature):
    """The first turn/end decides the stop reason: later ones are dropped from the log.

    Caught by ``settle.accounting-turn``.
    """

    name = "first-turn-end-decides"

    def settle(self, input: Any) -> Any:
        seen = False
        kept = []
        for event in input["events"]:
            if _is(event, "turn/end"):
                if seen:
                    continue
                seen = True
            kept.append(event)
        return self.reference.run("settle", {**input, "events": kept})


class InterruptedAbortedOneShot(Miniature):
    """One mapping for both paths: a one-shot run whose end is interrupted stops with
    'aborted', as an epoch does. Caught by ``settle.one-shot-reason``."""

    name = "interrupted-aborted-one-shot"

    def settle(self, input: Any) -> Any:
        return self.reference.run("settle", _with_kinds(input, {"interrupted": "aborted"},
                                                        continuable=False))


class InterruptedErrorContinuable(Miniature):
    """One mapping for both paths: an epoch whose end is interrupted stops with 'error', as a
    one-shot run does. Caught by ``settle.continuable-reason``."""

    name = "interrupted-error-continuable"

    def settle(self, input: Any) -> Any:
        return self.reference.run("settle", _with_kinds(input, {"interrupted": "error"},
                                                        continuable=True))


class ContinuableNoEndIsError(Miniature):
    """An epoch without an end stops with 'error', as a one-shot run does (the paths merged).

    Caught by ``settle.continuable-reason``.
    """

    name = "continuable-no-end-is-error"

    def settle(self, input: Any) -> Any:
        answer = self.reference.run("settle", input)
        if _continuable(input) and consumed_work(input["events"]).end_kind is None:
            return _restated(input, answer, "error")
        return answer


class LifecycleEmptyList(Miniature):
    """The seed's lifecycle bug: ``lastAssistantMessage: []`` instead of an absent key.

    Caught by ``settle.last-assistant``.
    """

    name = "lifecycle-empty-list"

    def settle(self, input: Any) -> Any:
        answer = self.reference.run("settle", input)
        answer["end"].setdefault("lastAssistantMessage", [])
        return answer


class LifecycleUnfiltered(Miniature):
    """The seed's Activation capture: lastAssistantMessage is the last message, even empty.

    Caught by ``settle.last-assistant``.
    """

    name = "lifecycle-unfiltered"

    def settle(self, input: Any) -> Any:
        answer = self.reference.run("settle", input)
        messages = _messages(input["events"])
        if messages:
            answer["end"]["lastAssistantMessage"] = _content(messages[-1])
        return answer


class ResultOutputNull(Miniature):
    """``result.output`` is null instead of ``[]`` when there is no output. ``settle.output``."""

    name = "result-output-null"

    def settle(self, input: Any) -> Any:
        answer = self.reference.run("settle", input)
        if answer["result"]["output"] == []:
            answer["result"]["output"] = None
        return answer


class ResultOutputUnfiltered(Miniature):
    """The seed's readResult in settle: result.output is the last message, even when empty.

    Caught by ``settle.output``.
    """

    name = "result-output-unfiltered"

    def settle(self, input: Any) -> Any:
        answer = self.reference.run("settle", input)
        messages = _messages(input["events"])
        if messages:
            answer["result"]["output"] = _content(messages[-1])
        return answer


class IgnoresCancellation(Miniature):
    """A cancelled one-shot run keeps its recorded stop reason (e.g. 'error').

    Caught by ``settle.cancelled``.
    """

    name = "ignores-cancellation"

    def settle(self, input: Any) -> Any:
        if _continuable(input):
            return self.reference.run("settle", input)
        return self.reference.run("settle", {**input, "cancelled": False})


class CancellationOverridesCompleted(Miniature):
    """A cancelled one-shot run stops with 'aborted' even when its end completed.

    Caught by ``settle.cancelled``.
    """

    name = "cancellation-overrides-completed"

    def settle(self, input: Any) -> Any:
        answer: dict[str, Any] = self.reference.run("settle", input)
        if not _continuable(input) and input["cancelled"]:
            return _restated(input, answer, "aborted")
        return answer


class BlockedIsError(Miniature):
    """A blocked end settles as 'error' instead of 'refusal'. ``settle.one-shot-reason``."""

    name = "blocked-is-error"

    def settle(self, input: Any) -> Any:
        return self.reference.run("settle", _with_kinds(input, {"blocked": "error"}))


class MaxTokensIsError(Miniature):
    """A max-tokens run settles as 'error': it loses its actual stop reason (seed).

    Caught by ``settle.one-shot-reason``.
    """

    name = "max-tokens-is-error"

    def settle(self, input: Any) -> Any:
        return self.reference.run("settle", _with_kinds(input, {"max-tokens": "error"}))


class ToolErrorWithoutPartialText(Miniature):
    """The seed's delegation tool: a failed run's tool result omits the partial text.

    Caught by ``settle.tool-result``.
    """

    name = "tool-error-without-partial-text"

    def settle(self, input: Any) -> Any:
        answer = self.reference.run("settle", input)
        if answer.get("toolResult", {}).get("isError"):
            answer["toolResult"]["text"] = answer["toolResult"]["text"].split(PARTIAL_OUTPUT)[0]
        return answer


class ToolErrorWithoutDiagnostic(Miniature):
    """A failed run's tool result omits the diagnostic line. ``settle.tool-result``."""

    name = "tool-error-without-diagnostic"

    def settle(self, input: Any) -> Any:
        return self.reference.run(
            "settle", {key: value for key, value in input.items() if key != "diagnostic"})


class EmptyDiagnosticDropped(Miniature):
    """The Diagnostic line is added only for a non-empty diagnostic (a truthiness test where the
    contract tests presence). Caught by ``settle.tool-result``."""

    name = "empty-diagnostic-dropped"

    def settle(self, input: Any) -> Any:
        if input.get("diagnostic") == "":
            input = {key: value for key, value in input.items() if key != "diagnostic"}
        return self.reference.run("settle", input)


class ContinuableToolResult(Miniature):
    """A continuable epoch is answered with a delegation tool result, as a one-shot run is.

    Caught by ``settle.tool-result``.
    """

    name = "continuable-tool-result"

    def settle(self, input: Any) -> Any:
        answer: dict[str, Any] = self.reference.run("settle", input)
        if _continuable(input):
            answer["toolResult"] = delegation_tool_result(
                answer["result"]["stopReason"], answer["end"].get("lastAssistantMessage"), None)
        return answer


class ToolTextJoinedWithNewlines(Miniature):
    """The tool result joins the output's text blocks with ``"\\n"``. ``settle.tool-result``."""

    name = "tool-text-joined-with-newlines"

    def settle(self, input: Any) -> Any:
        answer = self.reference.run("settle", input)
        if "toolResult" not in answer:
            return answer
        blocks = _text_blocks(answer["result"]["output"])
        right, wrong = "".join(blocks), "\n".join(blocks)
        tool = answer["toolResult"]
        if not tool["isError"]:
            tool["text"] = wrong
        elif right:
            tool["text"] = tool["text"].replace(PARTIAL_OUTPUT + right, PARTIAL_OUTPUT + wrong)
        return answer


class MaxTokensToolResultNotError(Miniature):
    """A max-tokens run's tool result is not an error (the partial answer passed as success).

    Caught by ``settle.tool-result``.
    """

    name = "max-tokens-tool-result-not-error"

    def settle(self, input: Any) -> Any:
        answer = self.reference.run("settle", input)
        if "toolResult" in answer and answer["result"]["stopReason"] == "max-tokens":
            text = "".join(_text_blocks(answer["result"]["output"]))
            answer["toolResult"] = {"isError": False, "text": text}
        return answer


class LifecycleStopReasonBeforeCancellation(Miniature):
    """The lifecycle event keeps the recorded stop reason while the result says 'aborted'.

    Caught by ``settle.last-assistant``.
    """

    name = "lifecycle-stop-reason-before-cancellation"

    def settle(self, input: Any) -> Any:
        answer = self.reference.run("settle", input)
        if _continuable(input):
            return answer
        uncancelled = self.reference.run("settle", {**input, "cancelled": False})
        answer["end"]["stopReason"] = uncancelled["result"]["stopReason"]
        return answer


class SettleCrashesWithoutTurnEnd(Miniature):
    """``settle`` raises when the log has no turn/end (a cut stream has none).

    Caught by ``settle.agrees`` (an error on a valid input).
    """

    name = "settle-crashes-without-turn-end"

    def settle(self, input: Any) -> Any:
        if not any(_is(event, "turn/end") for event in input["events"]):
            raise LookupError("no turn/end in the log")
        return self.reference.run("settle", input)


#: Every miniature: name -> (class, the rule id that must be the first reported failure).
MINIATURES: dict[str, tuple[type[Miniature], str]] = {
    cls.name: (cls, rule)
    for cls, rule in (
        (LastMessageUnfiltered, "select.never-empty"),
        (AnyMessageBeatsText, "select.text-fallback"),
        (NoTextFallback, "select.text-fallback"),
        (TextPresenceDecides, "select.last-message"),
        (CountsReasoningDeltas, "select.text-fallback"),
        (CountsToolCallDeltas, "select.text-fallback"),
        (CountsToolResults, "select.text-fallback"),
        (EmptyListForNoOutput, "select.never-empty"),
        (LaterTextBeatsMessage, "select.last-message"),
        (SkipsInterruptedMessages, "select.last-message"),
        (FirstMessageWins, "select.last-message"),
        (SelectJoinsWithNewlines, "select.text-fallback"),
        (DropsUndecodableMessages, "select.last-message"),
        (RebuildsBlocks, "select.last-message"),
        (CrashesOnUnknownTypes, "select.agrees"),
        (EchoesDoubles, "select.last-message"),
        (TurnsAsDoubles, "settle.accounting-turn"),
        (FoldIgnoresPushText, "fold.prefix"),
        (FoldStartsWithEmptyList, "fold.prefix"),
        (FoldRightOnlyAtEnd, "fold.prefix"),
        (FoldOmitsInitialCollect, "fold.shape"),
        (LifecycleEmptyList, "settle.last-assistant"),
        (LifecycleUnfiltered, "settle.last-assistant"),
        (ResultOutputNull, "settle.output"),
        (ResultOutputUnfiltered, "settle.output"),
        (IgnoresCancellation, "settle.cancelled"),
        (CancellationOverridesCompleted, "settle.cancelled"),
        (BlockedIsError, "settle.one-shot-reason"),
        (MaxTokensIsError, "settle.one-shot-reason"),
        (InterruptedAbortedOneShot, "settle.one-shot-reason"),
        (InterruptedErrorContinuable, "settle.continuable-reason"),
        (ContinuableNoEndIsError, "settle.continuable-reason"),
        (FirstTurnEndDecides, "settle.accounting-turn"),
        (LastTurnEndWins, "settle.accounting-turn"),
        (ClaimsIgnored, "settle.accounting-turn"),
        (ClaimedCompletedCounted, "settle.accounting-turn"),
        (DroppedUnrunNeverCleared, "settle.dropped-unrun"),
        (EmptyDiagnosticDropped, "settle.tool-result"),
        (ContinuableToolResult, "settle.tool-result"),
        (ToolErrorWithoutPartialText, "settle.tool-result"),
        (ToolErrorWithoutDiagnostic, "settle.tool-result"),
        (ToolTextJoinedWithNewlines, "settle.tool-result"),
        (MaxTokensToolResultNotError, "settle.tool-result"),
        (LifecycleStopReasonBeforeCancellation, "settle.last-assistant"),
        (SettleCrashesWithoutTurnEnd, "settle.agrees"),
    )
}
