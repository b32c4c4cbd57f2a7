// Canonical serialization (spec/wire.md §6): the UTF-8 bytes of what JSON.stringify writes for a
// value once every unpaired surrogate, in member names and in strings, is replaced by U+FFFD.
//
// JSON.stringify already writes the canonical escapes (§6.2), Number::toString (§6.3) and the
// ECMAScript member order, array-index names first (§6.4). What is left is well-forming (§6.1),
// done on a deep copy so that the caller's value is never altered.

import { type Json, type JsonObject, isObject } from "./json.js";

/** A deep copy of `value` whose strings and member names are well-formed (wire.md §6.1). */
export function wellFormed(value: Json): Json {
  if (typeof value === "string") return value.toWellFormed();
  if (Array.isArray(value)) return value.map(wellFormed);
  if (isObject(value)) {
    // A null prototype keeps a member named "__proto__" an ordinary member, as JSON.parse made it.
    // Two names equal once well-formed: the later value lands at the first one's position, which
    // is what plain assignment does (§6.1).
    const copy = Object.create(null) as JsonObject;
    for (const name of Object.keys(value)) copy[name.toWellFormed()] = wellFormed(value[name] as Json);
    return copy;
  }
  return value;
}

/** The canonical line of `value`, as a well-formed string, without the trailing line feed. */
export function canonicalLine(value: Json): string {
  return JSON.stringify(wellFormed(value));
}

/** The size of a line: its UTF-8 byte count (wire.md §6.5), never its UTF-16 length. */
export function lineSize(line: string): number {
  return Buffer.byteLength(line, "utf8");
}
