package main

// The canonical line (spec/wire.md §6): what ECMAScript's JSON.stringify writes for the value once
// every string is well-formed, as UTF-8 bytes. Go's encoding/json differs on all three points
// that matter (it escapes <, > and & and U+2028/U+2029, spells 1.5e-07 and 1e+21 its own way, and
// sorts map keys), so the port writes the line itself:
//
//   - strings with exactly the escapes of §6.2, everything else raw;
//   - numbers as Number::toString (§6.3, jsNumber);
//   - members in OrdinaryOwnPropertyKeys order: array-index names first, ascending, then the
//     others in input order (§6.4).
//
// Strings are well-formed already: encoding/json replaced every unpaired surrogate with U+FFFD
// while it parsed (surrogates.go), which is the replacement §6.1 asks for.

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// canonicalLine is the canonical serialization of value, without the line feed.
func canonicalLine(value any) string {
	var out strings.Builder
	writeCanonical(&out, value)
	return out.String()
}

func writeCanonical(out *strings.Builder, value any) {
	switch typed := value.(type) {
	case nil:
		out.WriteString("null")
	case bool:
		out.WriteString(strconv.FormatBool(typed))
	case json.Number:
		f := numberValue(typed)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			out.WriteString("null") // what JSON.stringify writes; project refuses these first (§7)
		} else {
			out.WriteString(jsNumber(f))
		}
	case int:
		out.WriteString(strconv.Itoa(typed))
	case string:
		writeCanonicalString(out, typed)
	case []any:
		out.WriteByte('[')
		for index, item := range typed {
			if index > 0 {
				out.WriteByte(',')
			}
			writeCanonical(out, item)
		}
		out.WriteByte(']')
	case *Object:
		out.WriteByte('{')
		for index, name := range memberOrder(typed.Keys()) {
			if index > 0 {
				out.WriteByte(',')
			}
			item, _ := typed.Get(name)
			writeCanonicalString(out, name)
			out.WriteByte(':')
			writeCanonical(out, item)
		}
		out.WriteByte('}')
	default:
		panic("canonicalLine: not a JSON value")
	}
}

// writeCanonicalString writes a string with the escapes of wire.md §6.2 and no others: U+2028,
// U+2029, <, >, & and every other character are written raw.
func writeCanonicalString(out *strings.Builder, text string) {
	out.WriteByte('"')
	for _, r := range text {
		switch r {
		case '"':
			out.WriteString(`\"`)
		case '\\':
			out.WriteString(`\\`)
		case '\b':
			out.WriteString(`\b`)
		case '\t':
			out.WriteString(`\t`)
		case '\n':
			out.WriteString(`\n`)
		case '\f':
			out.WriteString(`\f`)
		case '\r':
			out.WriteString(`\r`)
		default:
			if r < 0x20 {
				out.WriteString(`\u00`)
				out.WriteByte("0123456789abcdef"[r>>4])
				out.WriteByte("0123456789abcdef"[r&0xF])
			} else {
				out.WriteRune(r)
			}
		}
	}
	out.WriteByte('"')
}

// escapedCost is the bytes one code point costs inside a canonical string (wire.md §6.5).
func escapedCost(r rune) int {
	switch {
	case r == '"' || r == '\\' || r == '\b' || r == '\t' || r == '\n' || r == '\f' || r == '\r':
		return 2
	case r < 0x20:
		return 6
	default:
		return utf8.RuneLen(r) // 1 to 4; U+FFFD, which replaced a lone surrogate, is 3
	}
}

