"""Checks for the wire profile (spec/wire.md): one per rule, each explaining a breach with values.

A check restates its rule from the input alone wherever it can: what a projection must contain
(§4), the text a bounded line must keep and the marker it opens with (§5.3), the clipped ids
(§5.4), the tail length the declared fit strategy picks (§5.5), whether a line is well-formed
(§6.1). The reference's answer is consulted only to tell an erroneous input from a valid one and
for the final agreement and byte-for-byte checks. Messages speak JSON, UTF-8 and code points, not
Python, so that a TypeScript, Go or Rust developer can act on them.

``CHECKS`` lists each operation's checks most specific first: the engine reports the first rule a
case breaks, so a bounded line with unclipped ids is reported as ``bound.ids`` rather than as a
generic disagreement.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from eventproof.reference import InvalidInput, canonical_bytes

from ._model import Case, Check, Errored, ImplErrored, Violation

#: The bounded text opens with this (wire.md §5.3): 23 characters and a line feed.
MARKER = "[live output truncated]\n"
#: Ids keep their first this many code points in the bounded form (wire.md §5.4).
ID_CLIP_CODE_POINTS = 256
#: The ephemeral types (wire.md §3).
FRAME_TYPES = frozenset({"message_update", "tool_execution_update"})
#: The bounded form's members, in their order (wire.md §5.2).
BOUNDED_KEYS = ("type", "toolCallId", "toolName", "partialResult")
_UPDATE = "tool_execution_update"
_MARKER_IN_JSON = json.dumps(MARKER)[1:-1]  # how the marker reads inside a line
_SHOWN = 60  # characters of a value a message shows before eliding the middle


# -- well-formed text and JSON values (§6.1) ----------------------------------------------------


def well_formed(text: str) -> str:
    """``text`` with each high+low pair joined into one code point and every other surrogate
    replaced by U+FFFD: a UTF-16 round trip, independent of the reference's implementation."""
    if text.isascii():
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def well_formed_value(value: Any) -> Any:
    """``value`` as a JS reader holds it: strings and member names well-formed; two names that
    become equal keep the first one's position and the later value (JS assignment)."""
    if isinstance(value, str):
        return well_formed(value)
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            out[well_formed(key) if isinstance(key, str) else key] = well_formed_value(item)
        return out
    if isinstance(value, (list, tuple)):
        return [well_formed_value(item) for item in value]
    return value


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def same_json(a: Any, b: Any) -> bool:
    """JSON equality: numbers by value (``30`` is ``30.0``), booleans apart from numbers,
    member order ignored."""
    kind = _kind(a)
    if kind != _kind(b):
        return False
    if kind == "array":
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    if kind == "object":
        return a.keys() == b.keys() and all(same_json(a[key], b[key]) for key in a)
    if kind == "number":
        return _same_number(a, b)
    return bool(a == b)


def _same_number(a: float, b: float) -> bool:
    """Numbers are doubles (§6.3): ``26597088949236230`` reads back as 2.659708894923623e16."""
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    try:
        return float(a) == float(b)
    except OverflowError:
        return False


# -- showing values --------------------------------------------------------------------------


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):
        return repr(value)


def shown(value: Any, limit: int = _SHOWN) -> str:
    """``value`` as JSON with non-ASCII escaped (controls and surrogates stay visible), the middle
    elided when long, with its size."""
    text = _json(value)
    if len(text) <= limit:
        return text
    size = (f"{len(value)} code points" if isinstance(value, str)
            else f"{len(text)} characters of JSON")
    return f"{text[: limit * 2 // 3]}…{text[-(limit // 4):]} ({size})"


def _utf8_size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _member(path: str, key: str) -> str:
    if re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", key):
        return f"{path}.{key}"
    return f"{path}[{_json(key)}]"


_CONTROL_NAMES = {
    0x00: "NUL", 0x07: "BEL", 0x08: "BACKSPACE", 0x09: "TAB", 0x0A: "LINE FEED",
    0x0C: "FORM FEED", 0x0D: "CARRIAGE RETURN", 0x1B: "ESC", 0x7F: "DELETE",
}


def describe_char(char: str) -> str:
    """``U+2028 LINE SEPARATOR`` and the like, for one code point."""
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        half = "high" if code < 0xDC00 else "low"
        return f"U+{code:04X} (a lone {half} surrogate)"
    name = _CONTROL_NAMES.get(code) or unicodedata.name(char, "")
    if not name and code < 0x20:
        name = "(a control character)"
    return f"U+{code:04X} {name}".rstrip()


def _canonical_escape(char: str) -> str:
    """How the canonical form writes one well-formed code point inside a string (§6.2)."""
    return json.dumps(char, ensure_ascii=False)[1:-1]


def _cost(char: str) -> int:
    return len(_canonical_escape(char).encode("utf-8"))


def first_difference(got: Any, want: Any, path: str = "$") -> tuple[str, str] | None:
    """Where two JSON values first differ and how, or None when they are the same JSON."""
    kind, wanted = _kind(got), _kind(want)
    if kind != wanted:
        return path, f"yours is {kind} {shown(got)}, expected {wanted} {shown(want)}"
    if kind == "object":
        missing = [key for key in want if key not in got]
        if missing:
            return (_member(path, missing[0]),
                    f"member {_json(missing[0])} is missing (expected {shown(want[missing[0]])})")
        extra = [key for key in got if key not in want]
        if extra:
            return (_member(path, extra[0]),
                    f"member {_json(extra[0])} should not be there (yours: {shown(got[extra[0]])})")
        for key in want:
            found = first_difference(got[key], want[key], _member(path, key))
            if found:
                return found
        return None
    if kind == "array":
        for index, (a, b) in enumerate(zip(got, want, strict=False)):
            found = first_difference(a, b, f"{path}[{index}]")
            if found:
                return found
        if len(got) != len(want):
            return path, f"yours has {len(got)} elements, expected {len(want)}"
        return None
    if kind == "string":
        if got == want:
            return None
        at = next((i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b),
                  min(len(got), len(want)))
        what = (f"yours has {describe_char(got[at])}" if at < len(got) else "yours ends")
        instead = (f"expected {describe_char(want[at])}" if at < len(want) else "expected the end")
        return path, (f"the strings differ at code point {at}: {what}, {instead} "
                      f"(yours {shown(got)}, expected {shown(want)})")
    if same_json(got, want):
        return None
    return path, f"yours is {shown(got)}, expected {shown(want)}"


def _difference_text(got: Any, want: Any) -> str:
    found = first_difference(got, want)
    return "they are the same JSON" if found is None else f"at {found[0]}: {found[1]}"


# -- lines -----------------------------------------------------------------------------------


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


@dataclass
class Line:
    """One answered line: its text, its size in UTF-8 bytes, and what it parses to."""

    text: str
    size: int
    value: Any = None
    error: str | None = None

    @classmethod
    def of(cls, text: str) -> Line:
        line = cls(text=text, size=_utf8_size(text))
        try:
            line.value = json.loads(text, parse_constant=_reject_constant)
        except ValueError as error:
            line.error = str(error)
        return line

    @property
    def parsed(self) -> bool:
        return self.error is None


