// The wire profile (spec/wire.md): classification (§3), projection to a canonical line (§4, §6,
// §7), and the backstop that bounds an oversized tool_execution_update (§5).

import { canonicalLine, lineSize, wellFormed } from "./canonical.js";
import { InvalidInput } from "./errors.js";
import { type Json, type JsonObject, hasMember, isObject, member } from "./json.js";
import { memberPath, refuseUncarriable } from "./numbers.js";
import { requireBoolean, requireList, requireObject, requireString } from "./read.js";

/** The warning placed before the kept tail (wire.md §5.3). */
export const MARKER = "[live output truncated]\n";
/** Ids keep their first 256 code points in the bounded form (wire.md §5.4). */
export const ID_CLIP_CODE_POINTS = 256;
/** The smallest maxBytes: 143 bytes of envelope + 2 ids × 256 code points × 6 bytes (§5.6). */
export const MIN_MAX_BYTES = 3215;
export const DEFAULT_MAX_BYTES = 262144;

export const FIT_STRATEGIES = ["halving", "maximal"] as const;
export type FitStrategy = (typeof FIT_STRATEGIES)[number];

export function isFitStrategy(value: string): value is FitStrategy {
  return (FIT_STRATEGIES as readonly string[]).includes(value);
}

export interface ProjectOptions {
  readonly includeLiveEvents: boolean;
  readonly maxBytes: number;
  readonly fitStrategy: FitStrategy;
}

const FRAMES: ReadonlySet<string> = new Set(["message_update", "tool_execution_update"]);

/** An agent event: an object with a string type (wire.md §2.1). */
function requireEvent(event: Json | undefined): JsonObject & { type: string } {
  const object = requireObject(event, "$.event", {
    what: "an agent event (wire.md §2.1)",
    fix: "Send the event as schemas/agent-event.json describes.",
  });
  requireString(member(object, "type"), "$.event.type", {
    what: "the type of an agent event (wire.md §2.1)",
    fix: 'Give every agent event a string "type"; unknown types are facts (wire.md §2.5).',
  });
  return object as JsonObject & { type: string };
}

/** "frame" for the two live types, "fact" for every other type, unknown ones included (§3). */
export function classifyEvent(event: Json | undefined): "fact" | "frame" {
  return FRAMES.has(requireEvent(event).type) ? "frame" : "fact";
}

/** The id and name of the tool call a toolcall_start announces (wire.md §4.3, §4.5). */
function toolCallFields(source: JsonObject): { id: string; name: string } {
  const base = "$.event.assistantMessageEvent";
  const partial = requireObject(member(source, "partial"), `${base}.partial`, {
    what: "the partial message of a toolcall_start (wire.md §2.4)",
    fix: "Send the cumulative assistant message as partial.",
  });
  const content = requireList(member(partial, "content"), `${base}.partial.content`, {
    what: "the content of the partial message (wire.md §2.3)",
    fix: "Send the partial message's content blocks as a list.",
  });
  const index = member(source, "contentIndex");
  // content[contentIndex] as JavaScript reads it: an absent, negative or fractional index, or one
  // past the end, finds no block. 1.0 is the integer 1 (wire.md §1).
  if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= content.length) {
    throw new InvalidInput({
      value: index,
      path: `${base}.contentIndex`,
      reason: `points at no block of partial.content (it has ${content.length}): a toolcall_start must announce a tool call that exists (wire.md §4.5)`,
      fix: "Send the index of the toolCall block this toolcall_start opens.",
    });
  }
  const block = content[index];
  const at = `${base}.partial.content[${index}]`;
  if (!isObject(block) || member(block, "type") !== "toolCall") {
    throw new InvalidInput({
      value: block,
      path: at,
      reason: "is not a toolCall block: a toolcall_start must announce a tool call (wire.md §4.5)",
      fix: "Point contentIndex at the toolCall block, or send another event type.",
    });
  }
  return {
    id: requireString(member(block, "id"), `${at}.id`, { what: "a tool call's id", fix: "Send the id as a string." }),
    name: requireString(member(block, "name"), `${at}.name`, { what: "a tool call's name", fix: "Send the name as a string." }),
  };
}

