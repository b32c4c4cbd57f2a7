// The selection profile (spec/selection.md): which output a child agent produced (§3), the fold
// that computes it incrementally (§4), and the result contract of a settled run built on it (§5).
//
// Unknown event types, chunk types, block types and extra members are ignored (§2.6).

import { InvalidInput } from "./errors.js";
import { unsafeLiteral } from "./numbers.js";
import { type Json, type JsonObject, hasMember, isObject, member } from "./json.js";
import { requireList, requireObject, requireString } from "./read.js";

/** A selection: a non-empty list of content blocks, or null for no output (§3). */
export type Selection = Json[] | null;

/** The `type` of the session event at `path` (§2.1). */
export function eventType(event: Json | undefined, path: string): string {
  const object = requireObject(event, path, {
    what: "a session event (selection.md §2.1)",
    fix: 'Send each event as an object {"type", "seq", "time", "data"}.',
  });
  return requireString(member(object, "type"), `${path}.type`, {
    what: "the type of a session event (selection.md §2.1)",
    fix: 'Give every event a string "type"; unknown types are allowed and ignored (selection.md §2.6).',
  });
}

/** `data` of the session event at `path`, which eventType has already read. */
export function eventData(event: JsonObject, path: string): JsonObject {
  return requireObject(member(event, "data"), `${path}.data`, {
    what: "the data of a session event (selection.md §2.1)",
    fix: 'Give the event a "data" object.',
  });
}

/** `data.message.content` of an assistant/message (§2.2). */
function messageContent(event: JsonObject, path: string): Json[] {
  const message = requireObject(member(eventData(event, path), "message"), `${path}.data.message`, {
    what: "the message of an assistant/message (selection.md §2.2)",
    fix: 'Send {"message": {"role": "assistant", "content": [...]}}.',
  });
  return requireList(member(message, "content"), `${path}.data.message.content`, {
    what: "the content of an assistant message (selection.md §2.2)",
    fix: "Send the content blocks as a list; a usage-only message has [].",
  });
}

/** The text an assistant/chunk streams, or null when it is not a text delta (§3.3, §3.4). */
function textDeltaText(event: JsonObject, path: string): string | null {
  const chunk = requireObject(member(eventData(event, path), "chunk"), `${path}.data.chunk`, {
    what: "the chunk of an assistant/chunk (selection.md §2.3)",
    fix: 'Send {"chunk": {"type": ..., ...}}.',
  });
  const type = requireString(member(chunk, "type"), `${path}.data.chunk.type`, {
    what: "the type of a chunk (selection.md §2.3)",
    fix: 'Give every chunk a string "type"; unknown chunk types are ignored.',
  });
  if (type !== "text-delta") return null;
  return requireString(member(chunk, "text"), `${path}.data.chunk.text`, {
    what: "the text of a text-delta chunk (selection.md §2.3)",
    fix: 'Send {"type": "text-delta", "index": <int>, "text": "<string>"}.',
  });
}

/** The incremental form of the selection rule (selection.md §4). */
export class OutputFold {
  /** The content of the last assistant/message whose content is not empty. */
  #message: Json[] | null = null;
  /** Every text-delta text, in log order. */
  #text = "";

  /** Fold one session event; `path` locates it in error messages. */
  push(event: Json | undefined, path = "$"): void {
    const type = eventType(event, path);
    const object = event as JsonObject;
    if (type === "assistant/message") {
      const content = messageContent(object, path);
      // Content length decides, not the presence of text (§3.1); an empty, usage-only message
      // neither replaces an earlier one nor hides streamed text (§3.2).
      if (content.length > 0) this.#message = content;
    } else if (type === "assistant/chunk") {
      const text = textDeltaText(object, path);
      if (text !== null) this.#text += text;
    }
    // Tool results, user messages, turns, steps and unknown types never contribute (§3.4).
  }

  /** Fold raw streamed text, exactly as a text-delta chunk; "" changes nothing (§4.1). */
  pushText(text: Json | undefined, path = "$"): void {
    this.#text += requireString(text, path, {
      what: "pushed text (selection.md §4.1)",
      fix: 'Push text as {"text": "<string>"}.',
    });
  }

  /** The selection of everything pushed so far, without changing the fold (§3). */
  collect(): Selection {
    if (this.#message !== null) return this.#message;
    // The streamed-text fallback as one text block; nothing streamed is no output (§3.3).
    return this.#text === "" ? null : [{ type: "text", text: this.#text }];
  }
}

