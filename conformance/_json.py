"""The one JSON value model of the harness (spec/protocol.md §1.1): equality, rendering and the
first difference between two values.

Every face that compares an answer with the reference's (the checks, the vectors, replay, the
reports) uses these three functions, so "the same JSON value" means one thing everywhere:

- the same kind (``true`` is not ``1``, ``null`` is not ``[]``);
- objects: the same member names with the same values, member order aside (order is part of
  the SHOULD byte form, never of the value);
- arrays: the same length and the same values in order;
- strings: the same UTF-16 code units, so a surrogate pair held as two code points is the same
  string as the astral character it encodes (a UTF-16 reader cannot tell them apart), while a
  lone surrogate is only ever the same as itself;
- numbers: by value. ``exact`` (the selection and budget profiles, which echo their input)
  compares mathematically, so ``2**53 + 1`` is not ``2.0**53`` (a double is the number its
  shortest writing denotes: ``1.2345678901234568e+20`` is ``123456789012345680000``);
  ``double`` (the wire profile,
  whose lines a JavaScript reader parses into doubles) compares the doubles the two literals
  read as, integer literals included. NaN and the infinities are no JSON value: they are never
  the same as anything, themselves included.

An implementation that declares ``"numbers": "double"`` (spec/protocol.md §4.2) reads every
number as a double: :func:`as_read` gives a value as it reads it, the form in which its inputs are
sent and its answers judged, so the exact rule then compares what a double reader holds.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import Any, Final, Literal

from ._clip import foreign_text

_orjson_dumps: Callable[[Any], bytes] | None
try:
    from orjson import dumps as _orjson_dumps
except ImportError:  # pragma: no cover - the bare install's tests run this path
    _orjson_dumps = None

#: How numbers compare: mathematically, or as the IEEE doubles they read as.
Numbers = Literal["exact", "double"]


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


#: Stands for an absent member or element in a :class:`Difference`.
MISSING: Final = _Missing()

#: Characters a rendered value shows before eliding its middle.
SHOWN_CHARACTERS = 240


#: The JSON kind of each plain type, looked up before the checks that subclasses need.
_KIND_OF_TYPE: Final[dict[type, str]] = {
    type(None): "null", bool: "boolean", int: "number", float: "number", str: "string",
    list: "array", tuple: "array", dict: "object"}


def kind(value: Any) -> str:
    """The JSON kind of ``value``: null, boolean, number, string, array or object."""
    plain = _KIND_OF_TYPE.get(type(value))
    if plain is not None:
        return plain
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


@lru_cache(maxsize=4096)
def well_formed(text: str) -> str:
    """``text`` with each high+low surrogate pair joined into one code point and every other
    surrogate replaced by U+FFFD: a UTF-16 round trip, as a JavaScript reader holds a string.
    The checks' own (independent of the reference's), shared by every profile."""
    if text.isascii():
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


#: The largest integer below which every integer is a double (2^53 − 1, ECMAScript's
#: ``Number.MAX_SAFE_INTEGER``): a double reader holds each of them exactly.
MAX_SAFE_INTEGER: Final = 2**53 - 1


def as_double(number: float) -> float:
    """``number`` as a double reader (``JSON.parse``) holds it: an integer beyond ±(2^53 − 1)
    becomes the nearest double, or an infinity past the largest; any other number is kept."""
    if isinstance(number, bool) or not isinstance(number, int) or -MAX_SAFE_INTEGER <= number \
            <= MAX_SAFE_INTEGER:
        return number
    try:
        return float(number)
    except OverflowError:
        return math.inf if number > 0 else -math.inf


def _read_leaf(value: Any, lone_surrogates: bool, numbers: Numbers) -> Any:
    if isinstance(value, str):
        if lone_surrogates:
            return value
        formed = well_formed(value)
        return value if formed == value else formed
    if numbers == "double" and isinstance(value, int) and not isinstance(value, bool):
        return as_double(value)
    return value


def as_read(value: Any, *, lone_surrogates: bool = True, numbers: Numbers = "exact") -> Any:
    """``value`` as an implementation that declared these capabilities reads it: with every
    string and member name :func:`well_formed` when it cannot hold a lone surrogate, and every
    number :func:`as_double` when it reads numbers as doubles. The same object when nothing
    changes (so ``as_read(v, ...) is v`` tells whether a declared limit concerned ``v``); built
    without recursion, so any depth is read."""
    if lone_surrogates and numbers == "exact":
        return value
    return _rebuild(value, lambda leaf: _read_leaf(leaf, lone_surrogates, numbers))


def _joined(text: str) -> str:
    if text.isascii():
        return text
    joined = utf16(text).decode("utf-16-le", "surrogatepass")
    return text if joined == text else joined


def pairs_joined(value: Any) -> Any:
    """``value`` with every surrogate pair held as two code points joined into the astral
    character it encodes, lone surrogates kept: the same JSON value (§1.1 compares strings by
    their UTF-16 code units), written one way, so that Python's ``==`` on its strings and the
    sizes measured from them are those of the value. The same object when nothing changes."""
    if _orjson_dumps is not None:
        try:
            _orjson_dumps(value)
        except TypeError:
            pass  # a surrogate, a foreign key, a huge integer or a deep value: read it all
        else:
            return value  # orjson writes no string that holds a surrogate: nothing to join
    return _rebuild(value, lambda leaf: _joined(leaf) if isinstance(leaf, str) else leaf)


def _rebuild(value: Any, leaf: Callable[[Any], Any]) -> Any:
    """``value`` with ``leaf`` applied to every scalar and member name, containers rebuilt only
    where something changed (else the very object is kept). Without recursion, so any depth."""
    if not isinstance(value, list | tuple | Mapping):
        return leaf(value)
    # Post-order: each container is rebuilt from its read children, and kept as it is when none
    # of them (nor, for an object, a member name) changed.
    done: dict[int, Any] = {}
    opened: set[int] = set()
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        node, expanded = stack.pop()
        if id(node) in done:
            continue
        children = list(node.values()) if isinstance(node, Mapping) else list(node)
        if not expanded:
            if id(node) in opened:
                raise ValueError("a value that contains itself is no JSON value")
            opened.add(id(node))
            stack.append((node, True))
            stack.extend((child, False) for child in children
                         if isinstance(child, list | tuple | Mapping) and id(child) not in done)
            continue
        read = [done[id(child)] if isinstance(child, list | tuple | Mapping) else leaf(child)
                for child in children]
        if isinstance(node, Mapping):
            keys = [leaf(key) if isinstance(key, str) else key for key in node]
            same = all(k is o for k, o in zip(keys, node, strict=True)) and all(
                r is c for r, c in zip(read, children, strict=True))
            done[id(node)] = node if same else dict(zip(keys, read, strict=True))
        else:
            same = all(r is c for r, c in zip(read, children, strict=True))
            done[id(node)] = node if same else list(read)
    return done[id(value)]


def utf16(text: str) -> bytes:
    """The UTF-16 code units of ``text`` (a lone surrogate is one unit of its own)."""
    return text.encode("utf-16-le", "surrogatepass")


_SURROGATE = re.compile("[\ud800-\udfff]")


def holds_lone_surrogate(value: Any) -> bool:
    """Whether a string or member name in ``value`` holds a surrogate with no partner (a pair
    held as two code points is one astral character to a UTF-16 reader). Iterative."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not item.isascii() and _SURROGATE.search(
                    utf16(item).decode("utf-16-le", "surrogatepass")):
                return True
        elif isinstance(item, Mapping):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return False


