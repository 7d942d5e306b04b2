package checks

import (
	"fmt"
	"strings"
)

// pyJSONDecodeError is the error json.loads raises, with Python's message
// (json.JSONDecodeError: "<msg>: line L column C (char P)"). Line, column
// and char offset count code points, as Python does on a str.
type pyJSONDecodeError struct {
	Msg  string // "Expecting value", "Extra data", ...
	Pos  int    // offset in code points
	Line int    // 1-based
	Col  int    // 1-based, in code points
}

func (e *pyJSONDecodeError) Error() string {
	return fmt.Sprintf("%s: line %d column %d (char %d)", e.Msg, e.Line, e.Col, e.Pos)
}

// pyJSONError returns the error CPython's json.loads(s) raises for the str
// s, or nil when it would parse s. It ports the C scanner of json.decoder
// (Modules/_json.c, CPython 3.8 to 3.12, the one json.loads uses) and
// json.decoder.JSONDecoder.decode: the first error position and message are
// the reference's, character for character. Invalid UTF-8 bytes count as
// one code point each. CPython 3.13 and later report a trailing comma as
// "Illegal trailing comma before end of object/array" instead of 3.12's
// "Expecting property name enclosed in double quotes" / "Expecting value";
// this follows 3.12. A document nested deeper than Python's recursion limit
// (a RecursionError in the reference, not a JSONDecodeError) is accepted
// here.
func pyJSONError(s string) error {
	sc := pyScanner{s: []rune(s)}
	if len(sc.s) > 0 && sc.s[0] == '\ufeff' {
		return sc.err("Unexpected UTF-8 BOM (decode using utf-8-sig)", 0)
	}
	idx := sc.skipWS(0)
	end, ok := sc.value(idx)
	if !ok {
		return sc.fail
	}
	end = sc.skipWS(end)
	if end != len(sc.s) {
		return sc.err("Extra data", end)
	}
	return nil
}

// pyScanner walks a document as CPython's scanner does, recording the
// first error in fail.
type pyScanner struct {
	s    []rune
	fail error
}

func (sc *pyScanner) err(msg string, pos int) error {
	prefix := sc.s[:pos]
	line := 1
	last := -1
	for i, r := range prefix {
		if r == '\n' {
			line++
			last = i
		}
	}
	return &pyJSONDecodeError{Msg: msg, Pos: pos, Line: line, Col: pos - last}
}

// raise records the error and reports failure.
func (sc *pyScanner) raise(msg string, pos int) (int, bool) {
	sc.fail = sc.err(msg, pos)
	return 0, false
}

