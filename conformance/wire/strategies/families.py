"""The wire profile's strategies: op inputs."""

from __future__ import annotations

import math
from dataclasses import replace
from functools import cache
from typing import Any

from eventproof.reference import (
    DEFAULT_MAX_BYTES,
    MIN_MAX_BYTES,
)
from hypothesis import strategies as st

from ..._model import Capabilities, Family, family_per_side
from ..._reused import BOOLEANS
from ..._traps import trap_families
from .byte_forms import byte_form_bound, byte_form_inputs
from .events import (
    _agent_ends,
    _small_tool_execution_updates,
    _turn_ends,
    _typed,
    _with_extras,
    agent_events,
    assistant_message_events,
    awkward_facts,
    cut_updates,
    edge_updates,
    exact_tail_updates,
    frame_near_miss_types,
    message_facts,
    messages,
    oversized_facts,
    partial_results,
    tool_execution_updates,
    unknown_events,
)
from .shapes import every_shape_inputs, shape_count
from .values import (
    CURRENT_BOUND,
    MAX_SAFE_INTEGER,
    Event,
    OpInput,
    _bound,
    _escaped_size,
    _for_bound,
    agent_json_objects,
    tool_ids,
)

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
#: ``contentIndex``: in an assistant event the number is the index (past 2^53 - 1: refused).
_NUMBER_KEYS = st.sampled_from(("seed", "tokens", "0", "n", "contentIndex"))
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
    if key == "contentIndex" and not (isinstance(number, int) or (
            math.isfinite(number) and number == int(number))):
        key = "seed"  # the schema wants an integer index: a non-integral number goes elsewhere
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
    effort, asks both; then one event of every shape the schemas allow (:mod:`.shapes`)."""
    return (
        Family("facts", 2, _classify_facts()),
        Family("frames", 1, st.builds(_event_input, st.one_of(
            assistant_message_events(), _with_extras(_small_tool_execution_updates())))),
        Family("near-misses", 1, st.builds(_event_input, frame_look_alikes())),
        Family("every-shape", 1, every_shape_inputs("classify", capabilities),
               examples=shape_count()),
        *trap_families("classify", capabilities),
    )


@st.composite
def frame_look_alikes(draw: st.DrawFn) -> Event:
    """Facts that look like frames: a frame's members under a type that is not a frame's own
    (wire.md §3: a type is a frame by its whole, exact name): another case or white space,
    another subject with a frame's suffix (``status_update``), a frame's name with a suffix or
    a prefix. The body is a frame's, so neither the shape nor a part of the name tells them
    apart."""
    body = draw(st.one_of(assistant_message_events(erroneous=False),
                          _small_tool_execution_updates()))
    return {**body, "type": draw(frame_near_miss_types())}


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


#: The families of lines at the bound, by the side of it their lines are on.
AT_BOUND_FAMILIES = {"at": "at-bound", "over": "one-byte-over", "under": "one-byte-under"}

#: ``maxBytes`` far above any line (the schema bounds it only below): the largest integer a
#: double holds exactly, and beyond it (a port reading it as a double or a 32-bit integer reads
#: another bound, or refuses it). Drawn only with events not sized to the bound.
HUGE_MAX_BYTES = (MAX_SAFE_INTEGER, MAX_SAFE_INTEGER + 1, 2**63, 2**64 + 1)
#: How ``maxBytes`` is written: as drawn (an integer), as the same integer written as a double
#: (``4096.0``, §1), or, for events not sized to it, one of :data:`HUGE_MAX_BYTES`.
_BOUND_SPELLINGS = st.sampled_from(("int", "int", "double", "int", "huge", "double"))
_HUGE_BOUNDS = st.sampled_from(HUGE_MAX_BYTES)


def _spelled(draw: st.DrawFn, max_bytes: int, *, sized: bool) -> int | float:
    """``max_bytes`` as a request writes it (see :data:`_BOUND_SPELLINGS`); ``sized``: the
    event was drawn for this bound, which a huge one would not be."""
    spelling = draw(_BOUND_SPELLINGS)
    if spelling == "double":
        return float(max_bytes)
    if spelling == "huge" and not sized:
        return draw(_HUGE_BOUNDS)
    return max_bytes


#: Bounds long texts are drawn for: the default, and large ones between it and the drawn ones.
_LARGE_BOUNDS = st.sampled_from((DEFAULT_MAX_BYTES, 131072, DEFAULT_MAX_BYTES, 65536))
_ONE_IN_4 = st.integers(0, 3)


def _large_bounds(capabilities: Capabilities) -> st.SearchStrategy[int]:
    if not capabilities.variable_max_bytes:
        return st.just(DEFAULT_MAX_BYTES)
    drawn = max_bytes_values(capabilities)
    return st.tuples(_LARGE_BOUNDS, drawn, _ONE_IN_4).map(
        lambda choice: choice[1] if choice[2] == 3 else choice[0])


def _project(
    capabilities: Capabilities, events: st.SearchStrategy[Event],
    include: st.SearchStrategy[bool], *, sized: bool = False,
    bounds: st.SearchStrategy[int] | None = None,
) -> st.SearchStrategy[OpInput]:
    """``{"event", "includeLiveEvents", "maxBytes"}`` with the event drawn for the bound (a
    strategy built with ``max_bytes=CURRENT_BOUND`` is drawn for the drawn ``maxBytes``; such a
    family is ``sized``). When ``maxBytes`` may vary it is written in every spelling §1 and the
    schema allow (an integral double, far beyond any line: :func:`_spelled`)."""
    if bounds is None:
        bounds = max_bytes_values(capabilities)
    variable = capabilities.variable_max_bytes

    @st.composite
    def inputs(draw: st.DrawFn) -> OpInput:
        max_bytes = draw(bounds)
        with _for_bound(max_bytes):
            event = draw(events)
        include_live = draw(include)
        written = _spelled(draw, max_bytes, sized=sized) if variable else max_bytes
        return {"event": event, "includeLiveEvents": include_live, "maxBytes": written}
    return inputs()


def _no_tail_fits(control: str, name: str, text: str) -> OpInput:
    return {"event": {"type": "tool_execution_update", "toolCallId": control * 256,
                      "toolName": name * 256, "args": {},
                      "partialResult": {"content": [{"type": "text", "text": text}]}},
            "includeLiveEvents": True, "maxBytes": MIN_MAX_BYTES}


#: Updates at exactly the smallest bound with both ids at their worst cost (wire.md §5.6): the
#: empty tail fits to the byte and not one code point more, whatever it costs, so every fit
#: strategy ends at the empty tail of a non-empty text: the branch where a ``slice(-k)`` tail
#: is the whole text at k = 0 and a halving loop never ends. A fixed share, built, on every run
#: and seed: luck in drawing the edge family must not decide whether that loop is found.
NO_TAIL_FITS: tuple[OpInput, ...] = (
    _no_tail_fits("\x00", "\x00", "\x00" * 40),
    _no_tail_fits("\x1b", "\x01", "a" * 100),
    _no_tail_fits("\x1f", "\x07", "\U0001f600" * 3 + "\x07" * 40),
)


@st.composite
def _edge_inputs(draw: st.DrawFn) -> OpInput:
    max_bytes, event = draw(edge_updates())
    return {"event": event, "includeLiveEvents": True,
            "maxBytes": _spelled(draw, max_bytes, sized=True)}


_MOSTLY = st.sampled_from((True, True, True, False))


#: "message" first: the simplest fact drawn is a message whose blocks have members of their own.
@st.composite
def _ends(draw: st.DrawFn) -> Event:
    """``turn_end`` and ``agent_end`` (§4.4), each half of the time (an explicit choice)."""
    return draw(_agent_ends() if draw(BOOLEANS) else _turn_ends())


_FACT_KINDS = st.sampled_from(("message", "awkward", "unknown", "message"))


@st.composite
def _facts(draw: st.DrawFn) -> Event:
    """Facts dense in awkward values, of unknown types, and messages whose blocks carry members
    of their own (half of the time). An explicit choice: st.one_of would flatten the branches of
    each into one choice."""
    kind = draw(_FACT_KINDS)
    return draw(awkward_facts() if kind == "awkward" else unknown_events() if kind == "unknown"
                else message_facts())


def as_integral_doubles(value: Any) -> Any:
    """``value`` with every integer a double holds exactly written as a double (``1`` as
    ``1.0``), wherever it is: the same value (wire.md §1), so the same answer, and the spelling
    a port that reads numbers as doubles sends. Integers beyond 2^53 - 1 stay as they are (as
    doubles they would be other numbers)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return float(value) if abs(value) <= MAX_SAFE_INTEGER else value
    if isinstance(value, dict):
        return {key: as_integral_doubles(item) for key, item in value.items()}
    if isinstance(value, list):
        return [as_integral_doubles(item) for item in value]
    return value


