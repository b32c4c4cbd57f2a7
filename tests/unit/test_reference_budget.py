"""The reference's budget profile (spec/budget.md), section by section, with every branch."""

from __future__ import annotations

from typing import Any

import pytest
from eventproof.reference import (
    DEFAULT_DIAGNOSTIC_FLOOR_BYTES,
    DEFAULT_INTERVAL_MS,
    DEFAULT_OUTPUT_FLOOR_BYTES,
    DEFAULT_ROSTER_BYTES,
    DEFAULT_SHARED_BYTES,
    DEFAULT_TASK_FLOOR_BYTES,
    InvalidInput,
    Reference,
    canonical_bytes,
    final_details,
    live_roster,
    merge_lane,
    publish_schedule,
)
from eventproof.reference._budget import cost, cut, live_record


def record(i: int = 0, **members: Any) -> dict[str, Any]:
    return {"id": f"call_{i}", "agent": "worker", "status": "completed", "task": f"task {i}",
            **members}


def details(records: list[dict[str, Any]], shared: int = 0, task: int = 0, output: int = 0,
            diagnostics: int = 0) -> list[dict[str, Any]]:
    answer = final_details(records, shared_bytes=shared, task_floor_bytes=task,
                           output_floor_bytes=output, diagnostic_floor_bytes=diagnostics)
    return answer["results"]  # type: ignore[no-any-return]


def test_the_host_numbers() -> None:
    """§5.1, §6.2, §8.1: 128 KiB shared, floors 64/128/64, 48 KiB roster, 100 ms."""
    assert DEFAULT_SHARED_BYTES == 128 * 1024
    assert (DEFAULT_TASK_FLOOR_BYTES, DEFAULT_OUTPUT_FLOOR_BYTES,
            DEFAULT_DIAGNOSTIC_FLOOR_BYTES) == (64, 128, 64)
    assert DEFAULT_ROSTER_BYTES == 48 * 1024
    assert DEFAULT_INTERVAL_MS == 100


# -- §4 cut --------------------------------------------------------------------------------------


def test_cut_measures_escaped_bytes_and_counts_code_points() -> None:
    """A control character costs 6 bytes, an astral character 4; cuts never split either."""
    assert cost("\x00a\n\U0001f600é") == 6 + 1 + 2 + 4 + 2
    assert cut("\x00\x00\x00", 12, "head") == "\x00\x00"
    assert cut("\x00\x00\x00", 11, "tail") == "\x00"
    assert cut("a\U0001f600", 4, "head") == "a"
    assert cut("a\U0001f600", 4, "tail") == "\U0001f600"
    assert cut("abc", 3, "tail") == "abc"
    assert cut("abc", 10**6, "head") == "abc"
    assert cut("ab", 1, "head") == "a"  # the loop stops at the first code point over


@pytest.mark.parametrize("side", ["head", "tail"])
def test_a_zero_allowance_keeps_nothing_never_the_whole_value(side: str) -> None:
    """§4: allowance 0 is "", allowance 1 keeps one one-byte code point, or nothing."""
    assert cut("x" * 300_000, 0, side) == ""
    assert cut("x" * 300_000, -5, side) == ""
    assert cut("xy", 1, side) == ("x" if side == "head" else "y")
    assert cut("\x00", 1, side) == ""


def test_cut_well_forms_first() -> None:
    """A lone surrogate is U+FFFD (3 bytes), a split pair joined into one code point."""
    assert cut("\ud800z", 3, "head") == "\ufffd"
    assert cut("\ud83d\ude00", 10, "head") == "\U0001f600"


# -- §3, §5 details -------------------------------------------------------------------------------


def test_final_record_members_order_and_allowlist() -> None:
    """§3.1: identity, heavy fields in member order, truncated; nothing of the task record
    beyond the allow-list (messages, sessionFile)."""
    [out] = details([record(output="o" * 10, errorMessage="e", stderr="s", messages=[{}],
                            sessionFile="/tmp/x")], shared=5, output=2)
    assert list(out) == ["id", "agent", "status", "task", "output", "errorMessage", "stderr",
                         "truncated"]
    assert out["output"] == "o" * 7
    assert out["truncated"] == ["task", "output", "errorMessage", "stderr"]
    assert (out["task"], out["errorMessage"], out["stderr"]) == ("", "", "")


