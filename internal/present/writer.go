package present

import (
	"io"
	"strings"
)

// MaxLine is the longest line, in bytes of escaped text, a Writer lets
// through; a longer one is cut with CutMark. The fields of a line are cut
// to their own limits (Name, Message, …) before that: MaxLine is the net
// under a print site that forgot.
const MaxLine = 4096

// Writer is the writer a door prints through for a person. Every Write
// is redacted (when a redactor is set), escaped with Escape (tab and
// newline are kept) and each of its lines cut to MaxLine, then written to
// the underlying writer in one Write. Callers write whole strings, as
// fmt.Fprintf does: a rune split across two Writes would be shown as \xNN
// bytes. A Writer is as safe for concurrent use as the writer under it.
type Writer struct {
	w      io.Writer
	redact func(string) string
}

// NewWriter returns a Writer on w. redact, when not nil, is applied to the
// text of every Write before it is escaped and cut (so that a cut never
// leaves a part of a secret the redactor would have recognized whole).
func NewWriter(w io.Writer, redact func(string) string) *Writer {
	return &Writer{w: w, redact: redact}
}

// Write writes p as the type's comment says; it returns len(p) when the
// underlying Write succeeded.
func (pw *Writer) Write(p []byte) (int, error) {
	s := string(p)
	if pw.redact != nil {
		s = pw.redact(s)
	}
	s = Escape(s)
	if len(s) > MaxLine {
		s = cutLines(s)
	}
	if _, err := io.WriteString(pw.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}

// cutLines cuts every line of an escaped s that is longer than MaxLine.
func cutLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if len(l) > MaxLine {
			// l is escaped already: cut it between its atoms.
			var b strings.Builder
			for _, a := range splitAtoms(l) {
				if b.Len()+len(a) > MaxLine {
					break
				}
				b.WriteString(a)
			}
			lines[i] = b.String() + CutMark(len(l)-b.Len())
		}
	}
	return strings.Join(lines, "\n")
}

// Unwrap is the writer under pw (a terminal check looks at it).
func (pw *Writer) Unwrap() io.Writer { return pw.w }

// Control returns a writer that redacts like pw but neither escapes nor
// cuts: for a caller that draws with terminal controls of its own (the
// live progress line's "\r\x1b[K") and escapes every string it shows.
func (pw *Writer) Control() io.Writer {
	if pw.redact == nil {
		return pw.w
	}
	return redactOnly{pw.w, pw.redact}
}

// Raw returns a writer that redacts like pw and writes the bytes
// otherwise unchanged: for data (a results payload on stdout), never for
// text a person reads.
func (pw *Writer) Raw() io.Writer { return pw.Control() }

type redactOnly struct {
	w      io.Writer
	redact func(string) string
}

func (r redactOnly) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, r.redact(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
