// The operation table (selection.md §7, wire.md §8, budget.md §10): each operation reads one
// request's input and answers one JSON value. Erroneous input throws InvalidInput, which the
// protocol loop answers as `errored`. To port your own code, replace the calls in OPERATIONS.

import { finalDetails, liveRoster, mergeLane, publishSchedule } from "./budget.js";
import { InvalidInput } from "./errors.js";
import { type Json, type JsonObject, hasMember, member } from "./json.js";
import { requireBoolean, requireList, requireObject, requireString } from "./read.js";
import { foldResults, selectOutput, settleRun } from "./selection.js";
import { type FitStrategy, classifyEvent, projectEvent, requireMaxBytes } from "./wire.js";

export const OPS = ["select", "fold", "settle", "classify", "project", "details", "roster", "lane", "publish"] as const;
export type Op = (typeof OPS)[number];

function isOp(op: Json | undefined): op is Op {
  return typeof op === "string" && (OPS as readonly string[]).includes(op);
}

const LOG = { what: "the session log (selection.md §7)", fix: "Send the events as a list." };

type Operation = (request: JsonObject, fitStrategy: FitStrategy) => Json;

/** The operation table: one entry per operation the handshake declares. */
export const OPERATIONS: Readonly<Record<Op, Operation>> = {
  select: (request) => selectOutput(requireList(member(request, "events"), "$.events", LOG)),
  fold: (request) =>
    foldResults(
      requireList(member(request, "pushes"), "$.pushes", { what: "the pushes (selection.md §7)", fix: 'Send {"pushes": [{"event": ...} or {"text": "..."}, ...]}.' }),
    ),
  settle,
  classify: (request) => classifyEvent(member(request, "event")),
  project,
  details: finalDetails,
  roster: liveRoster,
  lane: mergeLane,
  publish: publishSchedule,
};

function settle(request: JsonObject): Json {
  const events = requireList(member(request, "events"), "$.events", LOG);
  const mode = hasMember(request, "mode") ? member(request, "mode") : "one-shot";
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
    for (const name of ["cancelled", "diagnostic"]) {
      if (hasMember(request, name)) {
        throw new InvalidInput({
          value: member(request, name) ?? null,
          path: `$.${name}`,
          reason: "is a one-shot member; a continuable epoch has no cancellation flag and no delegation tool result (selection.md §5.3, §7)",
          fix: `Leave "${name}" out with "mode": "continuable", or settle the run as one-shot.`,
        });
      }
    }
    return settleRun(events, { mode, cancelled: false });
  }
  const cancelled = requireBoolean(member(request, "cancelled"), "$.cancelled", { what: "cancelled (selection.md §7)", fix: "Send true or false." });
  if (!hasMember(request, "diagnostic")) return settleRun(events, { mode, cancelled });
  const diagnostic = requireString(member(request, "diagnostic"), "$.diagnostic", {
    what: "the diagnostic (selection.md §7)",
    fix: "Send the diagnostic as a string, or leave it out.",
  });
  return settleRun(events, { mode, cancelled, diagnostic });
}

function project(request: JsonObject, fitStrategy: FitStrategy): Json {
  const maxBytes = requireMaxBytes(member(request, "maxBytes"));
  const includeLiveEvents = requireBoolean(member(request, "includeLiveEvents"), "$.includeLiveEvents", {
    what: "includeLiveEvents (wire.md §8)",
    fix: "Send true or false.",
  });
  const line = projectEvent(member(request, "event"), { includeLiveEvents, maxBytes, fitStrategy });
  return line === null ? null : { line };
}

/** Answer one operation; `fitStrategy` is the one declared in the handshake. */
export function runOp(op: Json | undefined, input: Json | undefined, fitStrategy: FitStrategy): Json {
  if (!isOp(op)) {
    throw new InvalidInput({ value: op, path: "$.op", reason: "is not an operation of this port", fix: `Use one of ${OPS.join(", ")}.` });
  }
  const request = requireObject(input, "$", { what: "an operation input", fix: `Send the input object of op-${op}.json.` });
  return OPERATIONS[op](request, fitStrategy);
}
