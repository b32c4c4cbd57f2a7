"""Pickling whose depth is bounded whatever the values hold: what crosses between processes of
``--jobs`` (a search's result, with the answers a program sent) never runs out of stack.

:func:`dumps` pickles every list and dict (the containers of a JSON value, at any depth) as a
flat sequence of tokens, built and rebuilt with an explicit stack, so that a 100,000-deep answer
costs memory in proportion to its size and no recursion at all; :func:`loads` reads it back as
the same value. Anything else pickles as :mod:`pickle` pickles it.
"""

from __future__ import annotations

import io
import pickle
from typing import Any

__all__ = ["dumps", "loads"]

_LIST, _DICT, _LEAF = 0, 1, 2
#: The persistent id's tag.
_FLAT = "eventproof-flat"


def _flatten(value: list[Any] | dict[Any, Any]) -> tuple[Any, ...] | None:
    """``value`` as ``(kind, n)`` and ``(_LEAF, leaf)`` tokens in depth-first order; None when a
    container holds itself (a cycle, which :mod:`pickle`'s memo handles)."""
    tokens: list[Any] = []
    # Each entry: a container still being walked, with an iterator over its parts.
    on_path: set[int] = set()
    stack: list[tuple[int, Any]] = []

    def enter(item: Any) -> bool:
        kind = type(item)
        if kind is list:
            tokens.append((_LIST, len(item)))
            parts: Any = iter(item)
        elif kind is dict:
            tokens.append((_DICT, len(item)))
            parts = (part for pair in item.items() for part in pair)
        else:
            tokens.append((_LEAF, item))
            return True
        if id(item) in on_path:
            return False
        on_path.add(id(item))
        stack.append((id(item), parts))
        return True

    if not enter(value):
        return None
    while stack:
        identity, parts = stack[-1]
        part = next(parts, _END)
        if part is _END:
            stack.pop()
            on_path.discard(identity)
        elif not enter(part):
            return None
    return tuple(tokens)


_END = object()


def _rebuild(tokens: tuple[Any, ...]) -> Any:
    """The value :func:`_flatten` made ``tokens`` of."""
    position = 0
    # Each entry: a container being filled and how many parts it still needs; a dict's key
    # waits in ``keys`` for its value.
    stack: list[list[Any]] = []
    result: Any = None
    while True:
        kind, content = tokens[position]
        position += 1
        if kind == _LEAF:
            item, count = content, 0
        else:
            item, count = ([] if kind == _LIST else {}), content * (1 if kind == _LIST else 2)
        if count:
            stack.append([item, count, _END])
            continue
        while True:  # place ``item`` in the container being filled, closing those now full
            if not stack:
                result = item
                break
            frame = stack[-1]
            container = frame[0]
            if isinstance(container, list):
                container.append(item)
            elif frame[2] is _END:
                frame[2] = item
            else:
                container[frame[2]] = item
                frame[2] = _END
            frame[1] -= 1
            if frame[1]:
                break
            stack.pop()
            item = container
        if not stack:
            return result


class _Pickler(pickle.Pickler):
    def persistent_id(self, obj: Any) -> Any:
        if type(obj) is list or type(obj) is dict:
            tokens = _flatten(obj)
            if tokens is not None:
                return (_FLAT, tokens)
        return None


class _Unpickler(pickle.Unpickler):
    def persistent_load(self, pid: Any) -> Any:
        if isinstance(pid, tuple) and len(pid) == 2 and pid[0] == _FLAT:
            return _rebuild(pid[1])
        raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")


def dumps(value: Any) -> bytes:
    """``value`` pickled with every list and dict flat (no recursion on their depth)."""
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return buffer.getvalue()


def loads(data: bytes) -> Any:
    """The value :func:`dumps` pickled."""
    return _Unpickler(io.BytesIO(data)).load()
