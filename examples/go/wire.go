package main

// The wire profile (spec/wire.md): classification (§3), projection to a canonical line (§4, §6,
// §7) and the backstop that bounds an oversized tool_execution_update (§5).

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

const (
	marker           = "[live output truncated]\n" // placed before the kept tail (§5.3)
	idClipCodePoints = 256                         // ids keep their first 256 code points (§5.4)
	minMaxBytes      = 3215                        // 143 + 2 ids × 256 code points × 6 bytes (§5.6)
	defaultMaxBytes  = 262144
)

// fitStrategies are the two ways the backstop chooses its tail (§5.5).
var fitStrategies = []string{"halving", "maximal"}

// requireEvent reads an agent event: an object with a string type (§2.1).
func requireEvent(value any) (*Object, string, error) {
	event, err := requireObject(value, "$.event", expected{"an agent event (wire.md §2.1)", "Send the event as schemas/agent-event.json describes."})
	if err != nil {
		return nil, "", err
	}
	kind, _ := event.Get("type")
	text, err := requireString(kind, "$.event.type", expected{"the type of an agent event (wire.md §2.1)",
		`Give every agent event a string "type"; unknown types are facts (wire.md §2.5).`})
	return event, text, err
}

// isFrame: message_update and tool_execution_update are frames, every other type a fact (§3).
// The comparison is on the exact string.
func isFrame(kind string) bool { return kind == "message_update" || kind == "tool_execution_update" }

func classifyEvent(value any) (string, error) {
	_, kind, err := requireEvent(value)
	if err != nil {
		return "", err
	}
	if isFrame(kind) {
		return "frame", nil
	}
	return "fact", nil
}

// toolCallFields are the id and name of the tool call a toolcall_start announces (§4.3, §4.5).
func toolCallFields(source *Object) (id, name string, err error) {
	const base = "$.event.assistantMessageEvent"
	value, _ := source.Get("partial")
	partial, err := requireObject(value, base+".partial", expected{"the partial message of a toolcall_start (wire.md §2.4)", "Send the cumulative assistant message as partial."})
	if err != nil {
		return "", "", err
	}
	value, _ = partial.Get("content")
	content, err := requireList(value, base+".partial.content", expected{"the content of the partial message (wire.md §2.3)", "Send the content blocks as a list."})
	if err != nil {
		return "", "", err
	}
	// content[contentIndex] as JavaScript reads it: an absent, negative or fractional index, or
	// one past the end, finds no block. 1.0 is the integer 1 (wire.md §1).
	indexValue, _ := source.Get("contentIndex")
	index, ok := integerOf(indexValue)
	if !ok || index < 0 || index >= int64(len(content)) {
		return "", "", &InvalidInput{Value: indexValue, Path: base + ".contentIndex",
			Reason: fmt.Sprintf("points at no block of partial.content (it has %d): a toolcall_start must announce a tool call that exists (wire.md §4.5)", len(content)),
			Fix:    "Send the index of the toolCall block this toolcall_start opens."}
	}
	at := fmt.Sprintf("%s.partial.content[%d]", base, index)
	block, isObject := asObject(content[index])
	if kind, _ := block.getIf(isObject, "type"); !isObject || kind != "toolCall" {
		return "", "", &InvalidInput{Value: content[index], Path: at,
			Reason: "is not a toolCall block: a toolcall_start must announce a tool call (wire.md §4.5)",
			Fix:    "Point contentIndex at the toolCall block, or send another event type."}
	}
	value, _ = block.Get("id")
	if id, err = requireString(value, at+".id", expected{"a tool call's id", "Send the id as a string."}); err != nil {
		return "", "", err
	}
	value, _ = block.Get("name")
	name, err = requireString(value, at+".name", expected{"a tool call's name", "Send the name as a string."})
	return id, name, err
}

// getIf reads a member of an object that may not be one.
func (o *Object) getIf(ok bool, name string) (any, bool) {
	if !ok {
		return nil, false
	}
	return o.Get(name)
}

