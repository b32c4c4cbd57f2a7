#!/usr/bin/env node
// A dependency-free self-test of the JavaScript port: hand-written requests of every operation
// and their expected answers, many of them the worked examples of the spec.
//   node selftest.mjs        (exit 0 and "ok" lines when every case holds)

import assert from "node:assert/strict";

import { parseRequest } from "./numbers.mjs";
import { runOp } from "./operations.mjs";
import { MARKER } from "./wire.mjs";

let passed = 0;
function check(name, body) {
  try {
    body();
    passed += 1;
    console.log(`ok - ${name}`);
  } catch (error) {
    console.log(`not ok - ${name}\n${error.stack}`);
    process.exitCode = 1;
  }
}

// -- builders ------------------------------------------------------------------------------------
let seq = 0;
const ev = (type, data) => ({ type, seq: ++seq, time: 1767225600000 + seq, data });
const source = { kind: "model", provider: "deepseek", model: "deepseek-chat" };
const message = (content, extra = {}) =>
  ev("assistant/message", { turn: 1, step: 0, message: { id: `msg_${seq}`, role: "assistant", content, source }, ...extra });
const delta = (text) => ev("assistant/chunk", { turn: 1, step: 0, chunk: { type: "text-delta", index: 0, text } });
const turnStart = (turn = 1) => ev("turn/start", { turn });
const stepStart = (turn = 1) => ev("step/start", { turn, step: 0 });
const turnEnd = (kind, turn = 1) => ev("turn/end", { turn, reason: { kind } });
// A turn that entered a step, then ended with `kind`: it accounts for work (selection.md §5.1).
const steppedEnd = (kind, turn = 1) => [turnStart(turn), stepStart(turn), turnEnd(kind, turn)];
const spliced = (data) => ev("agent/inbox/spliced", { target: "next-turn", start: 0, inserted: [], ...data });
const text = (t) => ({ type: "text", text: t });
const reasoning = (t) => ({ type: "reasoning", text: t });
const update = (partialResult, extra = {}) => ({
  type: "tool_execution_update",
  toolCallId: "call_1",
  toolName: "bash",
  args: { command: "ls" },
  partialResult,
  ...extra,
});
const project = (event, maxBytes = 4096, includeLiveEvents = true, fit = "halving") =>
  runOp("project", { event, includeLiveEvents, maxBytes }, fit);
const bytes = (line) => Buffer.byteLength(line, "utf8");

// -- selection -----------------------------------------------------------------------------------
check("an empty terminal message never hides the last non-empty one", () => {
  const events = [message([text("answer")]), message([], { usage: { output: 9 } })];
  assert.deepEqual(runOp("select", { events }), [text("answer")]);
});

check("streamed text is the fallback, and an empty message does not suppress it", () => {
  const events = [delta("par"), delta("tial"), message([])];
  assert.deepEqual(runOp("select", { events }), [text("partial")]);
});

check("a reasoning-only message beats streamed text; nothing at all is null", () => {
  const events = [delta("streamed"), message([reasoning("thinking")])];
  assert.deepEqual(runOp("select", { events }), [reasoning("thinking")]);
  assert.equal(runOp("select", { events: [ev("mystery/type", {}), delta("")] }), null);
});

check("fold answers one collect per push plus one, equal to the batch rule at every prefix", () => {
  const pushes = [{ text: "" }, { event: delta("a") }, { text: "b" }, { event: message([]) }, { event: message([text("m")]) }];
  assert.deepEqual(runOp("fold", { pushes }), [null, null, [text("a")], [text("ab")], [text("ab")], [text("m")]]);
});

// -- settle --------------------------------------------------------------------------------------
check("max-tokens keeps its stop reason and hands the partial text to the parent", () => {
  // The later turn never reached a step: it accounts for no work, so the end stays max-tokens.
  const events = [turnStart(), stepStart(), delta("half an answer"), message([]), turnEnd("max-tokens"), turnStart(2), turnEnd("completed", 2)];
  assert.deepEqual(runOp("settle", { events, cancelled: false, diagnostic: "budget" }), {
    result: { output: [text("half an answer")], stopReason: "max-tokens" },
    end: { stopReason: "max-tokens", lastAssistantMessage: [text("half an answer")] },
    toolResult: {
      isError: true,
      text:
        "Error: subagent run hit its token limit before finishing\nDiagnostic: budget" +
        "\nPartial output before the run ended:\nhalf an answer",
    },
  });
  assert.equal(runOp("settle", { events: [], cancelled: false, diagnostic: "" }).toolResult.text, "Error: subagent run failed\nDiagnostic: ");
});

