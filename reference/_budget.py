"""What a batch of delegated tasks publishes, and within which bounds (spec/budget.md).

Four operations, each a small function that reads like its section:

- :func:`final_details`: the final records of a batch under one shared byte budget, each record
  first reserving its floors, the rest shared fairly across the records still to project (§3-5);
- :func:`live_roster`: the live records of a batch, stopped at the roster's byte bound, with the
  count of the records left out (§6);
- :func:`merge_lane`: a background lane merging a sequence of rosters by index (§7);
- :func:`publish_schedule`: when a coalescing publisher publishes a timeline of changes (§8).

Sizes are the wire profile's (spec/wire.md §6.5): the bytes a string's code points cost inside a
canonical string literal, quotes excluded. Cuts are counted in code points of well-formed text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._backstop import ID_CLIP_CODE_POINTS, clip_id
from ._canonical import MAX_SAFE_INTEGER, canonical_bytes, escaped_cost, escaped_size, well_formed
from ._errors import InvalidInput

#: The shared budget of a call's final details, in bytes (budget.md §5.1).
DEFAULT_SHARED_BYTES = 131072
#: What each record reserves outside the shared budget (budget.md §5.1).
DEFAULT_TASK_FLOOR_BYTES = 64
DEFAULT_OUTPUT_FLOOR_BYTES = 128
DEFAULT_DIAGNOSTIC_FLOOR_BYTES = 64
#: A live record keeps its task and output at these sizes (budget.md §6.1): the floors.
LIVE_TASK_BYTES = DEFAULT_TASK_FLOOR_BYTES
LIVE_OUTPUT_BYTES = DEFAULT_OUTPUT_FLOOR_BYTES
#: The byte bound of a live roster's ``results`` (budget.md §6.2).
DEFAULT_ROSTER_BYTES = 49152
#: The smallest roster bound: the empty array ``[]`` (budget.md §6.2).
MIN_ROSTER_BYTES = 2
#: One publish per this many milliseconds (budget.md §8).
DEFAULT_INTERVAL_MS = 100

#: The statuses of a task (budget.md §2.2).
STATUSES = ("pending", "running", "completed", "failed", "cancelled")
#: The heavy fields, in the order a final record writes them (budget.md §2.3, §3.1).
HEAVY_FIELDS = ("task", "output", "errorMessage", "stderr")
#: Which end of each heavy field is kept (budget.md §4.1).
SIDES = {"task": "head", "output": "tail", "errorMessage": "head", "stderr": "tail"}
#: The floor each heavy field draws on (budget.md §5.2); errorMessage and stderr share one.
FLOOR_OF = {"task": "task", "output": "output", "errorMessage": "diagnostics",
            "stderr": "diagnostics"}
#: The order in which a record's fields claim its share (budget.md §5.4).
CLAIM_ORDER = ("output", "errorMessage", "stderr", "task")
FAILED_CLAIM_ORDER = ("errorMessage", "stderr", "output", "task")


# -- §4 cutting a heavy field --------------------------------------------------------------------


def cost(text: str) -> int:
    """Bytes ``text`` costs inside a canonical string literal, quotes excluded (wire.md §6.5)."""
    return escaped_size(text)


def cut(value: str, allowance: int, side: str) -> str:
    """The longest head or tail of ``well_formed(value)``, in code points, costing at most
    ``allowance`` bytes (budget.md §4). An allowance of 0 or less keeps ``""``, never the whole."""
    text = well_formed(value)
    if cost(text) <= allowance:
        return text
    spent, kept = 0, 0
    # Each code point costs at least one byte, so at most `allowance` of them are looked at; the
    # whole text costs more than the allowance, so the loop always stops at a break.
    for char in (text if side == "head" else reversed(text)):  # pragma: no branch
        char_cost = escaped_cost(char)
        if spent + char_cost > allowance:
            break
        spent += char_cost
        kept += 1
    return text[:kept] if side == "head" else text[len(text) - kept:]


# -- §2 input records ----------------------------------------------------------------------------


def _integer(value: Any, path: str, minimum: int, what: str) -> int:
    """An integer of the input, ``4096.0`` being ``4096`` (budget.md §1), between ``minimum`` and
    2^53 - 1 (the largest integer every JSON reader holds exactly, budget.md §1)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidInput(
            value=value, path=path, reason=f"is not an integer >= {minimum} ({what})",
            fix=f"Send an integer of at least {minimum}, as the operation's schema requires.",
        )
    if value > MAX_SAFE_INTEGER:
        raise InvalidInput(
            value=value, path=path,
            reason=f"is beyond 2^53-1 ({what}): a JSON reader built on doubles cannot hold it "
                   "exactly (budget.md §1)",
            fix=f"Send an integer of at most {MAX_SAFE_INTEGER} (2^53-1).",
        )
    return value