// skipWS skips JSON whitespace (space, tab, newline, carriage return).
func (sc *pyScanner) skipWS(i int) int {
	for i < len(sc.s) {
		switch sc.s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func (sc *pyScanner) at(i int) rune {
	if i < len(sc.s) {
		return sc.s[i]
	}
	return -1
}

func (sc *pyScanner) hasLiteral(i int, lit string) bool {
	for k, r := range []rune(lit) {
		if sc.at(i+k) != r {
			return false
		}
	}
	return true
}

// value ports scan_once_unicode: it returns the index after the value at
// idx. A value that cannot start at idx raises StopIteration(idx) in the
// reference, which decode turns into "Expecting value" at idx.
func (sc *pyScanner) value(idx int) (int, bool) {
	if idx >= len(sc.s) {
		return sc.raise("Expecting value", idx)
	}
	switch sc.s[idx] {
	case '"':
		return sc.str(idx + 1)
	case '{':
		return sc.object(idx + 1)
	case '[':
		return sc.array(idx + 1)
	}
	for _, lit := range []string{"null", "true", "false", "NaN", "Infinity", "-Infinity"} {
		if sc.hasLiteral(idx, lit) {
			return idx + len(lit), true
		}
	}
	return sc.number(idx)
}

// str ports scanstring_unicode; end is the index after the opening quote.
func (sc *pyScanner) str(end int) (int, bool) {
	begin := end - 1
	n := len(sc.s)
	for {
		next := end
		var c rune = -1
		for ; next < n; next++ {
			c = sc.s[next]
			if c == '"' || c == '\\' {
				break
			}
			if c <= 0x1f {
				return sc.raise("Invalid control character at", next)
			}
		}
		if next >= n {
			return sc.raise("Unterminated string starting at", begin)
		}
		if c == '"' {
			return next + 1, true
		}
		next++ // past the backslash
		if next == n {
			return sc.raise("Unterminated string starting at", begin)
		}
		if c = sc.s[next]; c != 'u' {
			end = next + 1
			if !strings.ContainsRune(`"\/bfnrt`, c) {
				return sc.raise(`Invalid \escape`, end-2)
			}
			continue
		}
		next++
		end = next + 4
		if end >= n {
			return sc.raise(`Invalid \uXXXX escape`, next-1)
		}
		var u rune
		for ; next < end; next++ {
			d, ok := hexDigit(sc.s[next])
			if !ok {
				return sc.raise(`Invalid \uXXXX escape`, end-5)
			}
			u = u<<4 | d
		}
		// A high surrogate followed by \uXXXX: the second escape is read
		// as part of the pair, with the same error on bad digits.
		if u >= 0xd800 && u <= 0xdbff && end+6 < n && sc.s[next] == '\\' && sc.s[next+1] == 'u' {
			next += 2
			end += 6
			for ; next < end; next++ {
				if _, ok := hexDigit(sc.s[next]); !ok {
					return sc.raise(`Invalid \uXXXX escape`, end-5)
				}
			}
		}
	}
}

func hexDigit(r rune) (rune, bool) {
	switch {
	case r >= '0' && r <= '9':
		return r - '0', true
	case r >= 'a' && r <= 'f':
		return r - 'a' + 10, true
	case r >= 'A' && r <= 'F':
		return r - 'A' + 10, true
	}
	return 0, false
}

// object ports _parse_object_unicode; idx is the index after '{'.
func (sc *pyScanner) object(idx int) (int, bool) {
	idx = sc.skipWS(idx)
	if sc.at(idx) == '}' {
		return idx + 1, true
	}
	for {
		if sc.at(idx) != '"' {
			return sc.raise("Expecting property name enclosed in double quotes", idx)
		}
		next, ok := sc.str(idx + 1)
		if !ok {
			return 0, false
		}
		idx = sc.skipWS(next)
		if sc.at(idx) != ':' {
			return sc.raise("Expecting ':' delimiter", idx)
		}
		idx = sc.skipWS(idx + 1)
		if next, ok = sc.value(idx); !ok {
			return 0, false
		}
		idx = sc.skipWS(next)
		if sc.at(idx) == '}' {
			return idx + 1, true
		}
		if sc.at(idx) != ',' {
			return sc.raise("Expecting ',' delimiter", idx)
		}
		idx = sc.skipWS(idx + 1)
	}
}

// array ports _parse_array_unicode; idx is the index after '['.
func (sc *pyScanner) array(idx int) (int, bool) {
	idx = sc.skipWS(idx)
	if sc.at(idx) == ']' {
		return idx + 1, true
	}
	for {
		next, ok := sc.value(idx)
		if !ok {
			return 0, false
		}
		idx = sc.skipWS(next)
		if sc.at(idx) == ']' {
			return idx + 1, true
		}
		if sc.at(idx) != ',' {
			return sc.raise("Expecting ',' delimiter", idx)
		}
		idx = sc.skipWS(idx + 1)
	}
}

// number ports _match_number_unicode: the longest JSON number prefix at
// start, backtracking over a dangling '.', 'e' or exponent sign; no digit
// at all is "Expecting value" at start.
func (sc *pyScanner) number(start int) (int, bool) {
	digit := func(i int) bool { r := sc.at(i); return r >= '0' && r <= '9' }
	idx := start
	if sc.at(idx) == '-' {
		idx++
	}
	switch {
	case sc.at(idx) >= '1' && sc.at(idx) <= '9':
		for idx++; digit(idx); idx++ {
		}
	case sc.at(idx) == '0':
		idx++
	default:
		return sc.raise("Expecting value", start)
	}
	if sc.at(idx) == '.' && digit(idx+1) {
		for idx += 2; digit(idx); idx++ {
		}
	}
	if r := sc.at(idx); r == 'e' || r == 'E' {
		e := idx
		idx++
		if r := sc.at(idx); r == '-' || r == '+' {
			idx++
		}
		if !digit(idx) {
			return e, true
		}
		for ; digit(idx); idx++ {
		}
	}
	return idx, true
}
