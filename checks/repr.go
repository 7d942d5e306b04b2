package checks

import (
	"fmt"
	"strings"
	"unicode"
)

// pyRepr returns Python's repr of a str: single quotes unless the string
// contains a single quote and no double quote; backslash, the chosen quote,
// \t \n \r escaped; other non-printable characters as \xhh, \uhhhh or
// \Uhhhhhhhh (Python's str.isprintable is approximated by unicode.IsPrint,
// which shares its definition: letters, marks, numbers, punctuation,
// symbols and the ASCII space).
func pyRepr(s string) string {
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

// pyReprList returns Python's repr of a list of str: ['a', 'b'].
func pyReprList(items []string) string {
	parts := make([]string, len(items))
	for i, s := range items {
		parts[i] = pyRepr(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// pyReprOptional returns pyRepr(s), or None when s is "" (the reference's
// finish_reason is None when the stream never sent one).
func pyReprOptional(s string) string {
	if s == "" {
		return "None"
	}
	return pyRepr(s)
}
