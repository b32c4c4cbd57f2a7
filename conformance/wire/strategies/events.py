"""The wire profile's strategies: messages, events, updates near."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from eventproof.reference import (
    ID_CLIP_CODE_POINTS,
    MARKER,
    MIN_MAX_BYTES,
    canonical_bytes,
    extract_text,
    well_formed,
)
from hypothesis import strategies as st

from ..._reused import BOOLEANS
from .values import (
    _HIGH_ENDS,
    ASSISTANT_EVENT_TYPES,
    AWKWARD_CHARACTERS,
    AWKWARD_FLOATS,
    AWKWARD_PIECES,
    COLLIDING_NAMES,
    COST_EDGES,
    CURRENT_BOUND,
    INTEGER_LIKE_KEYS,
    KNOWN_TYPES,
    MAX_SAFE_INTEGER,
    PAD_KEY,
    PARTIAL_RESULT_SHAPES,
    SIZE_SENSITIVE_VALUES,
    Event,
    _bound,
    _escaped_size,
    _for_bound,
    _small_objects,
    agent_json_objects,
    astral_units,
    awkward_text,
    json_numbers,
    json_values,
    keyed_map_names,
    repetition_units,
    tool_ids,
)

_ONE_IN_6 = st.integers(0, 5)
_ONE_IN_5 = st.integers(0, 4)
_ONE_IN_4 = st.integers(0, 3)
_ONE_IN_3 = st.integers(0, 2)

# -- messages --------------------------------------------------------------------------------


@cache
def agent_usages() -> st.SearchStrategy[dict[str, Any]]:
    """A token usage record: as pi-style messages carry it (integral floats in ``cost``), empty
    (``{}``, what a provider that reports nothing sends), partial, or of another provider's
    shape (the schema only asks for an object; §4.3 copies it whatever it holds)."""
    counts = st.integers(0, 10**9)
    return st.one_of(_pi_usages(), st.just({}), st.one_of(
        st.fixed_dictionaries({}, optional={
            "input_tokens": counts, "output_tokens": counts, "prompt_tokens": counts,
            "total": st.one_of(counts, st.sampled_from(AWKWARD_FLOATS)), "input": st.none()}),
        _small_objects()))


@cache
def _pi_usages() -> st.SearchStrategy[dict[str, Any]]:
    counts = st.integers(0, 10**9)
    return st.fixed_dictionaries(
        {"input": counts, "output": counts, "totalTokens": counts},
        optional={
            "cacheRead": counts,
            "cacheWrite": counts,
            "cost": st.fixed_dictionaries(
                {"input": json_numbers(), "output": json_numbers(), "total": json_numbers()}
            ),
            "10": counts,
            "2": counts,
        },
    )


#: Members a content block or a message carries beyond those the schemas name (providers add
#: them: a thinking block's signature, cache control, a redaction flag), with integer-like and
#: colliding names among them: a fact carries them through unchanged (wire.md §2, §4.2).
_BLOCK_EXTRA_NAMES = ("thinkingSignature", "cache_control", "redacted", "0", "10", "\ud800",
                      "\u2028", "4294967295")
_BLOCK_EXTRA_VALUES: tuple[Any, ...] = ("sig_01", {"type": "ephemeral"}, True, -0.0, 1.0,
                                       MAX_SAFE_INTEGER, None, [], "\udc00")


@cache
def _block_extras() -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from(_BLOCK_EXTRA_NAMES),
                           st.sampled_from(_BLOCK_EXTRA_VALUES), min_size=1, max_size=2)


@st.composite
def _maybe_block_extras(draw: st.DrawFn) -> dict[str, Any]:
    """Members of a block's own, two times in three (none the third)."""
    return draw(_block_extras()) if draw(_ONE_IN_3) else {}


@st.composite
def _open(draw: st.DrawFn, strategy: st.SearchStrategy[dict[str, Any]]) -> dict[str, Any]:
    """``strategy``'s objects with, one time in three, members their schema does not name after
    their own (an open object, wire.md §2: its own members win)."""
    value = draw(strategy)
    if draw(_ONE_IN_3) == 0:
        value = {**value, **{k: v for k, v in draw(_block_extras()).items() if k not in value}}
    return value


@cache
def some(element: st.SearchStrategy[Any], max_size: int = 3) -> st.SearchStrategy[list[Any]]:
    """Lists of ``element``: one time in four empty, one time in four 5-6 items (a turn that
    ran several tools, a message of many blocks: a count or an index past a small fixed size),
    else 1 to ``max_size``."""
    return _some_of(st.lists(element, min_size=1, max_size=max_size),
                    st.lists(element, min_size=5, max_size=6))


@st.composite
def _some_of(draw: st.DrawFn, short: st.SearchStrategy[list[Any]],
             long: st.SearchStrategy[list[Any]]) -> list[Any]:
    size = draw(_ONE_IN_4)  # shrinks to 0: a short list (its items shrink, then it does)
    return [] if size == 1 else draw(long if size == 3 else short)


@cache
def text_blocks() -> st.SearchStrategy[dict[str, Any]]:
    """``{"type": "text", "text": …}``, sometimes with members of its own."""
    return _open(st.fixed_dictionaries({"type": st.just("text"), "text": awkward_text()}))


@cache
def tool_call_blocks() -> st.SearchStrategy[dict[str, Any]]:
    """``{"type": "toolCall", "id", "name", "arguments"}``, sometimes with members of its own."""
    return _open(st.fixed_dictionaries({
        "type": st.just("toolCall"),
        "id": tool_ids(),
        "name": tool_ids(prefix=""),
        "arguments": agent_json_objects(),
    }))


@cache
def assistant_blocks() -> st.SearchStrategy[dict[str, Any]]:
    """A content block of an assistant message: text, thinking or a tool call."""
    return st.one_of(
        text_blocks(),
        _open(st.fixed_dictionaries({"type": st.just("thinking"), "thinking": awkward_text()})),
        tool_call_blocks(),
    )


