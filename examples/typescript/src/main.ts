#!/usr/bin/env node
// eventproof-typescript-example: every operation of the three profiles behind subprocess protocol
// version 1 (spec/protocol.md): one JSON request per line on stdin, one JSON answer per line on
// stdout, diagnostics on stderr.
//
//   node dist/main.js                  # the halving fit strategy
//   node dist/main.js --fit=maximal    # or EVENTPROOF_TS_FIT=maximal; the flag wins

import { createInterface } from "node:readline";

import { InvalidInput } from "./errors.js";
import { type Json, isObject, member } from "./json.js";
import { parseRequest, stringifyExactly } from "./numbers.js";
import { OPS, runOp } from "./operations.js";
import { type Answer, type Handshake, PROTOCOL_VERSION } from "./protocol.js";
import { FIT_STRATEGIES, type FitStrategy, isFitStrategy } from "./wire.js";

const NAME = "eventproof-typescript-example";

/** The fit strategy named by --fit=… (which wins) or EVENTPROOF_TS_FIT; halving by default. */
export function chosenFitStrategy(argv: readonly string[], env: NodeJS.ProcessEnv): FitStrategy {
  let choice = env["EVENTPROOF_TS_FIT"] || "halving";
  for (const arg of argv) if (arg.startsWith("--fit=")) choice = arg.slice("--fit=".length);
  if (!isFitStrategy(choice)) {
    throw new Error(
      `fit strategy ${JSON.stringify(choice)} (from --fit= or EVENTPROOF_TS_FIT) is not one of ` +
        `${FIT_STRATEGIES.join(", ")}; pass --fit=halving or --fit=maximal`,
    );
  }
  return choice;
}

export function handshake(fitStrategy: FitStrategy): Handshake {
  return {
    version: PROTOCOL_VERSION,
    implementation: { name: NAME, language: "typescript", version: "0.1.0" },
    capabilities: { ops: [...OPS], fitStrategy, variableMaxBytes: true },
  };
}

/** The answer to one start or run request (§4, §5). */
export function answer(request: Json, fitStrategy: FitStrategy): Answer {
  if (!isObject(request)) throw new Error(`a request must be a JSON object, got ${JSON.stringify(request)}`);
  const cmd = member(request, "cmd");
  if (cmd === "start") {
    const version = member(request, "version");
    if (version !== PROTOCOL_VERSION) {
      return { version: PROTOCOL_VERSION, error: `this program speaks protocol version ${PROTOCOL_VERSION}, not ${JSON.stringify(version)}` };
    }
    return handshake(fitStrategy);
  }
  if (cmd !== "run") throw new Error(`unknown command ${JSON.stringify(cmd)}; expected start, run or stop`);
  const seq = member(request, "seq") ?? null;
  try {
    return { seq, output: runOp(member(request, "op"), member(request, "input"), fitStrategy) };
  } catch (error: unknown) {
    // Every failure of one request is answered; the program goes on serving the next (§5.4).
    const message = error instanceof Error ? error.message : String(error);
    if (!(error instanceof InvalidInput)) {
      process.stderr.write(`${NAME}: request ${JSON.stringify(seq)} failed: ${error instanceof Error ? error.stack : message}\n`);
    }
    return { seq, errored: { message } };
  }
}

/** One answer line. JSON.stringify escapes lone surrogates, so the line is always UTF-8 (§2.1). */
function write(message: Answer): void {
  // On Linux, writes to a pipe are synchronous in Node: the line has left when write returns,
  // so process.exit right after a stop request loses nothing (§2.2).
  // Integers parsed from literals beyond 2^53 - 1 are written as given (stringifyExactly).
  process.stdout.write(`${stringifyExactly(message)}\n`);
}

/** Serve requests until a stop request or the end of input (§2, §6). */
function serve(fitStrategy: FitStrategy): void {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  lines.on("line", (text) => {
    if (text.trim() === "") return;
    let request: Json;
    try {
      request = parseRequest(text);
    } catch (error: unknown) {
      process.stderr.write(`${NAME}: ignoring a line that is not JSON (${error instanceof Error ? error.message : String(error)})\n`);
      return;
    }
    if (isObject(request) && member(request, "cmd") === "stop") process.exit(0);
    try {
      write(answer(request, fitStrategy));
    } catch (error: unknown) {
      process.stderr.write(`${NAME}: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  });
  lines.on("close", () => process.exit(0));
}

/** A configuration that cannot start: refuse the handshake with the reason (§4.3), exit 2. */
function refuse(reason: string): void {
  process.stderr.write(`${NAME}: ${reason}\n`);
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  lines.once("line", () => {
    process.stdout.write(`${JSON.stringify({ version: PROTOCOL_VERSION, error: reason })}\n`, () => process.exit(2));
  });
  lines.on("close", () => process.exit(2));
}

function main(): void {
  // stdout carries the protocol only: a stray console.log of the wrapped code goes to stderr.
  console.log = console.error;
  let fitStrategy: FitStrategy;
  try {
    fitStrategy = chosenFitStrategy(process.argv.slice(2), process.env);
  } catch (error: unknown) {
    refuse(error instanceof Error ? error.message : String(error));
    return;
  }
  serve(fitStrategy);
}

main();
