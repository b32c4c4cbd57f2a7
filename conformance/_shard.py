"""Slices of one run for a CI matrix (``--shard K/N``), and joining their reports
(``eventproof report --merge``).

A slice holds whole operations (an operation's rounds need one driver); every machine splits the
same operations the same way. Each sliced report records the run it is a slice of (the JSON
report's ``run``: the implementation, the kit and spec versions, the seed, the effort and the
operations of the whole run, and its own ``K/N``), so that a merge can refuse a set with a
slice missing, a slice repeated, or slices of different runs, instead of calling a part of a run
the whole. The merged report's verdict is :func:`._results.verdict_of_document` of the joined
results: merging decides nothing of its own.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from ._errors import HarnessError
from ._operations import OPS
from ._results import OUTCOMES, verdict_of_document
from ._settings import SETTINGS

#: Relative cost of each operation's search, for balancing the slices of ``--shard`` and for
#: starting the heaviest operations' searches first under ``--jobs``: tenths of a second of
#: family searches, measured on the bundled reference (``eventproof run --deterministic``,
#: default effort, isolated). Every operation gets the same examples per round, so the
#: examples do not tell operations apart: the cost of an example does (details and project
#: build large batches and lines), and so does the number of rounds, which only the
#: implementation decides.
WEIGHT = {"details": 34, "project": 24, "roster": 22, "select": 12, "settle": 12,
           "classify": 12, "fold": 10, "publish": 9, "lane": 7}


def parse_shard(value: str) -> tuple[int, int]:
    """``"2/3"`` -> ``(2, 3)``; the settings table's error naming the value otherwise."""
    parsed: tuple[int, int] = SETTINGS["shard"].parse(value, "cli")
    return parsed


def split_ops(ops: tuple[str, ...], parts: int) -> list[tuple[str, ...]]:
    """``ops`` in ``parts`` groups of about equal cost (heaviest first, each to the lightest
    group), each group in table order; empty groups are dropped."""
    groups: list[list[str]] = [[] for _ in range(max(1, parts))]
    cost = [0] * len(groups)
    for op in sorted(ops, key=lambda name: (-WEIGHT.get(name, 1), OPS.index(name)
                                            if name in OPS else 0)):
        lightest = cost.index(min(cost))
        groups[lightest].append(op)
        cost[lightest] += WEIGHT.get(op, 1)
    order = {name: index for index, name in enumerate(OPS)}
    return [tuple(sorted(group, key=lambda name: order.get(name, len(order))))
            for group in groups if group]


def shard_ops(ops: tuple[str, ...], shard: tuple[int, int]) -> tuple[str, ...]:
    """The operations of slice ``K`` of ``N`` (the same split on every machine)."""
    k, n = shard
    groups = split_ops(ops, n)
    return groups[k - 1] if k <= len(groups) else ()


#: The members of a report's ``run`` that say which run it belongs to: slices of one run agree on
#: all of them.
RUN_KEYS = ("impl", "suiteVersion", "specVersion", "protocolVersion", "seed", "deterministic",
            "effort", "maxExamples", "ops", "fitStrategy", "timeout", "allowUntested")


def run_id(run: Mapping[str, Any]) -> str:
    """A short digest of what makes two slices parts of one run (:data:`RUN_KEYS`)."""
    text = json.dumps({key: run.get(key) for key in RUN_KEYS}, sort_keys=True,
                      ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:16]


def _slice_of(name: str, document: Mapping[str, Any]) -> tuple[int, int]:
    run = document.get("run")
    shard = run.get("shard") if isinstance(run, Mapping) else None
    if not isinstance(shard, str):
        raise HarnessError(
            f"{name}: not a slice of a sharded run (its run.shard is {shard!r}): merge the JSON "
            "reports that `eventproof run --shard K/N --json FILE` wrote, one per slice")
    return parse_shard(shard)


def merge_documents(documents: Sequence[Mapping[str, Any]], names: Sequence[str]
                    ) -> dict[str, Any]:
    """One JSON report (schemas/report.json) of the reports of every slice of one run, each
    named by its file for messages.

    Refused (:class:`HarnessError`, naming what is wrong and the fix): a report that is no slice,
    slices of different runs (which member differs), a slice given twice, a slice missing, or the
    same rule in two slices.
    """
    if not documents:
        raise HarnessError("nothing to merge: give the JSON reports of every slice")
    slices = [_slice_of(name, document) for name, document in zip(names, documents, strict=True)]
    first, first_run = documents[0], documents[0]["run"]
    for name, document in zip(names[1:], documents[1:], strict=True):
        run = document["run"]
        differ = [key for key in RUN_KEYS if run.get(key) != first_run.get(key)]
        if differ:
            key = differ[0]
            raise HarnessError(
                f"{name} and {names[0]} are slices of different runs: run.{key} is "
                f"{run.get(key)!r} in one and {first_run.get(key)!r} in the other; merge only "
                "the slices of one run (the same implementation, kit, effort, seed and "
                "operations, --shard K/N of one N)")
    counts = {n for _, n in slices}
    if len(counts) > 1:
        raise HarnessError(f"the reports are slices of {' and '.join(map(str, sorted(counts)))} "
                           "slices: merge the slices of one --shard K/N split")
    total = counts.pop()
    given: dict[int, str] = {}
    for name, (k, _) in zip(names, slices, strict=True):
        if k in given:
            raise HarnessError(f"slice {k}/{total} is given twice ({given[k]} and {name}): give "
                               "each slice's report once")
        given[k] = name
    whole = tuple(first_run.get("ops") or OPS)
    groups = split_ops(whole, total)
    missing = [k for k in range(1, len(groups) + 1) if k not in given]
    if missing:
        listed = ", ".join(f"{k}/{total} ({', '.join(groups[k - 1])})" for k in missing)
        raise HarnessError(f"slice(s) {listed} missing: the merge of {len(given)} of "
                           f"{len(groups)} slices would judge part of the run as the whole; "
                           "give the report of every slice")
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
        totals[result["outcome"]] = totals.get(result["outcome"], 0) + 1
    endings = [document["verdict"].get("ending", "") for document in documents]
    merged = dict(first)
    merged.update(
        durationSeconds=max(document["durationSeconds"] for document in documents),
        calls=sum(document["calls"] for document in documents), totals=totals,
        results=results, run={**first_run, "shard": None},
    )
    merged["verdict"] = {"ending": next((ending for ending in endings if ending), "")}
    verdict = verdict_of_document(merged)
    merged.update(judgedRules=verdict.judged, conforms=verdict.conforms,
                  verdict=verdict.document())
    merged.pop("rerun", None)
    return merged
