// The wire profile (spec/wire.md): classification, projection to a canonical line, and the
// backstop that bounds an oversized tool_execution_update.

import { canonicalLine, lineSize, wellFormed } from "./canonical.mjs";
import { InvalidInput } from "./errors.mjs";
import { memberPath, refuseUncarriable } from "./numbers.mjs";

export { InvalidInput };

/** The warning placed before the kept tail (wire.md §5.3). */
export const MARKER = "[live output truncated]\n";
/** Ids keep their first 256 code points in the bounded form (wire.md §5.4). */
export const ID_CLIP_CODE_POINTS = 256;
/** The smallest allowed maxBytes: the empty tail always fits at or above it (wire.md §5.6). */
// The largest empty-tail bounded line: 143 bytes of envelope + 2 ids x 256 code points x 6 bytes.
export const MIN_MAX_BYTES = 3215;
export const FIT_STRATEGIES = Object.freeze(["halving", "maximal"]);

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

// The port checks exactly the values it reads and refuses a malformed one (wire.md §7).
function requireObject(value, path, what) {
  if (!isObject(value)) {
    throw new InvalidInput({ value, path, reason: `is not an object, so it is not ${what} (wire.md §7)`, fix: `Send ${what} as schemas/agent-event.json describes.` });
  }
  return value;
}

function requireList(value, path) {
  if (!Array.isArray(value)) {
    throw new InvalidInput({ value, path, reason: "is not an array (wire.md §7)", fix: "Send an array here, as schemas/agent-event.json describes." });
  }
  return value;
}

function requireString(value, path, fix) {
  if (typeof value !== "string") throw new InvalidInput({ value, path, reason: "is not a string (wire.md §7)", fix });
  return value;
}

/** An agent event: an object with a string type (wire.md §2). */
function requireEvent(event) {
  requireObject(event, "$.event", "an agent event");
  requireString(event.type, "$.event.type", "Every agent event carries a string 'type' (wire.md §2, §7).");
  return event;
}

const FRAMES = new Set(["message_update", "tool_execution_update"]);

/** "frame" for the two live types, "fact" for everything else, unknown types included (§3). */
export function classifyEvent(event) {
  return FRAMES.has(requireEvent(event).type) ? "frame" : "fact";
}

/** The id and name of the tool call a toolcall_start announces (wire.md §4.3, §4.5). */
function toolCallFields(source) {
  const base = "$.event.assistantMessageEvent";
  const partial = requireObject(source.partial, `${base}.partial`, "an assistant message snapshot");
  const content = requireList(partial.content, `${base}.partial.content`);
  const index = source.contentIndex;
  // content[contentIndex] as JavaScript reads it: a negative, fractional or absent index, or one
  // past the end, finds no block.
  if (!Number.isInteger(index) || index < 0 || index >= content.length) {
    throw new InvalidInput({
      value: index,
      path: `${base}.contentIndex`,
      reason: `points at no block of partial.content (it has ${content.length}): a toolcall_start must announce a tool call that exists (wire.md §4.5)`,
      fix: "Send the index of the toolCall block this toolcall_start opens.",
    });
  }
  const block = content[index];
  const at = `${base}.partial.content[${index}]`;
  if (!isObject(block) || block.type !== "toolCall") {
    throw new InvalidInput({
      value: block,
      path: at,
      reason: "is not a toolCall block: a toolcall_start must announce a tool call (wire.md §4.5)",
      fix: "Point contentIndex at the toolCall block, or send another event type.",
    });
  }
  return {
    id: requireString(block.id, `${at}.id`, "Send the tool call's id as a string."),
    name: requireString(block.name, `${at}.name`, "Send the tool call's name as a string."),
  };
}

/** {type, usage?, assistantMessageEvent minus partial} (wire.md §4.3). */
function projectMessageUpdate(event) {
  const message = requireObject(event.message, "$.event.message", "a message");
  const role = requireString(message.role, "$.event.message.role", "Send the message's role as a string (wire.md §2).");
  if (role !== "assistant") {
    throw new InvalidInput({
      value: role,
      path: "$.event.message.role",
      reason: "is not 'assistant': a message_update streams an assistant message, so this event is erroneous (wire.md §4.5)",
      fix: "Send message_update only for assistant messages.",
    });
  }
  const source = requireObject(event.assistantMessageEvent, "$.event.assistantMessageEvent", "an assistantMessageEvent");
  // Every key but the cumulative snapshot, in the event's own order.
  const { partial: _snapshot, ...rest } = source;
  let ame = rest;
  if (source.type === "toolcall_start") {
    const { id, name } = toolCallFields(source);
    // Object spread: an existing id/toolName key keeps its position and takes the new value.
    ame = { ...ame, id, toolName: name };
  }
  const projected = { type: event.type };
  if (Object.hasOwn(message, "usage")) projected.usage = message.usage;
  projected.assistantMessageEvent = ame;
  return projected;
}

/** The projected value of an event before the backstop (wire.md §4.2-4.4). */
function projectValue(event) {
  switch (event.type) {
    case "message_update":
      return projectMessageUpdate(event);
    case "turn_end": {
      const message = requireObject(event.message, "$.event.message", "a message");
      return {
        type: event.type,
        messageRole: requireString(message.role, "$.event.message.role", "Send the message's role as a string (wire.md §2)."),
        toolResultCount: requireList(event.toolResults, "$.event.toolResults").length,
      };
    }
    case "agent_end": {
      const willRetry = Object.hasOwn(event, "willRetry") ? event.willRetry : false;
      if (typeof willRetry !== "boolean") {
        throw new InvalidInput({ value: willRetry, path: "$.event.willRetry", reason: "is not a boolean (wire.md §7)", fix: "Send true or false, or leave willRetry out (it then reads as false)." });
      }
      return { type: event.type, willRetry, messageCount: requireList(event.messages, "$.event.messages").length };
    }
    default:
      // Every other fact, and an opted-in tool_execution_update, is written as it is (§4.2).
      return event;
  }
}

