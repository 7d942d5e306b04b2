package present_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/internal/present"
)

func TestWriterEscapesEveryWrite(t *testing.T) {
	var buf bytes.Buffer
	w := present.NewWriter(&buf, nil)
	fmt.Fprintf(w, "  FAIL  %s\n", "boom\r  ok  \x1b[2K")
	assert.Equal(t, "  FAIL  boom\\r  ok  \\x1b[2K\n", buf.String(), "the CR and the erase sequence are shown, the newline of the line kept")
}

func TestWriterRedactsBeforeItCuts(t *testing.T) {
	var buf bytes.Buffer
	secret := "sk-" + strings.Repeat("s", 40)
	w := present.NewWriter(&buf, strings.NewReplacer(secret, "xxxxx").Replace)
	line := strings.Repeat("a", present.MaxLine-10) + secret + "\n"
	fmt.Fprint(w, line)
	assert.NotContains(t, buf.String(), "sk-sss", "no part of the secret is left by the cut")
	assert.Contains(t, buf.String(), "xxxxx", "the secret is redacted")
}

func TestWriterCutsALineLongerThanMaxLine(t *testing.T) {
	var buf bytes.Buffer
	w := present.NewWriter(&buf, nil)
	fmt.Fprintf(w, "model %s\nnext\n", strings.Repeat("\x1b", present.MaxLine))
	lines := strings.Split(buf.String(), "\n")
	assert.LessOrEqual(t, len(lines[0]), present.MaxLine+len(present.CutMark(1<<20)), "the long line is cut")
	assert.Contains(t, lines[0], "…(+", "with the mark")
	assert.Equal(t, "next", lines[1], "the next line is whole")
}

func TestControlAndRawRedactOnly(t *testing.T) {
	var buf bytes.Buffer
	w := present.NewWriter(&buf, strings.NewReplacer("KEY", "xxxxx").Replace)
	fmt.Fprint(w.Control(), "\r\x1b[K KEY")
	assert.Equal(t, "\r\x1b[K xxxxx", buf.String(), "terminal controls pass, the secret does not")
}