def _list(value: Any, path: str, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise InvalidInput(value=value, path=path, reason=f"is not an array of {what}",
                           fix=f"Send {what} as a JSON array.")
    return value


def _object(value: Any, path: str, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidInput(value=value, path=path, reason=f"is not an object, so not {what}",
                           fix=f"Send {what} as a JSON object (spec/budget.md).")
    return value


def _string(record: Mapping[str, Any], key: str, path: str, required: bool) -> str | None:
    if key not in record:
        if required:
            raise InvalidInput(value=None, path=f"{path}.{key}",
                               reason="is missing; every task record has it (budget.md §2.1)",
                               fix=f"Send {key} as a string.")
        return None
    value = record[key]
    if not isinstance(value, str):
        raise InvalidInput(value=value, path=f"{path}.{key}", reason="is not a string",
                           fix=f"Send {key} as a string, or leave it out if it is optional "
                               "(budget.md §2.1).")
    return value


def _record(value: Any, path: str) -> dict[str, Any]:
    """The members of a task record this profile reads, checked (budget.md §2.1)."""
    record = _object(value, path, "a task record")
    status = record.get("status")
    if status not in STATUSES:
        raise InvalidInput(value=status, path=f"{path}.status", reason="is not a task status",
                           fix=f"Use one of {', '.join(STATUSES)} (budget.md §2.2).")
    read: dict[str, Any] = {"status": status}
    for key in ("id", "agent", "task"):
        read[key] = _string(record, key, path, required=True)
    for key in ("output", "errorMessage", "stderr"):
        text = _string(record, key, path, required=False)
        if text is not None:
            read[key] = text
    return read


def _records(value: Any) -> list[dict[str, Any]]:
    return [_record(item, f"$.records[{i}]") for i, item in
            enumerate(_list(value, "$.records", "task records"))]


def _identity(record: Mapping[str, Any]) -> dict[str, Any]:
    """The identity members, ids clipped as the wire profile clips them (budget.md §3.2)."""
    return {"id": clip_id(record["id"]), "agent": clip_id(record["agent"]),
            "status": record["status"]}


# -- §5 the final budget ---------------------------------------------------------------------------


def _project_record(record: Mapping[str, Any], share: int,
                    floors: Mapping[str, int]) -> tuple[dict[str, Any], int]:
    """One final record given its share of the shared budget; answers it and what it used."""
    floor_left = dict(floors)
    pool = share
    kept: dict[str, str] = {}
    order = FAILED_CLAIM_ORDER if record["status"] == "failed" else CLAIM_ORDER  # §5.4
    for name in order:
        if name not in record:
            continue
        group = FLOOR_OF[name]
        text = cut(record[name], floor_left[group] + pool, SIDES[name])
        spent = cost(text)
        from_floor = min(spent, floor_left[group])
        floor_left[group] -= from_floor
        pool -= spent - from_floor
        kept[name] = text
    out = _identity(record)
    truncated = []
    for name in HEAVY_FIELDS:  # §3.1: the record's own member order, whatever the claim order
        if name in kept:
            out[name] = kept[name]
            if kept[name] != well_formed(record[name]):
                truncated.append(name)
    if truncated:
        out["truncated"] = truncated
    return out, share - pool


def final_details(records: Any, *, shared_bytes: Any = DEFAULT_SHARED_BYTES,
                  task_floor_bytes: Any = DEFAULT_TASK_FLOOR_BYTES,
                  output_floor_bytes: Any = DEFAULT_OUTPUT_FLOOR_BYTES,
                  diagnostic_floor_bytes: Any = DEFAULT_DIAGNOSTIC_FLOOR_BYTES) -> dict[str, Any]:
    """``{"results": [final record...]}`` (budget.md §3-5).

    Record ``i`` of ``n`` gets ``⌊remaining / (n - i)⌋`` of what the shared budget has left, on
    top of its floors; what it does not use stays for the records after it (§5.3).
    """
    batch = _records(records)
    remaining = _integer(shared_bytes, "$.sharedBytes", 0, "the shared budget in bytes")
    floors = {
        "task": _integer(task_floor_bytes, "$.taskFloorBytes", 0, "a floor in bytes"),
        "output": _integer(output_floor_bytes, "$.outputFloorBytes", 0, "a floor in bytes"),
        "diagnostics": _integer(diagnostic_floor_bytes, "$.diagnosticFloorBytes", 0,
                                "a floor in bytes"),
    }
    results = []
    for i, record in enumerate(batch):
        share = remaining // (len(batch) - i)  # §5.3: fair, not first-come
        projected, used = _project_record(record, share, floors)
        remaining -= used
        results.append(projected)
    return {"results": results}


# -- §6 the live roster ----------------------------------------------------------------------------


def live_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """The allowlisted live record (budget.md §6.1): identity, task head, output tail."""
    out = _identity(record)
    out["task"] = cut(record["task"], LIVE_TASK_BYTES, "head")
    if "output" in record:
        out["output"] = cut(record["output"], LIVE_OUTPUT_BYTES, "tail")
    return out


def live_roster(records: Any, *, max_bytes: Any = DEFAULT_ROSTER_BYTES) -> dict[str, Any]:
    """``{"results": [...], "omittedResults"?: k}`` (budget.md §6.2-6.3): the longest prefix of
    live records whose serialized array is at most ``max_bytes`` bytes; ``k`` is the rest."""
    batch = _records(records)
    bound = _integer(max_bytes, "$.maxBytes", MIN_ROSTER_BYTES, "the roster's byte bound")
    results: list[dict[str, Any]] = []
    size = 2  # "[]"
    for record in batch:
        live = live_record(record)
        grown = size + len(canonical_bytes(live)) + (1 if results else 0)
        if grown > bound:
            break  # §6.2: the roster stops at the first record that does not fit
        results.append(live)
        size = grown
    roster: dict[str, Any] = {"results": results}
    if len(batch) > len(results):
        roster["omittedResults"] = len(batch) - len(results)  # §6.3: absent at zero
    return roster


# -- §7 the lane ----------------------------------------------------------------------------------


def _roster(value: Any, path: str) -> tuple[list[Any], int]:
    roster = _object(value, path, "a live roster")
    results = _list(roster.get("results"), f"{path}.results", "live records")
    for i, item in enumerate(results):
        _object(item, f"{path}.results[{i}]", "a live record")
    omitted = 0
    if "omittedResults" in roster:
        omitted = _integer(roster["omittedResults"], f"{path}.omittedResults", 1,
                           "a count that is absent at zero (budget.md §6.3)")
    return results, omitted


def merge_lane(updates: Any) -> dict[str, Any]:
    """``{"states": [...]}``: the lane after each roster update (budget.md §7).

    The update's records replace the lane's at their indexes; known records past them stay; the
    result is capped at the update's own total, and the count of the rest is that total minus
    what is shown, recomputed every time.
    """
    states = []
    merged: list[Any] = []
    for i, update in enumerate(_list(updates, "$.updates", "roster updates")):
        results, omitted = _roster(update, f"$.updates[{i}]")
        total = len(results) + omitted  # §7.2: the update's own total is the real task count
        if total > MAX_SAFE_INTEGER:
            raise InvalidInput(
                value=omitted, path=f"$.updates[{i}].omittedResults",
                reason=f"with {len(results)} records makes a total beyond 2^53-1 (budget.md §7.2)",
                fix=f"Send an omittedResults of at most {MAX_SAFE_INTEGER - len(results)}.")
        merged = (list(results) + merged[len(results):])[:total]  # §7.1
        state: dict[str, Any] = {"total": total, "results": merged}
        if total > len(merged):
            state["omittedResults"] = total - len(merged)
        states.append(state)
    return {"states": states}


# -- §8 the publish cadence ---------------------------------------------------------------------


def _timeline(events: Any) -> tuple[list[tuple[int, Any]], int]:
    """The changes before the return, in order, and the return's time (budget.md §8.1)."""
    changes: list[tuple[int, Any]] = []
    returned: int | None = None
    previous = 0
    for i, value in enumerate(_list(events, "$.events", "timeline events")):
        path = f"$.events[{i}]"
        event = _object(value, path, "a timeline event")
        at = _integer(event.get("at"), f"{path}.at", 0, "a time in milliseconds")
        if at < previous:
            raise InvalidInput(value=at, path=f"{path}.at",
                               reason=f"is earlier than the event before it ({previous} ms)",
                               fix="Send the timeline in time order (budget.md §8.1).")
        previous = at
        kind = event.get("kind")
        if kind == "return":
            if returned is not None:
                raise InvalidInput(value=kind, path=f"{path}.kind",
                                   reason="is a second return; a call returns once",
                                   fix="Send exactly one return event (budget.md §8.1).")
            returned = at
        elif kind in ("update", "status"):
            if "state" not in event:
                raise InvalidInput(value=None, path=f"{path}.state", reason="is missing",
                                   fix="Send the snapshot the change publishes as state.")
            if returned is None:  # §8.3: a callback after the return is dropped
                changes.append((at, event["state"]))
        else:
            raise InvalidInput(value=kind, path=f"{path}.kind", reason="is not an event kind",
                               fix="Use update, status or return (budget.md §8.1).")
    if returned is None:
        raise InvalidInput(value=None, path="$.events", reason="has no return event",
                           fix="End the call with one {\"kind\": \"return\"} (budget.md §8.1).")
    return changes, returned


def publish_schedule(events: Any, *, interval_ms: Any = DEFAULT_INTERVAL_MS) -> dict[str, Any]:
    """``{"publishes": [{"at", "state"}...]}`` (budget.md §8.2-8.3).

    A change is published at once when the window after the last publish has passed, else at the
    window's end with the newest state; updates and status transitions alike. At the return,
    whatever is pending is flushed; nothing is published after it.
    """
    window = _integer(interval_ms, "$.intervalMs", 1, "the publish interval in milliseconds")
    changes, returned = _timeline(events)
    publishes: list[dict[str, Any]] = []
    last: int | None = None
    pending = False
    state: Any = None

    def publish(at: int) -> None:
        nonlocal last, pending
        publishes.append({"at": at, "state": state})
        last, pending = at, False

    instants: list[tuple[int, Any]] = []  # §8.2: the changes of one instant are one change
    for at, new_state in changes:
        if instants and instants[-1][0] == at:
            instants[-1] = (at, new_state)
        else:
            instants.append((at, new_state))
    for at, new_state in instants:
        if pending and last is not None and last + window < at:
            publish(last + window)  # the window ended before this change: publish what waited
        state, pending = new_state, True
        if last is None or at >= last + window:
            publish(at)
    if pending and last is not None and last + window < returned:
        publish(last + window)
    if pending:
        publish(returned)  # §8.3: the terminal state is flushed before the call returns
    return {"publishes": publishes}


__all__ = [
    "DEFAULT_DIAGNOSTIC_FLOOR_BYTES",
    "DEFAULT_INTERVAL_MS",
    "DEFAULT_OUTPUT_FLOOR_BYTES",
    "DEFAULT_ROSTER_BYTES",
    "DEFAULT_SHARED_BYTES",
    "DEFAULT_TASK_FLOOR_BYTES",
    "ID_CLIP_CODE_POINTS",
    "cost",
    "cut",
    "final_details",
    "live_record",
    "live_roster",
    "merge_lane",
    "publish_schedule",
]
