"""The budget profile's figures: the seed's measured batches, naive against bounded, in bytes.

Each row runs one of the batches the seed measured through the reference (bounded, spec/budget.md)
and through the seed's defective behaviour (naive), taken from the miniatures of
``tests/miniatures/budget.py`` so that the figures and the conformance suite describe the same
bugs:

- 200 tasks x 300 KB answers, with the mid-review budget: first-come, no floors, and a tail
  helper that keeps the whole value for an allowance of 0 (``tailChars(value, 0)``);
- 1,000 tasks whose output and stderr are control characters, with two fields rendered from a
  bare tail and never charged;
- 20 x 12 KB and 200 x 5 KB review batches under first-come allocation (records that lose their
  output, their task, their reason);
- a 600-task batch published live: every status transition published at once with the whole
  roster (naive), against one publish per 100 ms of a roster stopped at 48 KiB; and the lane's
  header, counted from the merged roster after clearing ``omittedResults`` (naive) against the
  update's own total.

Byte counts, not timings. Run ``python tools/bench/budget_figures.py`` to print the table.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eventproof.reference import Reference, canonical_bytes

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

from miniatures.budget import (  # the miniatures live under tests/
    FirstComeBudget,
    LaneClearsCount,
    StatusPublishedImmediately,
    UnboundedRoster,
    UnchargedFields,
    ZeroAllowanceKeepsWhole,
)

KiB = 1024
MiB = 1024 * 1024
REFERENCE = Reference()
DEFAULTS = {"sharedBytes": 131072, "taskFloorBytes": 64, "outputFloorBytes": 128,
            "diagnosticFloorBytes": 64}


class MidReview(ZeroAllowanceKeepsWhole, FirstComeBudget):
    """The seed's details mid-review: first-come, no floors, ``tailChars(value, 0)`` whole."""


class LiveNaive(StatusPublishedImmediately, UnboundedRoster):
    """The seed's live path before the fix: every transition published, the roster unbounded.

    Its 1,200 rosters of 600 records hold each record many times over (a record changes only
    with its status), so each record's live form and size are worked out once: the same
    answers, in a fraction of the time.
    """

    def __init__(self) -> None:
        super().__init__()
        self._live: dict[tuple[tuple[str, Any], ...], dict[str, Any]] = {}
        self._sizes: dict[int, int] = {}

    def live_record(self, record: dict[str, Any]) -> dict[str, Any]:
        key = tuple(record.items())
        live = self._live.get(key)
        if live is None:
            live = self._live[key] = super().live_record(record)
        return live

    def record_size(self, live: dict[str, Any]) -> int:
        # ``live`` is one of the records kept in ``_live``, so its id stays its own.
        size = self._sizes.get(id(live))
        if size is None:
            size = self._sizes[id(live)] = super().record_size(live)
        return size


@dataclass(frozen=True)
class Figure:
    """One batch, naive against bounded."""

    label: str
    naive_bytes: int
    bounded_bytes: int
    #: What the naive run got wrong besides its size, and what the bounded run reports instead.
    naive_note: str
    bounded_note: str


def _details_bytes(answer: Any) -> int:
    return len(canonical_bytes(answer))


def _losses(records: list[dict[str, Any]], answer: Any) -> dict[str, int]:
    results = answer["results"]
    return {
        "output": sum(1 for r, o in zip(records, results, strict=True)
                      if r.get("output") and not o.get("output")),
        "task": sum(1 for r, o in zip(records, results, strict=True)
                    if r["task"] and not o.get("task")),
        "reason": sum(1 for r, o in zip(records, results, strict=True)
                      if r["status"] == "failed" and not (o.get("errorMessage")
                                                          or o.get("stderr"))),
    }


