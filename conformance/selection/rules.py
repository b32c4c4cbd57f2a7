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
    Rule("settle.stop-reason", "MUST", PROFILE, "settle", "selection.md#5.1",
         "The stop reason comes from the last turn/end by the fixed mapping."),
    Rule("settle.cancelled", "MUST", PROFILE, "settle", "selection.md#5.2",
         "A cancelled run that did not complete stops with 'aborted'."),
    Rule("settle.output", "MUST", PROFILE, "settle", "selection.md#5.3",
         "result.output is the selection, or [] when there is none."),
    Rule("settle.last-assistant", "MUST", PROFILE, "settle", "selection.md#5.4",
         "end.lastAssistantMessage is the selection and is absent (not []) when there is none; "
         "end.stopReason equals result.stopReason."),
    Rule("settle.tool-result", "MUST", PROFILE, "settle", "selection.md#5.5",
         "The delegation tool's result has the exact isError flag and text of the contract."),
    Rule("settle.agrees", "MUST", PROFILE, "settle", "selection.md#5",
         "The settled run equals the reference's."),
)

RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}
