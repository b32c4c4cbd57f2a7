// Planted bugs of the JavaScript port (examples/js), kept out of its code: each bug is a list of
// patches, a piece of the port's source and what replaces it, applied as the module is loaded
// (hooks.mjs). The port a porter copies carries none of them.
//
// Each bug reproduces a bug real code once had; the test suite plants it to prove the harness
// catches it with a message a JavaScript developer can act on. A patch whose text the port no
// longer holds exactly once is an error that names the bug, the file and the text, so a change
// to the port cannot quietly disarm a bug.

import { readFileSync } from "node:fs";

/** The directory of the port the patches apply to. */
export const PORT_DIR = new URL("../../../../examples/js/", import.meta.url);

/** bug name -> { what: the behaviour it reproduces, patches: [file, text, replacement][] }. */
export const BUGS = Object.freeze({
  // selection.md §3.2: the last assistant message is taken even when its content is empty.
  "unfiltered-last-message": {
    what: "the last assistant/message is the output even when its content is []",
    patches: [["selection.mjs", "  return content.length > 0;", "  return true;"]],
  },
  // selection.md §3.2/§3.3: any message, even an empty one, beats streamed text.
  "message-beats-nothing": {
    what: "an empty assistant/message suppresses the streamed-text fallback (output [])",
    patches: [
      ["selection.mjs", "  #text = \"\";", "  #text = \"\";\n  #anyMessage = null;"],
      ["selection.mjs", "      const content = messageContent(event, path);\n", "      const content = messageContent(event, path);\n      this.#anyMessage = content;\n"],
      ["selection.mjs", "    if (this.#message !== null) return this.#message;\n", "    if (this.#message !== null) return this.#message;\n    if (this.#anyMessage !== null) return this.#anyMessage;\n"],
    ],
  },
  // selection.md §3.3: no streamed-text fallback at all.
  "no-text-fallback": {
    what: "text-delta chunks are never used as output",
    patches: [["selection.mjs", '    return this.#text === "" ? null : [{ type: "text", text: this.#text }];', "    return null;"]],
  },
  // selection.md §3.1: "non-empty" judged by the presence of a text block, not by content length.
  "text-presence": {
    what: "a message counts only when it has a text block (reasoning-only messages lose)",
    patches: [["selection.mjs", "  return content.length > 0;", '  return content.some((block) => isObject(block) && block.type === "text");']],
  },
  // selection.md §5.5: lastAssistantMessage is [] instead of absent when there is no output.
  "empty-array-last-assistant": {
    what: "end.lastAssistantMessage is [] instead of absent when there is no output",
    patches: [["selection.mjs", "  if (output !== null) end.lastAssistantMessage = output;\n", "  end.lastAssistantMessage = output ?? [];\n"]],
  },
  // selection.md §5.2: a cancelled run reports "aborted" even when its end completed.
  "cancelled-completed-wrong": {
    what: "a cancelled run stops with 'aborted' even when it completed",
    patches: [["selection.mjs", '  if (cancelled && recorded !== "completed") return "aborted";', '  if (cancelled) return "aborted";']],
  },
  // selection.md §5.1: every turn/end becomes the end, even one whose turn never reached a step.
  "last-turn-end-wins": {
    what: "the end is the last turn/end, even one that accounts for no work",
    patches: [["selection.mjs", "        if (accounts) {", "        if (accounts || true) {"]],
  },
  // selection.md §5.1: inbox claims are not read, so a claimed turn blocked before a step is no end.
  "claims-ignored": {
    what: "claims are ignored: only stepped turns account for work",
    patches: [["selection.mjs", "          claimed.add(open); // a claim outside any turn is ignored", "          // claims are not read"]],
  },
  // selection.md §5.1: dropped unrun, once set, is never cleared by a later accounting turn/end.
  "drops-never-cleared": {
    what: "dropped unrun is never cleared by a later accounting turn/end",
    patches: [["selection.mjs", "          droppedUnrun = false; // drops before this end are its own to report", "          // dropped unrun is never cleared"]],
  },
  // selection.md §5.2-5.3: a blocked end maps to "error" instead of "refusal".
  "blocked-is-error": {
    what: "a blocked end stops with 'error' instead of 'refusal'",
    patches: [
      ["selection.mjs", "(endKind !== null && ONE_SHOT_REASONS.get(endKind))", '(endKind !== null && endKind !== "blocked" && ONE_SHOT_REASONS.get(endKind))'],
      ["selection.mjs", '  return CONTINUABLE_REASONS.get(endKind) ?? "error";', '  if (endKind === "blocked") return "error";\n  return CONTINUABLE_REASONS.get(endKind) ?? "error";'],
    ],
  },
  // selection.md §5.3: one table for both paths: an interrupted epoch stops with "error".
  "one-mapping": {
    what: "the continuable path maps interrupted to 'error', as the one-shot path does",
    patches: [["selection.mjs", '  return CONTINUABLE_REASONS.get(endKind) ?? "error";', '  if (endKind === "interrupted") return "error";\n  return CONTINUABLE_REASONS.get(endKind) ?? "error";']],
  },
  // selection.md §5.6: the Diagnostic line is added only for a non-empty diagnostic.
  "empty-diagnostic-dropped": {
    what: 'the Diagnostic line is left out when the diagnostic is ""',
    patches: [["selection.mjs", "  if (diagnostic !== undefined) message +=", '  if (diagnostic !== undefined && diagnostic !== "") message +=']],
  },
  // wire.md §4.1: frames are written without opt-in.
  "frames-always": {
    what: "frames are projected even when includeLiveEvents is false",
    patches: [["wire.mjs", '  if (classifyEvent(event) === "frame" && !includeLiveEvents) return null;\n', ""]],
  },
  // wire.md §4.3: partial is left in the projected assistantMessageEvent.
  "keep-partial": {
    what: "message_update keeps assistantMessageEvent.partial",
    patches: [["wire.mjs", "  let ame = rest;", "  let ame = { ...source };"]],
  },
  // wire.md §5.1: the backstop also applies to tool_execution_end.
  "bound-end-too": {
    what: "the backstop also bounds tool_execution_end",
    patches: [["wire.mjs", '  if (event.type === "tool_execution_update" && lineSize(line) > maxBytes)', '  if ((event.type === "tool_execution_update" || event.type === "tool_execution_end") && lineSize(line) > maxBytes)']],
  },
  // wire.md §5.4: ids are never clipped. When the ids alone exceed maxBytes even the empty tail
  // does not fit, and the halving loop, which relies on §5.6 to end, spins forever.
  "no-id-clip": {
    what: "toolCallId and toolName are never clipped in the bounded form",
    patches: [["wire.mjs", "function clip(id) {\n", "function clip(id) {\n  return id;\n"]],
  },
  // wire.md §5.5: the tail is taken with slice(-k), and slice(-0) is the whole text, so a halving
  // loop that reaches k = 0 keeps measuring the whole text and spins forever. It reaches k = 0
  // with a non-empty text only at the edge wire.md §5.6 keeps reachable: worst-cost ids and a
  // maxBytes a few bytes above 3215, where not even one code point of tail fits.
  "slice-zero": {
    what: "the tail is cps.slice(-k), so k = 0 keeps the whole text (the halving loop can spin)",
    patches: [["wire.mjs", "units.slice(n - k)", "units.slice(-k)"]],
  },
  // wire.md §5.5: the tail is counted in UTF-16 units and may split a surrogate pair.
  "utf16-tail": {
    what: "the tail is counted in UTF-16 code units (may split a surrogate pair)",
    patches: [["wire.mjs", "  const units = Array.from(text);", '  const units = text.split("");']],
  },
  // wire.md §6.5: size measured in UTF-16 code units instead of UTF-8 bytes.
  "chars-not-bytes": {
    what: "line size measured as line.length (UTF-16 units) instead of UTF-8 bytes",
    patches: [["canonical.mjs", '  return Buffer.byteLength(line, "utf8");', "  return line.length;"]],
  },
  // budget.md §4, §5.5: tailChars(value, max) as value.slice(-(max - 1)) keeps the whole value
  // for max <= 1 (slice(-0)), so an exhausted budget restores every later field at full size.
  "zero-allowance-whole": {
    what: "a cut with an allowance of 0 or 1 keeps the whole value",
    patches: [["budget.mjs", "  if (cost(text) <= allowance) return text;", "  if (allowance <= 1 || cost(text) <= allowance) return text;"]],
  },
  // budget.md §5.2-5.3: no floors, and each record claims all that is left of the budget.
  "first-come": {
    what: "the shared budget is claimed first-come, without per-record floors",
    patches: [
      ["budget.mjs", "  const results = batch.map((record, i) => {", "  floors.task = 0;\n  floors.output = 0;\n  floors.diagnostics = 0;\n  const results = batch.map((record, i) => {"],
      ["budget.mjs", "const share = Math.floor(remaining / (batch.length - i));", "const share = remaining;"],
    ],
  },
  // budget.md §5.6: task and stderr rendered from a bare 50,000-code-point cut, never charged.
  "uncharged-fields": {
    what: "task and stderr are cut at a fixed size and never charged to the budget",
    patches: [[
      "budget.mjs",
      "    const group = GROUP[name];\n",
      '    if (name === "task" || name === "stderr") {\n      const points = Array.from(record[name].toWellFormed());\n' +
        '      kept[name] = (SIDE[name] === "head" ? points.slice(0, 50000) : points.slice(-50000)).join("");\n      continue;\n    }\n' +
        "    const group = GROUP[name];\n",
    ]],
  },
  // budget.md §5.4: a failure claims its output before its errorMessage and stderr.
  "diagnostics-after-output": {
    what: "a failed record claims its output before its diagnostics",
    patches: [["budget.mjs", '  if (record.status === "failed") return ["errorMessage", "stderr", "output", "task"];\n', ""]],
  },
  // budget.md §3.2: ids and agent names kept whole.
  "no-identity-clip": {
    what: "id and agent are never clipped to 256 code points",
    patches: [["budget.mjs", "  return Array.from(value.toWellFormed()).slice(0, ID_CLIP).join(\"\");", "  return value.toWellFormed();"]],
  },
  // budget.md §6.2: the roster is never bounded.
  "unbounded-roster": {
    what: "the live roster carries every record, whatever maxBytes",
    patches: [["budget.mjs", "    if (grown > bound) break;\n", ""]],
  },
  // budget.md §6.3: omittedResults is never written.
  "roster-without-count": {
    what: "a truncated roster does not report omittedResults",
    patches: [["budget.mjs", "  if (batch.length > results.length) roster.omittedResults = batch.length - results.length;\n", ""]],
  },
  // budget.md §7.2: the lane drops the count after merging and counts what it shows.
  "lane-clears-count": {
    what: "the lane clears omittedResults after merging (its total freezes)",
    patches: [["budget.mjs", "    const state = { total, results: merged };", "    if (merged) return { total: merged.length, results: merged };\n    const state = { total, results: merged };"]],
  },
  // budget.md §7.1: the merged roster is not capped at the update's total.
  "lane-uncapped": {
    what: "the lane keeps records past the update's total",
    patches: [["budget.mjs", "    merged = merged.slice(0, total); // capped at the update's total (budget.md §7.1)\n", ""]],
  },
  // budget.md §8.2: status transitions are published at once, bypassing the window.
  "status-immediate": {
    what: "status transitions are published immediately",
    patches: [
      ["budget.mjs", "changes.push({ at, state: event.state });", "changes.push({ at, state: event.state, kind: event.kind });"],
      ["budget.mjs", "    if (top && top.at === change.at) {\n      top.state = change.state;\n", '    if (top && top.at === change.at && change.kind !== "status") {\n      top.state = change.state;\n      top.kind = change.kind;\n'],
      ["budget.mjs", "  for (const { at, state: next } of instants) {", "  for (const { at, state: next, kind } of instants) {"],
      ["budget.mjs", "    if (last === null || at >= last + window) publish(at);", '    if (last === null || at >= last + window || kind === "status") publish(at);'],
    ],
  },
  // budget.md §8.3: callbacks after the return are still published.
  "late-publish": {
    what: "changes that arrive after the call returned are published",
    patches: [
      ["budget.mjs", "      if (returned === null) changes.push(", "      changes.push("],
      ["budget.mjs", "  return { changes, returned };", "  if (changes.length > 0) returned = Math.max(returned, changes[changes.length - 1].at);\n  return { changes, returned };"],
    ],
  },
});

