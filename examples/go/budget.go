package main

// The budget profile (spec/budget.md): final details under one shared budget, the live roster
// under its byte bound, a lane merging rosters by index, and the publish cadence on a virtual
// clock. Sizes are the wire profile's: the UTF-8 bytes of the canonical escapes, quotes excluded
// (wire.md §6.5); cuts count code points (runes), never bytes.

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

const (
	liveTaskBytes   = 64  // the live record's task head (budget.md §6.1)
	liveOutputBytes = 128 // the live record's output tail
	identityClip    = 256 // code points of id and agent (budget.md §3.2)
	// budgetMaxInteger is the largest integer of a budget request (budget.md §1): the largest a
	// double holds exactly, so the arithmetic stays exact in an int64 and in a double.
	budgetMaxInteger = 1<<53 - 1
)

var taskStatuses = []string{"pending", "running", "completed", "failed", "cancelled"}

// heavyFields are the fields a final record cuts, in the order it writes them (budget.md §5.4).
var heavyFields = []string{"task", "output", "errorMessage", "stderr"}

var fieldSide = map[string]string{"task": "head", "output": "tail", "errorMessage": "head", "stderr": "tail"}
var fieldGroup = map[string]string{"task": "task", "output": "output", "errorMessage": "diagnostics", "stderr": "diagnostics"}

// taskRecord holds the members of a task record the profile reads (budget.md §2.1).
type taskRecord struct {
	id, agent, status string
	fields            map[string]string // task and whichever of output, errorMessage, stderr it has
}

// cost is the bytes a string costs inside a canonical string literal, quotes excluded.
func cost(text string) int64 {
	total := int64(0)
	for _, r := range text {
		total += int64(escapedCost(r))
	}
	return total
}

// cut is the longest head or tail of value, in code points, costing at most allowance bytes
// (budget.md §4); the empty cut is "", never the whole value.
func cut(value string, allowance int64, side string) string {
	if cost(value) <= allowance {
		return value
	}
	runes := []rune(value)
	spent, kept := int64(0), 0
	for kept < len(runes) {
		r := runes[kept]
		if side == "tail" {
			r = runes[len(runes)-1-kept]
		}
		if spent+int64(escapedCost(r)) > allowance {
			break
		}
		spent += int64(escapedCost(r))
		kept++
	}
	if side == "head" {
		return string(runes[:kept])
	}
	return string(runes[len(runes)-kept:])
}

// budgetInteger reads an integer of at least minimum (4096.0 is 4096, wire.md §1).
func budgetInteger(value any, path string, minimum int64, what string) (int64, error) {
	refuse := &InvalidInput{Value: value, Path: path, Reason: fmt.Sprintf("is not an integer >= %d (%s)", minimum, what),
		Fix: fmt.Sprintf("Send an integer of at least %d, as the operation's schema requires.", minimum)}
	number, ok := value.(json.Number)
	if !ok {
		return 0, refuse
	}
	f := numberValue(number)
	if math.IsInf(f, 0) || math.IsNaN(f) || f != math.Trunc(f) || f < float64(minimum) {
		return 0, refuse
	}
	if f > budgetMaxInteger {
		return 0, &InvalidInput{Value: value, Path: path,
			Reason: fmt.Sprintf("is beyond 2^53-1 (%s): a JSON reader built on doubles cannot hold it exactly (budget.md §1)", what),
			Fix:    fmt.Sprintf("Send an integer of at most %d (2^53-1).", int64(budgetMaxInteger))}
	}
	return int64(f), nil
}

func budgetList(value any, path, what string) ([]any, error) {
	if list, ok := asList(value); ok {
		return list, nil
	}
	return nil, &InvalidInput{Value: value, Path: path, Reason: "is not an array of " + what, Fix: "Send " + what + " as a JSON array."}
}

func budgetObject(value any, path, what string) (*Object, error) {
	if object, ok := asObject(value); ok {
		return object, nil
	}
	return nil, &InvalidInput{Value: value, Path: path, Reason: "is not an object, so not " + what, Fix: "Send " + what + " as a JSON object (spec/budget.md)."}
}

