package streams_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// endlessChunkBytes is the content of one chunk of endlessScript.
const endlessChunkBytes = 64 * 1024

// endlessScript streams forever, as fast as the fixture can: 64 tokens of
// 1 KiB per chunk (64 KiB of content per event), no delay.
func endlessScript() fixtures.Script {
	tokens := make([]string, 64)
	for i := range tokens {
		tokens[i] = strings.Repeat("abcdefgh", 128)
	}
	return fixtures.Script{Forever: true, Content: tokens, TokensPerChunk: 64}
}

// gapsChunks is how many chunks gapsScript streams: a thousand more gaps
// than a result keeps, whatever the machine's speed.
const gapsChunks = stream.MaxKeptGaps + 1001

// gapsScript streams gapsChunks 1-byte tokens, one per chunk, as fast as
// the fixture can: the most chunk gaps a server can cause, counted, not
// timed, so that every machine sees more of them than are kept.
func gapsScript() fixtures.Script {
	return fixtures.Script{Content: slices.Repeat([]string{"a"}, gapsChunks)}
}

// TestMemoryBounded: a server that streams forever, as fast as it can, is
// cut by the policy timeout, and what the client keeps is bounded: the
// Result's content by stream.Client.MaxContentBytes, the record's by
// runner.Config.MaxContentChars (preview 240 characters). These bounds are
// the contract; the live heap they leave is measured by
// BenchmarkEndlessStreamHeap (docs/benchmarks.md), not asserted here.
func TestMemoryBounded(t *testing.T) {
	endless := endlessScript()
	token := endless.Content[0]
	const chunkBytes = endlessChunkBytes

	t.Run("client, default bound", func(t *testing.T) {
		srv := serve(t, endless)
		res, err := chat(t, srv, withTimeout(1500*time.Millisecond))
		assert.ErrorIs(t, err, stream.ErrPolicyTimeout, "the endless stream is cut by the policy timeout")
		require.Greater(t, res.TokenChunks, 0, "chunks arrived")
		assert.LessOrEqual(t, len(res.Content), stream.DefaultMaxContentBytes, "content kept is at most 8 MiB")
		assert.Equal(t, res.TokenChunks*chunkBytes > stream.DefaultMaxContentBytes, res.ContentTruncated, "truncation recorded exactly when the stream exceeded the bound")
		assert.Equal(t, res.TokenChunks, res.CompletionTokens, "every chunk still counted (no usage)")
		t.Logf("streamed %d MiB in %d chunks; kept %d bytes", res.TokenChunks*chunkBytes>>20, res.TokenChunks, len(res.Content))
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
	t.Run("gaps", func(t *testing.T) {
		srv := serve(t, gapsScript())
		res, err := chat(t, srv, func(_ *stream.Client, r *stream.Request) { r.MaxTokens = gapsChunks })
		require.NoError(t, err, "the long stream is read to its end")
		require.Equal(t, gapsChunks, res.TokenChunks, "every chunk arrived: more gaps than are kept")
		assert.Len(t, res.ITLms, stream.MaxKeptGaps, "ITLms keeps the first MaxKeptGaps gaps")
		assert.Equal(t, res.TokenChunks-1, res.Gaps.Count, "every gap is counted")
		p50 := res.ITLPercentile(50)
		assert.GreaterOrEqual(t, p50, res.Gaps.MinMS, "estimated p50 within the exact range")
		assert.LessOrEqual(t, p50, res.Gaps.MaxMS, "estimated p50 within the exact range")
		t.Logf("%d chunks; kept %d gaps; p50 %.4f ms, max %.3f ms", res.TokenChunks, len(res.ITLms), p50, res.Gaps.MaxMS)
		requireReleased(t, srv)
	})
	t.Run("gaps, record JSON", func(t *testing.T) {
		srv := serve(t, gapsScript())
		out := record(t, srv, simpleCase("long", fmt.Sprintf(`"max_tokens":%d`, gapsChunks)))
		require.NoError(t, out.Err, "the long stream is read to its end")
		require.Equal(t, gapsChunks, out.Record.Metrics.TokenChunks, "every chunk recorded: more gaps than are kept")
		data, err := resultio.FormatJSON(&results.Payload{Results: []results.Record{out.Record}})
		require.NoError(t, err, "render")
		assert.Len(t, out.Record.Metrics.ITLms, stream.MaxKeptGaps, "the record keeps MaxKeptGaps gaps")
		assert.Less(t, len(data), 256<<10, "one case's JSON stays bounded (%d chunks streamed)", out.Record.Metrics.TokenChunks)
		requireReleased(t, srv)
	})
	t.Run("record", func(t *testing.T) {
		srv := serve(t, endless)
		out := record(t, srv, simpleCase("endless", `"policy_timeout_ms":1500`), func(c *runner.Config) {
			c.IncludeContent = true
			c.MaxContentChars = 1000
		})
		rec := out.Record
		assert.ErrorIs(t, out.Err, stream.ErrPolicyTimeout, "policy timeout")
		require.NotNil(t, rec.Quality.Content, "content included")
		assert.Equal(t, 1000, utf8.RuneCountInString(*rec.Quality.Content), "record content bounded by MaxContentChars")
		assert.Equal(t, runner.PreviewChars, utf8.RuneCountInString(rec.Quality.ContentPreview), "preview is 240 characters")
		assert.LessOrEqual(t, rec.Quality.ContentChars, stream.DefaultMaxContentBytes, "content_chars counts the bounded content")
		requireReleased(t, srv)
	})
}

// heapAfterGC is the live heap (HeapAlloc) after two full collections, in
// bytes.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// waitReleased waits until the fixture has no request in flight, so that
// the next op's heap baseline does not include the last op's server side.
func waitReleased(b *testing.B, srv *fixtures.Server) {
	b.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for running(srv) != 0 {
		if time.Now().After(deadline) {
			b.Fatal("streams: the fixture's handler did not return within 10 s of the client letting go")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// BenchmarkEndlessStreamHeap measures what one request to a server that
// streams forever (64 KiB of content per event, no delay) leaves on the
// heap once the 1 s policy timeout has cut it, while its result is still
// held. One op is one such request; both sub-benchmarks run the fixture
// in the process.
//
//	client  stream.Client.ChatStream with the default MaxContentBytes (8 MiB)
//	record  runner.RunCase with IncludeContent and MaxContentChars 1000
//
// Reported units:
//
//	heap-growth-B  largest live-heap growth (HeapAlloc after GC, bytes) of
//	               any op, measured around the op with the result alive;
//	               it includes the fixture's side of the request
//	retained-B     content bytes kept by the last op (Result.Content or
//	               the record's quality.content)
//	streamed-B     content bytes streamed per op, mean (client only)
//	itl-count      chunk gaps per op, mean (gaps only: 1-byte chunks)
//	itl-kept       chunk gaps kept in ITLms by the last op (gaps only)
//
// Run: go test -run '^$' -bench EndlessStreamHeap ./tests/streams/
func BenchmarkEndlessStreamHeap(b *testing.B) {
	sc := endlessScript()
	responder := func(fixtures.Request) fixtures.Script { return sc }

	b.Run("client", func(b *testing.B) {
		srv := fixtures.Start(b, fixtures.Options{Responder: responder})
		c := &stream.Client{BaseURL: srv.URL, HTTP: srv.Client()}
		req := stream.Request{Model: srv.Model(), Timeout: time.Second,
			Messages: []results.Message{{"role": "user", "content": "hello there"}}}
		var growth, streamed int64
		retained := 0
		for b.Loop() {
			before := heapAfterGC()
			res, err := c.ChatStream(context.Background(), req)
			after := heapAfterGC()
			if !errors.Is(err, stream.ErrPolicyTimeout) {
				b.Fatalf("streams: the endless stream must be cut by the policy timeout, got %v", err)
			}
			growth = max(growth, int64(after)-int64(before))
			retained = len(res.Content)
			streamed += int64(res.TokenChunks) * endlessChunkBytes
			runtime.KeepAlive(res)
			waitReleased(b, srv)
		}
		b.ReportMetric(float64(growth), "heap-growth-B")
		b.ReportMetric(float64(retained), "retained-B")
		b.ReportMetric(float64(streamed)/float64(b.N), "streamed-B")
	})

	b.Run("gaps", func(b *testing.B) {
		gaps := gapsScript()
		srv := fixtures.Start(b, fixtures.Options{Responder: func(fixtures.Request) fixtures.Script { return gaps }})
		c := &stream.Client{BaseURL: srv.URL, HTTP: srv.Client()}
		req := stream.Request{Model: srv.Model(), Timeout: time.Second,
			Messages: []results.Message{{"role": "user", "content": "hello there"}}}
		var growth, count int64
		kept := 0
		for b.Loop() {
			before := heapAfterGC()
			res, err := c.ChatStream(context.Background(), req)
			after := heapAfterGC()
			if !errors.Is(err, stream.ErrPolicyTimeout) {
				b.Fatalf("streams: the endless stream must be cut by the policy timeout, got %v", err)
			}
			growth = max(growth, int64(after)-int64(before))
			count += int64(res.Gaps.Count)
			kept = len(res.ITLms)
			runtime.KeepAlive(res)
			waitReleased(b, srv)
		}
		b.ReportMetric(float64(growth), "heap-growth-B")
		b.ReportMetric(float64(count)/float64(b.N), "itl-count")
		b.ReportMetric(float64(kept), "itl-kept")
	})

	b.Run("record", func(b *testing.B) {
		srv := fixtures.Start(b, fixtures.Options{Responder: responder})
		w, err := workloads.Parse([]byte(`{"name":"streams","cases":[`+simpleCase("endless", `"policy_timeout_ms":1000`)+`]}`), "streams.json")
		if err != nil {
			b.Fatalf("streams: the benchmark's workload must load: %v", err)
		}
		r, err := runner.New(context.Background(), runner.Config{URL: srv.URL, RequestTimeout: 30 * time.Second,
			IncludeContent: true, MaxContentChars: 1000})
		if err != nil {
			b.Fatalf("streams: runner against the fixture: %v", err)
		}
		defer r.Close()
		var growth int64
		retained := 0
		for b.Loop() {
			before := heapAfterGC()
			out := r.RunCase(context.Background(), w, w.Cases[0], 0, nil)
			after := heapAfterGC()
			if !errors.Is(out.Err, stream.ErrPolicyTimeout) || out.Record.Quality.Content == nil {
				b.Fatalf("streams: want a policy timeout with content included, got %v", out.Err)
			}
			growth = max(growth, int64(after)-int64(before))
			retained = len(*out.Record.Quality.Content)
			runtime.KeepAlive(out)
			waitReleased(b, srv)
		}
		b.ReportMetric(float64(growth), "heap-growth-B")
		b.ReportMetric(float64(retained), "retained-B")
	})
}
