package stream

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
)

// renderStream pre-renders a vLLM-shaped stream of n one-token chunks.
func renderStream(n int) []byte {
	var sb strings.Builder
	sb.WriteString(`data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1700000000,"model":"bench","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}` + "\n\n")
	words := []string{" the", " quick", " brown", " fox", "\\n", " jumps", " é"}
	for i := range n {
		sb.WriteString(`data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1700000000,"model":"bench","choices":[{"index":0,"delta":{"content":"`)
		sb.WriteString(words[i%len(words)])
		sb.WriteString(`"},"logprobs":null,"finish_reason":null}]}` + "\n\n")
	}
	sb.WriteString(`data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1700000000,"model":"bench","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"length"}]}` + "\n\n")
	sb.WriteString(`data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1700000000,"model":"bench","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":1000,"total_tokens":1010}}` + "\n\n")
	sb.WriteString("data: [DONE]\n\n")
	return []byte(sb.String())
}

// reportPerToken reports ns/token and allocs/token for tokens per op.
func reportPerToken(b *testing.B, tokens int, before *runtime.MemStats) {
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	n := float64(b.N) * float64(tokens)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/token")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/token")
}

// BenchmarkChatStream measures the whole client per streamed token against
// a loopback server writing a pre-rendered 1,000-chunk stream at full speed
// (the server's own work is in the figures too, but is a few large writes).
func BenchmarkChatStream(b *testing.B) {
	const tokens = 1000
	body := renderStream(tokens)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	c := &Client{BaseURL: srv.URL, HTTP: srv.Client()}
	req := Request{Model: "bench"}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for b.Loop() {
		res, err := c.ChatStream(context.Background(), req)
		if err != nil || res.TokenChunks != tokens {
			b.Fatalf("stream failed: %v (%d chunks)", err, res.TokenChunks)
		}
	}
	reportPerToken(b, tokens, &before)
}

// BenchmarkParse measures the event loop alone (splitter, fields, chunk
// decode, accounting) on an in-memory body: client CPU per token without
// the network.
func BenchmarkParse(b *testing.B) {
	const tokens = 1000
	body := renderStream(tokens)
	b.SetBytes(int64(len(body)))
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for b.Loop() {
		res, msg := parseBody(bytes.NewReader(body), DefaultMaxEventBytes)
		if msg != "" || res.TokenChunks != tokens {
			b.Fatalf("parse failed: %s", msg)
		}
	}
	reportPerToken(b, tokens, &before)
}
