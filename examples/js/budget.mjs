// The budget profile (spec/budget.md): final details under one shared budget, the live roster
// under its byte bound, a lane merging rosters by index, and the publish cadence on a virtual
// clock. Sizes are the wire profile's: the UTF-8 bytes of JSON.stringify, quotes excluded
// (wire.md §6.5); cuts count code points of well-formed text, never UTF-16 units.

import { InvalidInput } from "./errors.mjs";

export const SHARED_BYTES = 131072;
export const LIVE_TASK_BYTES = 64;
export const LIVE_OUTPUT_BYTES = 128;
export const ROSTER_BYTES = 49152;
export const INTERVAL_MS = 100;
const ID_CLIP = 256;
const STATUSES = ["pending", "running", "completed", "failed", "cancelled"];
const HEAVY = ["task", "output", "errorMessage", "stderr"];
const SIDE = { task: "head", output: "tail", errorMessage: "head", stderr: "tail" };
const GROUP = { task: "task", output: "output", errorMessage: "diagnostics", stderr: "diagnostics" };

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const has = (object, key) => Object.hasOwn(object, key);

/** Bytes a string costs inside a canonical string literal, quotes excluded (wire.md §6.5). */
export function cost(text) {
  return Buffer.byteLength(JSON.stringify(text.toWellFormed()), "utf8") - 2;
}

/** The longest head or tail, in code points, costing at most `allowance` bytes (budget.md §4). */
export function cut(value, allowance, side) {
  const text = value.toWellFormed();
  if (cost(text) <= allowance) return text;
  // At most `allowance` code points fit (each costs at least one byte), and they take at most
  // 2 * allowance UTF-16 units: look at no more. A slice that cut a pair in two leaves its half
  // at the far end, which is dropped (the text is well-formed, so nothing else is a lone half).
  const span = 2 * allowance + 2;
  const sliced = span < text.length;
  const points = Array.from(side === "head" ? text.slice(0, span) : text.slice(-span));
  const far = side === "head" ? points.length - 1 : 0;
  if (sliced && points.length > 0 && points[far].length === 1 && /[\ud800-\udfff]/.test(points[far])) {
    points.splice(far, 1);
  }
  let spent = 0;
  let kept = 0;
  const ordered = side === "head" ? points : points.slice().reverse();
  for (const point of ordered) {
    const pointCost = cost(point);
    if (spent + pointCost > allowance) break;
    spent += pointCost;
    kept += 1;
  }
  if (kept === 0) return ""; // never slice(-0): that is the whole string
  return side === "head" ? points.slice(0, kept).join("") : points.slice(points.length - kept).join("");
}

function integer(value, path, minimum, what) {
  if (typeof value !== "number" || !Number.isInteger(value) || value < minimum) {
    throw new InvalidInput({ value, path, reason: `is not an integer >= ${minimum} (${what})`, fix: `Send an integer of at least ${minimum}, as the operation's schema requires.` });
  }
  // budget.md §1: at most 2^53 - 1, the largest integer a double holds exactly.
  if (value > Number.MAX_SAFE_INTEGER) {
    throw new InvalidInput({ value, path, reason: `is beyond 2^53-1 (${what}): a JSON reader built on doubles cannot hold it exactly (budget.md §1)`, fix: `Send an integer of at most ${Number.MAX_SAFE_INTEGER} (2^53-1).` });
  }
  return value;
}

function list(value, path, what) {
  if (!Array.isArray(value)) throw new InvalidInput({ value, path, reason: `is not an array of ${what}`, fix: `Send ${what} as a JSON array.` });
  return value;
}

function object(value, path, what) {
  if (!isObject(value)) throw new InvalidInput({ value, path, reason: `is not an object, so not ${what}`, fix: `Send ${what} as a JSON object (spec/budget.md).` });
  return value;
}

/** The members of a task record the profile reads, checked (budget.md §2.1). */
function taskRecord(value, path) {
  const record = object(value, path, "a task record");
  if (!STATUSES.includes(record.status)) {
    throw new InvalidInput({ value: record.status, path: `${path}.status`, reason: "is not a task status", fix: `Use one of ${STATUSES.join(", ")} (budget.md §2.2).` });
  }
  const read = { status: record.status };
  for (const key of ["id", "agent", "task", "output", "errorMessage", "stderr"]) {
    const required = key === "id" || key === "agent" || key === "task";
    if (!has(record, key)) {
      if (required) throw new InvalidInput({ value: null, path: `${path}.${key}`, reason: "is missing; every task record has it (budget.md §2.1)", fix: `Send ${key} as a string.` });
      continue;
    }
    if (typeof record[key] !== "string") {
      throw new InvalidInput({ value: record[key], path: `${path}.${key}`, reason: "is not a string", fix: `Send ${key} as a string, or leave it out if it is optional (budget.md §2.1).` });
    }
    read[key] = record[key];
  }
  return read;
}

const records = (value) => list(value, "$.records", "task records").map((item, i) => taskRecord(item, `$.records[${i}]`));

function clip(value) {
  return Array.from(value.toWellFormed()).slice(0, ID_CLIP).join("");
}

const identity = (record) => ({ id: clip(record.id), agent: clip(record.agent), status: record.status });

function claimOrder(record) {
  if (record.status === "failed") return ["errorMessage", "stderr", "output", "task"];
  return ["output", "errorMessage", "stderr", "task"];
}

