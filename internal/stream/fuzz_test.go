package stream

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// parseBody runs the event loop over body as delivered by r (no network)
// and returns the result and error text.
func parseBody(r io.Reader, maxEvent int) (*Result, string) {
	st := &state{res: &Result{}, start: time.Now()}
	err := st.read(r, maxEvent)
	st.finish(time.Now())
	if err != nil {
		return st.res, err.Error()
	}
	return st.res, ""
}

// pieceReader returns at most n bytes per Read.
type pieceReader struct {
	r io.Reader
	n int
}

func (p *pieceReader) Read(b []byte) (int, error) { return p.r.Read(b[:min(len(b), p.n)]) }

// FuzzSSE feeds arbitrary bodies through the SSE splitter, field parser and
// chunk decoder: it must never panic or hang, and the outcome must not
// depend on how the body is split into reads. Seeds live in
// testdata/fuzz/FuzzSSE.
func FuzzSSE(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		const maxEvent = 4096
		whole, wholeErr := parseBody(bytes.NewReader(body), maxEvent)
		split, splitErr := parseBody(&pieceReader{r: bytes.NewReader(body), n: len(body)%7 + 1}, maxEvent)
		assert.Equal(t, wholeErr, splitErr, "error must not depend on read sizes")
		assert.Equal(t, whole.Content, split.Content, "content must not depend on read sizes")
		assert.Equal(t, whole.Reasoning, split.Reasoning, "reasoning must not depend on read sizes")
		assert.Equal(t, whole.TokenChunks, split.TokenChunks, "token chunks must not depend on read sizes")
		assert.Equal(t, whole.Done, split.Done, "done must not depend on read sizes")
		assert.Equal(t, whole.ToolCalls, split.ToolCalls, "tool calls must not depend on read sizes")
		assert.Equal(t, whole.Done, wholeErr == "", "success exactly when [DONE] was read")
		if whole.DecodeTiming == "" {
			assert.Len(t, whole.ITLms, whole.TokenChunks-1, "one ITL per gap")
		} else {
			assert.Nil(t, whole.ITLms, "no ITL when the decode span is not observable")
		}
	})
}