// readTaskRecord checks the members of a task record the profile reads (budget.md §2.1).
func readTaskRecord(value any, path string) (*taskRecord, error) {
	record, err := budgetObject(value, path, "a task record")
	if err != nil {
		return nil, err
	}
	status, _ := asString(member(record, "status"))
	known := false
	for _, name := range taskStatuses {
		known = known || status == name
	}
	if !known {
		return nil, &InvalidInput{Value: member(record, "status"), Path: path + ".status", Reason: "is not a task status",
			Fix: "Use one of " + strings.Join(taskStatuses, ", ") + " (budget.md §2.2)."}
	}
	read := &taskRecord{status: status, fields: map[string]string{}}
	for _, key := range []string{"id", "agent", "task", "output", "errorMessage", "stderr"} {
		item, present := record.Get(key)
		if !present {
			if key == "id" || key == "agent" || key == "task" {
				return nil, &InvalidInput{Value: nil, Path: path + "." + key, Reason: "is missing; every task record has it (budget.md §2.1)", Fix: "Send " + key + " as a string."}
			}
			continue
		}
		text, ok := asString(item)
		if !ok {
			return nil, &InvalidInput{Value: item, Path: path + "." + key, Reason: "is not a string",
				Fix: "Send " + key + " as a string, or leave it out if it is optional (budget.md §2.1)."}
		}
		switch key {
		case "id":
			read.id = text
		case "agent":
			read.agent = text
		default:
			read.fields[key] = text
		}
	}
	return read, nil
}

func readTaskRecords(value any) ([]*taskRecord, error) {
	list, err := budgetList(value, "$.records", "task records")
	if err != nil {
		return nil, err
	}
	records := make([]*taskRecord, len(list))
	for index, item := range list {
		if records[index], err = readTaskRecord(item, fmt.Sprintf("$.records[%d]", index)); err != nil {
			return nil, err
		}
	}
	return records, nil
}

// clipIdentity is the first 256 code points of an id or agent name (budget.md §3.2).
func clipIdentity(text string) string {
	count := 0
	for offset := range text {
		if count == identityClip {
			return text[:offset]
		}
		count++
	}
	return text
}

func identity(record *taskRecord) *Object {
	out := NewObject()
	out.Set("id", clipIdentity(record.id))
	out.Set("agent", clipIdentity(record.agent))
	out.Set("status", record.status)
	return out
}

// claimOrder: a failure claims its diagnostics before its output (budget.md §5.4).
func claimOrder(record *taskRecord) []string {
	if record.status == "failed" {
		return []string{"errorMessage", "stderr", "output", "task"}
	}
	return []string{"output", "errorMessage", "stderr", "task"}
}

// finalRecord is one final record and what it took of its share (budget.md §5.3-5.4).
func finalRecord(record *taskRecord, share int64, floors map[string]int64) (*Object, int64) {
	floorLeft := map[string]int64{}
	for group, floor := range floors {
		floorLeft[group] = floor
	}
	pool := share
	kept := map[string]string{}
	for _, name := range claimOrder(record) {
		value, ok := record.fields[name]
		if !ok {
			continue
		}
		group := fieldGroup[name]
		text := cut(value, floorLeft[group]+pool, fieldSide[name])
		spent := cost(text)
		fromFloor := spent
		if floorLeft[group] < fromFloor {
			fromFloor = floorLeft[group]
		}
		floorLeft[group] -= fromFloor
		pool -= spent - fromFloor
		kept[name] = text
	}
	out := identity(record)
	truncated := []any{}
	for _, name := range heavyFields {
		text, ok := kept[name]
		if !ok {
			continue
		}
		out.Set(name, text)
		if text != record.fields[name] {
			truncated = append(truncated, name)
		}
	}
	if len(truncated) > 0 {
		out.Set("truncated", truncated)
	}
	return out, share - pool
}