@cache
def agent_assistant_messages(*, usage: bool | None = None) -> st.SearchStrategy[dict[str, Any]]:
    """A pi-style assistant message; ``usage`` True/False forces the key in or out."""
    required: dict[str, st.SearchStrategy[Any]] = {
        "role": st.just("assistant"),
        "content": some(assistant_blocks()),
    }
    optional: dict[str, st.SearchStrategy[Any]] = {
        "stopReason": st.sampled_from(("stop", "length", "toolUse", "error", "aborted")),
        "model": st.text(max_size=8),
        "timestamp": st.integers(0, MAX_SAFE_INTEGER),
    }
    if usage:
        required["usage"] = agent_usages()
    elif usage is None:
        optional["usage"] = agent_usages()
    return _open(st.fixed_dictionaries(required, optional=optional))


@cache
def user_messages() -> st.SearchStrategy[dict[str, Any]]:
    """``{"role": "user", "content": str | [text blocks]}``."""
    return _open(st.fixed_dictionaries(
        {"role": st.just("user"),
         "content": st.one_of(awkward_text(), some(text_blocks()))},
        optional={"timestamp": st.integers(0, MAX_SAFE_INTEGER)},
    ))


@cache
def tool_result_messages() -> st.SearchStrategy[dict[str, Any]]:
    """``{"role": "toolResult", "toolCallId", "content"}`` and, each half of the time,
    ``toolName`` and ``isError`` (the schema asks for neither), sometimes members of its own."""
    return _open(_tool_result_messages())


@st.composite
def _tool_result_messages(draw: st.DrawFn) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "toolResult", "toolCallId": draw(tool_ids())}
    if draw(BOOLEANS):
        message["toolName"] = draw(_TOOL_NAMES)
    message["content"] = draw(some(text_blocks()))
    if draw(BOOLEANS):
        message["isError"] = draw(BOOLEANS)
    return message


_TOOL_NAMES = st.text(max_size=8)


@cache
def messages() -> st.SearchStrategy[dict[str, Any]]:
    """Any message: assistant, user or tool result."""
    return st.one_of(agent_assistant_messages(), user_messages(), tool_result_messages())


# -- events ----------------------------------------------------------------------------------


#: How the type names of other harnesses and later versions differ from the known ones:
#: case, white space, separators, a version suffix, a wrapper prefix.
_TYPE_VARIANTS: tuple[Callable[[str], str], ...] = (
    str.upper, str.title, lambda t: t.title().replace("_", ""), lambda t: t + " ",
    lambda t: " " + t, lambda t: t.replace("_", "-"), lambda t: t.replace("_", "."),
    lambda t: t + "_v2", lambda t: t + "s", lambda t: "pi." + t, lambda t: t + "\ud800",
    lambda t: t[:1].upper() + t[1:],
)
#: Prefixes an unknown event type shares a known suffix with (``status_update``,
#: ``progress_start``, ``compaction_end``): a type is known by its whole name, never by its end.
_OTHER_SUBJECTS = ("status", "progress", "compaction", "auto_retry", "session", "thinking",
                   "tool", "execution", "message_update", "tool_execution")


@cache
def unknown_types() -> st.SearchStrategy[str]:
    """Event types spec/wire.md does not name: variants of a known name (case, white space,
    separators, a version suffix), other subjects with a known name's suffix (``status_update``),
    other harnesses' names and arbitrary text. The frame types are the usual base of a variant,
    since classification turns on them (§3)."""
    near_misses = (
        "agent_paused", "compaction_start", "auto_retry_start", "tool_execution_progress",
        "Message_Update", "message_update ", "tool_execution_update_v2", "TOOL_EXECUTION_UPDATE",
        "message_delta", "frame", "", "0", "\u2028", "message_update\ud800", "status_update",
        "message_update_v2", "tool_execution_update ", "content_block_delta", "response.delta",
    )
    bases = st.sampled_from(("message_update", "tool_execution_update", *KNOWN_TYPES))
    variants = st.tuples(bases, st.sampled_from(_TYPE_VARIANTS)).map(
        lambda drawn: drawn[1](drawn[0]))
    suffixes = st.tuples(st.sampled_from(_OTHER_SUBJECTS),
                         st.sampled_from(("_update", "_start", "_end", "_delta"))).map("".join)
    return st.one_of(
        st.sampled_from(near_misses),
        variants,
        suffixes,
        st.text(max_size=12),
    ).filter(lambda t: t not in KNOWN_TYPES)


#: Members whose names become one name once well-formed, with different values (§6.1: the
#: first name's position, the last value): a port that keeps the first value, or both members,
#: writes another fact.
COLLIDING_MEMBERS: tuple[tuple[tuple[str, Any], ...], ...] = (
    (("\ud800", 1), ("\udc00", "two")),
    (("\ufffd", "first"), ("\udbff", "last")),
    (("\udfff", [1]), ("n", 0), ("\ud800", {"k": None})),
    (("\udc00", True), ("\ufffd", False)),
)
_COLLIDING_MEMBER_DRAWS = st.sampled_from(COLLIDING_MEMBERS)


#: Frame types (wire.md §3) and what a look-alike of one changes in it.
_FRAME_TYPES = ("message_update", "tool_execution_update")
_FRAME_SUFFIXES = ("_update", "_delta", "_v2", "s", "_end", "update")


@cache
def frame_near_miss_types() -> st.SearchStrategy[str]:
    """Types that are not frames but share a frame type's end, start or letters: another
    subject with ``_update`` (``status_update``, ``tool_update``), a frame name with a suffix
    or another separator, another case, white space, a lone surrogate after it."""
    return st.one_of(
        st.tuples(st.sampled_from(_OTHER_SUBJECTS), st.just("_update")).map("".join),
        st.tuples(st.sampled_from(_FRAME_TYPES), st.sampled_from(_TYPE_VARIANTS)).map(
            lambda drawn: drawn[1](drawn[0])),
        st.tuples(st.sampled_from(_FRAME_TYPES), st.sampled_from(_FRAME_SUFFIXES)).map("".join),
        st.tuples(st.sampled_from(("x_", "pi.", "agent_", "_")), st.sampled_from(_FRAME_TYPES)
                  ).map("".join),
        st.sampled_from(("message", "update", "tool_execution", "execution_update",
                         "messageupdate", "message_updat", "ool_execution_update")),
    ).filter(lambda t: t not in KNOWN_TYPES)