// arrayIndex reports whether a member name is an array index: the canonical decimal form of an
// integer 0 <= i < 2^32-1 ("0", "7", "4294967294"; not "01", "-1", "1.0" or "4294967295").
func arrayIndex(name string) (uint64, bool) {
	if name == "" || len(name) > 10 || (len(name) > 1 && name[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(name); i++ {
		if name[i] < '0' || name[i] > '9' {
			return 0, false
		}
	}
	index, err := strconv.ParseUint(name, 10, 64)
	return index, err == nil && index < 1<<32-1
}

// memberOrder is ECMAScript's OrdinaryOwnPropertyKeys order (wire.md §6.4).
func memberOrder(keys []string) []string {
	type indexed struct {
		name  string
		index uint64
	}
	var indices []indexed
	others := make([]string, 0, len(keys))
	for _, name := range keys {
		if index, ok := arrayIndex(name); ok {
			indices = append(indices, indexed{name, index})
		} else {
			others = append(others, name)
		}
	}
	if len(indices) == 0 {
		return keys
	}
	sort.Slice(indices, func(a, b int) bool { return indices[a].index < indices[b].index })
	ordered := make([]string, 0, len(keys))
	for _, item := range indices {
		ordered = append(ordered, item.name)
	}
	return append(ordered, others...)
}

// encodeAnswer writes a protocol answer (spec/protocol.md §2.1): members in insertion order,
// numbers echoed as their literal, every character outside ASCII escaped as \uXXXX (astral ones
// as a surrogate pair), so the line is pure ASCII like the harness's own.
func encodeAnswer(value any) []byte {
	var out strings.Builder
	writeAnswer(&out, value)
	return []byte(out.String())
}

func writeAnswer(out *strings.Builder, value any) {
	switch typed := value.(type) {
	case nil:
		out.WriteString("null")
	case bool:
		out.WriteString(strconv.FormatBool(typed))
	case json.Number:
		out.WriteString(string(typed)) // exactly as the request wrote it
	case int:
		out.WriteString(strconv.Itoa(typed))
	case int64:
		out.WriteString(strconv.FormatInt(typed, 10))
	case string:
		writeASCIIString(out, typed)
	case []any:
		out.WriteByte('[')
		for index, item := range typed {
			if index > 0 {
				out.WriteByte(',')
			}
			writeAnswer(out, item)
		}
		out.WriteByte(']')
	case *Object:
		out.WriteByte('{')
		for index, name := range typed.Keys() {
			if index > 0 {
				out.WriteByte(',')
			}
			item, _ := typed.Get(name)
			writeASCIIString(out, name)
			out.WriteByte(':')
			writeAnswer(out, item)
		}
		out.WriteByte('}')
	default:
		panic("encodeAnswer: not a JSON value")
	}
}

func writeASCIIString(out *strings.Builder, text string) {
	const hex = "0123456789abcdef"
	unit := func(u rune) {
		out.WriteString(`\u`)
		out.WriteByte(hex[u>>12&0xF])
		out.WriteByte(hex[u>>8&0xF])
		out.WriteByte(hex[u>>4&0xF])
		out.WriteByte(hex[u&0xF])
	}
	out.WriteByte('"')
	for _, r := range text {
		switch {
		case r == '"':
			out.WriteString(`\"`)
		case r == '\\':
			out.WriteString(`\\`)
		case r == '\n':
			out.WriteString(`\n`)
		case r == '\r':
			out.WriteString(`\r`)
		case r == '\t':
			out.WriteString(`\t`)
		case r < 0x20 || (r >= 0x7F && r < 0x10000):
			unit(r)
		case r >= 0x10000:
			r -= 0x10000
			unit(0xD800 + r>>10)
			unit(0xDC00 + r&0x3FF)
		default:
			out.WriteRune(r)
		}
	}
	out.WriteByte('"')
}

// memberPath is the JSONPath of member name of the value at path ($.a, $["a b"]).
func memberPath(path, name string) string {
	plain := name != ""
	for i, r := range name {
		if !(r == '_' || r == '$' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9')) {
			plain = false
			break
		}
	}
	if plain {
		return path + "." + name
	}
	var quoted strings.Builder
	writeASCIIString(&quoted, name)
	return path + "[" + quoted.String() + "]"
}