/** The batch rule (§3): the fold of the whole log, so the two forms are one rule (§4.2). */
export function selectOutput(events: Json[], path = "$.events"): Selection {
  const fold = new OutputFold();
  events.forEach((event, index) => fold.push(event, `${path}[${index}]`));
  return fold.collect();
}

/** The fold op: one collect() before the first push and one after each push (§4.1). */
export function foldResults(pushes: Json[]): Selection[] {
  const fold = new OutputFold();
  const results: Selection[] = [fold.collect()];
  pushes.forEach((push, index) => {
    const path = `$.pushes[${index}]`;
    const hasEvent = isObject(push) && hasMember(push, "event");
    const hasText = isObject(push) && hasMember(push, "text");
    if (hasEvent === hasText) {
      throw new InvalidInput({
        value: push,
        path,
        reason: 'is neither {"event": ...} nor {"text": ...} (selection.md §4.1)',
        fix: 'Send each push as an object with exactly one of the members "event" and "text".',
      });
    }
    const object = push as JsonObject;
    if (hasEvent) fold.push(member(object, "event"), `${path}.event`);
    else fold.pushText(member(object, "text"), `${path}.text`);
    results.push(fold.collect());
  });
  return results;
}

// -- the result contract of a settled run (§5) ------------------------------------------------
// The account of consumed work, the stop reason of both settlement paths (one-shot and
// continuable), the result returned to the caller, the lifecycle event and, for a one-shot run,
// the delegation tool's result, all built on the one selection.

export type StopReason = "completed" | "max-tokens" | "aborted" | "refusal" | "error";
export type Mode = "one-shot" | "continuable";

// Type aliases, not interfaces: they are then JSON values (Json) as they are.
export type SettledRun = {
  result: { output: Json[]; stopReason: StopReason };
  end: { stopReason: StopReason; lastAssistantMessage?: Json[] };
  /** Present exactly for a one-shot run (§5.6). */
  toolResult?: { isError: boolean; text: string };
};

export interface SettleOptions {
  readonly mode: Mode;
  /** One-shot only: whether the run's owner cancelled it. */
  readonly cancelled: boolean;
  /** One-shot only: the diagnostic, when the request carries one. */
  readonly diagnostic?: string;
}

// §5.2: the end's kind -> the recorded one-shot stop reason; every other kind, and no end, is an
// error.
const ONE_SHOT_REASONS: ReadonlyMap<string, StopReason> = new Map<string, StopReason>([
  ["completed", "completed"],
  ["max-tokens", "max-tokens"],
  ["aborted", "aborted"],
  ["blocked", "refusal"],
]);

// §5.3: the end's kind -> the continuable stop reason; completed and no end depend on dropped
// work, every kind not listed is an error.
const CONTINUABLE_REASONS: ReadonlyMap<string, StopReason> = new Map<string, StopReason>([
  ["max-tokens", "max-tokens"],
  ["aborted", "aborted"],
  ["interrupted", "aborted"],
  ["error", "error"],
  ["blocked", "refusal"],
]);

// §5.6: the headline of a run that did not complete.
const HEADLINES: ReadonlyMap<string, string> = new Map([
  ["aborted", "subagent run was cancelled"],
  ["error", "subagent run failed"],
  ["max-tokens", "subagent run hit its token limit before finishing"],
  ["refusal", "subagent declined the task"],
]);

/** `data.turn` of a turn or step event: the key of its marks (§5.1), the exact integer. */
function turnNumber(event: JsonObject, path: string): string {
  // A turn beyond 2^53 − 1 is read from its literal: JSON.parse reads 9007199254740992 and
  // 9007199254740993 as one double, but they are two turns (selection.md §1, exact numbers);
  // and one turn may be written as an integer and as a double (9007199254740992.0), so every
  // turn is keyed by its value, never by how it was written.
  const data = eventData(event, path);
  const literal = unsafeLiteral(data, "turn");
  if (literal !== undefined) return String(BigInt(literal));
  const value = member(data, "turn");
  if (typeof value !== "number" || !Number.isInteger(value)) {
    throw new InvalidInput({
      value,
      path: `${path}.data.turn`,
      reason: "is not an integer, but the turn number of a turn or step event must be one (selection.md §6)",
      fix: 'Send the turn the event belongs to as an integer: {"turn": 1, ...} (selection.md §2.4).',
    });
  }
  return String(BigInt(value));
}

function turnEndKind(event: JsonObject, path: string): string {
  const reason = requireObject(member(eventData(event, path), "reason"), `${path}.data.reason`, {
    what: "the reason of a turn/end (selection.md §2.4)",
    fix: 'Send {"turn": <int>, "reason": {"kind": "<string>"}}.',
  });
  return requireString(member(reason, "kind"), `${path}.data.reason.kind`, {
    what: "the kind of a turn/end reason (selection.md §2.4)",
    fix: 'Send a string kind such as "completed" or "max-tokens".',
  });
}