def project_families(capabilities: Capabilities) -> tuple[Family, ...]:
    """The kinds of ``project`` input a run covers, and each one's share of the examples.

    In order (a failure shrinks within the first family that shows it, so the simplest come
    first): any small agent event; ``message_update`` of every type; frames not opted into
    (§4.1: no line); erroneous ones (§4.5), and toolcall_start past the end of its content, right
    after a tool call;
    ``turn_end`` and ``agent_end`` (a family each, so every run judges both rules of §4.4);
    facts dense in awkward values and unknown types; facts over the bound (never bounded,
    §5.1); ``tool_execution_update`` lines around ``maxBytes`` (see
    :func:`tool_execution_updates`); lines of exactly ``maxBytes`` and one byte either side,
    and one byte over it or one or two under it; texts whose cut falls inside astral
    characters (:func:`cut_updates`); long texts whose tail costs exactly the room at large
    bounds (:func:`exact_tail_updates`); numbers at the edges of what a line carries, kept and
    dropped; every integer of an input written as a double (:func:`as_integral_doubles`); and,
    when ``maxBytes`` may vary, updates at the smallest bound (:func:`edge_updates`).
    """
    bound = CURRENT_BOUND
    families = [
        Family("events", 1, _project(capabilities, agent_events(), st.booleans())),
        Family("message-updates", 2, _project(
            capabilities,
            st.one_of(assistant_message_events(),
                      assistant_message_events(erroneous=False, kind="toolcall_start"),
                      assistant_message_events(erroneous=False, kind="citation_delta"),
                      assistant_message_events(erroneous=False, kind="server_tool")),
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
        # One family per rule of §4.4, so that every run judges both.
        Family("turn-ends", 1, _project(capabilities, _turn_ends(), st.booleans())),
        Family("agent-ends", 1, _project(capabilities, _agent_ends(), st.booleans())),
        Family("facts", 2, _project(
            capabilities, _facts(),
            st.booleans())),
        Family("facts-over-bound", 1, _project(
            capabilities, oversized_facts(max_bytes=bound), st.booleans(), sized=True)),
        Family("near-bound", 3, _project(
            capabilities, tool_execution_updates(max_bytes=bound), _MOSTLY, sized=True)),
        # Lines at the bound, a byte over it and a byte under it.
        *family_per_side(
            AT_BOUND_FAMILIES.__getitem__, 1,
            lambda offset: _project(capabilities, tool_execution_updates(
                max_bytes=bound, at_bound=True, bound_offset=offset), st.just(True), sized=True),
            sides=(("at", 0), ("over", 1), ("under", -1))),
        Family("under-bound", 1, _project(
            capabilities, tool_execution_updates(max_bytes=bound, under_bound=True),
            st.just(True), sized=True)),
        Family("cut", 1, _project(capabilities, cut_updates(max_bytes=bound), st.just(True),
                                  sized=True)),
        Family("exact-tail", 1, _project(
            capabilities, exact_tail_updates(max_bytes=bound), st.just(True), sized=True,
            bounds=_large_bounds(capabilities))),
        Family("numbers", 2, _project(
            capabilities, number_events(carried=True, max_bytes=bound), st.just(True),
            sized=True)),
        Family("dropped-numbers", 1, _project(
            capabilities, number_events(carried=False), st.just(True))),
        # Every integer of the input written as a double, where the projection reads one (a
        # tool call's contentIndex, maxBytes), carries one (usage, args, a fact) or sizes a line.
        Family("integral-doubles", 1, st.one_of(
            _project(capabilities, assistant_message_events(erroneous=False,
                                                            kind="toolcall_start"), _MOSTLY),
            _project(capabilities, assistant_message_events(), _MOSTLY),
            _project(capabilities, _facts(), st.booleans()),
            _project(capabilities, _ends(), st.booleans()),
            _project(capabilities, tool_execution_updates(max_bytes=bound), _MOSTLY, sized=True),
        ).map(as_integral_doubles)),
    ]
    if capabilities.variable_max_bytes:
        families.append(Family("edge", 1, _edge_inputs()))
        families.append(Family("no-tail-fits", 1, st.sampled_from(NO_TAIL_FITS),
                               examples=len(NO_TAIL_FITS)))
    # Lines a few bytes from the bound holding every byte form (§6.2-6.5): built, one per place
    # and offset, so that a port writing or measuring one form otherwise breaks a MUST rule.
    byte_forms = byte_form_inputs(byte_form_bound(capabilities.variable_max_bytes))
    families.append(Family("byte-forms", 1, st.sampled_from(byte_forms),
                           examples=len(byte_forms)))
    # Last: a counterexample is shrunk in the first family showing it, and these cannot shrink.
    families.append(Family("every-shape", 1, every_shape_inputs("project", capabilities),
                           examples=shape_count()))
    families.extend(trap_families("project", capabilities))
    return tuple(replace(family, aims=FAMILY_AIMS[family.name]) for family in families)


#: The rules each ``project`` family is built to reach (every family reaches the catch-all
#: ``project.agrees``; tests/unit/test_where.py holds every rule to at least one family).
FAMILY_AIMS: dict[str, tuple[str, ...]] = {
    "events": ("classify.kind", "project.frame-opt-in", "project.fact-passthrough"),
    "shipped-vectors": (),
    "language-traps": (),
    "past-fixed-sizes": (),
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
    "at-bound": ("bound.fits", "bound.only-when-over"),
    "one-byte-over": ("bound.fits", "bound.only-when-over", "bound.tail"),
    "one-byte-under": ("bound.fits", "bound.only-when-over"),
    "under-bound": ("bound.only-when-over", "canon.bytes"),
    "cut": ("bound.tail", "bound.text", "canon.utf8"),
    "exact-tail": ("bound.fits", "bound.tail"),
    "numbers": ("project.numbers", "project.erroneous"),
    "dropped-numbers": ("project.numbers", "project.agrees"),
    "integral-doubles": ("project.message-update", "project.fact-passthrough", "bound.fits",
                         "canon.bytes"),
    "edge": ("bound.ids", "bound.converges", "bound.fits"),
    "no-tail-fits": ("bound.converges", "bound.tail", "bound.fits"),
    "byte-forms": ("bound.fits", "bound.only-when-over", "bound.tail", "canon.bytes"),
    "every-shape": (),
}


def project_inputs(capabilities: Capabilities) -> st.SearchStrategy[OpInput]:
    """``project`` op inputs: ``{"event", "includeLiveEvents", "maxBytes"}``, drawn from every
    family of :func:`project_families` as often as its weight says (the engine searches each
    family on its own, with that share of the examples). An explicit choice of family: st.one_of
    would flatten the families' own branches."""
    families = project_families(capabilities)
    weighted = tuple(i for i, family in enumerate(families) for _ in range(family.weight))
    return st.sampled_from(weighted).flatmap(lambda i: families[i].strategy)


