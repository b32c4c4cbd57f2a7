"""What the budget checks share: the spec's measures restated, and values shown for a message.

The measures are restated here rather than imported from the reference, so that a check that
agrees with the reference agrees with the spec's text too: a string's cost is its UTF-8 bytes
inside a canonical string literal, quotes excluded (wire.md §6.5), and text is well-formed by a
UTF-16 round trip (wire.md §6.1).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any

from ..._json import first_difference as json_first_difference
from ..._json import well_formed
from ..._model import Case, Errored, ImplErrored, Violation

#: Identity members keep this many code points (budget.md §3.2).
ID_CLIP = 256
#: The heavy fields in a final record's member order (budget.md §3.1).
HEAVY = ("task", "output", "errorMessage", "stderr")
SIDE = {"task": "head", "output": "tail", "errorMessage": "head", "stderr": "tail"}
GROUP = {"task": "task", "output": "output", "errorMessage": "diagnostics",
         "stderr": "diagnostics"}
FLOOR_MEMBER = {"task": "taskFloorBytes", "output": "outputFloorBytes",
                "diagnostics": "diagnosticFloorBytes"}
CLAIM_ORDER = ("output", "errorMessage", "stderr", "task")
FAILED_CLAIM_ORDER = ("errorMessage", "stderr", "output", "task")
FINAL_MEMBERS = ("id", "agent", "status", "task", "output", "errorMessage", "stderr",
                 "truncated")
LIVE_MEMBERS = ("id", "agent", "status", "task", "output")
#: A live record keeps its task and output at these sizes (budget.md §6.1).
LIVE_TASK_BYTES = 64
LIVE_OUTPUT_BYTES = 128
_SHOWN = 60


@lru_cache(maxsize=4096)
def cost(text: str) -> int:
    """Bytes of well-formed ``text`` inside a canonical string literal, quotes excluded."""
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return len(text)
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogatepass")) - 2


def char_cost(char: str) -> int:
    return cost(char)


def size(value: Any) -> int:
    """Bytes of ``value`` serialized compactly, non-ASCII raw (the canonical size of the plain
    strings and arrays these checks measure)."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8", "surrogatepass"))


def cut(value: str, allowance: int, side: str) -> str:
    """The longest head or tail of well-formed ``value`` costing at most ``allowance``: a binary
    search over lengths (a longer head or tail never costs less)."""
    text = well_formed(value)
    if cost(text) <= allowance:
        return text
    low, high = 0, min(len(text), max(allowance, 0))  # each code point costs >= 1 byte
    while low < high:
        middle = (low + high + 1) // 2
        piece = text[:middle] if side == "head" else text[len(text) - middle:]
        if cost(piece) <= allowance:
            low = middle
        else:
            high = middle - 1
    return text[:low] if side == "head" else text[len(text) - low:]


def shown(value: Any, limit: int = _SHOWN) -> str:
    """``value`` as JSON (non-ASCII escaped), its middle elided when long, with its size."""
    try:
        text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) <= limit:
        return text
    what = (f"{len(value)} code points, {cost(well_formed(value))} bytes"
            if isinstance(value, str) else f"{len(text)} characters of JSON")
    return f"{text[: limit * 2 // 3]}…{text[-(limit // 4):]} ({what})"


def answered(case: Case, key: str) -> list[Any] | None:
    """The list under ``key`` of both answers, or None when either is not of the op's shape
    (the ``*.agrees`` check reports that) or the reference refused the input."""
    if isinstance(case.expected, Errored) or isinstance(case.actual, (Errored, ImplErrored)):
        return None
    actual = case.actual
    if not isinstance(actual, Mapping) or not isinstance(actual.get(key), list):
        return None
    return list(actual[key])


def is_object(value: Any) -> bool:
    return isinstance(value, Mapping)


def first_difference(got: Any, want: Any, path: str = "$") -> str | None:
    """Where two JSON values first differ and how, or None when they are the same JSON value
    (spec/protocol.md §1.1: the harness's one relation, :func:`.._json.first_difference`)."""
    found = json_first_difference(got, want, path=path)
    return None if found is None else str(found)


def agreement(rule: str, case: Case) -> Iterator[Violation]:
    """The answer equals the reference's (the catch-all of every budget operation)."""
    if isinstance(case.expected, Errored):
        return
    if isinstance(case.actual, (Errored, ImplErrored)):
        yield Violation(rule, (
            f"you answered errored ({case.actual.message[:200]}), but the input is valid: the "
            f"reference answers {shown(case.expected)}"))
        return
    found = first_difference(case.actual, case.expected)
    if found is not None:
        yield Violation(rule, f"your answer differs from the reference's {found}")
