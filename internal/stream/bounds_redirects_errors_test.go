package stream

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/openai"
	"github.com/benchserve/benchserve/results"
)

// Bounded content, redirects with a caller's client, the headers an HTTP
// error carries, vLLM's error object inside a stream and tool calls that
// reuse an index with a new id.

func TestContentIsBoundedByMaxContentBytes(t *testing.T) {
	// 10 chunks of "ab€" (5 bytes each) and 3 reasoning chunks, limit 12
	// bytes: content keeps "ab€ab€" + "ab" (the next "€" would cross the
	// limit and is cut on its rune boundary).
	var parts []string
	for range 3 {
		parts = append(parts, ev(`{"choices":[{"delta":{"reasoning_content":"xyzxyz"}}]}`))
	}
	for range 10 {
		parts = append(parts, content("b", "ab€"))
	}
	parts = append(parts, usageEv(4, 13), done)
	srv, _ := scriptServer(t, whole(parts...)...)
	c := newClient(srv)
	c.MaxContentBytes = 12
	res, err := c.ChatStream(context.Background(), Request{Model: "m"})
	require.NoError(t, err, "a bounded result is still a successful stream")
	assert.Equal(t, "ab€ab€ab", res.Content, "content cut at 12 bytes on a rune boundary")
	assert.True(t, res.ContentTruncated, "truncation is recorded")
	assert.Equal(t, "xyzxyzxyzxyz", res.Reasoning, "reasoning bounded by the same limit")
	assert.True(t, res.ReasoningTruncated, "reasoning truncation is recorded")
	assert.Equal(t, 13, res.TokenChunks, "every chunk still counts")
	if res.DecodeTiming == "" { // split into reads more than 1 ms apart (a loaded machine)
		assert.Len(t, res.ITLms, 12, "every gap still measured")
	} else {
		assert.Equal(t, DecodeBurst, res.DecodeTiming, "one write: a burst, so no gaps are reported")
	}
	assert.Equal(t, 13, res.CompletionTokens, "usage still read")
	assert.True(t, res.Done, "read to [DONE]")
}

func TestContentBoundDefaultsAndOff(t *testing.T) {
	assert.Equal(t, DefaultMaxContentBytes, (&Client{}).maxContentBytes(), "0 means the 8 MiB default")
	assert.Equal(t, 8<<20, DefaultMaxContentBytes, "default is 8 MiB")
	srv, _ := scriptServer(t, whole(content("b", strings.Repeat("z", 100)), done)...)
	c := newClient(srv)
	c.MaxContentBytes = -1
	res, err := c.ChatStream(context.Background(), Request{Model: "m"})
	require.NoError(t, err, "stream must succeed")
	assert.Len(t, res.Content, 100, "a negative limit keeps everything")
	assert.False(t, res.ContentTruncated, "nothing dropped")
}

func TestRedirectIsNotFollowedWithCallersClient(t *testing.T) {
	for _, code := range []int{301, 302, 303, 307, 308} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			srv, rec := handlerServer(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Query().Get("moved") == "" {
					http.Redirect(w, r, "/v1/chat/completions?moved=1", code)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write([]byte(content("r", "followed") + done))
			})
			// srv.Client() has no CheckRedirect: Go's default would follow.
			res, err := newClient(srv).ChatStream(context.Background(), Request{Model: "m"})
			var he *HTTPError
			require.ErrorAs(t, err, &he, "a redirect must surface as an HTTPError, not be followed")
			assert.Equal(t, code, he.StatusCode, "redirect status")
			assert.Equal(t, "/v1/chat/completions?moved=1", he.Location, "Location kept")
			assert.Contains(t, he.Message, "redirect to /v1/chat/completions?moved=1 not followed", "message names the Location")
			assert.Empty(t, res.Content, "nothing read from the target")
			rec.mu.Lock()
			defer rec.mu.Unlock()
			assert.Len(t, rec.paths, 1, "the redirect target was never requested")
		})
	}
	t.Run("explicit policy respected", func(t *testing.T) {
		srv, _ := handlerServer(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("moved") == "" {
				http.Redirect(w, r, "/v1/chat/completions?moved=1", http.StatusTemporaryRedirect)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte(content("r", "followed") + done))
		})
		hc := *srv.Client()
		hc.CheckRedirect = func(*http.Request, []*http.Request) error { return nil }
		res, err := (&Client{BaseURL: srv.URL, HTTP: &hc}).ChatStream(context.Background(), Request{Model: "m"})
		require.NoError(t, err, "a caller that opts in to redirects gets them (307 resends the POST body)")
		assert.Equal(t, "followed", res.Content, "content from the target")
	})
}

