package stream

import (
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON lexer under the chunk decoder's fast path (chunk.go): scanning
// strings, numbers, literals and skipping whole values on the raw bytes of
// an event, without allocating. Anything it does not handle returns false
// and the decoder falls back to encoding/json.

// objectKeysEnd calls f for each key of the object at b[i] == '{' with the
// position of its value (always < len(b)); f returns the position after
// the value. It returns the position after the object, or false when f
// does, when a key contains escapes (left to encoding/json) or when the
// object is not valid JSON.
func objectKeysEnd(b []byte, i int, f func(key []byte, v int) (int, bool)) (int, bool) {
	i = skipWS(b, i+1)
	if at(b, i) == '}' {
		return i + 1, true
	}
	for {
		if at(b, i) != '"' {
			return 0, false
		}
		end, esc, ok := scanString(b, i)
		if !ok || esc {
			return 0, false
		}
		key := b[i+1 : end-1]
		v := skipWS(b, end)
		if at(b, v) != ':' {
			return 0, false
		}
		v = skipWS(b, v+1)
		if v >= len(b) {
			return 0, false
		}
		next, ok := f(key, v)
		if !ok {
			return 0, false
		}
		i = skipWS(b, next)
		switch at(b, i) {
		case '}':
			return i + 1, true
		case ',':
			i = skipWS(b, i+1)
		default:
			return 0, false
		}
	}
}

// plainKey reports whether an unknown key cannot match a known field under
// encoding/json's case-insensitive matching: only [a-z0-9_] bytes.
func plainKey(k []byte) bool {
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// intValue accepts null or a plain JSON integer that fits int64 (as
// encoding/json would for an int field); anything else falls back.
func intValue(b []byte, i int) (int, bool) {
	if at(b, i) == 'n' {
		return literal(b, i, "null")
	}
	j := i
	if at(b, j) == '-' {
		j++
	}
	k := j
	for k < len(b) && b[k] >= '0' && b[k] <= '9' {
		k++
	}
	if k == j || k-j > 18 || (b[j] == '0' && k-j > 1) {
		return 0, false
	}
	if c := at(b, k); c == '.' || c == 'e' || c == 'E' {
		return 0, false
	}
	return k, true
}

// at returns b[i], or 0 past the end (0 is never valid JSON syntax).
func at(b []byte, i int) byte {
	if i < len(b) {
		return b[i]
	}
	return 0
}

// literal checks the literal lit at b[i] and returns the position after it.
func literal(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

// skipWS returns the position of the first non-space byte at or after i.
func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// scanString validates the JSON string starting at b[i] == '"' and
// returns the position after it and whether it contains escapes. ok is
// false for an unterminated string, a control character or a malformed
// escape. Bytes >= 0x80 are not checked (encoding/json accepts invalid
// UTF-8 in valid JSON; str checks it where the text is used).
func scanString(b []byte, i int) (end int, esc, ok bool) {
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return j + 1, esc, true
		case c == '\\':
			esc = true
			j++
			switch at(b, j) {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-j < 5 {
					return 0, false, false
				}
				for _, h := range b[j+1 : j+5] {
					if !isHex(h) {
						return 0, false, false
					}
				}
				j += 4
			default:
				return 0, false, false
			}
		case c < 0x20:
			return 0, false, false
		}
	}
	return 0, false, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// maxSkipDepth bounds the nesting skipValue follows; deeper values go to
// encoding/json (which allows 10,000 levels) rather than deepening the
// reading goroutine's stack.
const maxSkipDepth = 32

// skipValue validates the JSON value starting at b[i] and returns the
// position after it; ok is false when it is not valid JSON or nests deeper
// than maxSkipDepth.
func skipValue(b []byte, i, depth int) (end int, ok bool) {
	switch c := at(b, i); {
	case c == '"':
		end, _, ok = scanString(b, i)
		return end, ok
	case c == '{':
		if depth >= maxSkipDepth {
			return 0, false
		}
		i = skipWS(b, i+1)
		if at(b, i) == '}' {
			return i + 1, true
		}
		for {
			if at(b, i) != '"' {
				return 0, false
			}
			if i, _, ok = scanString(b, i); !ok {
				return 0, false
			}
			if i = skipWS(b, i); at(b, i) != ':' {
				return 0, false
			}
			if i, ok = skipValue(b, skipWS(b, i+1), depth+1); !ok {
				return 0, false
			}
			i = skipWS(b, i)
			switch at(b, i) {
			case '}':
				return i + 1, true
			case ',':
				i = skipWS(b, i+1)
			default:
				return 0, false
			}
		}
	case c == '[':
		if depth >= maxSkipDepth {
			return 0, false
		}
		i = skipWS(b, i+1)
		if at(b, i) == ']' {
			return i + 1, true
		}
		for {
			if i, ok = skipValue(b, i, depth+1); !ok {
				return 0, false
			}
			i = skipWS(b, i)
			switch at(b, i) {
			case ']':
				return i + 1, true
			case ',':
				i = skipWS(b, i+1)
			default:
				return 0, false
			}
		}
	case c == 'n':
		return literal(b, i, "null")
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == '-' || c >= '0' && c <= '9':
		return number(b, i)
	}
	return 0, false
}

// number validates the JSON number at b[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func number(b []byte, i int) (int, bool) {
	if at(b, i) == '-' {
		i++
	}
	switch c := at(b, i); {
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		i = digits(b, i)
	default:
		return 0, false
	}
	if at(b, i) == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if c := at(b, i); c == 'e' || c == 'E' {
		i++
		if c := at(b, i); c == '+' || c == '-' {
			i++
		}
		j := digits(b, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

// digits returns the position after the run of decimal digits at b[i].
func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// appendUnescaped appends the unescaped form of a JSON string body (valid
// JSON) to dst, mirroring encoding/json: a lone surrogate becomes U+FFFD.
// It reports false on invalid UTF-8 so the caller falls back.
func appendUnescaped(dst, s []byte) ([]byte, bool) {
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
			r++
			switch s[r] {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				rr := hex4(s[r+1 : r+5])
				r += 5
				if utf16.IsSurrogate(rr) {
					if r+6 <= len(s) && s[r] == '\\' && s[r+1] == 'u' {
						if dec := utf16.DecodeRune(rr, hex4(s[r+2:r+6])); dec != utf8.RuneError {
							dst = utf8.AppendRune(dst, dec)
							r += 6
							continue
						}
					}
					rr = utf8.RuneError
				}
				dst = utf8.AppendRune(dst, rr)
				continue
			default: // '"', '\\', '/'
				dst = append(dst, s[r])
			}
			r++
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			if rr == utf8.RuneError && size == 1 {
				return dst, false
			}
			dst = append(dst, s[r:r+size]...)
			r += size
		}
	}
	return dst, true
}

func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
