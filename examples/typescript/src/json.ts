// JSON values as JSON.parse produces them, and the guards the operations read them with.

export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [member: string]: Json;
}

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Whether `object` has its own member `name` (a member named "__proto__" included). */
export function hasMember(object: JsonObject, name: string): boolean {
  return Object.hasOwn(object, name);
}

/** The own member `name` of `object`, or undefined; never a value inherited from a prototype. */
export function member(object: JsonObject, name: string): Json | undefined {
  return Object.hasOwn(object, name) ? object[name] : undefined;
}
