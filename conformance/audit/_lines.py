"""One line of a log: parsed once, then judged by every rule a lone line can show.

A wire line is judged against what the reference gives for the same event wherever the line
holds the event's inputs (an unprojected ``turn_end`` holds its message and tool results, so the
reference's projection of it is the line that should have been written), and against the
invariants any one line can show: bounds, the bounded form, allow-lists, numbers, surrogates and
the canonical bytes. Budget records found in tool updates and results are judged the same way.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from eventproof.reference import MARKER, InvalidInput, canonical_bytes, project_event, well_formed
from eventproof.reference._budget import (
    DEFAULT_DIAGNOSTIC_FLOOR_BYTES,
    DEFAULT_OUTPUT_FLOOR_BYTES,
    DEFAULT_ROSTER_BYTES,
    DEFAULT_SHARED_BYTES,
    DEFAULT_TASK_FLOOR_BYTES,
    STATUSES,
    cost,
)
from eventproof.reference._canonical import (
    _PLAIN_SHORTCUT,
    _STRICT_INTEGER,
    _plain_tree,
    number_to_string,
)

from .._json import holds_lone_surrogate

# One reading of a repeated member name for the run and the audit (the last value kept, as
# JSON.parse does; the object marked with the first name repeated).
from .._protocol import _Duplicated, _marking_pairs
from . import _fast
from ._findings import Tallies

MAX_SAFE_INTEGER = 2**53 - 1
ID_CLIP = 256
_MARKER_HEAD = MARKER.rstrip("\n")
#: Every digit made NUL: a run of 16 NULs is then a run of 16 digits, the only way an integer
#: literal beyond 2^53-1 can be written (bytes.translate and bytes.find run at memory speed,
#: a regular expression several times slower).
_DIGITS_TO_NUL = bytes(0 if 0x30 <= code <= 0x39 else code for code in range(256))
_SIXTEEN_DIGITS = b"\x00" * 16


def _long_integer(body: bytes, digits: bytes) -> bool:
    """True when ``body`` may hold an integer literal of 16 digits or more: a run of 16 digits
    that is not the fraction or the mantissa of a number written with a point or an exponent
    (``digits`` is ``body`` with every digit made NUL)."""
    start = digits.find(_SIXTEEN_DIGITS)
    while start >= 0:
        end = start + 16
        while end < len(digits) and digits[end] == 0:
            end += 1
        while start > 0 and digits[start - 1] == 0:
            start -= 1
        before = body[start - 1:start]
        after = body[end:end + 1]
        if before != b"." and after not in (b".", b"e", b"E"):
            return True
        start = digits.find(_SIXTEEN_DIGITS, end)
    return False


_BOUNDED_KEYS = ["type", "toolCallId", "toolName", "partialResult"]
_TURN_END_KEYS = ["type", "messageRole", "toolResultCount"]
_AGENT_END_KEYS = ["type", "willRetry", "messageCount"]
_MESSAGE_UPDATE_KEYS = {"type", "usage", "assistantMessageEvent"}
_FINAL_ORDER = ("id", "agent", "status", "task", "output", "errorMessage", "stderr", "truncated")
_HEAVY = ("task", "output", "errorMessage", "stderr")
_LIVE_ORDER = ("id", "agent", "status", "task", "output")


@dataclass(slots=True)
class Parsed:
    """A line's value and what reading it showed."""

    value: Any
    #: False when the line is not JSON at all (``value`` is then None).
    ok: bool
    #: (byte offset in the line, what) of invalid UTF-8, or None.
    bad_utf8: tuple[int, str] | None = None
    lone_surrogate: bool = False
    #: (JSONPath, literal) of numbers a line cannot carry faithfully.
    numbers: tuple[tuple[str, str], ...] = ()
    #: Where (a byte of the line) and why the line cannot be read, as a sentence; at -1 when
    #: the line may be JSON the audit cannot follow (it is then not judged).
    error: tuple[int, str] | None = None
    #: True when every number was read with its spelling (``numbers`` is then complete).
    exact: bool = False
    #: True when the line is orjson's own writing of ``value`` (byte for byte).
    proven: bool = False


