package stream

import (
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/benchserve/benchserve/results"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// transcriptSection is one recorded exchange of a curl transcript.
type transcriptSection struct {
	status int
	ctype  string
	body   string
}

// loadTranscript parses tests/integration/testdata/ollama-transcript.txt into
// sections keyed by their "### " headline.
func loadTranscript(t *testing.T) map[string]transcriptSection {
	data, err := os.ReadFile("../../tests/integration/testdata/ollama-transcript.txt")
	if err != nil {
		t.Skipf("recorded Ollama transcript not available: %v", err)
	}
	out := map[string]transcriptSection{}
	for _, sec := range strings.Split(string(data), "\n### ")[1:] {
		title, rest, _ := strings.Cut(sec, "\n")
		_, rest, _ = strings.Cut("\n"+rest, "\n$ ") // skip continued headline lines
		_, rest, _ = strings.Cut(rest, "\n")        // and the curl line
		s := transcriptSection{status: 200, ctype: "text/event-stream"}
		if strings.HasPrefix(rest, "HTTP/1.1 ") {
			head, body, _ := strings.Cut(rest, "\n\n")
			s.status, _ = strconv.Atoi(head[9:12])
			for _, h := range strings.Split(head, "\n")[1:] {
				if k, v, ok := strings.Cut(h, ": "); ok && strings.EqualFold(k, "Content-Type") {
					s.ctype = v
				}
			}
			rest = body
		}
		rest, _, _ = strings.Cut(rest, "<end of body>")
		s.body = rest
		out[title] = s
	}
	return out
}

func TestOllamaTranscriptReplay(t *testing.T) {
	secs := loadTranscript(t)
	replay := func(t *testing.T, prefix string) (*Result, error) {
		t.Helper()
		var sec transcriptSection
		found := false
		for title, s := range secs {
			if strings.HasPrefix(title, prefix) {
				sec, found = s, true
			}
		}
		require.True(t, found, "transcript section %q must exist", prefix)
		srv, _ := handlerServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", sec.ctype)
			w.WriteHeader(sec.status)
			_, _ = w.Write([]byte(sec.body))
		})
		return run(t, srv, Request{Messages: []results.Message{{"role": "user", "content": "hi"}}})
	}
	t.Run("length with usage", func(t *testing.T) {
		res, err := replay(t, "stream with include_usage")
		require.NoError(t, err, "recorded stream must parse")
		assert.Equal(t, " and in against on that", res.Content, "content")
		assert.Equal(t, "length", res.FinishReason, "finish reason")
		assert.Equal(t, &results.Usage{PromptTokens: 29, CompletionTokens: 5, TotalTokens: 34}, res.Usage, "usage")
		assert.Equal(t, 5, res.TokenChunks, "the final role+empty-content chunk is not a token")
		assert.Equal(t, "chatcmpl-40", res.RequestID, "request id")
	})
	t.Run("no usage chunk", func(t *testing.T) {
		res, err := replay(t, "stream without stream_options")
		require.NoError(t, err, "recorded stream must parse")
		assert.Nil(t, res.Usage, "no usage")
		assert.Equal(t, 3, res.CompletionTokens, "completion tokens counted from chunks")
	})
	t.Run("404 unknown model", func(t *testing.T) {
		_, err := replay(t, "unknown model")
		var he *HTTPError
		require.ErrorAs(t, err, &he, "HTTPError")
		assert.Equal(t, `model "nope" not found, try pulling it first`, he.Message, "Ollama's message")
	})
	t.Run("body ends without DONE", func(t *testing.T) {
		res, err := replay(t, "prediction and the body just ends") // second headline line of the "temperature 0" section
		assert.ErrorIs(t, err, ErrTruncated, "aborted prediction is truncated")
		assert.Equal(t, " the the the", res.Content, "content kept")
		assert.Equal(t, "", res.FinishReason, "no finish reason")
	})
	t.Run("non-streaming answer", func(t *testing.T) {
		_, err := replay(t, "non-streaming")
		assert.ErrorIs(t, err, ErrTruncated, "a JSON answer has no [DONE]")
		assert.Contains(t, err.Error(), `Content-Type "application/json": the server did not stream`, "the message says why")
	})
}
