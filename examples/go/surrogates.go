package main

// Lone surrogates (spec/protocol.md §2.1, spec/wire.md §6.1).
//
// The harness writes pure ASCII, so a string holding an unpaired surrogate arrives as an escape
// such as \ud800. A Go string is UTF-8 and cannot hold one: encoding/json replaces every escape
// that is not half of a valid pair with U+FFFD while it parses, before any code of ours runs.
//
//   - classify and project are unaffected: every string of a wire line is made well-formed
//     (wire.md §6.1), which replaces each unpaired surrogate with one U+FFFD and keeps valid
//     pairs, exactly what encoding/json did, string by string.
//   - select, fold and settle return content "as given" (selection.md §3.1): the port would
//     echo U+FFFD where the input had \ud800, a silent change. It answers those requests
//     `skipped` instead (protocol.md §5.3), and declares loneSurrogates: false.

// loneSurrogate reports the first escape in a request line that is an unpaired surrogate, as its
// text (`\ud800`), or "" when there is none. Backslashes occur in JSON only inside strings, each
// starting an escape, so a scan from escape to escape needs no string state.
func loneSurrogate(line []byte) string {
	for i := 0; i < len(line); i++ {
		if line[i] != '\\' || i+1 >= len(line) {
			continue
		}
		if line[i+1] != 'u' {
			i++ // \" \\ \/ \b \f \n \r \t: skip the escaped character
			continue
		}
		unit, ok := hex4(line, i+2)
		if !ok {
			continue
		}
		switch {
		case unit >= 0xD800 && unit <= 0xDBFF:
			if i+11 < len(line) && line[i+6] == '\\' && line[i+7] == 'u' {
				if low, ok := hex4(line, i+8); ok && low >= 0xDC00 && low <= 0xDFFF {
					i += 11 // a valid pair: one astral character
					continue
				}
			}
			return string(line[i : i+6])
		case unit >= 0xDC00 && unit <= 0xDFFF:
			return string(line[i : i+6])
		}
		i += 5
	}
	return ""
}

func hex4(line []byte, at int) (rune, bool) {
	if at+4 > len(line) {
		return 0, false
	}
	var unit rune
	for _, c := range line[at : at+4] {
		unit <<= 4
		switch {
		case c >= '0' && c <= '9':
			unit |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			unit |= rune(c-'a') + 10
		case c >= 'A' && c <= 'F':
			unit |= rune(c-'A') + 10
		default:
			return 0, false
		}
	}
	return unit, true
}
