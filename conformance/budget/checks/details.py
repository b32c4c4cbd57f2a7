"""Checks of the ``details`` operation (spec/budget.md §3-5): one per ``details.*`` rule.

Most restate an invariant from the input and the implementation's own answer, so that a defect
is named by what it broke rather than by a disagreement: the bound on the total (§5.6), the fair
share of each record computed from what the records before it actually took (§5.3), the floors
(§5.2), the allowance each field had in the claim order (§5.4-5.5). ``details.agrees`` catches the
rest.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..._json import well_formed
from ..._model import Case, Errored, ImplErrored, Violation
from ._common import (
    CLAIM_ORDER,
    FAILED_CLAIM_ORDER,
    FINAL_MEMBERS,
    FLOOR_MEMBER,
    GROUP,
    HEAVY,
    ID_CLIP,
    SIDE,
    agreement,
    char_cost,
    cost,
    shown,
)


@dataclass
class Row:
    """One task record and the final record the implementation answered for it."""

    index: int
    record: Mapping[str, Any]
    result: Mapping[str, Any]

    def original(self, name: str) -> str | None:
        value = self.record.get(name)
        return well_formed(value) if isinstance(value, str) else None

    def kept(self, name: str) -> str | None:
        value = self.result.get(name)
        return value if isinstance(value, str) else None

    def kept_cost(self, name: str) -> int:
        kept = self.kept(name)
        return cost(well_formed(kept)) if kept is not None else 0

    def is_cut(self, name: str) -> bool:
        original, kept = self.original(name), self.kept(name)
        return original is not None and kept is not None and kept != original

    def claim_order(self) -> tuple[str, ...]:
        order = FAILED_CLAIM_ORDER if self.record.get("status") == "failed" else CLAIM_ORDER
        return tuple(name for name in order if name in self.record)

    def where(self, name: str | None = None) -> str:
        return f"$.results[{self.index}]" + (f".{name}" if name else "")


@dataclass
class Details:
    """The input's numbers and the rows, when the answer has the op's shape."""

    shared: int
    floors: dict[str, int]
    rows: list[Row]
    #: The answer has one result per record (else only identity and agreement judge it).
    complete: bool


def details_view(case: Case) -> Details | None:
    if isinstance(case.expected, Errored) or isinstance(case.actual, (Errored, ImplErrored)):
        return None
    actual = case.actual
    if not isinstance(actual, Mapping) or not isinstance(actual.get("results"), list):
        return None
    records = case.input["records"]
    results = actual["results"]
    rows = [Row(i, record, result) for i, (record, result) in enumerate(zip(records, results,
                                                                            strict=False))
            if isinstance(result, Mapping)]
    floors = {group: int(case.input[member]) for group, member in FLOOR_MEMBER.items()}
    return Details(int(case.input["sharedBytes"]), floors, rows,
                   complete=len(rows) == len(records) == len(results))


def _used(row: Row, floors: Mapping[str, int]) -> int:
    """What a record took beyond its floors: Σ max(0, cost_g − floor_g) (budget.md §5.3)."""
    by_group: dict[str, int] = {}
    for name in HEAVY:
        if name in row.record:
            by_group[GROUP[name]] = by_group.get(GROUP[name], 0) + row.kept_cost(name)
    return sum(max(0, spent - floors[group]) for group, spent in by_group.items())


def _shares(view: Details) -> Iterator[tuple[Row, int, int, int]]:
    """Each row with its fair share, what it took, and what was left before it, computed from
    what the records before it actually took."""
    remaining = view.shared
    n = len(view.rows)
    for i, row in enumerate(view.rows):
        share = max(remaining, 0) // (n - i)
        used = _used(row, view.floors)
        yield row, share, used, remaining
        remaining -= used


@dataclass
class Claim:
    """One field's turn in its record's claim order (budget.md §5.4)."""

    name: str
    allowance: int
    #: What it took from the share.
    took: int
    #: What the share had left after it.
    left: int


def _claims(row: Row, share: int, floors: Mapping[str, int]) -> list[Claim]:
    floor_left = dict(floors)
    left = share
    claims = []
    for name in row.claim_order():
        group = GROUP[name]
        allowance = floor_left[group] + max(left, 0)
        spent = row.kept_cost(name)
        from_floor = min(spent, floor_left[group])
        floor_left[group] -= from_floor
        took = spent - from_floor
        left -= took
        claims.append(Claim(name, allowance, took, left))
    return claims


# -- §3 records --------------------------------------------------------------------------------


def check_allowlist(case: Case) -> Iterator[Violation]:
    """details.allowlist (budget.md §3.1)."""
    view = details_view(case)
    if view is None:
        return
    for row in view.rows:
        members = list(row.result)
        extra = [key for key in members if key not in FINAL_MEMBERS]
        if extra:
            spread = [key for key in extra if key in row.record]
            origin = (f"; {shown(spread)} come from the task record: build the final record "
                      "member by member instead of spreading the task record" if spread else "")
            yield Violation("details.allowlist", (
                f"{row.where()} has the member(s) {shown(extra)}, which a final record never "
                f"carries (budget.md §3.1: id, agent, status, task, output, errorMessage, "
                f"stderr, truncated){origin}"))
            return
        missing = [key for key in ("id", "agent", "status", "task") if key not in row.result]
        missing += [key for key in ("output", "errorMessage", "stderr")
                    if key in row.record and key not in row.result]
        if missing:
            yield Violation("details.allowlist", (
                f"{row.where()} lacks {shown(missing)}: the task record has them, and a final "
                "record keeps every field it has, however little of it (budget.md §3.1)"))
            return
        invented = [key for key in ("output", "errorMessage", "stderr")
                    if key in row.result and key not in row.record]
        if invented:
            yield Violation("details.allowlist", (
                f"{row.where()} has {shown(invented)}, which the task record does not have "
                "(budget.md §3.1: present exactly when the task record has them)"))
            return
        order = [key for key in FINAL_MEMBERS if key in row.result]
        if members != order:
            yield Violation("details.allowlist", (
                f"{row.where()} has its members in the order {shown(members)}; a final record "
                f"writes them as {shown(order)} (budget.md §3.1)"))
            return
        truncated = row.result.get("truncated")
        if "truncated" in row.result and (not isinstance(truncated, list) or not truncated):
            yield Violation("details.allowlist", (
                f"{row.where('truncated')} is {shown(truncated)}; it is a non-empty list of "
                "field names, absent when nothing was cut (budget.md §3.1)"))
            return


def check_identity(case: Case) -> Iterator[Violation]:
    """details.identity (budget.md §3.2)."""
    view = details_view(case)
    if view is None:
        return
    records, results = case.input["records"], case.actual["results"]
    if len(results) != len(records):
        yield Violation("details.identity", (
            f"the batch has {len(records)} task records and your details have {len(results)} "
            "results: one final record per task record, in order (budget.md §3.2)"))
        return
    for row in view.rows:
        for key in ("id", "agent"):
            value = row.record[key]
            want = well_formed(value)[:ID_CLIP]
            got = row.result.get(key)
            if got != want:
                clip = (f" (the {len(well_formed(value))}-code-point value keeps its first "
                        f"{ID_CLIP} code points)" if len(well_formed(value)) > ID_CLIP else "")
                yield Violation("details.identity", (
                    f"{row.where(key)} is {shown(got)}, expected {shown(want)}{clip}: a record "
                    "keeps its identity whatever the budget (budget.md §3.2)"))
                return
        if row.result.get("status") != row.record["status"]:
            yield Violation("details.identity", (
                f"{row.where('status')} is {shown(row.result.get('status'))}, but the task "
                f"record's status is {shown(row.record['status'])} (budget.md §3.2)"))
            return


# -- §4 cuts -----------------------------------------------------------------------------------


def check_cut(case: Case) -> Iterator[Violation]:
    """details.cut (budget.md §4)."""
    view = details_view(case)
    if view is None:
        return
    for row in view.rows:
        cut_fields = []
        for name in HEAVY:
            original, kept = row.original(name), row.kept(name)
            if original is None or name not in row.result:
                continue
            if kept is None:
                yield Violation("details.cut", (
                    f"{row.where(name)} is {shown(row.result[name])}, not a string "
                    "(budget.md §4)"))
                return
            side = SIDE[name]
            fits = original.startswith(kept) if side == "head" else original.endswith(kept)
            if not fits or well_formed(kept) != kept:
                other = original.endswith(kept) if side == "head" else original.startswith(kept)
                hint = (f"it is the {'tail' if side == 'head' else 'head'}; {name} keeps its "
                        f"{side}" if other and kept else
                        "it splits a code point (count code points, not UTF-16 units)"
                        if well_formed(kept) != kept else "it is not a piece of the value")
                yield Violation("details.cut", (
                    f"{row.where(name)} is {shown(kept)}, which is not a {side} of the task "
                    f"record's {shown(original)}: {hint} (budget.md §4)"))
                return
            if kept != original:
                cut_fields.append(name)
        listed = row.result.get("truncated", [])
        if isinstance(listed, list) and listed != cut_fields:
            said = shown(listed) if "truncated" in row.result else "absent"
            yield Violation("details.cut", (
                f"{row.where('truncated')} is {said}, but the fields kept shorter than their "
                f"value are {shown(cut_fields)} (budget.md §3.1, §4)"))
            return


# -- §5.2 floors -------------------------------------------------------------------------------


def _needs(row: Row, name: str, floor: int, *, last: bool) -> bool:
    original = row.original(name)
    if not original:
        return False
    return char_cost(original[-1] if last else original[0]) <= floor


def check_task(case: Case) -> Iterator[Violation]:
    """details.task (budget.md §5.2)."""
    view = details_view(case)
    if view is None:
        return
    for row in view.rows:
        if _needs(row, "task", view.floors["task"], last=False) and not row.kept("task"):
            yield Violation("details.task", (
                f"{row.where('task')} is {shown(row.result.get('task'))}: the task "
                f"{shown(row.original('task'))} lost everything, but every record reserves "
                f"{view.floors['task']} bytes for its task outside the shared budget, so a row "
                "is never unnamed (budget.md §5.2; first-come allocation left 158 of 200 tasks "
                "unnamed)"))
            return


def check_output(case: Case) -> Iterator[Violation]:
    """details.output (budget.md §5.2)."""
    view = details_view(case)
    if view is None:
        return
    for row in view.rows:
        if _needs(row, "output", view.floors["output"], last=True) and not row.kept("output"):
            yield Violation("details.output", (
                f"{row.where('output')} is {shown(row.result.get('output'))}, but the task "
                f"reported {shown(row.original('output'))}: every record reserves "
                f"{view.floors['output']} bytes for its output, so it never renders as "
                "\"(no output)\" (budget.md §5.2)"))
            return


def check_reason(case: Case) -> Iterator[Violation]:
    """details.reason (budget.md §5.2)."""
    view = details_view(case)
    if view is None:
        return
    floor = view.floors["diagnostics"]
    for row in view.rows:
        if row.record.get("status") != "failed":
            continue
        if row.original("errorMessage"):
            name, last = "errorMessage", False
        elif row.original("stderr"):
            name, last = "stderr", True
        else:
            continue
        if _needs(row, name, floor, last=last) and not row.kept(name):
            yield Violation("details.reason", (
                f"{row.where(name)} is {shown(row.result.get(name))}: the failure's reason "
                f"{shown(row.original(name))} was lost, but every record reserves {floor} bytes "
                "for its diagnostics outside the shared budget (budget.md §5.2; spending the "
                "budget in record order left later failures with no reason)"))
            return


# -- §5.3-5.6 the budget -------------------------------------------------------------------------


def check_fair_share(case: Case) -> Iterator[Violation]:
    """details.fair-share (budget.md §5.3)."""
    view = details_view(case)
    if view is None or not view.complete:
        return
    n = len(view.rows)
    for row, share, used, remaining in _shares(view):
        if used > share:
            yield Violation("details.fair-share", (
                f"{row.where()} took {used} bytes beyond its floors, but its fair share was "
                f"⌊{remaining} / {n - row.index}⌋ = {share} bytes ({remaining} left of "
                f"sharedBytes {view.shared}, {n - row.index} records still to project): divide "
                "what is left by the records left, do not let the first records claim it all "
                "(budget.md §5.3)"))
            return


def check_claim_order(case: Case) -> Iterator[Violation]:
    """details.claim-order (budget.md §5.4)."""
    view = details_view(case)
    if view is None or not view.complete:
        return
    for row, share, used, _ in _shares(view):
        if used > share:
            return  # details.fair-share
        for claim in _claims(row, share, view.floors):
            if not row.is_cut(claim.name):
                continue
            original, kept = row.original(claim.name), row.kept(claim.name)
            assert original is not None
            assert kept is not None
            if len(kept) >= len(original):
                continue
            following = (original[len(kept)] if SIDE[claim.name] == "head"
                         else original[len(original) - len(kept) - 1])
            if claim.left >= char_cost(following):
                order = row.claim_order()
                yield Violation("details.claim-order", (
                    f"{row.where(claim.name)} was cut to {cost(kept)} bytes while its record's "
                    f"share still had {claim.left} bytes after it: with the claim order "
                    f"{shown(list(order))} (status {shown(row.record.get('status'))}), "
                    f"{claim.name} could take {claim.allowance} bytes. "
                    + ("A failure claims its errorMessage and stderr before its output "
                       if row.record.get("status") == "failed" else
                       "A record claims its output first, its task last ")
                    + "(budget.md §5.4)"))
                return


def check_rejected(case: Case) -> Iterator[Violation]:
    """details.rejected (budget.md §5.5)."""
    view = details_view(case)
    if view is None or not view.complete:
        return
    for row, share, _, _ in _shares(view):
        for claim in _claims(row, share, view.floors):
            original, kept = row.original(claim.name), row.kept(claim.name)
            if original is None or kept is None:
                continue
            whole = cost(original)
            spent = cost(well_formed(kept))
            # Kept text whose characters would fit the allowance: measured in characters.
            counted = (f"; its {len(kept)} code points fit {claim.allowance} if counted as "
                       "characters, but a cut is measured in escaped UTF-8 bytes"
                       if spent > claim.allowance >= len(kept) else "")
            if whole > claim.allowance and kept == original:
                yield Violation("details.rejected", (
                    f"{row.where(claim.name)} is kept whole ({whole} bytes) although its "
                    f"allowance was {claim.allowance} bytes: a field the budget rejects is cut "
                    "to fit, never restored"
                    + (" (an allowance of 0 keeps \"\"; value.slice(-0) is the whole value)"
                       if claim.allowance <= 1 and not counted else "")
                    + counted + " (budget.md §5.5)"))
                return
            if spent > claim.allowance:
                yield Violation("details.rejected", (
                    f"{row.where(claim.name)} keeps {spent} bytes, over its "
                    f"allowance of {claim.allowance} bytes (its floor's rest plus what its "
                    f"record's share had left in the claim order){counted} "
                    "(budget.md §5.4-5.5)"))
                return


def check_bounded(case: Case) -> Iterator[Violation]:
    """details.bounded (budget.md §5.6)."""
    view = details_view(case)
    if view is None:
        return
    total = sum(row.kept_cost(name) for row in view.rows for name in HEAVY
                if name in row.record)
    floors = sum(view.floors[group] for row in view.rows
                 for group in {GROUP[name] for name in HEAVY if name in row.record})
    bound = view.shared + floors
    if total > bound:
        worst = max(((row.kept_cost(name), row, name) for row in view.rows for name in HEAVY
                     if name in row.record), key=lambda item: item[0])
        yield Violation("details.bounded", (
            f"the heavy fields of your details cost {total} bytes in all, over the bound of "
            f"{bound} (sharedBytes {view.shared} plus {floors} bytes of floors); the largest is "
            f"{worst[1].where(worst[2])} at {worst[0]} bytes. Charge every field you render to "
            "the budget (budget.md §5.6)"))


def check_agrees(case: Case) -> Iterator[Violation]:
    """details.agrees (budget.md §5)."""
    yield from agreement("details.agrees", case)


CHECKS = (check_allowlist, check_identity, check_cut, check_task, check_output, check_reason,
          check_rejected, check_fair_share, check_claim_order, check_bounded, check_agrees)
CHECK_BY_RULE = {
    "details.allowlist": check_allowlist, "details.identity": check_identity,
    "details.cut": check_cut, "details.task": check_task, "details.output": check_output,
    "details.reason": check_reason, "details.rejected": check_rejected,
    "details.fair-share": check_fair_share, "details.claim-order": check_claim_order,
    "details.bounded": check_bounded, "details.agrees": check_agrees,
}
