package checks

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

func digitsEnd(s string, j int) int {
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	return j
}

func isOct(c byte) bool { return c >= '0' && c <= '7' }

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// codeEscape handles \x \u \U and octal escapes shared by both contexts. It
// is called with t.i on the letter or digit after the backslash and returns
// handled=false when the escape is something else.
func (t *translator) codeEscape(inClass bool) (handled bool, err error) {
	at := t.i - 1
	c := t.src[t.i]
	emit := func(r uint64) error {
		if r > utf8.MaxRune {
			return t.fail(at, `bad escape %s`, t.src[at:t.i])
		}
		fmt.Fprintf(&t.out, `\x{%x}`, r)
		return nil
	}
	hexN := map[byte]int{'x': 2, 'u': 4, 'U': 8}
	if n, ok := hexN[c]; ok {
		digits := t.src[t.i+1 : min(t.i+1+n, len(t.src))]
		if len(digits) != n || !isHex(digits) {
			return true, t.fail(at, `incomplete escape \%c%s`, c, digits)
		}
		t.i += 1 + n
		v, _ := strconv.ParseUint(digits, 16, 32)
		return true, emit(v)
	}
	if c < '0' || c > '9' {
		return false, nil
	}
	// Octal: \0, \0o, \0oo anywhere; \ooo (three octal digits) anywhere;
	// \o and \oo inside a class. Any other digit escape is a group reference.
	j := t.i
	switch {
	case c == '0':
		j++
		for k := 0; k < 2 && j < len(t.src) && isOct(t.src[j]); k++ {
			j++
		}
	case isOct(c) && t.i+2 < len(t.src) && isOct(t.src[t.i+1]) && isOct(t.src[t.i+2]):
		j += 3
	case inClass && isOct(c):
		j++
		if j < len(t.src) && isOct(t.src[j]) {
			j++
		}
	case inClass:
		return true, t.fail(at, `bad escape \%c`, c)
	default:
		return true, t.fail(at, "backreferences are not supported")
	}
	v, _ := strconv.ParseUint(t.src[t.i:j], 8, 32)
	t.i = j
	if v > 0o377 {
		return true, t.fail(at, "octal escape value %s outside of range 0-0o377", t.src[at:j])
	}
	return true, emit(v)
}

// escape translates a backslash escape outside a character class.
func (t *translator) escape() error {
	at := t.i
	t.i++
	if t.i >= len(t.src) {
		return t.fail(at, "bad escape (end of pattern)")
	}
	c := t.src[t.i]
	switch {
	case strings.IndexByte("dDsSwW", c) >= 0:
		t.out.WriteString(t.perlClass(c, false))
		t.i++
		return nil
	case strings.IndexByte("AbBzafnrtv", c) >= 0:
		t.out.WriteString(`\` + string(c))
		t.i++
		return nil
	case c == 'Z':
		t.out.WriteString(`\z`)
		t.i++
		return nil
	case c == 'N':
		return t.fail(at, `named Unicode escapes \N{...} are not supported`)
	}
	if handled, err := t.codeEscape(false); handled {
		return err
	}
	return t.literalEscape(at)
}

// literalEscape handles \ followed by anything that is not a recognised
// letter or digit: ASCII letters are errors (as in Python), everything else
// is that character literally.
func (t *translator) literalEscape(at int) error {
	c := t.src[t.i]
	if c < utf8.RuneSelf && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
		return t.fail(at, `bad escape \%c`, c)
	}
	_, size := utf8.DecodeRuneInString(t.src[t.i:])
	lit := t.src[t.i : t.i+size]
	t.i += size
	if c < utf8.RuneSelf {
		if c == ' ' || c == '#' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' {
			fmt.Fprintf(&t.out, `\x{%x}`, c)
		} else {
			t.out.WriteString(`\` + lit) // ASCII punctuation: always itself in RE2
		}
		return nil
	}
	t.out.WriteString(lit)
	return nil
}
