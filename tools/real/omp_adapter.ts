// The `--mode json` projection of the published coding agent @oh-my-pi/pi-coding-agent behind
// the eventproof protocol (spec/protocol.md): `project` answers the line its print mode writes
// for an event, JSON.stringify(printableEvent(event)) (src/modes/print-mode.ts), without the
// line feed it appends (spec/wire.md §1). The agent has no opt-in and no bound of its own:
// includeLiveEvents and maxBytes reach nothing, and nothing here adds them. It runs on Bun, as
// the agent does:
//
//   bun tools/real/omp_adapter.ts INSTALL_DIR     (INSTALL_DIR/node_modules holds the agent)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const root = join(process.argv[2] ?? ".", "node_modules", "@oh-my-pi", "pi-coding-agent");
const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const { printableEvent } = await import(
  pathToFileURL(join(root, "src", "modes", "print-mode.ts")).href);

const handshake = {
  version: 1,
  implementation: { name: "oh-my-pi printableEvent", language: "typescript", version,
                    homepage: "https://www.npmjs.com/package/@oh-my-pi/pi-coding-agent" },
  capabilities: { ops: ["project"] },
};

function project(input: { event: unknown }): { line: string } {
  return { line: JSON.stringify(printableEvent(input.event)) };
}

const answer = (value: unknown): void => { process.stdout.write(`${JSON.stringify(value)}\n`); };
const decoder = new TextDecoder();
let buffer = "";
outer: for await (const chunk of Bun.stdin.stream()) {
  buffer += decoder.decode(chunk, { stream: true });
  let newline: number;
  while ((newline = buffer.indexOf("\n")) >= 0) {
    const text = buffer.slice(0, newline);
    buffer = buffer.slice(newline + 1);
    if (!text.trim()) continue;
    const request = JSON.parse(text);
    if (request.cmd === "stop") break outer;
    if (request.cmd === "start") { answer(handshake); continue; }
    try {
      if (request.op !== "project") throw new Error(`op ${request.op} is not declared`);
      answer({ seq: request.seq, output: project(request.input) });
    } catch (error) {
      answer({ seq: request.seq, errored: { message: String((error as Error)?.message ?? error) } });
    }
  }
}
process.exit(0);
