"""The selection profile's strategies: operation inputs, settle inputs."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from hypothesis import strategies as st

from ..._model import Capabilities, Family
from ..._reused import BOOLEANS, integers, sampled
from ..._traps import trap_families
from .events import (
    _cancellation,
    _chunk,
    _claim,
    _in_turn,
    _insertion,
    _likely,
    _message,
    _numbered,
    _open_chunk,
    _reason_kinds,
    _step_end,
    _step_start,
    _tool_call,
    _tool_result,
    _turn_end,
    _turn_start,
    _user_message,
    decoys,
    edge_index,
)
from .logs import (
    _competing_outputs,
    _essential_events,
    _fallback_material,
    _log_drafts,
    session_logs,
)
from .sequences import sequence_inputs, sequence_requests
from .settle_forms import EDGE_REMOVALS, written
from .tool_texts import tool_text_folds, tool_text_selects, tool_text_settles
from .tour import tour_logs
from .values import (
    Block,
    Event,
    _copied,
    _maybe,
    _some,
    _text_blocks,
    _tool_call_blocks,
    _tool_result_blocks,
    chunks,
    content_blocks,
    text_pieces,
    usages,
)

# -- operation inputs (selection.md §7) ------------------------------------------------------------

def _is_text_delta(event: Any) -> bool:
    return (isinstance(event, dict) and event.get("type") == "assistant/chunk"
            and isinstance(event.get("data"), dict) and isinstance(event["data"].get("chunk"), dict)
            and event["data"]["chunk"].get("type") == "text-delta")


@st.composite
def _streamed_text_logs(draw: st.DrawFn) -> dict[str, Any]:
    """Logs without a message with content but with streamed text (§3.3): the fallback's
    material with at least one non-empty text delta, anywhere."""
    drafts = draw(_fallback_material())
    text = draw(text_pieces()) or "partial answer"
    drafts.insert(draw(integers(0, len(drafts))),
                  _open_chunk(draw, {"type": "text-delta", "index": edge_index(draw),
                                     "text": text}))
    return {"events": _numbered(draw, drafts)}


@st.composite
def _answered_logs(draw: st.DrawFn) -> dict[str, Any]:
    """Messages and streamed text competing (§3.1, §3.2) with at least one message with content,
    anywhere: the output is the content of the last one."""
    drafts = draw(_competing_outputs())
    answer = draw(_essential_events()["answer"])
    drafts.insert(draw(integers(0, len(drafts))), answer)
    return {"events": _numbered(draw, drafts)}


@st.composite
def _outputless_logs(draw: st.DrawFn) -> dict[str, Any]:
    """Logs with neither a message with content nor streamed text (§3.3): the output is null,
    whatever else the log holds."""
    drafts = [event for event in draw(_fallback_material()) if not _is_text_delta(event)]
    return {"events": _numbered(draw, drafts)}


@st.composite
def _decoyed_logs(draw: st.DrawFn) -> dict[str, Any]:
    """A log of any of the three answer classes, then input that carries text and contributes
    nothing (§3.4), at least one piece of it after every output: a user message, a tool result
    or call, a splice inserting messages with text, and events of every non-contributing type
    with an assistant-shaped message where a careless reader looks for one. A reader that
    takes the last text it meets, or any ``data.message``, answers the decoy."""
    base = draw(sampled(("message", "text", "none")))
    if base == "message":
        drafts = draw(_competing_outputs())
        drafts.insert(draw(integers(0, len(drafts))), draw(_essential_events()["answer"]))
    elif base == "text":
        drafts = draw(_fallback_material())
        drafts.append(_open_chunk(draw, {"type": "text-delta", "index": 0,
                                         "text": draw(text_pieces()) or "partial"}))
    else:
        drafts = [event for event in draw(_fallback_material()) if not _is_text_delta(event)]
    for decoy in draw(decoys()):
        drafts.insert(draw(integers(0, len(drafts))), decoy)
    drafts.extend(draw(decoys(least=1)))
    return {"events": written(draw, _numbered(draw, drafts))}


def select_families(capabilities: Capabilities | None = None) -> tuple[Family, ...]:
    """The kinds of ``select`` input a run covers: logs of every shape, and one family aimed at
    each answer class (a message's content, streamed text, no output), so that every run meets
    all three."""
    return (
        Family("logs", 3, select_inputs(capabilities)),
        Family("message-content", 1, _answered_logs(),
               aims=("select.last-message", "select.never-empty")),
        Family("streamed-text", 1, _streamed_text_logs(),
               aims=("select.text-fallback", "select.never-empty")),
        Family("no-output", 1, _outputless_logs(),
               aims=("select.text-fallback", "select.never-empty")),
        Family("decoys", 1, _decoyed_logs(),
               aims=("select.last-message", "select.text-fallback", "select.never-empty")),
        # Built logs of the texts a tool result carries (:mod:`.tool_texts`), each asked once.
        _built("tool-texts", tool_text_selects(),
               ("select.text-fallback", "select.last-message")),
        # Last: its logs are long, and a counterexample is shrunk in the first family showing it.
        Family("every-shape", 1, _tour_logs(),
               examples=TOUR_EXAMPLES),
        *trap_families("select", capabilities),
    )


#: The examples of a tour family, whatever the effort: each tour meets every shape (:mod:`.tour`).
TOUR_EXAMPLES = 3


@st.composite
def _tour_logs(draw: st.DrawFn) -> dict[str, Any]:
    """A log of every shape the session-event schema allows (:mod:`.tour`)."""
    return {"events": draw(tour_logs())}


def select_inputs(capabilities: Capabilities | None = None) -> st.SearchStrategy[dict[str, Any]]:
    """Inputs of the ``select`` operation: ``{"events": <log>}``, each log written one of the
    ways that leave its selection alone (its numbers at their edges and as doubles, its seq and
    time in any order, members no schema names on every open object: settle_forms)."""
    return _written_logs()


@st.composite
def _written_logs(draw: st.DrawFn) -> dict[str, Any]:
    return {"events": written(draw, [_copied(event) for event in draw(session_logs())])}


@st.composite
def _pushes(draw: st.DrawFn) -> list[dict[str, Any]]:
    # Three transports (selection.md §4): session events only, raw text only (push_text), and a
    # mix where some text arrives as raw text and extra pieces (incl. "") are pushed in between.
    transport = draw(sampled(("events", "text", "mixed")))
    if transport == "text":
        return [{"text": piece} for piece in draw(_some(text_pieces(), 0, 6))]
    events = draw(_written_logs())["events"]
    if transport == "events":
        return [{"event": event} for event in events]
    pushes: list[dict[str, Any]] = []
    for event in events:
        if _is_text_delta(event) and draw(BOOLEANS):
            pushes.append({"text": event["data"]["chunk"]["text"]})
        else:
            pushes.append({"event": event})
        if draw(BOOLEANS):
            pushes.append({"text": draw(text_pieces())})
    return pushes


def fold_inputs(capabilities: Capabilities | None = None) -> st.SearchStrategy[dict[str, Any]]:
    """Inputs of the ``fold`` operation: ``{"pushes": [{"event": …} | {"text": …}]}``."""
    return st.fixed_dictionaries({"pushes": _pushes()})


def _built(name: str, inputs: tuple[dict[str, Any], ...], aims: tuple[str, ...]) -> Family:
    """A fixed share of built inputs, each asked once."""
    return Family(name, 1, st.sampled_from(inputs), aims, examples=len(inputs))


def _as_pushes(log: dict[str, Any]) -> dict[str, Any]:
    return {"pushes": [{"event": event} for event in log["events"]]}


def fold_families(capabilities: Capabilities | None = None) -> tuple[Family, ...]:
    """The kinds of ``fold`` input a run covers: pushes of every transport, and logs of
    streamed text pushed as events, whose delta is indexed at an edge (0, ``1.0``, 2^53 - 1,
    beyond) and sometimes carries members of its own: the chunk reaches the fold whole."""
    return (
        Family("pushes", 3, fold_inputs(capabilities)),
        Family("streamed-events", 1, _streamed_text_logs().map(_as_pushes)),
        Family("decoys", 1, _decoyed_logs().map(_as_pushes)),
        _built("tool-texts", tool_text_folds(), ("fold.prefix",)),
        Family("every-shape", 1, _tour_logs().map(_as_pushes), examples=TOUR_EXAMPLES),
        *trap_families("fold", capabilities),
    )


# -- settle inputs (selection.md §5, §7) -----------------------------------------------------------
# The settle families: each generates the logs one wrong reading of §5 gets wrong, in both modes.

#: Kinds a turn that ends before its first step may have: rejected (blocked), cancelled (aborted),
#: failed (error), rewritten away (completed), closed on reload (interrupted) or not known yet.
_UNSTEPPED_ENDS: tuple[str, ...] = (
    "blocked", "completed", "aborted", "error", "blocked", "completed", "aborted", "error",
    "interrupted", "paused",
)
#: Kinds a stepped turn ends with, the ones whose mappings differ between the paths first.
#: Kinds a claimed turn ends with before its first step: rejected first of all (§5.1).
_CLAIMED_ENDS: tuple[str, ...] = (
    "blocked", "completed", "blocked", "aborted", "error", "completed", "blocked", "interrupted",
    "paused",
)
_STEPPED_ENDS: tuple[str, ...] = (
    "completed", "max-tokens", "aborted", "error", "interrupted", "blocked", "completed",
    "max-tokens", "interrupted", "error", "aborted", "completed", "paused", "Completed",
)
_DIAGNOSTICS = ("exit code 137", "context window exceeded\nafter 3 retries", "\ud800 😀")


_KEEP = st.sampled_from((False, *[True] * 15))  # shrinks to False: the event goes


@cache
def _diagnostics() -> st.SearchStrategy[str | None]:
    # Absent, empty (its line is still shown, §5.6) and non-empty, each about a third of the time.
    return st.one_of(st.none(), st.just(""),
                     st.one_of(st.sampled_from(_DIAGNOSTICS), text_pieces()))


#: The mode of a request: absent (one-shot), continuable, or an explicit one-shot.
_MODES = st.sampled_from((None, "continuable", "one-shot", "continuable"))
#: The same, for families whose logs matter most on the continuable path.
_MOSTLY_CONTINUABLE = st.sampled_from((None, "continuable", "continuable", "continuable"))
#: A one-shot run is cancelled a third of the time: its mapping is read without the override.
_CANCELLED = st.sampled_from((False, True, False))


def _request(draw: st.DrawFn, drafts: list[Event], *, thinned: bool = True,
             modes: st.SearchStrategy[str | None] = _MODES,
             far_turns: bool = False, numbered: bool = False) -> dict[str, Any]:
    """A settle request over ``drafts``: one-shot (``mode`` absent or explicit) or continuable.

    When ``thinned``, each event is kept unless its own draw says no: rarely while generating (an
    event gone now and then is one more irregular log), and event by event while shrinking, so
    a counterexample sheds the scaffolding its family built around the events that matter.
    The log is written any way that keeps its meaning (:func:`.settle_forms.written`); with
    ``numbered`` (or ``far_turns``) its turn numbers (and with ``numbered`` its removed counts)
    are the family's own and keep their values.
    """
    if thinned:
        drafts = [event for event in drafts if draw(_KEEP)]
    events = _numbered(draw, drafts, far_turns=far_turns, as_built=numbered)
    mode = draw(modes)
    # Drawn on both paths, so that the shrinker can move a counterexample from one path to the
    # other without the draws after it changing meaning.
    cancelled = draw(_CANCELLED)
    diagnostic = draw(_diagnostics())
    # Last: how many draws writing takes depends on the log's length.
    written(draw, events, relabel=not (far_turns or numbered))
    if mode == "continuable":
        return {"events": events, "mode": "continuable"}
    request: dict[str, Any] = {"events": events}
    if mode is not None:
        request["mode"] = mode
    request["cancelled"] = cancelled
    if diagnostic is not None:
        request["diagnostic"] = diagnostic
    return request


@cache
def _answers() -> st.SearchStrategy[list[Block]]:
    """The content of a step's message: an answer, textless blocks, or the usage-only []."""
    return st.one_of(
        st.lists(_text_blocks(), min_size=1, max_size=2),
        st.just([]),
        st.lists(content_blocks(("reasoning", "tool-call", "unknown", "text")), min_size=1,
                 max_size=2),
    )


def _model_step(draw: st.DrawFn, turn: int, step: int) -> list[Event]:
    """One model step of ``turn``: step/start, maybe streamed text, maybe a message, step/end.

    The step/start is what makes its turn account for work (§5.1); what follows it may be cut
    anywhere.
    """
    events = [_step_start(turn, step)]
    if draw(BOOLEANS):
        events.append(_in_turn(_chunk({"type": "text-delta", "index": 0,
                                       "text": draw(text_pieces())}), turn, step))
    if _likely(draw):
        events.append(_in_turn(_message(draw(_answers()), usage=draw(_maybe(usages())),
                                        interrupted=not _likely(draw)), turn, step))
    if _likely(draw):
        events.append(_step_end(turn, step))
    return events


def _unstepped_turn(draw: st.DrawFn, turn: int, kinds: Sequence[str] = _UNSTEPPED_ENDS,
                    claim: bool | None = None) -> list[Event]:
    """A turn that opens and closes before any step: claimed or not (§5.1)."""
    claimed = draw(BOOLEANS) if claim is None else claim
    return [_turn_start(turn), *([_claim()] if claimed else []),
            _turn_end(turn, draw(sampled(kinds)))]


def _stepped_turn(draw: st.DrawFn, turn: int, kind: str | None = None) -> list[Event]:
    """A turn that claims its input (usually), runs 1-2 steps and ends with ``kind``."""
    events = [_turn_start(turn)]
    if _likely(draw):
        events.append(_claim())
    for step in range(draw(integers(1, 2))):
        events += _model_step(draw, turn, step)
        if not _likely(draw):
            events.append(_claim("next-step"))  # a steering message claimed at a step boundary
    events.append(_turn_end(turn, kind or draw(sampled(_STEPPED_ENDS))))
    return events


@st.composite
def _irregular_turns(draw: st.DrawFn) -> dict[str, Any]:
    """Turn, step and inbox events in any order over turns 1 and 2: repeated turn numbers,
    turn/end without turn/start, step/start outside the open turn, splices outside any turn
    (§5.1). Short, so that a counterexample is the two or three events that matter."""
    return _request(draw, draw(_some(_irregular_events(), 0, 6)), thinned=False)


@st.composite
def _far_irregular_turns(draw: st.DrawFn) -> dict[str, Any]:
    """Two turns numbered beyond 2^53 - 1, where turns 1 and 2 are one double (selection.md §1:
    numbers compare exactly, so they are two turns): one steps and is left open, the other ends,
    maybe claimed, among irregular events. Whether the end accounts for work depends on the two
    turns being told apart (§5.1)."""
    first, second = draw(sampled(((1, 2), (2, 1))))
    core = [_turn_start(first), _step_start(first)]
    if draw(BOOLEANS):
        core.append(_in_turn(_message([{"type": "text", "text": "draft"}]), first))
    core.append(_turn_start(second))
    if draw(BOOLEANS):
        core.append(_claim())
    core.append(_turn_end(second, draw(_reason_kinds())))
    for event in draw(_some(_irregular_events(), 0, 2)):
        core.insert(draw(integers(0, len(core))), event)
    return _request(draw, core, thinned=False, far_turns=True)


@cache
def _irregular_events() -> st.SearchStrategy[Event]:
    turns = st.sampled_from((1, 2))
    return st.one_of(
        st.builds(_step_start, turns),
        st.builds(_turn_end, turns, _reason_kinds()),
        st.just(_claim()),
        st.builds(_turn_start, turns),
        st.booleans().map(_cancellation),
        st.builds(_insertion),
        st.lists(_text_blocks(), min_size=1, max_size=1).map(lambda blocks: _in_turn(
            _message(blocks), 1)),
    )


@st.composite
def _stepped_then_unstepped(draw: st.DrawFn) -> dict[str, Any]:
    """A stepped turn, then balanced turns that never reach a step (§5.1): the later turn/end
    events account for work only when claimed and not completed."""
    first = draw(integers(1, 2))
    events = [_insertion()] if draw(BOOLEANS) else []
    events += _stepped_turn(draw, first)
    for turn in range(first + 1, first + 1 + draw(integers(1, 2))):
        if draw(BOOLEANS):
            events.append(_insertion())
        events += _unstepped_turn(draw, turn)
    if not _likely(draw):
        events.append(_cancellation(draw(BOOLEANS)))
    return _request(draw, events)


@st.composite
def _claimed_unstepped(draw: st.DrawFn) -> dict[str, Any]:
    """Turns that claim their input and end before the first step: rejected (blocked), cancelled,
    failed or rewritten away (completed), maybe after a stepped turn (§5.1)."""
    events = _stepped_turn(draw, 1) if draw(BOOLEANS) else []
    for _ in range(draw(integers(1, 2))):
        turn = draw(integers(1, 3))  # may repeat an earlier turn's number
        events += _unstepped_turn(draw, turn, _CLAIMED_ENDS, claim=True)
    return _request(draw, events)


@st.composite
def _cancelled_work(draw: st.DrawFn) -> dict[str, Any]:
    """A run with inbox cancellations at any point: before its first turn, between turns, after
    the end; with a replacement or none (§5.1 settle.dropped-unrun); and claims at any point,
    inside a turn or outside all."""
    turns: list[list[Event]] = []
    for turn in range(1, 1 + draw(integers(1, 2))):
        # Dropped work is read only after a clean end or none (§5.3): mostly completed turns.
        kind = draw(sampled(("completed", "completed", None)))
        turns.append(_stepped_turn(draw, turn, kind) if _likely(draw)
                     else _unstepped_turn(draw, turn))
    for _ in range(draw(integers(1, 2))):
        at = draw(sampled(range(len(turns) + 1)))  # before a turn, or after the last
        splice = draw(sampled(("cancel", "replace", "cancel", "claim")))
        turns.insert(at, [_claim() if splice == "claim" else _cancellation(splice == "replace")])
    if not _likely(draw):
        inside = draw(sampled(range(len(turns))))  # a cancellation inside a turn
        turns[inside] = [*turns[inside][:1], _cancellation(), *turns[inside][1:]]
    events = [event for part in turns for event in part]
    if draw(BOOLEANS):
        events.append(_insertion())
    return _request(draw, events, modes=_MOSTLY_CONTINUABLE)


#: Ends whose reading differs between the paths (§5.3): interrupted, no end, completed with and
#: without dropped work, kinds nobody knows; and the rest, for the mappings they share.
_PATH_ENDS: tuple[str | None, ...] = (
    "interrupted", None, "completed", "interrupted", "error", "max-tokens", "paused", "blocked",
    "aborted", "completed", "interrupted", "max-tokens", None, "max-tokens", "max-tokens",
    "error", "blocked",
)


@st.composite
def _path_differences(draw: st.DrawFn) -> dict[str, Any]:
    """One stepped turn ending where the two paths part (§5.2, §5.3), maybe with no turn/end,
    maybe followed by a cancellation: the same kinds of log on both paths."""
    kind = draw(sampled(_PATH_ENDS))
    events = _stepped_turn(draw, 1, kind or "completed")
    if kind is None:
        events = events[:-1]  # torn down before the loop recorded its end
    if not _likely(draw):
        events.append(_cancellation(draw(BOOLEANS)))
    return _request(draw, events)


def _agent_loop_run(draw: st.DrawFn) -> list[Event]:
    """A run as the agent loop writes it, cut at any point and maybe cancelled afterwards."""
    events = [_insertion()]
    for turn in range(1, 1 + draw(integers(1, 3))):
        if not _likely(draw):
            events.append(_cancellation(draw(BOOLEANS)))
        events += (_stepped_turn(draw, turn) if _likely(draw) else
                   _unstepped_turn(draw, turn, claim=_likely(draw)))
        if draw(BOOLEANS):
            events.append(_insertion())
    if draw(BOOLEANS):
        events = events[:draw(integers(0, len(events)))]  # torn down mid-run
    ending = draw(sampled((None, None, "cancel", "replace")))
    if ending is not None:
        events.append(_cancellation(ending == "replace"))
    return events


@st.composite
def _agent_loop_runs(draw: st.DrawFn) -> dict[str, Any]:
    """Runs as the agent loop writes them (§2, §5.1), cut and cancelled anywhere."""
    return _request(draw, _agent_loop_run(draw))


#: How an output-heavy log ends: its own turn/end events, one stepped accounting end of a kind,
#: or none at all.
_OUTPUT_ENDS: tuple[str | None, ...] = (
    "as-logged", "completed", "completed", "max-tokens", "blocked", "aborted", "error",
    "interrupted", None, "paused", "completed", "max-tokens", "max-tokens",
)


@st.composite
def _outputs(draw: st.DrawFn) -> dict[str, Any]:
    """The selection's log shapes (§3) as runs that end every way (§5.4-§5.6)."""
    drafts = draw(_log_drafts())
    end = draw(sampled(_OUTPUT_ENDS))
    if end != "as-logged":
        drafts = [e for e in drafts if e["type"] != "turn/end"]
        if end is not None:
            # A step/start of turn 1 makes the end account for work, wherever it sits.
            drafts = [_step_start(1), *drafts, _turn_end(1, end)]
    return _request(draw, drafts)


# -- turns whose accounting is the answer (§5.1) ---------------------------------------------------
# Each of these logs has a completed turn that ran a step (the end, unless a later turn accounts
# for work), then a turn that ends otherwise: whether that later turn accounts for work is the
# stop reason, on both paths, cancelled or not. The later turn is built either with the events a
# step or a claim brings but no mark (it accounts for nothing), or with one mark written the ways
# a reader may miss it (it accounts). Their simplest draw (the first of every search) is itself
# such a turn, and the parts that make it one are present unless drawn away.

#: Ends of the decided turn: on both paths each settles otherwise than the completed turn before.
_DECIDING_ENDS: tuple[str, ...] = ("blocked", "error", "aborted", "interrupted", "paused")
#: The numbers of a turn whose claim decides: 0 (falsy), -1 (a "no turn" sentinel), the largest
#: integer a double holds and one beyond it, a far negative (selection.md §2.4: any integer).
_CLAIMED_TURNS: tuple[int, ...] = (0, -1, 0, 2**53 - 1, 2**53 + 1, -(2**53) - 1)
#: The same, negative first (a "no turn" sentinel of -1, §2.4: any integer).
_NEGATIVE_CLAIMED_TURNS: tuple[int, ...] = (-1, 0, -1, -2, -(2**53) - 1, 2**53 + 1)
#: Present three times in four, and present in the simplest draw: a part that makes the case.
_PRESENT = st.sampled_from((True, True, True, False))
#: The inbox lists a claim may come from: the target does not decide a claim (§5.1 step 3).
_TARGETS = st.sampled_from(("next-step", "next-turn"))


def _completed_turn(draw: st.DrawFn, turn: int, *, claimed: bool | None = None) -> list[Event]:
    """A turn that runs one step and ends completed: the end, unless a later turn accounts."""
    claim = draw(BOOLEANS) if claimed is None else claimed
    return [_turn_start(turn), *([_claim(draw(_TARGETS))] if claim else []),
            *_model_step(draw, turn, 0), _turn_end(turn, "completed")]


def _replacement(removed: int | float, inserted: int) -> Event:
    """A canceled removal of ``removed`` messages with ``inserted`` put in their place."""
    event = _cancellation(True)
    event["data"]["removedCount"] = removed
    event["data"]["inserted"] = [
        {"id": "", "role": "user", "content": [{"type": "text", "text": f"retry {n}"}],
         "source": {"kind": "user"}} for n in range(inserted)]
    return event


def _insertion_of(target: str, count: int) -> Event:
    """New pending input of ``count`` messages on the ``target`` list: no removal."""
    event = _insertion()
    event["data"]["target"] = target
    event["data"]["inserted"] = event["data"]["inserted"] * count
    return event


@cache
def _long_content() -> st.SearchStrategy[list[Block]]:
    return st.lists(content_blocks(("text", "reasoning", "tool-call")), min_size=5, max_size=6)


def _unmarking_events(draw: st.DrawFn, turn: int) -> list[Event]:
    """The events of a turn that ran a step, but not its step/start: none marks the turn (§5.1:
    only a step/start marks a step, only a removal without outcome claims, every other event
    changes nothing). A tool call, a message (long or short), a streamed chunk, a tool result, a
    step end, an insertion (of one message or many, on either list), a replacement that removes
    more than it inserts, a user message: each present unless drawn away."""
    candidates: list[Event] = [
        _tool_call(draw(_tool_call_blocks())),
        _message(draw(st.one_of(_answers(), _long_content()))),
        _chunk({"type": "text-delta", "index": 0, "text": draw(text_pieces())}),
        _tool_result(draw(_tool_result_blocks())),
        _step_end(0),
        _insertion_of(draw(_TARGETS), draw(sampled((1, 5, 2)))),
        _replacement(draw(sampled(EDGE_REMOVALS[1:])), 1),
        _user_message(draw(_some(_text_blocks(), 1, 1))),
        _chunk(draw(_any_chunks())),
    ]
    step = draw(sampled(_DECOY_STEPS))
    return [_in_turn(event, turn, step) for event in candidates if draw(_PRESENT)]


@st.composite
def _unmarked_turns(draw: st.DrawFn) -> dict[str, Any]:
    """A completed turn, then turns that carry what a step or a claim brings (tool calls,
    messages, chunks, results, insertions, replacements) but no mark, ending other than
    completed: they account for no work, and the completed turn stays the end (§5.1)."""
    first = draw(integers(1, 2))
    events = _completed_turn(draw, first)
    numbers = draw(_decoy_turns())
    for turn in numbers[:draw(integers(1, 2))]:
        events += [*([_turn_start(turn)] if draw(_PRESENT) else []),
                   *_unmarking_events(draw, turn),
                   _turn_end(turn, draw(sampled(_DECIDING_ENDS)))]
    return _request(draw, events, thinned=False, numbered=True, modes=_CONTINUABLE_FIRST)


#: The numbers of turns without a mark, and of their steps (any integers, §2.4).
_DECOY_TURNS: tuple[int, ...] = (3, 0, -1, 2**53 - 1, 2**53 + 1, -(2**53) - 1, 4)
_DECOY_STEPS: tuple[int, ...] = (0, -1, 2**53 - 1, 2**53 + 1, 1)


@cache
def _any_chunks() -> st.SearchStrategy[dict[str, Any]]:
    return chunks()


@cache
def _decoy_turns() -> st.SearchStrategy[list[int]]:
    return st.permutations(_DECOY_TURNS)


def _written_as(event: Event, double: bool) -> Event:
    """``event`` with its turn number written as the integral double of the same number when
    ``double`` (and a double holds it exactly): one turn, another literal (selection.md §1)."""
    if double and abs(event["data"]["turn"]) <= 2**53:
        event["data"]["turn"] = float(event["data"]["turn"])
    return event


@st.composite
def _hidden_claims(draw: st.DrawFn, numbers: tuple[int, ...] = _CLAIMED_TURNS) -> dict[str, Any]:
    """A completed turn, then a turn whose only mark is a claim, ending other than completed
    (it accounts, §5.1): numbered 0, -1 or at the edges of a double, its turn/start and turn/end
    writing the number differently (1.0 and 1 are one turn, §1), the claim from either list
    (the target does not matter), maybe another turn opened before its turn/end (the turn/end
    looks up its own number) or its turn/start repeated (a turn/start clears no mark)."""
    turn = draw(sampled(numbers))
    double = draw(BOOLEANS)
    events = _completed_turn(draw, 1 if turn != 1 else 2)
    events.append(_written_as(_turn_start(turn), double))
    if draw(BOOLEANS):
        events += _unmarking_events(draw, turn)[:2]
    events.append(_claim(draw(_TARGETS)))
    after = draw(sampled(("nothing", "another turn opens", "its turn/start again")))
    if after == "another turn opens":
        events.append(_turn_start(7))
    elif after == "its turn/start again":
        events.append(_written_as(_turn_start(turn), double))
    events.append(_written_as(_turn_end(turn, draw(sampled(_DECIDING_ENDS))), not double))
    return _request(draw, events, thinned=False, numbered=True)


@st.composite
def _hidden_steps(draw: st.DrawFn) -> dict[str, Any]:
    """A completed turn, then a turn whose only mark is a step/start that is not where the loop
    writes one (it accounts, §5.1 step 2): before the turn's turn/start, while another turn is
    open or none is, written as the other literal of the same number; the turn/end maybe
    without a turn/start of its own, maybe while another turn is open."""
    turn = draw(sampled((2, 0, -1, 3)))
    double = draw(BOOLEANS)
    events = _completed_turn(draw, 1)
    where = draw(sampled(("before its turn/start", "inside another turn", "without a turn/start",
                          "inside its turn")))
    step = _written_as(_step_start(turn), double)
    if where == "inside another turn":
        events += [_turn_start(5), step]
    elif where != "inside its turn":
        events.append(step)
    if where != "without a turn/start":
        events.append(_written_as(_turn_start(turn), not double))
    if where == "inside its turn":
        events.append(step)
    if draw(BOOLEANS):
        events.append(_turn_start(6))  # another turn opens before this one ends
    events.append(_written_as(_turn_end(turn, draw(sampled(_DECIDING_ENDS))), not double))
    return _request(draw, events, thinned=False, numbered=True)


@st.composite
def _repeated_turn_ends(draw: st.DrawFn) -> dict[str, Any]:
    """A completed turn that ran a step, claimed or not, then maybe a claim outside any turn and
    a second turn/end of the same number (maybe after its turn/start again), ending other than
    completed (§5.1): it accounts exactly when the first turn claimed, its claim left in place
    by the step mark that turn used; a claim outside any turn claims nothing."""
    claimed = draw(BOOLEANS)
    events = _completed_turn(draw, 1, claimed=claimed)
    if draw(_PRESENT):
        events.append(_claim(draw(_TARGETS)))
    if draw(BOOLEANS):
        events.append(_turn_start(1))
    events.append(_turn_end(1, draw(sampled(_DECIDING_ENDS))))
    return _request(draw, events, thinned=False)


#: Ends before a late drop: clean (completed, or none) and the failures it must not hide.
_ENDS_BEFORE_DROPS: tuple[str | None, ...] = (
    "completed", "error", None, "max-tokens", "completed", "blocked", None, "aborted",
)
#: Continuable first: dropped work is read on that path only (§5.3).
_CONTINUABLE_FIRST = st.sampled_from(("continuable", None, "continuable", "one-shot"))


@st.composite
def _drops_after_the_end(draw: st.DrawFn) -> dict[str, Any]:
    """A turn that ran a step and ended (or did not), then input cancelled unrun, then turns
    that account for no work (unstepped, unclaimed or claimed and completed) and replacements
    that remove more than they insert (§5.1 settle.dropped-unrun, §5.3): the drop stands until
    a turn/end accounts for work, the replacements drop nothing, and a failure recorded before
    the drop wins over it on the continuable path; the one-shot path never reads it."""
    kind = draw(sampled(_ENDS_BEFORE_DROPS))
    events = [_turn_start(1), _step_start(1)]
    if draw(BOOLEANS):
        events.append(_in_turn(_message([{"type": "text", "text": "partial"}]), 1))
    if kind is not None:
        events.append(_turn_end(1, kind))
    if draw(_PRESENT):
        events.append(_cancellation(False))
    for turn in range(2, 2 + draw(integers(1, 2))):
        claim = draw(BOOLEANS)
        events += [_turn_start(turn), *([_claim(draw(_TARGETS))] if claim else []),
                   _turn_end(turn, "completed" if claim else draw(_reason_kinds()))]
    if draw(BOOLEANS):
        events.append(_replacement(draw(sampled(EDGE_REMOVALS[1:])), 1))
    return _request(draw, events, thinned=False, numbered=True, modes=_CONTINUABLE_FIRST)


#: The rules each settle family is built to reach (every family reaches the catch-all
#: ``settle.agrees``; tests/unit/test_where.py holds every rule to at least one family).
SETTLE_FAMILY_AIMS: dict[str, tuple[str, ...]] = {
    "irregular-turns": ("settle.accounting-turn", "settle.dropped-unrun",
                        "settle.one-shot-reason", "settle.continuable-reason"),
    "far-turns": ("settle.accounting-turn", "settle.dropped-unrun"),
    "stepped-then-unstepped": ("settle.accounting-turn", "settle.one-shot-reason",
                               "settle.continuable-reason"),
    "claimed-unstepped": ("settle.accounting-turn", "settle.one-shot-reason",
                          "settle.continuable-reason", "settle.cancelled"),
    "cancelled-work": ("settle.dropped-unrun", "settle.continuable-reason", "settle.cancelled"),
    "path-differences": ("settle.one-shot-reason", "settle.continuable-reason",
                         "settle.cancelled", "settle.tool-result"),
    "agent-loop-runs": (),
    "outputs": ("settle.output", "settle.last-assistant", "settle.tool-result",
                "settle.one-shot-reason", "settle.cancelled"),
    "unmarked-turns": ("settle.accounting-turn", "settle.dropped-unrun"),
    "hidden-claims": ("settle.accounting-turn",),
    "hidden-negative-claims": ("settle.accounting-turn",),
    "hidden-steps": ("settle.accounting-turn",),
    "repeated-turn-ends": ("settle.accounting-turn",),
    "drops-after-the-end": ("settle.dropped-unrun", "settle.continuable-reason",
                            "settle.one-shot-reason"),
}


#: The end kinds (None: no end) that settle to each stop reason on each path (§5.2, §5.3).
#: "paused" is a kind this version does not know; "aborted" one-shot also comes from the
#: cancelled flag, and continuable from work dropped after a clean end.
SETTLE_CLASS_ENDS: dict[tuple[str, str], tuple[str | None, ...]] = {
    ("one-shot", "completed"): ("completed",),
    ("one-shot", "max-tokens"): ("max-tokens",),
    ("one-shot", "aborted"): ("aborted", "cancelled"),
    ("one-shot", "refusal"): ("blocked",),
    ("one-shot", "error"): ("interrupted", "error", None, "paused"),
    ("continuable", "completed"): ("completed", None),
    ("continuable", "max-tokens"): ("max-tokens",),
    ("continuable", "aborted"): ("aborted", "interrupted", "dropped"),
    ("continuable", "refusal"): ("blocked",),
    ("continuable", "error"): ("error", "paused"),
}
_OUTPUT_EVENTS = frozenset({"assistant/message", "assistant/chunk"})


def _settled_as(path: str, reason: str, output: bool, diagnostic: bool
                ) -> st.SearchStrategy[dict[str, Any]]:
    """Settle requests whose answer is ``reason`` on ``path``, with or without output (and, one
    shot, with or without a diagnostic), by construction: one stepped turn ending with a kind
    that maps to ``reason``, maybe after other turns that end before a step."""


    # A clean continuable ending is where a drop the end cleared would show: there the
    # simplest draw has one.
    early_drops = _PRESENT if (path, reason) == ("continuable", "completed") else BOOLEANS

    @st.composite
    def requests(draw: st.DrawFn) -> dict[str, Any]:
        how = draw(sampled(SETTLE_CLASS_ENDS[path, reason]))
        kind = {"cancelled": draw(sampled(("error", "max-tokens", "blocked", None))),
                "dropped": "completed"}.get(how, how) if how is not None else None
        # Every part but the step and the end shrinks away: a counterexample is the two or three
        # events that matter.
        before = [event for turn in range(1, 1 + draw(integers(0, 1)))
                  for event in _unstepped_turn(draw, turn, claim=False)]
        turn = len(before) // 2 + 1
        if kind is not None and draw(early_drops):
            # Input cancelled before the end: the end reports it, and clears the drop (§5.1).
            before.insert(0, _cancellation(False))
        events = [_turn_start(turn)] if draw(BOOLEANS) else []
        events.append(_step_start(turn))
        if draw(BOOLEANS):
            events.append(_in_turn(_chunk({"type": "text-delta", "index": 0,
                                           "text": draw(text_pieces())}), turn, 0))
        if output:
            # A failed run's answer may hold no text: then its tool result has no partial line.
            answer = draw(sampled(("text", "reasoning") if reason == "completed" else
                                  ("reasoning", "text")))
            block = {"type": answer, "text": draw(text_pieces()) or "done"}
            events.append(_in_turn(_message([block]), turn, 0))
        else:
            events = [event for event in events if event["type"] not in _OUTPUT_EVENTS]
        if draw(BOOLEANS):
            events.append(_step_end(turn))
        if kind is not None:
            events.append(_turn_end(turn, kind))
        if how == "dropped":
            events.append(_cancellation(False))
        elif (path == "one-shot" or kind not in ("completed", None)) and draw(_PRESENT):
            # Input cancelled after the end: read only after a clean end, continuable (§5.3).
            events.append(_cancellation(False))
        elif path == "continuable" and draw(BOOLEANS):
            events.append(_insertion())
        request: dict[str, Any] = {"events": _numbered(draw, before + events)}
        if path == "continuable":
            request["mode"] = "continuable"
        else:
            if draw(BOOLEANS):
                request["mode"] = "one-shot"
            # Cancelled only where the flag gives the reason: aborted, or completed (which it
            # leaves completed).
            request["cancelled"] = how == "cancelled" or (
                reason == "completed" and draw(_PRESENT))
            if diagnostic:
                request["diagnostic"] = draw(st.one_of(st.just(""), text_pieces()))
        written(draw, request["events"])  # last: its draws depend on the log's length
        return request

    return requests()


def _settle_class_families() -> tuple[Family, ...]:
    """One family per stop reason on each path (selection.md §5.2, §5.3): every run meets every
    one, alternately with and without output and diagnostic, so that each of those classes is
    met on both paths too."""
    families = []
    for i, (path, reason) in enumerate(SETTLE_CLASS_ENDS):
        output, diagnostic = i % 2 == 0, i % 4 < 2
        families.append(Family(f"settles-{path}-{reason}", 1,
                               _settled_as(path, reason, output, diagnostic),
                               aims=SETTLE_CLASS_AIMS))
    return tuple(families)


#: The rules the answer-class families aim at.
SETTLE_CLASS_AIMS = ("settle.one-shot-reason", "settle.cancelled", "settle.continuable-reason",
                     "settle.output", "settle.last-assistant", "settle.tool-result")


def settle_families(capabilities: Capabilities | None = None) -> tuple[Family, ...]:
    """The kinds of ``settle`` input a run covers, simplest first, and their shares; then one
    family per answer class (:func:`_settle_class_families`)."""
    strategies: tuple[tuple[str, int, st.SearchStrategy[dict[str, Any]]], ...] = (
        ("irregular-turns", 2, _irregular_turns()),
        ("stepped-then-unstepped", 1, _stepped_then_unstepped()),
        ("claimed-unstepped", 1, _claimed_unstepped()),
        ("cancelled-work", 1, _cancelled_work()),
        ("path-differences", 2, _path_differences()),
        ("agent-loop-runs", 1, _agent_loop_runs()),
        ("outputs", 2, _outputs()),
        # After the simpler families: a counterexample is shrunk in the first family showing it.
        ("far-turns", 1, _far_irregular_turns()),
        # Searched last (_LAST_FAMILIES): their logs keep the parts that decide (present in
        # their simplest draw), so a counterexample of theirs is a few events longer.
        ("repeated-turn-ends", 1, _repeated_turn_ends()),
        ("hidden-claims", 1, _hidden_claims()),
        ("hidden-negative-claims", 1, _hidden_claims(_NEGATIVE_CLAIMED_TURNS)),
        ("hidden-steps", 2, _hidden_steps()),
        ("drops-after-the-end", 2, _drops_after_the_end()),
        ("unmarked-turns", 2, _unmarked_turns()),
    )
    families = tuple(Family(name, weight, strategy, SETTLE_FAMILY_AIMS[name])
                     for name, weight, strategy in strategies)
    # The families whose logs keep the parts that decide go last: a counterexample is shrunk in
    # the first family showing it, and theirs are a few events longer.
    return (tuple(family for family in families if family.name not in _LAST_FAMILIES)
            + _settle_class_families()
            + tuple(family for family in families if family.name in _LAST_FAMILIES)
            + (_built("tool-texts", tool_text_settles(), (
                "settle.tool-result", "settle.output", "settle.last-assistant")),
               Family("every-shape", 1, _tour_requests(),
                      examples=TOUR_EXAMPLES),
               # Every ordered pair of event kinds, and every splice in every turn state.
               Family("event-pairs", 1, sequence_inputs(), examples=len(sequence_requests())))
            + trap_families("settle", capabilities))


@st.composite
def _tour_requests(draw: st.DrawFn) -> dict[str, Any]:
    """A settle request over a log of every shape (:mod:`.tour`), on either path."""
    events = draw(tour_logs())
    mode = draw(_MODES)
    cancelled = draw(_CANCELLED)
    diagnostic = draw(_diagnostics())
    if mode == "continuable":
        return {"events": events, "mode": "continuable"}
    request: dict[str, Any] = {"events": events, "cancelled": cancelled}
    if mode is not None:
        request["mode"] = mode
    if diagnostic is not None:
        request["diagnostic"] = diagnostic
    return request


#: The settle families searched after the answer-class families.
_LAST_FAMILIES = ("repeated-turn-ends", "hidden-claims", "hidden-negative-claims", "hidden-steps",
                  "drops-after-the-end", "unmarked-turns")


def settle_inputs(capabilities: Capabilities | None = None) -> st.SearchStrategy[dict[str, Any]]:
    """Inputs of the ``settle`` operation, drawn from every family of :func:`settle_families`:
    a log and ``mode``; for a one-shot run ``cancelled`` and maybe a ``diagnostic``."""
    return st.one_of([family.strategy for family in settle_families(capabilities)])


