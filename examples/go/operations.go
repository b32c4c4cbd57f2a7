package main

// The operation table (selection.md §7, wire.md §8, budget.md §10): each operation reads one
// request's input and answers one JSON value. Erroneous input is an *InvalidInput, which the
// protocol loop answers `errored`. To port your own code, replace the calls in operations.

import "strings"

// operation is one entry of the table. echoes is true for an operation that returns strings of
// its input unchanged: a Go string cannot hold an unpaired surrogate, so such an operation skips
// a request holding one (surrogates.go). The others make every string well-formed, as the
// decoder already did.
type operation struct {
	name   string
	echoes bool
	run    func(request *Object, fitStrategy string) (any, error)
}

// operations is the table, in the order the handshake declares the operations.
var operations = []operation{
	{"select", true, selectOp},
	{"fold", true, foldOp},
	{"settle", true, settleOp},
	{"classify", false, func(request *Object, _ string) (any, error) { return classifyEvent(member(request, "event")) }},
	{"project", false, projectOp},
	{"details", false, func(request *Object, _ string) (any, error) { return finalDetails(request) }},
	{"roster", false, func(request *Object, _ string) (any, error) { return liveRoster(request) }},
	{"lane", true, func(request *Object, _ string) (any, error) { return mergeLane(request) }},
	{"publish", true, func(request *Object, _ string) (any, error) { return publishSchedule(request) }},
}

func lookup(op string) (operation, bool) {
	for _, entry := range operations {
		if entry.name == op {
			return entry, true
		}
	}
	return operation{}, false
}

// echoesStrings reports whether op returns strings of its input unchanged.
func echoesStrings(op string) bool {
	entry, ok := lookup(op)
	return ok && entry.echoes
}

// runOp answers one operation (protocol.md §5.5).
func runOp(op string, input any, fitStrategy string) (any, error) {
	entry, ok := lookup(op)
	if !ok {
		names := make([]string, len(operations))
		for index, known := range operations {
			names[index] = known.name
		}
		return nil, &InvalidInput{Value: op, Path: "$.op", Reason: "is not an operation of this port", Fix: "Use one of " + strings.Join(names, ", ") + "."}
	}
	request, err := requireObject(input, "$", expected{"an operation input", "Send the input object of op-" + op + ".json."})
	if err != nil {
		return nil, err
	}
	return entry.run(request, fitStrategy)
}

func member(object *Object, name string) any {
	value, _ := object.Get(name)
	return value
}

var sessionLog = expected{"the session log (selection.md §7)", "Send the events as a list."}

func selectOp(request *Object, _ string) (any, error) {
	events, err := requireList(member(request, "events"), "$.events", sessionLog)
	if err != nil {
		return nil, err
	}
	selection, err := selectOutput(events)
	return orNull(selection), err
}

func foldOp(request *Object, _ string) (any, error) {
	pushes, err := requireList(member(request, "pushes"), "$.pushes", expected{"the pushes (selection.md §7)",
		`Send {"pushes": [{"event": ...} or {"text": "..."}, ...]}.`})
	if err != nil {
		return nil, err
	}
	return foldResults(pushes)
}

func settleOp(request *Object, _ string) (any, error) {
	events, err := requireList(member(request, "events"), "$.events", sessionLog)
	if err != nil {
		return nil, err
	}
	mode, hasMode := request.Get("mode")
	if !hasMode {
		mode = "one-shot"
	}
	if mode != "one-shot" && mode != "continuable" {
		return nil, &InvalidInput{Value: mode, Path: "$.mode",
			Reason: `is not a settlement path; it must be "one-shot" or "continuable" (selection.md §7)`,
			Fix:    `Send "mode": "one-shot" (or leave it out) for a one-shot run, "mode": "continuable" for one epoch of a continuable activation.`}
	}
	if mode == "continuable" {
		// A continuable epoch has no cancellation flag and no tool result: its log records both.
		for _, name := range []string{"cancelled", "diagnostic"} {
			if value, ok := request.Get(name); ok {
				return nil, &InvalidInput{Value: value, Path: "$." + name,
					Reason: "is a one-shot member; a continuable epoch has no cancellation flag and no delegation tool result (selection.md §5.3, §7)",
					Fix:    `Leave "` + name + `" out with "mode": "continuable", or settle the run as one-shot.`}
			}
		}
		return settleRun(events, true, false, nil)
	}
	cancelled, err := requireBool(member(request, "cancelled"), "$.cancelled", expected{"cancelled (selection.md §7)", "Send true or false."})
	if err != nil {
		return nil, err
	}
	var diagnostic *string
	if value, ok := request.Get("diagnostic"); ok {
		text, err := requireString(value, "$.diagnostic", expected{"the diagnostic (selection.md §7)", "Send the diagnostic as a string, or leave it out."})
		if err != nil {
			return nil, err
		}
		diagnostic = &text
	}
	return settleRun(events, false, cancelled, diagnostic)
}

func projectOp(request *Object, fitStrategy string) (any, error) {
	maxBytes, err := requireMaxBytes(member(request, "maxBytes"))
	if err != nil {
		return nil, err
	}
	includeLiveEvents, err := requireBool(member(request, "includeLiveEvents"), "$.includeLiveEvents",
		expected{"includeLiveEvents (wire.md §8)", "Send true or false."})
	if err != nil {
		return nil, err
	}
	line, ok, err := projectEvent(member(request, "event"), includeLiveEvents, maxBytes, fitStrategy)
	if err != nil || !ok {
		return nil, err
	}
	answer := NewObject()
	answer.Set("line", line)
	return answer, nil
}
