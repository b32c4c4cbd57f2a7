"""Checks of the ``publish`` operation (spec/budget.md §8): one per ``publish.*`` rule.

The timeline is read once (§8.1): the call's changes, grouped by instant, the return's time and
the late callbacks. Each check then judges the implementation's publishes against it directly.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..._model import Case, Violation
from ._common import agreement, answered, shown


@dataclass
class Timeline:
    window: int
    #: (at, state) of each instant's last change before the return, in time order.
    instants: list[tuple[int, Any]]
    returned: int
    late: list[tuple[int, Any]]

    def latest(self, at: int) -> tuple[int, Any] | None:
        found = None
        for instant in self.instants:
            if instant[0] <= at:
                found = instant
        return found


def timeline(op_input: Mapping[str, Any]) -> Timeline:
    instants: list[tuple[int, Any]] = []
    late: list[tuple[int, Any]] = []
    returned: int | None = None
    for event in op_input["events"]:
        if event["kind"] == "return":
            returned = event["at"]
        elif returned is not None:
            late.append((event["at"], event["state"]))
        elif instants and instants[-1][0] == event["at"]:
            instants[-1] = (event["at"], event["state"])
        else:
            instants.append((event["at"], event["state"]))
    assert returned is not None  # the schema requires one return
    return Timeline(op_input["intervalMs"], instants, returned, late)


def _publishes(case: Case) -> list[tuple[int, Any]] | None:
    publishes = answered(case, "publishes")
    if publishes is None:
        return None
    out = []
    for publish in publishes:
        if not isinstance(publish, Mapping) or not isinstance(publish.get("at"), int) \
                or "state" not in publish:
            return None  # not the op's shape: publish.agrees
        out.append((publish["at"], publish["state"]))
    return out


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def check_window(case: Case) -> Iterator[Violation]:
    """publish.window (budget.md §8.2)."""
    publishes = _publishes(case)
    if publishes is None:
        return
    line = timeline(case.input)
    for k in range(1, len(publishes)):
        (before, _), (at, _) = publishes[k - 1], publishes[k]
        if at < before:
            yield Violation("publish.window", (
                f"$.publishes[{k}] is at {at} ms, before $.publishes[{k - 1}] at {before} ms: "
                "publishes are in time order (budget.md §8.2)"))
            return
        flush = k == len(publishes) - 1 and at == line.returned and before < at
        if at - before < line.window and not flush:
            kinds = sorted({event["kind"] for event in case.input["events"]
                            if before < event["at"] <= at and event["kind"] != "return"})
            yield Violation("publish.window", (
                f"you published at {before} ms and again at {at} ms, {at - before} ms apart, "
                f"inside one {line.window} ms window (the changes between were "
                f"{', '.join(kinds) or 'none'}): publish at most once per window, status "
                "transitions included; only the terminal flush at the return may come sooner "
                "(budget.md §8.2; publishing every transition made a batch O(tasks²))"))
            return


def check_latest(case: Case) -> Iterator[Violation]:
    """publish.latest (budget.md §8.2)."""
    publishes = _publishes(case)
    if publishes is None:
        return
    line = timeline(case.input)
    for k, (at, state) in enumerate(publishes):
        if at > line.returned:
            continue  # publish.after-return
        latest = line.latest(at)
        if latest is None:
            yield Violation("publish.latest", (
                f"$.publishes[{k}] at {at} ms carries {shown(state)}, but no change happened at "
                "or before that time (budget.md §8.2)"))
            return
        if not _same(state, latest[1]) and not any(_same(state, s) for _, s in line.late):
            yield Violation("publish.latest", (
                f"$.publishes[{k}] at {at} ms carries {shown(state)}, but the newest state "
                f"then is {shown(latest[1])}, from the change at {latest[0]} ms: a coalesced "
                "publish carries the newest state, never a stale one (budget.md §8.2)"))
            return


def check_terminal(case: Case) -> Iterator[Violation]:
    """publish.terminal (budget.md §8.3)."""
    publishes = _publishes(case)
    if publishes is None:
        return
    line = timeline(case.input)
    if not line.instants:
        return
    at, terminal = line.instants[-1]
    before = [publish for publish in publishes if publish[0] <= line.returned]
    if not before or not _same(before[-1][1], terminal):
        last = (f"your last publish before it is {shown(before[-1][1])} at {before[-1][0]} ms"
                if before else "you published nothing before it")
        yield Violation("publish.terminal", (
            f"the terminal state is {shown(terminal)} (the change at {at} ms) and the call "
            f"returns at {line.returned} ms, but {last}: flush the pending state before the "
            "call returns (budget.md §8.3)"))


def check_after_return(case: Case) -> Iterator[Violation]:
    """publish.after-return (budget.md §8.3)."""
    publishes = _publishes(case)
    if publishes is None:
        return
    line = timeline(case.input)
    for k, (at, state) in enumerate(publishes):
        stale = not any(_same(state, s) for _, s in line.instants) and any(
            _same(state, s) for _, s in line.late)
        if at > line.returned or stale:
            yield Violation("publish.after-return", (
                f"$.publishes[{k}] at {at} ms carries {shown(state)}, but the call returned at "
                f"{line.returned} ms" + (" and that state is a late callback's" if stale else "")
                + ": callbacks after the return are dropped, and nothing is published into the "
                "closed stream (budget.md §8.3)"))
            return


def check_agrees(case: Case) -> Iterator[Violation]:
    """publish.agrees (budget.md §8)."""
    yield from agreement("publish.agrees", case)


CHECKS = (check_after_return, check_window, check_terminal, check_latest, check_agrees)
CHECK_BY_RULE = {"publish.window": check_window, "publish.latest": check_latest,
                 "publish.terminal": check_terminal, "publish.after-return": check_after_return,
                 "publish.agrees": check_agrees}
