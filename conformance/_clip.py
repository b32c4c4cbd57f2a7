"""Bounded reports: every string that comes from the implementation under test is clipped to a
documented size where it enters the results model, so no report, console line or case file is
larger because of what a program sent (spec/protocol.md §2.3, docs/read-a-failure.md).

A clipped string keeps its beginning (the end, for stderr) and says how long it was and the
first 16 hex digits of the SHA-256 of its UTF-8 form, so two clipped strings that differ are
told apart, and a clipped string is at most its limit long. Clipping is idempotent: what is
within its limit is returned as it is. The inputs, the kit's own, are never clipped.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any, Final, Literal

__all__ = [
    "IDENTITY_CHARACTERS",
    "MESSAGE_CHARACTERS",
    "STDERR_CHARACTERS",
    "TEXT_CHARACTERS",
    "VALUE_CHARACTERS",
    "clip_identity",
    "clip_text",
    "clip_value",
    "digest",
    "error_text",
    "foreign_text",
    "one_line",
]

#: Each member of the implementation's identity (its handshake's ``name``, ``version`` …).
IDENTITY_CHARACTERS: Final = 120
#: Each string inside an answer, a skip reason, an ``errored`` message.
TEXT_CHARACTERS: Final = 2000
#: A failure's explanation and a rule's note (they quote the implementation).
MESSAGE_CHARACTERS: Final = 4000
#: An excerpt of the implementation's stderr (its newest characters are kept).
STDERR_CHARACTERS: Final = 8000
#: A whole answer as JSON text, about: beyond it, arrays and objects are cut short.
VALUE_CHARACTERS: Final = 20000
#: How deep an answer is shown (deeper than the 200 levels past which the engine already
#: writes a note); deeper values are replaced by a note.
VALUE_DEPTH: Final = 256


def digest(text: str) -> str:
    """The first 16 hex digits of the SHA-256 of ``text`` (UTF-8; lone surrogates kept)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _note(text: str) -> str:
    return f"[clipped: {len(text)} characters in all, sha256 {digest(text)}]"


def clip_text(text: str, limit: int = TEXT_CHARACTERS, *,
              keep: Literal["start", "end"] = "start") -> str:
    """``text`` when it is at most ``limit`` characters; else its beginning (or end) and a note
    of its length and digest, ``limit`` characters in all."""
    if len(text) <= limit:
        return text
    note = _note(text)
    room = max(0, limit - len(note) - 2)
    if keep == "end":
        return f"{note} …{text[len(text) - room:]}" if room else note[:limit]
    return f"{text[:room]}… {note}" if room else note[:limit]


def clip_identity(identity: dict[str, Any]) -> dict[str, Any]:
    """The implementation's identity with each string member clipped to
    :data:`IDENTITY_CHARACTERS` and any other member to a small value."""
    clipped = {clip_text(str(name), IDENTITY_CHARACTERS):
               clip_text(value, IDENTITY_CHARACTERS) if isinstance(value, str)
               else clip_value(value, IDENTITY_CHARACTERS * 4, IDENTITY_CHARACTERS)
               for name, value in identity.items()}
    return identity if clipped == identity else clipped


