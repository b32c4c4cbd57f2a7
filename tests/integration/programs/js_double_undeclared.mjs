#!/usr/bin/env node
// The JavaScript example port reading requests with plain JSON.parse (every number a double)
// without declaring it: the way a real harness's code reads JSON, put behind the protocol as
// it is. The harness must say what to declare.
import { createInterface } from "node:readline";

import { answer } from "../../../examples/js/eventproof-port.mjs";

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
lines.on("line", (text) => {
  const request = JSON.parse(text);
  if (request.cmd === "stop") process.exit(0);
  process.stdout.write(`${JSON.stringify(answer(request, "halving"))}\n`);
});
lines.on("close", () => process.exit(0));