class _Big:
    """An integer literal beyond 2^53-1, kept with its spelling."""

    __slots__ = ("literal",)

    def __init__(self, literal: str) -> None:
        self.literal = literal


#: The deepest nesting of arrays and objects a line is read at (RFC 8259 §9 lets a reader bound
#: it): the deepest orjson writes, so that every figure of a line read (its sizes and digests,
#: its canonical bytes) is computed by one serializer, whichever parser read it. A deeper line is
#: a ``log.json`` finding, and the rest of the log is read.
MAX_DEPTH = 254
#: The longest integer literal read as a number (Python's own conversion limit): a longer one
#: is a number no reader can carry, kept with its spelling.
MAX_INTEGER_DIGITS = 4300


def _parse_int(literal: str) -> Any:
    """An integer literal; beyond 2^53-1, the double it reads as when it is exactly how that
    double is written (``10000000000000000`` is 1e16, which a line may carry: wire.md §6.3),
    else a :class:`_Big` that no reader can take faithfully."""
    if len(literal) > MAX_INTEGER_DIGITS:
        return _Big(literal)
    number = int(literal)
    if abs(number) <= MAX_SAFE_INTEGER:
        return number
    double = float(number) if abs(number) < 1e308 else math.inf
    if math.isfinite(double) and number_to_string(double) == literal:
        return double
    return _Big(literal)


def _constant(name: str) -> float:
    return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[name]