check("no output: result.output is [], lastAssistantMessage is absent", () => {
  const events = [turnStart(), spliced({ removedCount: 1 }), turnEnd("blocked")];
  const settled = runOp("settle", { events, cancelled: false });
  assert.deepEqual(settled, {
    result: { output: [], stopReason: "refusal" },
    end: { stopReason: "refusal" },
    toolResult: { isError: true, text: "Error: subagent declined the task" },
  });
});

check("cancellation turns any non-completed stop into aborted, never a completed one", () => {
  const done = [turnStart(), stepStart(), message([text("a"), reasoning("r"), text("b")]), turnEnd("completed")];
  assert.deepEqual(runOp("settle", { events: done, cancelled: true }).toolResult, { isError: false, text: "ab" });
  assert.equal(runOp("settle", { events: steppedEnd("interrupted"), cancelled: true }).result.stopReason, "aborted");
  assert.equal(runOp("settle", { events: steppedEnd("toString"), cancelled: false }).result.stopReason, "error");
});

check("a continuable epoch reads dropped work and maps interrupted to aborted; it has no tool result", () => {
  const done = [turnStart(), stepStart(), message([text("a")]), turnEnd("completed")];
  assert.deepEqual(runOp("settle", { events: done, mode: "continuable" }), {
    result: { output: [text("a")], stopReason: "completed" },
    end: { stopReason: "completed", lastAssistantMessage: [text("a")] },
  });
  const dropped = [...done, spliced({ removedCount: 1, outcome: "canceled" })];
  assert.equal(runOp("settle", { events: dropped, mode: "continuable" }).result.stopReason, "aborted");
  assert.equal(runOp("settle", { events: dropped, cancelled: false }).result.stopReason, "completed");
  assert.equal(runOp("settle", { events: steppedEnd("interrupted"), mode: "continuable" }).result.stopReason, "aborted");
  assert.equal(runOp("settle", { events: [], mode: "continuable" }).result.stopReason, "completed");
  assert.throws(() => runOp("settle", { events: [], mode: "continuable", cancelled: false }), /\$\.cancelled/);
  assert.throws(() => runOp("settle", { events: [], mode: "later", cancelled: false }), /\$\.mode/);
  assert.throws(() => runOp("settle", { events: [] }), /\$\.cancelled/);
});

check("consumed work: marks are keyed by turn number and claims count only inside a turn", () => {
  const claim = spliced({ removedCount: 1 });
  // A claim outside any turn is ignored; a claimed, completed turn accounts for nothing.
  assert.equal(runOp("settle", { events: [claim, turnStart(), turnEnd("blocked")], cancelled: false }).result.stopReason, "error");
  assert.equal(runOp("settle", { events: [turnStart(), claim, turnEnd("completed")], cancelled: false }).result.stopReason, "error");
  // A stepped and claimed turn leaves its claim for the next turn/end of its number.
  const stale = [turnStart(), claim, stepStart(), turnEnd("completed"), turnStart(), turnEnd("aborted")];
  assert.equal(runOp("settle", { events: stale, mode: "continuable" }).result.stopReason, "aborted");
  // A turn/end without a turn/start still uses its number's step mark.
  assert.equal(runOp("settle", { events: [stepStart(3), turnEnd("error", 3)], cancelled: false }).result.stopReason, "error");
  assert.equal(runOp("settle", { events: [stepStart(3), turnEnd("max-tokens", 3)], cancelled: false }).result.stopReason, "max-tokens");
});

// -- wire ----------------------------------------------------------------------------------------
check("classification: the two live types are frames, everything else is a fact", () => {
  assert.equal(runOp("classify", { event: { type: "message_update" } }), "frame");
  assert.equal(runOp("classify", { event: { type: "tool_execution_update" } }), "frame");
  assert.equal(runOp("classify", { event: { type: "something_new" } }), "fact");
});

check("frames need opt-in; facts pass through in canonical form", () => {
  assert.equal(project(update("x"), 4096, false), null);
  const fact = { type: "mystery", b: 30.0, "10": -0, "2": 1e-7, a: "\u2028\u007f\u0001\ud800", big: 1e21 };
  assert.deepEqual(project(fact, 4096, false), {
    line: '{"2":1e-7,"10":0,"type":"mystery","b":30,"a":"\u2028\u007f\\u0001\ufffd","big":1e+21}',
  });
});

check("message_update drops partial and names the tool call on toolcall_start", () => {
  const partial = { role: "assistant", content: [{ type: "text", text: "t" }, { type: "toolCall", id: "c9", name: "grep", arguments: {} }] };
  const event = {
    type: "message_update",
    message: { role: "assistant", content: [], usage: { input: 1 } },
    assistantMessageEvent: { type: "toolcall_start", id: "old", contentIndex: 1, partial },
  };
  assert.deepEqual(project(event), {
    line: '{"type":"message_update","usage":{"input":1},"assistantMessageEvent":{"type":"toolcall_start","id":"c9","contentIndex":1,"toolName":"grep"}}',
  });
  const bad = { ...event, assistantMessageEvent: { ...event.assistantMessageEvent, contentIndex: 0 } };
  assert.throws(() => project(bad), /not a toolCall block/);
  assert.throws(() => project({ ...event, message: { role: "user", content: [] } }), /is not 'assistant'/);
});

