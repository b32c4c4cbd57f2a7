// The selection profile (spec/selection.md): which output a child agent produced, the fold that
// computes it incrementally, and the result contract of a settled run.
//
// The code checks exactly the values it reads and throws InvalidInput for a malformed one
// (selection.md §6); unknown event types, unknown chunk types and extra keys are ignored (§2.6).

import { InvalidInput } from "./errors.mjs";
import { unsafeLiteral } from "./numbers.mjs";

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

function requireObject(value, path, what, fix) {
  if (!isObject(value)) {
    throw new InvalidInput({ value, path, reason: `is not a JSON object, but ${what} must be one (selection.md §6)`, fix });
  }
  return value;
}

function requireList(value, path, what, fix) {
  if (!Array.isArray(value)) {
    throw new InvalidInput({ value, path, reason: `is not a JSON array, but ${what} must be one (selection.md §6)`, fix });
  }
  return value;
}

function requireString(value, path, what, fix) {
  if (typeof value !== "string") {
    throw new InvalidInput({ value, path, reason: `is not a string, but ${what} must be one (selection.md §6)`, fix });
  }
  return value;
}

/** The `type` of the session event at `path` (§2.1). */
function eventType(event, path) {
  requireObject(event, path, "a session event", 'Send each event as an object {"type", "seq", "time", "data"} (selection.md §2.1).');
  return requireString(event.type, `${path}.type`, "the type of a session event", 'Give every event a string "type"; unknown types are allowed and ignored (selection.md §2.6).');
}

function eventData(event, path) {
  return requireObject(event.data, `${path}.data`, "the data of a session event", 'Give the event a "data" object (selection.md §2.1).');
}

/** `data.message.content` of an assistant/message (§2.2). */
function messageContent(event, path) {
  const message = requireObject(
    eventData(event, path).message,
    `${path}.data.message`,
    "the message of an assistant/message",
    'Send {"message": {"role": "assistant", "content": [...]}} (selection.md §2.2).',
  );
  return requireList(
    message.content,
    `${path}.data.message.content`,
    "the content of an assistant message",
    "Send the content blocks as a list; a usage-only message has [] (selection.md §2.2).",
  );
}

/** The text an assistant/chunk streams, or null when it is not a text delta (§3.4). */
function textDeltaText(event, path) {
  const chunk = requireObject(eventData(event, path).chunk, `${path}.data.chunk`, "the chunk of an assistant/chunk", 'Send {"chunk": {"type": ..., ...}} (selection.md §2.3).');
  const type = requireString(chunk.type, `${path}.data.chunk.type`, "the type of a chunk", 'Give every chunk a string "type"; unknown chunk types are ignored (selection.md §2.3).');
  if (type !== "text-delta") return null;
  return requireString(chunk.text, `${path}.data.chunk.text`, "the text of a text-delta chunk", 'Send {"type": "text-delta", "index": <int>, "text": "<string>"} (selection.md §2.3).');
}

/** Whether a message's content makes it eligible as output (§3.1-3.2). */
function counts(content) {
  // Content length decides, not the presence of text: a reasoning-only message counts (§3.1).
  return content.length > 0;
}

/** The incremental form of the selection rule (selection.md §4). */
export class OutputFold {
  #message = null; // content of the last message that counts
  #text = ""; // every text-delta text, in log order

  /** Fold one session event; `path` locates it in error messages. */
  push(event, path = "$") {
    const type = eventType(event, path);
    if (type === "assistant/message") {
      const content = messageContent(event, path);
      // An empty (usage-only) message never replaces an earlier one and never hides streamed
      // text (§3.2); interrupted messages count like any other (§3.1).
      if (counts(content)) this.#message = content;
    } else if (type === "assistant/chunk") {
      const text = textDeltaText(event, path);
      if (text !== null) this.#text += text;
    }
    // Tool results, user messages, turns and unknown types never contribute (§3.4, §2.6).
  }

  /** Fold raw text, as a transport that only sees chunk text does; "" is a no-op (§4.1). */
  pushText(text, path = "$") {
    this.#text += requireString(text, path, "pushed text", 'Push text as {"text": "<string>"} (selection.md §4.1).');
  }

