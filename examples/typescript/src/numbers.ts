// Numbers a wire line cannot carry faithfully (spec/wire.md §7): integer literals beyond
// ±(2^53−1), which JSON.parse silently rounds, and infinities (JSON.parse reads 1e400 as Infinity,
// which JSON.stringify writes as null). A projected value holding one is refused.
//
// JSON.parse rounds before any code of ours runs, so the spelling of a literal is visible only to
// a reviver that receives its source text (JSON.parse source text access: on by default from
// Node 21; Node 20 has it behind a V8 flag, which this module turns on at load time).

import { setFlagsFromString } from "node:v8";

import { InvalidInput } from "./errors.js";
import { type Json, type JsonObject, isObject } from "./json.js";

const MAX_SAFE = 9007199254740991n;
const INTEGER_LITERAL = /^-?\d+$/;

/** What a source-text-aware runtime passes as the reviver's third argument. */
interface ReviverContext {
  readonly source?: string;
}
type Holder = JsonObject | Json[];

/** holder object or array → (member name → integer literal beyond ±(2^53−1), as written). */
const unsafeIntegers = new WeakMap<Holder, Map<string, string>>();

function readsSource(): boolean {
  let source: string | undefined;
  JSON.parse("[1]", (key: string, value: unknown, context?: ReviverContext) => {
    if (key === "0") source = context?.source;
    return value;
  });
  return source === "1";
}

function enableSourceAccess(): boolean {
  if (readsSource()) return true;
  try {
    setFlagsFromString("--harmony-json-parse-with-source");
  } catch {
    return false;
  }
  return readsSource();
}

/** Whether this runtime lets the port see integer literals as written. */
export const LOSSLESS_INTEGERS: boolean = enableSourceAccess();

function remember(this: Holder, key: string, value: unknown, context?: ReviverContext): unknown {
  const source = context?.source;
  // 16 digits is the shortest literal that can exceed 9007199254740991.
  if (typeof value === "number" && source !== undefined && source.length >= 16 && INTEGER_LITERAL.test(source)) {
    const integer = BigInt(source);
    if (integer > MAX_SAFE || integer < -MAX_SAFE) {
      let members = unsafeIntegers.get(this);
      if (members === undefined) {
        members = new Map();
        unsafeIntegers.set(this, members);
      }
      members.set(key, source);
    }
  }
  return value;
}

/** The integer literal beyond ±(2^53−1) member `key` of `holder` was parsed from, or undefined. */
export function unsafeLiteral(holder: Holder, key: string): string | undefined {
  return unsafeIntegers.get(holder)?.get(key);
}

// A marker JSON.stringify writes in place of an unsafe integer: a string no request holds (it
// starts and ends with U+0000 and names this module), replaced by the literal after stringify.
const RAW = "\u0000eventproof-ts-raw-integer:";
const RAW_WRITTEN = /"\\u0000eventproof-ts-raw-integer:(-?\d+)\\u0000"/g;

function exactly(this: Holder, key: string, value: unknown): unknown {
  const literal = typeof value === "number" ? unsafeLiteral(this, key) : undefined;
  return literal === undefined ? value : `${RAW}${literal}\u0000`;
}

/**
 * JSON.stringify of an answer, writing every integer parsed from a literal beyond ±(2^53−1) as
 * that literal: the selection echoes its input's values, and the exact number rule
 * (spec/protocol.md §1.1) tells 9007199254740993 from the 9007199254740992 JSON.parse rounds it
 * to. (JSON.rawJSON would do this, but Node 20 defines it only when started with the flag.)
 */
export function stringifyExactly(value: unknown): string {
  return JSON.stringify(value, exactly).replace(RAW_WRITTEN, "$1");
}

/** JSON.parse of one request line, remembering where integer literals beyond ±(2^53−1) sat. */
export function parseRequest(text: string): Json {
  return (LOSSLESS_INTEGERS ? JSON.parse(text, remember) : JSON.parse(text)) as Json;
}

/** The JSONPath of member `name` of the value at `path` (`$.a`, `$["a b"]`). */
export function memberPath(path: string, name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? `${path}.${name}` : `${path}[${JSON.stringify(name)}]`;
}

/** Refuse `holder[key]` when it, or anything inside it, is a number a line cannot carry (§7). */
export function refuseUncarriable(holder: Holder, key: string, path: string): void {
  const value: Json | undefined = Array.isArray(holder) ? holder[Number(key)] : holder[key];
  if (typeof value === "number") {
    const literal = unsafeIntegers.get(holder)?.get(key);
    if (literal !== undefined) {
      throw new InvalidInput({
        value,
        shown: literal,
        path,
        reason:
          "is an integer beyond 2^53-1 in magnitude: a double cannot hold it exactly, so a JSON.parse " +
          "reader would silently round it (wire.md §7, RFC 7493 §2.2)",
        fix: "Send integers within ±9007199254740991, or carry the value as a string.",
      });
    }
    if (!Number.isFinite(value)) {
      throw new InvalidInput({
        value,
        shown: String(value),
        path,
        reason: "is not a finite number (a literal such as 1e400 overflows a double); JSON has no NaN or Infinity (wire.md §7)",
        fix: 'Send a finite number, null, or a string such as "Infinity".',
      });
    }
  } else if (Array.isArray(value)) {
    value.forEach((_, index) => refuseUncarriable(value, String(index), `${path}[${index}]`));
  } else if (isObject(value)) {
    for (const name of Object.keys(value)) refuseUncarriable(value, name, memberPath(path, name));
  }
}