/** The text a bounded update keeps a tail of (wire.md §5.3); `partialResult` is well-formed. */
export function extractText(partialResult) {
  if (typeof partialResult === "string") return partialResult;
  if (isObject(partialResult) && Array.isArray(partialResult.content)) {
    return partialResult.content
      .filter((item) => isObject(item) && item.type === "text" && typeof item.text === "string")
      .map((item) => item.text)
      .join("");
  }
  return "";
}

/** The first 256 code points of a well-formed id (wire.md §5.4). */
function clip(id) {
  const codePoints = Array.from(id);
  return codePoints.length <= ID_CLIP_CODE_POINTS ? id : codePoints.slice(0, ID_CLIP_CODE_POINTS).join("");
}

/** The bounded form of an oversized update, for the given fit strategy (wire.md §5.2-5.5). */
export function boundLiveUpdate(event, maxBytes, fitStrategy) {
  const clean = wellFormed(event);
  const toolCallId = clip(requireString(clean.toolCallId, "$.event.toolCallId", "Send toolCallId as a string (wire.md §5.4)."));
  const toolName = clip(requireString(clean.toolName, "$.event.toolName", "Send toolName as a string (wire.md §5.4)."));
  const text = extractText(clean.partialResult);

  // The tail is a suffix counted in code points of the well-formed text (§5.5).
  const units = Array.from(text);
  const n = units.length;
  // The last k code points; never slice(-k): slice(-0) is slice(0), the whole text.
  const tail = (k) => units.slice(n - k).join("");
  // Exact key order of the bounded form (§5.2); args, details and every other key are dropped.
  const lineFor = (k) =>
    canonicalLine({
      type: clean.type,
      toolCallId,
      toolName,
      partialResult: { content: [{ type: "text", text: MARKER + tail(k) }] },
    });
  const fits = (line) => lineSize(line) <= maxBytes;

  if (fitStrategy === "maximal") {
    // Fit is monotone in k (§5.5), so the largest fitting k is found by bisection; k = 0
    // always fits (§5.6) and is never measured.
    let low = 0;
    let high = n;
    while (low < high) {
      const mid = low + Math.ceil((high - low) / 2);
      if (fits(lineFor(mid))) low = mid;
      else high = mid - 1;
    }
    return lineFor(low);
  }

  // halving: k = N, ⌊N/2⌋, ⌊N/4⌋, …, 1, 0, keeping the first that fits. The loop relies on the
  // proof of §5.6 (the empty tail always fits) to end, as the spec intends.
  let k = n;
  let line = lineFor(k);
  while (!fits(line)) {
    k = Math.floor(k / 2);
    line = lineFor(k);
  }
  return line;
}

/**
 * Refuse numbers the projected value would carry but a line cannot (wire.md §7): the members the
 * projection keeps, before the backstop (so an update's args count even when bounding drops them).
 */
function refuseUncarriedNumbers(event) {
  if (event.type === "message_update") {
    if (Object.hasOwn(event.message, "usage")) refuseUncarriable(event.message, "usage", "$.event.message.usage");
    const ame = event.assistantMessageEvent;
    for (const key of Object.keys(ame)) {
      if (key !== "partial") refuseUncarriable(ame, key, memberPath("$.event.assistantMessageEvent", key));
    }
  } else if (event.type !== "turn_end" && event.type !== "agent_end") {
    // turn_end and agent_end carry only strings, counts and a boolean (§4.4).
    refuseUncarriable({ event }, "event", "$.event");
  }
}

/** Check maxBytes: an integer of at least 3215 (wire.md §5.6). */
function requireMaxBytes(maxBytes) {
  if (typeof maxBytes !== "number" || !Number.isInteger(maxBytes) || maxBytes < MIN_MAX_BYTES) {
    throw new InvalidInput({
      value: maxBytes,
      path: "$.maxBytes",
      reason: `is not an integer of at least ${MIN_MAX_BYTES}, the smallest bound the empty tail always fits (wire.md §5.6)`,
      fix: `Send an integer maxBytes >= ${MIN_MAX_BYTES} (the default is 262144).`,
    });
  }
}

/**
 * The canonical line an event is written as, or null when it is not written (wire.md §4-5).
 * Throws InvalidInput for an erroneous event (§4.5) or maxBytes (§5.6).
 */
export function projectEvent(event, { includeLiveEvents = false, maxBytes = 262144, fitStrategy = "halving" } = {}) {
  requireMaxBytes(maxBytes);
  requireEvent(event);
  // Frames are written only when the caller opted into live events (§4.1).
  if (classifyEvent(event) === "frame" && !includeLiveEvents) return null;

  const projected = projectValue(event);
  refuseUncarriedNumbers(event);
  const line = canonicalLine(projected);
  // The backstop applies only to tool_execution_update (§5.1).
  if (event.type === "tool_execution_update" && lineSize(line) > maxBytes) return boundLiveUpdate(event, maxBytes, fitStrategy);
  return line;
}
