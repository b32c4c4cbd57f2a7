// The operation table (selection.md §7, wire.md §8, budget.md §10): each operation reads one
// request's input and answers one JSON value. Erroneous input throws InvalidInput, which the
// protocol loop answers as `errored`. To port your own code, replace the calls in OPERATIONS.

import { finalDetails, liveRoster, mergeLane, publishSchedule } from "./budget.mjs";
import { foldResults, selectOutput, settleRun } from "./selection.mjs";
import { InvalidInput, classifyEvent, projectEvent } from "./wire.mjs";

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

function requireList(value, path) {
  if (!Array.isArray(value)) {
    throw new InvalidInput({ value, path, reason: "is not a JSON array", fix: "Send a list here." });
  }
  return value;
}

function requireObject(value, path) {
  if (!isObject(value)) {
    throw new InvalidInput({ value, path, reason: "is not a JSON object", fix: "Send an object here." });
  }
  return value;
}

function optionalBoolean(request, key) {
  const value = Object.hasOwn(request, key) ? request[key] : false;
  if (typeof value !== "boolean") {
    throw new InvalidInput({ value, path: `$.${key}`, reason: "is not a boolean", fix: "Send true or false." });
  }
  return value;
}

function settle(request) {
  // selection.md §7: "mode" picks the settlement path; one-shot when left out.
  const mode = Object.hasOwn(request, "mode") ? request.mode : "one-shot";
  if (mode !== "one-shot" && mode !== "continuable") {
    throw new InvalidInput({
      value: mode,
      path: "$.mode",
      reason: 'is not a settlement path; it must be "one-shot" or "continuable" (selection.md §7)',
      fix: 'Send "mode": "one-shot" (or leave it out) for a one-shot run, "mode": "continuable" for one epoch of a continuable activation.',
    });
  }
  if (mode === "continuable") {
    // A continuable epoch has no cancellation flag and no tool result: its log records both.
    for (const key of ["cancelled", "diagnostic"]) {
      if (Object.hasOwn(request, key)) {
        throw new InvalidInput({
          value: request[key],
          path: `$.${key}`,
          reason: "is a one-shot member; a continuable epoch has no cancellation flag and no delegation tool result (selection.md §5.3, §7)",
          fix: `Leave "${key}" out with "mode": "continuable", or settle the run as one-shot.`,
        });
      }
    }
    return settleRun(requireList(request.events, "$.events"), { mode });
  }
  if (typeof request.cancelled !== "boolean") {
    throw new InvalidInput({
      value: request.cancelled,
      path: "$.cancelled",
      reason: "is not a boolean; a one-shot settle requires it (selection.md §7)",
      fix: 'Send "cancelled": true when the run was cancelled, false otherwise.',
    });
  }
  // A given diagnostic, even "", adds its line (§5.6); a left-out one is undefined.
  const diagnostic = Object.hasOwn(request, "diagnostic") ? request.diagnostic : undefined;
  if (diagnostic !== undefined && typeof diagnostic !== "string") {
    throw new InvalidInput({
      value: diagnostic,
      path: "$.diagnostic",
      reason: "is not a string",
      fix: "Send the diagnostic as a string, or leave it out.",
    });
  }
  return settleRun(requireList(request.events, "$.events"), { mode, cancelled: request.cancelled, diagnostic });
}

function project(request, fitStrategy) {
  const line = projectEvent(requireObject(request.event, "$.event"), {
    includeLiveEvents: optionalBoolean(request, "includeLiveEvents"),
    maxBytes: Object.hasOwn(request, "maxBytes") ? request.maxBytes : 262144,
    fitStrategy,
  });
  return line === null ? null : { line };
}

/** The operation table: request input (an object) and the declared fit strategy in, answer out. */
export const OPERATIONS = Object.freeze({
  select: (request) => selectOutput(requireList(request.events, "$.events")),
  fold: (request) => foldResults(requireList(request.pushes, "$.pushes")),
  settle,
  classify: (request) => classifyEvent(requireObject(request.event, "$.event")),
  project,
  details: finalDetails,
  roster: liveRoster,
  lane: mergeLane,
  publish: publishSchedule,
});

/** The operations the handshake declares, in the table's order. */
export const OPS = Object.freeze(Object.keys(OPERATIONS));

/** Answer one operation; `fitStrategy` is the one declared in the handshake. */
export function runOp(op, input, fitStrategy = "halving") {
  if (typeof op !== "string" || !Object.hasOwn(OPERATIONS, op)) {
    throw new InvalidInput({
      value: op,
      path: "op",
      reason: "is not an operation of this spec",
      fix: `Use one of ${OPS.join(", ")}.`,
    });
  }
  return OPERATIONS[op](requireObject(input, "$"), fitStrategy);
}
