package present

import (
	"strconv"
	"strings"
)

// The limits of the kinds of fields, in bytes of escaped text shown
// before the cut mark. They are generous for what the fields hold in
// practice and stop a server's 10 KB string from filling a screen.
const (
	// NameLimit bounds a name or an id: a model name, a case or contract
	// id, a tool name, a finish reason, a run id, a label.
	NameLimit = 100
	// PathLimit bounds a file path or a URL.
	PathLimit = 300
	// MessageLimit bounds an error message or a check's issue.
	MessageLimit = 600
	// EvidenceLimit bounds a conformance contract's evidence: the rule it
	// breaks, what was sent and what came back (Wrap folds it).
	EvidenceLimit = 2000
)

// Name is Cut(s, NameLimit): a model name, an id, a tool name.
func Name(s string) string { return Cut(s, NameLimit) }

// Path is Cut(s, PathLimit): a file path or a URL.
func Path(s string) string { return Cut(s, PathLimit) }

// Message is Cut(s, MessageLimit): an error message or a check's issue,
// on one line (a newline in it is shown as \n, so a server's message
// cannot start a line that looks like benchserve's own).
func Message(s string) string { return Cut(s, MessageLimit) }

// Evidence is Cut(s, EvidenceLimit): a conformance contract's evidence.
func Evidence(s string) string { return Cut(s, EvidenceLimit) }

// Cut returns Line(s) when it is at most limit bytes long; otherwise its
// first runes that fit in limit bytes (an escape is never split) and the
// mark "…(+N bytes)", N being the bytes of s left out, with thousands
// separated by commas ("…(+10,140 bytes)"). A limit below 1 means 1.
func Cut(s string, limit int) string {
	limit = max(limit, 1)
	if len(s)*4 <= limit { // even fully escaped it fits
		return Line(s)
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		piece, n := next(s[i:], false)
		if b.Len()+len(piece) > limit {
			b.WriteString(CutMark(len(s) - i))
			return b.String()
		}
		b.WriteString(piece)
		i += n
	}
	return b.String()
}

// Head is the longest prefix of s of at most limit bytes that ends at a
// rune boundary, and the number of bytes of s left out. It does not
// escape: for a door that escapes by other means (an HTML page).
func Head(s string, limit int) (string, int) {
	if len(s) <= limit {
		return s, 0
	}
	end := 0
	for i := range s {
		if i > limit {
			break
		}
		end = i
	}
	return s[:end], len(s) - end
}

// Shorten is Head(s, limit) with CutMark when something was left out.
func Shorten(s string, limit int) string {
	h, n := Head(s, limit)
	if n > 0 {
		h += CutMark(n)
	}
	return h
}

// CutMark is the mark Cut puts where it cut n bytes: "…(+10,140 bytes)".
func CutMark(n int) string {
	unit := " bytes)"
	if n == 1 {
		unit = " byte)"
	}
	return "…(+" + thousands(n) + unit
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if len(s) <= 3 || n < 0 {
		return s
	}
	var b strings.Builder
	lead := len(s) % 3
	if lead > 0 {
		b.WriteString(s[:lead])
	}
	for i := lead; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}
