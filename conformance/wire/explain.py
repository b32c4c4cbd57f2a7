"""What the wire checks share (spec/wire.md): the projection and the bounded form restated from
the input, lines and answers read once, and the words that explain a byte difference.

A check restates its rule from the input alone wherever it can: what a projection must contain
(§4), the text a bounded line must keep and the marker it opens with (§5.3), the clipped ids
(§5.4), the tail length the declared fit strategy picks (§5.5), whether a line is well-formed
(§6.1). The reference's answer is consulted only to tell an erroneous input from a valid one and
for the final agreement and byte-for-byte checks. Messages speak JSON, UTF-8 and code points, not
Python, so that a TypeScript, Go or Rust developer can act on them.

The checks themselves live in ``checks/``, one module per rule group; the profile's operation
table lists them most specific first: the verdict reports the first rule a case breaks, so a
bounded line with unclipped ids is reported as ``bound.ids`` rather than as a generic
disagreement.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from eventproof.reference import DEFAULT_MAX_BYTES, InvalidInput, canonical_bytes

from .. import _json as json_model
from .._json import CONTROL_NAMES, describe_char, member_path, render, well_formed
from .._json import kind as json_kind
from .._model import BYTE_FORM_KIND as _BYTE_FORM_KIND
from .._model import BYTE_FORM_RULE as _BYTE_FORM_RULE
from .._model import Case, Errored, ImplErrored

#: The bounded text opens with this (wire.md §5.3): 23 characters and a line feed.
MARKER = "[live output truncated]\n"
#: Ids keep their first this many code points in the bounded form (wire.md §5.4).
ID_CLIP_CODE_POINTS = 256
#: The ephemeral types (wire.md §3).
FRAME_TYPES = frozenset({"message_update", "tool_execution_update"})
#: The bounded form's members, in their order (wire.md §5.2).
BOUNDED_KEYS = ("type", "toolCallId", "toolName", "partialResult")
UPDATE = "tool_execution_update"
MARKER_IN_JSON = json.dumps(MARKER)[1:-1]  # how the marker reads inside a line
_SHOWN = 60  # characters of a value a message shows before eliding the middle


# -- well-formed text and JSON values (§6.1) ----------------------------------------------------


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


def same_json(a: Any, b: Any) -> bool:
    """The wire profile's JSON equality: numbers as the doubles a JavaScript reader parses."""
    return json_model.same_json(a, b, numbers="double")


# -- showing values --------------------------------------------------------------------------


def compact(value: Any) -> str:
    return render(value, limit=1 << 30)


def shown(value: Any, limit: int = _SHOWN) -> str:
    """``value`` rendered for a message, the middle elided when long, with its size."""
    return render(value, limit)


def utf8_size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _canonical_escape(char: str) -> str:
    """How the canonical form writes one well-formed code point inside a string (§6.2)."""
    return json.dumps(char, ensure_ascii=False)[1:-1]


def _cost(char: str) -> int:
    return len(_canonical_escape(char).encode("utf-8"))


