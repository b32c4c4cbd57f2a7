"""The blind port extended to the consumed-work settlement and the budget profile.

``FullPort`` adds ``settle`` (spec/selection.md §5-6) and ``details``, ``roster``, ``lane`` and
``publish`` (spec/budget.md §2-10) to the selection and wire port of ``port.py``, again through
the in-process interface of spec/protocol.md §8 and again from the spec text alone. It reuses the
port's well-forming and byte measure (budget.md §1 reuses wire.md §6 on purpose).

As in ``port.py``, every decision is a small method or class attribute so that
``full_bugs.py`` can replace exactly one of them.
"""

from __future__ import annotations

from typing import Any, ClassVar

from .port import Canon, Fold, Port, PortError, is_integer_value

# ---------------------------------------------------------------------------------------------
# Settlement (spec/selection.md §5)
# ---------------------------------------------------------------------------------------------

#: selection.md §5.2: one-shot mapping of the end's kind; any other kind (and no end) is error.
ONE_SHOT_REASONS = {"completed": "completed", "max-tokens": "max-tokens", "aborted": "aborted",
                    "blocked": "refusal"}
#: selection.md §5.3: continuable mapping; completed and no end depend on dropped unrun.
CONTINUABLE_REASONS = {"max-tokens": "max-tokens", "aborted": "aborted",
                       "interrupted": "aborted", "error": "error", "blocked": "refusal"}
#: selection.md §5.6: the headline of each stop reason of a failed tool result.
HEADLINES = {"aborted": "subagent run was cancelled", "error": "subagent run failed",
             "max-tokens": "subagent run hit its token limit before finishing",
             "refusal": "subagent declined the task"}
DIAGNOSTIC_LINE = "\nDiagnostic: "
PARTIAL_LINE = "\nPartial output before the run ended:\n"

_NO_TURN = object()


class Account:
    """The account of consumed work of selection.md §5.1: one pass, in log order."""

    def __init__(self) -> None:
        self.stepped: set[Any] = set()
        self.claimed: set[Any] = set()
        self.open: Any = _NO_TURN
        self.end: str | None = None
        self.has_end = False
        self.dropped = False

    # -- reading ---------------------------------------------------------------------------
    def turn_of(self, event: dict[str, Any], path: str) -> Any:
        data = event.get("data")
        turn = data.get("turn") if isinstance(data, dict) else None
        if not is_integer_value(turn):
            raise PortError(f"{path}.data.turn", turn, "is not an integer",
                            "give every turn and step event its integer turn number")
        return self.key(turn)

    def key(self, turn: Any) -> Any:
        """Turn numbers are numbers: 1 and 1.0 are one turn."""
        return int(turn)

    def push(self, event: Any, path: str) -> None:
        if not isinstance(event, dict):
            raise PortError(path, event, "is not a session event", "send an object")
        kind = event.get("type")
        if kind == "turn/start":
            self.on_turn_start(self.turn_of(event, path))
        elif kind == "step/start":
            self.on_step_start(self.turn_of(event, path))
        elif kind == "agent/inbox/spliced":
            data = event.get("data")
            if not isinstance(data, dict):
                raise PortError(f"{path}.data", data, "is not an object",
                                "an inbox splice carries its data as an object")
            self.on_splice(data, path)
        elif kind == "turn/end":
            turn = self.turn_of(event, path)
            reason = event["data"].get("reason")
            end_kind = reason.get("kind") if isinstance(reason, dict) else None
            if not isinstance(end_kind, str):
                raise PortError(f"{path}.data.reason.kind", end_kind, "is not a string",
                                "give every turn/end a reason with a string kind")
            self.on_turn_end(turn, end_kind)

    # -- the four steps ----------------------------------------------------------------------
    def on_turn_start(self, turn: Any) -> None:
        self.open = turn

    def on_step_start(self, turn: Any) -> None:
        self.stepped.add(turn)

    def is_removal(self, data: dict[str, Any]) -> bool:
        return "removedCount" in data

    def on_splice(self, data: dict[str, Any], path: str) -> None:
        if not self.is_removal(data):
            return
        if data.get("outcome") == "canceled":
            inserted = data.get("inserted")
            if not isinstance(inserted, list):
                raise PortError(f"{path}.data.inserted", inserted, "is not a list",
                                "a canceled removal lists what it inserted ([] for none)")
            self.on_cancellation(inserted)
        else:
            self.on_claim()

    def on_cancellation(self, inserted: list[Any]) -> None:
        if inserted == []:
            self.dropped = True

    def turn_is_open(self) -> bool:
        return self.open is not _NO_TURN

    def on_claim(self) -> None:
        if self.turn_is_open():
            self.claimed.add(self.open)

    def on_turn_end(self, turn: Any, kind: str) -> None:
        self.open = _NO_TURN
        if self.accounts(turn, kind):
            self.set_end(kind)

    def accounts(self, turn: Any, kind: str) -> bool:
        if turn in self.stepped:
            self.stepped.discard(turn)
            return True
        if turn in self.claimed:
            self.claimed.discard(turn)
            return kind != "completed"
        return False

    def set_end(self, kind: str) -> None:
        self.end = kind
        self.has_end = True
        self.dropped = False


