"""The wire profile's strategies: head, text, JSON payloads, ids."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from typing import Any, overload

from eventproof.reference import (
    canonical_bytes,
)
from hypothesis import strategies as st

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
    "many-blocks", "many-blocks", "many-blocks", "many-blocks", "many-blocks",
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


