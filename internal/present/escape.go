package present

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Unsafe reports whether r must not reach a reader as it is: a C0 control
// (tab and newline included; Escape keeps those two), DEL, a C1 control,
// the line and paragraph separators U+2028 and U+2029, or a format
// character (Unicode category Cf: the bidirectional controls U+202A–U+202E,
// U+2066–U+2069, U+200E, U+200F and U+061C, zero-width characters, the
// byte order mark, tag characters, the soft hyphen).
func Unsafe(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f:
		return true
	case r < 0x80:
		return false
	case r < 0xa0, r == 0x2028, r == 0x2029:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// Escape returns s with every Unsafe rune but tab and newline written as a
// visible escape, for a block of lines: \a \b \f \r \v for those controls,
// \xNN for the other C0 controls and DEL, \uNNNN (\UNNNNNNNN beyond the
// Basic Multilingual Plane) for the rest, and \xNN for each byte of s that
// is not valid UTF-8. s is returned as it is when nothing needs escaping.
func Escape(s string) string { return escape(s, true) }

// Line is Escape for a one-line field: tab and newline are escaped too
// (\t, \n), so the string cannot start a line of its own.
func Line(s string) string { return escape(s, false) }

func escape(s string, block bool) string {
	if clean(s, block) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		piece, n := next(s[i:], block)
		b.WriteString(piece)
		i += n
	}
	return b.String()
}

// clean reports whether s needs no escaping.
func clean(s string, block bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			continue
		}
		if block && (c == '\n' || c == '\t') {
			continue
		}
		if c < 0x80 {
			return false
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || Unsafe(r) {
			return false
		}
		i += n - 1
	}
	return true
}

// next returns how the first rune (or invalid byte) of s is shown and how
// many bytes of s it takes.
func next(s string, block bool) (string, int) {
	r, n := utf8.DecodeRuneInString(s)
	switch {
	case r == utf8.RuneError && n == 1:
		return hexByte(s[0]), 1
	case block && (r == '\n' || r == '\t'), !Unsafe(r):
		return s[:n], n
	}
	return escapeRune(r), n
}

// escapeRune is the visible escape of an Unsafe rune.
func escapeRune(r rune) string {
	switch r {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\v':
		return `\v`
	}
	if r < 0x80 {
		return hexByte(byte(r))
	}
	return Unicode(r)
}

// Unicode is r as \uNNNN, or \UNNNNNNNN beyond U+FFFF.
func Unicode(r rune) string {
	h := strconv.FormatInt(int64(r), 16)
	if r > 0xffff {
		return `\U` + strings.Repeat("0", 8-len(h)) + h
	}
	return `\u` + strings.Repeat("0", 4-len(h)) + h
}

// EscapeUnicode returns s with every Unsafe rune but tab and newline
// written as \uNNNN (a UTF-16 surrogate pair, \uD8NN\uDCNN, beyond
// U+FFFF) and each invalid byte as \xNN: the form that is both visible as
// text in HTML and, inside a JSON string, decodes back to the same rune,
// so a JSON document (whose encoder never writes invalid UTF-8) keeps its
// value. Where s holds nothing to escape it is returned as it is.
func EscapeUnicode(s string) string {
	if clean(s, true) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(hexByte(s[i]))
		case r == '\n' || r == '\t' || !Unsafe(r):
			b.WriteString(s[i : i+n])
		case r > 0xffff:
			hi, lo := utf16.EncodeRune(r)
			b.WriteString(Unicode(hi) + Unicode(lo))
		default:
			b.WriteString(Unicode(r))
		}
		i += n
	}
	return b.String()
}

const hexDigits = "0123456789abcdef"

func hexByte(c byte) string {
	return string([]byte{'\\', 'x', hexDigits[c>>4], hexDigits[c&0xf]})
}
