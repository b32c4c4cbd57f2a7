// Command eventproof-port is a port of every operation of eventproof's three profiles to Go, with
// the standard library only, behind subprocess protocol version 1 (spec/protocol.md): one JSON
// request per line on stdin, one JSON answer per line on stdout, diagnostics on stderr.
//
//	go build -o eventproof-port . && eventproof run --impl ./eventproof-port
//	./eventproof-port --fit=maximal      (or EVENTPROOF_GO_FIT=maximal; the flag wins)
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
	declared := make([]any, len(operations))
	for index, entry := range operations {
		declared[index] = entry.name
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

// answerRun answers one run request with output, skipped or errored (§5).
func answerRun(request *Object, line []byte, fitStrategy string) *Object {
	answer := NewObject()
	answer.Set("seq", member(request, "seq")) // echoed as its literal
	op, _ := asString(member(request, "op"))
	var output any
	err := error(nil)
	if escape := loneSurrogate(line); escape != "" && echoesStrings(op) {
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