/** The bug names in `spec` ("", "name" or "a,b"); throws on an unknown name. */
export function bugNames(spec) {
  const names = [...new Set(String(spec ?? "").split(",").map((name) => name.trim()).filter((name) => name !== ""))];
  for (const name of names) {
    if (!Object.hasOwn(BUGS, name)) {
      throw new Error(
        `EVENTPROOF_JS_BUG names an unknown bug ${JSON.stringify(name)}; ` +
          `use one of: ${Object.keys(BUGS).join(", ")} (or leave it unset for the correct port)`,
      );
    }
  }
  return names;
}

/** The source of the port's module `file` with the bugs `names` planted; throws when a patch's
 * text is not in it exactly once. */
export function planted(file, source, names) {
  let patched = source;
  for (const name of names) {
    for (const [target, text, replacement] of BUGS[name].patches) {
      if (target !== file) continue;
      const count = patched.split(text).length - 1;
      if (count !== 1) {
        throw new Error(
          `planted bug ${name}: examples/js/${file} holds ${count} copies of ${JSON.stringify(text)}, not one` +
            (names.length > 1 ? ` (with ${names.join(", ")} planted together)` : "") +
            "; update tests/integration/programs/js-bugs/bugs.mjs to the port's code",
        );
      }
      patched = patched.replace(text, () => replacement);
    }
  }
  return patched;
}

/** Plant `names` in every file on disk, to find a patch that no longer applies before serving. */
export function checkPlantable(names) {
  const files = new Set(names.flatMap((name) => BUGS[name].patches.map(([file]) => file)));
  for (const file of files) planted(file, readFileSync(new URL(file, PORT_DIR), "utf8"), names);
}