def _unsafe_numbers(value: Any, path: str = "$") -> Iterator[tuple[str, Any]]:
    stack = [(path, value)]
    while stack:
        at, item = stack.pop()
        if isinstance(item, _Big) or (isinstance(item, float) and not math.isfinite(item)):
            yield at, item
        elif isinstance(item, dict):
            stack.extend((f"{at}.{key}", inner) for key, inner in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((f"{at}[{index}]", inner) for index, inner in
                         reversed(list(enumerate(item))))


def _restored(big: _Big) -> Any:
    if len(big.literal) > MAX_INTEGER_DIGITS:  # beyond any double: read as JSON.parse does
        return -math.inf if big.literal.startswith("-") else math.inf
    return int(big.literal)


def _restore(value: Any) -> Any:
    """``value`` with every kept big integer turned back into a Python int (iterative)."""
    if isinstance(value, _Big):
        return _restored(value)
    stack = [value]
    while stack:
        item = stack.pop()
        pairs = item.items() if isinstance(item, dict) else enumerate(item) \
            if isinstance(item, list) else ()
        for key, inner in list(pairs):
            if isinstance(inner, _Big):
                item[key] = _restored(inner)
            elif isinstance(inner, dict | list):
                stack.append(inner)
    return value


def _literal(value: Any) -> str:
    if isinstance(value, _Big):
        literal = value.literal
        return literal if len(literal) <= 40 else \
            f"{literal[:20]}… (an integer literal of {len(literal.lstrip('-')):,} digits)"
    return "1e400 (an infinity)" if value == math.inf else (
        "-1e400 (an infinity)" if value == -math.inf else "NaN")


def may_hold_long_integer(body: bytes) -> bool:
    """True when ``body`` may hold an integer literal beyond 2^53-1."""
    return _long_integer(body, body.translate(_DIGITS_TO_NUL))


def _first_repeat(value: Any) -> tuple[str, _Duplicated] | None:
    """The first object (document order) that repeats a member name, with its JSONPath."""
    stack: list[tuple[str, Any]] = [("$", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, _Duplicated):
            return path, item
        if isinstance(item, dict):
            stack.extend((f"{path}.{key}", inner) for key, inner in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((f"{path}[{index}]", inner)
                         for index, inner in reversed(list(enumerate(item))))
    return None


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = bytes(code for code in range(256) if code not in b"[{]}")


def nesting(body: bytes) -> tuple[int, int]:
    """The deepest nesting of arrays and objects in ``body`` and the byte where it is first
    reached (strings left out: what a reader of any kind counts)."""
    brackets = _STRING.sub(b'""', body).translate(None, _NOT_BRACKETS)
    levels = list(accumulate(1 if char in (0x5B, 0x7B) else -1 for char in brackets))
    deepest = max(levels, default=0)
    if deepest <= 0:
        return 0, 0
    # where: the same walk over the line itself (only for a line reported)
    outside = _STRING.sub(lambda match: b" " * len(match.group()), body)
    depth = 0
    for index, char in enumerate(outside):
        if char in (0x5B, 0x7B):
            depth += 1
            if depth == deepest:
                return deepest, index
        elif char in (0x5D, 0x7D):
            depth -= 1
    return deepest, 0  # pragma: no cover - the walk reaches the deepest level


def _too_deep(body: bytes) -> tuple[int, int] | None:
    """(depth, byte) when ``body`` nests deeper than :data:`MAX_DEPTH`, else None."""
    if body.count(b"[") + body.count(b"{") <= MAX_DEPTH:
        return None
    brackets = _STRING.sub(b'""', body).translate(None, _NOT_BRACKETS)
    if max(accumulate(1 if char in (0x5B, 0x7B) else -1 for char in brackets),
           default=0) <= MAX_DEPTH:
        return None
    return nesting(body)


#: The recursion limit a reading runs under: the levels of one line and the audit's own frames.
_ROOM = MAX_DEPTH * 2 + 1000


def _read(text: str) -> Any:
    """The standard library's reading of ``text``, with room on the stack for
    :data:`MAX_DEPTH` levels."""
    limit = sys.getrecursionlimit()
    needed = max(limit, _ROOM)
    if needed > limit:
        sys.setrecursionlimit(needed)
    try:
        return json.loads(text, parse_int=_parse_int, parse_constant=_constant,
                          object_pairs_hook=_marking_pairs)
    finally:
        if needed > limit:
            sys.setrecursionlimit(limit)


def parse(body: bytes, *, exact: bool = False) -> Parsed:
    """Read one line (without its line feed) by one set of rules, whichever parser runs: the
    line must be UTF-8, nest at most :data:`MAX_DEPTH` levels and repeat no member name in an
    object; lone surrogates and numbers no reader can carry are found (wire lines judge them).

    orjson reads the line first when it is installed, and its reading stands only when it
    provably is the strict one (see :func:`_proven`); every other line is read by the standard
    library with the same rules. ``exact`` is kept for callers: every reading is exact."""
    del exact
    return read_wire(body)[0]


#: Canonical bytes not computed (the line is judged without them).
UNKNOWN = b""


def _proven(body: bytes) -> tuple[Any, bytes] | None:
    """orjson's reading of ``body`` and its writing of it, when that reading is the strict one:
    orjson refuses invalid UTF-8, lone surrogates and infinities when it reads; and when it
    writes back what it read as the line itself, byte for byte, under its 53-bit integer rule,
    no member name was repeated (the writing has each once), the nesting is within
    :data:`MAX_DEPTH` (orjson writes no deeper) and every integer is within 2^53-1 (so the
    strict reader reads the same numbers)."""
    orjson = _fast.orjson  # looked up at each call: one switch turns the fast paths off
    if orjson is None:
        return None
    try:
        value = orjson.loads(body)
        written = orjson.dumps(value, option=_STRICT_INTEGER)
    except (orjson.JSONDecodeError, TypeError):  # TypeError: orjson refuses to write it
        return None
    return (value, written) if written == body else None


def read_wire(body: bytes) -> tuple[Parsed, bytes | None]:
    """:func:`parse`, with the canonical bytes of the value read when they come for free (a
    plain tree's canonical form is orjson's writing: wire.md §6), else :data:`UNKNOWN`."""
    proven = _proven(body)
    if proven is None:
        return strict_parse(body), UNKNOWN
    value, written = proven
    canonical = written if _PLAIN_SHORTCUT and _plain_tree(value) else UNKNOWN
    return Parsed(value, True, None, False, (), None, True, True), canonical


def strict_parse(body: bytes) -> Parsed:
    """The standard library's reading of one line by the rules of :func:`parse`."""
    bad_utf8 = None
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        bad_utf8 = (error.start, f"byte 0x{body[error.start]:02x} {error.reason}")
        text = body.decode("utf-8", "replace")
    deep = _too_deep(body)
    if deep is not None:
        depth, at = deep
        return Parsed(None, False, bad_utf8, error=(
            at, f"the line nests {depth:,} arrays and objects deep, past the {MAX_DEPTH:,} "
                f"levels this audit reads (reached at byte {at:,}); the line is not judged"))
    try:
        value = _read(text)
    except RecursionError:  # pragma: no cover - the depth is bounded above
        return Parsed(None, False, bad_utf8, error=(-1, "the line nests deeper than this "
                                                        "audit can follow"))
    except ValueError as error:
        position = getattr(error, "pos", 0) or 0
        where = len(text[:position].encode("utf-8", "surrogatepass"))
        reason = getattr(error, "msg", str(error))
        return Parsed(None, False, bad_utf8,
                      error=(where, f"the line is not JSON: {reason} at byte {where}"))
    repeat = _first_repeat(value)
    if repeat is not None:
        path, item = repeat
        quoted = json.dumps(item.name).encode("utf-8", "surrogatepass")
        first = body.find(quoted)
        at = body.find(quoted, first + 1) if first >= 0 else -1
        shown = json.dumps(item.name if len(item.name) <= 64 else item.name[:64] + "…")
        return Parsed(None, False, bad_utf8, error=(
            max(at, 0), f"the object at {path} gives the member {shown} {item.times} times: "
                        "a reader that keeps the first and one that keeps the last read "
                        "different events (RFC 8259 §4); the line is not judged"))
    numbers = tuple((path, _literal(number)) for path, number in _unsafe_numbers(value))
    if numbers:
        value = _restore(value)
    lone = holds_lone_surrogate(value)
    return Parsed(value, True, bad_utf8, lone, numbers, exact=True)


@dataclass(frozen=True)
class WireSettings:
    live_events: bool
    max_bytes: int
    fit_strategy: str = "halving"


def _keys(value: dict[str, Any]) -> list[str]:
    return list(value)


def _shown_keys(keys: list[str]) -> str:
    return "{" + ", ".join(keys) + "}"


class LineJudge:
    """Judges the lines of one log, recording findings and judged counts in ``tallies``."""

    def __init__(self, tallies: Tallies, file: str, settings: WireSettings) -> None:
        self.tallies = tallies
        self.file = file
        self.settings = settings
        # set per line
        self.number = 0
        self.offset = 0
        self.line = b""
        #: Findings made so far (a line that broke a rule is not judged for its bytes).
        self.found = 0

    def _find(self, rule_id: str, message: str, at: int = 0) -> None:
        self.found += 1
        self.tallies.add(rule_id, self.file, self.number, self.offset, self.line, message, at)

    def _wants(self, rule_id: str) -> bool:
        tally = self.tallies.by_rule.get(rule_id)
        return tally is None or len(tally.examples) < self.tallies.keep

    # -- what every line shows -------------------------------------------------------------

    def reading(self, parsed: Parsed, body: bytes, *, utf8_rule: str) -> None:
        """Judge the UTF-8 of a parsed line (the caller counts the lines judged). A session log
        may hold a lone surrogate as an escape (``JSON.stringify`` writes one so, and the
        selection profile returns content as given); a wire line may not (wire.md §6.1)."""
        if parsed.bad_utf8 is not None:
            at, what = parsed.bad_utf8
            self._find(utf8_rule, f"the line is not well-formed UTF-8 at byte {at}: {what}", at)
        elif parsed.lone_surrogate and utf8_rule == "canon.utf8":
            at = max(body.find(b"\\ud"), body.find(b"\\uD"), 0)
            self._find(utf8_rule, "the line holds a lone surrogate (an unpaired \\ud800-\\udfff "
                       "escape): a JSON reader gets a string that is not valid Unicode", at)

    # -- wire -------------------------------------------------------------------------------

    def wire(self, value: dict[str, Any], parsed: Parsed, body: bytes,
             known: bytes | None = UNKNOWN) -> int:
        """Judge one agent event line; answer the bytes its facts-only projection writes
        (line feed included). ``known`` is the value's canonical bytes when already computed
        (None: the reference refuses them)."""
        kind = value["type"]
        settings = self.settings
        before = self.found
        frame = kind in ("message_update", "tool_execution_update")
        if not settings.live_events and frame:
            # One finding per line: a frame that should not be there has no projected form to
            # judge (wire.md §4.3 and §5 state the form of an opted-in frame only).
            self._find("project.frame-opt-in",
                       f"a {kind} frame was written to a log that did not opt in to live "
                       "events: frames are ephemeral progress, written only to consumers "
                       "that asked for them (wire.md §4.1)")
        elif kind == "message_update":
            self._message_update(value)
        elif kind == "turn_end":
            self._boundary(value, "project.turn-end", _TURN_END_KEYS,
                           ("message", "toolResults"))
        elif kind == "agent_end":
            self._boundary(value, "project.agent-end", _AGENT_END_KEYS, ("messages",))
        elif kind == "tool_execution_update":
            self._update(value, body)
        elif kind == "tool_execution_end":
            self._end(value)
        broken = self.found != before
        # canon.bytes judges the bytes of lines that are otherwise right: a frame that should not
        # have been written, or an event written unprojected, is wrong whatever its bytes
        canonical = None
        if not broken and not (parsed.lone_surrogate or parsed.numbers or parsed.bad_utf8):
            if known != UNKNOWN:
                canonical = known
            else:
                try:
                    canonical = canonical_bytes(value)
                except (InvalidInput, RecursionError):
                    canonical = None
        if not parsed.exact and (canonical is None or canonical != body) and \
                may_hold_long_integer(body):
            parsed = parse(body, exact=True)  # the canonical form refused an integer, or differs
        if parsed.numbers:
            canonical = None
            path, literal = parsed.numbers[0]
            more = f" (and {len(parsed.numbers) - 1} more)" if len(parsed.numbers) > 1 else ""
            self._find("project.numbers",
                       f"{path} is {literal}{more}: a JavaScript reader cannot read it "
                       "faithfully, so the event must be refused, not written (wire.md §7)",
                       max(body.find(literal.split(" ")[0].encode()), 0))
        if canonical is not None:
            self.tallies.judged("canon.bytes")
            if canonical != body:
                at = _first_difference(body, canonical)
                self._find("canon.bytes",
                           f"the line differs from its canonical serialization from byte {at} "
                           f"on: the line has {body[at:at + 24]!r}, the canonical form "
                           f"{canonical[at:at + 24]!r} ({len(body):,} bytes against "
                           f"{len(canonical):,})", at)
        if frame:
            facts = 0
        elif kind in ("turn_end", "agent_end"):
            # a line in the projected form is its own facts-only line (it holds none of the
            # inputs the reference projects, so the reference refuses it as an event)
            facts = len(canonical or body) + 1 if not broken else \
                self._projected_size(value, len(canonical or body))
        else:
            facts = len(canonical if canonical is not None else body) + 1
        self._budget(value, kind)
        return facts

    def _projected_size(self, value: dict[str, Any], fallback: int) -> int:
        try:
            line = project_event(value, include_live_events=False,
                                 max_bytes=self.settings.max_bytes)
        except (InvalidInput, RecursionError):
            return fallback + 1
        return 0 if line is None else len(line) + 1

    def _expected(self, value: dict[str, Any]) -> str:
        """What the reference writes for this event, for a finding's message."""
        try:
            line = project_event(value, include_live_events=True,
                                 max_bytes=self.settings.max_bytes,
                                 fit_strategy=self.settings.fit_strategy)
        except InvalidInput as error:
            return f"the reference refuses this event: {error}"
        except RecursionError:
            return "the reference cannot follow this event's nesting"
        assert line is not None
        shown = line.decode("utf-8")
        if len(shown) > 200:
            shown = shown[:200] + "…"
        return f"the projection of this event is {len(line):,} bytes: {shown}"

    def _message_update(self, value: dict[str, Any]) -> None:
        self.tallies.judged("project.message-update")
        message_event = value.get("assistantMessageEvent")
        carried = [key for key in ("message",) if key in value]
        if isinstance(message_event, dict) and "partial" in message_event:
            carried.append("assistantMessageEvent.partial")
        extra = [key for key in value if key not in _MESSAGE_UPDATE_KEYS]
        if carried or extra or not isinstance(message_event, dict):
            if not self._wants("project.message-update"):
                self._find("project.message-update", "")  # counted; its message not shown
                return
            what = (f"the line carries {', '.join(carried)}, the cumulative message"
                    if carried else f"the line has {_shown_keys(_keys(value))}")
            self._find("project.message-update",
                       f"{what}; a message_update is written as {{type, usage?, "
                       f"assistantMessageEvent without partial}}: {self._expected(value)}")

    def _boundary(self, value: dict[str, Any], rule_id: str, keys: list[str],
                  inputs: tuple[str, ...]) -> None:
        self.tallies.judged(rule_id)
        if _keys(value) == keys and self._boundary_types(value):
            return
        if not self._wants(rule_id):
            self._find(rule_id, "")  # counted (and the line is broken); its message not shown
            return
        held = [key for key in inputs if key in value]
        if held:
            message = (f"the line is the unprojected {value['type']} (it holds "
                       f"{', '.join(held)}); {self._expected(value)}")
        else:
            message = (f"the line has {_shown_keys(_keys(value))}; the projection is exactly "
                       f"{_shown_keys(keys)}, in that order, with a string role, a boolean "
                       "willRetry and counts that are integers")
        self._find(rule_id, message)

    @staticmethod
    def _boundary_types(value: dict[str, Any]) -> bool:
        if value["type"] == "turn_end":
            count = value["toolResultCount"]
            return isinstance(value["messageRole"], str) and type(count) is int and count >= 0
        count = value["messageCount"]
        return isinstance(value["willRetry"], bool) and type(count) is int and count >= 0

    def _update(self, value: dict[str, Any], body: bytes) -> None:
        self.tallies.judged("bound.fits")
        size = len(body)
        if size > self.settings.max_bytes:
            self._find("bound.fits",
                       f"this tool_execution_update line is {size:,} bytes, over maxBytes "
                       f"{self.settings.max_bytes:,}: the backstop must replace it with the "
                       "bounded form (wire.md §5.1)")
        text = _marked_text(value.get("partialResult"))
        if text is None:
            return
        for rule_id in ("bound.shape", "bound.text", "bound.ids"):
            self.tallies.judged(rule_id)
        partial = value.get("partialResult")
        shape_ok = (_keys(value) == _BOUNDED_KEYS and isinstance(partial, dict)
                    and list(partial) == ["content"] and isinstance(partial["content"], list)
                    and len(partial["content"]) == 1 and isinstance(partial["content"][0], dict)
                    and list(partial["content"][0]) == ["type", "text"])
        if not shape_ok:
            self._find("bound.shape",
                       f"a bounded update must be exactly {_shown_keys(_BOUNDED_KEYS)} with "
                       "partialResult {content: [{type, text}]}; this one has "
                       f"{_shown_keys(_keys(value))}"
                       + (f" and partialResult {_shown_keys(_keys(partial))}"
                          if isinstance(partial, dict) else ""))
        if not text.startswith(MARKER):
            where = "after the tail" if text.rstrip().endswith(_MARKER_HEAD) else (
                "without its line feed" if text.startswith(_MARKER_HEAD) else "inside the text")
            self._find("bound.text",
                       f"the marker stands {where}: the bounded text is "
                       "'[live output truncated]\\n' followed by the tail (wire.md §5.3)")
        for key in ("toolCallId", "toolName"):
            ident = value.get(key)
            if isinstance(ident, str) and len(well_formed(ident)) > ID_CLIP:
                self._find("bound.ids",
                           f"the bounded form's {key} has {len(well_formed(ident)):,} code "
                           f"points; it is clipped to its first {ID_CLIP} (wire.md §5.4)")

    def _end(self, value: dict[str, Any]) -> None:
        self.tallies.judged("bound.only-updates")
        result = value.get("result")
        if isinstance(result, dict) and list(result) == ["content"] and \
                (text := _marked_text(result)) is not None and text.startswith(_MARKER_HEAD):
            self._find("bound.only-updates",
                       "this tool_execution_end holds the bounded form: the tool's final result "
                       "was truncated, and the durable record of it is lost (wire.md §5.1)")

    # -- budget records ----------------------------------------------------------------------

    def _budget(self, value: dict[str, Any], kind: str) -> None:
        """Judge the budget records where a harness writes them (budget.md §3, §6): a live
        roster in a tool update's ``partialResult.details``; the final details in a tool
        result's ``details``, and again in the tool result message that carries the same result
        (``message_start``/``message_end`` of a ``toolResult`` message)."""
        if kind == "tool_execution_update":
            holder = value.get("partialResult")
            if isinstance(holder, dict):
                details = holder.get("details")
                if isinstance(details, dict) and _task_list(details.get("results")):
                    self._roster(details)
            return
        if kind == "tool_execution_end":
            holder = value.get("result")
        elif kind in ("message_start", "message_end"):
            holder = value.get("message")
            if not isinstance(holder, dict) or holder.get("role") != "toolResult":
                return
        else:
            return
        if isinstance(holder, dict):
            details = holder.get("details")
            if isinstance(details, dict) and _task_list(details.get("results")):
                self._details(details["results"])

    def _roster(self, roster: dict[str, Any]) -> None:
        for rule_id in ("roster.allowlist", "roster.bounded", "roster.count"):
            self.tallies.judged(rule_id)
        results = roster["results"]
        for index, record in enumerate(results):
            problem = _live_record_problem(record)
            if problem:
                self._find("roster.allowlist", f"live record {index} {problem}")
                break
        try:
            size = len(canonical_bytes(results))
        except (InvalidInput, RecursionError):
            size = len(_dumps(results))
        if size > DEFAULT_ROSTER_BYTES:
            self._find("roster.bounded",
                       f"the roster's results serialize to {size:,} bytes, over its bound of "
                       f"{DEFAULT_ROSTER_BYTES:,} (budget.md §6.2)")
        if "omittedResults" in roster:
            omitted = roster["omittedResults"]
            if type(omitted) is not int or omitted < 1:
                self._find("roster.count",
                           f"omittedResults is {omitted!r}: it counts the records left out, "
                           "and is absent when none was (budget.md §6.3)")

    def _details(self, records: list[Any]) -> None:
        for rule_id in ("details.allowlist", "details.identity", "details.cut", "details.task",
                        "details.output", "details.reason", "details.bounded"):
            self.tallies.judged(rule_id)
        found: dict[str, str] = {}
        spent = 0
        floors = 0
        for index, record in enumerate(records):
            for rule_id, problem in _final_record_problems(record):
                found.setdefault(rule_id, f"final record {index} {problem}")
            spent += sum(cost(record[key]) for key in _HEAVY
                         if isinstance(record.get(key), str))
            floors += DEFAULT_TASK_FLOOR_BYTES
            if "output" in record:
                floors += DEFAULT_OUTPUT_FLOOR_BYTES
            if "errorMessage" in record or "stderr" in record:
                floors += DEFAULT_DIAGNOSTIC_FLOOR_BYTES
        bound = DEFAULT_SHARED_BYTES + floors
        if spent > bound:
            found["details.bounded"] = (
                f"the heavy fields of the {len(records)} final records cost {spent:,} bytes, "
                f"over the shared budget plus the floors ({bound:,}; budget.md §5.6)")
        for rule_id, message in found.items():
            self._find(rule_id, message)


_dumps = _fast.dumps


def _first_difference(a: bytes, b: bytes) -> int:
    low, high = 0, min(len(a), len(b))
    while low < high:  # the longest common prefix, by halves
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _marked_text(partial: Any) -> str | None:
    """The text of a partialResult whose text carries the backstop's marker, else None."""
    if isinstance(partial, str):
        return partial if _MARKER_HEAD in partial[:64] + partial[-64:] else None
    if not isinstance(partial, dict) or not isinstance(partial.get("content"), list):
        return None
    for block in partial["content"]:
        if isinstance(block, dict) and block.get("type") == "text" and \
                isinstance(block.get("text"), str):
            text: str = block["text"]
            if _MARKER_HEAD in text[:64] or _MARKER_HEAD in text[-64:]:
                return text
    return None


def _task_list(results: Any) -> bool:
    """A list of the records of a batch of delegated tasks (final or live): objects with an id,
    a status and a task, and the agent that runs them (budget.md §2.1). A list of other
    records (a to-do tool's items: an id, a status and a task, and no agent) is not judged."""
    return (isinstance(results, list) and len(results) > 0
            and all(isinstance(record, dict) and "id" in record and "status" in record
                    and "task" in record for record in results[:64])
            and any("agent" in record for record in results[:64]))


def _order_problem(keys: list[str], order: tuple[str, ...], required: tuple[str, ...]) -> str:
    extra = [key for key in keys if key not in order]
    if extra:
        return f"has {', '.join(extra)}, which the allow-list leaves out"
    missing = [key for key in required if key not in keys]
    if missing:
        return f"lacks {', '.join(missing)}"
    if keys != sorted(keys, key=order.index):
        return f"has its members in the order {_shown_keys(keys)}, not {_shown_keys(list(order))}"
    return ""


def _identity_problem(record: dict[str, Any]) -> str:
    for key in ("id", "agent"):
        ident = record.get(key)
        if not isinstance(ident, str):
            return f"has {key} {ident!r}, not a string"
        if len(well_formed(ident)) > ID_CLIP:
            return (f"has a {key} of {len(well_formed(ident)):,} code points; it is clipped to "
                    f"its first {ID_CLIP}")
    if record.get("status") not in STATUSES:
        return f"has status {record.get('status')!r}, not one of {', '.join(STATUSES)}"
    return ""


def _live_record_problem(record: Any) -> str:
    if not isinstance(record, dict):
        return "is not an object"
    problem = _order_problem(list(record), _LIVE_ORDER, ("id", "agent", "status", "task"))
    if problem:
        return problem
    problem = _identity_problem(record)
    if problem:
        return problem
    for key, limit, side in (("task", DEFAULT_TASK_FLOOR_BYTES, "head"),
                             ("output", DEFAULT_OUTPUT_FLOOR_BYTES, "tail")):
        text = record.get(key)
        if isinstance(text, str) and cost(text) > limit:
            return (f"has a {key} of {cost(text):,} bytes; a live record keeps a {limit}-byte "
                    f"{side} of it")
    return ""


def _final_record_problems(record: Any) -> Iterator[tuple[str, str]]:
    if not isinstance(record, dict):
        yield "details.allowlist", "is not an object"
        return
    problem = _order_problem(list(record), _FINAL_ORDER, ("id", "agent", "status", "task"))
    if problem:
        yield "details.allowlist", problem
    problem = _identity_problem(record)
    if problem:
        yield "details.identity", problem
    truncated = record.get("truncated")
    if "truncated" in record:
        listed = truncated if isinstance(truncated, list) else None
        if not listed:
            yield "details.cut", (f"has truncated {truncated!r}: it lists the cut fields and is "
                                  "absent when none was cut")
            listed = []
        elif any(field not in _HEAVY or field not in record for field in listed) or \
                listed != sorted(set(listed), key=_HEAVY.index):
            yield "details.cut", (f"has truncated {truncated!r}: it lists present heavy fields, "
                                  "once each, in member order")
    else:
        listed = []
    if record.get("task") == "" and "task" in listed:
        yield "details.task", "kept none of its task: every record keeps some (its floor)"
    if record.get("output") == "" and "output" in listed:
        yield "details.output", "kept none of its output: every record that reported output " \
                                "keeps some (its floor)"
    if record.get("status") == "failed":
        reason = record.get("errorMessage") or record.get("stderr")
        cut_away = [key for key in ("errorMessage", "stderr")
                    if record.get(key) == "" and key in listed]
        if not reason and cut_away:
            yield "details.reason", (f"is a failure whose {cut_away[0]} was cut to nothing: "
                                     "every failure keeps a reason (its floor)")
