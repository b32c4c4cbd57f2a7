package main

import "fmt"

// InvalidInput is the error for input the spec calls erroneous (selection.md §6, wire.md §4.5,
// §7). The protocol loop answers it `errored`; its message names where the value sits, the value,
// why it is refused and what to send instead.
type InvalidInput struct {
	Value  any    // the offending value, spelled with the answer encoder
	Shown  string // or its spelling, when given
	Path   string
	Reason string
	Fix    string
}

func (e *InvalidInput) Error() string {
	shown := e.Shown
	if shown == "" {
		shown = string(encodeAnswer(e.Value))
	}
	if len(shown) > 120 {
		shown = shown[:117] + "..."
	}
	return fmt.Sprintf("%s: %s %s. %s", e.Path, shown, e.Reason, e.Fix)
}

// Unsupported is the error for a request this port does not handle on purpose: it is answered
// `skipped` (protocol.md §5.3), never `errored`.
type Unsupported struct{ Reason string }

func (e *Unsupported) Error() string { return e.Reason }

// expected describes what a value must be, for the messages of the checked reads below.
type expected struct{ what, fix string }

func requireObject(value any, path string, want expected) (*Object, error) {
	if object, ok := asObject(value); ok {
		return object, nil
	}
	return nil, &InvalidInput{Value: value, Path: path, Reason: "is not a JSON object, but " + want.what + " must be one", Fix: want.fix}
}

func requireList(value any, path string, want expected) ([]any, error) {
	if list, ok := asList(value); ok {
		return list, nil
	}
	return nil, &InvalidInput{Value: value, Path: path, Reason: "is not a JSON array, but " + want.what + " must be one", Fix: want.fix}
}

func requireString(value any, path string, want expected) (string, error) {
	if text, ok := asString(value); ok {
		return text, nil
	}
	return "", &InvalidInput{Value: value, Path: path, Reason: "is not a string, but " + want.what + " must be one", Fix: want.fix}
}

func requireBool(value any, path string, want expected) (bool, error) {
	if flag, ok := value.(bool); ok {
		return flag, nil
	}
	return false, &InvalidInput{Value: value, Path: path, Reason: "is not a boolean, but " + want.what + " must be one", Fix: want.fix}
}