@dataclass
class Answer:
    """A project answer: ``line``, ``null``, ``errored`` or ``bad`` (not of the op's shape)."""

    kind: str
    line: Line | None = None
    message: str = ""

    @classmethod
    def of(cls, output: Any) -> Answer:
        if isinstance(output, (Errored, ImplErrored)):
            return cls("errored", message=output.message)
        if output is None:
            return cls("null")
        if isinstance(output, Mapping) and set(output) == {"line"} and isinstance(
            output["line"], str
        ):
            return cls("line", Line.of(output["line"]))
        return cls("bad", message=shown(output))

    def describe(self) -> str:
        if self.kind == "line" and self.line is not None:
            return f"a {self.line.size}-byte line {shown(self.line.text)}"
        if self.kind == "null":
            return "null (no line)"
        if self.kind == "errored":
            return f"errored ({self.message[:200]})"
        return f"{self.message}, which is not an answer of the project operation"


# -- what the spec says an event projects to (§4) --------------------------------------------


class Erroneous(Exception):
    """The event is erroneous (wire.md §4.5); the message says why."""


def _content_block(message_event: Mapping[str, Any]) -> tuple[int | None, Any]:
    partial = message_event.get("partial")
    content = partial.get("content") if isinstance(partial, Mapping) else None
    index = message_event.get("contentIndex")
    if isinstance(index, float) and index.is_integer():
        index = int(index)
    if (isinstance(content, list) and isinstance(index, int) and not isinstance(index, bool)
            and 0 <= index < len(content)):
        return index, content[index]
    return (index if isinstance(index, int) else None), None


def restated_projection(event: Mapping[str, Any]) -> Any:
    """The value an opted-in or durable ``event`` projects to, before the backstop (§4.2-4.4).

    Raises :class:`Erroneous` for a non-assistant ``message_update`` and a ``toolcall_start``
    without its tool call (§4.5).
    """
    kind = event.get("type")
    if kind == "message_update":
        message = event.get("message")
        role = message.get("role") if isinstance(message, Mapping) else None
        if role != "assistant":
            raise Erroneous(f"its message.role is {_json(role)}, not \"assistant\"; a "
                            "message_update streams an assistant message")
        assert isinstance(message, Mapping)
        message_event = event.get("assistantMessageEvent")
        if not isinstance(message_event, Mapping):
            raise Erroneous("its assistantMessageEvent is not an object")
        projected = {key: value for key, value in message_event.items() if key != "partial"}
        if message_event.get("type") == "toolcall_start":
            index, block = _content_block(message_event)
            if not isinstance(block, Mapping) or block.get("type") != "toolCall":
                where = f"partial.content[{index}]"
                found = "does not exist" if block is None else f"is {shown(block, 40)}"
                raise Erroneous(f"it is a toolcall_start, but {where} {found}, not a toolCall "
                                "block")
            # JS object spread: an existing key keeps its position, its value is replaced.
            projected["id"] = block.get("id")
            projected["toolName"] = block.get("name")
        out: dict[str, Any] = {"type": kind}
        if "usage" in message:
            out["usage"] = message["usage"]
        out["assistantMessageEvent"] = projected
        return out
    if kind == "turn_end":
        message = event.get("message")
        results = event.get("toolResults")
        return {
            "type": kind,
            "messageRole": message.get("role") if isinstance(message, Mapping) else None,
            "toolResultCount": len(results) if isinstance(results, list) else None,
        }
    if kind == "agent_end":
        messages = event.get("messages")
        return {
            "type": kind,
            "willRetry": event.get("willRetry", False),
            "messageCount": len(messages) if isinstance(messages, list) else None,
        }
    return event


def extract_text(partial_result: Any) -> tuple[str, str]:
    """The text of ``partialResult`` (§5.3) and a phrase saying where it came from."""
    if isinstance(partial_result, str):
        return well_formed(partial_result), "partialResult is a string, which is its own text"
    if isinstance(partial_result, Mapping):
        content = partial_result.get("content")
        if isinstance(content, list):
            texts = [
                well_formed(block["text"]) for block in content
                if isinstance(block, Mapping) and block.get("type") == "text"
                and isinstance(block.get("text"), str)
            ]
            return "".join(texts), (
                f"the texts of the {len(texts)} text block(s) among partialResult.content's "
                f"{len(content)} element(s), each well-formed on its own, joined with \"\"")
        return "", "partialResult has no array content, so its text is empty"
    return "", f"partialResult is {_kind(partial_result)}, so its text is empty"


def _escaped_size(text: str) -> int:
    """Bytes of well-formed ``text`` inside a canonical string literal, quotes excluded (§6.2,
    §6.5): Python's encoder writes strings exactly as the canonical form does once non-ASCII is
    left raw (two-character escapes, lowercase ``\\u00xx``, U+007F and U+2028/2029 raw)."""
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8")) - 2


@dataclass
class Bound:
    """The bounded form's arithmetic for one update (§5.2-5.6), restated from the input."""

    tool_call_id: str
    tool_name: str
    text: str
    text_origin: str
    #: The line with the empty tail, in bytes.
    envelope: int = 0
    _sizes: dict[int, int] = field(default_factory=dict)

    @classmethod
    def of(cls, event: Mapping[str, Any]) -> Bound | None:
        call_id, name = event.get("toolCallId"), event.get("toolName")
        if not isinstance(call_id, str) or not isinstance(name, str):
            return None
        text, origin = extract_text(event.get("partialResult"))
        bound = cls(well_formed(call_id)[:ID_CLIP_CODE_POINTS],
                    well_formed(name)[:ID_CLIP_CODE_POINTS], text, origin)
        bound.envelope = len(json.dumps(bound.form(""), ensure_ascii=False,
                                        separators=(",", ":")).encode("utf-8"))
        return bound

    def form(self, tail: str) -> dict[str, Any]:
        return {
            "type": _UPDATE, "toolCallId": self.tool_call_id, "toolName": self.tool_name,
            "partialResult": {"content": [{"type": "text", "text": MARKER + tail}]},
        }

    def size(self, k: int) -> int:
        """Bytes of the bounded line whose tail is the last ``k`` code points (§5.6: the
        envelope plus the escaped tail, since escapes are per code point)."""
        if k not in self._sizes:
            self._sizes[k] = self.envelope + (
                _escaped_size(self.text[len(self.text) - k:]) if k else 0)
        return self._sizes[k]

    def halving(self, max_bytes: int) -> list[int]:
        """The tail lengths halving tries, up to and including the first that fits (§5.5)."""
        tried, k = [], len(self.text)
        while True:
            tried.append(k)
            if self.size(k) <= max_bytes or k == 0:
                return tried
            k //= 2

    def maximal(self, max_bytes: int) -> int:
        """The largest tail length whose line fits (§5.5; fit is monotone in k, §5.6)."""
        low, high = 0, len(self.text)
        while low < high:
            middle = (low + high + 1) // 2
            if self.size(middle) <= max_bytes:
                low = middle
            else:
                high = middle - 1
        return low

    def pick(self, strategy: str, max_bytes: int) -> int:
        return self.halving(max_bytes)[-1] if strategy == "halving" else self.maximal(max_bytes)


# -- one project case, viewed once ------------------------------------------------------------