@cache
def _extra_members() -> st.SearchStrategy[dict[str, Any]]:
    """Members an event may carry beyond its known keys (forward compatibility, §2); one time in
    three they hold names that collide once well-formed, with different values."""
    names = st.one_of(st.sampled_from((*INTEGER_LIKE_KEYS, "extra", "meta", "x\u2028y")),
                      st.sampled_from(COLLIDING_NAMES))
    return _with_colliding(st.dictionaries(names, json_values(max_leaves=4), min_size=1,
                                           max_size=3))


@st.composite
def _with_colliding(draw: st.DrawFn, members: st.SearchStrategy[dict[str, Any]]
                    ) -> dict[str, Any]:
    drawn = draw(members)
    if draw(_ONE_IN_3) == 0:
        drawn = {**drawn, **dict(draw(_COLLIDING_MEMBER_DRAWS))}
    return drawn


def _with_extras(event: st.SearchStrategy[Event], *, always: bool = False
                 ) -> st.SearchStrategy[Event]:
    """``event`` with, most of the time (``always``: every time), unknown members around its
    own (its own keys win)."""
    flags = st.just(True) if always else st.sampled_from((True, False, True))
    return st.tuples(event, flags, _extra_members()).map(
        lambda drawn: {**drawn[2], **drawn[0]} if drawn[1] else drawn[0]
    )


def _typed(name: str, **members: st.SearchStrategy[Any]) -> st.SearchStrategy[Event]:
    return st.fixed_dictionaries({"type": st.just(name), **members})


#: Assistant message event types as drawn: toolcall_start, which needs its tool call, is
#: common, and the most common among erroneous events.
#: Types wire.md §2 does not name are drawn too: a later version's (``citation_delta``,
#: ``toolcall_progress``, ``server_tool``), projected like the others (§4.3).
_MESSAGE_EVENT_KINDS = (*ASSISTANT_EVENT_TYPES, "toolcall_start", "toolcall_start",
                        "citation_delta", "toolcall_progress", "server_tool")
#: ``contentIndex`` where it is not a small index (the schema bounds it only below): the largest
#: integer a line carries.
#: (Beyond it, where a line cannot carry it, is the number family's: ``number_events``.)
_EDGE_INDEXES = st.just(MAX_SAFE_INTEGER)
_ERRONEOUS_KINDS = ("toolcall_start",) * 18 + ASSISTANT_EVENT_TYPES
_ERRONEOUS_KIND_DRAWS = st.sampled_from(_ERRONEOUS_KINDS)
_MESSAGE_EVENT_KIND_DRAWS = st.sampled_from(_MESSAGE_EVENT_KINDS)
#: How an erroneous toolcall_start is drawn (wire.md §4.5): no block at contentIndex (past the
#: end, maybe right after a tool call a port that reads the last block would take), a block that
#: is not a tool call, or a message that is not the assistant's.
_TOOLCALL_MISTAKES = st.sampled_from(("missing-block", "role", "wrong-block", "past-a-tool-call",
                                      "wrong-block", "past-a-tool-call"))
_OTHER_MISTAKES = st.sampled_from(("role",))
_ERROR_REASONS = st.sampled_from(("error", "aborted"))
_WRONG_ROLES = st.sampled_from(("system", "Assistant", "assistant ", ""))
#: Stands for the snapshot ``partial`` in the draw of an update's message proper: a dict, as the
#: snapshot is, so that ``st.just(_SNAPSHOT)`` is the strategy ``st.just(partial)`` was (a just of
#: an unhashable value), built once instead of once per example.
_SNAPSHOT: dict[str, Any] = {}


@cache
def _snapshot_or_message() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(st.just(_SNAPSHOT), agent_assistant_messages(usage=True))


@cache
def _other_messages() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(user_messages(), tool_result_messages())


@cache
@st.composite
def assistant_message_events(
    draw: st.DrawFn, *, erroneous: bool | None = None, kind: str | None = None,
    mistake: str | None = None,
) -> Event:
    """A ``message_update`` with an ``assistantMessageEvent`` of any of the twelve types.

    ``toolcall_start`` finds a ``toolCall`` block at its ``contentIndex`` in ``partial.content``
    (and sometimes already has an ``id`` member of its own, which keeps its position, §4.3).
    With ``erroneous`` None, about one in six is erroneous (wire.md §4.5): a non-assistant
    message, or a ``toolcall_start`` whose block at ``contentIndex`` is missing or not a tool
    call; True forces one, False rules them out. ``kind`` fixes the event's type, and
    ``mistake`` an erroneous event's mistake (see :data:`_TOOLCALL_MISTAKES`).
    """
    if kind is None:
        kind = draw(_ERRONEOUS_KIND_DRAWS if erroneous else _MESSAGE_EVENT_KIND_DRAWS)
    if erroneous is None:
        erroneous = draw(_ONE_IN_6) == 5  # shrinks to 0: a well-formed event
    partial = draw(agent_assistant_messages())
    content: list[dict[str, Any]] = list(partial["content"])
    ame: dict[str, Any] = {"type": kind}
    # contentIndex on every block event, and one time in three on the others (an open object:
    # a member it does not need is still copied, §4.3); one time in six at an edge.
    if kind not in ("start", "done", "error") or draw(_ONE_IN_3) == 0:
        ame["contentIndex"] = draw(st.integers(0, max(len(content), 1)))
        if draw(_ONE_IN_6) == 0:
            ame["contentIndex"] = draw(_EDGE_INDEXES)
    if kind.endswith("_delta") or draw(_ONE_IN_6) == 0:
        ame["delta"] = draw(awkward_text())
    if kind == "text_end":
        ame["content"] = draw(awkward_text())
    if kind == "toolcall_end":
        ame["toolCall"] = draw(tool_call_blocks())
    if draw(_ONE_IN_5) == 0:
        ame.update(draw(_extra_members()))
    if erroneous and mistake is None:
        mistake = draw(_TOOLCALL_MISTAKES if kind == "toolcall_start" else _OTHER_MISTAKES)
    elif not erroneous:
        mistake = None
    if kind == "toolcall_start":
        if draw(_ONE_IN_4) == 0:
            ame = {"type": kind, "id": "stale-id", **{k: v for k, v in ame.items() if k != "type"}}
        index = ame.get("contentIndex", 0)
        index = min(index, len(content))
        ame["contentIndex"] = index
        if mistake == "missing-block":
            ame["contentIndex"] = len(content) + draw(_ONE_IN_4)
            if draw(_ONE_IN_4) == 0:  # far past the end: 2^53 - 1
                ame["contentIndex"] = draw(_EDGE_INDEXES)
        elif mistake == "past-a-tool-call":
            content.append(draw(tool_call_blocks()))
            ame["contentIndex"] = len(content) + draw(_ONE_IN_4)
        elif mistake == "wrong-block":
            content.insert(index, draw(text_blocks()))
        else:
            content.insert(index, draw(tool_call_blocks()))
    partial["content"] = content
    if "contentIndex" in ame and ame["contentIndex"] <= MAX_SAFE_INTEGER and draw(
            _ONE_IN_3) == 0:
        # An integer spelled as a double (§1: the same integer, as JSON Schema's integer type
        # says; what a port reading numbers as doubles, or a Python float, sends).
        ame["contentIndex"] = float(ame["contentIndex"])
    if kind in ("done", "error"):
        # The final events carry the finished message under their own name, not a snapshot.
        if draw(_ONE_IN_4):  # reason is optional (assistant-message-event.json)
            ame["reason"] = "stop" if kind == "done" else draw(_ERROR_REASONS)
        ame["message" if kind == "done" else "error"] = partial
    else:
        ame["partial"] = partial
    # The message proper often carries usage (copied by the projection, §4.3); the snapshot
    # only sometimes, so both a present and an absent usage come up.
    message = draw(_snapshot_or_message())
    if message is _SNAPSHOT:
        message = partial
    if mistake == "role":
        message = {**draw(_other_messages()),
                   **({"usage": draw(agent_usages())} if draw(BOOLEANS) else {})}
        if draw(BOOLEANS):
            message["role"] = draw(_WRONG_ROLES)
    event: Event = {"type": "message_update", "message": message, "assistantMessageEvent": ame}
    if draw(BOOLEANS):
        # Members of the event's own (a later version's, §2): the projection drops them (§4.3).
        event = {**draw(_extra_members()), **event}
    return event


