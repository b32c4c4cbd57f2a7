// The selection profile (spec/selection.md §3-4): which output a child agent produced, and the
// fold that computes it incrementally. settle.ts builds the result contract (§5) on it.
//
// Unknown event types, chunk types, block types and extra members are ignored (§2.6).

import { InvalidInput } from "./errors.js";
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
