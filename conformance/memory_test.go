package conformance_test

import (
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/runner"
	"github.com/benchserve/benchserve/stream"
)

// heapAfterGC is the live heap after a full collection.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestMemoryBounded: a server that streams forever, as fast as it can, is
// cut by the policy timeout, and what the client keeps is bounded: the
// Result's content by stream.Client.MaxContentBytes, the record's by
// runner.Config.MaxContentChars (preview 240 characters).
func TestMemoryBounded(t *testing.T) {
	// 64 tokens of 1 KiB per chunk: 64 KiB per event, no delay.
	token := strings.Repeat("abcdefgh", 128)
	tokens := make([]string, 64)
	for i := range tokens {
		tokens[i] = token
	}
	endless := fixtures.Script{Forever: true, Content: tokens, TokensPerChunk: 64}
	const chunkBytes = 64 * 1024

	t.Run("client, default bound", func(t *testing.T) {
		srv := serve(t, endless)
		before := heapAfterGC()
		res, err := chat(t, srv, withTimeout(1500*time.Millisecond))
		after := heapAfterGC()
		assert.ErrorIs(t, err, stream.ErrPolicyTimeout, "the endless stream is cut by the policy timeout")
		require.Greater(t, res.TokenChunks, 0, "chunks arrived")
		assert.LessOrEqual(t, len(res.Content), stream.DefaultMaxContentBytes, "content kept is at most 8 MiB")
		assert.Equal(t, res.TokenChunks*chunkBytes > stream.DefaultMaxContentBytes, res.ContentTruncated, "truncation recorded exactly when the stream exceeded the bound")
		assert.Equal(t, res.TokenChunks, res.CompletionTokens, "every chunk still counted (no usage)")
		growth := int64(after) - int64(before)
		assert.Less(t, growth, int64(64<<20), "live heap growth %d bytes stays under 64 MiB after %d chunks (%d MiB streamed)", growth, res.TokenChunks, res.TokenChunks*chunkBytes>>20)
		t.Logf("streamed %d MiB in %d chunks; kept %d bytes; heap growth %d KiB", res.TokenChunks*chunkBytes>>20, res.TokenChunks, len(res.Content), growth>>10)
		runtime.KeepAlive(res)
		requireReleased(t, srv)
	})
	t.Run("client, small bound", func(t *testing.T) {
		srv := serve(t, endless)
		bound := func(c *stream.Client, _ *stream.Request) { c.MaxContentBytes = 100_000 }
		res, err := chat(t, srv, withTimeout(time.Second), bound)
		assert.ErrorIs(t, err, stream.ErrPolicyTimeout, "cut by the policy timeout")
		require.Greater(t, res.TokenChunks, 2, "several 64 KiB chunks arrived")
		assert.Equal(t, 100_000, len(res.Content), "content cut at exactly the bound (ASCII)")
		assert.True(t, res.ContentTruncated, "truncated")
		assert.Equal(t, strings.Repeat(token, 100)[:100_000], res.Content, "the kept text is the stream's beginning")
		requireReleased(t, srv)
	})
	t.Run("record", func(t *testing.T) {
		srv := serve(t, endless)
		before := heapAfterGC()
		out := record(t, srv, simpleCase("endless", `"policy_timeout_ms":1500`), func(c *runner.Config) {
			c.IncludeContent = true
			c.MaxContentChars = 1000
		})
		after := heapAfterGC()
		rec := out.Record
		assert.ErrorIs(t, out.Err, stream.ErrPolicyTimeout, "policy timeout")
		require.NotNil(t, rec.Quality.Content, "content included")
		assert.Equal(t, 1000, utf8.RuneCountInString(*rec.Quality.Content), "record content bounded by MaxContentChars")
		assert.Equal(t, runner.PreviewChars, utf8.RuneCountInString(rec.Quality.ContentPreview), "preview is 240 characters")
		assert.LessOrEqual(t, rec.Quality.ContentChars, stream.DefaultMaxContentBytes, "content_chars counts the bounded content")
		assert.Less(t, int64(after)-int64(before), int64(64<<20), "live heap growth under 64 MiB")
		runtime.KeepAlive(out)
		requireReleased(t, srv)
	})
}