@cache
def neighbour_blocks() -> st.SearchStrategy[Any]:
    """A content block next to an update's big text block, of each kind extraction tells apart
    (wire.md §5.3): another text block (the pieces join with ``""``), one whose text opens with
    a low surrogate (the other half of a pair cut between two blocks: two U+FFFD, never one
    character), a text block whose ``text`` is not a string, a block of another type (or of
    none) carrying a string ``text`` (it contributes nothing), an image, a non-object."""
    return st.one_of(*_neighbour_kinds())


@cache
def _neighbour_kinds() -> tuple[st.SearchStrategy[Any], ...]:
    """The kinds of :func:`neighbour_blocks`, one strategy each."""
    short = st.one_of(st.sampled_from(("", "ok", "\n", "done.\n", "</b>&amp;")),
                      awkward_text(max_pieces=2))
    return (
        st.fixed_dictionaries({"type": st.just("text"), "text": short}),
        st.fixed_dictionaries({"type": st.just("text"), "text": st.tuples(
            st.sampled_from(("\ude00", "\udc00", "\udfff")), short).map("".join)}),
        st.fixed_dictionaries({"type": st.just("text"), "text": st.one_of(
            json_numbers(), st.none(), st.booleans(), st.just(["a"]), st.just({"text": "a"}))}),
        st.one_of(
            st.fixed_dictionaries({
                "type": st.sampled_from(("image", "thinking", "resource", "Text", "text ",
                                         "toolCall")),
                "text": short}),
            st.fixed_dictionaries({"text": short})),
        st.one_of(
            st.fixed_dictionaries({"type": st.just("image"), "data": st.just("iVBORw0KGgo="),
                                   "mimeType": st.just("image/png")}),
            st.sampled_from(("raw", 7, None, ["text"]))),
    )


@st.composite
def every_neighbour_kind(draw: st.DrawFn) -> list[Any]:
    """One block of each kind of :func:`neighbour_blocks`: every distinction extraction makes
    (§5.3) is in the one text. The first opens with a low surrogate (after a big block ending
    in a high one: a pair split between blocks), the others follow in a drawn order."""
    text, low, *others = [draw(kind) for kind in _neighbour_kinds()]
    return [low, *draw(st.permutations([text, *others]))]


@cache
def _small_tool_execution_updates() -> st.SearchStrategy[Event]:
    return _typed(
        "tool_execution_update", toolCallId=tool_ids(), toolName=tool_ids(prefix=""),
        args=agent_json_objects(), partialResult=partial_results(),
    )


@cache
def partial_results() -> st.SearchStrategy[Any]:
    """Small ``partialResult`` values of every shape extraction must handle (wire.md §5.3)."""
    return st.one_of(
        st.fixed_dictionaries(
            {"content": st.lists(st.one_of(text_blocks(), assistant_blocks()), max_size=3)},
            optional={"details": json_values(max_leaves=4)},
        ),
        awkward_text(),
        st.none(),
        json_numbers(),
        st.lists(json_values(max_leaves=3), max_size=3),
        st.fixed_dictionaries({}, optional={"details": json_values(max_leaves=3)}),
        st.fixed_dictionaries({"content": st.one_of(awkward_text(),
                                                    agent_json_objects(max_leaves=3))}),
        st.fixed_dictionaries({"content": st.lists(
            st.one_of(
                st.fixed_dictionaries({"type": st.just("image"), "data": st.text(max_size=8)}),
                st.fixed_dictionaries({"type": st.just("text"), "text": json_numbers()}),
                st.fixed_dictionaries({"text": awkward_text()}),
                json_values(max_leaves=2),
            ),
            max_size=3,
        )}),
    )


@cache
def _turn_ends() -> st.SearchStrategy[Event]:
    return _with_extras(_typed(
        "turn_end", message=messages(), toolResults=some(tool_result_messages())
    ))


@cache
def _agent_ends() -> st.SearchStrategy[Event]:
    return _with_extras(st.fixed_dictionaries(
        {"type": st.just("agent_end"), "messages": some(messages())},
        optional={"willRetry": st.booleans()},
    ))