@dataclass
class ProjectView:
    """Everything the project checks need about one case, computed once."""

    case: Case
    event: Mapping[str, Any]
    type: str | None
    include: bool
    max_bytes: int
    expected: Answer
    actual: Answer
    _restated: tuple[str, Any] | None = None
    _sizes: dict[str, int | None] = field(default_factory=dict)
    _bound: Bound | None = None
    _want: tuple[Any] | None = None

    @property
    def is_update(self) -> bool:
        return self.type == _UPDATE

    @property
    def is_frame(self) -> bool:
        return self.type in FRAME_TYPES

    def restated(self) -> tuple[str, Any]:
        """``("line", value)``, ``("null", None)`` or ``("erroneous", reason)`` (§4)."""
        if self._restated is None:
            if self.is_frame and not self.include:
                self._restated = ("null", None)  # §4.1 comes before anything else
            else:
                try:
                    self._restated = ("line", restated_projection(self.event))
                except Erroneous as error:
                    self._restated = ("erroneous", str(error))
        return self._restated

    def want(self) -> Any:
        """The projected value, well-formed, before the backstop."""
        if self._want is None:
            self._want = (well_formed_value(self.restated()[1]),)
        return self._want[0]

    def projected_size(self) -> int | None:
        """Bytes of the canonical line of the projection before the backstop."""
        if "projected" not in self._sizes:
            kind, value = self.restated()
            size = None
            if kind == "line":
                try:
                    size = len(canonical_bytes(value))
                except InvalidInput:
                    size = None
            self._sizes["projected"] = size
        return self._sizes["projected"]

    @property
    def over(self) -> bool:
        size = self.projected_size()
        return size is not None and size > self.max_bytes

    def bound(self) -> Bound | None:
        if self._bound is None:
            self._bound = Bound.of(self.event)
        return self._bound

    def judged_line(self) -> Line | None:
        """The actual line when both answers are lines and the actual one parses."""
        if self.expected.kind != "line" or self.actual.kind != "line":
            return None
        line = self.actual.line
        return line if line is not None and line.parsed else None

    def bounded_attempt(self) -> Line | None:
        """The actual line of an opted-in update over maxBytes that is not the event itself."""
        if not (self.is_update and self.include and self.over):
            return None
        line = self.judged_line()
        if line is None or same_json(line.value, self.want()):
            return None
        return line


_LAST: list[tuple[Case, ProjectView | None]] = []


def project_view(case: Case) -> ProjectView | None:
    """The view of a ``project`` case (cached for the case the checks are looking at)."""
    if _LAST and _LAST[0][0] is case:
        return _LAST[0][1]
    view = None
    request = case.input
    if case.op == "project" and isinstance(request, Mapping):
        event, include, max_bytes = (request.get("event"), request.get("includeLiveEvents"),
                                     request.get("maxBytes"))
        if isinstance(event, Mapping) and isinstance(include, bool) and isinstance(max_bytes, int):
            kind = event.get("type")
            view = ProjectView(
                case=case, event=event, type=kind if isinstance(kind, str) else None,
                include=include, max_bytes=max_bytes,
                expected=Answer.of(case.expected), actual=Answer.of(case.actual),
            )
    _LAST[:] = [(case, view)]
    return view


# -- explaining byte differences (§6) ----------------------------------------------------------

_TOKEN = re.compile(r"""
    (?P<ws>[ \t\n\r]+)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<number>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)
  | (?P<literal>true|false|null)
  | (?P<punct>[{}\[\]:,])
  | (?P<other>.)
""", re.VERBOSE | re.DOTALL)


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    start: int
    path: str
    is_key: bool


def tokens(line: str) -> list[Token]:
    """The JSON tokens of ``line`` with the JSONPath of the value (or member name) each is in."""
    out: list[Token] = []
    stack: list[list[Any]] = []  # [container kind, key or index, expecting a key]

    def here() -> str:
        path = "$"
        for kind, at, _ in stack:
            if kind == "object" and at is not None:
                path = _member(path, at)
            elif kind == "array":
                path = f"{path}[{at}]"
        return path

    for match in _TOKEN.finditer(line):
        kind = match.lastgroup or "other"
        text = match.group()
        is_key = False
        if kind == "punct":
            if text in "{[":
                stack.append(["object", None, True] if text == "{" else ["array", 0, False])
            elif text in "}]" and stack:
                stack.pop()
            elif text == ":" and stack:
                stack[-1][2] = False
            elif text == "," and stack:
                if stack[-1][0] == "object":
                    stack[-1][2] = True
                else:
                    stack[-1][1] += 1
        elif kind == "string" and stack and stack[-1][0] == "object" and stack[-1][2]:
            is_key = True
            try:
                stack[-1][1] = json.loads(text)
            except ValueError:
                stack[-1][1] = text
        out.append(Token(kind, text, match.start(), here(), is_key))
    return out


_UNIT = re.compile(r'\\u[0-9a-fA-F]{4}|\\.|[^\\]', re.DOTALL)


def _units(literal: str) -> list[str]:
    """The characters and escapes of a string literal's body."""
    return _UNIT.findall(literal[1:-1])


def _decode_unit(unit: str) -> str:
    try:
        value = json.loads(f'"{unit}"')
    except ValueError:
        return unit
    return value if isinstance(value, str) else unit


def _explain_units(got: str, want: str) -> str:
    """Why two literals of the same string differ: the first escape that differs."""
    got_units, want_units = _units(got), _units(want)
    for index, (mine, theirs) in enumerate(zip(got_units, want_units, strict=False)):
        if mine == theirs:
            continue
        if len(theirs) == 1 and mine.startswith("\\"):
            char = theirs
            if mine.lower().startswith(("\\ud8", "\\ud9", "\\uda", "\\udb")):
                return (f"your encoder writes {describe_char(char)} as the surrogate-pair escape "
                        f"{''.join(got_units[index:index + 2])}; the canonical form writes it raw "
                        f"({_cost(char)} bytes of UTF-8)")
            if char in "\u2028\u2029":
                return (f"your encoder escapes {describe_char(char)} as {mine}; the canonical form "
                        f"writes it raw ({_cost(char)} bytes: "
                        f"{char.encode('utf-8').hex(' ')}), as JSON.stringify does")
            if ord(char) >= 0x7F:
                return (f"your encoder escapes {describe_char(char)} as {mine}; the canonical form "
                        f"writes every character from U+007F up raw as UTF-8 ({_cost(char)} "
                        "bytes here): do not escape non-ASCII (no ensure_ascii, no ASCII-only "
                        "mode)")
            return (f"your encoder escapes {describe_char(char)} as {mine}; the canonical form "
                    f"writes it as {_canonical_escape(char)} (only '\"', '\\\\' and "
                    "U+0000-U+001F are escaped)")
        char = _decode_unit(theirs)
        if len(char) == 1 and mine.lower() == theirs.lower():
            return (f"your encoder writes {describe_char(char)} as {mine}; the canonical form "
                    f"writes {theirs} (lowercase hex digits)")
        if len(char) == 1 and theirs.startswith("\\") and len(mine) == 1:
            return (f"your encoder writes {describe_char(char)} raw; the canonical form escapes "
                    f"it as {theirs} ({len(theirs)} bytes)")
        if len(char) == 1 and theirs.startswith("\\"):
            return (f"your encoder writes {describe_char(char)} as {mine}; the canonical form "
                    f"writes {theirs} (two-character escapes for \\b \\t \\n \\f \\r, lowercase "
                    "\\u00xx for the other controls)")
        return f"your line writes {mine!s}; the canonical form writes {theirs!s}"
    return (f"your string has {len(got_units)} characters or escapes, the canonical one "
            f"{len(want_units)}")