# ---------------------------------------------------------------------------------------------
# The budget profile (spec/budget.md)
# ---------------------------------------------------------------------------------------------

STATUSES = frozenset({"pending", "running", "completed", "failed", "cancelled"})
#: budget.md §3.1: the members of a final record, in order (`truncated` last).
FINAL_MEMBERS = ("id", "agent", "status", "task", "output", "errorMessage", "stderr")
HEAVY = ("task", "output", "errorMessage", "stderr")
#: budget.md §4: which side of each heavy field is kept.
SIDES = {"task": "head", "errorMessage": "head", "output": "tail", "stderr": "tail"}
#: budget.md §5.2: the floor group of each heavy field.
GROUPS = {"task": "task", "output": "output", "errorMessage": "diagnostics",
          "stderr": "diagnostics"}
#: budget.md §5.4: claim orders.
FAILURE_ORDER = ("errorMessage", "stderr", "output", "task")
OTHER_ORDER = ("output", "errorMessage", "stderr", "task")
#: budget.md §3.2: identity clip, in code points.
IDENTITY_CLIP = 256
#: budget.md §6.1: the live record's floors.
LIVE_TASK_BYTES = 64
LIVE_OUTPUT_BYTES = 128


class FullPort(Port):
    """The blind port of all three profiles (halving fit for ``project``)."""

    name: ClassVar[str] = "blind-port-full"
    #: The account class settle folds the log into.
    account_class: ClassVar[type[Account]] = Account

    def start(self) -> dict[str, Any]:
        answer = super().start()
        answer["implementation"]["name"] = self.name
        answer["capabilities"]["ops"] = ["select", "fold", "settle", "classify", "project",
                                         "details", "roster", "lane", "publish"]
        return answer

    def run(self, op: str, input: Any) -> Any:
        if op == "settle":
            return self.settle(input)
        if op == "details":
            return self.details(input)
        if op == "roster":
            return self.roster(input)
        if op == "lane":
            return self.lane(input)
        if op == "publish":
            return self.publish(input)
        return super().run(op, input)

    # =========================================================================================
    # settle (selection.md §5)
    # =========================================================================================
    def settle(self, input: Any) -> Any:
        events = self._member(input, "events", "$")
        if not isinstance(events, list):
            raise PortError("$.events", events, "is not a list", "send the log as a list")
        continuable = self.is_continuable(input)
        if continuable:
            for member in ("cancelled", "diagnostic"):
                if member in input:
                    raise PortError(f"$.{member}", input[member], "is not read on the "
                                    "continuable path", f"leave {member} out of a continuable "
                                    "settle")
            cancelled = False
        else:
            cancelled = self._member(input, "cancelled", "$")
            if not isinstance(cancelled, bool):
                raise PortError("$.cancelled", cancelled, "is not a boolean",
                                "send true or false")
            if "diagnostic" in input and not isinstance(input["diagnostic"], str):
                raise PortError("$.diagnostic", input["diagnostic"], "is not a string",
                                "send a string or leave it out")
        fold = self.batch_class()
        account = self.account_class()
        for i, event in enumerate(events):
            fold.push_event(event, f"$.events[{i}]")
            account.push(event, f"$.events[{i}]")
        selection = fold.collect()
        if continuable:
            stop = self.continuable_reason(account)
        else:
            stop = self.one_shot_reason(account, cancelled)
        answer: dict[str, Any] = {"result": {"output": self.result_output(selection),
                                             "stopReason": stop},
                                  "end": self.lifecycle_end(stop, selection)}
        if self.has_tool_result(continuable):
            answer["toolResult"] = self.tool_result(stop, selection, input)
        return answer

    def is_continuable(self, input: dict[str, Any]) -> bool:
        mode = input.get("mode", "one-shot")
        if mode not in ("one-shot", "continuable"):
            raise PortError("$.mode", mode, "is not a settlement path",
                            'send "one-shot", "continuable", or leave it out')
        return bool(mode == "continuable")

    def recorded_reason(self, account: Account) -> str:
        """§5.2: the one-shot mapping of the end's kind."""
        if not account.has_end:
            return "error"
        return ONE_SHOT_REASONS.get(str(account.end), "error")

    def one_shot_reason(self, account: Account, cancelled: bool) -> str:
        """§5.2: the cancelled flag turns anything but completed into aborted."""
        recorded = self.recorded_reason(account)
        if cancelled and recorded != "completed":
            return "aborted"
        return recorded

    def continuable_reason(self, account: Account) -> str:
        """§5.3."""
        if not account.has_end or account.end == "completed":
            return "aborted" if account.dropped else "completed"
        return CONTINUABLE_REASONS.get(str(account.end), "error")

    def result_output(self, selection: list[Any] | None) -> list[Any]:
        return [] if selection is None else selection

    def lifecycle_end(self, stop: str, selection: list[Any] | None) -> dict[str, Any]:
        end: dict[str, Any] = {"stopReason": stop}
        if selection is not None:
            end["lastAssistantMessage"] = selection
        return end

    def has_tool_result(self, continuable: bool) -> bool:
        return not continuable

    def answer_text(self, selection: list[Any] | None) -> str:
        """§5.6: T, the text of the selection's text blocks."""
        pieces = []
        for i, block in enumerate(selection or []):
            if not isinstance(block, dict):
                raise PortError(f"$.output[{i}]", block, "is not a content block",
                                "send content blocks as objects")
            if block.get("type") == "text":
                text = block.get("text")
                if not isinstance(text, str):
                    raise PortError(f"$.output[{i}].text", text, "is not a string",
                                    "a text block carries a string text")
                pieces.append(text)
        return "".join(pieces)

    def headline(self, stop: str) -> str:
        return HEADLINES.get(stop, f"subagent run ended abnormally ({stop})")

    def tool_result(self, stop: str, selection: list[Any] | None,
                    input: dict[str, Any]) -> dict[str, Any]:
        text = self.answer_text(selection)
        if stop == "completed":
            return {"isError": False, "text": text}
        return {"isError": True, "text": self.error_text(stop, text, input)}

    def error_text(self, stop: str, text: str, input: dict[str, Any]) -> str:
        out = "Error: " + self.headline(stop)
        if "diagnostic" in input:
            out += DIAGNOSTIC_LINE + input["diagnostic"]
        if text != "":
            out += PARTIAL_LINE + text
        return out

    # =========================================================================================
    # details (budget.md §3-5)
    # =========================================================================================
    def check_record(self, record: Any, path: str) -> dict[str, Any]:
        if not isinstance(record, dict):
            raise PortError(path, record, "is not a task record", "send an object")
        for member in ("id", "agent", "task"):
            if not isinstance(record.get(member), str):
                raise PortError(f"{path}.{member}", record.get(member), "is not a string",
                                f"every task record has a string {member}")
        if record.get("status") not in STATUSES:
            raise PortError(f"{path}.status", record.get("status"), "is not a status",
                            "send pending, running, completed, failed or cancelled")
        for member in HEAVY:
            if member in record and not isinstance(record[member], str):
                raise PortError(f"{path}.{member}", record[member], "is not a string",
                                "a heavy field is a string, or left out")
        return record

    def records_of(self, input: Any) -> list[dict[str, Any]]:
        records = self._member(input, "records", "$")
        if not isinstance(records, list):
            raise PortError("$.records", records, "is not a list", "send the records as a list")
        return [self.check_record(r, f"$.records[{i}]") for i, r in enumerate(records)]

    def whole_number(self, input: Any, name: str, minimum: int) -> int:
        value = self._member(input, name, "$")
        if not is_integer_value(value) or value < minimum:
            raise PortError(f"$.{name}", value, f"is not an integer of at least {minimum}",
                            f"send an integer >= {minimum}")
        return int(value)

    # -- measure and cut (§1, §4) -------------------------------------------------------------
    def well_formed(self, text: str) -> str:
        return self.canon.well_formed(text)

    def cost_of(self, c: str) -> int:
        return self.canon.cost(c)

    def text_cost(self, text: str) -> int:
        return sum(self.cost_of(c) for c in text)

    def fits(self, total: int, allowance: int) -> bool:
        return total <= allowance

    def cut(self, value: str, allowance: int, side: str) -> tuple[str, bool]:
        """§4: the longest head or tail, in whole code points, costing at most allowance."""
        text = self.well_formed(value)
        order = text if side == "head" else reversed(text)
        total = 0
        k = 0
        for c in order:
            cost = self.cost_of(c)
            if not self.fits(total + cost, allowance):
                break
            total += cost
            k += 1
        return self.take(text, k, side), k < len(text)

    def take(self, text: str, k: int, side: str) -> str:
        return text[:k] if side == "head" else text[len(text) - k:]

    def side_of(self, field: str) -> str:
        return SIDES[field]

    def group_of(self, field: str) -> str:
        return GROUPS[field]

    def clip_identity(self, value: str) -> str:
        return self.well_formed(value)[:IDENTITY_CLIP]

    # -- the shared budget (§5) ---------------------------------------------------------------
    def is_failure(self, record: dict[str, Any]) -> bool:
        return bool(record["status"] == "failed")

    def claim_order(self, record: dict[str, Any]) -> tuple[str, ...]:
        return FAILURE_ORDER if self.is_failure(record) else OTHER_ORDER

    def share(self, remaining: int, n: int, i: int, shared: int) -> int:
        return remaining // (n - i)

    def floors_of(self, floors: dict[str, int]) -> dict[str, int]:
        """A fresh set of floors for one record (the diagnostics floor is one pot)."""
        return dict(floors)

    def allowance(self, floor_left: int, share_left: int) -> int:
        return floor_left + share_left

    def charge(self, cost: int, floor_left: int, share_left: int) -> tuple[int, int]:
        """Spend a kept field's cost: its floor first, then the share."""
        from_floor = min(cost, floor_left)
        return floor_left - from_floor, share_left - (cost - from_floor)

    def used(self, share: int, share_left: int, floors: dict[str, int],
             floors_left: dict[str, int]) -> int:
        return share - share_left

    def truncated_list(self, cut_fields: list[str]) -> list[str]:
        return [f for f in HEAVY if f in cut_fields]

    def final_record(self, record: dict[str, Any], kept: dict[str, str],
                     cut_fields: list[str]) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.clip_identity(record["id"]),
                               "agent": self.clip_identity(record["agent"]),
                               "status": record["status"]}
        for field in HEAVY:
            if field in kept:
                out[field] = kept[field]
        truncated = self.truncated_list(cut_fields)
        if truncated:
            out["truncated"] = truncated
        return out

    def details(self, input: Any) -> Any:
        records = self.records_of(input)
        remaining = self.whole_number(input, "sharedBytes", 0)
        shared = remaining
        floors = {"task": self.whole_number(input, "taskFloorBytes", 0),
                  "output": self.whole_number(input, "outputFloorBytes", 0),
                  "diagnostics": self.whole_number(input, "diagnosticFloorBytes", 0)}
        n = len(records)
        results = []
        for i, record in enumerate(records):
            share = self.share(remaining, n, i, shared)
            share_left = share
            floors_left = self.floors_of(floors)
            kept: dict[str, str] = {}
            cut_fields: list[str] = []
            for field in self.claim_order(record):
                if field not in record:
                    continue
                group = self.group_of(field)
                allowance = self.allowance(floors_left[group], share_left)
                value, was_cut = self.cut(record[field], allowance, self.side_of(field))
                kept[field] = value
                if was_cut:
                    cut_fields.append(field)
                floors_left[group], share_left = self.charge(self.text_cost(value),
                                                             floors_left[group], share_left)
            remaining -= self.used(share, share_left, floors, floors_left)
            results.append(self.final_record(record, kept, cut_fields))
        return {"results": results}

    # =========================================================================================
    # roster (budget.md §6)
    # =========================================================================================
    def live_record(self, record: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.clip_identity(record["id"]),
                               "agent": self.clip_identity(record["agent"]),
                               "status": record["status"],
                               "task": self.cut(record["task"], LIVE_TASK_BYTES, "head")[0]}
        if "output" in record:
            out["output"] = self.cut(record["output"], LIVE_OUTPUT_BYTES, "tail")[0]
        return out

    def bytes_of(self, value: Any) -> int:
        return self.canon.size(self.canon.serialize(value))

    def array_size(self, sizes: list[int]) -> int:
        """§6.2: the size of the serialized array of these items."""
        return 2 + sum(sizes) + max(0, len(sizes) - 1)

    def roster_fits(self, size: int, max_bytes: int) -> bool:
        return size <= max_bytes

    def roster_prefix(self, live: list[dict[str, Any]], max_bytes: int) -> list[dict[str, Any]]:
        sizes: list[int] = []
        kept: list[dict[str, Any]] = []
        for record in live:
            size = self.bytes_of(record)
            if not self.roster_fits(self.array_size([*sizes, size]), max_bytes):
                break
            sizes.append(size)
            kept.append(record)
        return kept

    def with_count(self, value: dict[str, Any], omitted: int) -> dict[str, Any]:
        if omitted > 0:
            value["omittedResults"] = omitted
        return value

    def roster(self, input: Any) -> Any:
        records = self.records_of(input)
        max_bytes = self.whole_number(input, "maxBytes", 2)
        live = [self.live_record(r) for r in records]
        kept = self.roster_prefix(live, max_bytes)
        return self.with_count({"results": kept}, self.roster_omitted(len(records), kept))

    def roster_omitted(self, n: int, kept: list[Any]) -> int:
        return n - len(kept)

    # =========================================================================================
    # lane (budget.md §7)
    # =========================================================================================
    def update_total(self, update: dict[str, Any]) -> int:
        return len(update["results"]) + int(update.get("omittedResults", 0))

    def merge(self, merged: list[Any], results: list[Any], total: int) -> list[Any]:
        return (results + merged[len(results):])[:total]

    def lane_total(self, update: dict[str, Any], previous: int | None) -> int:
        return self.update_total(update)

    def lane_omitted(self, total: int, merged: list[Any], update: dict[str, Any]) -> int:
        return total - len(merged)

    def state_results(self, merged: list[Any]) -> list[Any]:
        return list(merged)

    def lane(self, input: Any) -> Any:
        updates = self._member(input, "updates", "$")
        if not isinstance(updates, list):
            raise PortError("$.updates", updates, "is not a list", "send the rosters as a list")
        merged: list[Any] = []
        previous: int | None = None
        states = []
        for i, update in enumerate(updates):
            path = f"$.updates[{i}]"
            if not isinstance(update, dict) or not isinstance(update.get("results"), list):
                raise PortError(path, update, "is not a roster", "send {\"results\": [...]}")
            omitted = update.get("omittedResults", 1)
            if not is_integer_value(omitted) or omitted < 1:
                raise PortError(f"{path}.omittedResults", omitted, "is not an integer >= 1",
                                "leave the count out at zero")
            total = self.lane_total(update, previous)
            merged = self.merge(merged, update["results"], total)
            states.append(self.with_count({"total": total, "results": self.state_results(merged)},
                                          self.lane_omitted(total, merged, update)))
            previous = total
        return {"states": states}

    # =========================================================================================
    # publish (budget.md §8)
    # =========================================================================================
    def split_timeline(self, events: list[Any]) -> tuple[list[dict[str, Any]], int]:
        """The changes before the return, and the return's time (§8.1)."""
        returns = [i for i, e in enumerate(events) if isinstance(e, dict)
                   and e.get("kind") == "return"]
        if len(returns) != 1:
            raise PortError("$.events", len(returns), "returns in the timeline",
                            "send exactly one return event")
        last_at = -1
        for i, event in enumerate(events):
            raw: Any = event.get("at") if isinstance(event, dict) else None
            if not is_integer_value(raw) or raw < 0:
                raise PortError(f"$.events[{i}].at", raw, "is not a time",
                                "send integer milliseconds >= 0")
            at = int(raw)
            if at < last_at:
                raise PortError(f"$.events[{i}].at", at, "goes back in time",
                                "send the timeline in non-decreasing at")
            last_at = at
            kind = event.get("kind")
            if kind not in ("update", "status", "return"):
                raise PortError(f"$.events[{i}].kind", kind, "is not an event kind",
                                "send update, status or return")
            if kind != "return" and "state" not in event:
                raise PortError(f"$.events[{i}].state", None, "is missing",
                                "a change carries its state")
        r = returns[0]
        return self.changes_of(events, r), int(events[r]["at"])

    def changes_of(self, events: list[Any], r: int) -> list[dict[str, Any]]:
        return list(events[:r])

    def coalesce(self, changes: list[dict[str, Any]]) -> list[tuple[int, Any]]:
        """§8.2: changes with the same at are one change, the last one's state."""
        out: list[tuple[int, Any]] = []
        for change in changes:
            at = int(change["at"])
            if out and out[-1][0] == at:
                out[-1] = (at, change["state"])
            else:
                out.append((at, change["state"]))
        return out

    def due(self, t: int, last: int | None, window: int) -> bool:
        return last is None or t >= last + window

    def publish(self, input: Any) -> Any:
        window = self.whole_number(input, "intervalMs", 1)
        events = self._member(input, "events", "$")
        if not isinstance(events, list):
            raise PortError("$.events", events, "is not a list", "send the timeline as a list")
        changes, returned = self.split_timeline(events)
        publishes: list[dict[str, Any]] = []
        last: int | None = None
        pending: list[Any] = []  # [] or [state]
        for at, state in self.coalesce(changes):
            if pending and last is not None and self.trailing_due(last + window, at):
                last = self.trailing(publishes, last + window, pending)
            if self.due(at, last, window):
                publishes.append({"at": at, "state": state})
                last = at
                pending = []
            else:
                pending = [state]
                last = self.on_pending(at, last)
        self.flush(publishes, pending, last, window, returned)
        return {"publishes": publishes}

    def trailing_due(self, window_end: int, at: int) -> bool:
        """§8.2: the window ended before this change; a change exactly at its end carries it."""
        return window_end < at

    def on_pending(self, at: int, last: int | None) -> int | None:
        """A pending change does not move the window: it runs from the last publish."""
        return last

    def trailing(self, publishes: list[dict[str, Any]], at: int, pending: list[Any]) -> int:
        publishes.append({"at": at, "state": pending.pop()})
        return at

    def flush(self, publishes: list[dict[str, Any]], pending: list[Any], last: int | None,
              window: int, returned: int) -> None:
        """§8.3: the pending state at the end of its window, or at the return if sooner."""
        if pending and last is not None:
            publishes.append({"at": min(last + window, returned), "state": pending[-1]})


__all__ = ["Account", "Canon", "Fold", "FullPort"]
