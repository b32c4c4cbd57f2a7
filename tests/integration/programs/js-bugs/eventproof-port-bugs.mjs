#!/usr/bin/env node
// The JavaScript port (examples/js/eventproof-port.mjs) with the planted bugs named in
// EVENTPROOF_JS_BUG (bugs.mjs); unset, it is the port as shipped. The port's own arguments and
// environment (--fit=…, EVENTPROOF_JS_FIT) work as for the port.
//
//   EVENTPROOF_JS_BUG=no-text-fallback node tests/integration/programs/js-bugs/eventproof-port-bugs.mjs
//   EVENTPROOF_JS_BUG=slice-zero,no-id-clip node …/eventproof-port-bugs.mjs   (several at once)
//
// An unknown name, or a patch the port's code no longer holds, makes the port refuse the
// handshake with the reason (spec/protocol.md §4.3) and exit with status 2.

import { register } from "node:module";

import { bugNames, checkPlantable, PORT_DIR } from "./bugs.mjs";

register("./hooks.mjs", import.meta.url);

let names = [];
let problem = null;
try {
  names = bugNames(process.env.EVENTPROOF_JS_BUG);
  checkPlantable(names);
} catch (error) {
  problem = error.message;
  names = [];
}
const port = await import(new URL(`eventproof-port.mjs?bugs=${names.join(",")}`, PORT_DIR).href);
if (problem === null) port.main();
else port.refuse(problem);
