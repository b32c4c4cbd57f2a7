// A dependency-free self-test of the port: hand-written requests of every operation and their
// expected answers, taken from the worked examples of the spec.
//   npm run build && npm test        (exit 0 and "ok" lines when every case holds)

import assert from "node:assert/strict";

import type { Json, JsonObject } from "./json.js";
import { runOp } from "./operations.js";
import { type FitStrategy, MARKER } from "./wire.js";

let passed = 0;
function check(name: string, body: () => void): void {
  try {
    body();
    passed += 1;
    console.log(`ok - ${name}`);
  } catch (error: unknown) {
    console.log(`not ok - ${name}\n${error instanceof Error ? error.stack : String(error)}`);
    process.exitCode = 1;
  }
}

let seq = 0;
const ev = (type: string, data: JsonObject): JsonObject => ({ type, seq: ++seq, time: 1767225600000 + seq, data });
const message = (content: Json[]): JsonObject => ev("assistant/message", { turn: 1, step: 0, message: { role: "assistant", content } });
const delta = (text: string): JsonObject => ev("assistant/chunk", { turn: 1, step: 0, chunk: { type: "text-delta", index: 0, text } });
const text = (t: string): JsonObject => ({ type: "text", text: t });
const bytes = (line: string): number => Buffer.byteLength(line, "utf8");
const run = (op: string, input: JsonObject, fit: FitStrategy = "halving"): Json => runOp(op, input, fit);
const line = (answer: Json): string => {
  assert.ok(answer !== null && typeof answer === "object" && !Array.isArray(answer) && typeof answer["line"] === "string");
  return answer["line"] as string;
};

check("select: an empty terminal message never hides the last non-empty one (selection.md §3.2)", () => {
  assert.deepEqual(run("select", { events: [message([text("answer")]), message([])] }), [text("answer")]);
  assert.deepEqual(run("select", { events: [delta("par"), delta("tial"), message([])] }), [text("partial")]);
  assert.equal(run("select", { events: [] }), null);
});

check("fold: one collect before the first push and one after each (selection.md §4.1)", () => {
  const pushes = [{ text: "" }, { event: delta("a") }, { text: "b" }, { event: message([text("m")]) }];
  assert.deepEqual(run("fold", { pushes }), [null, null, [text("a")], [text("ab")], [text("m")]]);
});

check("settle: max-tokens keeps its stop reason and hands the partial text on (selection.md §5)", () => {
  const events = [ev("turn/start", { turn: 1 }), ev("step/start", { turn: 1, step: 0 }), delta("half"), ev("turn/end", { turn: 1, reason: { kind: "max-tokens" } })];
  assert.deepEqual(run("settle", { events, cancelled: false }), {
    result: { output: [text("half")], stopReason: "max-tokens" },
    end: { stopReason: "max-tokens", lastAssistantMessage: [text("half")] },
    toolResult: { isError: true, text: "Error: subagent run hit its token limit before finishing\nPartial output before the run ended:\nhalf" },
  });
  assert.throws(() => run("settle", { events: [] }), /\$\.cancelled/);
});

check("classify and project: frames need opt-in, facts are written in canonical form (wire.md §4)", () => {
  assert.equal(run("classify", { event: { type: "tool_execution_update" } }), "frame");
  assert.equal(run("classify", { event: { type: "something_new" } }), "fact");
  assert.equal(run("project", { event: { type: "message_update" }, includeLiveEvents: false, maxBytes: 4096 }), null);
  const fact = { type: "mystery", b: 30.0, "10": -0, "2": 1e-7, big: 1e21 };
  assert.equal(line(run("project", { event: fact, includeLiveEvents: false, maxBytes: 4096 })), '{"2":1e-7,"10":0,"type":"mystery","b":30,"big":1e+21}');
});

check("project: 600 lines bounded to 4096 bytes by halving and by maximal (wire.md §5.5)", () => {
  const lines = Array.from({ length: 600 }, (_, i) => `line ${String(i + 1).padStart(4, "0")}\n`);
  const event = {
    type: "tool_execution_update",
    toolCallId: "call_01",
    toolName: "bash",
    args: { command: "make test" },
    partialResult: { content: [{ type: "text", text: lines.join("") }], details: { exitCode: null } },
  };
  const tail = (fit: FitStrategy): string => {
    const bounded = line(run("project", { event, includeLiveEvents: true, maxBytes: 4096 }, fit));
    assert.ok(bytes(bounded) <= 4096);
    return JSON.parse(bounded).partialResult.content[0].text;
  };
  assert.equal(tail("halving"), MARKER + lines.slice(300).join(""));
  assert.equal(tail("maximal"), `${MARKER}42\n${lines.slice(242).join("")}`);
});

check("details: floors first, then the fair share (budget.md §5.7)", () => {
  const records = [
    { id: "call_1", agent: "reviewer", status: "completed", task: "Review src/auth.ts", output: "a".repeat(1000) },
    { id: "call_2", agent: "tester", status: "failed", task: "Run the tests", output: "b".repeat(400), errorMessage: "Error: exit code 1", stderr: "e".repeat(300) },
    { id: "call_3", agent: "writer", status: "completed", task: "Write the notes", output: "done" },
  ];
  const answer = run("details", { records, sharedBytes: 300, taskFloorBytes: 64, outputFloorBytes: 128, diagnosticFloorBytes: 64 }) as { results: JsonObject[] };
  const [first, second, third] = answer.results;
  assert.equal((first?.["output"] as string).length, 228);
  assert.deepEqual([second?.["errorMessage"], (second?.["stderr"] as string).length, (second?.["output"] as string).length], ["Error: exit code 1", 146, 128]);
  assert.deepEqual(second?.["truncated"], ["output", "stderr"]);
  assert.deepEqual(third, { id: "call_3", agent: "writer", status: "completed", task: "Write the notes", output: "done" });
});

check("roster, lane and publish: the count, the total, one publish per window (budget.md §6-8)", () => {
  const live = (i: number): JsonObject => ({ id: `t${i}`, agent: "w", status: "running", task: "x" });
  const roster = run("roster", { records: [live(0), live(1), live(2)], maxBytes: 120 }) as { results: Json[]; omittedResults: number };
  assert.equal(roster.results.length + roster.omittedResults, 3);
  const lane = run("lane", { updates: [{ results: [live(0), live(1), live(2)] }, { results: [live(0)], omittedResults: 2 }] });
  assert.deepEqual(lane, { states: [{ total: 3, results: [live(0), live(1), live(2)] }, { total: 3, results: [live(0), live(1), live(2)] }] });
  const events = [
    { at: 0, kind: "update", state: 1 },
    { at: 10, kind: "status", state: 2 },
    { at: 150, kind: "update", state: 3 },
    { at: 160, kind: "return" },
    { at: 170, kind: "status", state: 4 },
  ];
  assert.deepEqual(run("publish", { intervalMs: 100, events }), { publishes: [{ at: 0, state: 1 }, { at: 100, state: 2 }, { at: 160, state: 3 }] });
});

console.log(`${passed} passed${process.exitCode ? ", some FAILED" : ""}`);