// finalDetails is the final details of a batch under its shared budget (budget.md §3-5).
func finalDetails(request *Object) (any, error) {
	records, err := readTaskRecords(member(request, "records"))
	if err != nil {
		return nil, err
	}
	remaining, err := budgetInteger(member(request, "sharedBytes"), "$.sharedBytes", 0, "the shared budget in bytes")
	if err != nil {
		return nil, err
	}
	floors := map[string]int64{}
	for _, floor := range []struct{ group, name string }{{"task", "taskFloorBytes"}, {"output", "outputFloorBytes"}, {"diagnostics", "diagnosticFloorBytes"}} {
		if floors[floor.group], err = budgetInteger(member(request, floor.name), "$."+floor.name, 0, "a floor in bytes"); err != nil {
			return nil, err
		}
	}
	results := make([]any, len(records))
	for index, record := range records {
		// budget.md §5.3: the rest of the budget divided by the records still to project.
		share := remaining / int64(len(records)-index)
		out, used := finalRecord(record, share, floors)
		remaining -= used
		results[index] = out
	}
	answer := NewObject()
	answer.Set("results", results)
	return answer, nil
}

// liveRecord is identity, a 64-byte task head and a 128-byte output tail (budget.md §6.1).
func liveRecord(record *taskRecord) *Object {
	out := identity(record)
	out.Set("task", cut(record.fields["task"], liveTaskBytes, "head"))
	if output, ok := record.fields["output"]; ok {
		out.Set("output", cut(output, liveOutputBytes, "tail"))
	}
	return out
}

// liveRoster is the longest prefix of live records whose array fits maxBytes, and the count of
// the rest (budget.md §6.2-6.3).
func liveRoster(request *Object) (any, error) {
	records, err := readTaskRecords(member(request, "records"))
	if err != nil {
		return nil, err
	}
	bound, err := budgetInteger(member(request, "maxBytes"), "$.maxBytes", 2, "the roster's byte bound")
	if err != nil {
		return nil, err
	}
	results := []any{}
	size := int64(2)
	for _, record := range records {
		live := liveRecord(record)
		grown := size + int64(len(canonicalLine(live)))
		if len(results) > 0 {
			grown++
		}
		if grown > bound {
			break
		}
		results = append(results, live)
		size = grown
	}
	roster := NewObject()
	roster.Set("results", results)
	if len(records) > len(results) {
		roster.Set("omittedResults", len(records)-len(results))
	}
	return roster, nil
}

// mergeLane is the lane after every roster update: merged by index, capped at and counted from
// the update's own total (budget.md §7).
func mergeLane(request *Object) (any, error) {
	updates, err := budgetList(member(request, "updates"), "$.updates", "roster updates")
	if err != nil {
		return nil, err
	}
	merged := []any{}
	states := make([]any, len(updates))
	for index, value := range updates {
		path := fmt.Sprintf("$.updates[%d]", index)
		update, err := budgetObject(value, path, "a live roster")
		if err != nil {
			return nil, err
		}
		results, err := budgetList(member(update, "results"), path+".results", "live records")
		if err != nil {
			return nil, err
		}
		for at, item := range results {
			if _, err := budgetObject(item, fmt.Sprintf("%s.results[%d]", path, at), "a live record"); err != nil {
				return nil, err
			}
		}
		omitted := int64(0)
		if count, ok := update.Get("omittedResults"); ok {
			if omitted, err = budgetInteger(count, path+".omittedResults", 1, "a count that is absent at zero (budget.md §6.3)"); err != nil {
				return nil, err
			}
		}
		total := int64(len(results)) + omitted
		if total > budgetMaxInteger {
			count, _ := update.Get("omittedResults")
			return nil, &InvalidInput{Value: count, Path: path + ".omittedResults",
				Reason: fmt.Sprintf("with %d records makes a total beyond 2^53-1 (budget.md §7.2)", len(results)),
				Fix:    fmt.Sprintf("Send an omittedResults of at most %d.", int64(budgetMaxInteger)-int64(len(results)))}
		}
		next := append([]any{}, results...)
		if len(merged) > len(results) {
			next = append(next, merged[len(results):]...)
		}
		if int64(len(next)) > total {
			next = next[:total]
		}
		merged = next
		state := NewObject()
		state.Set("total", total)
		state.Set("results", merged)
		if total > int64(len(merged)) {
			state.Set("omittedResults", total-int64(len(merged)))
		}
		states[index] = state
	}
	answer := NewObject()
	answer.Set("states", states)
	return answer, nil
}