  /** The output so far: content blocks, or null (§3). */
  collect() {
    if (this.#message !== null) return this.#message;
    // The streamed-text fallback, as one text block; nothing streamed means no output (§3.3).
    return this.#text === "" ? null : [{ type: "text", text: this.#text }];
  }
}

function foldEvents(events, path = "$.events") {
  const fold = new OutputFold();
  requireList(events, path, "a session log", "Send the events as a list (selection.md §2.1).").forEach((event, index) =>
    fold.push(event, `${path}[${index}]`),
  );
  return fold;
}

/** The batch rule: the output of a complete event list (§3), the fold's answer by construction. */
export function selectOutput(events) {
  return foldEvents(events).collect();
}

/** The fold op: one collect() before the first push and one after each push (§4.1). */
export function foldResults(pushes) {
  const fold = new OutputFold();
  const results = [fold.collect()];
  requireList(pushes, "$.pushes", "the list of pushes", 'Send {"pushes": [{"event": ...} or {"text": "..."}, ...]} (selection.md §7).').forEach(
    (push, index) => {
      const path = `$.pushes[${index}]`;
      const hasEvent = isObject(push) && Object.hasOwn(push, "event");
      const hasText = isObject(push) && Object.hasOwn(push, "text");
      if (hasEvent === hasText) {
        throw new InvalidInput({
          value: push,
          path,
          reason: 'is neither {"event": ...} nor {"text": ...} (selection.md §4.1)',
          fix: 'Send each push as an object with exactly one of the keys "event" and "text".',
        });
      }
      if (hasEvent) fold.push(push.event, `${path}.event`);
      else fold.pushText(push.text, `${path}.text`);
      results.push(fold.collect());
    },
  );
  return results;
}

// §5.2: the end's kind → the one-shot stop reason; every kind not listed, and no end, is an error.
const ONE_SHOT_REASONS = new Map([
  ["completed", "completed"],
  ["max-tokens", "max-tokens"],
  ["aborted", "aborted"],
  ["blocked", "refusal"],
]);

// §5.3: the end's kind → the continuable stop reason; completed and no end depend on dropped work.
const CONTINUABLE_REASONS = new Map([
  ["max-tokens", "max-tokens"],
  ["aborted", "aborted"],
  ["interrupted", "aborted"],
  ["error", "error"],
  ["blocked", "refusal"],
]);

const HEADLINES = new Map([
  ["aborted", "subagent run was cancelled"],
  ["error", "subagent run failed"],
  ["max-tokens", "subagent run hit its token limit before finishing"],
  ["refusal", "subagent declined the task"],
]);

/**
 * `data.turn` of a turn or step event: the key of its marks (§5.1), the exact integer as decimal
 * digits. A turn beyond 2^53 − 1 is read from its literal: JSON.parse reads 9007199254740992 and
 * 9007199254740993 as one double, but they are two turns (selection.md §1, the exact number
 * rule); and one turn may be written as an integer and as a double (9007199254740992.0 is
 * 9007199254740992), so every turn is keyed by its value, never by how it was written.
 */
function turnNumber(event, path) {
  const data = eventData(event, path);
  const value = data.turn;
  const literal = unsafeLiteral(data, "turn");
  if (literal !== undefined) return String(BigInt(literal));
  if (!Number.isInteger(value)) {
    throw new InvalidInput({
      value,
      path: `${path}.data.turn`,
      reason: "is not an integer, but the turn number of a turn or step event must be one (selection.md §6)",
      fix: 'Send the turn the event belongs to as an integer: {"turn": 1, ...} (selection.md §2.4).',
    });
  }
  return String(BigInt(value));
}

function turnEndKind(event, path) {
  const reason = requireObject(eventData(event, path).reason, `${path}.data.reason`, "the reason of a turn/end", 'Send {"turn": <int>, "reason": {"kind": "<string>"}} (selection.md §2.4).');
  return requireString(reason.kind, `${path}.data.reason.kind`, "the kind of a turn/end reason", 'Send a string kind such as "completed" or "max-tokens" (selection.md §2.4).');
}

/**
 * The log's account of consumed work, in one pass (§5.1): the kind of the end (the last turn/end
 * that accounts for work, or null) and whether work was dropped unrun after it. Marks are keyed
 * by turn number and removed only by a turn/end of that number.
 */
export function consumedWork(events, path = "$.events") {
  const stepped = new Set();
  const claimed = new Set();
  let open = null;
  let endKind = null;
  let droppedUnrun = false;
  requireList(events, path, "a session log", "Send the events as a list (selection.md §2.1).").forEach((event, index) => {
    const at = `${path}[${index}]`;
    switch (eventType(event, at)) {
      case "turn/start":
        open = turnNumber(event, at);
        break;
      case "step/start":
        stepped.add(turnNumber(event, at)); // the step's own turn, open or not
        break;
      case "agent/inbox/spliced": {
        const data = eventData(event, at);
        if (!Object.hasOwn(data, "removedCount")) break; // an insertion consumes nothing
        if (data.outcome === "canceled") {
          const inserted = requireList(data.inserted, `${at}.data.inserted`, "the inserted messages of a splice", "Send the messages the splice inserted as a list, [] for none (selection.md §2.4).");
          // Only a cancellation that leaves nothing behind drops work; a replacement keeps it.
          droppedUnrun = droppedUnrun || inserted.length === 0;
        } else if (open !== null) {
          claimed.add(open); // a claim outside any turn is ignored
        }
        break;
      }
      case "turn/end": {
        const turn = turnNumber(event, at);
        const kind = turnEndKind(event, at);
        open = null;
        let accounts = false;
        if (stepped.delete(turn)) accounts = true; // a claim mark of the turn stays
        else if (claimed.delete(turn)) accounts = kind !== "completed";
        if (accounts) {
          endKind = kind;
          droppedUnrun = false; // drops before this end are its own to report
        }
        break;
      }
      default:
        break;
    }
  });
  return { endKind, droppedUnrun };
}

/** §5.2: the one-shot stop reason; dropped work is not read, the cancelled flag is. */
function oneShotStopReason({ endKind }, cancelled) {
  const recorded = (endKind !== null && ONE_SHOT_REASONS.get(endKind)) || "error";
  // A cancelled run that did not complete was aborted; a completed one stays completed.
  if (cancelled && recorded !== "completed") return "aborted";
  return recorded;
}

/** §5.3: the continuable stop reason of one epoch. */
function continuableStopReason({ endKind, droppedUnrun }) {
  if (endKind === null || endKind === "completed") return droppedUnrun ? "aborted" : "completed";
  return CONTINUABLE_REASONS.get(endKind) ?? "error";
}

/** The text of an output's text blocks joined with "" (reasoning and images excluded, §5.6). */
function outputText(output, path) {
  let text = "";
  (output ?? []).forEach((block, index) => {
    const at = `${path}[${index}]`;
    requireObject(block, at, "a content block", 'Send content blocks as objects with a "type" (selection.md §2.5).');
    if (block.type === "text") {
      text += requireString(block.text, `${at}.text`, "the text of a text block", 'Send {"type": "text", "text": "<string>"} (selection.md §2.5).');
    }
  });
  return text;
}

/** The delegation tool's result of a one-shot run (§5.6); `diagnostic` is undefined when absent. */
function delegationToolResult(stopReason, output, diagnostic) {
  const text = outputText(output, "$");
  if (stopReason === "completed") return { isError: false, text };
  // The failure first, then the diagnostic whenever one was given (even ""), then the partial text.
  let message = `Error: ${HEADLINES.get(stopReason) ?? `subagent run ended abnormally (${stopReason})`}`;
  if (diagnostic !== undefined) message += `\nDiagnostic: ${diagnostic}`;
  if (text !== "") message += `\nPartial output before the run ended:\n${text}`;
  return { isError: true, text: message };
}

/**
 * The settle op (§5): `mode` is "one-shot" (the default) or "continuable". A one-shot answer has
 * result, end and toolResult; a continuable one has result and end. `diagnostic` is undefined when
 * the request left it out.
 */
export function settleRun(events, { mode = "one-shot", cancelled = false, diagnostic = undefined } = {}) {
  const output = selectOutput(events);
  const work = consumedWork(events);
  const stopReason = mode === "continuable" ? continuableStopReason(work) : oneShotStopReason(work, cancelled);

  const end = { stopReason };
  // Absent, never [], when there is no output (§5.5).
  if (output !== null) end.lastAssistantMessage = output;

  const settled = { result: { output: output ?? [], stopReason }, end };
  if (mode !== "continuable") settled.toolResult = delegationToolResult(stopReason, output, diagnostic);
  return settled;
}