def difference_text(got: Any, want: Any) -> str:
    found = json_model.first_difference(got, want, numbers="double")
    return "they are the same JSON" if found is None else str(found)


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
        line = cls(text=text, size=utf8_size(text))
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
            raise Erroneous(f"its message.role is {compact(role)}, not \"assistant\"; a "
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
    return "", f"partialResult is {json_kind(partial_result)}, so its text is empty"


def escaped_size(text: str) -> int:
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
            "type": UPDATE, "toolCallId": self.tool_call_id, "toolName": self.tool_name,
            "partialResult": {"content": [{"type": "text", "text": MARKER + tail}]},
        }

    def size(self, k: int) -> int:
        """Bytes of the bounded line whose tail is the last ``k`` code points (§5.6: the
        envelope plus the escaped tail, since escapes are per code point)."""
        if k not in self._sizes:
            self._sizes[k] = self.envelope + (
                escaped_size(self.text[len(self.text) - k:]) if k else 0)
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
        return self.type == UPDATE

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
        # The op's defaults (wire.md §8) when a member is absent, as the reference reads it.
        event, include, max_bytes = (request.get("event"),
                                     request.get("includeLiveEvents", False),
                                     request.get("maxBytes", DEFAULT_MAX_BYTES))
        if isinstance(max_bytes, float) and max_bytes.is_integer():
            max_bytes = int(max_bytes)  # 4096.0 is the integer 4096 (wire.md §1)
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
                path = member_path(path, at)
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
                before = (" before " + " and before ".join(compact(key) for key in later[:3])
                          if later else " first")
                why = (f"puts integer-like key {compact(first)}{before}"
                       " (array-index names come first, in ascending numeric order, then the "
                       "other names in insertion order: ECMAScript OrdinaryOwnPropertyKeys)")
            elif _is_array_index(yours) is False and yours.lstrip("-").isdigit():
                why = (f"keeps {compact(yours)} in its insertion place: it is not an array index "
                       "(a leading zero, a sign, or 4294967295 and above), so it is ordered "
                       "like any other name")
            else:
                why = (f"writes {compact(first)} before {compact(yours)}: names that are not array "
                       "indices keep their insertion order")
            return (f"member order at {path}: the canonical form {why}; your line has "
                    f"{shown(got_keys, 120)}, the canonical order is {shown(want_keys, 120)}")
        for key in want_keys:
            if key in got:
                found = _key_order(got[key], want[key], member_path(path, key))
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
        at = f"byte {utf8_size(actual[:a.start])}"
        if a.kind == "ws":
            after = mine[index - 1].text if index else "the start"
            return (f"your line has whitespace {compact(a.text)} at {at}, after "
                    f"{shown(after, 20)}; "
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
    return (f"your line is {utf8_size(actual)} bytes, the canonical one {utf8_size(expected)}; "
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
    name = CONTROL_NAMES.get(ord(char)) or (f"'{char}'" if char in '"\\' else
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




# -- the byte form an implementation writes (§6) -------------------------------------------------

BYTE_FORM_KIND = _BYTE_FORM_KIND
BYTE_FORM_RULE = _BYTE_FORM_RULE


def written_forms(line: Line) -> dict[str, str]:
    """How ``line`` writes each character of its strings that it writes otherwise than the
    canonical form (§6), read off its own text: ``{"\\u2028": "\\\\u2028"}``; empty when every
    string is written canonically. Whitespace, numbers and member order are not characters of a
    string and are left to :func:`explain_bytes`."""
    forms: dict[str, str] = {}
    for token in tokens(line.text):
        if token.kind != "string":
            continue
        units = _units(token.text)
        index = 0
        while index < len(units):
            written = units[index]
            char = _decode_unit(written)
            if (len(char) == 1 and 0xD800 <= ord(char) <= 0xDBFF and index + 1 < len(units)
                    and len(_decode_unit(written + units[index + 1])) == 1):
                written += units[index + 1]
                char = _decode_unit(written)
                index += 1
            index += 1
            if len(char) != 1 or char in forms or 0xD800 <= ord(char) <= 0xDFFF:
                continue
            if written != _canonical_escape(char):
                forms[char] = written
    return forms


def measured_as_written(value: Any, forms: Mapping[str, str]) -> int:
    """The UTF-8 size of ``value``'s canonical line with each character in ``forms`` written as
    there: the size an implementation that writes (and measures) its lines so computes."""
    size = len(canonical_bytes(value))
    for string in _strings(value):
        for char in string:
            if char in forms:
                size += len(forms[char].encode("utf-8", "surrogatepass")) - _cost(char)
    return size


def describe_forms(forms: Mapping[str, str], limit: int = 3) -> str:
    """``U+2028 LINE SEPARATOR as \\u2028 (6 bytes; canonical: raw, 3 bytes)`` for each of the
    first ``limit`` characters of ``forms``."""
    parts = []
    for char, written in list(forms.items())[:limit]:
        canonical = _canonical_escape(char)
        how = "raw" if canonical == char else canonical
        parts.append(f"{describe_char(char)} as {written} ({utf8_size(written)} bytes; "
                     f"canonical: {how}, {_cost(char)} bytes)")
    more = f" and {len(forms) - limit} more" if len(forms) > limit else ""
    return "; ".join(parts) + more
