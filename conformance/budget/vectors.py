"""The budget profile's vector sources (spec/budget.md): hand-written inputs, one builder per rule
group; the reference computes the answers when ``spec/vectors/`` is generated.

Every input is valid (spec/budget.md §9 leaves invalid input to a SHOULD that no check judges),
and big values repeat a short unit, so each file stays small enough to read.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from eventproof.reference import canonical_bytes, live_roster
from eventproof.reference._canonical import MAX_SAFE_INTEGER

from .._model import VectorSource

JSON = Any

# -- task records (spec/budget.md §2) ----------------------------------------------------------


def _record(i: int, status: str = "completed", task: str | None = None, **fields: str) -> JSON:
    """A task record: ``call_<i>`` run by ``worker``, the task ``Step <i>`` unless given."""
    return {"id": f"call_{i}", "agent": "worker", "status": status,
            "task": task if task is not None else f"Step {i}", **fields}


def _details(*records: JSON, shared: int = 131072, task: int = 64, output: int = 128,
             diagnostic: int = 64) -> JSON:
    return {"records": list(records), "sharedBytes": shared, "taskFloorBytes": task,
            "outputFloorBytes": output, "diagnosticFloorBytes": diagnostic}


def _roster(*records: JSON, max_bytes: float = 49152) -> JSON:
    return {"records": list(records), "maxBytes": max_bytes}


def _roster_size(records: tuple[JSON, ...]) -> int:
    """The size of the serialized live array of ``records`` (budget.md §6.2)."""
    return len(canonical_bytes(live_roster(list(records), max_bytes=MAX_SAFE_INTEGER)["results"]))


#: The example of spec/budget.md §5.7.
_EXAMPLE = _details(
    _record(0, output="a" * 1000),
    _record(1, "failed", output="b" * 400, errorMessage="Error: exit code 1", stderr="e" * 300),
    _record(2, output="done"),
    shared=300)


# -- budget.md §3-5 ------------------------------------------------------------------------------

def details_sources() -> Iterator[VectorSource]:
    rule = "details.allowlist"
    yield VectorSource(rule, "runner-members-dropped", "members the runner adds (messages, "
                       "sessionFile, usage) never reach a final record",
                       _details({**_record(0, output="done"),
                                 "messages": [{"role": "assistant", "content": [
                                     {"type": "text", "text": "done"}]}],
                                 "sessionFile": "/tmp/session-0.jsonl",
                                 "usage": {"input": 1200, "output": 4}}))
    yield VectorSource(rule, "member-order", "a final record writes its members in the order "
                       "of budget.md §3.1, whatever the task record's order",
                       _details({"stderr": "warn", "errorMessage": "Error: boom",
                                 "output": "partial", "task": "Build it", "status": "failed",
                                 "agent": "builder", "id": "call_7"}))
    yield VectorSource(rule, "absent-fields-stay-absent", "a record with a task only has no "
                       "output, errorMessage or stderr member and no truncated",
                       _details(_record(0, "running")))
    yield VectorSource(rule, "empty-fields-stay-present", "present but empty fields stay "
                       "present as \"\", even with no budget",
                       _details(_record(0, "failed", output="", errorMessage="", stderr=""),
                                shared=0, task=0, output=0, diagnostic=0))

    rule = "details.identity"
    yield VectorSource(rule, "ids-clipped-to-256", "an id and an agent of 300 code points keep "
                       "their first 256",
                       _details({**_record(0), "id": "i" * 300, "agent": "w" * 256 + "xyz"}))
    yield VectorSource(rule, "astral-ids-clipped-in-code-points", "an id of 300 astral "
                       "characters keeps 256 code points, not 256 UTF-16 units",
                       _details({**_record(0), "id": "\U0001f600" * 300}))
    yield VectorSource(rule, "order-and-status", "one record per task record, in order, each "
                       "with its own status, whatever the budget",
                       _details(*(_record(i, status, output="x" * 50) for i, status in
                                  enumerate(("cancelled", "pending", "failed", "running",
                                             "completed"))), shared=0, task=0, output=0,
                                diagnostic=0))
    yield VectorSource(rule, "lone-surrogate-id", "a lone surrogate in an id becomes U+FFFD",
                       _details({**_record(0), "id": "call_\ud800_1", "agent": "\udc00w"}))

    rule = "details.cut"
    yield VectorSource(rule, "task-head-output-tail", "the task keeps its head and the output "
                       "its tail, each at its floor",
                       _details(_record(0, task="head " + "t" * 100, output="o" * 100 + " tail"),
                                shared=0, task=10, output=10))
    yield VectorSource(rule, "error-head-stderr-tail", "errorMessage keeps its head and stderr "
                       "its tail",
                       _details(_record(0, "failed", errorMessage="Error: " + "m" * 80),
                                _record(1, "failed", stderr="s" * 80 + " at line 3"),
                                shared=0, diagnostic=20))
    yield VectorSource(rule, "astral-never-split", "an astral character is kept whole or not at "
                       "all: 7 bytes keep one of them, never a lone surrogate",
                       _details(_record(0, task="\U0001f600" * 5, output="\U0001f600" * 5),
                                shared=0, task=7, output=7))
    yield VectorSource(rule, "escape-never-split", "a control character costs 6 bytes: 11 bytes "
                       "keep one \\u0000, never a piece of its escape",
                       _details(_record(0, output="\x00" * 10), shared=0, output=11))
    yield VectorSource(rule, "truncated-lists-cut-fields", "truncated lists exactly the fields "
                       "kept shorter, in member order; a field that fits is not listed",
                       _details(_record(0, "failed", task="short", output="o" * 300,
                                        errorMessage="Error: short", stderr="s" * 300),
                                shared=0))
    yield VectorSource(rule, "lone-surrogate-value", "a field is cut from its well-formed "
                       "value: a lone surrogate counts as U+FFFD (3 bytes)",
                       _details(_record(0, output="ab\udc00cd"), shared=0, output=5))

    rule = "details.task"
    yield VectorSource(rule, "task-survives-spent-budget", "after one record spends the shared "
                       "budget, every later record still keeps its task's head",
                       _details(_record(0, task="t" * 500, output="o" * 5000),
                                *(_record(i, task=f"Task {i} " + "t" * 500) for i in range(1, 4)),
                                shared=200))
    yield VectorSource(rule, "astral-task-one-code-point", "a task floor of 4 bytes keeps one "
                       "astral character",
                       _details(_record(0, task="\U0001f600\U0001f601"), shared=0, task=4))

    rule = "details.output"
    yield VectorSource(rule, "output-survives-huge-first", "a 10,000-byte output first in the "
                       "batch does not leave the later records with no output",
                       _details(_record(0, output="a" * 10000),
                                *(_record(i, output=f"answer {i} " + "b" * 1000)
                                  for i in range(1, 5)), shared=400))
    yield VectorSource(rule, "control-output-one-escape", "control-character output keeps one "
                       "\\u0000 in a 6-byte floor",
                       _details(_record(0, output="\x00" * 100), shared=0, output=6))

    rule = "details.reason"
    yield VectorSource(rule, "error-message-head-kept", "a failure keeps its errorMessage's head "
                       "with no shared budget left, its output notwithstanding",
                       _details(_record(0, output="o" * 4000),
                                _record(1, "failed", output="p" * 4000,
                                        errorMessage="Error: exit code 1\n" + "trace " * 50),
                                shared=100))
    yield VectorSource(rule, "stderr-without-error-message", "a failure without errorMessage "
                       "keeps the tail of its stderr",
                       _details(_record(0, "failed", output="o" * 500,
                                        stderr="noise " * 40 + "fatal: disk full"), shared=0))
    yield VectorSource(rule, "empty-error-message-uses-stderr", "an empty errorMessage leaves "
                       "the reason to stderr, which keeps its tail",
                       _details(_record(0, "failed", errorMessage="", stderr="x" * 200 + "END"),
                                shared=0, diagnostic=8))

    rule = "details.fair-share"
    yield VectorSource(rule, "equal-shares", "four records of 1,000 bytes and 400 shared bytes "
                       "without floors: 100 bytes each",
                       _details(*(_record(i, task="", output=str(i) * 1000) for i in range(4)),
                                shared=400, task=0, output=0, diagnostic=0))
    yield VectorSource(rule, "small-records-leave-room", "records that need less than their "
                       "share leave the rest to the last one",
                       _details(_record(0, task="", output="ok"), _record(1, task="", output="ok"),
                                _record(2, task="", output="z" * 1000),
                                shared=300, task=0, output=0, diagnostic=0))
    yield VectorSource(rule, "shares-past-32-bits", "a shared budget past 2^32 bytes, and a "
                       "share past 2^31, are budgets like any other: two outputs of 5,000 bytes "
                       "are kept whole",
                       _details(*(_record(i, task="", output=str(i) * 5000) for i in range(2)),
                                shared=2**32 + 6000, task=0, output=0, diagnostic=0))
    yield VectorSource(rule, "spec-example", "the example of budget.md §5.7", _EXAMPLE)
    yield VectorSource(rule, "share-rounds-down", "a share is rounded down: 10 bytes over 3 "
                       "records give 3, 3 and 4",
                       _details(*(_record(i, task="", output="q" * 20) for i in range(3)),
                                shared=10, task=0, output=0, diagnostic=0))

    rule = "details.claim-order"
    yield VectorSource(rule, "failure-claims-diagnostics-first", "a failure's stderr takes the "
                       "share before its output, which gets its floor only",
                       _details(_record(0, "failed", output="o" * 500, stderr="s" * 500),
                                shared=100))
    yield VectorSource(rule, "output-before-task", "a completed record's output takes the share "
                       "before its task, which gets its floor only",
                       _details(_record(0, task="t" * 500, output="o" * 500), shared=100))
    yield VectorSource(rule, "error-message-before-stderr", "a failure's errorMessage claims "
                       "before its stderr, both from one diagnostics floor",
                       _details(_record(0, "failed", errorMessage="E" * 100, stderr="s" * 100),
                                shared=20, diagnostic=30))
    yield VectorSource(rule, "cancelled-claims-output-first", "a cancelled record (not a "
                       "failure) claims its output before its errorMessage",
                       _details(_record(0, "cancelled", output="o" * 300, errorMessage="E" * 300),
                                shared=50, output=10, diagnostic=10))

    rule = "details.rejected"
    yield VectorSource(rule, "zero-allowance-keeps-nothing", "no shared budget and zero floors: "
                       "every heavy field keeps \"\", never the whole value",
                       _details(_record(0, "failed", output="o" * 50, errorMessage="E" * 50,
                                        stderr="s" * 50), shared=0, task=0, output=0,
                                diagnostic=0))
    yield VectorSource(rule, "allowance-one", "an allowance of 1 byte keeps one ASCII code point "
                       "and nothing of a 2-byte one",
                       _details(_record(0, task="\u00e9t", output="ab"), shared=0, task=1,
                                output=1, diagnostic=0))
    yield VectorSource(rule, "exhausted-budget", "once the first record spent the shared budget, "
                       "later fields are cut at their floors",
                       _details(_record(0, output="a" * 3000), _record(1, output="b" * 3000),
                                _record(2, output="c" * 3000), shared=90, output=4))
    yield VectorSource(rule, "allowance-exactly-the-cost", "a field costing exactly its "
                       "allowance is kept whole and not truncated",
                       _details(_record(0, task="", output="\x00" * 5 + "abcd"), shared=0,
                                output=34))

    rule = "details.bounded"
    yield VectorSource(rule, "control-characters-charged", "control-character output and stderr "
                       "are charged at 6 bytes a character",
                       _details(*(_record(i, "failed" if i % 2 else "completed",
                                          output="\x1b" * 400, stderr="\x00" * 400,
                                          **({"errorMessage": "Error: exit 1"} if i % 2 else {}))
                                  for i in range(6)), shared=600))
    yield VectorSource(rule, "many-records-small-budget", "twenty 2,000-byte answers under a "
                       "500-byte shared budget",
                       _details(*(_record(i, task=f"Review part {i}", output="w" * 2000)
                                  for i in range(20)), shared=500))
    yield VectorSource(rule, "chain-tasks", "a chain whose every task splices the previous "
                       "2,000-byte answer",
                       _details(*(_record(i, task="Improve:\n" + "r" * 2000 * (i > 0),
                                          output="r" * 2000) for i in range(4)), shared=500))

    rule = "details.agrees"
    yield VectorSource(rule, "empty-batch", "an empty batch has no results", _details())
    yield VectorSource(rule, "spec-example", "the example of budget.md §5.7, every member",
                       _EXAMPLE)
    yield VectorSource(rule, "everything-fits", "with the host's budget every field is kept "
                       "whole and nothing is truncated",
                       _details(_record(0, output="done"),
                                _record(1, "failed", errorMessage="Error: boom", stderr="trace")))
    yield VectorSource(rule, "largest-budget", "a budget of 2^53 - 1 bytes, the largest integer "
                       "(budget.md §1), keeps every field whole; held in 32 bits it is -1",
                       _details(_record(0, output="a" * 3000), _record(1, output="b" * 3000),
                                shared=MAX_SAFE_INTEGER, output=MAX_SAFE_INTEGER))
    yield VectorSource(rule, "integers-as-doubles", "the example of budget.md §5.7 with its "
                       "budget and floors written 300.0, 64.0, 128.0, 64.0: the same integers",
                       {**_EXAMPLE, "sharedBytes": 300.0, "taskFloorBytes": 64.0,
                        "outputFloorBytes": 128.0, "diagnosticFloorBytes": 64.0})


# -- budget.md §6 --------------------------------------------------------------------------------

_LIVE = (_record(0, output="first"), _record(1, "running", output="second"),
         _record(2, "pending"))


def roster_sources() -> Iterator[VectorSource]:
    rule = "roster.allowlist"
    yield VectorSource(rule, "diagnostics-and-runner-members-dropped", "a live record carries "
                       "no errorMessage, stderr or runner member",
                       _roster({**_record(0, "failed", output="o", errorMessage="Error: boom",
                                          stderr="trace"),
                                "messages": [{"role": "assistant", "content": []}],
                                "sessionFile": "/tmp/s.jsonl"}))
    yield VectorSource(rule, "task-head-output-tail", "a live record keeps a 64-byte head of its "
                       "task and a 128-byte tail of its output",
                       _roster(_record(0, task="Task: " + "t" * 200, output="o" * 300 + "END")))
    yield VectorSource(rule, "no-output-when-absent", "a live record has no output member when "
                       "the task record has none, and an empty one when it is empty",
                       _roster(_record(0, "pending"), _record(1, output="")))
    yield VectorSource(rule, "identity-clipped", "a live record clips its id and agent to 256 "
                       "code points", _roster({**_record(0), "id": "\U0001f600" * 260,
                                               "agent": "a" * 300}))

    rule = "roster.bounded"
    yield VectorSource(rule, "control-output-escaped", "control-character output is measured "
                       "after escaping (6 bytes a character)",
                       _roster(*(_record(i, output="\x00" * 200) for i in range(4)),
                               max_bytes=600))
    yield VectorSource(rule, "smallest-bound", "a bound of 2 bytes holds only the empty array",
                       _roster(*_LIVE, max_bytes=2))
    yield VectorSource(rule, "multibyte-output", "two-byte characters are measured in UTF-8 "
                       "bytes", _roster(*(_record(i, output="\u00e9" * 200) for i in range(3)),
                                        max_bytes=300))

    rule = "roster.prefix"
    yield VectorSource(rule, "fits-exactly", "a bound exactly the size of the whole roster keeps "
                       "it whole", _roster(*_LIVE, max_bytes=_roster_size(_LIVE)))
    yield VectorSource(rule, "one-byte-short", "one byte less and the last record is left out",
                       _roster(*_LIVE, max_bytes=_roster_size(_LIVE) - 1))
    big = _record(1, output="\x00" * 100)
    yield VectorSource(rule, "stops-at-first-misfit", "the roster stops at the first record that "
                       "does not fit, though a later, smaller one would",
                       _roster(_LIVE[0], big, _LIVE[2],
                               max_bytes=_roster_size((_LIVE[0], _LIVE[2]))))
    yield VectorSource(rule, "first-record-too-big", "a first record larger than the bound "
                       "leaves the roster empty",
                       _roster(big, *_LIVE, max_bytes=_roster_size((big,)) - 1))

    rule = "roster.count"
    yield VectorSource(rule, "omitted-counted", "five records of which two fit: omittedResults "
                       "is 3", _roster(*(_record(i) for i in range(5)),
                                       max_bytes=_roster_size((_record(0), _record(1)))))
    yield VectorSource(rule, "absent-at-zero", "a roster holding every record has no "
                       "omittedResults", _roster(*_LIVE))
    yield VectorSource(rule, "empty-batch", "an empty batch has an empty roster and no count",
                       _roster(max_bytes=2))
    yield VectorSource(rule, "many-tasks", "200 tasks under an 8 KiB bound: most are counted, "
                       "not shown", _roster(*(_record(i, ("running", "completed")[i % 2],
                                                      output="ok") for i in range(200)),
                                            max_bytes=8192))

    rule = "roster.agrees"
    yield VectorSource(rule, "statuses-and-order", "each live record keeps its status, in batch "
                       "order", _roster(*(_record(i, status) for i, status in enumerate(
                           ("pending", "running", "completed", "failed", "cancelled")))))
    yield VectorSource(rule, "awkward-text", "tasks and outputs of escapes, astral characters "
                       "and lone surrogates",
                       _roster(_record(0, task="\ud800\"\\\n" * 30, output="\U0001f600\x07" * 40),
                               max_bytes=1000))
    yield VectorSource(rule, "largest-bound", "a bound of 2^53 - 1 bytes (budget.md §1) keeps "
                       "every record", _roster(*_LIVE, max_bytes=MAX_SAFE_INTEGER))
    yield VectorSource(rule, "bound-as-double", "a bound written as an integral double, exactly "
                       "the size of two live records", _roster(
                           *_LIVE, max_bytes=float(_roster_size(_LIVE[:2]))))


# -- budget.md §7 --------------------------------------------------------------------------------

def _live(i: int, status: str = "running") -> JSON:
    return {"id": f"task-{i:03d}", "agent": "worker", "status": status, "task": f"Step {i}"}


def _update(shown: int, total: int, status: str = "running") -> JSON:
    """A roster update showing the first ``shown`` of ``total`` records, all in ``status``."""
    update: JSON = {"results": [_live(i, status) for i in range(shown)]}
    if total > shown:
        update["omittedResults"] = total - shown
    return update


def _lane(*updates: JSON) -> JSON:
    return {"updates": list(updates)}


def lane_sources() -> Iterator[VectorSource]:
    rule = "lane.merge"
    yield VectorSource(rule, "shorter-update-keeps-known", "an update with fewer records than "
                       "the lane knows replaces its first ones and keeps the rest",
                       _lane(_update(3, 3), _update(1, 3, "completed")))
    yield VectorSource(rule, "capped-at-total", "a smaller batch on a reused lane: records past "
                       "the update's total do not leak in",
                       _lane(_update(5, 5), _update(2, 2, "completed")))
    yield VectorSource(rule, "recovers-whole-roster", "prefixes of growing length recover the "
                       "whole roster", _lane(_update(2, 4), _update(4, 4), _update(1, 4)))
    yield VectorSource(rule, "empty-update-keeps-known", "an update showing no record keeps "
                       "every known one", _lane(_update(3, 5), _update(0, 5, "completed")))

    rule = "lane.total"
    yield VectorSource(rule, "total-is-the-update-s", "the total is the update's results plus "
                       "its omittedResults", _lane(_update(1, 6)))
    yield VectorSource(rule, "total-after-full-recovery", "a complete 3-task roster, then one "
                       "record and 2 omitted: still 3 tasks, not 5",
                       _lane(_update(3, 3), _update(1, 3, "completed")))
    yield VectorSource(rule, "total-grows-and-shrinks", "each state's total follows its own "
                       "update", _lane(_update(2, 2), _update(2, 7), _update(1, 4)))

    rule = "lane.count"
    yield VectorSource(rule, "recomputed-after-merge", "after merging, the count is the total "
                       "minus the merged records", _lane(_update(2, 10), _update(3, 10),
                                                         _update(1, 10)))
    yield VectorSource(rule, "absent-after-recovery", "a merge that recovers every record has "
                       "no omittedResults, though the update had one",
                       _lane(_update(3, 3), _update(1, 3, "completed")))
    yield VectorSource(rule, "large-lane", "a 600-task batch published as prefixes of 17 and "
                       "20 records", _lane(_update(17, 600), _update(20, 600),
                                           _update(17, 600, "completed")))

    rule = "lane.agrees"
    yield VectorSource(rule, "no-updates", "an empty sequence of updates has no states", _lane())
    yield VectorSource(rule, "empty-roster", "an empty roster gives a state of total 0",
                       _lane({"results": []}))
    yield VectorSource(rule, "all-omitted", "a roster that shows nothing of 3 tasks",
                       _lane({"results": [], "omittedResults": 3}, _update(0, 1)))
    yield VectorSource(rule, "largest-total", "a total of 2^53 - 1 tasks (budget.md §1), counted "
                       "exactly after a merge", _lane(
                           _update(2, 2), {"results": [_live(0)],
                                           "omittedResults": MAX_SAFE_INTEGER - 1}))
    yield VectorSource(rule, "count-as-double", "omittedResults written 2.0 is the count 2",
                       _lane({"results": [_live(0)], "omittedResults": 2.0}))
    yield VectorSource(rule, "records-with-output", "merged records keep their output as sent",
                       _lane({"results": [{**_live(i), "output": f"working {i}"}
                                          for i in range(3)]},
                             {"results": [{**_live(0, "completed"), "output": "done 0"}]}))


# -- budget.md §8 --------------------------------------------------------------------------------

def _change(at: int, seq: int, kind: str = "update") -> JSON:
    return {"at": at, "kind": kind, "state": {"seq": seq, "kind": kind}}


def _return(at: int) -> JSON:
    return {"at": at, "kind": "return"}


def _publish(*events: JSON, interval: float = 100) -> JSON:
    return {"intervalMs": interval, "events": list(events)}


def publish_sources() -> Iterator[VectorSource]:
    rule = "publish.window"
    yield VectorSource(rule, "burst-coalesced", "updates 1 ms apart: one publish at once, the "
                       "newest at the window's end",
                       _publish(*(_change(at, at) for at in range(5)), _return(500)))
    yield VectorSource(rule, "status-transitions-coalesced", "status transitions wait for the "
                       "window like updates",
                       _publish(_change(0, 0), *(_change(10 * k, k, "status")
                                                 for k in range(1, 6)), _return(1000)))
    yield VectorSource(rule, "exactly-interval-apart", "changes exactly intervalMs apart are "
                       "each published at once",
                       _publish(*(_change(100 * k, k) for k in range(4)), _return(400)))
    yield VectorSource(rule, "one-ms-short", "a change 1 ms before the window ends waits for it",
                       _publish(_change(0, 0), _change(99, 1), _change(250, 2), _return(251)))

    rule = "publish.latest"
    yield VectorSource(rule, "newest-pending-published", "the window's trailing publish carries "
                       "the newest pending state",
                       _publish(_change(0, 0), _change(10, 1), _change(20, 2, "status"),
                                _change(30, 3), _return(1000)))
    yield VectorSource(rule, "same-instant-last-wins", "changes at the same instant are one: the "
                       "last one's state", _publish(_change(0, 0), _change(0, 1, "status"),
                                                    _change(0, 2), _return(50)))
    yield VectorSource(rule, "change-at-window-end", "a change exactly at the window's end is "
                       "published at once, carrying itself",
                       _publish(_change(0, 0), _change(50, 1), _change(100, 2), _return(1000)))
    yield VectorSource(rule, "several-windows", "pending states across several windows, each "
                       "publish the newest of its window",
                       _publish(*(_change(at, k) for k, at in enumerate(
                           (0, 30, 60, 130, 170, 260, 420))), _return(600), interval=100))

    rule = "publish.terminal"
    yield VectorSource(rule, "flush-inside-window", "the return inside a window flushes the "
                       "pending state at the return",
                       _publish(_change(0, 0), _change(10, 1, "status"), _return(20)))
    yield VectorSource(rule, "return-with-last-change", "a change at the return's instant is "
                       "flushed at the return", _publish(_change(0, 0), _change(50, 1),
                                                         _return(50)))
    yield VectorSource(rule, "already-published", "a terminal state published at once is not "
                       "published again", _publish(_change(0, 0), _return(500)))
    yield VectorSource(rule, "no-changes", "a call without changes publishes nothing",
                       _publish(_return(0)))

    rule = "publish.after-return"
    yield VectorSource(rule, "late-callbacks-dropped", "callbacks after the return are dropped, "
                       "however late", _publish(_change(0, 0), _return(100),
                                                _change(150, 1, "status"), _change(300, 2)))
    yield VectorSource(rule, "late-at-the-return-instant", "a callback after the return at the "
                       "same instant is dropped too",
                       _publish(_change(0, 0), _change(20, 1), _return(40),
                                _change(40, 2, "status")))
    yield VectorSource(rule, "only-late-callbacks", "a call whose changes all come after the "
                       "return publishes nothing", _publish(_return(0), _change(5, 0),
                                                            _change(500, 1)))

    rule = "publish.agrees"
    yield VectorSource(rule, "interval-one", "an interval of 1 ms publishes every instant",
                       _publish(_change(0, 0), _change(0, 1), _change(1, 2), _change(3, 3),
                                _return(3), interval=1))
    yield VectorSource(rule, "trailing-before-return", "a pending state is published at the "
                       "window's end, well before the return",
                       _publish(_change(0, 0), _change(50, 1), _return(1000)))
    yield VectorSource(rule, "any-json-state", "a state may be any JSON value",
                       _publish({"at": 5, "kind": "update", "state": None},
                                {"at": 7, "kind": "status", "state": [1, "two", {"3": 4.5}]},
                                {"at": 200, "kind": "update", "state": "done"}, _return(201)))
    yield VectorSource(rule, "falsy-states", "null, 0, false and \"\" are states like any other: "
                       "the newest is published", _publish(
                           {"at": 0, "kind": "update", "state": {"seq": 0}},
                           {"at": 10, "kind": "update", "state": 0},
                           {"at": 100, "kind": "status", "state": False},
                           {"at": 150, "kind": "update", "state": ""}, _return(160)))
    yield VectorSource(rule, "largest-time", "times up to 2^53 - 1 ms (budget.md §1), echoed "
                       "exactly", _publish(
                           _change(MAX_SAFE_INTEGER - 150, 0), _change(MAX_SAFE_INTEGER - 120, 1),
                           _return(MAX_SAFE_INTEGER), interval=100))
    yield VectorSource(rule, "numbers-as-doubles", "an interval and times written as integral "
                       "doubles: the same integers", _publish(
                           {**_change(0, 0), "at": 0.0}, {**_change(40, 1), "at": 40.0},
                           {"at": 100.0, "kind": "return"}, interval=100.0))
