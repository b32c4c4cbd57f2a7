// Numbers a wire line cannot carry faithfully (spec/wire.md §7): integer literals beyond
// ±(2^53−1), which JSON.parse silently rounds, and infinities (JSON.parse reads 1e400 as
// Infinity, which JSON.stringify would write as null). A projected value holding one is refused.
//
// The rounding happens inside JSON.parse, so the spelling of an integer literal is only visible
// to a reviver that receives the source text (JSON.parse source text access: on by default from
// Node 21, behind a V8 flag in Node 20, which this module turns on). The harness's generated
// inputs stay within ±(2^53−1); the check matters for hand-written cases and vectors.

import v8 from "node:v8";

import { InvalidInput } from "./errors.mjs";

const MAX_SAFE = 9007199254740991n;
const INTEGER_LITERAL = /^-?\d+$/;

/** holder object or array → Map(member name → integer literal beyond ±(2^53−1)). */
const unsafeIntegers = new WeakMap();

function readsSource() {
  let source;
  JSON.parse("[1]", (key, value, context) => {
    if (key === "0") source = context?.source;
    return value;
  });
  return source === "1";
}

function enableSourceAccess() {
  if (readsSource()) return true;
  try {
    v8.setFlagsFromString("--harmony-json-parse-with-source");
  } catch {
    return false;
  }
  return readsSource();
}

/** Whether this runtime lets the port see integer literals as written. */
export const LOSSLESS_INTEGERS = enableSourceAccess();

function remember(key, value, context) {
  const source = context?.source;
  // 16 digits is the shortest literal that can exceed 9007199254740991.
  if (typeof value === "number" && source !== undefined && source.length >= 16 && INTEGER_LITERAL.test(source)) {
    const integer = BigInt(source);
    if (integer > MAX_SAFE || integer < -MAX_SAFE) {
      let members = unsafeIntegers.get(this);
      if (members === undefined) unsafeIntegers.set(this, (members = new Map()));
      members.set(key, source);
    }
  }
  return value;
}

/** The integer literal beyond ±(2^53−1) member `key` of `holder` was parsed from, or undefined. */
export function unsafeLiteral(holder, key) {
  return unsafeIntegers.get(holder)?.get(key);
}

// A marker JSON.stringify writes in place of an unsafe integer: a string no request holds (it
// starts and ends with U+0000 and names this module), replaced by the literal after stringify.
const RAW = "\u0000eventproof-js-raw-integer:";
const RAW_WRITTEN = /"\\u0000eventproof-js-raw-integer:(-?\d+)\\u0000"/g;

function exactly(key, value) {
  const literal = typeof value === "number" ? unsafeLiteral(this, key) : undefined;
  return literal === undefined ? value : `${RAW}${literal}\u0000`;
}

/**
 * JSON.stringify of an answer, writing every integer parsed from a literal beyond ±(2^53−1) as
 * that literal: the selection echoes its input's values, and the exact number rule
 * (spec/protocol.md §1.1) tells 9007199254740993 from the 9007199254740992 JSON.parse rounds it
 * to. (JSON.rawJSON would do this, but Node 20 defines it only when started with the flag.)
 */
export function stringifyExactly(value) {
  return JSON.stringify(value, exactly).replace(RAW_WRITTEN, "$1");
}

/** JSON.parse of one request line, remembering where unsafe integer literals were. */
export function parseRequest(text) {
  return LOSSLESS_INTEGERS ? JSON.parse(text, remember) : JSON.parse(text);
}

/** The JSONPath of member `key` of the value at `path` (`$.a`, `$["a b"]`). */
export function memberPath(path, key) {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** Refuse `holder[key]` if it, or anything inside it, is a number a line cannot carry (§7). */
export function refuseUncarriable(holder, key, path) {
  const value = holder[key];
  if (typeof value === "number") {
    const literal = unsafeIntegers.get(holder)?.get(key);
    if (literal !== undefined) {
      throw new InvalidInput({
        value: Number(literal),
        shown: literal,
        path,
        reason: "is an integer beyond 2^53-1 in magnitude: a double cannot hold it exactly, so a JSON.parse reader would silently round it (wire.md §7, RFC 7493 §2.2)",
        fix: "Send integers within ±9007199254740991, or carry the value as a string.",
      });
    }
    if (!Number.isFinite(value)) {
      throw new InvalidInput({
        value,
        shown: String(value),
        path,
        reason: "is not a finite number; JSON has no NaN or Infinity (wire.md §7)",
        fix: 'Send a finite number, null, or a string such as "NaN".',
      });
    }
  } else if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) refuseUncarriable(value, String(index), `${path}[${index}]`);
  } else if (value !== null && typeof value === "object") {
    for (const member of Object.keys(value)) refuseUncarriable(value, member, memberPath(path, member));
  }
}
