"""The budget profile's rules (spec/budget.md): one entry per normative statement a check enforces.

Rule ids are stable: reports, expectation files and replay files cite them, and each is mentioned
in the section of spec/budget.md named here.
"""

from __future__ import annotations

from .._model import Rule

_BUDGET = "budget"

RULES: tuple[Rule, ...] = (
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

RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}
