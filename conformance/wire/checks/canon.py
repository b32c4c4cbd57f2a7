"""Checks of the ``canon`` rules (spec/wire.md §6): well-formed, canonical bytes."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from eventproof.reference import MARKER

from ..._json import describe_char, member_path, well_formed
from ..._model import Case, Violation, judges
from ..explain import (
    explain_bytes,
    project_view,
    same_json,
    shown,
)

#: A JSON escape of a surrogate code point (either case), paired or not.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")


def _surrogate_in(value: Any, path: str = "$") -> tuple[str, str, int] | None:
    """The first string (or member name) holding a surrogate: (path, string, index)."""
    if isinstance(value, str):
        for index, char in enumerate(value):
            if 0xD800 <= ord(char) <= 0xDFFF:
                return path, value, index
    elif isinstance(value, Mapping):
        for key, item in value.items():
            found = _surrogate_in(key, f"the member name at {member_path(path, key)}") or \
                _surrogate_in(item, member_path(path, key))
            if found:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = _surrogate_in(item, f"{path}[{index}]")
            if found:
                return found
    return None


_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.DOTALL)
_REPLACEMENT_ESCAPE = "\\ufffd"


def well_formed_line(text: str) -> str:
    """``text`` (a line) with every lone surrogate replaced by U+FFFD, raw or escaped, and
    nothing else changed: the one repair the "lone surrogate kept" cause names (each
    replacement takes the bytes of what it replaces: 3 raw, 6 escaped)."""
    text = well_formed(text)
    if "\\u" not in text.lower():
        return text
    pieces: list[str] = []
    last = 0
    escapes = list(_ESCAPE.finditer(text))
    index = 0
    while index < len(escapes):
        escape = escapes[index]
        body = escape.group(1)
        code = int(body[1:], 16) if len(body) == 5 and body[0] in "uU" else -1
        if 0xD800 <= code <= 0xDBFF and index + 1 < len(escapes):
            after = escapes[index + 1]
            low = after.group(1)
            if (after.start() == escape.end() and len(low) == 5 and low[0] in "uU"
                    and 0xDC00 <= int(low[1:], 16) <= 0xDFFF):
                index += 2  # a pair: one astral character
                continue
        if 0xD800 <= code <= 0xDFFF:
            pieces += [text[last:escape.start()], _REPLACEMENT_ESCAPE]
            last = escape.end()
        index += 1
    return "".join(pieces) + text[last:]


def repair_lone_surrogates(answer: Any) -> Any:
    """A ``project`` answer with its line made well formed (:func:`well_formed_line`)."""
    if isinstance(answer, Mapping) and isinstance(answer.get("line"), str):
        return {**answer, "line": well_formed_line(answer["line"])}
    return answer


@judges("canon.utf8")
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
            "with U+FFFD (bytes ef bf bd) before encoding (wire.md §6.1)"),
            kind="raw surrogate code point", cause=True)
        return
    # Without a raw one, a surrogate can only reach the value through a \uD800-\uDFFF escape:
    # a line that holds none is well-formed without a walk through its value.
    if not line.parsed or _SURROGATE_ESCAPE.search(line.text) is None:
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
    kind, cause = "lone surrogate kept", True
    if (view.is_update and path == "$.partialResult.content[0].text"
            and string.startswith(MARKER) and index == len(MARKER) and ord(char) >= 0xDC00):
        kind, cause = "surrogate pair split by the tail", False
        message = (f"your tail begins with a lone low surrogate ({describe_char(char)}, written "
                   f"{escape}): it split a surrogate pair, keeping the low half of an astral "
                   "character (count code points, not UTF-16 units: a tail never starts inside "
                   f"a character, wire.md §5.5). {message}")
    yield Violation("canon.utf8", message, kind=kind, cause=cause)


@judges("canon.bytes")
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