def _same_string(a: str, b: str) -> bool:
    return a == b or utf16(a) == utf16(b)


def _same_number(a: float, b: float, numbers: Numbers) -> bool:
    if isinstance(a, float) and not math.isfinite(a):
        return False
    if isinstance(b, float) and not math.isfinite(b):
        return False
    if numbers == "exact":
        if isinstance(a, float) == isinstance(b, float):
            return a == b  # two integers, or two doubles
        # A double stands for the literal it is written as, its shortest (repr, JSON.stringify,
        # Go): 1.2345678901234568e+20 is the integer 123456789012345680000, not the double's
        # binary value 123456789012345683968.
        integer, double = (b, a) if isinstance(a, float) else (a, b)
        return Decimal(repr(double)) == integer
    # Two integer literals are the same number when they read as the same double
    # (31471699093648992 and 31471699093648990 are both 3.147169909364899e16).
    left, right = as_double(a), as_double(b)
    return math.isfinite(left) and math.isfinite(right) and left == right


def _members(value: Mapping[Any, Any]) -> dict[bytes | Any, Any]:
    return {utf16(key) if isinstance(key, str) else key: item for key, item in value.items()}


def same_json(a: Any, b: Any, *, numbers: Numbers = "exact") -> bool:
    """Whether ``a`` and ``b`` are the same JSON value (see the module docstring). Without
    recursion: an answer of any depth is compared."""
    pairs = [(a, b)]
    while pairs:
        left, right = pairs.pop()
        what = kind(left)
        if what != kind(right):
            return False
        if what == "number":
            if not _same_number(left, right, numbers):
                return False
        elif what == "string":
            if not _same_string(left, right):
                return False
        elif what == "array":
            if len(left) != len(right):
                return False
            pairs.extend(zip(left, right, strict=True))
        elif what == "object":
            mine, theirs = _members(left), _members(right)
            if mine.keys() != theirs.keys():
                return False
            pairs.extend((mine[key], theirs[key]) for key in mine)
        elif what in ("null", "boolean"):
            if left != right:
                return False
        else:
            return False  # not a JSON value at all
    return True


