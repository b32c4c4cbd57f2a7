// Command eventproof-go is a port of eventproof's selection and wire operations to Go, with the
// standard library only, behind subprocess protocol version 1 (spec/protocol.md): one JSON
// request per line on stdin, one JSON answer per line on stdout, diagnostics on stderr.
//
//	go build -o eventproof-go . && eventproof run --impl ./eventproof-go
//	./eventproof-go --fit=maximal      (or EVENTPROOF_GO_FIT=maximal; the flag wins)
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

const (
	protocolVersion = 1
	programName     = "eventproof-go-example"
)

var ops = []string{"select", "fold", "settle", "classify", "project"}

// chosenFitStrategy is the fit strategy named by --fit=… (which wins) or EVENTPROOF_GO_FIT.
func chosenFitStrategy(args []string) (string, error) {
	choice := os.Getenv("EVENTPROOF_GO_FIT")
	if choice == "" {
		choice = "halving"
	}
	for _, arg := range args {
		if strings.HasPrefix(arg, "--fit=") {
			choice = strings.TrimPrefix(arg, "--fit=")
		}
	}
	for _, known := range fitStrategies {
		if choice == known {
			return choice, nil
		}
	}
	return "", fmt.Errorf("fit strategy %q (from --fit= or EVENTPROOF_GO_FIT) is not one of %s; pass --fit=halving or --fit=maximal",
		choice, strings.Join(fitStrategies, ", "))
}

// handshake answers the start request (§4.2). loneSurrogates: false tells the harness not to send
// strings holding an unpaired surrogate, which a Go string cannot hold (surrogates.go).
func handshake(fitStrategy string) *Object {
	implementation := NewObject()
	implementation.Set("name", programName)
	implementation.Set("language", "go")
	implementation.Set("version", "0.1.0")
	declared := make([]any, len(ops))
	for index, op := range ops {
		declared[index] = op
	}
	capabilities := NewObject()
	capabilities.Set("ops", declared)
	capabilities.Set("fitStrategy", fitStrategy)
	capabilities.Set("variableMaxBytes", true)
	capabilities.Set("loneSurrogates", false)
	answer := NewObject()
	answer.Set("version", protocolVersion)
	answer.Set("implementation", implementation)
	answer.Set("capabilities", capabilities)
	return answer
}

func member(object *Object, name string) any {
	value, _ := object.Get(name)
	return value
}

