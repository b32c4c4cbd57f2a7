#!/usr/bin/env node
// The JavaScript example port, misbehaving (tests/integration/test_faults.py).
// node faulty.mjs MODE N: hang-every (no answer to every Nth run request), hang-large (none to a
// request line over N bytes), slow (every answer after N ms), ignore-stop (survive stop and
// SIGTERM), unwritable (answer the Nth with 1e400 and a list nested 500 deep), twice (answer the
// Nth twice).
import { createInterface } from "node:readline";
import { answer } from "../../../examples/js/eventproof-port.mjs";
import { parseRequest } from "../../../examples/js/numbers.mjs";

const [mode, arg] = [process.argv[2], Number(process.argv[3] ?? 0)];
let count = 0;
if (mode === "ignore-stop") process.on("SIGTERM", () => process.stderr.write("faulty: SIGTERM ignored\n"));
const out = (text) => process.stdout.write(text + "\n");
createInterface({ input: process.stdin, crlfDelay: Infinity }).on("line", (line) => {
  const request = parseRequest(line);
  if (request.cmd === "stop") {
    if (mode === "ignore-stop") return setInterval(() => {}, 1000);
    process.exit(0);
  }
  const reply = answer(request, "halving");
  if (request.cmd !== "run") return out(JSON.stringify(reply));
  count += 1;
  const nth = count === arg || (mode === "hang-every" && count % arg === 0);
  if ((mode === "hang-every" && nth) || (mode === "hang-large" && line.length > arg)) return;
  if (mode === "slow") return setTimeout(() => out(JSON.stringify(reply)), arg);
  const deep = `${"[".repeat(500)}${"]".repeat(500)}`;
  if (mode === "unwritable" && nth) return out(`{"seq":${request.seq},"output":[1e400,${deep}]}`);
  out(JSON.stringify(reply));
  if (mode === "twice" && nth) out(JSON.stringify(reply));
});
