package main

// The result contract of a settled run (spec/selection.md §5): the account of consumed work, the
// stop reason of both settlement paths (one-shot and continuable), the result returned to the
// caller, the lifecycle event and, for a one-shot run, the delegation tool's result, all built on
// the one selection.
//
// Kept in a file of its own: this is the part of the profile most likely to change between spec
// versions, and no other operation depends on it.

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
)

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