def test_identity_is_clipped_and_never_charged() -> None:
    """§3.2: ids keep their first 256 code points, whatever the budget."""
    [out] = details([{**record(), "id": "\x00" * 300, "agent": "a" * 257}])
    assert out["id"] == "\x00" * 256
    assert out["agent"] == "a" * 256
    assert "truncated" in out


def test_fair_share_divides_what_is_left_by_the_records_left() -> None:
    """§5.3 and the example of §5.7."""
    records = [
        record(0, output="a" * 1000, task="Review src/auth.ts"),
        {**record(1, output="b" * 400, task="Run the tests"), "status": "failed",
         "errorMessage": "Error: exit code 1", "stderr": "e" * 300},
        record(2, output="done", task="Write the notes"),
    ]
    out = details(records, shared=300, task=64, output=128, diagnostics=64)
    assert len(out[0]["output"]) == 228
    assert out[0]["truncated"] == ["output"]
    assert out[1]["errorMessage"] == "Error: exit code 1"
    assert len(out[1]["stderr"]) == 146
    assert len(out[1]["output"]) == 128
    assert out[1]["truncated"] == ["output", "stderr"]
    assert out[2] == {"id": "call_2", "agent": "worker", "status": "completed",
                      "task": "Write the notes", "output": "done"}


def test_unused_share_stays_for_later_records() -> None:
    """A record that needs less than its share leaves it to the records after it."""
    out = details([record(0, output="x"), record(1, output="y" * 100)], shared=100)
    # Record 0's share is 50; it uses 7 ("x" and "task 0"), so record 1's share is 93.
    assert out[1]["output"] == "y" * 93
    assert out[1]["task"] == ""
    assert "truncated" not in out[0]


def test_a_failure_claims_its_diagnostics_before_its_output() -> None:
    """§5.4: with a share of 10, a failure's errorMessage gets it; a completed record's output
    does."""
    failed = {**record(output="o" * 20, errorMessage="e" * 20), "status": "failed"}
    [out] = details([failed], shared=10)
    assert (out["errorMessage"], out["output"]) == ("e" * 10, "")
    [out] = details([{**failed, "status": "completed"}], shared=10)
    assert (out["errorMessage"], out["output"]) == ("", "o" * 10)


def test_the_diagnostics_floor_is_shared_errormessage_first() -> None:
    """§5.2: errorMessage then stderr draw on one floor."""
    [out] = details([{**record(errorMessage="e" * 5, stderr="s" * 10), "status": "failed"}],
                    diagnostics=8)
    assert (out["errorMessage"], out["stderr"]) == ("e" * 5, "sss")


def test_details_stay_bounded_whatever_the_output_size() -> None:
    """§5.6: the bytes of 200 records do not depend on how large their answers are."""
    def total(size: int) -> int:
        records = [record(i, output="\x00" * size) for i in range(200)]
        return len(canonical_bytes(final_details(records)))
    assert total(300_000) == total(30_000)
    assert total(300_000) < 128 * 1024 + 200 * 400


def test_an_empty_batch() -> None:
    assert final_details([]) == {"results": []}


# -- §6 roster -----------------------------------------------------------------------------------


def test_live_record_is_the_allowlist_at_the_live_sizes() -> None:
    """§6.1: id, agent, status, task head (64 bytes), output tail (128 bytes)."""
    live = live_record({**record(task="t" * 100, output="o" * 200), "messages": [1],
                        "errorMessage": "x"})
    assert live == {"id": "call_0", "agent": "worker", "status": "completed", "task": "t" * 64,
                    "output": "o" * 128}
    assert "output" not in live_record(record())


def test_roster_stops_at_the_first_record_that_does_not_fit() -> None:
    """§6.2-6.3: a roster that fits exactly is whole; one byte less drops the last record and
    counts it."""
    records = [record(i) for i in range(3)]
    whole = live_roster(records, max_bytes=10**6)
    exact = len(canonical_bytes(whole["results"]))
    assert whole == live_roster(records, max_bytes=exact)
    assert "omittedResults" not in whole
    short = live_roster(records, max_bytes=exact - 1)
    assert short == {"results": whole["results"][:2], "omittedResults": 1}
    assert live_roster(records, max_bytes=2) == {"results": [], "omittedResults": 3}


