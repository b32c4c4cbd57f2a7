"""Checks of the ``lane`` operation (spec/budget.md §7): one per ``lane.*`` rule.

Each state is judged against its own update and the lane's merge restated from the updates
(§7.1): the real task count is the update's own total, never what the lane happens to show.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..._model import Case, Violation
from ._common import agreement, answered, first_difference, shown


def restated(updates: list[Mapping[str, Any]]) -> list[tuple[int, list[Any]]]:
    """Each update's total and the merged records after it (budget.md §7.1-7.2)."""
    merged: list[Any] = []
    out = []
    for update in updates:
        results = list(update["results"])
        total = len(results) + int(update.get("omittedResults", 0))
        merged = (results + merged[len(results):])[:total]
        out.append((total, merged))
    return out


def _states(case: Case) -> Iterator[tuple[int, Mapping[str, Any], int, list[Any]]]:
    states = answered(case, "states")
    if states is None:
        return
    for i, (state, (total, merged)) in enumerate(zip(states, restated(case.input["updates"]),
                                                     strict=False)):
        if isinstance(state, Mapping):
            yield i, state, total, merged


def _update_text(case: Case, i: int) -> str:
    update = case.input["updates"][i]
    omitted = update.get("omittedResults", 0)
    return f"update {i} carries {len(update['results'])} records and omittedResults {omitted}"


def check_merge(case: Case) -> Iterator[Violation]:
    """lane.merge (budget.md §7.1)."""
    for i, state, total, merged in _states(case):
        got = state.get("results")
        if not isinstance(got, list):
            continue
        if len(got) > total:
            yield Violation("lane.merge", (
                f"$.states[{i}].results holds {len(got)} records, but {_update_text(case, i)}: "
                f"its total is {total}, and records past it come from an older, larger roster "
                "(cap the merged roster at the update's total, budget.md §7.1)"))
            return
        difference = first_difference(got, merged, f"$.states[{i}].results")
        if difference is not None:
            yield Violation("lane.merge", (
                f"after {_update_text(case, i)}, the merged roster has {len(merged)} records "
                f"(the update's at their indexes, then the known records past them); yours "
                f"differs {difference} (budget.md §7.1)"))
            return


def check_total(case: Case) -> Iterator[Violation]:
    """lane.total (budget.md §7.2)."""
    states = answered(case, "states")
    if states is not None and len(states) != len(case.input["updates"]):
        yield Violation("lane.total", (
            f"the lane received {len(case.input['updates'])} updates and you answered "
            f"{len(states)} states: one state per update (budget.md §7)"))
        return
    for i, state, total, _ in _states(case):
        if state.get("total") != total:
            yield Violation("lane.total", (
                f"$.states[{i}].total is {shown(state.get('total'))}, but {_update_text(case, i)}"
                f": the real task count is {total}. Take it from every update's own total, "
                "never from what the lane shows or a count it kept (budget.md §7.2)"))
            return


def check_count(case: Case) -> Iterator[Violation]:
    """lane.count (budget.md §7.2)."""
    for i, state, total, merged in _states(case):
        want = total - len(merged)
        if want > 0 and state.get("omittedResults") != want:
            got = state.get("omittedResults") if "omittedResults" in state else "absent"
            yield Violation("lane.count", (
                f"$.states[{i}].omittedResults is {shown(got)}, expected {want}: "
                f"{_update_text(case, i)}, and the lane knows {len(merged)} of them. Recompute "
                "the count as the update's total minus the merged records after every merge; "
                "clearing it froze a 600-task lane at its prefix (budget.md §7.2)"))
            return
        if want <= 0 and "omittedResults" in state:
            yield Violation("lane.count", (
                f"$.states[{i}].omittedResults is {shown(state['omittedResults'])}, but the "
                f"merge recovered all {total} records ({_update_text(case, i)}): the count is "
                "absent at zero, and the update's own count must not survive the merge "
                "(budget.md §7.2)"))
            return


def check_agrees(case: Case) -> Iterator[Violation]:
    """lane.agrees (budget.md §7)."""
    yield from agreement("lane.agrees", case)


CHECKS = (check_total, check_count, check_merge, check_agrees)
CHECK_BY_RULE = {"lane.merge": check_merge, "lane.total": check_total, "lane.count": check_count,
                 "lane.agrees": check_agrees}
