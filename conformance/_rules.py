"""The registry of rules: one entry per normative statement a check enforces.

Rule ids are stable: reports, expectation files, replay files and the vectors cite them. The spec
states each rule in the section named here and mentions its id there; a unit test holds the two in
step (every id here appears in its spec section, every id the spec mentions is here).
"""

from __future__ import annotations

from ._model import Rule

_SELECTION = "selection"
_WIRE = "wire"

RULES: tuple[Rule, ...] = (
    # -- selection: spec/selection.md -------------------------------------------------------------
    Rule("select.never-empty", "MUST", _SELECTION, "select", "selection.md#3.2",
         "The output is null or a non-empty list of blocks; an empty-content message never "
         "counts."),
    Rule("select.last-message", "MUST", _SELECTION, "select", "selection.md#3.1",
         "When an assistant message with non-empty content exists, the output is the content of "
         "the last one."),
    Rule("select.text-fallback", "MUST", _SELECTION, "select", "selection.md#3.3",
         "Without such a message, the output is every text-delta text concatenated as one text "
         "block, or null when that text is empty."),
    Rule("select.agrees", "MUST", _SELECTION, "select", "selection.md#3",
         "The output equals the reference's."),
    Rule("fold.shape", "MUST", _SELECTION, "fold", "selection.md#4.1",
         "A fold answers one collect() before the first push and one after each push."),
    Rule("fold.prefix", "MUST", _SELECTION, "fold", "selection.md#4.2",
         "After every push, collect() equals the batch selection of the pushes so far."),
    Rule("settle.stop-reason", "MUST", _SELECTION, "settle", "selection.md#5.1",
         "The stop reason comes from the last turn/end by the fixed mapping."),
    Rule("settle.cancelled", "MUST", _SELECTION, "settle", "selection.md#5.2",
         "A cancelled run that did not complete stops with 'aborted'."),
    Rule("settle.output", "MUST", _SELECTION, "settle", "selection.md#5.3",
         "result.output is the selection, or [] when there is none."),
    Rule("settle.last-assistant", "MUST", _SELECTION, "settle", "selection.md#5.4",
         "end.lastAssistantMessage is the selection and is absent (not []) when there is none; "
         "end.stopReason equals result.stopReason."),
    Rule("settle.tool-result", "MUST", _SELECTION, "settle", "selection.md#5.5",
         "The delegation tool's result has the exact isError flag and text of the contract."),
    Rule("settle.agrees", "MUST", _SELECTION, "settle", "selection.md#5",
         "The settled run equals the reference's."),
    # -- wire: spec/wire.md -----------------------------------------------------------------------
    Rule("classify.kind", "MUST", _WIRE, "classify", "wire.md#3",
         "message_update and tool_execution_update are frames; every other type, unknown ones "
         "included, is a fact."),
    Rule("project.frame-opt-in", "MUST", _WIRE, "project", "wire.md#4.1",
         "A frame projects to nothing unless includeLiveEvents is true."),
    Rule("project.fact-passthrough", "MUST", _WIRE, "project", "wire.md#4.2",
         "A fact other than turn_end and agent_end is written unchanged."),
    Rule("project.message-update", "MUST", _WIRE, "project", "wire.md#4.3",
         "message_update projects to {type, usage, assistantMessageEvent without partial}, with "
         "id and toolName on toolcall_start."),
    Rule("project.turn-end", "MUST", _WIRE, "project", "wire.md#4.4",
         "turn_end projects to {type, messageRole, toolResultCount}."),
    Rule("project.agent-end", "MUST", _WIRE, "project", "wire.md#4.4",
         "agent_end projects to {type, willRetry, messageCount}."),
    Rule("project.erroneous", "MUST", _WIRE, "project", "wire.md#4.5",
         "An erroneous event (a non-assistant message_update, a toolcall_start without its tool "
         "call) is answered with an error, never a line."),
    Rule("project.agrees", "MUST", _WIRE, "project", "wire.md#4",
         "The projected line parses to the same JSON value as the reference's."),
    Rule("bound.fits", "MUST", _WIRE, "project", "wire.md#5.1",
         "A projected tool_execution_update line is at most maxBytes bytes."),
    Rule("bound.only-when-over", "MUST", _WIRE, "project", "wire.md#5.1",
         "A tool_execution_update whose projection fits is written unchanged."),
    Rule("bound.only-updates", "MUST", _WIRE, "project", "wire.md#5.1",
         "The backstop never applies to any type but tool_execution_update."),
    Rule("bound.shape", "MUST", _WIRE, "project", "wire.md#5.2",
         "The bounded form has exactly the keys, order and nesting of the spec; args and details "
         "are dropped."),
    Rule("bound.text", "MUST", _WIRE, "project", "wire.md#5.3",
         "The bounded text is the marker followed by a suffix of the original text."),
    Rule("bound.ids", "MUST", _WIRE, "project", "wire.md#5.4",
         "toolCallId and toolName are clipped to their first 256 code points, and only then."),
    Rule("bound.converges", "MUST", _WIRE, "project", "wire.md#5.6",
         "Projecting any event answers within the time limit: the shrink loop converges."),
    Rule("bound.tail", "MUST", _WIRE, "project", "wire.md#5.5",
         "The tail has exactly the length the declared fit strategy picks."),
    Rule("canon.utf8", "MUST", _WIRE, "project", "wire.md#6.1",
         "Every line is well-formed UTF-8: no unpaired surrogate survives."),
    Rule("canon.bytes", "SHOULD", _WIRE, "project", "wire.md#6",
         "The line is byte for byte the canonical serialization."),
)

RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}

#: Rule ids the harness itself reports when an implementation hangs, dies or breaks the protocol.
HARNESS_RULES: tuple[Rule, ...] = ()


def rules_for(op: str) -> tuple[Rule, ...]:
    """The rules that judge answers to ``op``, in the order the spec states them."""
    return tuple(rule for rule in RULES if rule.op == op)
