package py

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// WriteJSONString writes s as a JSON string the way json.dumps does with
// ensure_ascii=True: \" \\ \n \r \t \b \f, other control characters and
// every non-ASCII code point as \uXXXX (lowercase hex, surrogate pairs
// above U+FFFF). Invalid UTF-8 becomes \ufffd.
func WriteJSONString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			fmt.Fprintf(b, `\u%04x`, r)
		}
	}
	b.WriteByte('"')
}

// JSONNumber is how json.dumps writes the number json.loads makes of the
// JSON number literal lit: an integer literal as written (a Python int;
// "-0" stays "-0" where Python writes 0),
// anything else as a Python float ("0.20" → "0.2", "1e3" → "1000.0"). A
// float overflowing to infinity is null, where Python writes the invalid
// token Infinity; a literal that is not a number is returned as it is.
func JSONNumber(lit string) string {
	if !strings.ContainsAny(lit, ".eE") {
		return lit
	}
	f, err := strconv.ParseFloat(lit, 64)
	switch {
	case math.IsInf(f, 0):
		return "null"
	case err != nil:
		return lit
	}
	return FloatRepr(f)
}