def test_a_1000_task_roster_is_bounded_with_a_true_count() -> None:
    records = [record(i, output="\x00" * 500) for i in range(1000)]
    roster = live_roster(records)
    assert len(canonical_bytes(roster["results"])) <= DEFAULT_ROSTER_BYTES
    assert len(roster["results"]) + roster["omittedResults"] == 1000


# -- §7 lane -------------------------------------------------------------------------------------


def _update(n: int, shown: int, status: str = "running") -> dict[str, Any]:
    rows = [{"id": f"t{i}", "agent": "w", "status": status, "task": "x"} for i in range(n)]
    update: dict[str, Any] = {"results": rows[:shown]}
    if n > shown:
        update["omittedResults"] = n - shown
    return update


def test_lane_merges_by_index_and_recomputes_the_count() -> None:
    """§7: a complete 3-task roster, then "1 record + 2 omitted": 3 tasks, count absent."""
    first, second = _update(3, 3), _update(3, 1, "completed")
    states = merge_lane([first, second])["states"]
    assert states[0] == {"total": 3, "results": first["results"]}
    assert states[1] == {"total": 3,
                         "results": second["results"] + first["results"][1:]}


def test_lane_counts_what_it_has_not_seen_and_caps_at_the_total() -> None:
    """A 600-task lane reports 600 throughout; a smaller batch on a reused lane is capped."""
    states = merge_lane([_update(600, 174), _update(600, 150)])["states"]
    assert [(s["total"], len(s["results"]), s["omittedResults"]) for s in states] == [
        (600, 174, 426), (600, 174, 426)]
    [_, reused] = merge_lane([_update(5, 5), _update(2, 1)])["states"]
    assert reused["total"] == 2
    assert len(reused["results"]) == 2
    assert merge_lane([]) == {"states": []}


# -- §8 publish ------------------------------------------------------------------------------------


def _events(*items: tuple[int, str, Any]) -> list[dict[str, Any]]:
    return [{"at": at, "kind": kind, **({} if kind == "return" else {"state": state})}
            for at, kind, state in items]


def test_publish_coalesces_updates_and_transitions_alike() -> None:
    """§8.2: leading edge at 0, the window's end at 100 with the newest state, the flush at the
    return, the late callback dropped."""
    events = _events((0, "update", 1), (10, "status", 2), (20, "status", 3),
                     (150, "update", 4), (160, "return", None), (170, "status", 5))
    assert publish_schedule(events)["publishes"] == [
        {"at": 0, "state": 1}, {"at": 100, "state": 3}, {"at": 160, "state": 4}]


def test_changes_exactly_one_window_apart_publish_at_once() -> None:
    events = _events((0, "update", 1), (100, "update", 2), (200, "update", 3),
                     (200, "return", None))
    assert publish_schedule(events)["publishes"] == [
        {"at": 0, "state": 1}, {"at": 100, "state": 2}, {"at": 200, "state": 3}]


def test_changes_of_one_instant_are_one_change() -> None:
    """The last state of an instant is published; a change at the window's end carries it."""
    events = _events((0, "update", 1), (0, "status", 2), (50, "update", 3),
                     (100, "status", 4), (100, "status", 5), (101, "return", None))
    assert publish_schedule(events)["publishes"] == [
        {"at": 0, "state": 2}, {"at": 100, "state": 5}]


def test_a_waiting_state_is_published_at_the_window_end_before_the_return() -> None:
    events = _events((0, "update", 1), (30, "update", 2), (500, "return", None))
    assert publish_schedule(events, interval_ms=100)["publishes"] == [
        {"at": 0, "state": 1}, {"at": 100, "state": 2}]
    assert publish_schedule(_events((7, "return", None)))["publishes"] == []


# -- invalid input (§9) ---------------------------------------------------------------------------


