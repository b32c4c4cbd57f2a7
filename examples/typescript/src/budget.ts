// The budget profile (spec/budget.md): final details under one shared budget, the live roster
// under its byte bound, a lane merging rosters by index, and the publish cadence on a virtual
// clock. Sizes are the wire profile's: the UTF-8 bytes of JSON.stringify, quotes excluded
// (wire.md §6.5); cuts count code points of well-formed text, never UTF-16 units.

import { InvalidInput } from "./errors.js";
import { type Json, type JsonObject, hasMember, isObject, member } from "./json.js";

/** The live record's task head and output tail, in bytes (budget.md §6.1). */
export const LIVE_TASK_BYTES = 64;
export const LIVE_OUTPUT_BYTES = 128;
const ID_CLIP = 256;
const STATUSES = ["pending", "running", "completed", "failed", "cancelled"] as const;
type Status = (typeof STATUSES)[number];

/** The heavy fields of a record, in the order a final record writes them (budget.md §5.4). */
const HEAVY = ["task", "output", "errorMessage", "stderr"] as const;
type Heavy = (typeof HEAVY)[number];
type Side = "head" | "tail";
type Group = "task" | "output" | "diagnostics";
const SIDE: Readonly<Record<Heavy, Side>> = { task: "head", output: "tail", errorMessage: "head", stderr: "tail" };
const GROUP: Readonly<Record<Heavy, Group>> = { task: "task", output: "output", errorMessage: "diagnostics", stderr: "diagnostics" };

/** The members of a task record the profile reads (budget.md §2.1). */
interface TaskRecord {
  readonly id: string;
  readonly agent: string;
  readonly status: Status;
  readonly task: string;
  readonly output?: string;
  readonly errorMessage?: string;
  readonly stderr?: string;
}

/** Bytes a string costs inside a canonical string literal, quotes excluded (wire.md §6.5). */
export function cost(text: string): number {
  return Buffer.byteLength(JSON.stringify(text.toWellFormed()), "utf8") - 2;
}

/** The longest head or tail, in code points, costing at most `allowance` bytes (budget.md §4). */
export function cut(value: string, allowance: number, side: Side): string {
  const text = value.toWellFormed();
  if (cost(text) <= allowance) return text;
  // At most `allowance` code points fit (each costs at least one byte), and they take at most
  // 2 * allowance UTF-16 units: look at no more. A slice that cut a pair in two leaves its half
  // at the far end, which is dropped (the text is well-formed, so nothing else is a lone half).
  const span = 2 * allowance + 2;
  const sliced = span < text.length;
  const points = Array.from(side === "head" ? text.slice(0, span) : text.slice(-span));
  const far = side === "head" ? points.length - 1 : 0;
  const farPoint = points[far];
  if (sliced && farPoint !== undefined && farPoint.length === 1 && /[\ud800-\udfff]/.test(farPoint)) {
    points.splice(far, 1);
  }
  let spent = 0;
  let kept = 0;
  for (const point of side === "head" ? points : points.slice().reverse()) {
    const pointCost = cost(point);
    if (spent + pointCost > allowance) break;
    spent += pointCost;
    kept += 1;
  }
  if (kept === 0) return ""; // never slice(-0): that is the whole string
  return side === "head" ? points.slice(0, kept).join("") : points.slice(points.length - kept).join("");
}

function integer(value: Json | undefined, path: string, minimum: number, what: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < minimum) {
    throw new InvalidInput({
      value,
      path,
      reason: `is not an integer >= ${minimum} (${what})`,
      fix: `Send an integer of at least ${minimum}, as the operation's schema requires.`,
    });
  }
  // budget.md §1: at most 2^53 - 1, the largest integer a double holds exactly.
  if (value > Number.MAX_SAFE_INTEGER) {
    throw new InvalidInput({
      value,
      path,
      reason: `is beyond 2^53-1 (${what}): a JSON reader built on doubles cannot hold it exactly (budget.md §1)`,
      fix: `Send an integer of at most ${Number.MAX_SAFE_INTEGER} (2^53-1).`,
    });
  }
  return value;
}

function list(value: Json | undefined, path: string, what: string): Json[] {
  if (!Array.isArray(value)) throw new InvalidInput({ value, path, reason: `is not an array of ${what}`, fix: `Send ${what} as a JSON array.` });
  return value;
}

function object(value: Json | undefined, path: string, what: string): JsonObject {
  if (!isObject(value)) {
    throw new InvalidInput({ value, path, reason: `is not an object, so not ${what}`, fix: `Send ${what} as a JSON object (spec/budget.md).` });
  }
  return value;
}

function isStatus(value: Json | undefined): value is Status {
  return typeof value === "string" && (STATUSES as readonly string[]).includes(value);
}