/** {type, usage?, assistantMessageEvent without partial} (wire.md §4.3). */
function projectMessageUpdate(event: JsonObject & { type: string }): JsonObject {
  const message = requireObject(member(event, "message"), "$.event.message", {
    what: "the message of a message_update (wire.md §2.2)",
    fix: 'Send {"role": "assistant", "content": [...]} as message.',
  });
  const role = requireString(member(message, "role"), "$.event.message.role", {
    what: "a message's role (wire.md §2.3)",
    fix: "Send the role as a string.",
  });
  if (role !== "assistant") {
    throw new InvalidInput({
      value: role,
      path: "$.event.message.role",
      reason: "is not 'assistant': a message_update streams an assistant message, so this event is erroneous (wire.md §4.5)",
      fix: "Send message_update only for assistant messages.",
    });
  }
  const source = requireObject(member(event, "assistantMessageEvent"), "$.event.assistantMessageEvent", {
    what: "the assistantMessageEvent of a message_update (wire.md §2.4)",
    fix: "Send the streaming step as schemas/assistant-message-event.json describes.",
  });
  // Every member but the cumulative snapshot, in the event's own order. A null-prototype object:
  // a member named "__proto__" stays an ordinary member.
  const ame = Object.create(null) as JsonObject;
  for (const name of Object.keys(source)) if (name !== "partial") ame[name] = source[name] as Json;
  if (member(source, "type") === "toolcall_start") {
    // Object spread semantics: a member the event already has keeps its position and takes the
    // new value; otherwise id, then toolName, are appended.
    const { id, name } = toolCallFields(source);
    ame["id"] = id;
    ame["toolName"] = name;
  }
  const projected: JsonObject = { type: event.type };
  if (hasMember(message, "usage")) projected["usage"] = message["usage"] as Json;
  projected["assistantMessageEvent"] = ame;
  return projected;
}

/** The projected value of an event, before the backstop (wire.md §4.2-§4.4). */
function projectValue(event: JsonObject & { type: string }): Json {
  switch (event.type) {
    case "message_update":
      return projectMessageUpdate(event);
    case "turn_end": {
      const message = requireObject(member(event, "message"), "$.event.message", {
        what: "the message of a turn_end (wire.md §2.2)",
        fix: "Send the turn's assistant message.",
      });
      return {
        type: event.type,
        messageRole: requireString(member(message, "role"), "$.event.message.role", {
          what: "a message's role (wire.md §2.3)",
          fix: "Send the role as a string.",
        }),
        toolResultCount: requireList(member(event, "toolResults"), "$.event.toolResults", {
          what: "the tool results of a turn_end (wire.md §2.2)",
          fix: "Send the tool result messages as a list.",
        }).length,
      };
    }
    case "agent_end": {
      const willRetry = hasMember(event, "willRetry")
        ? requireBoolean(member(event, "willRetry"), "$.event.willRetry", {
            what: "willRetry (wire.md §2.2)",
            fix: "Send true or false, or leave willRetry out (it then reads as false).",
          })
        : false;
      const messages = requireList(member(event, "messages"), "$.event.messages", {
        what: "the messages of an agent_end (wire.md §2.2)",
        fix: "Send the run's messages as a list.",
      });
      return { type: event.type, willRetry, messageCount: messages.length };
    }
    default:
      // Every other fact, and an opted-in tool_execution_update, is written as it is (§4.2).
      return event;
  }
}

/** The text a bounded update keeps a tail of (wire.md §5.3); `partialResult` is well-formed. */
export function extractText(partialResult: Json | undefined): string {
  if (typeof partialResult === "string") return partialResult;
  if (isObject(partialResult)) {
    const content = member(partialResult, "content");
    if (Array.isArray(content)) {
      let text = "";
      for (const item of content) {
        if (!isObject(item) || member(item, "type") !== "text") continue;
        const piece = member(item, "text");
        if (typeof piece === "string") text += piece;
      }
      return text;
    }
  }
  return "";
}

/** The first 256 code points of a well-formed id (wire.md §5.4). */
function clip(id: string): string {
  const codePoints = Array.from(id);
  return codePoints.length <= ID_CLIP_CODE_POINTS ? id : codePoints.slice(0, ID_CLIP_CODE_POINTS).join("");
}

