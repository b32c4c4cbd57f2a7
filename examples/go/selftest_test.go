package main

// The port's self-test: hand-written requests of every operation and their expected answers,
// taken from the worked examples of the spec.
//
//	go test ./...

import (
	"fmt"
	"strings"
	"testing"
)

// answer runs one operation on an input given as JSON text and returns the answer as the JSON
// text the protocol loop would write, or the error message.
func answer(t *testing.T, op, input, fitStrategy string) string {
	t.Helper()
	value, err := decodeLine([]byte(input))
	if err != nil {
		t.Fatalf("the test's input is not JSON: %v", err)
	}
	output, err := runOp(op, value, fitStrategy)
	if err != nil {
		return "error: " + err.Error()
	}
	return string(encodeAnswer(output))
}

func expect(t *testing.T, op, input, want string) {
	t.Helper()
	if got := answer(t, op, input, "halving"); got != want {
		t.Errorf("%s %s\n got: %s\nwant: %s", op, input, got, want)
	}
}

func TestSelection(t *testing.T) {
	message := func(content string) string {
		return `{"type":"assistant/message","seq":0,"time":"t","data":{"message":{"role":"assistant","content":` + content + `}}}`
	}
	delta := func(text string) string {
		return `{"type":"assistant/chunk","seq":0,"time":"t","data":{"chunk":{"type":"text-delta","index":0,"text":"` + text + `"}}}`
	}
	// selection.md §3.2: an empty terminal message never hides the last non-empty one, nor text.
	expect(t, "select", `{"events":[`+message(`[{"type":"text","text":"answer"}]`)+`,`+message(`[]`)+`]}`, `[{"type":"text","text":"answer"}]`)
	expect(t, "select", `{"events":[`+delta("par")+`,`+delta("tial")+`,`+message(`[]`)+`]}`, `[{"type":"text","text":"partial"}]`)
	expect(t, "select", `{"events":[]}`, `null`)
	// selection.md §4.1: one collect before the first push and one after each.
	expect(t, "fold", `{"pushes":[{"text":""},{"event":`+delta("a")+`},{"text":"b"}]}`, `[null,null,[{"type":"text","text":"a"}],[{"type":"text","text":"ab"}]]`)
	// selection.md §5: max-tokens keeps its stop reason and hands the partial text on.
	events := `[{"type":"turn/start","seq":0,"time":"t","data":{"turn":1}},{"type":"step/start","seq":1,"time":"t","data":{"turn":1,"step":0}},` +
		delta("half") + `,{"type":"turn/end","seq":3,"time":"t","data":{"turn":1,"reason":{"kind":"max-tokens"}}}]`
	expect(t, "settle", `{"events":`+events+`,"cancelled":false}`,
		`{"result":{"output":[{"type":"text","text":"half"}],"stopReason":"max-tokens"},"end":{"stopReason":"max-tokens","lastAssistantMessage":[{"type":"text","text":"half"}]},`+
			`"toolResult":{"isError":true,"text":"Error: subagent run hit its token limit before finishing\nPartial output before the run ended:\nhalf"}}`)
	if got := answer(t, "settle", `{"events":[]}`, "halving"); !strings.Contains(got, "$.cancelled") {
		t.Errorf("a one-shot settle without cancelled is answered %s", got)
	}
}

func TestWire(t *testing.T) {
	expect(t, "classify", `{"event":{"type":"tool_execution_update"}}`, `"frame"`)
	expect(t, "classify", `{"event":{"type":"something_new"}}`, `"fact"`)
	expect(t, "project", `{"event":{"type":"message_update"},"includeLiveEvents":false,"maxBytes":4096}`, `null`)
	expect(t, "project", `{"event":{"type":"mystery","b":30.0,"10":-0,"2":1e-7,"big":1e21},"includeLiveEvents":false,"maxBytes":4096}`,
		`{"line":"{\"2\":1e-7,\"10\":0,\"type\":\"mystery\",\"b\":30,\"big\":1e+21}"}`)
	// wire.md §5.5: 600 lines bounded to 4096 bytes by halving and by maximal.
	var lines strings.Builder
	for i := 1; i <= 600; i++ {
		fmt.Fprintf(&lines, `line %04d\n`, i)
	}
	event := `{"event":{"type":"tool_execution_update","toolCallId":"call_01","toolName":"bash","args":{"command":"make test"},` +
		`"partialResult":{"content":[{"type":"text","text":"` + lines.String() + `"}],"details":{"exitCode":null}}},"includeLiveEvents":true,"maxBytes":4096}`
	for fitStrategy, first := range map[string]int{"halving": 301, "maximal": 243} {
		value, _ := decodeLine([]byte(event))
		output, err := runOp("project", value, fitStrategy)
		if err != nil {
			t.Fatalf("%s: %v", fitStrategy, err)
		}
		line, _ := output.(*Object).Get("line")
		text := line.(string)
		if len(text) > 4096 {
			t.Errorf("%s: %d bytes", fitStrategy, len(text))
		}
		if want := fmt.Sprintf(`line %04d\n`, first); !strings.Contains(text, marker[:len(marker)-1]) || !strings.Contains(text, want) ||
			strings.Contains(text, fmt.Sprintf(`line %04d\n`, first-1)) {
			t.Errorf("%s: the tail does not start at line %d: %.200s", fitStrategy, first, text)
		}
	}
}

func TestBudget(t *testing.T) {
	// budget.md §5.7: floors first, then the fair share.
	records := `[{"id":"call_1","agent":"reviewer","status":"completed","task":"Review src/auth.ts","output":"` + strings.Repeat("a", 1000) + `"},` +
		`{"id":"call_2","agent":"tester","status":"failed","task":"Run the tests","output":"` + strings.Repeat("b", 400) + `","errorMessage":"Error: exit code 1","stderr":"` + strings.Repeat("e", 300) + `"},` +
		`{"id":"call_3","agent":"writer","status":"completed","task":"Write the notes","output":"done"}]`
	got := answer(t, "details", `{"records":`+records+`,"sharedBytes":300,"taskFloorBytes":64,"outputFloorBytes":128,"diagnosticFloorBytes":64}`, "halving")
	for _, want := range []string{
		`"output":"` + strings.Repeat("a", 228) + `","truncated":["output"]}`,
		`"errorMessage":"Error: exit code 1","stderr":"` + strings.Repeat("e", 146) + `","truncated":["output","stderr"]}`,
		`{"id":"call_3","agent":"writer","status":"completed","task":"Write the notes","output":"done"}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("details: %s lacks %s", got, want)
		}
	}
	live := func(i int) string { return fmt.Sprintf(`{"id":"t%d","agent":"w","status":"running","task":"x"}`, i) }
	three := live(0) + "," + live(1) + "," + live(2)
	expect(t, "roster", `{"records":[`+three+`],"maxBytes":120}`, `{"results":[`+live(0)+`,`+live(1)+`],"omittedResults":1}`)
	expect(t, "lane", `{"updates":[{"results":[`+three+`]},{"results":[`+live(0)+`],"omittedResults":2}]}`,
		`{"states":[{"total":3,"results":[`+three+`]},{"total":3,"results":[`+three+`]}]}`)
	expect(t, "publish", `{"intervalMs":100,"events":[{"at":0,"kind":"update","state":1},{"at":10,"kind":"status","state":2},`+
		`{"at":150,"kind":"update","state":3},{"at":160,"kind":"return"},{"at":170,"kind":"status","state":4}]}`,
		`{"publishes":[{"at":0,"state":1},{"at":100,"state":2},{"at":160,"state":3}]}`)
}