def clip_value(value: Any, limit: int = VALUE_CHARACTERS,
               text_limit: int = TEXT_CHARACTERS) -> Any:
    """The JSON value ``value`` (an answer) shown within about ``limit`` characters: each string
    clipped to ``text_limit``, and arrays and objects cut short, with a note of what was left
    out, once the room is spent. ``value`` itself when it is within both limits."""
    if _within(value, limit, text_limit):
        return value
    room = [limit // 2]
    return _clip(value, room, text_limit, 0)


def _within(value: Any, limit: int, text_limit: int) -> bool:
    """Whether ``value`` needs no clipping (a walk that stops once the answer is known)."""
    left = limit
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > VALUE_DEPTH:
            return False
        if isinstance(item, str):
            if len(item) > text_limit:
                return False
            left -= len(item) + 2
        elif isinstance(item, dict):
            left -= 2
            for name, each in item.items():
                if not isinstance(name, str) or len(name) > text_limit:
                    return False
                left -= len(name) + 3
                stack.append((each, depth + 1))
        elif isinstance(item, list | tuple):
            left -= 2
            stack.extend((each, depth + 1) for each in item)
        else:
            left -= _cost(item)
        if left < 0:
            return False
    return True


def _clip(value: Any, room: list[int], text_limit: int, depth: int) -> Any:
    if isinstance(value, str):
        shown = clip_text(value, text_limit)
        room[0] -= len(shown) + 2
        return shown
    if depth >= VALUE_DEPTH and isinstance(value, dict | list | tuple):
        room[0] -= 60
        return f"[clipped: an {'object' if isinstance(value, dict) else 'array'} nested " \
               f"deeper than {VALUE_DEPTH}]"
    if isinstance(value, dict):
        room[0] -= 2
        members: dict[str, Any] = {}
        for index, (name, each) in enumerate(value.items()):
            if room[0] <= 0:
                members[f"[clipped: {len(value) - index} more members]"] = "…"
                break
            key = clip_text(str(name), text_limit)
            room[0] -= len(key) + 3
            members[key] = _clip(each, room, text_limit, depth + 1)
        return members
    if isinstance(value, list | tuple):
        room[0] -= 2
        items: list[Any] = []
        for index, each in enumerate(value):
            if room[0] <= 0:
                items.append(f"[clipped: {len(value) - index} more items]")
                break
            items.append(_clip(each, room, text_limit, depth + 1))
        return items
    room[0] -= _cost(value)
    return value


def _cost(scalar: Any) -> int:
    """About the characters a number, boolean or null takes as JSON."""
    if isinstance(scalar, int) and not isinstance(scalar, bool) and scalar.bit_length() > 64:
        return scalar.bit_length() // 3
    return 8


# -- what the harness says about a foreign object -------------------------------------------------

#: ``<generator object f at 0x7f…>``: the part of a default repr that changes from run to run.
_ADDRESS = re.compile(r"\s+at\s+0x[0-9A-Fa-f]+")
#: The longest description of a foreign object the harness writes.
FOREIGN_CHARACTERS: Final = 200


def foreign_text(call: Callable[[], object], what: str, limit: int = FOREIGN_CHARACTERS, *,
                 passes: tuple[type[BaseException], ...] = ()) -> str:
    """The text ``call`` makes of an object the implementation gave (``str(error)``,
    ``repr(value)``), made safe to write: whatever ``__str__``/``__repr__`` raise or return
    becomes a fixed description, and memory addresses are removed, so the same misbehaviour is
    always described alike (a stability check compares these). Exceptions of the types in
    ``passes`` (the harness's own interruption) go through."""
    try:
        text = call()
    except RecursionError:
        return f"[{what} is nested too deeply to show]"
    except BaseException as error:  # foreign code: anything may come out
        if isinstance(error, passes):
            raise
        return f"[{what} raised {type(error).__name__} when converted to text]"
    if not isinstance(text, str):
        return f"[{what} converted to a {type(text).__name__}, not text]"
    text = _ADDRESS.sub("", text)
    if len(text) > limit:
        text = f"{text[:limit]}… ({len(text)} characters in all)"
    return text


def error_text(error: BaseException) -> str:
    """``"<exception type>: <message>"`` for an exception the implementation raised
    (spec/protocol.md §8), never raising and never holding a memory address."""
    return (f"{type(error).__name__}: "
            f"{foreign_text(lambda: str(error), 'the message', TEXT_CHARACTERS)}")


#: Line breaks, as ``str.splitlines`` knows them.
_BREAKS = re.compile("[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def one_line(text: str) -> str:
    """``text`` with every line break written as its escape (``\\n``): a field from outside
    shown on one line (a name, a version) cannot start a line of its own and pass for the
    kit's."""
    return _BREAKS.sub(lambda match: {"\n": "\\n", "\r": "\\r"}.get(
        match.group(), f"\\x{ord(match.group()):02x}" if ord(match.group()) < 0x100
        else f"\\u{ord(match.group()):04x}"), text)