// projectMessageUpdate is {type, usage?, assistantMessageEvent without partial} (§4.3).
func projectMessageUpdate(event *Object) (*Object, error) {
	value, _ := event.Get("message")
	message, err := requireObject(value, "$.event.message", expected{"the message of a message_update (wire.md §2.2)", `Send {"role": "assistant", "content": [...]} as message.`})
	if err != nil {
		return nil, err
	}
	value, _ = message.Get("role")
	role, err := requireString(value, "$.event.message.role", expected{"a message's role (wire.md §2.3)", "Send the role as a string."})
	if err != nil {
		return nil, err
	}
	if role != "assistant" {
		return nil, &InvalidInput{Value: role, Path: "$.event.message.role",
			Reason: "is not 'assistant': a message_update streams an assistant message, so this event is erroneous (wire.md §4.5)",
			Fix:    "Send message_update only for assistant messages."}
	}
	value, _ = event.Get("assistantMessageEvent")
	source, err := requireObject(value, "$.event.assistantMessageEvent", expected{"the assistantMessageEvent of a message_update (wire.md §2.4)",
		"Send the streaming step as schemas/assistant-message-event.json describes."})
	if err != nil {
		return nil, err
	}
	ame := NewObject() // every member but the cumulative snapshot, in the event's own order
	for _, name := range source.Keys() {
		if name != "partial" {
			item, _ := source.Get(name)
			ame.Set(name, item)
		}
	}
	if kind, _ := source.Get("type"); kind == "toolcall_start" {
		id, name, err := toolCallFields(source)
		if err != nil {
			return nil, err
		}
		// Object spread: an existing id or toolName keeps its position and takes the new value;
		// otherwise id, then toolName, are appended. Object.Set does exactly that.
		ame.Set("id", id)
		ame.Set("toolName", name)
	}
	projected := NewObject()
	projected.Set("type", "message_update")
	if usage, ok := message.Get("usage"); ok {
		projected.Set("usage", usage)
	}
	projected.Set("assistantMessageEvent", ame)
	return projected, nil
}

// projectValue is the value an event is written as, before the backstop (§4.2-§4.4).
func projectValue(event *Object, kind string) (any, error) {
	switch kind {
	case "message_update":
		return projectMessageUpdate(event)
	case "turn_end":
		value, _ := event.Get("message")
		message, err := requireObject(value, "$.event.message", expected{"the message of a turn_end (wire.md §2.2)", "Send the turn's assistant message."})
		if err != nil {
			return nil, err
		}
		value, _ = message.Get("role")
		role, err := requireString(value, "$.event.message.role", expected{"a message's role (wire.md §2.3)", "Send the role as a string."})
		if err != nil {
			return nil, err
		}
		value, _ = event.Get("toolResults")
		results, err := requireList(value, "$.event.toolResults", expected{"the tool results of a turn_end (wire.md §2.2)", "Send the tool result messages as a list."})
		if err != nil {
			return nil, err
		}
		projected := NewObject()
		projected.Set("type", kind)
		projected.Set("messageRole", role)
		projected.Set("toolResultCount", len(results))
		return projected, nil
	case "agent_end":
		willRetry := false
		if value, ok := event.Get("willRetry"); ok {
			flag, err := requireBool(value, "$.event.willRetry", expected{"willRetry (wire.md §2.2)", "Send true or false, or leave willRetry out (it then reads as false)."})
			if err != nil {
				return nil, err
			}
			willRetry = flag
		}
		value, _ := event.Get("messages")
		messages, err := requireList(value, "$.event.messages", expected{"the messages of an agent_end (wire.md §2.2)", "Send the run's messages as a list."})
		if err != nil {
			return nil, err
		}
		projected := NewObject()
		projected.Set("type", kind)
		projected.Set("willRetry", willRetry)
		projected.Set("messageCount", len(messages))
		return projected, nil
	}
	// Every other fact, and an opted-in tool_execution_update, is written as it is (§4.2).
	return event, nil
}

// refuseUncarriedNumbers refuses the numbers the projected value would carry but a line cannot
// (§7): a message_update's usage and assistantMessageEvent (partial aside); the whole event for
// every type but turn_end and agent_end, an update's args included even when bounding drops them.
func refuseUncarriedNumbers(event *Object, kind string) error {
	switch kind {
	case "turn_end", "agent_end":
		return nil // strings, counts and a boolean only (§4.4)
	case "message_update":
		value, _ := event.Get("message")
		message, _ := asObject(value)
		if usage, ok := message.Get("usage"); ok {
			if err := refuseUncarriable(usage, "$.event.message.usage"); err != nil {
				return err
			}
		}
		value, _ = event.Get("assistantMessageEvent")
		source, _ := asObject(value)
		for _, name := range source.Keys() {
			if name == "partial" {
				continue
			}
			item, _ := source.Get(name)
			if err := refuseUncarriable(item, memberPath("$.event.assistantMessageEvent", name)); err != nil {
				return err
			}
		}
		return nil
	}
	return refuseUncarriable(event, "$.event")
}

// extractText is the text a bounded update keeps a tail of (§5.3). Its strings are well-formed
// already, each on its own (surrogates.go), so joining them cannot pair two halves.
func extractText(partialResult any) string {
	if text, ok := asString(partialResult); ok {
		return text
	}
	object, ok := asObject(partialResult)
	if !ok {
		return ""
	}
	value, _ := object.Get("content")
	content, ok := asList(value)
	if !ok {
		return ""
	}
	var text strings.Builder
	for _, item := range content {
		block, ok := asObject(item)
		if !ok {
			continue
		}
		if kind, _ := block.Get("type"); kind != "text" {
			continue
		}
		if piece, ok := block.Get("text"); ok {
			if piece, ok := asString(piece); ok {
				text.WriteString(piece)
			}
		}
	}
	return text.String()
}