/** The bounded form of an oversized update under the given fit strategy (wire.md §5.2-§5.5). */
export function boundLiveUpdate(event: JsonObject, maxBytes: number, fitStrategy: FitStrategy): string {
  const clean = wellFormed(event) as JsonObject;
  const toolCallId = clip(requireString(member(clean, "toolCallId"), "$.event.toolCallId", { what: "toolCallId (wire.md §5.4)", fix: "Send toolCallId as a string." }));
  const toolName = clip(requireString(member(clean, "toolName"), "$.event.toolName", { what: "toolName (wire.md §5.4)", fix: "Send toolName as a string." }));
  // Pieces were well-formed one by one (wellFormed above) before they are joined (§5.3).
  const codePoints = Array.from(extractText(member(clean, "partialResult")));
  const n = codePoints.length;
  // The last k code points. Never slice(-k): slice(-0) is the whole text, not the empty tail.
  const tail = (k: number): string => codePoints.slice(n - k).join("");
  // The exact member order of the bounded form (§5.2); args, details and the rest are dropped.
  const lineFor = (k: number): string =>
    canonicalLine({ type: "tool_execution_update", toolCallId, toolName, partialResult: { content: [{ type: "text", text: MARKER + tail(k) }] } });
  const fits = (line: string): boolean => lineSize(line) <= maxBytes;

  if (fitStrategy === "maximal") {
    // Whether k fits is monotone in k (§5.6), and k = 0 always fits, so bisection finds the
    // largest fitting k.
    let low = 0;
    let high = n;
    while (low < high) {
      const mid = low + Math.ceil((high - low) / 2);
      if (fits(lineFor(mid))) low = mid;
      else high = mid - 1;
    }
    return lineFor(low);
  }
  // halving: k = N, ⌊N/2⌋, ⌊N/4⌋, …, 1, 0; the first that fits. k = 0 always fits (§5.6).
  let k = n;
  let line = lineFor(k);
  while (!fits(line)) {
    k = Math.floor(k / 2);
    line = lineFor(k);
  }
  return line;
}

/** Refuse the numbers the projected value would carry but a line cannot (wire.md §7). */
function refuseUncarriedNumbers(event: JsonObject & { type: string }): void {
  if (event.type === "message_update") {
    const message = event["message"] as JsonObject;
    if (hasMember(message, "usage")) refuseUncarriable(message, "usage", "$.event.message.usage");
    const source = event["assistantMessageEvent"] as JsonObject;
    for (const name of Object.keys(source)) {
      if (name !== "partial") refuseUncarriable(source, name, memberPath("$.event.assistantMessageEvent", name));
    }
  } else if (event.type !== "turn_end" && event.type !== "agent_end") {
    // The whole event, args included even when the bounded form would drop them (§7).
    refuseUncarriable({ event }, "event", "$.event");
  }
}

/** maxBytes: an integer of at least 3215 (wire.md §5.6, §7). */
export function requireMaxBytes(maxBytes: Json | undefined): number {
  if (typeof maxBytes !== "number" || !Number.isInteger(maxBytes) || maxBytes < MIN_MAX_BYTES) {
    throw new InvalidInput({
      value: maxBytes,
      path: "$.maxBytes",
      reason: `is not an integer of at least ${MIN_MAX_BYTES}, the smallest bound the empty tail always fits (wire.md §5.6)`,
      fix: `Send an integer maxBytes >= ${MIN_MAX_BYTES} (the default is ${DEFAULT_MAX_BYTES}).`,
    });
  }
  return maxBytes;
}

/**
 * The canonical line an event is written as, or null when it is not written (wire.md §4-§7).
 * Throws InvalidInput for an erroneous event (§4.5) and a number a line cannot carry (§7).
 */
export function projectEvent(event: Json | undefined, options: ProjectOptions): string | null {
  const checked = requireEvent(event);
  // The opt-in is decided first: a frame nobody asked for is never looked at further (§4.1).
  if (FRAMES.has(checked.type) && !options.includeLiveEvents) return null;
  const projected = projectValue(checked);
  refuseUncarriedNumbers(checked);
  const line = canonicalLine(projected);
  // The backstop applies to tool_execution_update only, and only when over the bound (§5.1).
  if (checked.type === "tool_execution_update" && lineSize(line) > options.maxBytes) {
    return boundLiveUpdate(checked, options.maxBytes, options.fitStrategy);
  }
  return line;
}
