package main

// The selection profile (spec/selection.md §3-4): which output a child agent produced, and the
// fold that computes it incrementally. settle.go builds the result contract (§5) on it.
//
// Unknown event types, chunk types, block types and extra members are ignored (§2.6).

import "fmt"

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
