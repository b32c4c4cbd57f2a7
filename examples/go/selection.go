package main

// The selection profile (spec/selection.md): which output a child agent produced (§3), the fold
// that computes it incrementally (§4), and the result contract of a settled run built on it (§5).
//
// Unknown event types, chunk types, block types and extra members are ignored (§2.6).

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
)

// eventType is the type of the session event at path (§2.1).
func eventType(event any, path string) (*Object, string, error) {
	object, err := requireObject(event, path, expected{"a session event (selection.md §2.1)",
		`Send each event as an object {"type", "seq", "time", "data"}.`})
	if err != nil {
		return nil, "", err
	}
	value, _ := object.Get("type")
	kind, err := requireString(value, path+".type", expected{"the type of a session event (selection.md §2.1)",
		`Give every event a string "type"; unknown types are allowed and ignored (selection.md §2.6).`})
	return object, kind, err
}

// eventData is the data object of a session event.
func eventData(event *Object, path string) (*Object, error) {
	value, _ := event.Get("data")
	return requireObject(value, path+".data", expected{"the data of a session event (selection.md §2.1)",
		`Give the event a "data" object.`})
}

// messageContent is data.message.content of an assistant/message (§2.2).
func messageContent(event *Object, path string) ([]any, error) {
	data, err := eventData(event, path)
	if err != nil {
		return nil, err
	}
	value, _ := data.Get("message")
	message, err := requireObject(value, path+".data.message", expected{"the message of an assistant/message (selection.md §2.2)",
		`Send {"message": {"role": "assistant", "content": [...]}}.`})
	if err != nil {
		return nil, err
	}
	value, _ = message.Get("content")
	return requireList(value, path+".data.message.content", expected{"the content of an assistant message (selection.md §2.2)",
		"Send the content blocks as a list; a usage-only message has []."})
}

// textDeltaText is the text an assistant/chunk streams; ok is false when it is no text delta.
func textDeltaText(event *Object, path string) (text string, ok bool, err error) {
	data, err := eventData(event, path)
	if err != nil {
		return "", false, err
	}
	value, _ := data.Get("chunk")
	chunk, err := requireObject(value, path+".data.chunk", expected{"the chunk of an assistant/chunk (selection.md §2.3)",
		`Send {"chunk": {"type": ..., ...}}.`})
	if err != nil {
		return "", false, err
	}
	value, _ = chunk.Get("type")
	kind, err := requireString(value, path+".data.chunk.type", expected{"the type of a chunk (selection.md §2.3)",
		`Give every chunk a string "type"; unknown chunk types are ignored.`})
	if err != nil || kind != "text-delta" {
		return "", false, err
	}
	value, _ = chunk.Get("text")
	text, err = requireString(value, path+".data.chunk.text", expected{"the text of a text-delta chunk (selection.md §2.3)",
		`Send {"type": "text-delta", "index": <int>, "text": "<string>"}.`})
	return text, err == nil, err
}

// OutputFold is the incremental form of the selection rule (selection.md §4).
type OutputFold struct {
	message []any // the content of the last assistant/message whose content is not empty
	text    []byte
}

// Push folds one session event; path locates it in error messages.
func (f *OutputFold) Push(event any, path string) error {
	object, kind, err := eventType(event, path)
	if err != nil {
		return err
	}
	switch kind {
	case "assistant/message":
		content, err := messageContent(object, path)
		if err != nil {
			return err
		}
		// Content length decides, not the presence of text (§3.1); an empty, usage-only message
		// neither replaces an earlier one nor hides streamed text (§3.2).
		if len(content) > 0 {
			f.message = content
		}
	case "assistant/chunk":
		text, ok, err := textDeltaText(object, path)
		if err != nil {
			return err
		}
		if ok {
			f.text = append(f.text, text...)
		}
	}
	// Tool results, user messages, turns, steps and unknown types never contribute (§3.4).
	return nil
}

// PushText folds raw streamed text, exactly as a text-delta chunk; "" changes nothing (§4.1).
func (f *OutputFold) PushText(value any, path string) error {
	text, err := requireString(value, path, expected{"pushed text (selection.md §4.1)", `Push text as {"text": "<string>"}.`})
	f.text = append(f.text, text...)
	return err
}

// Collect is the selection of everything pushed so far: a non-empty list of blocks, or nil for
// no output (§3). It does not change the fold.
func (f *OutputFold) Collect() []any {
	if f.message != nil {
		return f.message
	}
	if len(f.text) == 0 {
		return nil
	}
	block := NewObject()
	block.Set("type", "text")
	block.Set("text", string(f.text))
	return []any{block}
}

// orNull turns a selection into its JSON value: nil (no output) is null, not [].
func orNull(selection []any) any {
	if selection == nil {
		return nil
	}
	return selection
}

// selectOutput is the batch rule (§3): the fold of the whole log, so the two are one rule (§4.2).
func selectOutput(events []any) ([]any, error) {
	var fold OutputFold
	for index, event := range events {
		if err := fold.Push(event, fmt.Sprintf("$.events[%d]", index)); err != nil {
			return nil, err
		}
	}
	return fold.Collect(), nil
}

