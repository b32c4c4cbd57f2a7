"""The budget profile's rules (spec/budget.md): one entry per normative statement a check enforces.

Rule ids are stable: reports, expectation files and replay files cite them, and each is mentioned
in the section of spec/budget.md named here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._model import AnswerClass, Rule, scoped

_BUDGET = "budget"


def _list(value: Any, key: str) -> list[Any]:
    items = value.get(key) if isinstance(value, Mapping) else None
    return [item for item in items if isinstance(item, Mapping)] if isinstance(items, list) else []


# -- details ----------------------------------------------------------------------------------

def _within_budget(op_input: Any, expected: Any) -> bool:
    records = _list(expected, "results")
    return bool(records) and not any("truncated" in record for record in records)


def _cut(op_input: Any, expected: Any) -> bool:
    return any("truncated" in record for record in _list(expected, "results"))


def _cut_to_nothing(op_input: Any, expected: Any) -> bool:
    """A field the budget left no allowance for keeps "" (§4, §5.5)."""
    return any(record.get(field) == "" for record in _list(expected, "results")
               for field in record.get("truncated", ()))


def _at_floors(op_input: Any, expected: Any) -> bool:
    """No shared budget: every record keeps what its floors hold (§5.2)."""
    return isinstance(op_input, Mapping) and op_input.get("sharedBytes") == 0 and _cut(
        op_input, expected)


def _failure(op_input: Any, expected: Any) -> bool:
    return any(record.get("status") == "failed" for record in _list(op_input, "records"))


def _with_output(op_input: Any, expected: Any) -> bool:
    return any("output" in record for record in _list(op_input, "records"))


# -- roster and lane --------------------------------------------------------------------------

def _all_fit(op_input: Any, expected: Any) -> bool:
    return isinstance(expected, Mapping) and "omittedResults" not in expected


def _some_omitted(op_input: Any, expected: Any) -> bool:
    return (isinstance(expected, Mapping) and "omittedResults" in expected
            and bool(_list(expected, "results")))


def _none_fit(op_input: Any, expected: Any) -> bool:
    return (isinstance(expected, Mapping) and "omittedResults" in expected
            and not _list(expected, "results"))


def _lane_shown(op_input: Any, expected: Any) -> bool:
    states = _list(expected, "states")
    return bool(states) and not any("omittedResults" in state for state in states)


def _lane_counted(op_input: Any, expected: Any) -> bool:
    return any("omittedResults" in state for state in _list(expected, "states"))


# -- publish ----------------------------------------------------------------------------------

def _timeline(op_input: Any) -> tuple[list[Mapping[str, Any]], Any, list[Mapping[str, Any]]]:
    """The changes, the return's time and the late callbacks of a timeline (§8.1)."""
    events = _list(op_input, "events")
    at = next((i for i, event in enumerate(events) if event.get("kind") == "return"), len(events))
    returned = events[at].get("at") if at < len(events) else None
    return events[:at], returned, events[at + 1:]


def _publishes(expected: Any) -> list[Mapping[str, Any]]:
    return _list(expected, "publishes")


def _at_once(op_input: Any, expected: Any) -> bool:
    changes, _, _ = _timeline(op_input)
    times = {change.get("at") for change in changes}
    return any(publish.get("at") in times for publish in _publishes(expected))


def _deferred(op_input: Any, expected: Any) -> bool:
    """A pending state published at the end of its window (§8.2, trailing edge)."""
    changes, returned, _ = _timeline(op_input)
    times = {change.get("at") for change in changes}
    return any(publish.get("at") not in times and publish.get("at") != returned
               for publish in _publishes(expected))


def _terminal_flush(op_input: Any, expected: Any) -> bool:
    """A pending state published at the return, inside a window (§8.3)."""
    changes, returned, _ = _timeline(op_input)
    times = {change.get("at") for change in changes}
    return returned not in times and any(
        publish.get("at") == returned for publish in _publishes(expected))


def _late_dropped(op_input: Any, expected: Any) -> bool:
    return bool(_timeline(op_input)[2])


def _nothing_published(op_input: Any, expected: Any) -> bool:
    return isinstance(expected, Mapping) and not _publishes(expected)


def _publishes_two(op_input: Any, expected: Any) -> bool:
    return len(_publishes(expected)) >= 2


def _publishes_one(op_input: Any, expected: Any) -> bool:
    return bool(_publishes(expected))


def _has_changes(op_input: Any, expected: Any) -> bool:
    return bool(_timeline(op_input)[0])


#: The classes of the reference's answers, by operation: the families aim at every one.
CLASSES: dict[str, tuple[AnswerClass, ...]] = {
    "details": (
        AnswerClass("within budget", _within_budget),
        AnswerClass("cut", _cut),
        AnswerClass("cut to nothing", _cut_to_nothing),
        AnswerClass("at the floors", _at_floors),
        AnswerClass("failure", _failure),
    ),
    "roster": (
        AnswerClass("all fit", _all_fit),
        AnswerClass("some omitted", _some_omitted),
        AnswerClass("none fit", _none_fit),
    ),
    "lane": (
        AnswerClass("all shown", _lane_shown),
        AnswerClass("count recomputed", _lane_counted),
    ),
    "publish": (
        AnswerClass("published at once", _at_once),
        AnswerClass("publish deferred", _deferred),
        AnswerClass("terminal flush", _terminal_flush),
        AnswerClass("late callback dropped", _late_dropped),
        AnswerClass("nothing published", _nothing_published),
    ),
}