// change is one update or status change of a timeline (budget.md §8.1).
type change struct {
	at    int64
	state any
}

// timeline is the changes before the return, in order, and the return's time (budget.md §8.1).
func timeline(value any) ([]change, int64, error) {
	events, err := budgetList(value, "$.events", "timeline events")
	if err != nil {
		return nil, 0, err
	}
	changes := []change{}
	returned, hasReturned, previous := int64(0), false, int64(0)
	for index, item := range events {
		path := fmt.Sprintf("$.events[%d]", index)
		event, err := budgetObject(item, path, "a timeline event")
		if err != nil {
			return nil, 0, err
		}
		at, err := budgetInteger(member(event, "at"), path+".at", 0, "a time in milliseconds")
		if err != nil {
			return nil, 0, err
		}
		if at < previous {
			return nil, 0, &InvalidInput{Value: member(event, "at"), Path: path + ".at", Reason: fmt.Sprintf("is earlier than the event before it (%d ms)", previous),
				Fix: "Send the timeline in time order (budget.md §8.1)."}
		}
		previous = at
		switch kind := member(event, "kind"); kind {
		case "return":
			if hasReturned {
				return nil, 0, &InvalidInput{Value: kind, Path: path + ".kind", Reason: "is a second return; a call returns once", Fix: "Send exactly one return event (budget.md §8.1)."}
			}
			returned, hasReturned = at, true
		case "update", "status":
			state, ok := event.Get("state")
			if !ok {
				return nil, 0, &InvalidInput{Value: nil, Path: path + ".state", Reason: "is missing", Fix: "Send the snapshot the change publishes as state."}
			}
			if !hasReturned { // budget.md §8.3: a change after the return is never published
				changes = append(changes, change{at, state})
			}
		default:
			return nil, 0, &InvalidInput{Value: kind, Path: path + ".kind", Reason: "is not an event kind", Fix: "Use update, status or return (budget.md §8.1)."}
		}
	}
	if !hasReturned {
		return nil, 0, &InvalidInput{Value: nil, Path: "$.events", Reason: "has no return event", Fix: `End the call with one {"kind": "return"} (budget.md §8.1).`}
	}
	return changes, returned, nil
}

// publishSchedule is one publish per window, status transitions included, the terminal flush,
// and nothing after the return (budget.md §8.2-8.3).
func publishSchedule(request *Object) (any, error) {
	window, err := budgetInteger(member(request, "intervalMs"), "$.intervalMs", 1, "the publish interval in milliseconds")
	if err != nil {
		return nil, err
	}
	changes, returned, err := timeline(member(request, "events"))
	if err != nil {
		return nil, err
	}
	publishes := []any{}
	last, published, pending := int64(0), false, false
	var state any
	publish := func(at int64) {
		entry := NewObject()
		entry.Set("at", at)
		entry.Set("state", state)
		publishes = append(publishes, entry)
		last, published, pending = at, true, false
	}
	// budget.md §8.2: the changes of one instant are one change, the last one's state.
	instants := []change{}
	for _, next := range changes {
		if top := len(instants) - 1; top >= 0 && instants[top].at == next.at {
			instants[top].state = next.state
		} else {
			instants = append(instants, next)
		}
	}
	for _, instant := range instants {
		if pending && published && last+window < instant.at {
			publish(last + window)
		}
		state = instant.state
		pending = true
		if !published || instant.at >= last+window {
			publish(instant.at)
		}
	}
	if pending && published && last+window < returned {
		publish(last + window)
	}
	if pending {
		publish(returned)
	}
	answer := NewObject()
	answer.Set("publishes", publishes)
	return answer, nil
}