def answers_batch(n: int = 200, size: int = 300_000) -> list[dict[str, Any]]:
    """``n`` tasks, each answering ``size`` bytes of prose."""
    answer = ("The change is correct. " * (size // 23 + 1))[:size]
    return [{"id": f"task-{i:03d}", "agent": "worker", "status": "completed",
             "task": f"Answer question {i} about the change", "output": answer}
            for i in range(n)]


def control_batch(n: int = 1000, chars: int = 3000) -> list[dict[str, Any]]:
    """``n`` tasks whose tool output and stderr are ``chars`` control characters (ANSI resets
    and bells: six bytes each once escaped); every seventh fails."""
    noise = ("\x1b[0m\x07" * (chars // 5 + 1))[:chars]
    return [{"id": f"task-{i:04d}", "agent": "worker",
             "status": "failed" if i % 7 == 3 else "completed",
             "task": f"Run step {i} of the pipeline", "output": noise, "stderr": noise,
             **({"errorMessage": f"Error: step {i} exited with code 1"} if i % 7 == 3 else {})}
            for i in range(n)]


def review_batch(n: int, size: int) -> list[dict[str, Any]]:
    """``n`` review agents answering ``size`` bytes; every fifth fails with a reason."""
    answer = ("Finding: the handler leaks a file descriptor. " * (size // 46 + 1))[:size]
    return [{"id": f"review-{i:03d}", "agent": "reviewer",
             "status": "failed" if i % 5 == 4 else "completed",
             "task": f"Review part {i} of the change", "output": answer,
             **({"errorMessage": f"Error: part {i} timed out"} if i % 5 == 4 else {})}
            for i in range(n)]


def details_figure(label: str, records: list[dict[str, Any]], naive: Callable[[], Any]) -> Figure:
    op_input = {"records": records, **DEFAULTS}
    bounded = REFERENCE.run("details", op_input)
    wrong = naive().run("details", op_input)
    lost, kept = _losses(records, wrong), _losses(records, bounded)

    def note(losses: dict[str, int]) -> str:
        parts = [f"{count} of {len(records)} lose their {what}" for what, count in losses.items()
                 if count]
        return "; ".join(parts) or "every record keeps its task, output and reason"

    naive_note = note(lost) if any(lost.values()) else (
        "nothing lost, but fields kept at full size past the budget")
    return Figure(label, _details_bytes(wrong), _details_bytes(bounded), naive_note, note(kept))


# -- the live batch -------------------------------------------------------------------------------


def _snapshot(statuses: tuple[str, ...]) -> list[dict[str, Any]]:
    return [{"id": f"task-{j:03d}", "agent": "worker", "status": status,
             "task": f"Run shard {j} of the test suite",
             "output": f"shard {j}: {'passed' if status == 'completed' else 'running'}"}
            for j, status in enumerate(statuses)]


def live_timeline(n: int = 600) -> tuple[list[tuple[str, ...]], list[dict[str, Any]]]:
    """A ``n``-task parallel batch: task ``i`` starts at ``2i`` ms and completes at
    ``3000 + 4i`` ms; each transition is a change whose state is the index of the batch's
    snapshot then (the statuses; :func:`_snapshot` builds its records). A late callback follows
    the return."""
    changes = sorted([(2 * i, i, "running") for i in range(n)]
                     + [(3000 + 4 * i, i, "completed") for i in range(n)])
    statuses = ["pending"] * n
    snapshots: list[tuple[str, ...]] = []
    events: list[dict[str, Any]] = []
    for at, i, status in changes:
        statuses[i] = status
        snapshots.append(tuple(statuses))
        events.append({"at": at, "kind": "status", "state": len(snapshots) - 1})
    returned = changes[-1][0] + 1
    events.append({"at": returned, "kind": "return"})
    events.append({"at": returned + 5, "kind": "status", "state": len(snapshots) - 1})
    return snapshots, events


def live_figure(n: int = 600) -> Figure:
    snapshots, events = live_timeline(n)

    def payload(impl: Any) -> tuple[int, int]:
        publishes = impl.run("publish", {"intervalMs": 100, "events": events})["publishes"]
        sizes: dict[int, int] = {}
        total = 0
        for publish in publishes:
            index = publish["state"]
            if index not in sizes:
                roster = impl.run("roster", {"records": _snapshot(snapshots[index]),
                                             "maxBytes": 49152})
                sizes[index] = len(canonical_bytes(roster))
            total += sizes[index]
        return total, len(publishes)

    naive, naive_count = payload(LiveNaive())
    bounded, bounded_count = payload(REFERENCE)
    return Figure(f"{n}-task batch, live payload", naive, bounded,
                  f"{naive_count} publishes, one per status transition",
                  f"{bounded_count} publishes, one per 100 ms")


def lane_figure(n: int = 600) -> Figure:
    """The lane's header over a batch published as bounded rosters, naive and bounded."""
    snapshots, _ = live_timeline(n)
    updates = [REFERENCE.run("roster", {"records": _snapshot(snapshots[i]), "maxBytes": 49152})
               for i in range(0, len(snapshots), 100)]
    naive = LaneClearsCount().run("lane", {"updates": updates})["states"]
    bounded = REFERENCE.run("lane", {"updates": updates})["states"]
    shown = sorted({state["total"] for state in naive})
    return Figure(f"{n}-task lane, {len(updates)} roster updates",
                  len(canonical_bytes(naive)), len(canonical_bytes(bounded)),
                  f"header total {shown[0]}..{shown[-1]}, never {n}",
                  f"header total {sorted({s['total'] for s in bounded})}")


def builders(scale: int = 1) -> dict[str, Callable[[], Figure]]:
    """How to make each row, by its label; ``scale`` multiplies the child output sizes (the
    bounded bytes must not move)."""
    return {
        "200 tasks x 300 KB answers": lambda: details_figure(
            "200 tasks x 300 KB answers", answers_batch(200, 300_000 * scale), MidReview),
        "1,000 tasks, control-character output": lambda: details_figure(
            "1,000 tasks, control-character output", control_batch(1000, 3000 * scale),
            UnchargedFields),
        "20 tasks x 12 KB": lambda: details_figure(
            "20 tasks x 12 KB", review_batch(20, 12_000 * scale), FirstComeBudget),
        "200 tasks x 5 KB": lambda: details_figure(
            "200 tasks x 5 KB", review_batch(200, 5_000 * scale), FirstComeBudget),
        "600-task batch, live payload": live_figure,
        "600-task lane, 12 roster updates": lane_figure,
    }


def figures(scale: int = 1) -> list[Figure]:
    """Every row (see :func:`builders`)."""
    return [build() for build in builders(scale).values()]


def _size(n: int) -> str:
    return f"{n / MiB:.2f} MiB" if n >= MiB else f"{n / KiB:.1f} KiB"


def format_table(rows: list[Figure]) -> str:
    lines = ["| batch | naive | bounded | naive: what else went wrong | bounded |",
             "|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row.label} | {_size(row.naive_bytes)} | {_size(row.bounded_bytes)} | "
                     f"{row.naive_note} | {row.bounded_note} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(format_table(figures()))
