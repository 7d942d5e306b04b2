package stream_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
)

// TestLargePromptAndEventIntact sends a 2 MB prompt (419,430 words) and
// reads a 2 MB answer carried by one SSE event. The fixture's context is
// 32,768 tokens, so it refuses the prompt with vLLM's 400 naming the
// tokens it counted: all 419,430 arrived; with Options.MaxModelLen 2^19
// it answers it, its usage counting every word. The answer (to a short prompt)
// keeps every byte (no 64 KB line limit; the event
// bound is stream.DefaultMaxEventBytes, 16 MiB, and above it the read
// fails with ErrEventTooLarge, see TestEventTooLarge).
func TestLargePromptAndEventIntact(t *testing.T) {
	const size = 2 << 20
	prompt := strings.Repeat("word ", size/5)
	answer := strings.Repeat("b", size)
	srv := fixtures.Start(t, fixtures.Options{})
	c := &stream.Client{BaseURL: srv.URL, HTTP: srv.Client()}
	_, err := c.ChatStream(t.Context(), stream.Request{
		Model:    "benchserve-fixture",
		Messages: []results.Message{{"role": "user", "content": prompt}},
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "your request has 419430 input tokens", "the fixture counted every word of the prompt")

	srv = fixtures.Start(t, fixtures.Options{MaxModelLen: 1 << 19})
	c = &stream.Client{BaseURL: srv.URL, HTTP: srv.Client()}
	res, err := c.ChatStream(t.Context(), stream.Request{
		Model:     "benchserve-fixture",
		Messages:  []results.Message{{"role": "user", "content": prompt}},
		MaxTokens: 4,
	})
	require.NoError(t, err, "a context of 524,288 tokens takes the 2 MB prompt")
	require.NotNil(t, res.Usage)
	assert.Equal(t, 419430, res.Usage.PromptTokens, "usage counts every word of the prompt")

	srv = fixtures.Start(t, fixtures.Options{Responder: func(fixtures.Request) fixtures.Script {
		return fixtures.Script{Content: []string{answer}}
	}})
	c = &stream.Client{BaseURL: srv.URL, HTTP: srv.Client()}
	res, err = c.ChatStream(t.Context(), stream.Request{
		Model:    "benchserve-fixture",
		Messages: []results.Message{{"role": "user", "content": "hello"}},
	})
	require.NoError(t, err)
	assert.Equal(t, size, len(res.Content), "answer bytes the client kept from one event")
	assert.False(t, res.ContentTruncated)
	assert.Equal(t, 1, res.TokenChunks, "one SSE event carried the whole answer")
}
