#!/usr/bin/env node
// eventproof-js-example: every operation of the three profiles, speaking subprocess protocol v1
// (spec/protocol.md) — one JSON request per line on stdin, one JSON answer per line on stdout.
// stdout carries the protocol only; diagnostics go to stderr.
//
//   node eventproof-port.mjs                 # halving fit strategy
//   node eventproof-port.mjs --fit=maximal   # or EVENTPROOF_JS_FIT=maximal; the flag wins
//   node eventproof-port.mjs --numbers=double  # plain JSON.parse: every number a double

import { realpathSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

import { parseRequest, stringifyExactly } from "./numbers.mjs";
import { OPS, runOp } from "./operations.mjs";
import { FIT_STRATEGIES } from "./wire.mjs";

export { OutputFold, foldResults, selectOutput, settleRun } from "./selection.mjs";
export { InvalidInput, classifyEvent, projectEvent, boundLiveUpdate, extractText } from "./wire.mjs";
export { canonicalLine, lineSize, wellFormed } from "./canonical.mjs";
export { OPERATIONS, OPS, runOp } from "./operations.mjs";

const PROTOCOL_VERSION = 1;

/** The fit strategy chosen by --fit=… (which wins) or EVENTPROOF_JS_FIT; halving by default. */
export function chosenFitStrategy(argv = process.argv.slice(2), env = process.env) {
  let choice = env.EVENTPROOF_JS_FIT || "halving";
  for (const arg of argv) if (arg.startsWith("--fit=")) choice = arg.slice("--fit=".length);
  if (!FIT_STRATEGIES.includes(choice)) {
    throw new Error(
      `fit strategy ${JSON.stringify(choice)} (from --fit= or EVENTPROOF_JS_FIT) is not one of ` +
        `${FIT_STRATEGIES.join(", ")}; pass --fit=halving or --fit=maximal`,
    );
  }
  return choice;
}

/** How numbers are read, from --numbers=… (which wins) or EVENTPROOF_JS_NUMBERS: `exact` (the
 * default: integer literals beyond 2^53 - 1 kept as written, numbers.mjs) or `double` (plain
 * JSON.parse and JSON.stringify, every number a double, declared in the handshake). */
export function chosenNumbers(argv = process.argv.slice(2), env = process.env) {
  let choice = env.EVENTPROOF_JS_NUMBERS || "exact";
  for (const arg of argv) if (arg.startsWith("--numbers=")) choice = arg.slice("--numbers=".length);
  if (choice !== "exact" && choice !== "double") {
    throw new Error(
      `number reading ${JSON.stringify(choice)} (from --numbers= or EVENTPROOF_JS_NUMBERS) is not ` +
        "exact or double; pass --numbers=exact or --numbers=double",
    );
  }
  return choice;
}

/** The handshake answer (spec/protocol.md). */
export function handshake(fitStrategy, numbers = "exact") {
  return {
    version: PROTOCOL_VERSION,
    implementation: {
      name: "eventproof-js-example",
      language: "javascript",
      version: "0.1.0",
      homepage: "https://github.com/eventproof/eventproof/tree/main/examples/js",
    },
    capabilities: {
      ops: [...OPS],
      fitStrategy,
      variableMaxBytes: true,
      // A double reader says so: the harness then sends numbers as doubles (protocol.md §4.2).
      ...(numbers === "double" ? { numbers: "double" } : {}),
    },
  };
}

/** The answer to one request line, or undefined when the request needs none. */
export function answer(request, fitStrategy, numbers = "exact") {
  if (request === null || typeof request !== "object" || Array.isArray(request)) {
    throw new Error(`a request must be a JSON object, got ${JSON.stringify(request)}`);
  }
  switch (request.cmd) {
    case "start":
      if (request.version !== PROTOCOL_VERSION) {
        return {
          version: PROTOCOL_VERSION,
          error: `this program speaks protocol version ${PROTOCOL_VERSION}, not ${JSON.stringify(request.version)}`,
        };
      }
      return handshake(fitStrategy, numbers);
    case "run":
      try {
        return { seq: request.seq, output: runOp(request.op, request.input, fitStrategy) };
      } catch (error) {
        // Every failure of one request is answered; the program keeps serving the next ones.
        const message = error instanceof Error ? error.message : String(error);
        if (!(error instanceof Error && error.name === "InvalidInput")) {
          process.stderr.write(`eventproof-js-example: request ${request.seq} failed: ${error?.stack ?? message}\n`);
        }
        return { seq: request.seq, errored: { message } };
      }
    default:
      throw new Error(`unknown command ${JSON.stringify(request.cmd)}; expected start, run or stop`);
  }
}

function write(message, numbers) {
  // JSON.stringify escapes lone surrogates (well-formed JSON.stringify), so the line is UTF-8.
  // Reading exactly, integers parsed from literals beyond 2^53 - 1 are written as given
  // (stringifyExactly); a double reader writes the doubles it holds.
  const text = numbers === "double" ? JSON.stringify(message) : stringifyExactly(message);
  process.stdout.write(`${text}\n`);
}

/** Serve requests until stop or the end of input (spec/protocol.md §2, §6). */
export function serve(fitStrategy, numbers = "exact") {
  const parse = numbers === "double" ? JSON.parse : parseRequest;
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  lines.on("line", (text) => {
    if (text.trim() === "") return;
    let request;
    try {
      request = parse(text);
    } catch (error) {
      process.stderr.write(`eventproof-js-example: ignoring a line that is not JSON (${error.message})\n`);
      return;
    }
    if (request !== null && typeof request === "object" && request.cmd === "stop") process.exit(0);
    try {
      const reply = answer(request, fitStrategy, numbers);
      if (reply !== undefined) write(reply, numbers);
    } catch (error) {
      process.stderr.write(`eventproof-js-example: ${error.message}\n`);
    }
  });
  lines.on("close", () => process.exit(0));
}

/** A configuration that cannot start: refuse the handshake with the reason (protocol.md §4.3). */
export function refuse(reason) {
  process.stderr.write(`eventproof-js-example: ${reason}\n`);
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  lines.on("line", () => {
    // Exit only once the refusal has reached the pipe.
    process.stdout.write(`${JSON.stringify({ version: PROTOCOL_VERSION, error: reason })}\n`, () => process.exit(2));
  });
  lines.on("close", () => process.exit(2));
}

/** Serve with the fit strategy of the command line, or refuse the handshake with the reason. */
export function main() {
  let fitStrategy;
  let numbers;
  try {
    fitStrategy = chosenFitStrategy();
    numbers = chosenNumbers();
  } catch (error) {
    refuse(error.message);
    return;
  }
  serve(fitStrategy, numbers);
}

function isEntryPoint() {
  if (!process.argv[1]) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) main();
