// The result contract of a settled run (spec/selection.md §5): the result returned to the caller,
// the lifecycle event and the delegation tool's result, all three built on the one selection.
//
// Kept in a module of its own: this is the part of the profile most likely to change between
// spec versions, and every other operation is independent of it.

import { type Json, type JsonObject, member } from "./json.js";
import { requireObject, requireString } from "./read.js";
import { type Selection, eventData, eventType, selectOutput } from "./selection.js";

export type StopReason = "completed" | "max-tokens" | "aborted" | "refusal" | "error";

// Type aliases, not interfaces: they are then JSON values (Json) as they are.
export type SettledRun = {
  result: { output: Json[]; stopReason: StopReason };
  end: { stopReason: StopReason; lastAssistantMessage?: Json[] };
  toolResult: { isError: boolean; text: string };
};

export interface SettleOptions {
  readonly cancelled: boolean;
  /** The diagnostic, when the request carries one. */
  readonly diagnostic?: string;
}

// §5.1: the last turn/end's kind decides; every other kind, and no turn/end at all, is an error.
const STOP_REASONS: ReadonlyMap<string, StopReason> = new Map<string, StopReason>([
  ["completed", "completed"],
  ["max-tokens", "max-tokens"],
  ["aborted", "aborted"],
  ["blocked", "refusal"],
]);

// §5.5: the headline of a run that did not complete.
const HEADLINES: ReadonlyMap<string, string> = new Map([
  ["aborted", "subagent run was cancelled"],
  ["error", "subagent run failed"],
  ["max-tokens", "subagent run hit its token limit before finishing"],
  ["refusal", "subagent declined the task"],
]);

/** The stop reason of §5.1, from the kind of the last turn/end. */
function stopReasonOf(events: Json[]): StopReason {
  let kind: string | null = null;
  events.forEach((event, index) => {
    const path = `$.events[${index}]`;
    if (eventType(event, path) !== "turn/end") return;
    const reason = requireObject(member(eventData(event as JsonObject, path), "reason"), `${path}.data.reason`, {
      what: "the reason of a turn/end (selection.md §2.4)",
      fix: 'Send {"turn": <int>, "reason": {"kind": "<string>"}}.',
    });
    kind = requireString(member(reason, "kind"), `${path}.data.reason.kind`, {
      what: "the kind of a turn/end reason (selection.md §2.4)",
      fix: 'Send a string kind such as "completed" or "max-tokens".',
    });
  });
  return (kind !== null && STOP_REASONS.get(kind)) || "error";
}

/** T of §5.5: the text of the selection's text blocks joined with "", reasoning left out. */
function selectionText(selection: Selection): string {
  let text = "";
  (selection ?? []).forEach((block, index) => {
    const path = `$.selection[${index}]`;
    const object = requireObject(block, path, {
      what: "a content block (selection.md §2.5)",
      fix: 'Send content blocks as objects with a string "type".',
    });
    if (member(object, "type") === "text") {
      text += requireString(member(object, "text"), `${path}.text`, {
        what: "the text of a text block (selection.md §2.5)",
        fix: 'Send {"type": "text", "text": "<string>"}.',
      });
    }
  });
  return text;
}

/** The settle op: result, lifecycle event and delegation tool result of one run (§5). */
export function settleRun(events: Json[], options: SettleOptions): SettledRun {
  const selection = selectOutput(events);
  let stopReason = stopReasonOf(events);
  // A cancelled run that did not complete was aborted; a completed one stays completed (§5.2).
  if (options.cancelled && stopReason !== "completed") stopReason = "aborted";

  const end: SettledRun["end"] = { stopReason };
  // Absent, never [] and never null, when there is no output (§5.4).
  if (selection !== null) end.lastAssistantMessage = selection;

  const text = selectionText(selection);
  let toolResult: SettledRun["toolResult"];
  if (stopReason === "completed") {
    toolResult = { isError: false, text };
  } else {
    // The failure first, then the evidence, then what the parent can still use (§5.5).
    let message = `Error: ${HEADLINES.get(stopReason) ?? `subagent run ended abnormally (${stopReason})`}`;
    if (options.diagnostic !== undefined && options.diagnostic !== "") message += `\nDiagnostic: ${options.diagnostic}`;
    if (text !== "") message += `\nPartial output before the run ended:\n${text}`;
    toolResult = { isError: true, text: message };
  }
  return { result: { output: selection ?? [], stopReason }, end, toolResult };
}
