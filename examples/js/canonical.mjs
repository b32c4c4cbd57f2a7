// Canonical serialization (spec/wire.md §6): the UTF-8 bytes of what JSON.stringify writes for a
// value once every unpaired surrogate, in keys and in strings, was replaced by U+FFFD.
//
// JSON.stringify already gives the canonical escapes (wire.md §6.2), ECMAScript Number::toString
// (§6.3) and the ECMAScript member order, integer-like keys first (§6.4). The only work left is
// well-forming (§6.1), done on a deep copy so the caller's value is never altered.
//
// Numbers: integer literals beyond ±(2^53−1) and infinities are refused before a value gets here
// (wire.md §7, numbers.mjs); JSON.parse has already rounded such an integer, so serializing it
// would alter the fact silently.

/** A deep copy of `value` whose strings and keys are well-formed (wire.md §6.1). */
export function wellFormed(value) {
  if (typeof value === "string") return value.toWellFormed();
  if (Array.isArray(value)) return value.map(wellFormed);
  if (value !== null && typeof value === "object") {
    // A null prototype: a "__proto__" key is then an ordinary member, as JSON.parse made it.
    // Two keys equal after well-forming: the later value lands at the first key's position,
    // which is what plain assignment does (wire.md §6.4).
    const copy = Object.create(null);
    for (const key of Object.keys(value)) copy[key.toWellFormed()] = wellFormed(value[key]);
    return copy;
  }
  return value;
}

/** The canonical line for `value`, as a (well-formed) JavaScript string, no trailing newline. */
export function canonicalLine(value) {
  return JSON.stringify(wellFormed(value));
}

/** The size of a canonical line: its UTF-8 byte count (wire.md §6.5). */
export function lineSize(line) {
  return Buffer.byteLength(line, "utf8");
}