@pytest.mark.parametrize(("op", "op_input", "path"), [
    ("details", {"records": {}}, "$.records"),
    ("details", {"records": [1]}, "$.records[0]"),
    ("details", {"records": [{**record(), "status": "done"}]}, "$.records[0].status"),
    ("details", {"records": [{"agent": "a", "status": "running", "task": "t"}]},
     "$.records[0].id"),
    ("details", {"records": [record(output=None)]}, "$.records[0].output"),
    ("details", {"records": [], "sharedBytes": -1}, "$.sharedBytes"),
    ("details", {"records": [], "sharedBytes": True}, "$.sharedBytes"),
    ("details", {"records": [], "sharedBytes": 1.5}, "$.sharedBytes"),
    ("roster", {"records": [], "maxBytes": 1}, "$.maxBytes"),
    ("lane", {"updates": [[]]}, "$.updates[0]"),
    ("lane", {"updates": [{"results": {}}]}, "$.updates[0].results"),
    ("lane", {"updates": [{"results": [1]}]}, "$.updates[0].results[0]"),
    ("lane", {"updates": [{"results": [], "omittedResults": 0}]},
     "$.updates[0].omittedResults"),
    ("publish", {"intervalMs": 0, "events": []}, "$.intervalMs"),
    ("publish", {"events": [{"at": 5, "kind": "return"}, {"at": 4, "kind": "update",
                                                          "state": 1}]}, "$.events[1].at"),
    ("publish", {"events": [{"at": 0, "kind": "return"}, {"at": 0, "kind": "return"}]},
     "$.events[1].kind"),
    ("publish", {"events": [{"at": 0, "kind": "update"}]}, "$.events[0].state"),
    ("publish", {"events": [{"at": 0, "kind": "tick", "state": 1}]}, "$.events[0].kind"),
    ("publish", {"events": [{"at": 0, "kind": "update", "state": 1}]}, "$.events"),
    ("publish", {"events": [[]]}, "$.events[0]"),
    # §1: integers are at most 2^53 - 1, and so is a lane update's total.
    ("details", {"records": [], "diagnosticFloorBytes": 2**53}, "$.diagnosticFloorBytes"),
    ("roster", {"records": [], "maxBytes": 2**64}, "$.maxBytes"),
    ("lane", {"updates": [{"results": [], "omittedResults": 2**53}]},
     "$.updates[0].omittedResults"),
    ("lane", {"updates": [{"results": [{}, {}], "omittedResults": 2**53 - 2}]},
     "$.updates[0].omittedResults"),
    ("publish", {"intervalMs": float(2**60), "events": [{"at": 0, "kind": "return"}]},
     "$.intervalMs"),
    ("publish", {"events": [{"at": 2**53, "kind": "return"}]}, "$.events[0].at"),
])
def test_invalid_input_is_refused_naming_the_path(op: str, op_input: dict[str, Any],
                                                   path: str) -> None:
    defaults = {"details": {"sharedBytes": 0, "taskFloorBytes": 0, "outputFloorBytes": 0,
                            "diagnosticFloorBytes": 0},
                "roster": {"maxBytes": 100}, "lane": {}, "publish": {"intervalMs": 100}}[op]
    with pytest.raises(InvalidInput) as raised:
        Reference().run(op, {**defaults, **op_input})
    assert raised.value.path == path


def test_integral_floats_are_integers() -> None:
    """4096.0 is 4096, as in JSON Schema's integer."""
    assert live_roster([record()], max_bytes=4096.0) == live_roster([record()], max_bytes=4096)


def test_reference_dispatches_every_budget_operation() -> None:
    reference = Reference()
    assert {"details", "roster", "lane", "publish"} <= set(reference.start()["capabilities"]
                                                           ["ops"])
    assert reference.run("details", {"records": [], "sharedBytes": 0, "taskFloorBytes": 0,
                                     "outputFloorBytes": 0, "diagnosticFloorBytes": 0}) == {
        "results": []}
    assert reference.run("roster", {"records": [], "maxBytes": 2}) == {"results": []}
    assert reference.run("lane", {"updates": []}) == {"states": []}
    assert reference.run("publish", {"intervalMs": 100, "events": [
        {"at": 0, "kind": "return"}]}) == {"publishes": []}