/** One final record and what it took of its share (budget.md §5.3-5.4). */
function finalRecord(record, share, floors) {
  const floorLeft = { ...floors };
  let pool = share;
  const kept = {};
  for (const name of claimOrder(record)) {
    if (!has(record, name)) continue;
    const group = GROUP[name];
    const text = cut(record[name], floorLeft[group] + pool, SIDE[name]);
    const spent = cost(text);
    const fromFloor = Math.min(spent, floorLeft[group]);
    floorLeft[group] -= fromFloor;
    pool -= spent - fromFloor;
    kept[name] = text;
  }
  const out = identity(record);
  const truncated = [];
  for (const name of HEAVY) {
    if (!has(kept, name)) continue;
    out[name] = kept[name];
    if (kept[name] !== record[name].toWellFormed()) truncated.push(name);
  }
  if (truncated.length > 0) out.truncated = truncated;
  return [out, share - pool];
}

/** The final details of a batch under its shared budget (budget.md §3-5). */
export function finalDetails(request) {
  const batch = records(request.records);
  let remaining = integer(request.sharedBytes, "$.sharedBytes", 0, "the shared budget in bytes");
  const floors = {
    task: integer(request.taskFloorBytes, "$.taskFloorBytes", 0, "a floor in bytes"),
    output: integer(request.outputFloorBytes, "$.outputFloorBytes", 0, "a floor in bytes"),
    diagnostics: integer(request.diagnosticFloorBytes, "$.diagnosticFloorBytes", 0, "a floor in bytes"),
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
function liveRecord(record) {
  const out = identity(record);
  out.task = cut(record.task, LIVE_TASK_BYTES, "head");
  if (has(record, "output")) out.output = cut(record.output, LIVE_OUTPUT_BYTES, "tail");
  return out;
}

/** The longest prefix of live records whose array fits maxBytes, and the count of the rest. */
export function liveRoster(request) {
  const batch = records(request.records);
  const bound = integer(request.maxBytes, "$.maxBytes", 2, "the roster's byte bound");
  const results = [];
  let size = 2;
  for (const record of batch) {
    const live = liveRecord(record);
    const grown = size + Buffer.byteLength(JSON.stringify(live), "utf8") + (results.length > 0 ? 1 : 0);
    if (grown > bound) break;
    results.push(live);
    size = grown;
  }
  const roster = { results };
  if (batch.length > results.length) roster.omittedResults = batch.length - results.length;
  return roster;
}

/** The lane after every roster update: merged by index, counted from the update's own total. */
export function mergeLane(request) {
  let merged = [];
  const states = list(request.updates, "$.updates", "roster updates").map((value, i) => {
    const path = `$.updates[${i}]`;
    const update = object(value, path, "a live roster");
    const results = list(update.results, `${path}.results`, "live records");
    results.forEach((item, j) => object(item, `${path}.results[${j}]`, "a live record"));
    const omitted = has(update, "omittedResults") ? integer(update.omittedResults, `${path}.omittedResults`, 1, "a count that is absent at zero (budget.md §6.3)") : 0;
    const total = results.length + omitted;
    if (total > Number.MAX_SAFE_INTEGER) {
      throw new InvalidInput({ value: omitted, path: `${path}.omittedResults`, reason: `with ${results.length} records makes a total beyond 2^53-1 (budget.md §7.2)`, fix: `Send an omittedResults of at most ${Number.MAX_SAFE_INTEGER - results.length}.` });
    }
    merged = [...results, ...merged.slice(results.length)];
    merged = merged.slice(0, total); // capped at the update's total (budget.md §7.1)
    const state = { total, results: merged };
    if (total > merged.length) state.omittedResults = total - merged.length;
    return state;
  });
  return { states };
}

/** The changes before the return, in order, and the return's time (budget.md §8.1). */
function timeline(value) {
  const changes = [];
  let returned = null;
  let previous = 0;
  list(value, "$.events", "timeline events").forEach((item, i) => {
    const path = `$.events[${i}]`;
    const event = object(item, path, "a timeline event");
    const at = integer(event.at, `${path}.at`, 0, "a time in milliseconds");
    if (at < previous) throw new InvalidInput({ value: at, path: `${path}.at`, reason: `is earlier than the event before it (${previous} ms)`, fix: "Send the timeline in time order (budget.md §8.1)." });
    previous = at;
    if (event.kind === "return") {
      if (returned !== null) throw new InvalidInput({ value: event.kind, path: `${path}.kind`, reason: "is a second return; a call returns once", fix: "Send exactly one return event (budget.md §8.1)." });
      returned = at;
    } else if (event.kind === "update" || event.kind === "status") {
      if (!has(event, "state")) throw new InvalidInput({ value: null, path: `${path}.state`, reason: "is missing", fix: "Send the snapshot the change publishes as state." });
      if (returned === null) changes.push({ at, state: event.state }); // nothing after the return (§8.3)
    } else {
      throw new InvalidInput({ value: event.kind, path: `${path}.kind`, reason: "is not an event kind", fix: "Use update, status or return (budget.md §8.1)." });
    }
  });
  if (returned === null) throw new InvalidInput({ value: null, path: "$.events", reason: "has no return event", fix: 'End the call with one {"kind": "return"} (budget.md §8.1).' });
  return { changes, returned };
}

/** One publish per window, status transitions included; the terminal flush; nothing after. */
export function publishSchedule(request) {
  const window = integer(request.intervalMs, "$.intervalMs", 1, "the publish interval in milliseconds");
  const { changes, returned } = timeline(request.events);
  const publishes = [];
  let last = null;
  let pending = false;
  let state = null;
  const publish = (at) => {
    publishes.push({ at, state });
    last = at;
    pending = false;
  };
  // budget.md §8.2: the changes of one instant are one change, the last one's state.
  const instants = [];
  for (const change of changes) {
    const top = instants[instants.length - 1];
    if (top && top.at === change.at) {
      top.state = change.state;
    } else instants.push({ ...change });
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
