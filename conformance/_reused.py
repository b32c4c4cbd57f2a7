"""Strategies drawn inside composites, built once and reused by every profile's strategies.

Building a strategy object inside every draw (and Hypothesis validating and labelling each new
one) costs more than drawing from it. Each strategy here is the very one a draw would build, so
every example draws the same choices and gets the same value.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from hypothesis import strategies as st

__all__ = ["BOOLEANS", "Cycle", "integers", "sampled"]

BOOLEANS = st.booleans()


@cache
def integers(min_value: int, max_value: int) -> st.SearchStrategy[int]:
    """``st.integers(min_value, max_value)``, built once per range."""
    return st.integers(min_value, max_value)


_SAMPLED: dict[tuple[Any, ...], st.SearchStrategy[Any]] = {}


def sampled(choices: Sequence[Any]) -> st.SearchStrategy[Any]:
    """``st.sampled_from(choices)``, built once per sequence (the key holds each element's type:
    ``(1, 0)`` and ``(True, False)`` are equal tuples, never the same choices)."""
    key = (choices, tuple(map(type, choices)))
    try:
        return _SAMPLED[key]
    except KeyError:
        strategy = _SAMPLED[key] = st.sampled_from(choices)
        return strategy


class Cycle:
    """Choices taken in turn from a start, for strategies that must meet every choice: each
    member (a name) goes through its choices on its own, so every member of a kind meets every
    edge once enough objects carry it, whatever the draw and whichever others are present."""

    def __init__(self, start: int = 0) -> None:
        self.start = start
        self.taken: dict[tuple[Any, str], int] = {}

    def pick(self, choices: Sequence[Any], member: str = "") -> Any:
        """The next of ``choices`` for ``member``. Choices are told apart by value (a tuple
        built anew for each pick is the same choices), or by identity when they hold values
        that cannot be hashed: such choices must be built once (module constants)."""
        try:
            key: tuple[Any, str] = (choices, member)
            at = self.taken[key] = self.taken.get(key, self.start) + 1
        except TypeError:
            key = (id(choices), member)
            at = self.taken[key] = self.taken.get(key, self.start) + 1
        return choices[at % len(choices)]