def _number_hint(got: str, want: str) -> str:
    if got.endswith(".0") or ".0e" in got:
        return "a number with no fraction is written without '.0'"
    if got.lstrip("-") == want and got.startswith("-"):
        return "-0 is written 0"
    if "e" in got.lower() and "e" in want:
        return "exponents carry a sign and no leading zeros: 1e-7, 1e+21"
    if "e" in got.lower():
        return "integers below 1e21 are written in full, without an exponent"
    if "e" in want:
        return "from 1e21 up (and below 1e-6) ECMAScript switches to exponent form"
    return "ECMAScript writes the shortest digits that read back as the same double"


def _key_order(got: Any, want: Any, path: str = "$") -> str | None:
    """The first object whose members come in a different order than the canonical one."""
    if isinstance(got, Mapping) and isinstance(want, Mapping):
        got_keys, want_keys = list(got), list(want)
        if got_keys != want_keys and set(got_keys) == set(want_keys):
            at = next(i for i, (a, b) in enumerate(zip(got_keys, want_keys, strict=True))
                      if a != b)
            first, yours = want_keys[at], got_keys[at]
            if _is_array_index(first):
                later = [key for key in want_keys[at + 1:] if got_keys.index(key)
                         < got_keys.index(first)]
                before = (" before " + " and before ".join(_json(key) for key in later[:3])
                          if later else " first")
                why = (f"puts integer-like key {_json(first)}{before}"
                       " (array-index names come first, in ascending numeric order, then the "
                       "other names in insertion order: ECMAScript OrdinaryOwnPropertyKeys)")
            elif _is_array_index(yours) is False and yours.lstrip("-").isdigit():
                why = (f"keeps {_json(yours)} in its insertion place: it is not an array index "
                       "(a leading zero, a sign, or 4294967295 and above), so it is ordered "
                       "like any other name")
            else:
                why = (f"writes {_json(first)} before {_json(yours)}: names that are not array "
                       "indices keep their insertion order")
            return (f"member order at {path}: the canonical form {why}; your line has "
                    f"{shown(got_keys, 120)}, the canonical order is {shown(want_keys, 120)}")
        for key in want_keys:
            if key in got:
                found = _key_order(got[key], want[key], _member(path, key))
                if found:
                    return found
    elif isinstance(got, list) and isinstance(want, list):
        for index, (a, b) in enumerate(zip(got, want, strict=False)):
            found = _key_order(a, b, f"{path}[{index}]")
            if found:
                return found
    return None


def _is_array_index(key: str) -> bool:
    """§6.4: the canonical decimal of an integer 0 <= i < 2^32 - 1."""
    return (key.isascii() and key.isdigit() and (key == "0" or not key.startswith("0"))
            and int(key) < 2**32 - 1)


def explain_bytes(actual: str, expected: str) -> str:
    """Why two lines of the same JSON value differ byte for byte, at the first difference."""
    try:
        order = _key_order(json.loads(actual), json.loads(expected))
    except ValueError:
        order = None
    if order:
        return order
    mine, theirs = tokens(actual), tokens(expected)
    for index, (a, b) in enumerate(zip(mine, theirs, strict=False)):
        if (a.kind, a.text) == (b.kind, b.text):
            continue
        at = f"byte {_utf8_size(actual[:a.start])}"
        if a.kind == "ws":
            after = mine[index - 1].text if index else "the start"
            return (f"your line has whitespace {_json(a.text)} at {at}, after {shown(after, 20)}; "
                    "the canonical form writes no whitespace between tokens (JSON.stringify "
                    "with no indent)")
        if a.kind == "number" and b.kind == "number":
            return (f"your line writes {a.text}; ECMAScript Number::toString writes {b.text} "
                    f"(at {a.path}, {at}: {_number_hint(a.text, b.text)})")
        if a.kind == "string" and b.kind == "string":
            where = "the member name" if a.is_key else "the string"
            return f"in {where} at {a.path} ({at}): {_explain_units(a.text, b.text)}"
        return (f"at {at} your line has {shown(actual[a.start:a.start + 30])}, the canonical "
                f"form {shown(expected[b.start:b.start + 30])}")
    return (f"your line is {_utf8_size(actual)} bytes, the canonical one {_utf8_size(expected)}; "
            "one is a prefix of the other")


# -- byte-size hints (§6.5) ----------------------------------------------------------------------


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _char_label(char: str, count: int) -> str:
    """``3 NUL characters``, ``1 U+001F character``: a count of one character, for hints."""
    name = _CONTROL_NAMES.get(ord(char)) or (f"'{char}'" if char in '"\\' else
                                             f"U+{ord(char):04X}")
    return f"{count} {name} character{'s' if count != 1 else ''}"


def size_hints(line: Line, max_bytes: int) -> list[str]:
    """Why a line is over ``max_bytes`` when a naive count says it is not: it was counted in
    characters, or measured before JSON escaping."""
    hints = []
    if len(line.text) <= max_bytes:
        hints.append(f"it has {len(line.text)} characters (code points) but {line.size} bytes: "
                     "count the UTF-8 bytes of the line (é costs 2 bytes, € 3, an emoji 4)")
    escaped: dict[str, int] = {}
    raw_size = line.size
    for string in _strings(line.value if line.parsed else []):
        for char in string:
            if ord(char) < 0x20 or char in '"\\':
                escaped[char] = escaped.get(char, 0) + 1
                raw_size -= _cost(char) - 1
    if escaped and raw_size <= max_bytes:
        ranked = sorted(escaped.items(), key=lambda item: -item[1] * _cost(item[0]))[:3]
        parts = [f"{_char_label(char, count)}, each {_cost(char)} bytes as "
                 f"{_canonical_escape(char)}" for char, count in ranked]
        hints.append(f"unescaped, the line would be {raw_size} bytes, but the bound is measured "
                     "after JSON escaping: your text has " + "; ".join(parts))
    return hints


# ============================================================================================
# classify
# ============================================================================================