func TestHTTPErrorHeaders(t *testing.T) {
	t.Run("401 WWW-Authenticate", func(t *testing.T) {
		srv, _ := handlerServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="api", error="invalid_token"`)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(401)
			_, _ = w.Write([]byte(`{"error":{"message":"Invalid API key","type":"authentication_error"}}`))
		})
		_, err := run(t, srv, Request{})
		var he *HTTPError
		require.ErrorAs(t, err, &he, "HTTPError")
		assert.Equal(t, `Bearer realm="api", error="invalid_token"`, he.Authenticate, "challenge kept")
		assert.Equal(t, `Invalid API key (WWW-Authenticate: Bearer realm="api", error="invalid_token")`, he.Message, "message carries the challenge")
	})
	t.Run("429 Retry-After seconds", func(t *testing.T) {
		srv, _ := handlerServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(429)
			_, _ = w.Write([]byte(`{"error":"rate limited"}`))
		})
		_, err := run(t, srv, Request{})
		var he *HTTPError
		require.ErrorAs(t, err, &he, "HTTPError")
		assert.Equal(t, 7*time.Second, he.RetryAfter, "delay-seconds parsed")
		assert.Equal(t, "stream: HTTP 429: rate limited (Retry-After: 7)", err.Error(), "message carries Retry-After")
	})
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	assert.Equal(t, 90*time.Second, parseRetryAfter(now.Add(90*time.Second).Format(http.TimeFormat), now), "HTTP-date")
	assert.Equal(t, time.Duration(0), parseRetryAfter(now.Add(-time.Hour).Format(http.TimeFormat), now), "past date")
	assert.Equal(t, time.Duration(0), parseRetryAfter("soon", now), "garbage")
	assert.Equal(t, time.Duration(0), parseRetryAfter("-3", now), "negative")
}

func TestVLLMErrorResponseInStream(t *testing.T) {
	// vLLM (before its {"error":{…}} envelope) streamed its ErrorResponse
	// as a bare data event; decoded as a chunk with no choices it
	// would carry on to [DONE]: a success with 0 tokens.
	srv, _ := scriptServer(t, whole(content("v", "par"),
		ev(`{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.","type":"BadRequestError","param":null,"code":400}`),
		done)...)
	res, err := run(t, srv, Request{})
	var se *ServerError
	require.ErrorAs(t, err, &se, `an "object":"error" event is a ServerError`)
	assert.Equal(t, "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.", se.Message, "server message")
	assert.Equal(t, "400", se.Code, "code")
	assert.Equal(t, "par", res.Content, "partial content kept")
	assert.False(t, res.Done, "not a completed stream")
}

func TestToolCallsSameIndexNewID(t *testing.T) {
	zero := 0
	var a ToolCallAccumulator
	a.Add([]openai.ToolCallDelta{{Index: &zero, ID: "call_1", Type: "function", Function: &openai.FunctionCallDelta{Name: "get_weather", Arguments: `{"city":"Paris"}`}}})
	a.Add([]openai.ToolCallDelta{{Index: &zero, ID: "call_2", Type: "function", Function: &openai.FunctionCallDelta{Name: "get_time", Arguments: `{"tz":`}}})
	a.Add([]openai.ToolCallDelta{{Index: &zero, ID: "call_2", Function: &openai.FunctionCallDelta{Arguments: `"UTC"}`}}})
	assert.Equal(t, []results.ToolCall{
		{ID: "call_1", Type: "function", Function: results.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}},
		{ID: "call_2", Type: "function", Function: results.FunctionCall{Name: "get_time", Arguments: `{"tz":"UTC"}`}},
	}, a.Calls(), "every call at index 0 with its own id stays a separate call")
}