// clip is the first 256 code points of an id (§5.4); ranging over a string counts code points.
func clip(id string) string {
	count := 0
	for offset := range id {
		if count == idClipCodePoints {
			return id[:offset]
		}
		count++
	}
	return id
}

// boundedLine is candidate(k) of §5.5: the exact bounded form (§5.2) with the given tail.
func boundedLine(toolCallID, toolName, tail string) string {
	text := NewObject()
	text.Set("type", "text")
	text.Set("text", marker+tail)
	partialResult := NewObject()
	partialResult.Set("content", []any{text})
	bounded := NewObject()
	bounded.Set("type", "tool_execution_update")
	bounded.Set("toolCallId", toolCallID)
	bounded.Set("toolName", toolName)
	bounded.Set("partialResult", partialResult)
	return canonicalLine(bounded)
}

// boundLiveUpdate is the bounded form of an oversized update under a fit strategy (§5.2-§5.5).
func boundLiveUpdate(event *Object, maxBytes int64, fitStrategy string) (string, error) {
	value, _ := event.Get("toolCallId")
	toolCallID, err := requireString(value, "$.event.toolCallId", expected{"toolCallId (wire.md §5.4)", "Send toolCallId as a string."})
	if err != nil {
		return "", err
	}
	value, _ = event.Get("toolName")
	toolName, err := requireString(value, "$.event.toolName", expected{"toolName (wire.md §5.4)", "Send toolName as a string."})
	if err != nil {
		return "", err
	}
	toolCallID, toolName = clip(toolCallID), clip(toolName)
	partialResult, _ := event.Get("partialResult")
	codePoints := []rune(extractText(partialResult)) // code points, never bytes or UTF-16 units
	n := len(codePoints)
	// The last k code points; k = 0 is the empty tail, never the whole text.
	tail := func(k int) string { return string(codePoints[n-k:]) }

	if fitStrategy == "maximal" {
		// One serialization: the empty-tail line, which always fits (§5.6), then code point
		// costs added from the end while they fit the bytes left; the size of candidate(k) is
		// that of candidate(0) plus the escaped cost of its tail.
		room := maxBytes - int64(len(boundedLine(toolCallID, toolName, "")))
		k := 0
		for k < n {
			cost := int64(escapedCost(codePoints[n-k-1]))
			if cost > room {
				break
			}
			room -= cost
			k++
		}
		return boundedLine(toolCallID, toolName, tail(k)), nil
	}
	// halving: k = N, ⌊N/2⌋, ⌊N/4⌋, …, 1, 0, the first that fits; k = 0 always fits (§5.6).
	k := n
	line := boundedLine(toolCallID, toolName, tail(k))
	for int64(len(line)) > maxBytes {
		k /= 2
		line = boundedLine(toolCallID, toolName, tail(k))
	}
	return line, nil
}

// requireMaxBytes reads maxBytes: an integer of at least 3215 (§5.6, §7). A bound past what
// an int64 holds (JSON allows any integer, 2^64 or 1e19) is kept as the largest int64: no line
// comes near either, so both bound nothing.
func requireMaxBytes(value any) (int64, error) {
	if number, isNumber := value.(json.Number); isNumber {
		f := numberValue(number)
		if !math.IsInf(f, 0) && f == math.Trunc(f) && f > 1<<62 {
			return math.MaxInt64, nil
		}
	}
	maxBytes, ok := integerOf(value)
	if !ok || maxBytes < minMaxBytes {
		return 0, &InvalidInput{Value: value, Path: "$.maxBytes",
			Reason: fmt.Sprintf("is not an integer of at least %d, the smallest bound the empty tail always fits (wire.md §5.6)", minMaxBytes),
			Fix:    fmt.Sprintf("Send an integer maxBytes >= %d (the default is %d).", minMaxBytes, defaultMaxBytes)}
	}
	return maxBytes, nil
}

// projectEvent is the canonical line an event is written as; ok is false when it is not
// written (§4-§7). An erroneous event (§4.5) and an uncarriable number (§7) are errors.
func projectEvent(value any, includeLiveEvents bool, maxBytes int64, fitStrategy string) (line string, ok bool, err error) {
	event, kind, err := requireEvent(value)
	if err != nil {
		return "", false, err
	}
	// The opt-in is decided first: a frame nobody asked for is never looked at further (§4.1).
	if isFrame(kind) && !includeLiveEvents {
		return "", false, nil
	}
	projected, err := projectValue(event, kind)
	if err != nil {
		return "", false, err
	}
	if err := refuseUncarriedNumbers(event, kind); err != nil {
		return "", false, err
	}
	line = canonicalLine(projected)
	// The backstop applies to tool_execution_update only, and only over the bound (§5.1); the
	// size is the line's UTF-8 bytes, which is len() of a Go string.
	if kind == "tool_execution_update" && int64(len(line)) > maxBytes {
		line, err = boundLiveUpdate(event, maxBytes, fitStrategy)
	}
	return line, err == nil, err
}