#: The answers each rule judges (rules not named: every answer of their operation).
_APPLIES = {
    "details.output": _with_output,
    "details.reason": _failure,
    "details.rejected": _cut,
    "details.cut": _cut,
    "roster.count": _some_omitted,
    "lane.count": _lane_counted,
    "publish.window": _publishes_two,
    "publish.latest": _publishes_one,
    "publish.terminal": _has_changes,
    "publish.after-return": _late_dropped,
}
#: The answer classes each rule depends on.
_NEEDS = {
    "details.cut": ("within budget", "cut"),
    "details.rejected": ("cut to nothing",),
    "details.fair-share": ("cut", "at the floors"),
    "details.reason": ("failure",),
    "details.agrees": tuple(item.name for item in CLASSES["details"]),
    "roster.bounded": ("some omitted", "none fit"),
    "roster.prefix": ("all fit", "some omitted"),
    "roster.count": ("all fit", "some omitted", "none fit"),
    "roster.agrees": tuple(item.name for item in CLASSES["roster"]),
    "lane.count": ("all shown", "count recomputed"),
    "lane.agrees": tuple(item.name for item in CLASSES["lane"]),
    "publish.window": ("published at once", "publish deferred"),
    "publish.latest": ("publish deferred",),
    "publish.terminal": ("terminal flush",),
    "publish.after-return": ("late callback dropped",),
    "publish.agrees": tuple(item.name for item in CLASSES["publish"]),
}

_RULES: tuple[Rule, ...] = (
    # -- details: §3-5 ----------------------------------------------------------------------------
    Rule("details.allowlist", "MUST", _BUDGET, "details", "budget.md#3.1",
         "A final record has exactly the allow-listed members, in order, and nothing of the task "
         "record beyond them."),
    Rule("details.identity", "MUST", _BUDGET, "details", "budget.md#3.2",
         "One final record per task record, in order, with its status and its id and agent "
         "clipped to 256 code points."),
    Rule("details.cut", "MUST", _BUDGET, "details", "budget.md#4",
         "Each heavy field is a head (task, errorMessage) or tail (output, stderr) of the "
         "well-formed value in whole code points; truncated lists exactly the cut fields."),
    Rule("details.task", "MUST", _BUDGET, "details", "budget.md#5.2",
         "Every record keeps some of its task."),
    Rule("details.output", "MUST", _BUDGET, "details", "budget.md#5.2",
         "Every record that reported output keeps some."),
    Rule("details.reason", "MUST", _BUDGET, "details", "budget.md#5.2",
         "Every failure keeps a reason."),
    Rule("details.fair-share", "MUST", _BUDGET, "details", "budget.md#5.3",
         "Every record takes at most floor(remaining / recordsLeft) beyond its floors."),
    Rule("details.claim-order", "MUST", _BUDGET, "details", "budget.md#5.4",
         "A record's fields take from its share in the claim order (a failure's diagnostics "
         "before its output)."),
    Rule("details.rejected", "MUST", _BUDGET, "details", "budget.md#5.5",
         "A field whose cost exceeds its allowance is cut to fit it, never kept whole; a zero "
         "allowance keeps nothing."),
    Rule("details.bounded", "MUST", _BUDGET, "details", "budget.md#5.6",
         "The heavy fields cost at most the shared budget plus the floors."),
    Rule("details.agrees", "MUST", _BUDGET, "details", "budget.md#5",
         "The final details equal the reference's."),
    # -- roster: §6 -----------------------------------------------------------------------------
    Rule("roster.allowlist", "MUST", _BUDGET, "roster", "budget.md#6.1",
         "A live record is exactly {id, agent, status, task, output?}: identity, a 64-byte task "
         "head, a 128-byte output tail."),
    Rule("roster.bounded", "MUST", _BUDGET, "roster", "budget.md#6.2",
         "The serialized results are at most maxBytes bytes."),
    Rule("roster.prefix", "MUST", _BUDGET, "roster", "budget.md#6.2",
         "The results are the longest prefix of live records that fits."),
    Rule("roster.count", "MUST", _BUDGET, "roster", "budget.md#6.3",
         "omittedResults is the number of records left out, absent at zero."),
    Rule("roster.agrees", "MUST", _BUDGET, "roster", "budget.md#6",
         "The roster equals the reference's."),
    # -- lane: §7 -------------------------------------------------------------------------------
    Rule("lane.merge", "MUST", _BUDGET, "lane", "budget.md#7.1",
         "The update's records at their indexes, then the known records past them, capped at "
         "the update's total."),
    Rule("lane.total", "MUST", _BUDGET, "lane", "budget.md#7.2",
         "Each state's total is its update's own total: the real task count."),
    Rule("lane.count", "MUST", _BUDGET, "lane", "budget.md#7.2",
         "omittedResults is the update's total minus the merged records, absent at zero."),
    Rule("lane.agrees", "MUST", _BUDGET, "lane", "budget.md#7",
         "The lane's states equal the reference's."),
    # -- publish: §8 ----------------------------------------------------------------------------
    Rule("publish.window", "MUST", _BUDGET, "publish", "budget.md#8.2",
         "At most one publish per window, status transitions included, but the terminal flush."),
    Rule("publish.latest", "MUST", _BUDGET, "publish", "budget.md#8.2",
         "Every publish carries the state of the last change at or before its time."),
    Rule("publish.terminal", "MUST", _BUDGET, "publish", "budget.md#8.3",
         "The terminal state is always published, at or before the return."),
    Rule("publish.after-return", "MUST", _BUDGET, "publish", "budget.md#8.3",
         "Nothing is published after the return; late callbacks are dropped."),
    Rule("publish.agrees", "MUST", _BUDGET, "publish", "budget.md#8",
         "The publishes equal the reference's."),
)

RULES: tuple[Rule, ...] = scoped(_RULES, _APPLIES, _NEEDS)
RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}