check("turn_end and agent_end project to their counts", () => {
  assert.deepEqual(project({ type: "turn_end", message: { role: "assistant" }, toolResults: [{}, {}] }), {
    line: '{"type":"turn_end","messageRole":"assistant","toolResultCount":2}',
  });
  assert.deepEqual(project({ type: "agent_end", messages: [1, 2, 3] }), {
    line: '{"type":"agent_end","willRetry":false,"messageCount":3}',
  });
});

check("maxBytes below 3215 is erroneous", () => {
  assert.throws(() => project({ type: "agent_start" }, 3214), /at least 3215/);
});

check("the backstop: marker first, a code-point suffix, both strategies fit, ids clipped", () => {
  const body = "🙂é\u0000".repeat(2000);
  const event = update({ content: [{ type: "text", text: body }], details: { huge: "x".repeat(100) } }, { toolCallId: "id".repeat(300) });
  for (const fit of ["halving", "maximal"]) {
    const { line } = project(event, 4096, true, fit);
    assert.ok(bytes(line) <= 4096, `${fit}: ${bytes(line)} bytes`);
    const parsed = JSON.parse(line);
    assert.deepEqual(Object.keys(parsed), ["type", "toolCallId", "toolName", "partialResult"]);
    assert.equal(Array.from(parsed.toolCallId).length, 256);
    const shown = parsed.partialResult.content[0].text;
    assert.ok(shown.startsWith(MARKER) && body.endsWith(shown.slice(MARKER.length)));
    assert.ok(shown.toWellFormed() === shown);
  }
  const halving = JSON.parse(project(event, 4096, true, "halving").line).partialResult.content[0].text;
  const maximal = JSON.parse(project(event, 4096, true, "maximal").line).partialResult.content[0].text;
  assert.ok(maximal.length >= halving.length);
});

check("only tool_execution_update is bounded; a fitting update is untouched", () => {
  const end = { type: "tool_execution_end", toolCallId: "c", toolName: "n", result: "x".repeat(9000), isError: false };
  assert.equal(bytes(project(end).line), bytes(JSON.stringify(end)));
  const small = update("short");
  assert.equal(project(small).line, JSON.stringify(small));
});

check("size is counted in UTF-8 bytes after escaping", () => {
  // 2100 × "é" is 2100 UTF-16 units but 4200 bytes: the line exceeds 4096 only when counted in bytes.
  const event = update("é".repeat(2100));
  assert.ok(project(event).line.includes(MARKER.slice(0, 10)));
});

// -- the worked examples of spec/wire.md ---------------------------------------------------------
check("wire.md §4.2: a fact is written unchanged, in canonical form", () => {
  const event = parseRequest(
    '{"type": "tool_execution_end", "toolCallId": "call_01", "toolName": "bash", "result": {"content": [{"type": "text", "text": "ok\\u0007\\u2028"}], "details": {"exitCode": 0, "10": 30.0, "2": -0.0, "elapsed": 1.5e-07}}, "isError": false}',
  );
  assert.equal(
    project(event, 262144, false).line,
    '{"type":"tool_execution_end","toolCallId":"call_01","toolName":"bash","result":{"content":[{"type":"text","text":"ok\\u0007\u2028"}],"details":{"2":0,"10":30,"exitCode":0,"elapsed":1.5e-7}},"isError":false}',
  );
});

check("wire.md §4.3: a toolcall_start carries the tool call's id and name, never partial", () => {
  const message = {
    role: "assistant",
    content: [{ type: "text", text: "Let me read it." }, { type: "toolCall", id: "call_01", name: "read", arguments: { path: "README.md" } }],
    usage: { input: 1200, output: 85, cost: { total: 0.004875 } },
  };
  const event = { type: "message_update", message, assistantMessageEvent: { type: "toolcall_start", contentIndex: 1, partial: message } };
  assert.equal(
    project(event, 262144).line,
    '{"type":"message_update","usage":{"input":1200,"output":85,"cost":{"total":0.004875}},"assistantMessageEvent":{"type":"toolcall_start","contentIndex":1,"id":"call_01","toolName":"read"}}',
  );
  assert.equal(project(event, 262144, false), null);
});

