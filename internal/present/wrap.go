package present

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// Wrap folds each line of s that is wider than cols columns: it breaks at
// the last space that keeps the line within cols (the space is dropped),
// or, in a word longer than the line, between two runes, never inside an
// escape written by Escape or Line (\x1b, \u202e, \n). Every line after a
// break starts with indent, which counts towards cols. East Asian wide
// runes take two columns, combining marks none. s should already be
// escaped (Wrap does not escape). A cols below 10 plus the indent's
// width is raised to that.
func Wrap(s string, cols int, indent string) string {
	cols = max(cols, 10+Width(indent))
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = wrapLine(l, cols, indent)
	}
	return strings.Join(lines, "\n")
}

// wrapLine folds one line: words (split at single spaces, the line's
// leading spaces kept with its first word) are put greedily on lines of
// at most cols columns; a word wider than a whole line is split between
// its atoms.
func wrapLine(l string, cols int, indent string) string {
	if Width(l) <= cols {
		return l
	}
	body := strings.TrimLeft(l, " ")
	lead := l[:len(l)-len(body)]
	var out []string
	cur, curW := lead, Width(lead)
	fresh := true // cur holds no word yet
	flush := func() {
		out = append(out, cur)
		cur, curW, fresh = indent, Width(indent), true
	}
	for _, word := range strings.Split(body, " ") {
		w := Width(word)
		if !fresh && curW+1+w > cols {
			flush()
		}
		if !fresh {
			cur, curW = cur+" ", curW+1
		}
		if curW+w <= cols {
			cur, curW, fresh = cur+word, curW+w, false
			continue
		}
		for _, a := range splitAtoms(word) { // longer than a line
			aw := Width(a)
			if curW+aw > cols && !fresh {
				flush()
			}
			cur, curW, fresh = cur+a, curW+aw, false
		}
	}
	out = append(out, cur)
	return strings.Join(out, "\n")
}

// Fit cuts an escaped line to at most cols columns (a live progress line
// to the terminal's width), between two runes and never inside an escape.
func Fit(l string, cols int) string {
	if Width(l) <= cols {
		return l
	}
	var b strings.Builder
	w := 0
	for _, a := range splitAtoms(l) {
		aw := Width(a)
		if w+aw > cols {
			break
		}
		b.WriteString(a)
		w += aw
	}
	return b.String()
}

// splitAtoms splits a line into the pieces a break may fall between: each
// escape as Escape writes it (\a \b \f \n \r \t \v, \xNN, \uNNNN,
// \UNNNNNNNN) is one piece, every other rune one piece.
func splitAtoms(l string) []string {
	var atoms []string
	for i := 0; i < len(l); {
		n := escapeLen(l[i:])
		if n == 0 {
			_, n = utf8.DecodeRuneInString(l[i:])
		}
		atoms = append(atoms, l[i:i+n])
		i += n
	}
	return atoms
}

// escapeLen is the length of the escape s starts with, 0 when it starts
// with none.
func escapeLen(s string) int {
	if len(s) < 2 || s[0] != '\\' {
		return 0
	}
	digits := 0
	switch s[1] {
	case 'a', 'b', 'f', 'n', 'r', 't', 'v':
		return 2
	case 'x':
		digits = 2
	case 'u':
		digits = 4
	case 'U':
		digits = 8
	default:
		return 0
	}
	if len(s) < 2+digits {
		return 0
	}
	for _, c := range s[2 : 2+digits] {
		if !strings.ContainsRune(hexDigits+"ABCDEF", c) {
			return 0
		}
	}
	return 2 + digits
}

// Width is the number of terminal columns s takes: two for an East Asian
// wide or fullwidth rune, none for a combining mark, one for any other.
func Width(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r):
		case r >= 0x1100 && isWide(r):
			n += 2
		default:
			n++
		}
	}
	return n
}

func isWide(r rune) bool {
	k := width.LookupRune(r).Kind()
	return k == width.EastAsianWide || k == width.EastAsianFullwidth
}