# -- rendering ------------------------------------------------------------------------------------

#: Characters that would be invisible or unprintable in a message: shown as escapes.
_HIDDEN = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff]")


def _escape_hidden(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _compact(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=True)
    except (TypeError, ValueError, RecursionError):
        text = json.dumps(strict_json_value(value), ensure_ascii=False, separators=(",", ":"))
    return _HIDDEN.sub(_escape_hidden, text)


def render(value: Any, limit: int = SHOWN_CHARACTERS) -> str:
    """``value`` as compact JSON for a message: printable characters as they are, controls,
    separators and surrogates as escapes, the middle elided past ``limit`` characters with the
    value's size. NaN and the infinities show as ``NaN``/``Infinity``; :data:`MISSING` as
    ``(absent)``."""
    if value is MISSING:
        return "(absent)"
    text = _compact(value)
    if len(text) <= limit:
        return text
    size = (f"{len(value)} code points" if isinstance(value, str)
            else f"{len(text)} characters of JSON")
    return f"{text[: limit * 2 // 3]}…{text[-(limit // 4):]} ({size})"


def around(text: str, at: int, width: int = 60) -> str:
    """``text`` as a JSON string cut to ``width`` code points around code point ``at`` (where it
    differs from another), each cut said with its size: the code point at ``at`` is always
    shown, as on the other side, where :func:`render` would elide the middle."""
    if len(text) <= width:
        return _compact(text)
    start = max(0, min(at - width // 3, len(text) - width))
    end = min(len(text), start + width)
    head = f"…({start} code points)…" if start else ""
    tail = f"…({len(text) - end} more)" if end < len(text) else ""
    return f"{head}{_compact(text[start:end])}{tail}"


def member_path(path: str, key: str) -> str:
    """``$.a`` for a plain name, ``$["a b"]`` otherwise."""
    if re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", key):
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key)}]"


# -- the first difference -------------------------------------------------------------------------


@dataclass(frozen=True)
class Difference:
    """Where two JSON values first differ: the path, both values there, and how they differ."""

    path: str
    #: The answer's value at :attr:`path`, or :data:`MISSING`.
    got: Any
    #: The expected value at :attr:`path`, or :data:`MISSING`.
    want: Any
    #: One clause saying how they differ, with the values.
    how: str

    def __str__(self) -> str:
        return f"at {self.path}: {self.how}"


