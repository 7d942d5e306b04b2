package cli

import (
	"fmt"
	"io"

	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/internal/serverinfo"
)

// presenting returns e with stdout and stderr made *present.Writer (every
// line the command prints is escaped and cut there: a server's ESC, CR or
// U+202E cannot rewrite the terminal), the writers it was given kept for
// results data (printData) and a terminal's own controls (control). It
// is the first thing run does; a second call returns e.
func (e *env) presenting() *env {
	if _, ok := e.stdout.(*present.Writer); ok {
		return e
	}
	c := *e
	c.rawOut, c.rawErr = e.stdout, e.stderr
	c.stdout = present.NewWriter(c.rawOut, nil)
	c.stderr = present.NewWriter(c.rawErr, nil)
	return &c
}

// redacting returns e with every output (text, data and controls)
// filtered through serverinfo.SecretReplacer(rawURL, keys...) when the URL
// carries a password or a token, or an API key is given: errors of the
// packages it calls that quote the URL then show "user:xxxxx@", and an
// API key a server echoes shows as xxxxx. e itself when there is none.
func (e *env) redacting(rawURL string, keys ...string) *env {
	e = e.presenting()
	r := serverinfo.SecretReplacer(rawURL, keys...)
	if r == nil {
		return e
	}
	c := *e
	c.redact = r.Replace
	c.stdout = present.NewWriter(e.rawOut, c.redact)
	c.stderr = present.NewWriter(e.rawErr, c.redact)
	return &c
}

// out and errw are e's writers for a person.
func (e *env) out() *present.Writer  { return e.presenting().stdout.(*present.Writer) }
func (e *env) errw() *present.Writer { return e.presenting().stderr.(*present.Writer) }

// control is stderr for a caller that draws with terminal controls of
// its own and escapes what it shows (the live progress line): redacted,
// not escaped.
func (e *env) control() io.Writer { return e.errw().Control() }

// printData writes results data (rendered in format) and a newline to
// stdout. JSON is written with every unsafe rune as a \u escape
// (present.EscapeUnicode): the same JSON value, nothing a terminal acts
// on. A table is text for a person and is escaped as every line is. CSV
// and SQL keep their bytes for a pipe or a file, and are escaped only
// when stdout is a terminal (a person reads them there).
func (e *env) printData(format string, data []byte) {
	switch {
	case format == "json":
		fmt.Fprintf(e.out().Raw(), "%s\n", present.EscapeUnicode(string(data)))
	case format == "table", stdoutIsTerminal(e.rawOut):
		fmt.Fprintf(e.stdout, "%s\n", data)
	default:
		fmt.Fprintf(e.out().Raw(), "%s\n", data)
	}
}

// warn prints a problem about the run on stderr: "benchserve: warning:
// MSG" (runner.Config.Warn).
func (e *env) warn(msg string) {
	fmt.Fprintf(e.stderr, "benchserve: warning: %s\n", present.Message(msg))
}

// note prints what is informational about the run (the token
// calibration's numbers; runner.Config.Note) on stderr: "benchserve:
// note: MSG", not a warning, since nothing is wrong.
func (e *env) note(msg string) { fmt.Fprintf(e.stderr, "benchserve: note: %s\n", present.Message(msg)) }

// onTerminal reports whether e's stdout is a terminal (compare refuses to
// write an HTML page to one).
func (e *env) onTerminal() bool { return stdoutIsTerminal(e.rawOut) }

// stdoutIsTerminal decides whether CSV and SQL on stdout are escaped (a
// variable so tests can force it).
var stdoutIsTerminal = isTerminal

func init() {
	// The live progress line needs the terminal under the Writer.
	isTerm := stderrIsTerminal
	stderrIsTerminal = func(w io.Writer) bool {
		if pw, ok := w.(*present.Writer); ok {
			w = pw.Unwrap()
		}
		return isTerm(w)
	}
}
