"""Checks of the ``roster`` operation (spec/budget.md §6): one per ``roster.*`` rule.

Each restates its rule from the input: the live record of every task record (§6.1), the size of
each prefix of them (§6.2), the count of the rest (§6.3).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..._json import well_formed
from ..._model import Case, Violation
from ._common import (
    ID_CLIP,
    LIVE_MEMBERS,
    LIVE_OUTPUT_BYTES,
    LIVE_TASK_BYTES,
    agreement,
    answered,
    cut,
    first_difference,
    shown,
    size,
)


def live_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """The live record of a task record, restated (budget.md §6.1)."""
    live: dict[str, Any] = {
        "id": well_formed(record["id"])[:ID_CLIP], "agent": well_formed(record["agent"])[:ID_CLIP],
        "status": record["status"], "task": cut(record["task"], LIVE_TASK_BYTES, "head"),
    }
    if "output" in record:
        live["output"] = cut(record["output"], LIVE_OUTPUT_BYTES, "tail")
    return live


def fitting_prefix(records: list[Mapping[str, Any]], max_bytes: int) -> tuple[int, list[int]]:
    """How many live records the longest fitting prefix holds, and the size of every prefix
    that was measured (``sizes[m]`` is the serialized array of the first ``m``)."""
    sizes = [2]
    for record in records:
        grown = sizes[-1] + size(live_record(record)) + (1 if len(sizes) > 1 else 0)
        if grown > max_bytes:
            sizes.append(grown)
            return len(sizes) - 2, sizes
        sizes.append(grown)
    return len(records), sizes


def _roster(case: Case) -> tuple[list[Any], Mapping[str, Any]] | None:
    results = answered(case, "results")
    if results is None:
        return None
    return results, case.actual


def check_allowlist(case: Case) -> Iterator[Violation]:
    """roster.allowlist (budget.md §6.1)."""
    found = _roster(case)
    if found is None:
        return
    results, _ = found
    for i, (record, live) in enumerate(zip(case.input["records"], results, strict=False)):
        where = f"$.results[{i}]"
        if not isinstance(live, Mapping):
            yield Violation("roster.allowlist", f"{where} is {shown(live)}, not a live record")
            return
        extra = [key for key in live if key not in LIVE_MEMBERS]
        if extra:
            spread = [key for key in extra if key in record]
            yield Violation("roster.allowlist", (
                f"{where} carries {shown(extra)}; a live record is exactly id, agent, status, "
                "task and output (budget.md §6.1)"
                + (": they come from the task record, so it was spread instead of built member "
                   "by member" if spread else "")))
            return
        want = live_record(record)
        difference = first_difference(dict(live), want, where)
        if difference is not None:
            yield Violation("roster.allowlist", (
                f"the live record of $.records[{i}] is {shown(want, 120)}; yours differs "
                f"{difference} (identity clipped to {ID_CLIP} code points, the task's head of "
                f"{LIVE_TASK_BYTES} bytes, the output's tail of {LIVE_OUTPUT_BYTES} bytes, "
                "budget.md §6.1)"))
            return
        if list(live) != list(want):
            yield Violation("roster.allowlist", (
                f"{where} has its members in the order {shown(list(live))}; a live record's "
                f"order is {shown(list(want))} (budget.md §6.1)"))
            return


def check_bounded(case: Case) -> Iterator[Violation]:
    """roster.bounded (budget.md §6.2)."""
    found = _roster(case)
    if found is None:
        return
    results, _ = found
    bound = case.input["maxBytes"]
    measured = size(results)
    if measured > bound:
        yield Violation("roster.bounded", (
            f"your roster's results serialize to {measured} bytes, over maxBytes {bound}, with "
            f"{len(results)} of {len(case.input['records'])} records: measure the UTF-8 bytes "
            "of the serialized array, after JSON escaping (a control character costs six "
            "bytes), and stop before the first record that does not fit (budget.md §6.2)"))


def check_prefix(case: Case) -> Iterator[Violation]:
    """roster.prefix (budget.md §6.2)."""
    found = _roster(case)
    if found is None:
        return
    results, _ = found
    records = case.input["records"]
    bound = case.input["maxBytes"]
    fits, sizes = fitting_prefix(records, bound)
    if len(results) < fits:
        yield Violation("roster.prefix", (
            f"your roster stops after {len(results)} records, but the first {fits} live records "
            f"serialize to {sizes[fits]} bytes, within maxBytes {bound}: keep the longest prefix "
            "that fits (budget.md §6.2)"))
    elif len(results) > fits and fits < len(records):
        yield Violation("roster.prefix", (
            f"your roster has {len(results)} records, but record {fits} does not fit: the first "
            f"{fits + 1} live records serialize to {sizes[fits + 1]} bytes, over maxBytes "
            f"{bound}, and the roster stops at the first record that does not fit "
            "(budget.md §6.2)"))


def check_count(case: Case) -> Iterator[Violation]:
    """roster.count (budget.md §6.3)."""
    found = _roster(case)
    if found is None:
        return
    results, roster = found
    left_out = len(case.input["records"]) - len(results)
    if left_out > 0 and roster.get("omittedResults") != left_out:
        got = roster.get("omittedResults") if "omittedResults" in roster else "absent"
        yield Violation("roster.count", (
            f"your roster shows {len(results)} of {len(case.input['records'])} records and its "
            f"omittedResults is {shown(got)}, expected {left_out}: a reader counting the "
            "roster would show the batch as "
            f"{len(results)}/{len(results) + (got if isinstance(got, int) else 0)} "
            "(budget.md §6.3)"))
    elif left_out <= 0 and "omittedResults" in roster:
        yield Violation("roster.count", (
            f"your roster holds every record and still has omittedResults "
            f"{shown(roster['omittedResults'])}; it is absent at zero (budget.md §6.3)"))


def check_agrees(case: Case) -> Iterator[Violation]:
    """roster.agrees (budget.md §6)."""
    yield from agreement("roster.agrees", case)


CHECKS = (check_allowlist, check_bounded, check_prefix, check_count, check_agrees)
CHECK_BY_RULE = {"roster.allowlist": check_allowlist, "roster.bounded": check_bounded,
                 "roster.prefix": check_prefix, "roster.count": check_count,
                 "roster.agrees": check_agrees}