@cache
def agent_events() -> st.SearchStrategy[Event]:
    """Any agent event of spec/wire.md §2, small: every known type and unknown ones.

    Events sometimes carry unknown members (integer-like names among them); ``message_update``
    is sometimes erroneous (see :func:`assistant_message_events`).
    """
    return st.one_of(
        _typed("agent_start"),
        _agent_ends(),
        _typed("turn_start"),
        _turn_ends(),
        _with_extras(_typed("message_start", message=messages())),
        assistant_message_events(),
        _with_extras(_typed("message_end", message=messages())),
        _with_extras(_typed(
            "tool_execution_start", toolCallId=tool_ids(), toolName=tool_ids(prefix=""),
            args=agent_json_objects(),
        )),
        _with_extras(_small_tool_execution_updates()),
        _with_extras(_typed(
            "tool_execution_end", toolCallId=tool_ids(), toolName=tool_ids(prefix=""),
            result=partial_results(), isError=st.booleans(),
        )),
        unknown_events(),
    )


@cache
def unknown_events() -> st.SearchStrategy[Event]:
    """An event of a type spec/wire.md does not name (a fact, passed through unchanged)."""
    return _with_extras(st.fixed_dictionaries(
        {"type": unknown_types()},
        optional={"message": messages(), "data": json_values(max_leaves=4)},
    ))


@cache
def awkward_strings() -> st.SearchStrategy[str]:
    """Strings made only of awkward characters and pieces (every one costs or escapes oddly)."""
    return st.lists(st.sampled_from((*AWKWARD_CHARACTERS, *AWKWARD_PIECES)), min_size=1,
                    max_size=6).map("".join)


@cache
def awkward_payloads() -> st.SearchStrategy[dict[str, Any]]:
    """An object dense in what canonical serialization must get right (wire.md §6): awkward
    strings, integral and exponent floats, integer-like member names next to ordinary ones."""
    values = st.one_of(awkward_strings(), st.sampled_from(AWKWARD_FLOATS),
                       st.lists(st.sampled_from(AWKWARD_FLOATS), max_size=3))
    names = st.one_of(st.sampled_from((*INTEGER_LIKE_KEYS, "a", "name", "\u2028")),
                      st.sampled_from(COLLIDING_NAMES), awkward_strings())
    return st.one_of(st.dictionaries(names, values, min_size=1, max_size=6),
                     st.dictionaries(keyed_map_names(), values, min_size=2, max_size=8))


@cache
def awkward_facts() -> st.SearchStrategy[Event]:
    """A small fact whose members are dense in awkward text, numbers and member names."""
    return st.one_of(
        _with_extras(_typed("tool_execution_start", toolCallId=tool_ids(),
                            toolName=awkward_strings(), args=awkward_payloads()), always=True),
        _with_extras(_typed("tool_execution_end", toolCallId=tool_ids(), toolName=st.just("bash"),
                            result=awkward_payloads(), isError=st.booleans()), always=True),
        st.tuples(unknown_types(), awkward_payloads()).map(
            lambda pair: {**pair[1], "type": pair[0]}),
        st.builds(
            lambda text, usage, extras: {"type": "message_end", "message": {
                "role": "assistant", "content": [{"type": "text", "text": text, **extras}],
                "usage": usage}},
            awkward_strings(), awkward_payloads(), _maybe_block_extras()),
    )


@cache
def message_facts() -> st.SearchStrategy[Event]:
    """``message_start`` and ``message_end`` facts whose content blocks all carry members of
    their own (§2: open objects; §4.2: a fact passes through unchanged, block for block)."""
    blocks = st.lists(st.tuples(assistant_blocks(), _block_extras()).map(
        lambda drawn: {**drawn[0], **{k: v for k, v in drawn[1].items() if k not in drawn[0]}}),
        min_size=1, max_size=3)
    message = st.fixed_dictionaries({"role": st.just("assistant"), "content": blocks},
                                     optional={"usage": agent_usages()})
    return _with_extras(_typed_one_of(("message_start", "message_end"), message=message))


def _typed_one_of(names: tuple[str, ...], **members: st.SearchStrategy[Any]
                  ) -> st.SearchStrategy[Event]:
    return st.fixed_dictionaries({"type": st.sampled_from(names), **members})


# -- updates near the bound ------------------------------------------------------------------

#: Where an update's line should land relative to maxBytes: within 40 bytes of it either way,
#: with its bounded form just too big for the whole text ("tail-cut"), far over, or small.
# "small" first: drawing is uniform over the entries, and the shrinker moves toward the first
# one, so a counterexample whose bug does not need a big line shrinks to a small one.
_PLACEMENTS = ("small", "near", "tail-cut", "near", "far-over", "tail-cut", "near", "tail-cut",
               "near")


def _size(event: Event) -> int:
    return len(canonical_bytes(event))


def full_text_bounded_size(event: Mapping[str, Any], *, text: str | None = None) -> int:
    """Bytes of the bounded form of ``event`` if it kept its whole text (wire.md §5.2): over
    ``maxBytes``, the tail must be cut and the fit strategy decides where. ``text`` replaces
    the update's own text (``""``: the empty-tail line)."""
    if text is None:
        text = extract_text(event.get("partialResult"))
    form = {
        "type": "tool_execution_update",
        "toolCallId": _clipped_id(str(event.get("toolCallId", ""))),
        "toolName": _clipped_id(str(event.get("toolName", ""))),
        "partialResult": {"content": [{"type": "text", "text": MARKER + text}]},
    }
    return len(canonical_bytes(form))


def _clipped_id(value: str) -> str:
    """``well_formed(value)[:ID_CLIP_CODE_POINTS]`` (wire.md §5.4), reading only the head of a
    long id.

    Each code point of the well-formed text comes from one or two of ``value`` (a pair), decided
    by the code point after it: the first N come from at most the first 2N, so well-forming the
    first 2N code points gives the same first N (a pair cut at the end only changes a later one).
    """
    return well_formed(value[:2 * ID_CLIP_CODE_POINTS])[:ID_CLIP_CODE_POINTS]


def _fill(
    event: Event, set_text: Callable[[str], None], lead: str, unit: str, target: int,
    measure: Callable[[Event], int] = _size,
) -> None:
    """Set the big string to ``lead`` and ``unit`` repeated, and pad ``args``, so that
    ``measure(event)`` (by default the line) is ``target`` bytes.

    With only the lead and empty padding the measure is ``base`` bytes; n repetitions add
    ``L(unit) + (n-1)·d`` bytes, where ``d = L(unit·2) - L(unit)`` (not ``L(unit)``: the end of
    one repetition may join the start of the next into one astral character); the padding adds
    one byte per ASCII letter to the line (and nothing to the bounded form, which drops
    ``args``). When ``base`` already exceeds ``target`` the text stays the lead.
    """
    set_text(lead)
    event["args"][PAD_KEY] = ""
    base = measure(event)
    first = _escaped_size(unit)
    step = _escaped_size(unit * 2) - first
    room = target - base
    if room < first:
        count, rest = 0, max(room, 0)
    else:
        count = 1 + (room - first) // step
        rest = room - first - (count - 1) * step
    set_text(lead + unit * count)
    event["args"][PAD_KEY] = "p" * rest


