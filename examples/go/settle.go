package main

// The result contract of a settled run (spec/selection.md §5): the result returned to the caller,
// the lifecycle event and the delegation tool's result, all three built on the one selection.
//
// Kept in a file of its own: this is the part of the profile most likely to change between spec
// versions, and no other operation depends on it.

import (
	"fmt"
	"strings"
)

// stopReasons maps the kind of the last turn/end to a stop reason (§5.1); every other kind, and a
// log without a turn/end, settles as "error".
var stopReasons = map[string]string{
	"completed":  "completed",
	"max-tokens": "max-tokens",
	"aborted":    "aborted",
	"blocked":    "refusal",
}

// headlines open the tool text of a run that did not complete (§5.5).
var headlines = map[string]string{
	"aborted":    "subagent run was cancelled",
	"error":      "subagent run failed",
	"max-tokens": "subagent run hit its token limit before finishing",
	"refusal":    "subagent declined the task",
}

// stopReasonOf is the stop reason of §5.1, from the kind of the last turn/end.
func stopReasonOf(events []any) (string, error) {
	kind, found := "", false
	for index, event := range events {
		path := fmt.Sprintf("$.events[%d]", index)
		object, eventKind, err := eventType(event, path)
		if err != nil {
			return "", err
		}
		if eventKind != "turn/end" {
			continue
		}
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
		if kind, err = requireString(value, path+".data.reason.kind", expected{"the kind of a turn/end reason (selection.md §2.4)",
			`Send a string kind such as "completed" or "max-tokens".`}); err != nil {
			return "", err
		}
		found = true
	}
	if reason, ok := stopReasons[kind]; found && ok {
		return reason, nil
	}
	return "error", nil
}

// selectionText is T of §5.5: the text of the selection's text blocks joined with "".
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

// settleRun is the settle op (§5). diagnostic is nil when the request carries none.
func settleRun(events []any, cancelled bool, diagnostic *string) (*Object, error) {
	selection, err := selectOutput(events)
	if err != nil {
		return nil, err
	}
	stopReason, err := stopReasonOf(events)
	if err != nil {
		return nil, err
	}
	// A cancelled run that did not complete was aborted; a completed one stays completed (§5.2).
	if cancelled && stopReason != "completed" {
		stopReason = "aborted"
	}
	text, err := selectionText(selection)
	if err != nil {
		return nil, err
	}

	output := selection
	if output == nil {
		output = []any{} // result.output is [] when there is no selection (§5.3)
	}
	result := NewObject()
	result.Set("output", output)
	result.Set("stopReason", stopReason)

	end := NewObject()
	end.Set("stopReason", stopReason)
	if selection != nil { // absent, never [] and never null, without a selection (§5.4)
		end.Set("lastAssistantMessage", selection)
	}

	toolResult := NewObject()
	if stopReason == "completed" {
		toolResult.Set("isError", false)
		toolResult.Set("text", text)
	} else {
		// The failure first, then the evidence, then what the parent can still use (§5.5).
		headline, ok := headlines[stopReason]
		if !ok {
			headline = "subagent run ended abnormally (" + stopReason + ")"
		}
		message := "Error: " + headline
		if diagnostic != nil && *diagnostic != "" {
			message += "\nDiagnostic: " + *diagnostic
		}
		if text != "" {
			message += "\nPartial output before the run ended:\n" + text
		}
		toolResult.Set("isError", true)
		toolResult.Set("text", message)
	}

	settled := NewObject()
	settled.Set("result", result)
	settled.Set("end", end)
	settled.Set("toolResult", toolResult)
	return settled, nil
}
