"""Hypothesis strategies for the wire profile (spec/wire.md): agent events and op inputs.

The inputs aim at what broke the seed's backstop and what ports get wrong: control characters
and escapes (``\\u0000`` costs six bytes), U+007F and U+2028/2029 (raw in the canonical form),
astral characters and lone surrogates (high alone, low alone, a reversed pair), ids far longer
than the 256 code points the bounded form keeps, integral floats and integer-like member names
(``JSON.stringify`` writes ``30``, and puts ``"2"`` before ``"10"`` before ``"a"``), every shape
``partialResult`` can take, and ``tool_execution_update`` events whose line lands a few bytes
under, exactly at, or a few bytes over ``maxBytes``.

Big strings are built by repeating a short unit, never drawn character by character: the unit
count is computed so that the line lands where the example wants it (§5.1 measures the canonical
line, so the arithmetic is exact: a repeated unit adds the same escaped bytes each time).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from functools import cache
from typing import Any, overload

from eventproof.reference import (
    DEFAULT_MAX_BYTES,
    ID_CLIP_CODE_POINTS,
    MARKER,
    MIN_MAX_BYTES,
    canonical_bytes,
    extract_text,
    well_formed,
)
from hypothesis import strategies as st

from .._model import Capabilities, Family
from .._reused import BOOLEANS

Event = dict[str, Any]
OpInput = dict[str, Any]

#: The largest integer the spec accepts in a value (wire.md §7: larger ones are refused).
MAX_SAFE_INTEGER = 2**53 - 1
#: The event types spec/wire.md §2 names; anything else is unknown (and a fact).
KNOWN_TYPES = (
    "agent_start", "agent_end", "turn_start", "turn_end", "message_start", "message_update",
    "message_end", "tool_execution_start", "tool_execution_update", "tool_execution_end",
)
#: Every ``assistantMessageEvent`` type (wire.md §2).
ASSISTANT_EVENT_TYPES = (
    "start", "text_start", "text_delta", "text_end", "thinking_start", "thinking_delta",
    "thinking_end", "toolcall_start", "toolcall_delta", "toolcall_end", "done", "error",
)
#: Member names whose canonical position differs from their insertion position, and
#: look-alikes that are not array indices (wire.md §6.4).
INTEGER_LIKE_KEYS = ("0", "10", "2", "01", "-1", "4294967294", "4294967295", "1.0", "7", "00",
                     "\u0663", "\uff11")
#: Member names that become one name once well-formed (§6.1: each lone surrogate is U+FFFD):
#: an object holding two of them keeps the first one's position and the last one's value.
COLLIDING_NAMES = ("\ud800", "\udc00", "\ufffd", "\udbff")
#: Numbers whose ECMAScript form differs from Python's or from a naive one (wire.md §6.3).
AWKWARD_FLOATS = (
    30.0, -0.0, 1e21, 1e-7, 5e-324, 1.5e-7, 1e16, 1.2345678901234568e20, 0.1, 2.5, 1e-6,
    123456789.0, -1e300, 1.7976931348623157e308, 100.0, 0.000001,
)
#: Characters that cost something other than one byte, or that encoders disagree on.
AWKWARD_CHARACTERS = (
    "\x1b", "\x00", "\x01", "\x1f", "\b", "\t", "\n", "\f", "\r", '"', "\\", "/", "\x7f",
    "\u2028", "\u2029", "é", "€", "\ufffd", "\ufeff", "<", ">", "&", "\U0001f600", "\U00010000",
    "\U0010ffff",
)
#: Pieces of text that carry ANSI escapes or surrogates (wire.md §6.1-6.2).
AWKWARD_PIECES = (
    "\x1b[31mred\x1b[0m", "\r\n", "line\u2028separator", "para\u2029graph",
    "\ud800", "\udbff", "\udc00", "\udfff",
    "\udc00\ud800",  # a reversed pair: two lone surrogates, two U+FFFD
    "\ud83d\ude00",  # a pair as two code points: one astral character once well-formed
    "\ud83d",  # a high half whose low half may follow in the next piece
    "\ude00",
)
#: What extraction sees in ``partialResult`` (wire.md §5.3).
#: "many-blocks", the commonest, is the big text block among other blocks (see
#: :func:`neighbour_blocks`): a content array as tools with several outputs return it.
PARTIAL_RESULT_SHAPES = (
    "blocks", "string", "many-blocks", "mixed-blocks", "null", "many-blocks", "number",
    "string", "many-blocks", "array", "no-content", "many-blocks", "blocks", "content-not-array",
    "many-blocks", "string", "non-text-blocks", "split-pair-blocks", "many-blocks", "many-blocks",
    "many-blocks", "many-blocks",
)
#: Ends of the big text block that a next text block may pair with: a high surrogate alone at
#: the end of one piece (a UTF-16 stream cut between the halves of a pair).
_HIGH_ENDS = ("", "\ud83d", "\udbff", "\ud800")
#: A member of ``args`` the size arithmetic fills with ASCII to land on an exact byte count.
PAD_KEY = "padding"
#: Values whose canonical size other encoders get wrong (§6.2-6.3: ``<>&`` and U+2028/2029 raw,
#: ``30.0`` as ``30``, ``1e-7``, ``-0`` as ``0``, ``\u00xx`` lowercase, ``\n`` short): one of them
#: in a line within a few bytes of ``maxBytes`` moves the line across the bound.
SIZE_SENSITIVE_VALUES: tuple[Any, ...] = (
    "<", ">", "&", "\u2028", "\u2029", "</script>", "a&b", -0.0, 30.0, 1e-7, 1e21, 1.5e-7,
    100.0, 5e-324, 1e16, 0.000001, "\x7f", "\x1f", "\n", "/", "é", "\U0001f600", "\ud800",
)


# Strategies drawn inside composites are built once, here or in cached factories: building a
# strategy object inside every draw (and Hypothesis validating and labelling each new one) costs
# more than drawing from it. Each is the very strategy the draw built before, so every example
# draws the same choices and gets the same value (conformance/_reused.py).

#: Passed as ``max_bytes`` to the composites that size an update for a bound: the bound is the one
#: :func:`_for_bound` set around the draw. One strategy object then serves every bound, instead
#: of one built per example; what is drawn, and how, is the same as with the bound passed.
CURRENT_BOUND = -1
_BOUND: ContextVar[int] = ContextVar("eventproof_wire_bound")


@contextmanager
def _for_bound(max_bytes: int) -> Iterator[None]:
    """Draws of strategies built with ``max_bytes=CURRENT_BOUND`` inside this block are for
    ``max_bytes``."""
    token = _BOUND.set(max_bytes)
    try:
        yield
    finally:
        _BOUND.reset(token)


@overload
def _bound(max_bytes: int) -> int: ...
@overload
def _bound(max_bytes: int | None) -> int | None: ...
def _bound(max_bytes: int | None) -> int | None:
    """``max_bytes``, or the bound set by :func:`_for_bound` when it is ``CURRENT_BOUND``."""
    return _BOUND.get() if max_bytes == CURRENT_BOUND else max_bytes


# -- text ------------------------------------------------------------------------------------


@cache
def agent_text_pieces() -> st.SearchStrategy[str]:
    """One short piece of text: ordinary, an awkward character, ANSI, or a surrogate."""
    return st.one_of(
        st.text(max_size=6),
        st.sampled_from(AWKWARD_CHARACTERS),
        st.sampled_from(AWKWARD_PIECES),
        st.integers(0xD800, 0xDFFF).map(chr),
        st.integers(0, 0x1F).map(chr),
    )


@cache
def awkward_text(*, min_pieces: int = 0, max_pieces: int = 4) -> st.SearchStrategy[str]:
    """Short text mixing ordinary characters with controls, escapes, astral characters and
    lone surrogates (high alone, low alone, a reversed pair, a pair as two code points)."""
    return st.lists(agent_text_pieces(), min_size=min_pieces, max_size=max_pieces).map("".join)


@cache
def repetition_units() -> st.SearchStrategy[str]:
    """A short non-empty unit that big strings repeat: escape-heavy, or mixing astral characters
    with others (so that code points, UTF-16 units and bytes all count differently)."""
    return st.one_of(
        st.text(min_size=1, max_size=8),
        st.lists(st.sampled_from(("a", "\U0001f600", "é", "\x00", "\U00010000", "b")),
                 min_size=2, max_size=5).map("".join),
        awkward_text(min_pieces=1, max_pieces=4).filter(lambda s: 0 < len(s) <= 12),
        st.sampled_from((
            "\x00", "\x1b[0m", "\U0001f600", "é", "a\U0001f600", "\u2028", "x", "\U0001d4b3y",
            "\U0001f600\U0001f601", "ab\U00010000",
        )),
    )


#: Units made of the edges of the cost table (wire.md §6.5): the last code point of one cost and
#: the first of the next (U+001F and U+0020, U+007F and U+0080, U+07FF and U+0800, U+FFFF and
#: U+10000), where a port that measures with another table is off by a byte per character.
COST_EDGE_UNITS = ("\x1f ", "\x7f\x80", "\u07ff\u0800", "\uffff\U00010000", "\x80\u07ff",
                   "\u0800\uffff")
#: Every edge of the cost table in one string: a line of exactly maxBytes carries it (in args,
#: which count toward the line and are dropped from a bounded one).
COST_EDGES = "".join(COST_EDGE_UNITS)


@cache
def astral_units() -> st.SearchStrategy[str]:
    """A repetition unit that ends in astral characters (two UTF-16 units, four bytes each):
    a tail counted in UTF-16 units is cut elsewhere, or inside a character."""
    return st.tuples(
        st.sampled_from(("", "a", "é", "\x00", "xy")),
        st.lists(st.sampled_from(("\U0001f600", "\U00010000", "\U0001d4b3")), min_size=1,
                 max_size=3).map("".join),
    ).map("".join)


def _escaped_size(text: str) -> int:
    """Bytes ``text`` costs inside a canonical string literal, quotes excluded."""
    return len(canonical_bytes(text)) - 2


# -- JSON payloads ---------------------------------------------------------------------------


@cache
def member_names() -> st.SearchStrategy[str]:
    """Member names: integer-like ones (array indices and look-alikes: ``"01"``, ``"00"``,
    non-ASCII digits), awkward text, and names that collide once well-formed."""
    return st.one_of(
        st.sampled_from(INTEGER_LIKE_KEYS),
        st.text(max_size=5),
        awkward_text(max_pieces=2),
        st.sampled_from(COLLIDING_NAMES),
    )


@cache
def keyed_map_names() -> st.SearchStrategy[str]:
    """Names of an object keyed by numbers (line numbers, ids, ports): array indices up to the
    last one, ``"4294967294"``, and the look-alikes around them (§6.4)."""
    return st.one_of(st.sampled_from(INTEGER_LIKE_KEYS), st.integers(0, 2**32).map(str),
                     st.sampled_from(("4294967294", "4294967295", "4294967296")),
                     st.sampled_from(("a", "id", "b")))


@cache
def json_numbers() -> st.SearchStrategy[int | float]:
    """Numbers the spec accepts (|n| <= 2^53-1 for integers, finite floats), awkward ones often."""
    return st.one_of(
        st.sampled_from(AWKWARD_FLOATS),
        st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER),
        st.sampled_from((0, -1, MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER, 2**32)),
        st.floats(allow_nan=False, allow_infinity=False),
    )


@cache
def json_values(*, max_leaves: int = 6) -> st.SearchStrategy[Any]:
    """JSON values for ``args``, ``details`` and ``partialResult`` payloads.

    Integral floats (``30.0``, ``-0.0``, ``1e21``, ``1e-7``, ``5e-324``), integer-like member names
    (``"0"``, ``"10"``, ``"2"``, ``"01"``, ``"-1"``, ``"4294967294"``, ``"4294967295"``) and
    awkward strings are common; integers stay within ±(2^53-1) and there is no NaN or Infinity
    (wire.md §7 refuses them).
    """
    scalars = st.one_of(
        st.none(), st.booleans(), json_numbers(), awkward_text(), st.text(max_size=8),
    )
    return st.recursive(
        scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.dictionaries(member_names(), children, max_size=4),
            st.dictionaries(keyed_map_names(), children, min_size=2, max_size=6),
        ),
        max_leaves=max_leaves,
    )


@cache
def _small_objects() -> st.SearchStrategy[dict[str, Any]]:
    """A flat object of awkward scalars (few choices: the target phase climbs every one)."""
    return st.dictionaries(member_names(), st.one_of(json_numbers(), awkward_text(max_pieces=2),
                                                     st.none(), st.booleans()), max_size=3)


@cache
def agent_json_objects(*, max_leaves: int = 6) -> st.SearchStrategy[dict[str, Any]]:
    """JSON objects (tool ``args``, ``details``), with integer-like member names often."""
    return st.dictionaries(member_names(), json_values(max_leaves=max_leaves // 2), max_size=4)


# -- ids -------------------------------------------------------------------------------------


def _repeated_to(unit: str, code_points: int) -> str:
    """``unit`` repeated until the result has at least ``code_points`` code points."""
    return unit * (-(-code_points // len(unit)))


_ID_KINDS = st.sampled_from(("short", "huge", "boundary", "short", "huge", "short", "boundary"))
_BOUNDARY_UNITS = st.sampled_from(("\U0001f600", "a", "\x00", "é", "\ud800", "\u2028",
                                   "\U0001d4b3"))
_BOUNDARY_COUNTS = st.sampled_from((255, 256, 257))
_LONG_ID_CODE_POINTS = st.integers(257, 4000)
_ID_SHARES = st.sampled_from((0.5, 0.1, 1.5, 0.3, 0.8))


@cache
def _short_ids() -> st.SearchStrategy[str]:
    return st.one_of(st.text(max_size=12), awkward_text(max_pieces=3))


@cache
def _id_units() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(("\U0001f600", "\x00", "\x1b", "a\U0001f600", "x")),
                     astral_units(), repetition_units())


@cache
def _boundary_heads(prefix: str) -> st.SearchStrategy[str]:
    return st.sampled_from(("", prefix))


@cache
def _long_heads(prefix: str) -> st.SearchStrategy[str]:
    return st.sampled_from((prefix, "toolu_01", ""))


@st.composite
def tool_ids(draw: st.DrawFn, *, prefix: str = "call_", max_bytes: int | None = None) -> str:
    """A tool call id or name: short, right at the 256-code-point clip, or far beyond it.

    Long ids are a prefix and a repetition: ordinary text, astral characters (4 bytes, two UTF-16
    units each) or control characters (6 bytes each as ``\\u00xx``). With ``max_bytes``, a long
    id's escaped size is drawn relative to that bound, and one time in five an id alone exceeds
    it (what made the seed's shrink loop spin, wire.md §5.6); without, it has 257…4000 code
    points.
    """
    max_bytes = _bound(max_bytes)
    kind = draw(_ID_KINDS)
    if kind == "short":
        return prefix + draw(_short_ids())
    if kind == "boundary":
        unit = draw(_BOUNDARY_UNITS)
        return draw(_boundary_heads(prefix)) + unit * draw(_BOUNDARY_COUNTS)
    unit = draw(_id_units())
    head = draw(_long_heads(prefix))
    if max_bytes is None:
        return head + _repeated_to(unit, draw(_LONG_ID_CODE_POINTS))
    share = draw(_ID_SHARES)
    code_points = int(max_bytes * share) * len(unit) // max(_escaped_size(unit), 1)
    return head + _repeated_to(unit, max(code_points, 257))


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


@cache
def text_blocks() -> st.SearchStrategy[dict[str, Any]]:
    """``{"type": "text", "text": …}``."""
    return st.fixed_dictionaries({"type": st.just("text"), "text": awkward_text()})


@cache
def tool_call_blocks() -> st.SearchStrategy[dict[str, Any]]:
    """``{"type": "toolCall", "id", "name", "arguments"}``."""
    return st.fixed_dictionaries({
        "type": st.just("toolCall"),
        "id": tool_ids(),
        "name": tool_ids(prefix=""),
        "arguments": agent_json_objects(),
    })


@cache
def assistant_blocks() -> st.SearchStrategy[dict[str, Any]]:
    """A content block of an assistant message: text, thinking or a tool call."""
    return st.one_of(
        text_blocks(),
        st.fixed_dictionaries({"type": st.just("thinking"), "thinking": awkward_text()}),
        tool_call_blocks(),
    )


@cache
def agent_assistant_messages(*, usage: bool | None = None) -> st.SearchStrategy[dict[str, Any]]:
    """A pi-style assistant message; ``usage`` True/False forces the key in or out."""
    required: dict[str, st.SearchStrategy[Any]] = {
        "role": st.just("assistant"),
        "content": st.lists(assistant_blocks(), max_size=3),
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
    return st.fixed_dictionaries(required, optional=optional)


@cache
def user_messages() -> st.SearchStrategy[dict[str, Any]]:
    """``{"role": "user", "content": str | [text blocks]}``."""
    return st.fixed_dictionaries(
        {"role": st.just("user"),
         "content": st.one_of(awkward_text(), st.lists(text_blocks(), max_size=3))},
        optional={"timestamp": st.integers(0, MAX_SAFE_INTEGER)},
    )


@cache
def tool_result_messages() -> st.SearchStrategy[dict[str, Any]]:
    """``{"role": "toolResult", "toolCallId", "toolName", "content", "isError"}``."""
    return st.fixed_dictionaries({
        "role": st.just("toolResult"),
        "toolCallId": tool_ids(),
        "toolName": st.text(max_size=8),
        "content": st.lists(text_blocks(), max_size=3),
        "isError": st.booleans(),
    })


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


@cache
def _extra_members() -> st.SearchStrategy[dict[str, Any]]:
    """Members an event may carry beyond its known keys (forward compatibility, §2)."""
    names = st.one_of(st.sampled_from((*INTEGER_LIKE_KEYS, "extra", "meta", "x\u2028y")),
                      st.sampled_from(COLLIDING_NAMES))
    return st.dictionaries(names, json_values(max_leaves=4), min_size=1, max_size=3)


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
_MESSAGE_EVENT_KINDS = (*ASSISTANT_EVENT_TYPES, "toolcall_start", "toolcall_start")
_ERRONEOUS_KINDS = ("toolcall_start",) * 18 + ASSISTANT_EVENT_TYPES
_ERRONEOUS_KIND_DRAWS = st.sampled_from(_ERRONEOUS_KINDS)
_MESSAGE_EVENT_KIND_DRAWS = st.sampled_from(_MESSAGE_EVENT_KINDS)
_ONE_IN_6 = st.integers(0, 5)
_ONE_IN_5 = st.integers(0, 4)
_ONE_IN_4 = st.integers(0, 3)
_ONE_IN_3 = st.integers(0, 2)
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
        erroneous = draw(_ONE_IN_6) == 0
    partial = draw(agent_assistant_messages())
    content: list[dict[str, Any]] = list(partial["content"])
    ame: dict[str, Any] = {"type": kind}
    if kind not in ("start", "done", "error"):
        ame["contentIndex"] = draw(st.integers(0, max(len(content), 1)))
    if kind.endswith("_delta"):
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
        elif mistake == "past-a-tool-call":
            content.append(draw(tool_call_blocks()))
            ame["contentIndex"] = len(content) + draw(_ONE_IN_4)
        elif mistake == "wrong-block":
            content.insert(index, draw(text_blocks()))
        else:
            content.insert(index, draw(tool_call_blocks()))
    partial["content"] = content
    if "contentIndex" in ame and draw(_ONE_IN_3) == 0:
        # An integer spelled as a double (§1: the same integer, as JSON Schema's integer type
        # says; what a port reading numbers as doubles, or a Python float, sends).
        ame["contentIndex"] = float(ame["contentIndex"])
    if kind in ("done", "error"):
        # The final events carry the finished message under their own name, not a snapshot.
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
    return {"type": "message_update", "message": message, "assistantMessageEvent": ame}


@cache
def neighbour_blocks() -> st.SearchStrategy[Any]:
    """A content block next to an update's big text block, of each kind extraction tells apart
    (wire.md §5.3): another text block (the pieces join with ``""``), one whose text opens with
    a low surrogate (the other half of a pair cut between two blocks: two U+FFFD, never one
    character), a text block whose ``text`` is not a string, a block of another type (or of
    none) carrying a string ``text`` (it contributes nothing), an image, a non-object."""
    short = st.one_of(st.sampled_from(("", "ok", "\n", "done.\n", "</b>&amp;")),
                      awkward_text(max_pieces=2))
    return st.one_of(
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
        "turn_end", message=messages(), toolResults=st.lists(tool_result_messages(), max_size=3)
    ))


@cache
def _agent_ends() -> st.SearchStrategy[Event]:
    return _with_extras(st.fixed_dictionaries(
        {"type": st.just("agent_end"), "messages": st.lists(messages(), max_size=3)},
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
            lambda text, usage: {"type": "message_end", "message": {
                "role": "assistant", "content": [{"type": "text", "text": text}],
                "usage": usage}},
            awkward_strings(), awkward_payloads()),
    )


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
_COLLIDING_ARGS = st.sampled_from((
    (), (), (), (("\ud800", 1), ("\udc00", "two")), (("\udbff", []), ("\ufffd", "kept"), ("n", 2)),
    (("\ufffd", "first"), ("\udfff", "x" * 40)),
))
_SHAPE_DRAWS = st.sampled_from(PARTIAL_RESULT_SHAPES)
_HIGH_END_DRAWS = st.sampled_from(_HIGH_ENDS)
_MOSTLY_DETAILS = st.sampled_from((True, True, False))
_SMALL_COUNTS = st.integers(0, 20)
_AT_BOUND_OFFSETS = st.sampled_from((0, 1, -1))
_UNDER_BOUND_OFFSETS = st.sampled_from((-1, -2, -1))
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
    under_bound: bool = False,
) -> Event:
    """A ``tool_execution_update``; with ``max_bytes``, one whose line lands near that bound.

    Placements: within 40 bytes of ``max_bytes`` either way (exactly at it included), over by
    so much that even the bounded form cannot keep the whole text ("tail-cut"), several times
    over, or small. With ``at_bound``, the line is exactly ``max_bytes`` bytes (it fits and is
    written whole) or one byte more (it is bounded), or one byte less; with ``under_bound`` as
    well, one byte less (or two). The big text sits in the
    shape ``partialResult`` takes (content blocks with ``details``, a bare string, blocks around
    non-text blocks, a surrogate pair split across two blocks); for shapes without text (null, a
    number, an array, an object without array ``content``) the bulk goes into ``args``, so the
    bounded text is empty.
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
            blocks = [*draw(_neighbours(0, 2)), holder, *draw(_neighbours(2, 6))]
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
        "near": draw(_UNDER_BOUND_OFFSETS if under_bound else _AT_BOUND_OFFSETS if at_bound
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


# -- op inputs -------------------------------------------------------------------------------


#: Numbers a line cannot carry (wire.md §7): integer literals just past 2^53 - 1 and far beyond
#: it, and overflowing literals (written ``1e400``/``-1e400`` on the wire).
UNFAITHFUL_NUMBERS: tuple[int | float, ...] = (
    MAX_SAFE_INTEGER + 1, MAX_SAFE_INTEGER + 2, -(MAX_SAFE_INTEGER + 1), 2**63, 2**64 + 1,
    10**21 + 1, 123456789012345678901234567890, float("inf"), float("-inf"),
)
#: Numbers at the edge that a line does carry: 2^53 - 1 itself, doubles written with a fraction
#: or an exponent, the largest finite double.
FAITHFUL_EDGE_NUMBERS: tuple[int | float, ...] = (
    MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER, 9007199254740992.0, 1e21, 1e300, 1.7976931348623157e308,
    -0.0, 5e-324,
)
#: Where a number is put: members the projection carries, and members it drops (§4, §7). An
#: update's ``args`` and ``details`` come up most: there the refusal must come before the
#: backstop, which would drop them (§7, second note).
CARRIED_PLACES = ("args", "details", "usage", "args", "assistant-event", "details", "fact")
DROPPED_PLACES = ("partial", "message-content", "turn-end-message", "agent-end-messages")


def _place_number(place: str, key: str, number: Any, text: str) -> Event:
    """An event with ``number`` at ``key`` in the member ``place`` names."""
    nested = {key: number}
    message = {"role": "assistant", "content": [{"type": "text", "text": text}]}
    if place in ("args", "details"):
        return {"type": "tool_execution_update", "toolCallId": "toolu_01", "toolName": "bash",
                "args": nested if place == "args" else {"command": "ls"},
                "partialResult": {"content": [{"type": "text", "text": text}],
                                  "details": nested if place == "details" else {}}}
    if place in ("usage", "assistant-event", "partial", "message-content"):
        usage = {"input": 12, **(nested if place == "usage" else {})}
        content = [{"type": "text", "text": text, **(nested if place == "message-content"
                                                      else {})}]
        partial = {"role": "assistant", "content": [{"type": "text", "text": text}],
                   **(nested if place == "partial" else {})}
        event_fields = nested if place == "assistant-event" else {}
        return {"type": "message_update",
                "message": {"role": "assistant", "content": content, "usage": usage},
                "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0,
                                          "delta": text, **event_fields, "partial": partial}}
    if place == "turn-end-message":
        return {"type": "turn_end", "message": {**message, **nested}, "toolResults": []}
    if place == "agent-end-messages":
        return {"type": "agent_end", "messages": [{**message, **nested}]}
    return {"type": "custom_metrics", "payload": nested}  # a fact that passes through


_CARRIED_PLACE_DRAWS = st.sampled_from(CARRIED_PLACES)
_DROPPED_PLACE_DRAWS = st.sampled_from(DROPPED_PLACES)
_NUMBER_KEYS = st.sampled_from(("seed", "tokens", "0", "n"))
_NUMBER_TEXTS = st.sampled_from(("ok", "Hel", ""))
_MOSTLY_OVER = st.sampled_from((False, True, True, True))
_NUMBER_UNITS = st.sampled_from(("x", "ok\n", "\U0001f600", "\x00"))
_OVER_BY = st.integers(1, 50)


@cache
def _edge_numbers() -> st.SearchStrategy[int | float]:
    return st.one_of(
        st.sampled_from([n for n in UNFAITHFUL_NUMBERS if isinstance(n, int)]),
        st.sampled_from((float("inf"), float("-inf"))),
        st.sampled_from(FAITHFUL_EDGE_NUMBERS),
        st.integers(MAX_SAFE_INTEGER - 2, MAX_SAFE_INTEGER + 2))


@st.composite
def number_events(draw: st.DrawFn, *, carried: bool, max_bytes: int | None = None) -> Event:
    """Events holding a number at the edge of what a line carries (wire.md §7), in a member the
    projection carries (``carried``) or in one it drops. Overflowing numbers, integers past
    2^53 - 1 and numbers a line does carry are drawn about equally often. With ``max_bytes``,
    a ``tool_execution_update`` is over that bound three times in four (its text a repeated unit):
    the number is judged in the whole event, before the backstop drops ``args`` (§7)."""
    max_bytes = _bound(max_bytes)
    number = draw(_edge_numbers())
    place = draw(_CARRIED_PLACE_DRAWS if carried else _DROPPED_PLACE_DRAWS)
    key = draw(_NUMBER_KEYS)
    event = _place_number(place, key, number, draw(_NUMBER_TEXTS))
    if max_bytes is not None and event["type"] == "tool_execution_update" and draw(
            _MOSTLY_OVER):
        unit = draw(_NUMBER_UNITS)
        event["partialResult"]["content"][0]["text"] = unit * (
            max_bytes // _escaped_size(unit) + draw(_OVER_BY))
    return event


def max_bytes_values(capabilities: Capabilities) -> st.SearchStrategy[int]:
    """``maxBytes``: mostly small (``MIN_MAX_BYTES``…20000, fast), the default 262144 about one
    time in ten; always the default when the implementation declared ``variableMaxBytes:
    false``."""
    if not capabilities.variable_max_bytes:
        return st.just(DEFAULT_MAX_BYTES)
    # Both choices are always drawn, so the shrinker can turn the default into a small bound
    # without shifting every later choice.
    return st.tuples(st.integers(MIN_MAX_BYTES, 20000), st.integers(0, 9)).map(
        lambda drawn: DEFAULT_MAX_BYTES if drawn[1] == 9 else drawn[0]
    )


def classify_inputs(capabilities: Capabilities) -> st.SearchStrategy[OpInput]:
    """``classify`` op inputs: ``{"event": …}`` for every known type and, about half of the
    time, an unknown one (:func:`unknown_types`: the near misses are where a classification
    by case, trimming, suffix or prefix parts from the exact names of §3)."""
    del capabilities  # classification does not depend on any capability
    return _classify_inputs()


def classify_families(capabilities: Capabilities) -> tuple[Family, ...]:
    """The kinds of ``classify`` input a run covers, one per answer class (wire.md §3): facts of
    every known type and unknown types, and frames (``message_update`` of every kind, erroneous
    ones included, and ``tool_execution_update``), so that every run, on every seed and
    budget, asks both."""
    del capabilities
    return (
        Family("facts", 2, _classify_facts()),
        Family("frames", 1, st.builds(_event_input, st.one_of(
            assistant_message_events(), _with_extras(_small_tool_execution_updates())))),
    )


def _event_input(event: Event) -> OpInput:
    return {"event": event}


@st.composite
def _classify_facts(draw: st.DrawFn) -> OpInput:
    # An explicit choice: st.one_of would flatten the facts' own branches into the choice and
    # leave an unknown type one in twelve.
    unknown = draw(BOOLEANS)
    return {"event": draw(unknown_events() if unknown else _known_facts())}


@cache
def _known_facts() -> st.SearchStrategy[Event]:
    """Every known type of agent event that is a fact (wire.md §3)."""
    return st.one_of(
        _typed("agent_start"),
        _agent_ends(),
        _typed("turn_start"),
        _turn_ends(),
        _with_extras(_typed("message_start", message=messages())),
        _with_extras(_typed("message_end", message=messages())),
        _with_extras(_typed(
            "tool_execution_start", toolCallId=tool_ids(), toolName=tool_ids(prefix=""),
            args=agent_json_objects(),
        )),
        _with_extras(_typed(
            "tool_execution_end", toolCallId=tool_ids(), toolName=tool_ids(prefix=""),
            result=partial_results(), isError=st.booleans(),
        )),
    )


@st.composite
def _classify_inputs(draw: st.DrawFn) -> OpInput:
    # An explicit choice: st.one_of would flatten agent_events' own branches into the choice
    # and leave an unknown type one in twelve.
    unknown = draw(BOOLEANS)
    return {"event": draw(unknown_events() if unknown else agent_events())}


def _project(
    capabilities: Capabilities, events: st.SearchStrategy[Event],
    include: st.SearchStrategy[bool],
) -> st.SearchStrategy[OpInput]:
    """``{"event", "includeLiveEvents", "maxBytes"}`` with the event drawn for the bound (a
    strategy built with ``max_bytes=CURRENT_BOUND`` is drawn for the drawn ``maxBytes``)."""
    bounds = max_bytes_values(capabilities)

    @st.composite
    def inputs(draw: st.DrawFn) -> OpInput:
        max_bytes = draw(bounds)
        with _for_bound(max_bytes):
            event = draw(events)
        # maxBytes stays an int: the checks' view of a request (explain.project_view) judges
        # nothing when it is a double such as 4096.0, which §1 makes the same integer.
        return {"event": event, "includeLiveEvents": draw(include), "maxBytes": max_bytes}
    return inputs()


@st.composite
def _edge_inputs(draw: st.DrawFn) -> OpInput:
    max_bytes, event = draw(edge_updates())
    return {"event": event, "includeLiveEvents": True, "maxBytes": max_bytes}


_MOSTLY = st.sampled_from((True, True, True, False))


def project_families(capabilities: Capabilities) -> tuple[Family, ...]:
    """The kinds of ``project`` input a run covers, and each one's share of the budget.

    In order (a failure shrinks within the first family that shows it, so the simplest come
    first): any small agent event; ``message_update`` of every type; frames not opted into
    (§4.1: no line); erroneous ones (§4.5), and toolcall_start past the end of its content, right
    after a tool call;
    ``turn_end`` and ``agent_end``; facts dense in awkward values and unknown types; facts over
    the bound (never bounded, §5.1); ``tool_execution_update`` lines around ``maxBytes`` (see
    :func:`tool_execution_updates`); lines of exactly ``maxBytes`` and one byte either side, and
    one or two bytes under it;
    texts whose cut falls inside astral characters (:func:`cut_updates`); and, when
    ``maxBytes`` may vary, updates at the smallest bound (:func:`edge_updates`).
    """
    bound = CURRENT_BOUND
    families = [
        Family("events", 1, _project(capabilities, agent_events(), st.booleans())),
        Family("message-updates", 1, _project(
            capabilities,
            st.one_of(assistant_message_events(),
                      assistant_message_events(erroneous=False, kind="toolcall_start")),
            _MOSTLY)),
        Family("frames-not-opted-in", 1, _project(
            capabilities, st.one_of(assistant_message_events(),
                                    _with_extras(_small_tool_execution_updates())),
            st.just(False))),
        Family("erroneous", 1, _project(
            capabilities, assistant_message_events(erroneous=True), _MOSTLY)),
        Family("past-the-end", 1, _project(
            capabilities, assistant_message_events(erroneous=True, kind="toolcall_start",
                                                   mistake="past-a-tool-call"), _MOSTLY)),
        Family("turn-ends", 1, _project(capabilities, _turn_ends(), st.booleans())),
        Family("agent-ends", 1, _project(capabilities, _agent_ends(), st.booleans())),
        Family("facts", 2, _project(
            capabilities, st.one_of(awkward_facts(), unknown_events()), st.booleans())),
        Family("facts-over-bound", 1, _project(
            capabilities, oversized_facts(max_bytes=bound), st.booleans())),
        Family("near-bound", 3, _project(
            capabilities, tool_execution_updates(max_bytes=bound), _MOSTLY)),
        Family("at-bound", 1, _project(
            capabilities, tool_execution_updates(max_bytes=bound, at_bound=True),
            st.just(True))),
        Family("under-bound", 1, _project(
            capabilities, tool_execution_updates(max_bytes=bound, under_bound=True),
            st.just(True))),
        Family("cut", 1, _project(capabilities, cut_updates(max_bytes=bound), st.just(True))),
        Family("numbers", 2, _project(
            capabilities, number_events(carried=True, max_bytes=bound), st.just(True))),
        Family("dropped-numbers", 1, _project(
            capabilities, number_events(carried=False), st.just(True))),
    ]
    if capabilities.variable_max_bytes:
        families.append(Family("edge", 1, _edge_inputs()))
    return tuple(replace(family, aims=FAMILY_AIMS[family.name]) for family in families)


#: The rules each ``project`` family is built to reach (every family reaches the catch-all
#: ``project.agrees``; tests/unit/test_where.py holds every rule to at least one family).
FAMILY_AIMS: dict[str, tuple[str, ...]] = {
    "events": ("classify.kind", "project.frame-opt-in", "project.fact-passthrough"),
    "message-updates": ("project.message-update", "project.frame-opt-in"),
    "frames-not-opted-in": ("project.frame-opt-in",),
    "erroneous": ("project.erroneous",),
    "past-the-end": ("project.erroneous",),
    "turn-ends": ("project.turn-end",),
    "agent-ends": ("project.agent-end",),
    "facts": ("project.fact-passthrough", "canon.utf8", "canon.bytes"),
    "facts-over-bound": ("bound.only-updates",),
    "near-bound": ("bound.fits", "bound.only-when-over", "bound.shape", "bound.text", "bound.tail",
                   "bound.converges"),
    "at-bound": ("bound.fits", "bound.only-when-over", "bound.tail"),
    "under-bound": ("bound.only-when-over", "canon.bytes"),
    "cut": ("bound.tail", "bound.text", "canon.utf8"),
    "numbers": ("project.numbers", "project.erroneous"),
    "dropped-numbers": ("project.numbers", "project.agrees"),
    "edge": ("bound.ids", "bound.converges", "bound.fits"),
}


def project_inputs(capabilities: Capabilities) -> st.SearchStrategy[OpInput]:
    """``project`` op inputs: ``{"event", "includeLiveEvents", "maxBytes"}``, drawn from every
    family of :func:`project_families` (the engine searches each family on its own)."""
    return st.one_of([family.strategy for family in project_families(capabilities)])


# -- observers (hypothesis.target) -----------------------------------------------------------


def observe_project(op_input: Any) -> dict[str, float]:
    """Steer toward the byte boundary, from both sides of the backstop.

    Two scores, each peaking at 0: minus the distance of the update's canonical line from
    ``maxBytes`` (a line at the bound fits; one byte more and it is bounded), and, for a line
    over the bound, minus the bytes its bounded form with the whole text lacks to be over
    ``maxBytes`` (0 once the tail must be cut, where the fit strategies part). Hypothesis spends
    what is left of a budget under 1000 examples climbing from the best example of each.
    """
    event = op_input.get("event") if isinstance(op_input, Mapping) else None
    max_bytes = op_input.get("maxBytes") if isinstance(op_input, Mapping) else None
    if not isinstance(event, Mapping) or event.get("type") != "tool_execution_update":
        return {}
    if not isinstance(max_bytes, int):
        return {}
    # The bounded forms hold strings only and never fail; each is measured only when the score
    # needs it (an observer runs on every example).
    if full_text_bounded_size(event, text="") + 64 > max_bytes:
        # The ids leave no room for a tail (the smallest bound, see edge_updates): such updates
        # are generated directly, and climbing from one would explore nothing else.
        return {}
    try:
        line = len(canonical_bytes(event))
    except ValueError:  # a value the spec refuses: nothing to steer by
        return {}
    scores = {"minus bytes from maxBytes": -float(abs(line - max_bytes))}
    if line > max_bytes:  # only a line over the bound is bounded
        # Flat at the top: every update whose tail must be cut scores 0, so the climb moves
        # sideways through many of them (other units, leads, ids) instead of polishing one.
        bounded = full_text_bounded_size(event)
        scores["bytes the whole-text bounded form lacks to be over maxBytes, negated"] = (
            -float(max(0, max_bytes + 1 - bounded)))
    return scores