_PLACEMENT_DRAWS = st.sampled_from(_PLACEMENTS)
#: Args whose member names collide once well-formed, as (name, value) pairs (a dict display of
#: them reads, to a linter, as a repeated key).
_COLLIDING_ARGS: st.SearchStrategy[tuple[tuple[str, Any], ...]] = st.sampled_from((
    (), (), (), (("\ud800", 1), ("\udc00", "two")), (("\udbff", []), ("\ufffd", "kept"), ("n", 2)),
    (("\ufffd", "first"), ("\udfff", "x" * 40)),
))
_SHAPE_DRAWS = st.sampled_from(PARTIAL_RESULT_SHAPES)
_HIGH_END_DRAWS = st.sampled_from(_HIGH_ENDS)
_MOSTLY_DETAILS = st.sampled_from((True, True, False))
_SMALL_COUNTS = st.integers(0, 20)
_AT_BOUND_OFFSETS = st.sampled_from((0, 1, -1))
_UNDER_BOUND_OFFSETS = st.sampled_from((1, -1, -2))
_NEAR_OFFSETS = st.integers(-40, 40)
_TAIL_CUT_OFFSETS = st.integers(1, 40)
_FAR_FACTORS = st.integers(1, 5)
_FAR_FACTORS_BIG = st.integers(1, 2)
_LEAD_SHARES = st.sampled_from((0.3, 0.6, 0.0, 0.1, 0.3))


@cache
def _update_units() -> st.SearchStrategy[str]:
    return st.one_of(astral_units(), repetition_units(), astral_units())


@cache
def _neighbours(min_size: int, max_size: int) -> st.SearchStrategy[list[Any]]:
    return st.lists(neighbour_blocks(), min_size=min_size, max_size=max_size)


@st.composite
def tool_execution_updates(
    draw: st.DrawFn, *, max_bytes: int | None = None, at_bound: bool = False,
    under_bound: bool = False, bound_offset: int | None = None,
) -> Event:
    """A ``tool_execution_update``; with ``max_bytes``, one whose line lands near that bound.

    Placements: within 40 bytes of ``max_bytes`` either way (exactly at it included), over by
    so much that even the bounded form cannot keep the whole text ("tail-cut"), several times
    over, or small. With ``at_bound``, the line is exactly ``max_bytes`` bytes (it fits and is
    written whole) or one byte more (it is bounded), or one byte less (``bound_offset`` fixes
    which: 0, 1 or -1); with ``under_bound``, one byte more or one or two less (the simplest
    draw is the one byte over). The big text
    sits in the shape ``partialResult`` takes (content blocks with ``details``, a bare string,
    blocks around non-text blocks, a surrogate pair split across two blocks); for shapes without
    text (null, a number, an array, an object without array ``content``) the bulk goes into
    ``args``, so the bounded text is empty.
    """
    max_bytes = _bound(max_bytes)
    event: Event = {"type": "tool_execution_update", "toolCallId": "", "toolName": "", "args": {}}
    if max_bytes is None:
        event.update(toolCallId=draw(tool_ids()), toolName=draw(tool_ids(prefix="")),
                     args=draw(_small_objects()), partialResult=draw(partial_results()))
        return event
    at_bound = at_bound or under_bound
    placement = "near" if at_bound else draw(_PLACEMENT_DRAWS)
    # Member names that become one once well-formed (§6.1: "\ud800" and "\udc00" are both
    # U+FFFD, the later member wins): near the bound, a port that keeps both writes a line of
    # another size, whole where it must be bounded or the other way round.
    event["args"] = dict(draw(_COLLIDING_ARGS))
    if at_bound:
        event["args"]["costEdges"] = COST_EDGES
        # Every value whose canonical size encoders get wrong at once: each encoding mistake
        # moves a line of exactly maxBytes (or one byte either side) across the bound.
        event["args"]["sensitive"] = list(SIZE_SENSITIVE_VALUES)
    shape = draw(_SHAPE_DRAWS)
    unit = draw(_update_units())
    if shape == "string":
        def set_text(text: str) -> None:
            event["partialResult"] = text
    elif shape in ("blocks", "many-blocks", "mixed-blocks", "split-pair-blocks"):
        holder = {"type": "text", "text": ""}
        blocks: list[Any] = [holder]
        high_end = ""
        if shape == "many-blocks":
            high_end = draw(_HIGH_END_DRAWS)
            # Two times in three every kind of neighbour at once, after the big block.
            after = draw(every_neighbour_kind() if draw(_ONE_IN_3) else _neighbours(2, 6))
            blocks = [*draw(_neighbours(0, 2)), holder, *after]
        elif shape == "mixed-blocks":
            blocks = [draw(text_blocks()), {"type": "image", "data": "iVBORw0KGgo="},
                      holder, draw(assistant_blocks())]
        elif shape == "split-pair-blocks":
            # The halves of one pair in two blocks: each is well-formed on its own (§5.3).
            blocks = [holder, {"type": "text", "text": "\ude00 after the split"}]
            unit = unit + "\ud83d" if draw(BOOLEANS) else unit
        event["partialResult"] = {"content": blocks}
        if draw(_MOSTLY_DETAILS):
            event["partialResult"]["details"] = draw(_small_objects())

        def set_text(text: str) -> None:
            holder["text"] = text + high_end
    else:
        event["partialResult"] = {
            "null": None, "number": draw(json_numbers()), "array": [1, "two", None],
            "no-content": {"details": {"exitCode": 0}}, "content-not-array": {"content": "x"},
            "non-text-blocks": {"content": [{"type": "image", "data": "AAAA"}, {"text": "t"}]},
        }[shape]

        def set_text(text: str) -> None:
            event["args"]["blob"] = text
    if placement == "small":
        _draw_ids(draw, event, max_bytes)
        set_text(unit * draw(_SMALL_COUNTS))
        return event
    offset = {
        # One choice across the bound: the target phase can walk it to exactly maxBytes and
        # one byte past it.
        "near": bound_offset if bound_offset is not None and at_bound else draw(
            _UNDER_BOUND_OFFSETS if under_bound else _AT_BOUND_OFFSETS if at_bound
            else _NEAR_OFFSETS),
        "tail-cut": draw(_TAIL_CUT_OFFSETS),
        "far-over": max_bytes * draw(_FAR_FACTORS_BIG if max_bytes > 65536 else _FAR_FACTORS),
    }[placement]
    # A lead of another unit makes the text non-uniform: where code points, UTF-16 units and
    # bytes are not proportional along the text, every way of counting a tail picks another one.
    lead_unit = draw(repetition_units())
    share = draw(_LEAD_SHARES)
    lead = lead_unit * int(max_bytes * share / max(_escaped_size(lead_unit), 1))
    _draw_ids(draw, event, max_bytes)
    # "tail-cut": even the bounded form is over with its whole text, so the tail gets cut.
    measure = full_text_bounded_size if placement == "tail-cut" else _size
    _fill(event, set_text, lead, unit, max_bytes + offset, measure)
    return event