// runOp answers one operation (§5.5).
func runOp(op string, input any, fitStrategy string) (any, error) {
	request, err := requireObject(input, "$", expected{"an operation input", "Send the input object of op-" + op + ".json."})
	if err != nil {
		return nil, err
	}
	log := expected{"the session log (selection.md §7)", "Send the events as a list."}
	switch op {
	case "select":
		events, err := requireList(member(request, "events"), "$.events", log)
		if err != nil {
			return nil, err
		}
		selection, err := selectOutput(events)
		return orNull(selection), err
	case "fold":
		pushes, err := requireList(member(request, "pushes"), "$.pushes", expected{"the pushes (selection.md §7)",
			`Send {"pushes": [{"event": ...} or {"text": "..."}, ...]}.`})
		if err != nil {
			return nil, err
		}
		return foldResults(pushes)
	case "settle":
		events, err := requireList(member(request, "events"), "$.events", log)
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
	case "classify":
		return classifyEvent(member(request, "event"))
	case "project":
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
	return nil, &InvalidInput{Value: op, Path: "$.op", Reason: "is not an operation of this port", Fix: "Use one of " + strings.Join(ops, ", ") + "."}
}

// answerRun answers one run request with output, skipped or errored (§5).
func answerRun(request *Object, line []byte, fitStrategy string) *Object {
	answer := NewObject()
	answer.Set("seq", member(request, "seq")) // echoed as its literal
	op, _ := asString(member(request, "op"))
	var output any
	err := error(nil)
	if escape := loneSurrogate(line); escape != "" && op != "classify" && op != "project" {
		err = &Unsupported{Reason: fmt.Sprintf("the input holds the unpaired surrogate %s, which a Go string cannot hold "+
			"(encoding/json reads it as U+FFFD), and %s returns strings unchanged; this port declares loneSurrogates: false", escape, op)}
	} else {
		output, err = runOp(op, member(request, "input"), fitStrategy)
	}
	var invalid *InvalidInput
	var unsupported *Unsupported
	switch {
	case err == nil:
		answer.Set("output", output)
	case errors.As(err, &unsupported):
		skipped := NewObject()
		skipped.Set("reason", unsupported.Reason)
		answer.Set("skipped", skipped)
	default:
		if !errors.As(err, &invalid) {
			fmt.Fprintf(os.Stderr, "%s: request %s failed: %v\n", programName, encodeAnswer(member(request, "seq")), err)
		}
		errored := NewObject()
		errored.Set("message", err.Error())
		answer.Set("errored", errored)
	}
	return answer
}

// answerLine is the answer to one request line, or nil when it needs none; stop is true for a
// stop request.
func answerLine(line []byte, fitStrategy string) (answer *Object, stop bool) {
	value, err := decodeLine(line)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: ignoring a line that is not one JSON value (%v)\n", programName, err)
		return nil, false
	}
	request, ok := asObject(value)
	if !ok {
		fmt.Fprintf(os.Stderr, "%s: ignoring a request that is not a JSON object\n", programName)
		return nil, false
	}
	switch member(request, "cmd") {
	case "stop":
		return nil, true
	case "start":
		if version, ok := integerOf(member(request, "version")); !ok || version != protocolVersion {
			refusal := NewObject()
			refusal.Set("version", protocolVersion)
			refusal.Set("error", fmt.Sprintf("this program speaks protocol version %d, not %s", protocolVersion, encodeAnswer(member(request, "version"))))
			return refusal, false
		}
		return handshake(fitStrategy), false
	case "run":
		defer func() {
			// A bug of the port answers errored for this request instead of ending the program.
			if problem := recover(); problem != nil {
				errored := NewObject()
				errored.Set("message", fmt.Sprintf("internal error: %v", problem))
				answer = NewObject()
				answer.Set("seq", member(request, "seq"))
				answer.Set("errored", errored)
			}
		}()
		return answerRun(request, line, fitStrategy), false
	}
	fmt.Fprintf(os.Stderr, "%s: unknown command %s; expected start, run or stop\n", programName, encodeAnswer(member(request, "cmd")))
	return nil, false
}

func main() {
	// Read whole lines of any length: bufio.Scanner stops at 64 KiB by default ("token too
	// long"), and project requests are larger than maxBytes (protocol.md §2.3).
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	fitStrategy, err := chosenFitStrategy(os.Args[1:])
	for {
		line, readErr := in.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			var answer *Object
			stop := false
			if err != nil { // a configuration that cannot start: refuse the handshake (§4.3)
				answer = NewObject()
				answer.Set("version", protocolVersion)
				answer.Set("error", err.Error())
				fmt.Fprintf(os.Stderr, "%s: %v\n", programName, err)
			} else {
				answer, stop = answerLine(line, fitStrategy)
			}
			if stop {
				return // no answer to a stop request; exit 0 (§6)
			}
			if answer != nil {
				out.Write(encodeAnswer(answer))
				out.WriteByte('\n')
				// The harness waits for this line: a buffered answer is an answer never given.
				if flushErr := out.Flush(); flushErr != nil {
					os.Exit(1)
				}
			}
			if err != nil {
				os.Exit(2)
			}
		}
		if readErr == io.EOF {
			return // the end of input means stop as well (§6)
		}
		if readErr != nil {
			fmt.Fprintf(os.Stderr, "%s: reading stdin: %v\n", programName, readErr)
			os.Exit(1)
		}
	}
}
