"""The rules an audit judges: the spec's own (ids, levels, sections and titles from the profile
packages) and the few that concern the log file itself, plus the fix each finding points to."""

from __future__ import annotations

from .._model import Rule
from .._operations import RULES_BY_ID

PROFILE = "audit"

#: Rules about the log as a file of JSON lines: what every profile's log must be before any
#: rule of the spec can judge a line of it.
LOG_RULES: tuple[Rule, ...] = (
    Rule("log.json", "MUST", PROFILE, "audit", "wire.md#1",
         "Every line of a log is one JSON value (a JSON Lines file)."),
    Rule("log.truncated", "MUST", PROFILE, "audit", "wire.md#1",
         "The last line of a log is complete: no line is cut off."),
    Rule("log.event", "MUST", PROFILE, "audit", "wire.md#2.1",
         "Every line is an event: an object with a string member type."),
    Rule("log.utf8", "MUST", PROFILE, "audit", "selection.md#2.1",
         "Every line of a session log is well-formed UTF-8."),
)

#: The spec rules a written log can show, in the order reports list them.
WIRE_RULE_IDS: tuple[str, ...] = (
    "project.frame-opt-in", "project.message-update", "project.turn-end", "project.agent-end",
    "project.numbers", "bound.fits", "bound.shape", "bound.text", "bound.ids",
    "bound.only-updates", "canon.utf8", "canon.bytes",
)
BUDGET_RULE_IDS: tuple[str, ...] = (
    "details.allowlist", "details.identity", "details.cut", "details.task", "details.output",
    "details.reason", "details.bounded", "roster.allowlist", "roster.bounded", "roster.count",
)
SELECTION_RULE_IDS: tuple[str, ...] = (
    "settle.output", "settle.last-assistant", "settle.one-shot-reason",
    "settle.continuable-reason", "settle.tool-result",
)

AUDIT_RULES: tuple[Rule, ...] = (
    *LOG_RULES,
    *(RULES_BY_ID[rule_id] for rule_id in (*WIRE_RULE_IDS, *BUDGET_RULE_IDS,
                                           *SELECTION_RULE_IDS)),
)
AUDIT_RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in AUDIT_RULES}

#: What to change in the harness, per rule.
FIXES: dict[str, str] = {
    "log.json": "Write each event as one line of JSON (JSON.stringify, then a line feed); never "
                "split an event over lines or write text between events.",
    "log.truncated": "Flush and close the log before the process exits; a cut line means the "
                     "writer stopped in the middle of an event.",
    "log.event": "Write only events: objects with a string type (wire.md §2.1, selection.md §2.1).",
    "log.utf8": "Encode every line as UTF-8 and make strings well-formed first "
                "(String.prototype.toWellFormed).",
    "project.frame-opt-in": "Write message_update and tool_execution_update only to consumers "
                            "that opted in to live events; audit with --live-events if this "
                            "log was opted in.",
    "project.message-update": "Write {type, usage?, assistantMessageEvent without partial} "
                              "(wire.md §4.3): never the cumulative message.",
    "project.turn-end": "Write {type, messageRole, toolResultCount} (wire.md §4.4): the message "
                        "and tool results already travelled as their own events.",
    "project.agent-end": "Write {type, willRetry, messageCount} (wire.md §4.4): the messages "
                         "already travelled as their own events.",
    "project.numbers": "Refuse the event (answer an error) instead of writing an integer beyond "
                       "2^53-1, NaN or an infinity (wire.md §7).",
    "bound.fits": "Pass every tool_execution_update line through the backstop: over maxBytes "
                  "it becomes the bounded form (wire.md §5).",
    "bound.shape": "Write the bounded form exactly: {type, toolCallId, toolName, partialResult: "
                   "{content: [{type: text, text}]}} and nothing else (wire.md §5.2).",
    "bound.text": "Start the bounded text with the marker '[live output truncated]\\n', then a "
                  "suffix of the text (wire.md §5.3).",
    "bound.ids": "Clip toolCallId and toolName to their first 256 code points in the bounded "
                 "form (wire.md §5.4).",
    "bound.only-updates": "Never bound tool_execution_end: it is the durable record of the "
                          "tool's result (wire.md §5.1).",
    "canon.utf8": "Make every string well-formed before writing (toWellFormed): a lone "
                  "surrogate becomes U+FFFD (wire.md §6.1).",
    "canon.bytes": "Serialize with JSON.stringify's rules (wire.md §6): no spaces, 30 not 30.0, "
                   "U+2028 raw, array-index member names first.",
    "details.allowlist": "Build each final record member by member from the allow-list "
                         "(budget.md §3.1); never spread the task record.",
    "details.identity": "Clip id and agent to their first 256 code points (budget.md §3.2).",
    "details.cut": "List in truncated exactly the heavy fields that were cut, in member order "
                   "(budget.md §4).",
    "details.task": "Reserve the task floor for every record so that it keeps some of its task "
                    "(budget.md §5.2).",
    "details.output": "Reserve the output floor for every record so that it keeps some of its "
                      "output (budget.md §5.2).",
    "details.reason": "Reserve the diagnostics floor for every failure so that it keeps a "
                      "reason (budget.md §5.2).",
    "details.bounded": "Share one budget (128 KiB) across the batch, with per-record floors, "
                       "and charge every heavy field to it (budget.md §5).",
    "roster.allowlist": "Build each live record as {id, agent, status, task (64-byte head), "
                        "output? (128-byte tail)} (budget.md §6.1).",
    "roster.bounded": "Stop the roster at the longest prefix that fits maxBytes (48 KiB) and "
                      "count the rest in omittedResults (budget.md §6.2).",
    "roster.count": "Leave omittedResults out when no record was left out (budget.md §6.3).",
    "settle.output": "Select the child's output with the one rule of selection.md §3: the last "
                     "non-empty assistant message, else the streamed text.",
    "settle.last-assistant": "Set lastAssistantMessage to the selection, and leave it out (never "
                             "[]) when there is none (selection.md §5.5).",
    "settle.one-shot-reason": "Take the stop reason from the last turn/end that accounts for "
                              "work, by the one-shot mapping (selection.md §5.1, §5.2).",
    "settle.continuable-reason": "Take the epoch's stop reason from the end by the continuable "
                                 "mapping, reading dropped work (selection.md §5.1, §5.3).",
    "settle.tool-result": "Build the delegation tool's result from the same selection and stop "
                          "reason (selection.md §5.6).",
}


def rule(rule_id: str) -> Rule:
    """The rule an audit finding cites."""
    return AUDIT_RULES_BY_ID[rule_id]