@cache
def _bounded_call_ids() -> st.SearchStrategy[str]:
    return tool_ids(max_bytes=CURRENT_BOUND)


@cache
def _bounded_tool_names() -> st.SearchStrategy[str]:
    return st.one_of(st.text(max_size=10), tool_ids(prefix="", max_bytes=CURRENT_BOUND))


_SENSITIVE_VALUE_LISTS = st.lists(st.sampled_from(SIZE_SENSITIVE_VALUES), max_size=8)


def _draw_ids(draw: st.DrawFn, event: Event, max_bytes: int) -> None:
    """Draw the ids and args last: the target phase's hill climber revisits the last choices of
    the best example first, so near the bound it tries other ids before anything else. Half of
    the time ``args`` also holds a few :data:`SIZE_SENSITIVE_VALUES`."""
    with _for_bound(max_bytes):
        event["toolCallId"] = draw(_bounded_call_ids())
        event["toolName"] = draw(_bounded_tool_names())
    event["args"] = {**event["args"], **draw(_small_objects())}
    sensitive = draw(_SENSITIVE_VALUE_LISTS)
    if sensitive:
        event["args"]["values"] = sensitive


_EDGE_EXTRA_BYTES = st.integers(0, 10)
_EDGE_CONTROLS = st.sampled_from(("\x00", "\x1b", "\x01", "\x1f", "\x07"))
_EDGE_ID_TAILS = st.sampled_from(("", "\x00" * 8, "-tail"))
_EDGE_TEXT_HEADS = st.text(max_size=4)
_EDGE_CONTROL_COUNTS = st.integers(1, 40)


@st.composite
def edge_updates(draw: st.DrawFn) -> tuple[int, Event]:
    """``(maxBytes, update)`` at the smallest bound (wire.md §5.6): both ids at least 256 code
    points of six-byte control characters, so the empty-tail line is 3215 bytes, and ``maxBytes``
    within a few bytes of it. Often not even a one-code-point tail fits, and the answer is the
    empty tail of a non-empty text: the branch where a ``slice(-0)`` tail returns the whole text
    and a halving loop never ends."""
    max_bytes = MIN_MAX_BYTES + draw(_EDGE_EXTRA_BYTES)
    controls = _EDGE_CONTROLS
    ids = [draw(controls) * 256 + draw(_EDGE_ID_TAILS) for _ in range(2)]
    text = draw(_EDGE_TEXT_HEADS) + draw(controls) * draw(_EDGE_CONTROL_COUNTS)
    event: Event = {"type": "tool_execution_update", "toolCallId": ids[0], "toolName": ids[1],
                    "args": draw(_small_objects()),
                    "partialResult": {"content": [{"type": "text", "text": text}]}}
    return max_bytes, event


#: Characters of one UTF-16 unit a cut text opens with (1, 2, 3 and 6 escaped bytes each).
_LEAD_UNITS = ("a", "é", "€", "\x00", "\u2028", "ab", "a")
#: Runs the cut falls in: astral characters (two UTF-16 units, four bytes each), alone or
#: next to a one-unit character.
_ASTRAL_RUNS = ("\U0001f600", "\U0001d4b3", "\U0001f600\U0001f601", "\U00010000", "\U0010ffff",
                "a\U0001f600", "\U0001f600\x00", "\U0001f600")


_CUT_CALL_IDS = st.sampled_from(("call_1", "toolu_01A", "", "\U0001f600id"))
_CUT_TOOL_NAMES = st.sampled_from(("bash", "", "read"))
_LEAD_UNIT_DRAWS = st.sampled_from(_LEAD_UNITS)
_ASTRAL_RUN_DRAWS = st.sampled_from(_ASTRAL_RUNS)
_CUT_OVERS = st.sampled_from((1.05, 1.5, 2.0, 3.0, 5.0, 1.2))
_CUT_LEAD_SHARES = st.sampled_from((0.5, 1.0, 0.0, 2.0, 0.25))
_CUT_SHAPES = st.sampled_from(("blocks", "details", "string", "many-blocks"))