// foldResults is the fold op: one collect() before the first push and one after each (§4.1).
func foldResults(pushes []any) ([]any, error) {
	var fold OutputFold
	results := []any{orNull(fold.Collect())}
	for index, push := range pushes {
		path := fmt.Sprintf("$.pushes[%d]", index)
		object, isObject := asObject(push)
		var event, text any
		hasEvent, hasText := false, false
		if isObject {
			event, hasEvent = object.Get("event")
			text, hasText = object.Get("text")
		}
		if hasEvent == hasText {
			return nil, &InvalidInput{Value: push, Path: path, Reason: `is neither {"event": ...} nor {"text": ...} (selection.md §4.1)`,
				Fix: `Send each push as an object with exactly one of the members "event" and "text".`}
		}
		var err error
		if hasEvent {
			err = fold.Push(event, path+".event")
		} else {
			err = fold.PushText(text, path+".text")
		}
		if err != nil {
			return nil, err
		}
		results = append(results, orNull(fold.Collect()))
	}
	return results, nil
}

// -- the result contract of a settled run (§5) ------------------------------------------------
// The account of consumed work, the stop reason of both settlement paths (one-shot and
// continuable), the result returned to the caller, the lifecycle event and, for a one-shot run,
// the delegation tool's result, all built on the one selection.

// oneShotReasons maps the end's kind to the recorded one-shot stop reason (§5.2); every other
// kind, and a log without an end, settles as "error".
var oneShotReasons = map[string]string{
	"completed":  "completed",
	"max-tokens": "max-tokens",
	"aborted":    "aborted",
	"blocked":    "refusal",
}

// continuableReasons maps the end's kind to the continuable stop reason (§5.3); completed and no
// end depend on dropped work, every kind not listed settles as "error".
var continuableReasons = map[string]string{
	"max-tokens":  "max-tokens",
	"aborted":     "aborted",
	"interrupted": "aborted",
	"error":       "error",
	"blocked":     "refusal",
}

// headlines open the tool text of a run that did not complete (§5.6).
var headlines = map[string]string{
	"aborted":    "subagent run was cancelled",
	"error":      "subagent run failed",
	"max-tokens": "subagent run hit its token limit before finishing",
	"refusal":    "subagent declined the task",
}

// turnNumber is data.turn of a turn or step event, as the key of its marks (§5.1): the exact
// integer, so 1 and 1.0 are one turn and no two large integers collide.
func turnNumber(object *Object, path string) (string, error) {
	data, err := eventData(object, path)
	if err != nil {
		return "", err
	}
	value, _ := data.Get("turn")
	if number, ok := value.(json.Number); ok {
		if rat, ok := new(big.Rat).SetString(string(number)); ok && rat.IsInt() {
			return rat.RatString(), nil
		}
	}
	return "", &InvalidInput{Value: value, Path: path + ".data.turn",
		Reason: "is not an integer, but the turn number of a turn or step event must be one (selection.md §6)",
		Fix:    `Send the turn the event belongs to as an integer: {"turn": 1, ...} (selection.md §2.4).`}
}

func turnEndKind(object *Object, path string) (string, error) {
	data, err := eventData(object, path)
	if err != nil {
		return "", err
	}
	value, _ := data.Get("reason")
	reason, err := requireObject(value, path+".data.reason", expected{"the reason of a turn/end (selection.md §2.4)",
		`Send {"turn": <int>, "reason": {"kind": "<string>"}}.`})
	if err != nil {
		return "", err
	}
	value, _ = reason.Get("kind")
	return requireString(value, path+".data.reason.kind", expected{"the kind of a turn/end reason (selection.md §2.4)",
		`Send a string kind such as "completed" or "max-tokens".`})
}

// consumedWork is the account of §5.1: the kind of the end (the last turn/end that accounts for
// work; found is false without one) and whether work was dropped unrun after it. Marks are keyed
// by turn number and removed only by a turn/end of the same number.
func consumedWork(events []any) (endKind string, found bool, droppedUnrun bool, err error) {
	stepped := map[string]bool{}
	claimed := map[string]bool{}
	open, isOpen := "", false
	for index, event := range events {
		path := fmt.Sprintf("$.events[%d]", index)
		object, kind, err := eventType(event, path)
		if err != nil {
			return "", false, false, err
		}
		switch kind {
		case "turn/start":
			if open, err = turnNumber(object, path); err != nil {
				return "", false, false, err
			}
			isOpen = true // a later turn/start replaces the open turn
		case "step/start":
			turn, err := turnNumber(object, path)
			if err != nil {
				return "", false, false, err
			}
			stepped[turn] = true // the step's own turn, open or not
		case "agent/inbox/spliced":
			data, err := eventData(object, path)
			if err != nil {
				return "", false, false, err
			}
			if _, removed := data.Get("removedCount"); !removed {
				continue // an insertion consumes nothing
			}
			if outcome, _ := data.Get("outcome"); outcome == "canceled" {
				value, _ := data.Get("inserted")
				inserted, err := requireList(value, path+".data.inserted", expected{"the inserted messages of a splice (selection.md §2.4)",
					"Send the messages the splice inserted as a list, [] for none."})
				if err != nil {
					return "", false, false, err
				}
				// A replacement keeps the work pending; only a cancellation leaving nothing drops it.
				droppedUnrun = droppedUnrun || len(inserted) == 0
			} else if isOpen {
				claimed[open] = true // a claim outside any turn marks nothing
			}
		case "turn/end":
			turn, err := turnNumber(object, path)
			if err != nil {
				return "", false, false, err
			}
			reason, err := turnEndKind(object, path)
			if err != nil {
				return "", false, false, err
			}
			isOpen = false
			accounts := false
			if stepped[turn] {
				delete(stepped, turn) // a claim mark of the turn stays
				accounts = true
			} else if claimed[turn] {
				delete(claimed, turn)
				accounts = reason != "completed"
			}
			if accounts {
				endKind, found = reason, true
				droppedUnrun = false // drops before this end are its own to report
			}
		}
	}
	return endKind, found, droppedUnrun, nil
}