def check_classify_kind(case: Case) -> Iterator[Violation]:
    """classify.kind (wire.md §3): frames are exactly message_update and tool_execution_update."""
    if case.op != "classify" or isinstance(case.expected, Errored):
        return
    event = case.input.get("event") if isinstance(case.input, Mapping) else None
    kind = event.get("type") if isinstance(event, Mapping) else None
    if not isinstance(kind, str):
        return
    want = "frame" if well_formed(kind) in FRAME_TYPES else "fact"
    known = kind in FRAME_TYPES or kind in {
        "agent_start", "agent_end", "turn_start", "turn_end", "message_start", "message_end",
        "tool_execution_start", "tool_execution_end"}
    label = f"the event type {_json(kind)}" + ("" if known else " (a type spec/wire.md does "
                                                "not name)")
    actual = case.actual
    if isinstance(actual, ImplErrored):
        yield Violation("classify.kind", (
            f"you answered errored ({actual.message[:200]}) for {label}; classify never fails "
            f"on a schema-valid event: the answer is \"{want}\" (wire.md §3)"))
    elif actual != want:
        why = ("only message_update and tool_execution_update are frames; every other type, "
               "unknown ones included, is a fact (an unknown event kept as a fact is never lost)")
        yield Violation("classify.kind", (
            f"your answer is {shown(actual)} for {label}; the answer is \"{want}\": {why}"))


# ============================================================================================
# project
# ============================================================================================


def check_erroneous(case: Case) -> Iterator[Violation]:
    """project.erroneous (wire.md §4.5): an erroneous event is answered with an error."""
    view = project_view(case)
    if view is None or view.expected.kind != "errored" or view.actual.kind == "errored":
        return
    kind, reason = view.restated()
    why = reason if kind == "erroneous" else f"the reference refuses it: {view.expected.message}"
    yield Violation("project.erroneous", (
        f"this {view.type} is erroneous: {why} (wire.md §4.5). Answer errored, never a line; "
        f"you answered {view.actual.describe()}. The reference's message: "
        f"{view.expected.message[:300]}"))


def check_frame_opt_in(case: Case) -> Iterator[Violation]:
    """project.frame-opt-in (wire.md §4.1): a frame is written only when opted into."""
    view = project_view(case)
    if view is None or not view.is_frame or view.expected.kind == "errored":
        return
    if not view.include and view.actual.kind == "line":
        yield Violation("project.frame-opt-in", (
            f"includeLiveEvents is false, so this {view.type} (a frame: ephemeral progress) "
            f"projects to nothing: answer null. You wrote {view.actual.describe()}. Frames reach "
            "the wire only when the caller opts in (wire.md §4.1)"))
    elif view.include and view.actual.kind == "null":
        yield Violation("project.frame-opt-in", (
            f"includeLiveEvents is true, so this {view.type} is written; you answered null. The "
            f"reference writes {view.expected.describe()} (wire.md §4.1)"))


def _surrogate_in(value: Any, path: str = "$") -> tuple[str, str, int] | None:
    """The first string (or member name) holding a surrogate: (path, string, index)."""
    if isinstance(value, str):
        for index, char in enumerate(value):
            if 0xD800 <= ord(char) <= 0xDFFF:
                return path, value, index
    elif isinstance(value, Mapping):
        for key, item in value.items():
            found = _surrogate_in(key, f"the member name at {_member(path, key)}") or \
                _surrogate_in(item, _member(path, key))
            if found:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = _surrogate_in(item, f"{path}[{index}]")
            if found:
                return found
    return None


def check_utf8(case: Case) -> Iterator[Violation]:
    """canon.utf8 (wire.md §6.1): no unpaired surrogate survives into a line."""
    view = project_view(case)
    if view is None or view.actual.kind != "line" or view.actual.line is None:
        return
    line = view.actual.line
    raw = re.search("[\ud800-\udfff]", line.text)
    if raw is not None:
        char = raw.group()
        yield Violation("canon.utf8", (
            f"your line holds {describe_char(char)} as a raw code point at character "
            f"{raw.start()}: a line must be well-formed UTF-8, which no surrogate code point is. "
            "Join a high+low pair into one astral code point and replace every other surrogate "
            "with U+FFFD (bytes ef bf bd) before encoding (wire.md §6.1)"))
        return
    if not line.parsed:
        return
    found = _surrogate_in(line.value)
    if found is None:
        return
    path, string, index = found
    char = string[index]
    escape = f"\\u{ord(char):04x}"
    written = "as the escape " + escape if escape in line.text.lower() else "(escaped)"
    where = path if path.startswith("the ") else f"the string at {path}"
    message = (f"your line carries {describe_char(char)} {written} in {where}, code point "
               f"{index} of {shown(string)}. A line must be well-formed: replace "
               "every unpaired surrogate with U+FFFD, as JSON.stringify does after "
               "String.prototype.toWellFormed() (wire.md §6.1)")
    if (view.is_update and path == "$.partialResult.content[0].text"
            and string.startswith(MARKER) and index == len(MARKER) and ord(char) >= 0xDC00):
        message = (f"your tail begins with a lone low surrogate ({describe_char(char)}, written "
                   f"{escape}): it split a surrogate pair, keeping the low half of an astral "
                   "character (count code points, not UTF-16 units: a tail never starts inside "
                   f"a character, wire.md §5.5). {message}")
    yield Violation("canon.utf8", message)


def check_only_updates(case: Case) -> Iterator[Violation]:
    """bound.only-updates (wire.md §5.1): the backstop never touches another type."""
    view = project_view(case)
    if view is None or view.is_update:
        return
    line = view.judged_line()
    if line is None or view.restated()[0] != "line" or not view.over:
        return
    want = view.want()
    if same_json(line.value, want):
        return
    marked = _MARKER_IN_JSON in line.text and _MARKER_IN_JSON not in _json(want)
    if line.size > view.max_bytes and not marked:
        return  # not shrunk: some other projection rule explains the difference
    marker = " and it carries the marker " + _json(MARKER) if marked else ""
    yield Violation("bound.only-updates", (
        f"a {view.type} is never bounded: its line is {view.projected_size()} bytes, over "
        f"maxBytes {view.max_bytes}, and is still written in full (the backstop applies only to "
        f"tool_execution_update, wire.md §5.1). Your line is {line.size} bytes{marker}; "
        f"{_difference_text(line.value, want)}"))


def check_shape(case: Case) -> Iterator[Violation]:
    """bound.shape (wire.md §5.2): the bounded form, exactly."""
    view = project_view(case)
    line = view.bounded_attempt() if view else None
    if view is None or line is None:
        return
    problems = _shape_problems(line.value)
    if problems:
        yield Violation("bound.shape", (
            f"the event's line is {view.projected_size()} bytes, over maxBytes {view.max_bytes}, "
            "so the line is exactly the bounded form {\"type\":\"tool_execution_update\","
            "\"toolCallId\":…,\"toolName\":…,\"partialResult\":{\"content\":[{\"type\":\"text\","
            "\"text\":…}]}} with args, details and every other member dropped (wire.md §5.2); "
            + "; ".join(problems)))


