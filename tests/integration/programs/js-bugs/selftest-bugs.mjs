#!/usr/bin/env node
// The self-test of the planted bugs: every bug's patches apply to the port's code exactly once,
// the patched port loads, and the bugs below change the answer they are planted to change.
//   node tests/integration/programs/js-bugs/selftest-bugs.mjs   (exit 0 when every case holds)

import assert from "node:assert/strict";
import { register } from "node:module";

import { BUGS, checkPlantable, PORT_DIR } from "./bugs.mjs";

register("./hooks.mjs", import.meta.url);

/** runOp of the port with `name` planted. */
const plant = async (name) => (await import(new URL(`operations.mjs?bugs=${name}`, PORT_DIR).href)).runOp;

let passed = 0;
async function check(name, body) {
  try {
    await body();
    passed += 1;
    console.log(`ok - ${name}`);
  } catch (error) {
    console.log(`not ok - ${name}\n${error.stack}`);
    process.exitCode = 1;
  }
}

let seq = 0;
const ev = (type, data) => ({ type, seq: ++seq, time: 1767225600000 + seq, data });
const message = (content) => ev("assistant/message", { turn: 1, step: 0, message: { role: "assistant", content } });
const delta = (text) => ev("assistant/chunk", { turn: 1, step: 0, chunk: { type: "text-delta", index: 0, text } });
const text = (t) => ({ type: "text", text: t });
const update = (partialResult, extra = {}) => ({ type: "tool_execution_update", toolCallId: "call_1", toolName: "bash", args: {}, partialResult, ...extra });
const project = (runOp, event, maxBytes = 4096, includeLiveEvents = true, fit = "halving") =>
  runOp("project", { event, includeLiveEvents, maxBytes }, fit);
const done = [ev("turn/start", { turn: 1 }), ev("step/start", { turn: 1, step: 0 }), message([text("a")]), ev("turn/end", { turn: 1, reason: { kind: "completed" } })];

/** bug -> what the port answers with it planted (the clean port answers otherwise). */
const CHANGES = {
  "unfiltered-last-message": (run) => assert.deepEqual(run("select", { events: [message([text("answer")]), message([])] }), []),
  "message-beats-nothing": (run) => assert.deepEqual(run("select", { events: [delta("par"), message([])] }), []),
  "no-text-fallback": (run) => assert.equal(run("select", { events: [delta("par"), message([])] }), null),
  "text-presence": (run) => assert.deepEqual(run("select", { events: [delta("s"), message([{ type: "reasoning", text: "r" }])] }), [text("s")]),
  "empty-array-last-assistant": (run) => assert.deepEqual(run("settle", { events: [], cancelled: false }).end, { stopReason: "error", lastAssistantMessage: [] }),
  "cancelled-completed-wrong": (run) => assert.equal(run("settle", { events: done, cancelled: true }).result.stopReason, "aborted"),
  "frames-always": (run) => assert.notEqual(project(run, update("x"), 4096, false), null),
  "keep-partial": (run) => {
    const event = { type: "message_update", message: { role: "assistant", content: [] }, assistantMessageEvent: { type: "text_delta", partial: {} } };
    assert.match(project(run, event).line, /"partial"/);
  },
  "bound-end-too": (run) => {
    const end = { type: "tool_execution_end", toolCallId: "c", toolName: "n", result: "x".repeat(9000), isError: false };
    assert.ok(Buffer.byteLength(project(run, end).line) <= 4096);
  },
  "chars-not-bytes": (run) => assert.ok(!project(run, update("é".repeat(2100))).line.includes("[live output")),
  "utf16-tail": (run) => assert.match(project(run, update("🙂".repeat(3000)), 4096, true, "maximal").line, /\ufffd/),
  "no-id-clip": (run) => assert.equal(JSON.parse(project(run, update("x".repeat(5000), { toolName: "n".repeat(300) })).line).toolName.length, 300),
  "zero-allowance-whole": (run) => {
    const request = { records: [{ id: "a", agent: "w", status: "completed", task: "t", output: "x".repeat(5000) }], sharedBytes: 0, taskFloorBytes: 0, outputFloorBytes: 0, diagnosticFloorBytes: 0 };
    assert.equal(run("details", request).results[0].output.length, 5000);
  },
};

for (const name of Object.keys(BUGS)) {
  await check(`${name}: its patches apply and the port loads with it`, async () => {
    checkPlantable([name]);
    const run = await plant(name);
    assert.equal(typeof run, "function");
    if (Object.hasOwn(CHANGES, name)) CHANGES[name](run);
  });
}

await check("a patch that the port no longer holds is refused with the bug and the file named", async () => {
  const { planted } = await import("./bugs.mjs");
  assert.throws(() => planted("wire.mjs", "// nothing here\n", ["slice-zero"]), /planted bug slice-zero: examples\/js\/wire\.mjs holds 0 copies/);
});

await check("the clean port answers otherwise", async () => {
  const run = (await import(new URL("operations.mjs", PORT_DIR).href)).runOp;
  for (const [name, changed] of Object.entries(CHANGES)) assert.throws(() => changed(run), assert.AssertionError, name);
});

console.log(`${passed} passed${process.exitCode ? ", some FAILED" : ""}`);
