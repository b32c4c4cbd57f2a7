package main

// Numbers on the wire (spec/wire.md §6.3, §7).
//
// A number arrives as a json.Number, its literal exactly as written. A wire line writes its value
// the way ECMAScript's Number::toString does (30.0 -> 30, 1e21 -> 1e+21, 1.5e-07 -> 1.5e-7), and
// refuses the two kinds of literal a double cannot carry faithfully: an integer literal beyond
// 2^53-1 in magnitude, and a literal that overflows to an infinity (1e400).

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// maxSafeInteger is 2^53-1, the largest integer every double-based reader holds exactly.
const maxSafeInteger = "9007199254740991"

// isIntegerLiteral reports whether a JSON number literal has no fraction and no exponent.
func isIntegerLiteral(literal string) bool {
	return !strings.ContainsAny(literal, ".eE")
}

// beyondSafe reports whether an integer literal's magnitude exceeds 2^53-1. JSON forbids leading
// zeros, so comparing the digits as strings of equal length compares the integers.
func beyondSafe(literal string) bool {
	digits := strings.TrimPrefix(literal, "-")
	if len(digits) != len(maxSafeInteger) {
		return len(digits) > len(maxSafeInteger)
	}
	return digits > maxSafeInteger
}

// numberValue is the double a literal denotes, as JSON.parse reads it: the nearest double, 0 for
// an underflow, an infinity for an overflow.
func numberValue(number json.Number) float64 {
	value, err := strconv.ParseFloat(string(number), 64)
	if err != nil && !math.IsInf(value, 0) {
		return math.NaN() // not a JSON number literal; the decoder never produces one
	}
	return value
}

// uncarriable explains why a line cannot carry the literal (wire.md §7), or returns "".
func uncarriable(number json.Number) string {
	literal := string(number)
	if isIntegerLiteral(literal) && beyondSafe(literal) {
		return "is an integer beyond 2^53-1 in magnitude: a double cannot hold it exactly, so a " +
			"JSON.parse reader would silently round it (wire.md §7, RFC 7493 §2.2)"
	}
	if value := numberValue(number); math.IsInf(value, 0) || math.IsNaN(value) {
		return "overflows a double (it reads as an infinity) and JSON has no infinity (wire.md §7)"
	}
	return ""
}

// refuseUncarriable returns an InvalidInput for the first number inside value that a line
// cannot carry, naming its path, or nil.
func refuseUncarriable(value any, path string) error {
	switch typed := value.(type) {
	case json.Number:
		if reason := uncarriable(typed); reason != "" {
			return &InvalidInput{Shown: string(typed), Path: path, Reason: reason,
				Fix: "Send integers within ±9007199254740991 and finite numbers, or carry the value as a string."}
		}
	case []any:
		for index, item := range typed {
			if err := refuseUncarriable(item, fmt.Sprintf("%s[%d]", path, index)); err != nil {
				return err
			}
		}
	case *Object:
		for _, name := range typed.Keys() {
			item, _ := typed.Get(name)
			if err := refuseUncarriable(item, memberPath(path, name)); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsNumber spells a finite double as ECMAScript's Number::toString does (wire.md §6.3).
func jsNumber(value float64) string {
	if value == 0 {
		return "0" // 0 and -0
	}
	sign := ""
	if value < 0 {
		sign, value = "-", -value
	}
	// The shortest digits that read back as the value, as d.ddddde±x; Go and ECMAScript both
	// pick the nearest such string when several are shortest.
	exponential := strconv.FormatFloat(value, 'e', -1, 64)
	mantissa, exponent, _ := strings.Cut(exponential, "e")
	digits := strings.Replace(mantissa, ".", "", 1)
	e, _ := strconv.Atoi(exponent)
	k, n := len(digits), e+1 // value = digits × 10^(n-k)
	switch {
	case k <= n && n <= 21: // 30, 100000000000000000000
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21: // 123.456
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0: // 0.000001
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	// 1e+21, 1.5e-7, 5e-324
	out := sign + digits[:1]
	if k > 1 {
		out += "." + digits[1:]
	}
	if n-1 >= 0 {
		return out + "e+" + strconv.Itoa(n-1)
	}
	return out + "e-" + strconv.Itoa(1-n)
}

// integerOf reads a number as an integer (4096 and 4096.0 are the same integer, wire.md §1).
func integerOf(value any) (int64, bool) {
	number, ok := value.(json.Number)
	if !ok {
		return 0, false
	}
	f := numberValue(number)
	if math.IsInf(f, 0) || math.IsNaN(f) || f != math.Trunc(f) || math.Abs(f) > 1<<62 {
		return 0, false
	}
	return int64(f), true
}