CONTROL_NAMES = {
    0x00: "NUL", 0x07: "BEL", 0x08: "BACKSPACE", 0x09: "TAB", 0x0A: "LINE FEED",
    0x0C: "FORM FEED", 0x0D: "CARRIAGE RETURN", 0x1B: "ESC", 0x7F: "DELETE",
}


def describe_char(char: str) -> str:
    """``U+2028 LINE SEPARATOR`` and the like, for one code point."""
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        half = "high" if code < 0xDC00 else "low"
        return f"U+{code:04X} (a lone {half} surrogate)"
    name = CONTROL_NAMES.get(code) or unicodedata.name(char, "")
    if not name and code < 0x20:
        name = "(a control character)"
    return f"U+{code:04X} {name}".rstrip()


def first_difference(got: Any, want: Any, *, numbers: Numbers = "exact",
                     path: str = "$") -> Difference | None:
    """The first place ``got`` differs from ``want``, or None when they are the same JSON."""
    if same_json(got, want, numbers=numbers):
        return None
    got_kind, want_kind = kind(got), kind(want)
    if got_kind != want_kind:
        return Difference(path, got, want, (
            f"yours is {got_kind} {render(got, 80)}, expected {want_kind} {render(want, 80)}"))
    if got_kind == "object":
        left, right = _members(got), _members(want)
        for key, item in want.items():
            unit = utf16(key) if isinstance(key, str) else key
            if unit not in left:
                return Difference(member_path(path, key), MISSING, item, (
                    f"member {render(key)} is missing (expected {render(item, 80)})"))
        for key, item in got.items():
            unit = utf16(key) if isinstance(key, str) else key
            if unit not in right:
                return Difference(member_path(path, key), item, MISSING, (
                    f"member {render(key)} should not be there (yours: {render(item, 80)})"))
        for key, item in want.items():
            unit = utf16(key) if isinstance(key, str) else key
            found = first_difference(left[unit], item, numbers=numbers,
                                     path=member_path(path, key))
            if found is not None:
                return found
    if got_kind == "array":
        for index, (x, y) in enumerate(zip(got, want, strict=False)):
            found = first_difference(x, y, numbers=numbers, path=f"{path}[{index}]")
            if found is not None:
                return found
        shorter = min(len(got), len(want))
        return Difference(
            f"{path}[{shorter}]",
            got[shorter] if len(got) > shorter else MISSING,
            want[shorter] if len(want) > shorter else MISSING,
            f"yours has {len(got)} elements, expected {len(want)}")
    if got_kind == "string":
        at = next((i for i, (x, y) in enumerate(zip(got, want, strict=False)) if x != y),
                  min(len(got), len(want)))
        what = f"yours has {describe_char(got[at])}" if at < len(got) else "yours ends"
        instead = (f"expected {describe_char(want[at])}" if at < len(want)
                   else "expected the end")
        return Difference(path, got, want, (
            f"the strings differ at code point {at}: {what}, {instead} "
            f"(yours {around(got, at)}, expected {around(want, at)})"))
    return Difference(path, got, want, f"yours is {render(got, 80)}, expected {render(want, 80)}")


# -- JSON text for files ------------------------------------------------------------------------

_UNSAFE_IN_STRING = re.compile("[\x85\u2028\u2029\ud800-\udfff]")


def _escape_unsafe(text: str) -> str:
    # In json.dumps output these characters only occur inside strings, where "\uXXXX" is the JSON
    # escape of exactly that code unit: the text stays valid JSON for the same value (RFC 8259 §7).
    return _UNSAFE_IN_STRING.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


#: Nesting beyond this depth is written as a labelled string (the harness's own inputs never come
#: close; only an answer can be this deep).
MAX_WRITTEN_DEPTH: Final = 200
#: Integers with more digits than this are written as a labelled string.
_MAX_WRITTEN_DIGITS = 4300