check("wire.md §5.5: 600 lines bounded to 4096 bytes by halving and by maximal", () => {
  const lines = Array.from({ length: 600 }, (_, i) => `line ${String(i + 1).padStart(4, "0")}\n`);
  const event = update({ content: [{ type: "text", text: lines.join("") }], details: { exitCode: null } }, { toolCallId: "call_01", toolName: "bash", args: { command: "make test" } });
  assert.equal(bytes(JSON.stringify(event)), 6788);
  const halving = project(event, 4096, true, "halving").line;
  assert.equal(JSON.parse(halving).partialResult.content[0].text, MARKER + lines.slice(300).join(""));
  const maximal = project(event, 4096, true, "maximal").line;
  assert.equal(bytes(maximal), 4096);
  assert.equal(JSON.parse(maximal).partialResult.content[0].text, `${MARKER}42\n${lines.slice(242).join("")}`);
});

check("wire.md §7: integer literals beyond 2^53-1 and infinities are refused where the line carries them", () => {
  const request = (text) => parseRequest(`{"event": ${text}, "includeLiveEvents": true, "maxBytes": 4096}`);
  assert.throws(() => runOp("project", request('{"type": "x", "seed": 9007199254740993}')), /9007199254740993 is an integer beyond/);
  assert.throws(() => runOp("project", request('{"type": "x", "n": [1e400]}')), /\$\.event\.n\[0\]: Infinity/);
  assert.deepEqual(runOp("project", request('{"type": "x", "seed": 9007199254740991, "f": 9007199254740993.0}')), {
    line: '{"type":"x","seed":9007199254740991,"f":9007199254740992}',
  });
  const partialOnly = '{"type": "message_update", "message": {"role": "assistant"}, "assistantMessageEvent": {"type": "done", "partial": {"n": 9007199254740993}}}';
  assert.ok(runOp("project", request(partialOnly)).line.includes('"assistantMessageEvent":{"type":"done"}'));
  assert.equal(runOp("classify", request('{"type": "x", "seed": 9007199254740993}')), "fact");
});

check("budget.md §5.7: the worked example: floors first, then the fair share", () => {
  const records = [
    { id: "call_1", agent: "reviewer", status: "completed", task: "Review src/auth.ts", output: "a".repeat(1000), messages: [{}] },
    { id: "call_2", agent: "tester", status: "failed", task: "Run the tests", output: "b".repeat(400), errorMessage: "Error: exit code 1", stderr: "e".repeat(300) },
    { id: "call_3", agent: "writer", status: "completed", task: "Write the notes", output: "done" },
  ];
  const { results } = runOp("details", { records, sharedBytes: 300, taskFloorBytes: 64, outputFloorBytes: 128, diagnosticFloorBytes: 64 });
  assert.equal(results[0].output.length, 228);
  assert.ok(!("messages" in results[0]));
  assert.deepEqual([results[1].errorMessage, results[1].stderr.length, results[1].output.length], ["Error: exit code 1", 146, 128]);
  assert.deepEqual(results[1].truncated, ["output", "stderr"]);
  assert.deepEqual(results[2], { id: "call_3", agent: "writer", status: "completed", task: "Write the notes", output: "done" });
});

check("budget.md §4: a zero allowance keeps nothing, never the whole value", () => {
  const request = { records: [{ id: "a", agent: "w", status: "completed", task: "t", output: "x".repeat(5000) }], sharedBytes: 0, taskFloorBytes: 0, outputFloorBytes: 0, diagnosticFloorBytes: 0 };
  assert.equal(runOp("details", request).results[0].output, "");
});

check("budget.md §6-8: roster count, lane total, one publish per window", () => {
  const records = Array.from({ length: 3 }, (_, i) => ({ id: `t${i}`, agent: "w", status: "running", task: "x" }));
  const roster = runOp("roster", { records, maxBytes: 120 });
  assert.equal(roster.results.length + roster.omittedResults, 3);
  const live = (i) => ({ id: `t${i}`, agent: "w", status: "running", task: "x" });
  const { states } = runOp("lane", { updates: [{ results: [live(0), live(1), live(2)] }, { results: [live(0)], omittedResults: 2 }] });
  assert.deepEqual(states.map((s) => [s.total, s.results.length, s.omittedResults]), [[3, 3, undefined], [3, 3, undefined]]);
  const events = [{ at: 0, kind: "update", state: 1 }, { at: 10, kind: "status", state: 2 }, { at: 150, kind: "update", state: 3 }, { at: 160, kind: "return" }, { at: 170, kind: "status", state: 4 }];
  assert.deepEqual(runOp("publish", { intervalMs: 100, events }).publishes, [{ at: 0, state: 1 }, { at: 100, state: 2 }, { at: 160, state: 3 }]);
});

console.log(`${passed} passed${process.exitCode ? ", some FAILED" : ""}`);
