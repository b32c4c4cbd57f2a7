"""Implementations whose answer to one input changes from one ask to the next.

Each answers ``select`` like the reference, or with one text block added (always wrong), as a
rule of its own decides: by a call counter, at random (seeded per call, so every run of the
tests is the same), or by the parity of a clock. The harness must report each ``unstable``,
never ``pass`` and never a plain ``fail``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from miniatures import Miniature

#: Whether call number N (from 1) is answered wrong: None for right, else the added text.
WrongOn = Callable[[int], str | None]


class Unstable(Miniature):
    """The reference, except that ``select`` adds a text block when ``wrong_on`` says so."""

    name = "unstable"

    def __init__(self, wrong_on: WrongOn, description: str = "") -> None:
        super().__init__()
        self.wrong_on = wrong_on
        self.description = description
        self.calls = 0

    def select(self, input: Any) -> Any:
        self.calls += 1
        right = self.reference.run("select", input)
        added = self.wrong_on(self.calls)
        if added is None:
            return right
        return [*(right or []), {"type": "text", "text": added}]

    def __repr__(self) -> str:
        return f"Unstable({self.description})"


def by_counter(pattern: tuple[bool, ...]) -> WrongOn:
    """Wrong on the calls whose number modulo the pattern's length is marked True."""
    return lambda call: "counted" if pattern[call % len(pattern)] else None


def at_random(seed: int, rate: float) -> WrongOn:
    """Wrong with probability ``rate``, each time with another text, drawn per call from a
    generator seeded by ``seed`` and the call number."""
    def wrong_on(call: int) -> str | None:
        draw = random.Random(f"{seed}:{call}")
        return f"random {draw.getrandbits(64)}" if draw.random() < rate else None
    return wrong_on


def by_clock_parity(start: float, tick: int) -> WrongOn:
    """Always wrong, with a text that names the parity of a clock which moves ``tick`` seconds
    (an odd number) per call, from ``start``: the answer flips at every call."""
    return lambda call: "even" if int(start + call * tick) % 2 == 0 else "odd"


class WrongAtRandom(Unstable):
    """Wrong at random (seeded per call): ``python:miniatures.unstable:WrongAtRandom``."""

    name = "wrong-at-random"

    def __init__(self) -> None:
        super().__init__(at_random(2026, 0.5), "at random, seed 2026, rate 0.5")


class AlwaysTheSameWrong(Unstable):
    """Wrong the same way on every call: a stable bug, reported ``fail``, never ``unstable``."""

    name = "always-the-same-wrong"

    def __init__(self) -> None:
        super().__init__(lambda call: "always", "always the same wrong answer")
