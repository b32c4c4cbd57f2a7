"""The selection profile's strategies: log shapes."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from hypothesis import strategies as st

from ..._reused import BOOLEANS, integers, sampled
from .events import (
    STEP_ENDINGS,
    _chunk,
    _event_drafts,
    _in_turn,
    _likely,
    _message,
    _numbered,
    _reason_kinds,
    _step,
    _step_end,
    _tool_result,
    _turn_end,
    _turn_start,
    _unknown_event_drafts,
    _user_message,
)
from .values import (
    REASON_KINDS,
    Event,
    _either,
    _maybe,
    _pair,
    _some,
    _text_blocks,
    _tool_result_blocks,
    content_blocks,
    text_pieces,
    usages,
)

# -- log shapes ------------------------------------------------------------------------------------
# Each shape is a run users hit; every part of it is optional (absent is the shrink target), so a
# counterexample found in a long run shrinks to the two or three events that matter.

@cache
def _kinds(*choices: str, max_size: int = 2) -> st.SearchStrategy[list[str]]:
    return st.lists(st.sampled_from(choices), min_size=1, max_size=max_size)


def _step_of(
    draw: st.DrawFn, kinds: st.SearchStrategy[list[str]], endings: Sequence[str],
) -> list[Event]:
    return _step(draw, draw(kinds), draw(sampled(endings)))


def _maybe_step(
    draw: st.DrawFn, kinds: st.SearchStrategy[list[str]], endings: Sequence[str],
) -> list[Event]:
    return _step_of(draw, kinds, endings) if _likely(draw) else []


@cache
def _trailing() -> st.SearchStrategy[list[Event]]:
    """Events after the interesting part: unknown types, step ends, usage chunks (or none)."""
    return st.lists(st.one_of(
        _unknown_event_drafts(),
        st.just(_step_end(0, 1)),
        usages().map(lambda usage: _chunk({"type": "usage", "usage": usage})),
    ), max_size=2)


def _turn(draw: st.DrawFn, steps: list[list[Event]], kind: str | None, number: int = 1) -> list[
        Event]:
    """Wrap steps in an optional turn/start and a turn/end of ``kind`` (None: no turn/end).

    The events of the n-th non-empty step become events of turn ``number``, step n.
    """
    events = [_in_turn(e, number, index)
              for index, step in enumerate(step for step in steps if step) for e in step]
    if _likely(draw):
        events = [_turn_start(number), *events]
    if kind is not None:
        events.append(_turn_end(number, kind))
    return events


@cache
def _essential_events() -> dict[str, st.SearchStrategy[Event]]:
    """One strategy per kind of event the selection rules name (§3.1-3.4)."""
    def delta(kind: str, key: str = "text") -> st.SearchStrategy[Event]:
        return text_pieces().map(lambda text: _chunk({"type": kind, "index": 0, key: text}))

    textless = content_blocks(("reasoning", "tool-call", "image", "unknown"))
    return {
        "answer": st.lists(_text_blocks(), min_size=1, max_size=3).map(_message),
        "usage-only": usages().map(lambda usage: _message([], usage=usage)),
        "text-delta": delta("text-delta"),
        "textless": st.lists(textless, min_size=1, max_size=2).map(_message),
        "interrupted": st.lists(content_blocks(("text", "reasoning")), min_size=1, max_size=2).map(
            lambda blocks: _message(blocks, interrupted=True)),
        "interrupted-empty": st.builds(lambda: _message([], interrupted=True)),
        "undecodable": st.lists(content_blocks(("unknown", "text")), min_size=1, max_size=2).map(
            lambda blocks: _message(blocks, extra={"providerMessageId": "resp_9"})),
        "reasoning-delta": delta("reasoning-delta"),
        "tool-call-delta": delta("tool-call-delta", "argumentsDelta").map(
            lambda event: {**event, "data": {**event["data"],
                                             "chunk": {**event["data"]["chunk"], "id": "call_1"}}}),
        "tool-result": st.lists(_text_blocks(), min_size=1, max_size=2).map(lambda blocks: (
            _tool_result({"type": "tool-result", "toolCallId": "call_1", "content": blocks}))),
        "unknown-event": _unknown_event_drafts(),
        "unknown-chunk": delta("x-vendor-delta"),  # an unknown chunk type that carries text
    }


#: Kinds that compete to be the output (§3.1, §3.2): messages of every sort and streamed text,
#: with the most of each a log holds.
_COMPETING: tuple[tuple[str, int], ...] = (
    ("answer", 2), ("text-delta", 3), ("usage-only", 2), ("textless", 2), ("interrupted", 2),
    ("undecodable", 1),
)
#: Kinds met when no message has content (§3.3, §3.4): what the fallback must and must not count.
_FALLBACK: tuple[tuple[str, int], ...] = (
    ("text-delta", 3), ("reasoning-delta", 2), ("tool-call-delta", 2), ("tool-result", 2),
    ("usage-only", 2), ("interrupted-empty", 1), ("unknown-event", 2), ("unknown-chunk", 1),
)


@cache
def _keyed(kind: str, most: int) -> st.SearchStrategy[list[tuple[int, Event]]]:
    return st.lists(st.tuples(st.integers(0, 7), _essential_events()[kind]), max_size=most)


def _mixture(draw: st.DrawFn, family: tuple[tuple[str, int], ...]) -> list[Event]:
    """A few events of each kind of ``family``, in any order.

    Most kinds are present in most logs, so one log meets many rules at once (a fallback log
    with reasoning deltas *and* tool results *and* unknown events). Each event carries its own
    sort key, so a failure shrinks by deleting events (down to the two or three it needs) and
    the rest keep their order; keys shrink to 0, the order of ``family``.
    """
    keyed = [pair for kind, most in family for pair in draw(_keyed(kind, most))]
    keyed.sort(key=lambda pair: pair[0])
    return [event for _, event in keyed]


@st.composite
def _competing_outputs(draw: st.DrawFn) -> list[Event]:
    """Messages (answers, usage-only, textless, interrupted) among streamed text (§3.1-3.3)."""
    return _mixture(draw, _COMPETING)


@st.composite
def _fallback_material(draw: st.DrawFn) -> list[Event]:
    """What surrounds streamed text when no message has content (§3.3, §3.4)."""
    return _mixture(draw, _FALLBACK)


@st.composite
def _noise(draw: st.DrawFn) -> list[Event]:
    """Any session events in any order: turn and step framing, user messages, all of it."""
    return draw(_some(_event_drafts(), 0, 6))


@st.composite
def _text_then_empty_message(draw: st.DrawFn) -> list[Event]:
    """The seed's run: text, then a max-tokens step whose tool calls were dropped (§3.2).

    The tool-call-only step leaves an empty usage-only message, last or nearly so.
    """
    answer = _maybe_step(draw, _kinds("text", "reasoning", "tool-call"),
                         ("message", "stream-only", "interrupted"))
    truncated = _maybe_step(draw, _kinds("tool-call"), ("empty-message",))
    more_empty = [_message([], usage=draw(usages())) for _ in range(draw(integers(0, 1)))]
    kind = draw(sampled((None, "max-tokens", "completed", "aborted")))
    return _turn(draw, [answer, truncated, more_empty], kind) + draw(_trailing())


@st.composite
def _only_chunks(draw: st.DrawFn) -> list[Event]:
    """A cancelled child that never finished a message: chunks only, cut mid-block (§3.3)."""
    steps = [
        _step_of(draw, _kinds("text", "reasoning", "tool-call", max_size=3), ("cut", "stream-only"))
        for _ in range(draw(integers(0, 2)))
    ]
    kind = draw(sampled((None, "aborted", "interrupted", "error")))
    return _turn(draw, steps, kind) + draw(_trailing())


@st.composite
def _textless_message_then_text(draw: st.DrawFn) -> list[Event]:
    """A reasoning-only (or tool-call-only) message, then streamed text: the message wins (§3.1)."""
    message = _maybe_step(draw, _kinds("reasoning", "tool-call"), ("message", "interrupted"))
    if draw(BOOLEANS):
        blocks = draw(_some(content_blocks(("image", "unknown", "reasoning")), 1, 2))
        message.append(_message(blocks))
    text = _maybe_step(draw, _kinds("text", "reasoning"), ("cut", "stream-only", "empty-message"))
    return _turn(draw, [message, text], draw(sampled((None, "aborted", "completed"))))


@st.composite
def _message_then_cut_stream(draw: st.DrawFn) -> list[Event]:
    """A complete message, then a later step cancelled while streaming (§3.1, §5.2)."""
    first = _maybe_step(draw, _kinds("text", "reasoning"), ("message",))
    later = _maybe_step(draw, _kinds("text", "reasoning"), ("cut", "interrupted", "stream-only"))
    kind = draw(sampled((None, "aborted", "interrupted")))
    return _turn(draw, [first, later], kind) + draw(_trailing())


@st.composite
def _empty_messages_and_text(draw: st.DrawFn) -> list[Event]:
    """Streamed text among empty messages only: the text is the output (§3.2, §3.3)."""
    return draw(_text_among_empty_messages())


@cache
def _text_among_empty_messages() -> st.SearchStrategy[list[Event]]:
    return st.lists(st.one_of(
        text_pieces().map(lambda text: _chunk({"type": "text-delta", "index": 0, "text": text})),
        usages().map(lambda usage: _message([], usage=usage)),
        text_pieces().map(lambda text: _chunk(
            {"type": "reasoning-delta", "index": 1, "text": text})),
        st.just(_message([], interrupted=True)),
    ), max_size=6)


@st.composite
def _tool_round_trip(draw: st.DrawFn) -> list[Event]:
    """Tool calls and their results, then text: tool results never contribute (§3.4).

    The calls may never be messaged (a cut step) or end in the usage-only message, so tool
    results also meet the streamed-text fallback.
    """
    calls = _maybe_step(draw, _kinds("tool-call", "text"),
                        ("stream-only", "message", "empty-message", "cut"))
    results = [
        _tool_result({**result, "content": texts})
        for result, texts in draw(_some(_pair(_tool_result_blocks(), _some(_text_blocks(), 1, 2)),
                                        0, 2))
    ]
    after = _maybe_step(draw, _kinds("text", "reasoning"),
                        ("stream-only", "cut", "message", "empty-message"))
    return _turn(draw, [calls, results, after], draw(sampled((None, *REASON_KINDS))))


@st.composite
def _answer_with_many_blocks(draw: st.DrawFn) -> list[Event]:
    """A final answer of several blocks: text, reasoning, tool calls, images, text again.

    Its text blocks are joined with nothing in the delegation tool's text (§5.5); its other
    blocks are left out of it.
    """
    text = _text_blocks()
    others = content_blocks(("reasoning", "image", "tool-call", "unknown"))
    blocks = draw(_some(_either(text, others), 1, 4))  # with the two texts: up to six
    blocks = [draw(text), *blocks, draw(text)] if _likely(draw) else blocks
    answer = [_message(blocks, usage=draw(_maybe(usages())))]
    later = _maybe_step(draw, _kinds("text", "tool-call"), ("cut", "empty-message", "interrupted"))
    return _turn(draw, [answer, later], draw(sampled((None, *REASON_KINDS))))


@st.composite
def _many_turns(draw: st.DrawFn) -> list[Event]:
    """A realistic multi-turn run: user messages, several steps a turn, every reason kind."""
    events: list[Event] = []
    for number in range(draw(integers(2, 4))):
        if draw(BOOLEANS):
            events.append(_user_message(draw(_some(_text_blocks(), 1, 1))))
        steps = [
            _step_of(draw, _kinds("text", "reasoning", "tool-call"), STEP_ENDINGS)
            for _ in range(draw(integers(0, 2)))
        ]
        kind = draw(_maybe(_reason_kinds()))
        events += _turn(draw, steps, kind, number + 1)
    return events + draw(_trailing())


#: The log shapes with their weights, simplest first (a counterexample shrinks toward the first).
#: Weights favour the shapes that reach the most rule boundaries per example.
_SHAPES: tuple[tuple[st.SearchStrategy[list[Event]], int], ...] = (
    (_competing_outputs(), 4),
    (_fallback_material(), 4),
    (_noise(), 1),
    (_text_then_empty_message(), 2),
    (_only_chunks(), 1),
    (_textless_message_then_text(), 1),
    (_message_then_cut_stream(), 2),
    (_empty_messages_and_text(), 1),
    (_tool_round_trip(), 2),
    (_answer_with_many_blocks(), 1),
    (_many_turns(), 1),
)
_WEIGHTED_SHAPES = tuple(index for index, (_, weight) in enumerate(_SHAPES) for _ in range(weight))


@cache
@st.composite
def _log_drafts(draw: st.DrawFn) -> list[Event]:
    shape, _ = _SHAPES[draw(sampled(_WEIGHTED_SHAPES))]
    return draw(shape)


def session_logs() -> st.SearchStrategy[list[Event]]:
    """Whole session logs in the shapes runs take (see the module docstring), numbered."""
    return _session_logs()


@st.composite
def _session_logs(draw: st.DrawFn) -> list[Event]:
    return _numbered(draw, draw(_log_drafts()))