def _label_number(value: float) -> str:
    literal = getattr(value, "literal", None)
    if literal is not None:  # read from an answer: 1e400 (see _protocol.BeyondDouble)
        return f"[not JSON-representable: the number {literal[:80]}, beyond any double]"
    return f"[not JSON: {'NaN' if math.isnan(value) else ('-' if value < 0 else '') + 'Infinity'}]"


def _label_other(value: Any) -> str:
    # The same words for the same value in every run: no memory address, nothing a __repr__ that
    # raises or never ends could do to the report.
    text = foreign_text(lambda: repr(value), "the value", passes=(KeyboardInterrupt,))
    return f"[not JSON: a value of type {type(value).__name__}: {text}]"


def _strict_leaf(value: Any) -> Any:
    """A JSON scalar as it is, or the labelled string that stands for a non-JSON one."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        if value.bit_length() > _MAX_WRITTEN_DIGITS * 3.33:
            return f"[not shown: an integer of about {int(value.bit_length() / 3.3219)} digits]"
        return int(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else _label_number(value)
    return _label_other(value)


def strict_json_value(value: Any) -> Any:
    """A copy of ``value`` that strict JSON (RFC 8259) can hold, built without recursion: NaN, the
    infinities, numbers beyond any double, values of other types and nesting deeper than
    :data:`MAX_WRITTEN_DEPTH` become labelled strings (``"[not JSON: Infinity]"``), non-string
    keys strings, tuples lists. Never raises."""
    if not isinstance(value, list | tuple | Mapping):
        return _strict_leaf(value)
    root: list[Any] = []
    # (source container, target container, depth of the source)
    stack: list[tuple[Any, Any, int]] = [(value, root, 1)]
    first = True
    while stack:
        source, target, depth = stack.pop()
        items: Any = source.items() if isinstance(source, Mapping) else enumerate(source)
        if first:
            first = False
            result: Any = {} if isinstance(source, Mapping) else []
            root.append(result)
            target = result
        for key, item in items:
            if isinstance(item, list | tuple | Mapping):
                if depth >= MAX_WRITTEN_DEPTH:
                    copy: Any = f"[not shown: nested deeper than {MAX_WRITTEN_DEPTH} levels]"
                else:
                    copy = {} if isinstance(item, Mapping) else []
                    stack.append((item, copy, depth + 1))
            else:
                copy = _strict_leaf(item)
            if isinstance(target, dict):
                target[key if isinstance(key, str) else str(_strict_leaf(key))] = copy
            else:
                target.append(copy)
    return root[0]


def dumps_json(value: Any, *, indent: int | None = None) -> str:
    """``value`` as strict JSON text any UTF-8 file can hold: non-ASCII kept, lone surrogates
    escaped, anything JSON cannot hold as a labelled string (:func:`strict_json_value`)."""
    return _dump(strict_json_value(value), indent)


def _dump(value: Any, indent: int | None = None) -> str:
    """``value``, already strict, as text (never NaN or Infinity: refused, not written)."""
    return _escape_unsafe(json.dumps(value, indent=indent, ensure_ascii=False, allow_nan=False))


def pretty_json(value: Any) -> str:
    """``value`` as indented JSON, keys in their original order (member order matters, wire.md
    §6.4)."""
    return dumps_json(value, indent=2)


def readable_json(value: Any, width: int = 120) -> str:
    """``value`` as JSON for reading: a value whose compact form fits on its line stays on one
    line (one event per line in a log), larger ones open up, indented by two. Key order is kept.
    Strict JSON whatever ``value`` holds (:func:`strict_json_value`)."""
    return _readable(strict_json_value(value), 0, 0, width)


def _readable(value: Any, indent: int, taken: int, width: int) -> str:
    compact = _dump(value)
    if not isinstance(value, list | dict) or not value or indent + taken + len(compact) <= width:
        return compact
    inner = " " * (indent + 2)
    if isinstance(value, list):
        items = [inner + _readable(item, indent + 2, 0, width) for item in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    members = []
    for key, member in value.items():
        label = _dump(key) + ": "
        members.append(inner + label + _readable(member, indent + 2, len(label), width))
    return "{\n" + ",\n".join(members) + "\n" + " " * indent + "}"
