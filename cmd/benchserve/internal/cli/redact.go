package cli

import (
	"io"
	"strings"

	"github.com/benchserve/benchserve/internal/serverinfo"
)

// redacting returns e with stdout and stderr filtered through
// serverinfo.SecretReplacer(rawURL, keys...) when the URL carries a
// password or a token, or an API key is given (everything the command prints, including errors of the packages
// it calls that quote the URL, then shows "user:xxxxx@"); e itself when
// it carries none.
func (e *env) redacting(rawURL string, keys ...string) *env {
	r := serverinfo.SecretReplacer(rawURL, keys...)
	if r == nil {
		return e
	}
	c := *e
	c.stdout = &redactWriter{w: e.stdout, r: r}
	c.stderr = &redactWriter{w: e.stderr, r: r}
	return &c
}

// redactWriter replaces secrets in each Write (callers write whole
// lines, so a secret is never split across two writes).
type redactWriter struct {
	w io.Writer
	r *strings.Replacer
}

func (rw *redactWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(rw.w, rw.r.Replace(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// unwrapWriter returns the writer under a redactWriter.
func unwrapWriter(w io.Writer) io.Writer {
	if rw, ok := w.(*redactWriter); ok {
		return rw.w
	}
	return w
}

func init() {
	// The live progress line needs the terminal under the filter.
	isTerm := stderrIsTerminal
	stderrIsTerminal = func(w io.Writer) bool { return isTerm(unwrapWriter(w)) }
}