def _shape_problems(value: Any) -> list[str]:
    if not isinstance(value, Mapping):
        return [f"your line is {_kind(value)}, not an object"]
    problems = []
    keys = list(value)
    if keys != list(BOUNDED_KEYS):
        extra = [key for key in keys if key not in BOUNDED_KEYS]
        missing = [key for key in BOUNDED_KEYS if key not in keys]
        detail = []
        if extra:
            detail.append(f"drop {', '.join(map(_json, extra))}")
        if missing:
            detail.append(f"add {', '.join(map(_json, missing))}")
        if not detail:
            detail.append("reorder them")
        problems.append(f"your members are {shown(keys, 100)}; the bounded form has exactly "
                        f"{_json(list(BOUNDED_KEYS))} in this order: {' and '.join(detail)}")
    if value.get("type") != _UPDATE and "type" in value:
        problems.append(f"type is {shown(value.get('type'))}")
    for key in ("toolCallId", "toolName"):
        if key in value and not isinstance(value[key], str):
            problems.append(f"{key} is {_kind(value[key])}, not a string")
    if "partialResult" in value:
        result = value["partialResult"]
        content = result.get("content") if isinstance(result, Mapping) else None
        block = content[0] if isinstance(content, list) and len(content) == 1 else None
        if not (isinstance(result, Mapping) and list(result) == ["content"]
                and isinstance(block, Mapping) and list(block) == ["type", "text"]
                and block["type"] == "text" and isinstance(block["text"], str)):
            problems.append(f"partialResult is {shown(result, 100)}; it must be exactly "
                            "{\"content\":[{\"type\":\"text\",\"text\":<marker + tail>}]} (no "
                            "details, one text block)")
    return problems


def _bounded_parts(view: ProjectView) -> tuple[Line, Bound] | None:
    """The actual bounded line and the restated arithmetic, once the shape is right."""
    line = view.bounded_attempt()
    if line is None or _shape_problems(line.value):
        return None
    bound = view.bound()
    return (line, bound) if bound is not None else None


def check_ids(case: Case) -> Iterator[Violation]:
    """bound.ids (wire.md §5.4): ids keep their first 256 code points, and only then."""
    view = project_view(case)
    parts = _bounded_parts(view) if view else None
    if view is None or parts is None:
        return
    line, _ = parts
    for key in ("toolCallId", "toolName"):
        original = well_formed(view.event[key])
        want = original[:ID_CLIP_CODE_POINTS]
        got = line.value[key]
        if got == want:
            continue
        n = len(original)
        units = original.encode("utf-16-le", "surrogatepass")[: 2 * ID_CLIP_CODE_POINTS]
        if got == original and n > ID_CLIP_CODE_POINTS:
            why = (f"your {key} keeps all {n} code points ({_utf8_size(got)} bytes); the bounded "
                   f"form keeps its first {ID_CLIP_CODE_POINTS} code points, so that the empty "
                   "tail always fits and the shrink loop converges (wire.md §5.4, §5.6)")
        elif got in (units.decode("utf-16-le", "ignore"),
                     well_formed(units.decode("utf-16-le", "surrogatepass"))):
            why = (f"your {key} is clipped at {ID_CLIP_CODE_POINTS} UTF-16 units ({len(got)} code "
                   f"points); clip at {ID_CLIP_CODE_POINTS} code points, where an astral "
                   f"character counts once (the original has {n} code points, "
                   f"{len(original.encode('utf-16-le', 'surrogatepass')) // 2} UTF-16 units)")
        elif n <= ID_CLIP_CODE_POINTS:
            why = (f"the original {key} has {n} code points (at most {ID_CLIP_CODE_POINTS}), so "
                   f"the bounded form keeps it unchanged; yours is {shown(got)}")
        elif got == original[-ID_CLIP_CODE_POINTS:]:
            why = (f"your {key} keeps the last {ID_CLIP_CODE_POINTS} code points; keep the first "
                   "ones (an id's type prefix is at its start)")
        else:
            why = (f"your {key} ({len(got)} code points, {shown(got)}) is not the first "
                   f"{ID_CLIP_CODE_POINTS} code points of the original ({n} code points, "
                   f"{shown(original)})")
        yield Violation("bound.ids", why)
        return


def check_text(case: Case) -> Iterator[Violation]:
    """bound.text (wire.md §5.3): the marker, then a suffix of the original text."""
    view = project_view(case)
    parts = _bounded_parts(view) if view else None
    if view is None or parts is None:
        return
    line, bound = parts
    text = line.value["partialResult"]["content"][0]["text"]
    original = bound.text
    if not text.startswith(MARKER):
        if text.endswith(MARKER):
            why = (f"your marker is after the tail: the bounded text is the marker "
                   f"{_json(MARKER)} followed by the tail, so a reader meets the warning before "
                   "the newest output")
        elif MARKER.rstrip("\n") in text:
            why = (f"your text contains the marker but does not begin with it exactly "
                   f"({_json(MARKER)}, 23 characters and a line feed); yours begins "
                   f"{shown(text[:40])}")
        else:
            why = (f"your bounded text does not begin with the marker {_json(MARKER)}; it begins "
                   f"{shown(text[:40])}")
        yield Violation("bound.text", why + " (wire.md §5.3)")
        return
    tail = text[len(MARKER):]
    if original.endswith(tail):
        return
    n = len(original)
    start = n - len(tail)
    if tail[:1] == "\ufffd" and 0 <= start < n and original.endswith(tail[1:]) and \
            ord(original[start]) > 0xFFFF:
        why = (f"your tail begins with U+FFFD where the original text has "
               f"{describe_char(original[start])}: it split a surrogate pair (count code points, "
               "not UTF-16 units)")
    elif original.startswith(tail):
        why = (f"your tail ({len(tail)} code points) is the start of the text; keep its end, "
               "which is the newest output")
    else:
        common = 0
        while common < min(len(tail), n) and tail[-1 - common] == original[-1 - common]:
            common += 1
        why = (f"your tail ({len(tail)} code points, {shown(tail)}) is not a suffix of the "
               f"original text ({n} code points, {shown(original)}); they agree on the last "
               f"{common} code points only")
    yield Violation("bound.text", (
        f"{why}. The original text is {bound.text_origin} (wire.md §5.3)"))


def check_fits(case: Case) -> Iterator[Violation]:
    """bound.fits (wire.md §5.1): a tool_execution_update line is at most maxBytes bytes."""
    view = project_view(case)
    if view is None or not view.is_update or view.actual.kind != "line":
        return
    if view.expected.kind == "errored":
        return
    line = view.actual.line
    assert line is not None
    if line.size <= view.max_bytes:
        return
    notes = []
    bound = view.bound()
    specific = (_tail_hints(line.value, bound, line.size, view.max_bytes)
                if line.parsed and isinstance(line.value, Mapping) and bound is not None else [])
    # A hint read off the bounded text itself names the bug; the general size hints then
    # would only guess at another one.
    hints = specific or size_hints(line, view.max_bytes)
    if line.parsed and same_json(line.value, view.want()):
        notes.append("it is the whole event: a tool_execution_update over maxBytes is replaced "
                     "by the bounded form (wire.md §5.2)")
        if not hints and line.size <= 262144:
            notes.append(f"the bound is the request's maxBytes ({view.max_bytes}), even when it "
                         "is not the default 262144")
    notes.extend(hints)
    if line.parsed and isinstance(line.value, Mapping) and bound is not None:
        for key in ("toolCallId", "toolName"):
            got = line.value.get(key)
            if isinstance(got, str) and len(got) > ID_CLIP_CODE_POINTS:
                notes.append(f"your {key} keeps {len(got)} code points; clip it to "
                             f"{ID_CLIP_CODE_POINTS} so that the empty tail always fits")
    detail = f" ({'; '.join(notes)})" if notes else ""
    yield Violation("bound.fits", (
        f"your line is {line.size} bytes, over maxBytes {view.max_bytes}: the bound is "
        f"measured on the UTF-8 bytes of the serialized line, after JSON escaping{detail}"))