/** The account of consumed work (§5.1): the end's kind (null without one) and dropped work. */
export interface ConsumedWork {
  readonly endKind: string | null;
  readonly droppedUnrun: boolean;
}

/**
 * One pass over the log (§5.1). Marks are keyed by turn number and outlive the turn that made
 * them: only a turn/end of the same number removes them.
 */
export function consumedWork(events: Json[]): ConsumedWork {
  const stepped = new Set<number | string>();
  const claimed = new Set<number | string>();
  let open: number | string | null = null;
  let endKind: string | null = null;
  let droppedUnrun = false;
  events.forEach((event, index) => {
    const path = `$.events[${index}]`;
    const type = eventType(event, path);
    const object = event as JsonObject;
    if (type === "turn/start") {
      open = turnNumber(object, path); // a later turn/start replaces the open turn
    } else if (type === "step/start") {
      stepped.add(turnNumber(object, path)); // the step's own turn, open or not
    } else if (type === "agent/inbox/spliced") {
      const data = eventData(object, path);
      if (!hasMember(data, "removedCount")) return; // an insertion consumes nothing
      if (member(data, "outcome") === "canceled") {
        const inserted = requireList(member(data, "inserted"), `${path}.data.inserted`, {
          what: "the inserted messages of a splice (selection.md §2.4)",
          fix: "Send the messages the splice inserted as a list, [] for none.",
        });
        // A replacement keeps the work pending; only a cancellation that leaves nothing drops it.
        droppedUnrun = droppedUnrun || inserted.length === 0;
      } else if (open !== null) {
        claimed.add(open); // a claim outside any turn marks nothing
      }
    } else if (type === "turn/end") {
      const turn = turnNumber(object, path);
      const kind = turnEndKind(object, path);
      open = null;
      let accounts = false;
      if (stepped.delete(turn)) accounts = true; // a claim mark of the turn stays
      else if (claimed.delete(turn)) accounts = kind !== "completed";
      if (accounts) {
        endKind = kind;
        droppedUnrun = false; // drops before this end are its own to report
      }
    }
  });
  return { endKind, droppedUnrun };
}

/** §5.2: the recorded stop reason, then the owner's cancellation; dropped work is not read. */
function oneShotStopReason(work: ConsumedWork, cancelled: boolean): StopReason {
  const recorded = (work.endKind !== null && ONE_SHOT_REASONS.get(work.endKind)) || "error";
  // A cancelled run that did not complete was aborted; a completed one stays completed.
  return cancelled && recorded !== "completed" ? "aborted" : recorded;
}

/** §5.3: the stop reason of one epoch; the log records every cancellation. */
function continuableStopReason(work: ConsumedWork): StopReason {
  if (work.endKind === null || work.endKind === "completed") return work.droppedUnrun ? "aborted" : "completed";
  return CONTINUABLE_REASONS.get(work.endKind) ?? "error";
}

/** T of §5.6: the text of the selection's text blocks joined with "", reasoning left out. */
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

/** The delegation tool's result of a one-shot run (§5.6). */
function delegationToolResult(stopReason: StopReason, selection: Selection, diagnostic: string | undefined) {
  const text = selectionText(selection);
  if (stopReason === "completed") return { isError: false, text };
  // The failure first, then the diagnostic whenever one was given (even ""), then the partial text.
  let message = `Error: ${HEADLINES.get(stopReason) ?? `subagent run ended abnormally (${stopReason})`}`;
  if (diagnostic !== undefined) message += `\nDiagnostic: ${diagnostic}`;
  if (text !== "") message += `\nPartial output before the run ended:\n${text}`;
  return { isError: true, text: message };
}

/** The settle op (§5): result and lifecycle event, and for a one-shot run the tool result. */
export function settleRun(events: Json[], options: SettleOptions): SettledRun {
  const selection = selectOutput(events);
  const work = consumedWork(events);
  const stopReason =
    options.mode === "continuable" ? continuableStopReason(work) : oneShotStopReason(work, options.cancelled);

  const end: SettledRun["end"] = { stopReason };
  // Absent, never [] and never null, when there is no output (§5.5).
  if (selection !== null) end.lastAssistantMessage = selection;

  const settled: SettledRun = { result: { output: selection ?? [], stopReason }, end };
  if (options.mode === "one-shot") settled.toolResult = delegationToolResult(stopReason, selection, options.diagnostic);
  return settled;
}
