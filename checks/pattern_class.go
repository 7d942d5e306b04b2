package checks

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// class translates a character class [...].
func (t *translator) class() error {
	start := t.i
	t.out.WriteByte('[')
	t.i++
	if t.i < len(t.src) && t.src[t.i] == '^' {
		t.out.WriteByte('^')
		t.i++
	}
	first := true
	for {
		if t.i >= len(t.src) {
			return t.fail(start, "unterminated character set")
		}
		c := t.src[t.i]
		switch {
		case c == ']' && !first:
			t.out.WriteByte(']')
			t.i++
			return nil
		case c == ']' || c == '[':
			// Python: ] first is literal, [ is always literal (RE2 would
			// read [: as a POSIX class).
			t.out.WriteString(`\` + string(c))
			t.i++
		case c == '\\':
			if err := t.classEscape(); err != nil {
				return err
			}
		default:
			_, size := utf8.DecodeRuneInString(t.src[t.i:])
			t.out.WriteString(t.src[t.i : t.i+size])
			t.i += size
		}
		first = false
	}
}

func (t *translator) classEscape() error {
	at := t.i
	t.i++
	if t.i >= len(t.src) {
		return t.fail(at, "bad escape (end of pattern)")
	}
	c := t.src[t.i]
	switch {
	case strings.IndexByte("dDsSwW", c) >= 0:
		t.out.WriteString(t.perlClass(c, true))
		t.i++
		return nil
	case strings.IndexByte("afnrtv", c) >= 0:
		t.out.WriteString(`\` + string(c))
		t.i++
		return nil
	case c == 'b':
		t.out.WriteString(`\x{8}`)
		t.i++
		return nil
	case c == 'N':
		return t.fail(at, `named Unicode escapes \N{...} are not supported`)
	}
	if handled, err := t.codeEscape(true); handled {
		return err
	}
	return t.literalEscape(at)
}

// Python's \s: str.isspace() characters in Unicode mode, [ \t\n\r\f\v] in
// ASCII mode. RE2's \s is [\t\n\f\r ] (no \v), so both are spelled out.
const (
	pySpaceASCII   = `\t-\r `
	pySpaceUnicode = `\t-\r\x{1c}- \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}`
)

// perlClass translates Python's \d \D \s \S \w \W (c is the letter) into
// RE2 with Python's meaning: in Unicode mode (Python's default for str
// patterns) \d is \p{Nd}, \w is [\p{L}\p{N}_] (str.isalnum() or '_'),
// \s is str.isspace(); with (?a) they are ASCII, and \s includes \v. Inside
// a class (inClass) the result is class content, negations spelled out as
// ranges.
func (t *translator) perlClass(c byte, inClass bool) string {
	var pos string
	switch c | 0x20 {
	case 'd':
		if t.ascii {
			return `\` + string(c) // RE2's \d \D are Python's ASCII ones
		}
		if c == 'd' {
			return `\p{Nd}`
		}
		return `\P{Nd}`
	case 'w':
		if t.ascii {
			return `\` + string(c) // RE2's \w \W are Python's ASCII ones
		}
		pos = `\p{L}\p{N}_`
		if c == 'W' && inClass {
			return unicodeNonWord()
		}
	case 's':
		pos = pySpaceUnicode
		if t.ascii {
			pos = pySpaceASCII
		}
		if c == 'S' && inClass {
			if t.ascii {
				return `\x{0}-\x{8}\x{e}-\x{1f}!-\x{10ffff}`
			}
			return `\x{0}-\x{8}\x{e}-\x{1b}!-\x{84}\x{86}-\x{9f}\x{a1}-\x{167f}\x{1681}-\x{1fff}` +
				`\x{200b}-\x{2027}\x{202a}-\x{202e}\x{2030}-\x{205e}\x{2060}-\x{2fff}\x{3001}-\x{10ffff}`
		}
	}
	switch {
	case inClass:
		return pos
	case c >= 'a':
		return "[" + pos + "]"
	default:
		return "[^" + pos + "]"
	}
}

// unicodeNonWord is the class content of Python's Unicode \W inside a
// class: every code point outside \p{L}, \p{N} and '_', as ranges (RE2 has
// no way to negate a union inside a class).
var unicodeNonWord = sync.OnceValue(func() string {
	var word []unicode.Range32
	for _, tab := range []*unicode.RangeTable{unicode.L, unicode.N, {R16: []unicode.Range16{{Lo: '_', Hi: '_', Stride: 1}}}} {
		for _, r := range tab.R16 {
			for lo := rune(r.Lo); lo <= rune(r.Hi); lo += rune(r.Stride) {
				word = append(word, unicode.Range32{Lo: uint32(lo), Hi: uint32(lo), Stride: 1})
				if r.Stride == 1 {
					word[len(word)-1].Hi = uint32(r.Hi)
					break
				}
			}
		}
		for _, r := range tab.R32 {
			for lo := r.Lo; lo <= r.Hi; lo += r.Stride {
				word = append(word, unicode.Range32{Lo: lo, Hi: lo, Stride: 1})
				if r.Stride == 1 {
					word[len(word)-1].Hi = r.Hi
					break
				}
			}
		}
	}
	sort.Slice(word, func(i, j int) bool { return word[i].Lo < word[j].Lo })
	var b strings.Builder
	next := uint32(0) // first code point not yet covered
	for _, r := range word {
		if r.Lo > next {
			fmt.Fprintf(&b, `\x{%x}-\x{%x}`, next, r.Lo-1)
		}
		next = max(next, r.Hi+1)
	}
	if next <= unicode.MaxRune {
		fmt.Fprintf(&b, `\x{%x}-\x{%x}`, next, unicode.MaxRune)
	}
	return b.String()
})
