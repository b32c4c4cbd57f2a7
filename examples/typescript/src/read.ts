// Reading an input: every value an operation reads is checked, and a malformed one is refused
// with InvalidInput naming it (selection.md §6, wire.md §7). Values that are only passed through
// are not validated: the port is not a schema validator.

import { InvalidInput } from "./errors.js";
import { type Json, type JsonObject, isObject } from "./json.js";

/** What a value must be, for the error message: "a session event (selection.md §2.1)". */
export interface Expected {
  readonly what: string;
  readonly fix: string;
}

export function requireObject(value: Json | undefined, path: string, expected: Expected): JsonObject {
  if (!isObject(value)) {
    throw new InvalidInput({ value, path, reason: `is not a JSON object, but ${expected.what} must be one`, fix: expected.fix });
  }
  return value;
}

export function requireList(value: Json | undefined, path: string, expected: Expected): Json[] {
  if (!Array.isArray(value)) {
    throw new InvalidInput({ value, path, reason: `is not a JSON array, but ${expected.what} must be one`, fix: expected.fix });
  }
  return value;
}

export function requireString(value: Json | undefined, path: string, expected: Expected): string {
  if (typeof value !== "string") {
    throw new InvalidInput({ value, path, reason: `is not a string, but ${expected.what} must be one`, fix: expected.fix });
  }
  return value;
}

export function requireBoolean(value: Json | undefined, path: string, expected: Expected): boolean {
  if (typeof value !== "boolean") {
    throw new InvalidInput({ value, path, reason: `is not a boolean, but ${expected.what} must be one`, fix: expected.fix });
  }
  return value;
}
