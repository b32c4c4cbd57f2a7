"""The rules of the selection profile (spec/selection.md): one entry per normative statement a
check enforces.

Rule ids are stable: reports, expectation files, replay files and the vectors cite them. The spec
states each rule in the section named here and mentions its id there; a unit test holds the two in
step.
"""

from __future__ import annotations

from .._model import Rule

PROFILE = "selection"

RULES: tuple[Rule, ...] = (
    Rule("select.never-empty", "MUST", PROFILE, "select", "selection.md#3.2",
         "The output is null or a non-empty list of blocks; an empty-content message never "
         "counts."),
    Rule("select.last-message", "MUST", PROFILE, "select", "selection.md#3.1",
         "When an assistant message with non-empty content exists, the output is the content of "
         "the last one."),
    Rule("select.text-fallback", "MUST", PROFILE, "select", "selection.md#3.3",
         "Without such a message, the output is every text-delta text concatenated as one text "
         "block, or null when that text is empty."),
    Rule("select.agrees", "MUST", PROFILE, "select", "selection.md#3",
         "The output equals the reference's."),
    Rule("fold.shape", "MUST", PROFILE, "fold", "selection.md#4.1",
         "A fold answers one collect() before the first push and one after each push."),
    Rule("fold.prefix", "MUST", PROFILE, "fold", "selection.md#4.2",
         "After every push, collect() equals the batch selection of the pushes so far."),
    Rule("settle.accounting-turn", "MUST", PROFILE, "settle", "selection.md#5.1",
         "The end is the last turn/end whose turn entered a model step, or claimed inbox input "
         "and ended other than completed; a turn/end that accounts for no work never replaces "
         "it."),
    Rule("settle.dropped-unrun", "MUST", PROFILE, "settle", "selection.md#5.1",
         "Dropped unrun is true exactly when a cancellation splice with an empty inserted came "
         "after the end (or with no end); only a later accounting turn/end clears it."),
    Rule("settle.one-shot-reason", "MUST", PROFILE, "settle", "selection.md#5.2",
         "The recorded stop reason of a one-shot run is the end's kind by the one-shot mapping; "
         "error, interrupted, any other kind and no end give 'error'."),
    Rule("settle.cancelled", "MUST", PROFILE, "settle", "selection.md#5.2",
         "A cancelled one-shot run whose recorded stop reason is not 'completed' stops with "
         "'aborted'; a completed one stays 'completed'."),
    Rule("settle.continuable-reason", "MUST", PROFILE, "settle", "selection.md#5.3",
         "The stop reason of a continuable epoch is the end's kind by the continuable mapping; "
         "completed or no end give 'aborted' when work was dropped unrun, else 'completed'."),
    Rule("settle.output", "MUST", PROFILE, "settle", "selection.md#5.4",
         "result.output is the selection, or [] when there is none."),
    Rule("settle.last-assistant", "MUST", PROFILE, "settle", "selection.md#5.5",
         "end.lastAssistantMessage is the selection and is absent (not []) when there is none; "
         "end.stopReason equals result.stopReason."),
    Rule("settle.tool-result", "MUST", PROFILE, "settle", "selection.md#5.6",
         "A one-shot answer has the delegation tool's result with the exact isError flag and "
         "text of the contract (the Diagnostic line whenever a diagnostic is given, even \"\"); "
         "a continuable answer has none."),
    Rule("settle.agrees", "MUST", PROFILE, "settle", "selection.md#5",
         "The settled run equals the reference's."),
)


RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}
