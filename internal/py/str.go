package py

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode"
)

// Str returns Python's str() of a decoded JSON scalar (string, json.Number,
// bool, nil): 5 → "5", 1.5 → "1.5", 1e3 → "1000.0", true → "True", null →
// "None". ok is false for other values (lists and objects), whose str() is
// a repr benchserve does not reproduce.
func Str(v any) (s string, ok bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case nil:
		return "None", true
	case bool:
		if x {
			return "True", true
		}
		return "False", true
	case json.Number:
		return NumberStr(string(x)), true
	}
	return "", false
}

// NumberStr is str() of the number json.loads makes of the JSON number
// literal lit: an int for integer literals (arbitrary precision, "-0" →
// "0"), else a float in FloatRepr ("0.20" → "0.2", "1e3" → "1000.0",
// "1e999" → "inf"). A literal that is not a number is returned as it is.
func NumberStr(lit string) string {
	if !strings.ContainsAny(lit, ".eE") {
		if n, ok := new(big.Int).SetString(lit, 10); ok {
			return n.String()
		}
		return lit
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return lit
	}
	return FloatRepr(f)
}

// Repr returns Python's repr of a str: single quotes unless the string
// contains a single quote and no double quote; backslash, the chosen quote,
// \t \n \r escaped; other non-printable characters as \xhh, \uhhhh or
// \Uhhhhhhhh (Python's str.isprintable is approximated by unicode.IsPrint,
// which shares its definition: letters, marks, numbers, punctuation,
// symbols and the ASCII space).
func Repr(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(quote)
	for _, r := range s {
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < ' ' || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x7f || unicode.IsPrint(r):
			b.WriteRune(r)
		case r <= 0xff:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

// ReprList returns Python's repr of a list of str: ['a', "b'c"].
func ReprList(items []string) string {
	parts := make([]string, len(items))
	for i, s := range items {
		parts[i] = Repr(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// ReprOrNone returns Repr(s), or None when s is "" (an Optional[str] the
// reference left None, such as a finish_reason never sent).
func ReprOrNone(s string) string {
	if s == "" {
		return "None"
	}
	return Repr(s)
}
