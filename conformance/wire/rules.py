"""The rules of the wire profile (spec/wire.md): one entry per normative statement a check
enforces.

Rule ids are stable: reports, expectation files, replay files and the vectors cite them. The spec
states each rule in the section named here and mentions its id there; a unit test holds the two in
step.
"""

from __future__ import annotations

from .._model import Rule

PROFILE = "wire"

RULES: tuple[Rule, ...] = (
    Rule("classify.kind", "MUST", PROFILE, "classify", "wire.md#3",
         "message_update and tool_execution_update are frames; every other type, unknown ones "
         "included, is a fact."),
    Rule("project.frame-opt-in", "MUST", PROFILE, "project", "wire.md#4.1",
         "A frame projects to nothing unless includeLiveEvents is true."),
    Rule("project.fact-passthrough", "MUST", PROFILE, "project", "wire.md#4.2",
         "A fact other than turn_end and agent_end is written unchanged."),
    Rule("project.message-update", "MUST", PROFILE, "project", "wire.md#4.3",
         "message_update projects to {type, usage, assistantMessageEvent without partial}, with "
         "id and toolName on toolcall_start."),
    Rule("project.turn-end", "MUST", PROFILE, "project", "wire.md#4.4",
         "turn_end projects to {type, messageRole, toolResultCount}."),
    Rule("project.agent-end", "MUST", PROFILE, "project", "wire.md#4.4",
         "agent_end projects to {type, willRetry, messageCount}."),
    Rule("project.erroneous", "MUST", PROFILE, "project", "wire.md#4.5",
         "An erroneous event (a non-assistant message_update, a toolcall_start without its tool "
         "call) is answered with an error, never a line."),
    Rule("project.numbers", "MUST", PROFILE, "project", "wire.md#7",
         "A projected value holding an integer literal beyond 2^53-1 or an overflowing number is "
         "answered errored; the same number in a member the projection drops is not refused."),
    Rule("project.agrees", "MUST", PROFILE, "project", "wire.md#4",
         "The projected line parses to the same JSON value as the reference's."),
    Rule("bound.fits", "MUST", PROFILE, "project", "wire.md#5.1",
         "A projected tool_execution_update line is at most maxBytes bytes."),
    Rule("bound.only-when-over", "MUST", PROFILE, "project", "wire.md#5.1",
         "A tool_execution_update whose projection fits is written unchanged."),
    Rule("bound.only-updates", "MUST", PROFILE, "project", "wire.md#5.1",
         "The backstop never applies to any type but tool_execution_update."),
    Rule("bound.shape", "MUST", PROFILE, "project", "wire.md#5.2",
         "The bounded form has exactly the keys, order and nesting of the spec; args and details "
         "are dropped."),
    Rule("bound.text", "MUST", PROFILE, "project", "wire.md#5.3",
         "The bounded text is the marker followed by a suffix of the original text."),
    Rule("bound.ids", "MUST", PROFILE, "project", "wire.md#5.4",
         "toolCallId and toolName are clipped to their first 256 code points, and only then."),
    Rule("bound.converges", "MUST", PROFILE, "project", "wire.md#5.6",
         "Projecting any event answers within the time limit: the shrink loop converges."),
    Rule("bound.tail", "MUST", PROFILE, "project", "wire.md#5.5",
         "The tail has exactly the length the declared fit strategy picks."),
    Rule("canon.utf8", "MUST", PROFILE, "project", "wire.md#6.1",
         "Every line is well-formed UTF-8: no unpaired surrogate survives."),
    Rule("canon.bytes", "SHOULD", PROFILE, "project", "wire.md#6",
         "The line is byte for byte the canonical serialization."),
)

RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}
