"""Running one check on several cores, or one slice of it per machine.

The searches of different operations share nothing: each has its own input families, its own
derandomized digests and its own book-keeping. So a run can be split by operation, each slice
checked by its own worker process with its own copy of the implementation, and the reports joined
afterwards. In deterministic mode every slice asks exactly the questions the whole run would, so
the verdicts and counterexamples are the same as with one process.

- :func:`shard_ops` picks the operations of slice ``K/N`` (``--shard``): a CI matrix of N jobs
  checks one slice each, and ``eventproof report --merge`` joins their JSON reports.
- :func:`check_in_parallel` runs the slices in ``jobs`` worker processes (``--jobs``).
"""

from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from typing import Any

from ._engine import RunReport, check_implementation
from ._errors import HarnessError
from ._operations import OPS

#: Rough relative cost of each operation's search, for balancing the slices (project holds the
#: byte-bound families and is the heaviest by far).
_WEIGHT = {"project": 6, "settle": 2, "details": 2, "select": 1, "fold": 1, "classify": 1,
           "roster": 1, "lane": 1, "publish": 1}


def parse_shard(value: str) -> tuple[int, int]:
    """``"2/3"`` -> ``(2, 3)``; :class:`HarnessError` naming the value otherwise."""
    index, _, total = value.partition("/")
    try:
        k, n = int(index), int(total)
    except ValueError:
        k, n = 0, 0
    if not (n >= 1 and 1 <= k <= n):
        raise HarnessError(f"--shard {value!r} is not K/N with 1 <= K <= N (e.g. --shard 1/3): "
                           "give the slice number and the number of slices")
    return k, n


def split_ops(ops: tuple[str, ...], parts: int) -> list[tuple[str, ...]]:
    """``ops`` in ``parts`` groups of about equal cost (heaviest first, each to the lightest
    group), each group in table order; empty groups are dropped."""
    groups: list[list[str]] = [[] for _ in range(max(1, parts))]
    cost = [0] * len(groups)
    for op in sorted(ops, key=lambda name: (-_WEIGHT.get(name, 1), OPS.index(name)
                                            if name in OPS else 0)):
        lightest = cost.index(min(cost))
        groups[lightest].append(op)
        cost[lightest] += _WEIGHT.get(op, 1)
    order = {name: index for index, name in enumerate(OPS)}
    return [tuple(sorted(group, key=lambda name: order.get(name, len(order))))
            for group in groups if group]


def shard_ops(ops: tuple[str, ...], shard: tuple[int, int]) -> tuple[str, ...]:
    """The operations of slice ``K`` of ``N`` (the same split on every machine)."""
    k, n = shard
    groups = split_ops(ops, n)
    return groups[k - 1] if k <= len(groups) else ()


def merge_reports(reports: list[RunReport], *, duration: float | None = None) -> RunReport:
    """One report of the disjoint slices ``reports``, results in table order."""
    if not reports:
        raise HarnessError("nothing to merge: no report was given")
    first = reports[0]
    order = {op: index for index, op in enumerate(OPS)}
    results = sorted((result for report in reports for result in report.results),
                     key=lambda result: order.get(result.rule.op, len(order)))
    seen: set[str] = set()
    for result in results:
        if result.rule.id in seen:
            raise HarnessError(f"rule {result.rule.id} appears in more than one report: merge "
                               "the reports of disjoint slices (--shard K/N of one N)")
        seen.add(result.rule.id)
    cut = next((report.cut_short for report in reports if report.cut_short), "")
    checked = {result.rule.op for result in results}
    ops = None if checked >= set(OPS) else tuple(op for op in OPS if op in checked)
    return replace(
        first, results=results, calls=sum(report.calls for report in reports),
        duration=duration if duration is not None else max(r.duration for r in reports),
        cut_short=cut,
        invocation=None if first.invocation is None else replace(first.invocation, ops=ops),
    )


def _run_slice(arguments: tuple[Any, tuple[str, ...], dict[str, Any]]) -> RunReport:
    impl, ops, options = arguments
    return check_implementation(impl, ops=ops, **options)


def check_in_parallel(impl: str, *, ops: tuple[str, ...], jobs: int,
                      **options: Any) -> RunReport:
    """Check ``impl`` with the operations spread over ``jobs`` worker processes, each with its
    own copy of the implementation; the report is the merge of the slices. ``options`` are
    :func:`check_implementation`'s (a progress callback is not passed to the workers)."""
    groups = split_ops(ops, jobs)
    if len(groups) <= 1:
        return check_implementation(impl, ops=ops, **options)
    options = {key: value for key, value in options.items() if key != "on_progress"}
    started = time.perf_counter()
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=len(groups), mp_context=context) as pool:
        reports = list(pool.map(_run_slice, [(impl, group, options) for group in groups]))
    return merge_reports(reports, duration=time.perf_counter() - started)


def merge_documents(documents: list[dict[str, Any]], names: list[str]) -> dict[str, Any]:
    """One JSON report (schemas/report.json) of the reports of disjoint slices of one run (one
    per ``--shard K/N``), each named by its file for messages."""
    from ._reports import OUTCOMES

    if not documents:
        raise HarnessError("nothing to merge: give the JSON reports of every slice")
    first = documents[0]
    for name, document in zip(names[1:], documents[1:], strict=True):
        for key in ("reportVersion", "specVersion", "implementation", "capabilities", "budget",
                    "seed", "deterministic"):
            if document.get(key) != first.get(key):
                raise HarnessError(
                    f"{name}: $.{key} is {document.get(key)!r} but {names[0]} has "
                    f"{first.get(key)!r}: merge only the slices of one run (the same "
                    "implementation, budget and seed, --shard K/N of one N)")
    order = {op: index for index, op in enumerate(OPS)}
    results = sorted((result for document in documents for result in document["results"]),
                     key=lambda result: order.get(result["op"], len(order)))
    seen: dict[str, str] = {}
    for name, document in zip(names, documents, strict=True):
        for result in document["results"]:
            if result["id"] in seen:
                raise HarnessError(f"{name}: rule {result['id']} is also in {seen[result['id']]}: "
                                   "merge the reports of disjoint slices")
            seen[result["id"]] = name
    totals = dict.fromkeys(OUTCOMES, 0)
    for result in results:
        totals[result["outcome"]] += 1
    merged = dict(first)
    merged.update(
        durationSeconds=max(document["durationSeconds"] for document in documents),
        calls=sum(document["calls"] for document in documents), totals=totals,
        judgedRules=sum(document.get("judgedRules", 0) for document in documents),
        conforms=all(document["conforms"] for document in documents), results=results,
    )
    merged.pop("rerun", None)
    return merged