@st.composite
def cut_updates(draw: st.DrawFn, *, max_bytes: int) -> Event:
    """A ``tool_execution_update`` whose text must be cut, the cut falling inside a run of
    astral characters behind a lead of one-unit characters (wire.md §5.5).

    Along such a text, code points, UTF-16 units and bytes are not proportional: a port that
    counts the text or halves the tail in UTF-16 units (JavaScript's ``length`` and ``slice``)
    tries other tail lengths than the code-point ones, and where its cut falls between the
    halves of a pair it writes a lone surrogate. The run alone costs 1-5 times the room the
    bounded form leaves for a tail, so every tail that fits ends inside it; the lead has 0-2
    times as many code points as the run, and a drawn 0-3 more of each, so a UTF-16 cut lands
    on either half of a pair. The ids are short: all the room is the tail's.
    """
    max_bytes = _bound(max_bytes)
    event: Event = {
        "type": "tool_execution_update",
        "toolCallId": draw(_CUT_CALL_IDS),
        "toolName": draw(_CUT_TOOL_NAMES),
        "args": draw(_small_objects()),
    }
    lead_unit = draw(_LEAD_UNIT_DRAWS)
    run_unit = draw(_ASTRAL_RUN_DRAWS)
    over = draw(_CUT_OVERS)
    lead_share = draw(_CUT_LEAD_SHARES)
    room = max_bytes - full_text_bounded_size(event, text="")
    runs = int(room * over) // _escaped_size(run_unit) + 1 + draw(_ONE_IN_4)
    leads = int(runs * len(run_unit) * lead_share) + draw(_ONE_IN_4)
    text = lead_unit * leads + run_unit * runs
    shape = draw(_CUT_SHAPES)
    if shape == "string":
        event["partialResult"] = text
    else:
        # "many-blocks": other blocks after the text (a short text block among them moves the
        # end of the text past the run, so the cut falls a few code points earlier in it).
        after, high_end = [], ""
        if shape == "many-blocks":
            after = draw(_neighbours(1, 4))
            high_end = draw(_HIGH_END_DRAWS)
        event["partialResult"] = {"content": [{"type": "text", "text": text + high_end}, *after]}
        if shape == "details":
            event["partialResult"]["details"] = draw(_small_objects())
    return event


#: One code point of each escaped cost (wire.md §6.5): ASCII, two-, three- and four-byte UTF-8,
#: and a control written as a six-byte escape (no code point costs five).
_CODE_POINT_OF_COST = {1: "a", 2: "\u00e9", 3: "\u20ac", 4: "\U0001f600", 6: "\x01"}
_SUFFIX_EXPONENTS = st.sampled_from((0, 0, 0, 1, 2, 6))
_PREFIX_SHARES = st.sampled_from((0.0, 0.05, 0.1, 0.25, 0.5))
_PREFIX_EXTRAS = st.integers(1, 3)


def costing_exactly(count: int, cost: int) -> str:
    """``count`` code points whose escaped costs (1, 2, 3, 4 or 6 bytes each) sum to ``cost``;
    ``count <= cost <= 6 * count`` and ``cost != 6 * count - 1`` (which would need a code point
    of five bytes). Cheap ones first, so the dearest sit at the end."""
    if cost <= 4 * count:  # q each, r of them one byte more (at most 4)
        q, r = divmod(cost, count)
        costs = [q] * (count - r) + [q + 1] * r
    else:  # fours, and sixes for the bytes over them; a three makes an odd excess even
        over = cost - 4 * count
        threes = over % 2
        sixes = (over + threes) // 2
        costs = [3] * threes + [4] * (count - sixes - threes) + [6] * sixes
    return "".join(_CODE_POINT_OF_COST[c] for c in costs)


@st.composite
def exact_tail_updates(draw: st.DrawFn, *, max_bytes: int) -> Event:
    """A ``tool_execution_update`` whose text ends in a suffix of a power-of-two number of code
    points that costs exactly the room the bounded form leaves for a tail (wire.md §5.5,
    §5.6), with a little more text before it: the tail of exactly that suffix makes a line of
    exactly ``maxBytes``, and any longer tail is over it. Texts run to tens of thousands of
    code points at the default bound, past the pieces an implementation may measure a long
    text in, so a measure that stops at a piece's end without looking further is met where
    the cost reaches the room exactly."""
    max_bytes = _bound(max_bytes)
    event: Event = {"type": "tool_execution_update", "toolCallId": draw(_CUT_CALL_IDS),
                    "toolName": draw(_CUT_TOOL_NAMES), "args": draw(_small_objects())}
    room = max_bytes - full_text_bounded_size(event, text="")
    # The powers of two whose code points can cost exactly the room: from room / 6 to room.
    lowest = max(0, (room + 5) // 6 - 1).bit_length()
    highest = max(room, 1).bit_length() - 1
    length = 1 << min(highest, lowest + draw(_SUFFIX_EXPONENTS))
    if room == 6 * length - 1:  # needs a five-byte code point: twice as many cost it
        length *= 2
    suffix = costing_exactly(length, room)
    holder = {"type": "text", "text": suffix}
    event["partialResult"] = {"content": [holder]} if draw(BOOLEANS) else suffix
    # The line with the suffix alone has no marker, so it may fit: the prefix takes it over.
    over = max(0, max_bytes - _size(event) + 1)
    prefix = "a" * (over + int(length * draw(_PREFIX_SHARES)) + draw(_PREFIX_EXTRAS) - 1)
    if isinstance(event["partialResult"], str):
        event["partialResult"] = prefix + suffix
    else:
        holder["text"] = prefix + suffix
    return event


_OVERSIZED_KINDS = st.sampled_from(("tool_execution_end", "tool_execution_end", "message_end",
                                    "tool_execution_start", "unknown"))
_OVER_OR_SMALL = st.sampled_from(("over", "over", "small"))


@st.composite
def oversized_facts(draw: st.DrawFn, *, max_bytes: int) -> Event:
    """A fact whose line is over ``max_bytes`` two times in three (the backstop must leave it
    alone, §5.1): mostly ``tool_execution_end`` (the seed's terminal event), else another fact."""
    max_bytes = _bound(max_bytes)
    unit = draw(repetition_units())
    text_holder: dict[str, Any] = {"type": "text", "text": ""}
    kind = draw(_OVERSIZED_KINDS)
    event: Event
    if kind == "tool_execution_end":
        event = {"type": kind, "toolCallId": draw(tool_ids()), "toolName": "bash",
                 "result": {"content": [text_holder], "details": draw(json_values(max_leaves=4))},
                 "isError": draw(BOOLEANS)}
    elif kind == "message_end":
        event = {"type": kind, "message": {"role": "assistant", "content": [text_holder]}}
    elif kind == "tool_execution_start":
        event = {"type": kind, "toolCallId": "call_1", "toolName": "write",
                 "args": {"content": text_holder}}
    else:
        event = {"type": draw(unknown_types()), "payload": [text_holder]}
    if draw(_OVER_OR_SMALL) == "small":
        text_holder["text"] = unit * draw(_SMALL_COUNTS)
        return event
    base = _size(event)
    target = max_bytes + draw(st.integers(1, max_bytes))
    step = max(_escaped_size(unit * 2) - _escaped_size(unit), 1)
    text_holder["text"] = unit * (max(target - base, 0) // step + 1)
    return event


