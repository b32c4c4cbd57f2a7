// The selection profile (spec/selection.md): which output a child agent produced, the fold that
// computes it incrementally, and the result contract of a settled run.
//
// The code checks exactly the values it reads and throws InvalidInput for a malformed one
// (selection.md §6); unknown event types, unknown chunk types and extra keys are ignored (§2.6).

import { bug } from "./bugs.mjs";
import { InvalidInput } from "./errors.mjs";

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
  if (bug("unfiltered-last-message")) return true;
  if (bug("text-presence")) return content.some((block) => isObject(block) && block.type === "text");
  // Content length decides, not the presence of text: a reasoning-only message counts (§3.1).
  return content.length > 0;
}

/** The incremental form of the selection rule (selection.md §4). */
export class OutputFold {
  #message = null; // content of the last message that counts
  #anyMessage = null; // content of the last assistant message, empty or not
  #text = ""; // every text-delta text, in log order

  /** Fold one session event; `path` locates it in error messages. */
  push(event, path = "$") {
    const type = eventType(event, path);
    if (type === "assistant/message") {
      const content = messageContent(event, path);
      this.#anyMessage = content;
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
    if (bug("message-beats-nothing") && this.#anyMessage !== null) return this.#anyMessage;
    if (bug("no-text-fallback")) return null;
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

// §5.1: the last turn/end's kind decides; every kind not listed, and no turn/end, is an error.
const STOP_REASONS = new Map([
  ["completed", "completed"],
  ["max-tokens", "max-tokens"],
  ["aborted", "aborted"],
  ["blocked", "refusal"],
]);

const HEADLINES = new Map([
  ["aborted", "subagent run was cancelled"],
  ["error", "subagent run failed"],
  ["max-tokens", "subagent run hit its token limit before finishing"],
  ["refusal", "subagent declined the task"],
]);

function stopReasonOf(events, path = "$.events") {
  let kind = null;
  events.forEach((event, index) => {
    const at = `${path}[${index}]`;
    if (eventType(event, at) !== "turn/end") return;
    const reason = requireObject(eventData(event, at).reason, `${at}.data.reason`, "the reason of a turn/end", 'Send {"turn": <int>, "reason": {"kind": "<string>"}} (selection.md §2.4).');
    kind = requireString(reason.kind, `${at}.data.reason.kind`, "the kind of a turn/end reason", 'Send a string kind such as "completed" or "max-tokens" (selection.md §2.4).');
  });
  return STOP_REASONS.get(kind) ?? "error";
}

/** The text of an output's text blocks joined with "" (reasoning and images excluded, §5.5). */
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

/** The settle op: result, lifecycle event and delegation tool result of one run (§5). */
export function settleRun(events, { cancelled = false, diagnostic = null } = {}) {
  const output = selectOutput(events);
  let stopReason = stopReasonOf(events);
  // A cancelled run that did not complete was aborted; a completed one stays completed (§5.2).
  if (cancelled && (stopReason !== "completed" || bug("cancelled-completed-wrong"))) stopReason = "aborted";

  const end = { stopReason };
  // Absent, never [], when there is no output (§5.4).
  if (output !== null) end.lastAssistantMessage = output;
  else if (bug("empty-array-last-assistant")) end.lastAssistantMessage = [];

  const text = outputText(output, "$");
  let toolResult;
  if (stopReason === "completed") {
    toolResult = { isError: false, text };
  } else {
    // The failure first, then what the parent can use (§5.5).
    let message = `Error: ${HEADLINES.get(stopReason) ?? `subagent run ended abnormally (${stopReason})`}`;
    if (typeof diagnostic === "string" && diagnostic !== "") message += `\nDiagnostic: ${diagnostic}`;
    if (text !== "") message += `\nPartial output before the run ended:\n${text}`;
    toolResult = { isError: true, text: message };
  }
  return { result: { output: output ?? [], stopReason }, end, toolResult };
}