/** The members of a task record the profile reads, checked (budget.md §2.1). */
function taskRecord(value: Json | undefined, path: string): TaskRecord {
  const record = object(value, path, "a task record");
  const status = member(record, "status");
  if (!isStatus(status)) {
    throw new InvalidInput({ value: status, path: `${path}.status`, reason: "is not a task status", fix: `Use one of ${STATUSES.join(", ")} (budget.md §2.2).` });
  }
  const read: Record<string, string> = {};
  for (const key of ["id", "agent", "task", "output", "errorMessage", "stderr"]) {
    const required = key === "id" || key === "agent" || key === "task";
    if (!hasMember(record, key)) {
      if (required) {
        throw new InvalidInput({ value: null, path: `${path}.${key}`, reason: "is missing; every task record has it (budget.md §2.1)", fix: `Send ${key} as a string.` });
      }
      continue;
    }
    const text = member(record, key);
    if (typeof text !== "string") {
      throw new InvalidInput({ value: text, path: `${path}.${key}`, reason: "is not a string", fix: `Send ${key} as a string, or leave it out if it is optional (budget.md §2.1).` });
    }
    read[key] = text;
  }
  return { ...(read as { id: string; agent: string; task: string }), status };
}

const records = (value: Json | undefined): TaskRecord[] =>
  list(value, "$.records", "task records").map((item, i) => taskRecord(item, `$.records[${i}]`));

/** An id or agent name: its first 256 code points, well-formed (budget.md §3.2). */
function clip(value: string): string {
  return Array.from(value.toWellFormed()).slice(0, ID_CLIP).join("");
}

function identity(record: TaskRecord): JsonObject {
  return { id: clip(record.id), agent: clip(record.agent), status: record.status };
}

/** A failure claims its diagnostics before its output (budget.md §5.4). */
function claimOrder(record: TaskRecord): readonly Heavy[] {
  if (record.status === "failed") return ["errorMessage", "stderr", "output", "task"];
  return ["output", "errorMessage", "stderr", "task"];
}

type Floors = Record<Group, number>;

/** One final record and what it took of its share (budget.md §5.3-5.4). */
function finalRecord(record: TaskRecord, share: number, floors: Readonly<Floors>): [JsonObject, number] {
  const floorLeft: Floors = { ...floors };
  let pool = share;
  const kept: Partial<Record<Heavy, string>> = {};
  for (const name of claimOrder(record)) {
    const value = record[name];
    if (value === undefined) continue;
    const group = GROUP[name];
    const text = cut(value, floorLeft[group] + pool, SIDE[name]);
    const spent = cost(text);
    const fromFloor = Math.min(spent, floorLeft[group]);
    floorLeft[group] -= fromFloor;
    pool -= spent - fromFloor;
    kept[name] = text;
  }
  const out = identity(record);
  const truncated: string[] = [];
  for (const name of HEAVY) {
    const text = kept[name];
    const whole = record[name];
    if (text === undefined || whole === undefined) continue;
    out[name] = text;
    if (text !== whole.toWellFormed()) truncated.push(name);
  }
  if (truncated.length > 0) out["truncated"] = truncated;
  return [out, share - pool];
}

/** The final details of a batch under its shared budget (budget.md §3-5). */
export function finalDetails(request: JsonObject): Json {
  const batch = records(member(request, "records"));
  let remaining = integer(member(request, "sharedBytes"), "$.sharedBytes", 0, "the shared budget in bytes");
  const floors: Floors = {
    task: integer(member(request, "taskFloorBytes"), "$.taskFloorBytes", 0, "a floor in bytes"),
    output: integer(member(request, "outputFloorBytes"), "$.outputFloorBytes", 0, "a floor in bytes"),
    diagnostics: integer(member(request, "diagnosticFloorBytes"), "$.diagnosticFloorBytes", 0, "a floor in bytes"),
  };
  const results = batch.map((record, i) => {
    // budget.md §5.3: the rest of the budget divided by the records still to project.
    const share = Math.floor(remaining / (batch.length - i));
    const [out, used] = finalRecord(record, share, floors);
    remaining -= used;
    return out;
  });
  return { results };
}

/** A live record: identity, a 64-byte task head, a 128-byte output tail (budget.md §6.1). */
function liveRecord(record: TaskRecord): JsonObject {
  const out = identity(record);
  out["task"] = cut(record.task, LIVE_TASK_BYTES, "head");
  if (record.output !== undefined) out["output"] = cut(record.output, LIVE_OUTPUT_BYTES, "tail");
  return out;
}