#: The marker's bytes in a serialized string (its newline is written ``\\n``).
_MARKER_BYTES = _escaped_size(MARKER)


def _bounded_text(value: Mapping[str, Any]) -> str | None:
    """The text of a line shaped like the bounded form, else None."""
    result = value.get("partialResult")
    content = result.get("content") if isinstance(result, Mapping) else None
    block = content[0] if isinstance(content, list) and len(content) == 1 else None
    text = block.get("text") if isinstance(block, Mapping) else None
    return text if isinstance(text, str) else None


def _tail_hints(value: Mapping[str, Any], bound: Bound, size: int, max_bytes: int) -> list[str]:
    """What an over-long bounded line's own text says about the bug that made it."""
    text = _bounded_text(value)
    if text is None or not text.startswith(MARKER):
        return []
    tail = text[len(MARKER):]
    hints = []
    if tail == bound.text and bound.text and bound.size(1) > max_bytes:
        hints.append("not one code point of tail fits, so the tail is empty, but yours is the "
                     "whole text: a tail of 0 code points is the empty string (text.slice(-0) "
                     "is the whole text)")
    elif bound.text.endswith(tail) and len(tail) in (
            bound.maximal(max_bytes + _MARKER_BYTES), bound.halving(max_bytes + _MARKER_BYTES)[-1]):
        # Exactly the tail a search picks when it sizes candidates without the marker.
        hints.append(f"without the marker ({_MARKER_BYTES} bytes) it would fit: size each "
                     "candidate with the marker in place (wire.md §5.2)")
    return hints


def _halvings(n: int) -> Iterator[int]:
    while n:
        yield n
        n //= 2
    yield 0


def _candidates(tried: list[int], bound: Bound, max_bytes: int) -> str:
    shown_k = tried if len(tried) <= 8 else [*tried[:5], -1, *tried[-2:]]
    parts = []
    for k in shown_k:
        if k < 0:
            parts.append("…")
            continue
        size = bound.size(k)
        parts.append(f"{k} ({size} bytes, {'fits' if size <= max_bytes else 'over'})")
    return ", ".join(parts)


def check_tail(case: Case) -> Iterator[Violation]:
    """bound.tail (wire.md §5.5): the tail has the length the declared strategy picks."""
    view = project_view(case)
    parts = _bounded_parts(view) if view else None
    if view is None or parts is None:
        return
    line, bound = parts
    text = line.value["partialResult"]["content"][0]["text"]
    if not text.startswith(MARKER) or not bound.text.endswith(text[len(MARKER):]):
        return  # bound.text explains it
    if line.size > view.max_bytes:
        return  # bound.fits explains it
    got = len(text) - len(MARKER)
    strategy = case.capabilities.fit_strategy
    n = len(bound.text)
    want = bound.pick(strategy, view.max_bytes)
    if got == want:
        return
    if strategy == "halving":
        tried = bound.halving(view.max_bytes)
        steps = _candidates(tried, bound, view.max_bytes)
        why = (f"your tail is {got} code points; halving tries k = {steps}, and the first that "
               f"fits is {want}")
        other = bound.maximal(view.max_bytes)
    else:
        why = (f"your tail is {got} code points; maximal keeps the largest tail that fits: "
               f"{want} code points ({bound.size(want)} bytes)"
               + (f"; {want + 1} would be {bound.size(want + 1)} bytes" if want < n else ""))
        other = bound.halving(view.max_bytes)[-1]
    notes = []
    if got == other and other != want:
        other_name = "maximal" if strategy == "halving" else "halving"
        notes.append(f"that is what {other_name} picks, but your handshake declares "
                     f"fitStrategy \"{strategy}\"")
    units = len(bound.text.encode("utf-16-le")) // 2
    tail_units = len(text[len(MARKER):].encode("utf-16-le")) // 2
    if units != n and got != other and any(
            abs(tail_units - k) <= 1 for k in _halvings(units)):
        notes.append(f"your tail looks measured in UTF-16 units ({tail_units} of them): the text "
                     f"has {n} code points but {units} UTF-16 units; count code points, not "
                     "UTF-16 units")
    if got < want:
        notes.append(f"your line is {line.size} bytes; {want} code points make "
                     f"{bound.size(want)} bytes, within maxBytes {view.max_bytes}")
        if bound.size(want) == view.max_bytes:
            notes.append("a line of exactly maxBytes bytes fits: compare with <=, not <")
    detail = f" ({'; '.join(notes)})" if notes else ""
    yield Violation("bound.tail", (
        f"{why} (the text has {n} code points, the empty-tail line is {bound.envelope} bytes, "
        f"maxBytes is {view.max_bytes}){detail} (wire.md §5.5)"))


def check_only_when_over(case: Case) -> Iterator[Violation]:
    """bound.only-when-over (wire.md §5.1): an update that fits is written unchanged."""
    view = project_view(case)
    if view is None or not view.is_update or not view.include or view.over:
        return
    line = view.judged_line()
    size = view.projected_size()
    if line is None or size is None:
        return
    want = view.want()
    if same_json(line.value, want):
        return
    looks_bounded = _MARKER_IN_JSON in line.text
    what = ("your line is the bounded form" if looks_bounded
            else f"your line differs: {_difference_text(line.value, want)}")
    notes = []
    if size == view.max_bytes:
        notes.append("a line of exactly maxBytes fits: bound only a line longer than maxBytes "
                     "(>), not one that reaches it (>=)")
    try:
        ascii_size = len(json.dumps(want, ensure_ascii=True, separators=(",", ":")))
    except (TypeError, ValueError):
        ascii_size = size
    if looks_bounded and ascii_size > view.max_bytes > size:
        notes.append(f"with non-ASCII escaped as \\uXXXX the line would be {ascii_size} bytes: "
                     "measure the canonical line, which writes non-ASCII raw as UTF-8")
    detail = f" ({'; '.join(notes)})" if notes else ""
    yield Violation("bound.only-when-over", (
        f"the event's canonical line is {size} bytes, within maxBytes {view.max_bytes}, so it is "
        f"written unchanged (wire.md §5.1); {what}{detail}"))


def _projection_difference(case: Case, kind: str) -> tuple[ProjectView, Any, Any] | None:
    """For an event of type ``kind`` whose line parses to something other than its projection:
    the view, the parsed line and the projection it should be."""
    view = project_view(case)
    if view is None or view.type != kind:
        return None
    line = view.judged_line()
    if line is None or view.restated()[0] != "line" or (view.is_update and view.over):
        return None
    want = view.want()
    return None if same_json(line.value, want) else (view, line.value, want)