// oneShotStopReason is §5.2: the recorded stop reason, then the owner's cancellation.
func oneShotStopReason(endKind string, found, cancelled bool) string {
	recorded, ok := oneShotReasons[endKind]
	if !found || !ok {
		recorded = "error"
	}
	if cancelled && recorded != "completed" {
		return "aborted" // a completed run stays completed
	}
	return recorded
}

// continuableStopReason is §5.3: the stop reason of one epoch, read from its log alone.
func continuableStopReason(endKind string, found, droppedUnrun bool) string {
	if !found || endKind == "completed" {
		if droppedUnrun {
			return "aborted"
		}
		return "completed"
	}
	if reason, ok := continuableReasons[endKind]; ok {
		return reason
	}
	return "error"
}

// selectionText is T of §5.6: the text of the selection's text blocks joined with "".
func selectionText(selection []any) (string, error) {
	var text strings.Builder
	for index, block := range selection {
		path := fmt.Sprintf("$.selection[%d]", index)
		object, err := requireObject(block, path, expected{"a content block (selection.md §2.5)", `Send content blocks as objects with a string "type".`})
		if err != nil {
			return "", err
		}
		if kind, _ := object.Get("type"); kind != "text" {
			continue // reasoning, images, tool calls and unknown blocks carry no answer text
		}
		value, _ := object.Get("text")
		piece, err := requireString(value, path+".text", expected{"the text of a text block (selection.md §2.5)", `Send {"type": "text", "text": "<string>"}.`})
		if err != nil {
			return "", err
		}
		text.WriteString(piece)
	}
	return text.String(), nil
}

// delegationToolResult is the tool result of a one-shot run (§5.6); diagnostic is nil when the
// request carries none.
func delegationToolResult(stopReason string, selection []any, diagnostic *string) (*Object, error) {
	text, err := selectionText(selection)
	if err != nil {
		return nil, err
	}
	toolResult := NewObject()
	if stopReason == "completed" {
		toolResult.Set("isError", false)
		toolResult.Set("text", text)
		return toolResult, nil
	}
	// The failure first, then the diagnostic whenever one was given (even ""), then the partial
	// text.
	headline, ok := headlines[stopReason]
	if !ok {
		headline = "subagent run ended abnormally (" + stopReason + ")"
	}
	message := "Error: " + headline
	if diagnostic != nil {
		message += "\nDiagnostic: " + *diagnostic
	}
	if text != "" {
		message += "\nPartial output before the run ended:\n" + text
	}
	toolResult.Set("isError", true)
	toolResult.Set("text", message)
	return toolResult, nil
}

// settleRun is the settle op (§5). continuable selects the path; cancelled and diagnostic are
// read on the one-shot path only (diagnostic is nil when the request carries none).
func settleRun(events []any, continuable, cancelled bool, diagnostic *string) (*Object, error) {
	selection, err := selectOutput(events)
	if err != nil {
		return nil, err
	}
	endKind, found, droppedUnrun, err := consumedWork(events)
	if err != nil {
		return nil, err
	}
	stopReason := oneShotStopReason(endKind, found, cancelled)
	if continuable {
		stopReason = continuableStopReason(endKind, found, droppedUnrun)
	}

	output := selection
	if output == nil {
		output = []any{} // result.output is [] when there is no selection (§5.4)
	}
	result := NewObject()
	result.Set("output", output)
	result.Set("stopReason", stopReason)

	end := NewObject()
	end.Set("stopReason", stopReason)
	if selection != nil { // absent, never [] and never null, without a selection (§5.5)
		end.Set("lastAssistantMessage", selection)
	}

	settled := NewObject()
	settled.Set("result", result)
	settled.Set("end", end)
	if !continuable {
		toolResult, err := delegationToolResult(stopReason, selection, diagnostic)
		if err != nil {
			return nil, err
		}
		settled.Set("toolResult", toolResult)
	}
	return settled, nil
}