/** The longest prefix of live records whose array fits maxBytes, and the count of the rest. */
export function liveRoster(request: JsonObject): Json {
  const batch = records(member(request, "records"));
  const bound = integer(member(request, "maxBytes"), "$.maxBytes", 2, "the roster's byte bound");
  const results: JsonObject[] = [];
  let size = 2;
  for (const record of batch) {
    const live = liveRecord(record);
    const grown = size + Buffer.byteLength(JSON.stringify(live), "utf8") + (results.length > 0 ? 1 : 0);
    if (grown > bound) break;
    results.push(live);
    size = grown;
  }
  const roster: JsonObject = { results };
  if (batch.length > results.length) roster["omittedResults"] = batch.length - results.length;
  return roster;
}

/** The lane after every roster update: merged by index, counted from the update's own total. */
export function mergeLane(request: JsonObject): Json {
  let merged: Json[] = [];
  const states = list(member(request, "updates"), "$.updates", "roster updates").map((value, i) => {
    const path = `$.updates[${i}]`;
    const update = object(value, path, "a live roster");
    const results = list(member(update, "results"), `${path}.results`, "live records");
    results.forEach((item, j) => object(item, `${path}.results[${j}]`, "a live record"));
    const omitted = hasMember(update, "omittedResults")
      ? integer(member(update, "omittedResults"), `${path}.omittedResults`, 1, "a count that is absent at zero (budget.md §6.3)")
      : 0;
    const total = results.length + omitted;
    if (total > Number.MAX_SAFE_INTEGER) {
      throw new InvalidInput({
        value: omitted,
        path: `${path}.omittedResults`,
        reason: `with ${results.length} records makes a total beyond 2^53-1 (budget.md §7.2)`,
        fix: `Send an omittedResults of at most ${Number.MAX_SAFE_INTEGER - results.length}.`,
      });
    }
    // budget.md §7.1: the update's records replace the lane's by index; the lane is capped at
    // the update's total. §7.2: the count comes from the update, never from what is shown.
    merged = [...results, ...merged.slice(results.length)].slice(0, total);
    const state: JsonObject = { total, results: merged };
    if (total > merged.length) state["omittedResults"] = total - merged.length;
    return state;
  });
  return { states };
}

interface Change {
  at: number;
  state: Json;
}

/** The changes before the return, in order, and the return's time (budget.md §8.1). */
function timeline(value: Json | undefined): { changes: Change[]; returned: number } {
  const changes: Change[] = [];
  let returned: number | null = null;
  let previous = 0;
  list(value, "$.events", "timeline events").forEach((item, i) => {
    const path = `$.events[${i}]`;
    const event = object(item, path, "a timeline event");
    const at = integer(member(event, "at"), `${path}.at`, 0, "a time in milliseconds");
    if (at < previous) {
      throw new InvalidInput({ value: at, path: `${path}.at`, reason: `is earlier than the event before it (${previous} ms)`, fix: "Send the timeline in time order (budget.md §8.1)." });
    }
    previous = at;
    const kind = member(event, "kind");
    if (kind === "return") {
      if (returned !== null) {
        throw new InvalidInput({ value: kind, path: `${path}.kind`, reason: "is a second return; a call returns once", fix: "Send exactly one return event (budget.md §8.1)." });
      }
      returned = at;
    } else if (kind === "update" || kind === "status") {
      const state = member(event, "state");
      if (state === undefined) throw new InvalidInput({ value: null, path: `${path}.state`, reason: "is missing", fix: "Send the snapshot the change publishes as state." });
      // budget.md §8.3: a change after the return is never published.
      if (returned === null) changes.push({ at, state });
    } else {
      throw new InvalidInput({ value: kind, path: `${path}.kind`, reason: "is not an event kind", fix: "Use update, status or return (budget.md §8.1)." });
    }
  });
  if (returned === null) {
    throw new InvalidInput({ value: null, path: "$.events", reason: "has no return event", fix: 'End the call with one {"kind": "return"} (budget.md §8.1).' });
  }
  return { changes, returned };
}

/** One publish per window, status transitions included; the terminal flush; nothing after. */
export function publishSchedule(request: JsonObject): Json {
  const window = integer(member(request, "intervalMs"), "$.intervalMs", 1, "the publish interval in milliseconds");
  const { changes, returned } = timeline(member(request, "events"));
  const publishes: JsonObject[] = [];
  let last: number | null = null;
  let pending = false;
  let state: Json = null;
  const publish = (at: number): void => {
    publishes.push({ at, state });
    last = at;
    pending = false;
  };
  // budget.md §8.2: the changes of one instant are one change, the last one's state.
  const instants: Change[] = [];
  for (const change of changes) {
    const top = instants[instants.length - 1];
    if (top !== undefined && top.at === change.at) top.state = change.state;
    else instants.push({ ...change });
  }
  for (const { at, state: next } of instants) {
    if (pending && last !== null && last + window < at) publish(last + window);
    state = next;
    pending = true;
    if (last === null || at >= last + window) publish(at);
  }
  if (pending && last !== null && last + window < returned) publish(last + window);
  if (pending) publish(returned);
  return { publishes };
}
