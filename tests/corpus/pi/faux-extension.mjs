// A pi extension that answers every model request from a scripted scenario, through the faux
// provider pi-ai ships (registerFauxProvider), so that `pi --mode json` writes a real log with
// no network and no model. The scenario is the JSON file named by EVENTPROOF_PI_SCENARIO:
//   {"prompt": "...", "responses": [{"content": [block...], "stopReason"?, "errorMessage"?}]}
// with blocks {"type": "text", "text"}, {"type": "thinking", "thinking"} and
// {"type": "toolCall", "id", "name", "arguments"}. It also registers a tool, `progress`, that
// reports `steps` progress updates of `size` characters each before it returns. A scenario with
// `"delegation": true` also loads the subagent extension pi ships as an example
// (examples/extensions/subagent), whose child agents, other pi processes, answer from
// `"children": {"<task>": [response...]}`; it has one agent, `helper`, on this provider.
import { readFileSync } from "node:fs";
import { fauxAssistantMessage, registerFauxProvider } from "@mariozechner/pi-ai";
import { Type } from "typebox";

const API = "eventproof-faux";
const MODEL = { id: "faux-1", name: "Faux", reasoning: false, input: ["text"],
                cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
                contextWindow: 128000, maxTokens: 16384 };

export default function (pi) {
  const scenario = JSON.parse(readFileSync(process.env.EVENTPROOF_PI_SCENARIO, "utf8"));
  // A child agent (started by a delegation with its task as the last argument, "Task: ...")
  // answers from the scenario's `children` entry for that task.
  const task = process.argv.at(-1) ?? "";
  const responses = task.startsWith("Task: ") ? scenario.children?.[task.slice(6)] ?? []
                                               : scenario.responses;
  // Fixed token sizes: the deltas of a message are the same on every run.
  const faux = registerFauxProvider({ api: API, provider: API, tokenSize: { min: 4, max: 4 },
                                      models: [MODEL] });
  faux.setResponses(responses.map((response) => fauxAssistantMessage(
    response.content,
    { stopReason: response.stopReason, errorMessage: response.errorMessage, timestamp: 0 })));
  pi.registerProvider(API, { baseUrl: "http://localhost:0", apiKey: "unused", api: API,
                             models: [MODEL] });
  pi.registerTool({
    name: "progress",
    label: "Progress",
    description: "Report progress updates, then finish.",
    parameters: Type.Object({ steps: Type.Number(), size: Type.Number() }),
    async execute(_toolCallId, params, _signal, onUpdate) {
      let text = "";
      for (let step = 1; step <= params.steps; step++) {
        text += `step ${step}: ${"x".repeat(Math.max(0, params.size - 10))}\n`;
        onUpdate?.({ content: [{ type: "text", text }], details: { step } });
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return { content: [{ type: "text", text: `done after ${params.steps} steps` }],
               details: { steps: params.steps } };
    },
  });
}
