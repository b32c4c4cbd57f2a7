// The wire writer of the published coding agent @mariozechner/pi-coding-agent behind the
// eventproof protocol (spec/protocol.md): `project` answers the line its RPC transport writes
// for an event, serializeJsonLine(event) (dist/modes/rpc/jsonl.js; its `--mode json` writes
// JSON.stringify(event), the same bytes), without the line feed the transport appends
// (spec/wire.md §1: a line is the serialization, without it). The agent has no opt-in and no
// bound of its own: includeLiveEvents and maxBytes reach nothing, and nothing here adds them.
//
//   node tools/real/pi_adapter.mjs INSTALL_DIR     (INSTALL_DIR/node_modules holds the agent)
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const root = join(process.argv[2] ?? ".", "node_modules", "@mariozechner", "pi-coding-agent");
const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const { serializeJsonLine } = await import(
  pathToFileURL(join(root, "dist", "modes", "rpc", "jsonl.js")).href);

const handshake = {
  version: 1,
  implementation: { name: "pi-coding-agent serializeJsonLine", language: "javascript", version,
                    homepage: "https://www.npmjs.com/package/@mariozechner/pi-coding-agent" },
  capabilities: { ops: ["project"] },
};

function project(input) {
  const written = serializeJsonLine(input.event);
  return { line: written.endsWith("\n") ? written.slice(0, -1) : written };
}

const answer = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
for await (const text of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  const request = JSON.parse(text);
  if (request.cmd === "stop") break;
  if (request.cmd === "start") { answer(handshake); continue; }
  try {
    if (request.op !== "project") throw new Error(`op ${request.op} is not declared`);
    answer({ seq: request.seq, output: project(request.input) });
  } catch (error) {
    answer({ seq: request.seq, errored: { message: String(error?.message ?? error) } });
  }
}
process.exit(0);