def check_message_update(case: Case) -> Iterator[Violation]:
    """project.message-update (wire.md §4.3)."""
    found = _projection_difference(case, "message_update")
    if found is None:
        return
    view, got, want = found
    notes = []
    got_event = got.get("assistantMessageEvent") if isinstance(got, Mapping) else None
    want_event = want["assistantMessageEvent"]
    if isinstance(got_event, Mapping) and "partial" in got_event:
        notes.append(f"your assistantMessageEvent still carries partial "
                     f"({len(_json(got_event['partial']))} characters of the cumulative message "
                     "snapshot): drop it")
    if want_event.get("type") == "toolcall_start" and isinstance(got_event, Mapping):
        index = view.event["assistantMessageEvent"].get("contentIndex")
        for key in ("id", "toolName"):
            if not same_json(got_event.get(key), want_event[key]):
                source = "id" if key == "id" else "name"
                notes.append(f"a toolcall_start carries {key} = partial.content[{index}]."
                             f"{source} = {shown(want_event[key])}; yours "
                             + ("has none" if key not in got_event else
                                f"is {shown(got_event[key])}"))
    if isinstance(got, Mapping):
        if "usage" in want and "usage" not in got:
            notes.append("the message has usage, so the line carries it as \"usage\"")
        elif "usage" not in want and "usage" in got:
            notes.append(f"the message has no usage, so the member is omitted (yours is "
                         f"{shown(got['usage'])})")
        for key in got:
            if key not in want and key not in ("usage",):
                notes.append(f"drop {_json(key)}")
    if not notes:
        notes.append(_difference_text(got, want))
    yield Violation("project.message-update", (
        "a message_update projects to {\"type\",\"usage\" (when the message has one),"
        "\"assistantMessageEvent\": the event's assistantMessageEvent without partial}, and a "
        "toolcall_start adds the id and toolName of its tool call (wire.md §4.3): "
        + "; ".join(notes)))


def check_turn_end(case: Case) -> Iterator[Violation]:
    """project.turn-end (wire.md §4.4)."""
    found = _projection_difference(case, "turn_end")
    if found is None:
        return
    _, got, want = found
    notes = []
    if isinstance(got, Mapping):
        for key in ("message", "toolResults"):
            if key in got:
                notes.append(f"your line still carries {key} ({len(_json(got[key]))} characters "
                             "of JSON) that message_end and tool_execution_end already wrote")
    if not notes:
        notes.append(_difference_text(got, want))
    yield Violation("project.turn-end", (
        f"a turn_end projects to exactly {_json(want)} (wire.md §4.4): " + "; ".join(notes)))


def check_agent_end(case: Case) -> Iterator[Violation]:
    """project.agent-end (wire.md §4.4)."""
    found = _projection_difference(case, "agent_end")
    if found is None:
        return
    view, got, want = found
    notes = []
    if isinstance(got, Mapping):
        if "messages" in got:
            notes.append(f"your line still carries messages ({len(_json(got['messages']))} "
                         "characters of JSON): write messageCount instead")
        if "willRetry" not in got and "willRetry" not in view.event:
            notes.append("the event has no willRetry, and the line says \"willRetry\":false "
                         "(absent reads as false; never leave the member out)")
    if not notes:
        notes.append(_difference_text(got, want))
    yield Violation("project.agent-end", (
        f"an agent_end projects to exactly {_json(want)} (wire.md §4.4): " + "; ".join(notes)))


def check_fact_passthrough(case: Case) -> Iterator[Violation]:
    """project.fact-passthrough (wire.md §4.2): other facts are written unchanged."""
    view = project_view(case)
    if view is None or view.is_frame or view.type in ("turn_end", "agent_end"):
        return
    if view.expected.kind != "line":
        return
    unknown = "" if view.type in {"agent_start", "turn_start", "message_start", "message_end",
                                  "tool_execution_start", "tool_execution_end"} else (
        f" ({_json(view.type)} is not a type spec/wire.md names: unknown types are facts too)")
    if view.actual.kind == "null":
        yield Violation("project.fact-passthrough", (
            f"you answered null for a {_json(view.type)} event; a fact is always written, "
            f"unchanged{unknown} (wire.md §4.2)"))
        return
    line = view.judged_line()
    if line is None or view.over:
        return  # an oversized fact that was altered is bound.only-updates
    want = view.want()
    if not same_json(line.value, want):
        yield Violation("project.fact-passthrough", (
            f"a {_json(view.type)} fact is written unchanged{unknown} (wire.md §4.2): "
            f"{_difference_text(line.value, want)}"))


def check_project_agrees(case: Case) -> Iterator[Violation]:
    """project.agrees (wire.md §4): the line parses to the reference's value."""
    view = project_view(case)
    if view is None or view.expected.kind == "errored":
        return
    expected, actual = view.expected, view.actual
    if actual.kind == "errored":
        yield Violation("project.agrees", (
            f"you answered errored ({actual.message[:200]}), but the event is valid: the "
            f"reference writes {expected.describe()}"))
    elif actual.kind == "bad":
        yield Violation("project.agrees", (
            f"your answer is {actual.describe()}: project answers {{\"line\": <the line as a "
            "string>}} or null (wire.md §8)"))
    elif actual.kind != expected.kind:
        yield Violation("project.agrees", (
            f"you answered {actual.describe()}; the reference answers {expected.describe()}"))
    elif actual.kind == "line" and actual.line is not None and expected.line is not None:
        if not actual.line.parsed:
            yield Violation("project.agrees", (
                f"your line is not JSON ({actual.line.error}): {shown(actual.line.text)}"))
        elif not same_json(actual.line.value, expected.line.value):
            yield Violation("project.agrees", (
                f"your line parses to a different value than the reference's: "
                f"{_difference_text(actual.line.value, expected.line.value)}"))


def check_canonical_bytes(case: Case) -> Iterator[Violation]:
    """canon.bytes (wire.md §6, SHOULD): the same value, written byte for byte canonically."""
    view = project_view(case)
    if view is None or view.actual.kind != "line" or view.expected.kind != "line":
        return
    mine, theirs = view.actual.line, view.expected.line
    assert mine is not None
    assert theirs is not None
    if mine.text == theirs.text or not mine.parsed or not theirs.parsed:
        return
    if not same_json(mine.value, theirs.value):
        return  # a different value: project.agrees
    yield Violation("canon.bytes", (
        f"your line is the right JSON value but not its canonical bytes ({mine.size} bytes, "
        f"canonical {theirs.size}): {explain_bytes(mine.text, theirs.text)} (wire.md §6)"))


#: Each rule's check; the project checks in the order the engine consults them, most specific
#: first (the engine reports the first rule a case breaks).
CHECK_BY_RULE: dict[str, Check] = {
    "classify.kind": check_classify_kind,
    "project.erroneous": check_erroneous,
    "project.frame-opt-in": check_frame_opt_in,
    "canon.utf8": check_utf8,
    "bound.only-updates": check_only_updates,
    "bound.shape": check_shape,
    "bound.ids": check_ids,
    "bound.text": check_text,
    "bound.fits": check_fits,
    "bound.tail": check_tail,
    "bound.only-when-over": check_only_when_over,
    "project.message-update": check_message_update,
    "project.turn-end": check_turn_end,
    "project.agent-end": check_agent_end,
    "project.fact-passthrough": check_fact_passthrough,
    "project.agrees": check_project_agrees,
    "canon.bytes": check_canonical_bytes,
}

CHECKS: dict[str, list[Check]] = {
    "classify": [check_classify_kind],
    "project": [check for rule, check in CHECK_BY_RULE.items() if not rule.startswith("classify")],
}
