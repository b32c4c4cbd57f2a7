// Planted bugs: each name turns on one small deviation from the spec that reproduces a bug real
// code once had. The test suite plants them to prove the harness catches each one with a message
// a JavaScript developer can act on. Unset (the default), the port is correct.
//
//   EVENTPROOF_JS_BUG=no-text-fallback node examples/js/eventproof-port.mjs
//   EVENTPROOF_JS_BUG=slice-zero,no-id-clip node examples/js/eventproof-port.mjs   (several at once)

/** Every planted bug, with the behaviour it reproduces. */
export const BUGS = Object.freeze({
  // selection.md §3.2: the last assistant message is taken even when its content is empty.
  "unfiltered-last-message": "the last assistant/message is the output even when its content is []",
  // selection.md §3.2/§3.3: any message, even an empty one, beats streamed text.
  "message-beats-nothing": "an empty assistant/message suppresses the streamed-text fallback (output [])",
  // selection.md §3.3: no streamed-text fallback at all.
  "no-text-fallback": "text-delta chunks are never used as output",
  // selection.md §3.1: "non-empty" judged by the presence of a text block, not by content length.
  "text-presence": "a message counts only when it has a text block (reasoning-only messages lose)",
  // wire.md §5.5: the tail is taken with slice(-k), and slice(-0) is the whole text, so a halving
  // loop that reaches k = 0 keeps measuring the whole text and spins forever. It reaches k = 0
  // with a non-empty text only at the edge wire.md §5.6 keeps reachable: worst-cost ids and a
  // maxBytes a few bytes above 3215, where not even one code point of tail fits.
  "slice-zero": "the tail is cps.slice(-k), so k = 0 keeps the whole text (the halving loop can spin)",
  // wire.md §6.5: size measured in UTF-16 code units instead of UTF-8 bytes.
  "chars-not-bytes": "line size measured as line.length (UTF-16 units) instead of UTF-8 bytes",
  // wire.md §5.4: ids are never clipped. When the ids alone exceed maxBytes even the empty tail
  // does not fit, and the halving loop, which relies on §5.6 to end, spins forever.
  "no-id-clip": "toolCallId and toolName are never clipped in the bounded form",
  // wire.md §5.1: the backstop also applies to tool_execution_end.
  "bound-end-too": "the backstop also bounds tool_execution_end",
  // wire.md §4.1: frames are written without opt-in.
  "frames-always": "frames are projected even when includeLiveEvents is false",
  // wire.md §4.3: partial is left in the projected assistantMessageEvent.
  "keep-partial": "message_update keeps assistantMessageEvent.partial",
  // wire.md §5.5: the tail is counted in UTF-16 units and may split a surrogate pair.
  "utf16-tail": "the tail is counted in UTF-16 code units (may split a surrogate pair)",
  // selection.md §5.4: lastAssistantMessage is [] instead of absent when there is no output.
  "empty-array-last-assistant": "end.lastAssistantMessage is [] instead of absent when there is no output",
  // selection.md §5.2: a cancelled run reports "aborted" even when its end completed.
  "cancelled-completed-wrong": "a cancelled run stops with 'aborted' even when it completed",
  // selection.md §5.1: every turn/end becomes the end, even one whose turn never reached a step.
  "last-turn-end-wins": "the end is the last turn/end, even one that accounts for no work",
  // selection.md §5.1: inbox claims are not read, so a claimed turn blocked before a step is no end.
  "claims-ignored": "claims are ignored: only stepped turns account for work",
  // selection.md §5.1: dropped unrun, once set, is never cleared by a later accounting turn/end.
  "drops-never-cleared": "dropped unrun is never cleared by a later accounting turn/end",
  // selection.md §5.2: a blocked end maps to "error" instead of "refusal".
  "blocked-is-error": "a blocked end stops with 'error' instead of 'refusal'",
  // selection.md §5.3: one table for both paths: an interrupted epoch stops with "error".
  "one-mapping": "the continuable path maps interrupted to 'error', as the one-shot path does",
  // selection.md §5.6: the Diagnostic line is added only for a non-empty diagnostic.
  "empty-diagnostic-dropped": "the Diagnostic line is left out when the diagnostic is \"\"",
  // budget.md §4, §5.5: tailChars(value, max) as value.slice(-(max - 1)) keeps the whole value
  // for max <= 1 (slice(-0)), so an exhausted budget restores every later field at full size.
  "zero-allowance-whole": "a cut with an allowance of 0 or 1 keeps the whole value",
  // budget.md §5.2-5.3: no floors, and each record claims all that is left of the budget.
  "first-come": "the shared budget is claimed first-come, without per-record floors",
  // budget.md §5.6: task and stderr rendered from a bare 50,000-code-point cut, never charged.
  "uncharged-fields": "task and stderr are cut at a fixed size and never charged to the budget",
  // budget.md §5.4: a failure claims its output before its errorMessage and stderr.
  "diagnostics-after-output": "a failed record claims its output before its diagnostics",
  // budget.md §3.2: ids and agent names kept whole.
  "no-identity-clip": "id and agent are never clipped to 256 code points",
  // budget.md §6.2: the roster is never bounded.
  "unbounded-roster": "the live roster carries every record, whatever maxBytes",
  // budget.md §6.3: omittedResults is never written.
  "roster-without-count": "a truncated roster does not report omittedResults",
  // budget.md §7.2: the lane drops the count after merging and counts what it shows.
  "lane-clears-count": "the lane clears omittedResults after merging (its total freezes)",
  // budget.md §7.1: the merged roster is not capped at the update's total.
  "lane-uncapped": "the lane keeps records past the update's total",
  // budget.md §8.2: status transitions are published at once, bypassing the window.
  "status-immediate": "status transitions are published immediately",
  // budget.md §8.3: callbacks after the return are still published.
  "late-publish": "changes that arrive after the call returned are published",
});

/** The bugs planted in this process; the self-test replaces it to exercise one bug at a time. */
export const planted = { names: new Set() };

/** Plant the bugs named in `spec` ("", "name" or "a,b"); throws on an unknown name. */
export function plantBugs(spec) {
  const names = new Set(
    String(spec ?? "")
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== ""),
  );
  for (const name of names) {
    if (!Object.hasOwn(BUGS, name)) {
      throw new Error(
        `EVENTPROOF_JS_BUG names an unknown bug ${JSON.stringify(name)}; ` +
          `use one of: ${Object.keys(BUGS).join(", ")} (or leave it unset for the correct port)`,
      );
    }
  }
  planted.names = names;
  return names;
}

/** Whether the bug `name` is planted. */
export function bug(name) {
  return planted.names.has(name);
}
