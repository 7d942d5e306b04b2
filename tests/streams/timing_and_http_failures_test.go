package streams_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/stream"
)

// TestCase09Timing: what starts the clocks. A role-only first chunk is not
// a token; reasoning starts TTFT but not TTFO; multi-token chunks give a
// per-token TPOT from usage, kept apart from the chunk gaps (ITL).
// Delays are scripted on the fixture; lower bounds are exact, upper bounds
// carry the scheduling tolerance.
func TestCase09Timing(t *testing.T) {
	const id = "chatcmpl-tm"
	stop := sse(delta(id, `{}`, `"stop"`))
	t.Run("role-only first chunk at 5 ms, content at 214 ms", func(t *testing.T) {
		t.Parallel()
		for name, role := range map[string]string{
			"role only":                         `{"role":"assistant"}`,
			"role with empty content and tools": `{"role":"assistant","content":"","tool_calls":[]}`,
		} {
			t.Run(name, func(t *testing.T) {
				parts := []fixtures.RawPart{at(5*time.Millisecond, sse(delta(id, role, "null"))), at(209*time.Millisecond, sse(text(id, "Hi"))), at(0, stop+sse(usage(id, 3, 1))+done)}
				res, err := chat(t, raw(t, parts...))
				require.NoError(t, err, "stream succeeds")
				assert.GreaterOrEqual(t, res.TTFTms, 214.0, "TTFT at the content chunk (214 ms), not the role chunk (5 ms)")
				assert.LessOrEqual(t, res.TTFTms, 214.0+msOf(tol), "TTFT within tolerance")
				assert.Equal(t, res.TTFTms, res.TTFOms, "first output is the first token")
				assert.Equal(t, 1, res.TokenChunks, "the role chunk is not a token")
				out := record(t, raw(t, parts...), simpleCase("role", ""))
				require.NoError(t, out.Err, "the case succeeds")
				assert.GreaterOrEqual(t, out.Record.Metrics.TTFTms, 214.0, "record TTFT")
				assert.LessOrEqual(t, out.Record.Metrics.TTFTms, 214.0+msOf(tol), "record TTFT within tolerance")
			})
		}
	})
	for _, key := range []string{"reasoning_content", "reasoning"} {
		t.Run("reasoning at 350 ms, content at 2 s/"+key, func(t *testing.T) {
			t.Parallel()
			parts := []fixtures.RawPart{
				at(0, sse(delta(id, `{"role":"assistant"}`, "null"))),
				at(350*time.Millisecond, sse(delta(id, `{"`+key+`":"Let me think"}`, "null"))),
				at(100*time.Millisecond, sse(delta(id, `{"`+key+`":"."}`, "null"))),
				at(1550*time.Millisecond, sse(text(id, "42"))),
				at(0, stop+sse(usage(id, 10, 4))+done),
			}
			res, err := chat(t, raw(t, parts...))
			require.NoError(t, err, "stream succeeds")
			assert.Equal(t, "Let me think.", res.Reasoning, "reasoning text")
			assert.Equal(t, "42", res.Content, "content")
			assert.GreaterOrEqual(t, res.TTFTms, 350.0, "TTFT at the first reasoning delta (350 ms)")
			assert.LessOrEqual(t, res.TTFTms, 350.0+msOf(tol), "TTFT within tolerance")
			assert.GreaterOrEqual(t, res.TTFOms, 2000.0, "TTFO at the first content delta (2000 ms)")
			assert.LessOrEqual(t, res.TTFOms, 2000.0+msOf(tol), "TTFO within tolerance")
			assert.Less(t, res.TTFTms, res.TTFOms-1000, "TTFT well before TTFO")
			out := record(t, raw(t, parts...), simpleCase("think", ""))
			require.NoError(t, out.Err, "the case succeeds")
			require.NotNil(t, out.Record.Metrics.TTFOms, "record TTFO")
			assert.GreaterOrEqual(t, *out.Record.Metrics.TTFOms, 2000.0, "record TTFO")
			assert.Less(t, out.Record.Metrics.TTFTms, *out.Record.Metrics.TTFOms-1000, "record TTFT well before TTFO")
		})
	}
	t.Run("capped by length inside reasoning", func(t *testing.T) {
		t.Parallel()
		transcript := sse(delta(id, `{"role":"assistant"}`, "null")) + sse(delta(id, `{"reasoning_content":"Hmm,"}`, "null")) +
			sse(delta(id, `{"reasoning_content":" so"}`, "null")) + sse(delta(id, `{}`, `"length"`)) + sse(usage(id, 10, 2)) + done
		res, err := chat(t, body(t, transcript))
		require.NoError(t, err, "the stream is complete")
		assert.Equal(t, "Hmm, so", res.Reasoning, "reasoning")
		assert.False(t, res.HasOutput, "no output")
		assert.Equal(t, 0.0, res.TTFOms, "no TTFO")
		assert.Equal(t, "length", res.FinishReason, "length")
		out := record(t, body(t, transcript), simpleCase("capped", ""))
		require.NoError(t, out.Err, "no request error")
		assert.Nil(t, out.Record.Metrics.TTFOms, "record TTFO null without output")
		assert.Equal(t, []string{"Truncated (finish_reason=length): the answer was reasoning only: 7 chars of reasoning, no content"}, out.Record.Quality.Issues,
			"the basic validation reports its first failure only, as the reference, and says the answer was reasoning only")
	})
	t.Run("multi-token chunks with usage 8", func(t *testing.T) {
		t.Parallel()
		parts := []fixtures.RawPart{
			at(0, sse(delta(id, `{"role":"assistant"}`, "null"))),
			at(500*time.Millisecond, sse(text(id, "one two three"))),
			at(100*time.Millisecond, sse(text(id, " four five six"))),
			at(100*time.Millisecond, sse(text(id, " seven eight"))),
			at(0, stop+sse(usage(id, 6, 8))+done),
		}
		res, err := chat(t, raw(t, parts...))
		require.NoError(t, err, "stream succeeds")
		require.Len(t, res.ITLms, 2, "two chunk gaps (ITL is per chunk)")
		span := res.ITLms[0] + res.ITLms[1]
		// 8 tokens in chunks of 3, 3 and 2 words without per-chunk
		// usage: apportioned by the chunks' text, 5 of them were decoded
		// over the span (stream.MeasureDecode; equal shares said 16/3).
		assert.Equal(t, stream.DecodeByContent, res.DecodeMethod, "apportioned by the chunks' text")
		assert.InDelta(t, 5.0, res.DecodeTokens, 1e-9, "8·5/8 tokens after the first chunk")
		assert.InDelta(t, span/5, res.TPOTms, 1e-9, "TPOT = (t_last - t_first) / the tokens after the first chunk")
		assert.GreaterOrEqual(t, span, 100.0, "span covers the scripted 200 ms (a stalled reader can only compress it)")
		assert.LessOrEqual(t, span, 200.0+msOf(tol), "span within tolerance")
		assert.Less(t, res.TPOTms, res.ITLms[0]+res.ITLms[1], "per-token TPOT is far below the chunk gaps")
		assert.GreaterOrEqual(t, res.TTFTms, 500.0, "TTFT at the first content chunk (500 ms)")
		assert.Equal(t, 8, res.CompletionTokens, "usage tokens")
		assert.Equal(t, 3, res.TokenChunks, "three chunks")
		assert.InDelta(t, 5/(span/1000), res.GenTPS, 1e-6, "gen TPS = the tokens after the first chunk / span")
		assert.InDelta(t, 8/(span/1000), res.RefGenTPS, 1e-6, "the reference's gen TPS = 8 tokens / span")
		out := record(t, raw(t, parts...), simpleCase("multi", ""))
		require.NoError(t, out.Err, "the case succeeds")
		m := out.Record.Metrics
		require.Len(t, m.ITLms, 2, "record ITL per chunk")
		assert.InDelta(t, (m.ITLms[0]+m.ITLms[1])/5, m.TPOTms, 1e-9, "record TPOT per token")
		require.NotNil(t, m.DecodeTokens, "record decode tokens")
		assert.InDelta(t, 5.0, *m.DecodeTokens, 1e-9, "record decode tokens")
		assert.Equal(t, "content", m.DecodeMethod, "record decode method")
		assert.Equal(t, 3, m.TokenChunks, "record token chunks")
	})
}

// TestCase10HTTPFailures: error statuses with JSON, non-JSON and HTML
// bodies, auth and rate-limit headers, redirects, and servers that accept
// and never answer, reset the connection, or drip one byte a second.
func TestCase10HTTPFailures(t *testing.T) {
	statuses := []struct {
		name   string
		sc     fixtures.Script
		status int
		msg    string
	}{
		{"400 OpenAI JSON", fixtures.Script{Status: 400, ErrorBody: `{"error":{"message":"max_tokens must be at least 1","type":"invalid_request_error","param":"max_tokens","code":null}}`}, 400, "max_tokens must be at least 1"},
		{"404 Ollama string", fixtures.Script{Status: 404, ErrorBody: `{"error":"model \"nope\" not found, try pulling it first"}`}, 404, `model "nope" not found, try pulling it first`},
		{"422 FastAPI detail", fixtures.Script{Status: 422, ErrorBody: `{"detail":[{"type":"missing","loc":["body","messages"],"msg":"Field required"}]}`}, 422, `[{"loc":["body","messages"],"msg":"Field required","type":"missing"}]`},
		{"500 vLLM object", fixtures.Script{Status: 500, ErrorBody: `{"object":"error","message":"EngineCore encountered an issue","type":"InternalServerError","param":null,"code":500}`}, 500, "EngineCore encountered an issue"},
		{"502 Envoy plain text", fixtures.Script{Status: 502, ErrorBody: "upstream connect error or disconnect/reset before headers. reset reason: connection failure", Header: http.Header{"Content-Type": {"text/plain"}}}, 502, "upstream connect error or disconnect/reset before headers. reset reason: connection failure"},
		{"503 nginx HTML page", fixtures.Script{Status: 503, ErrorBody: "<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n", Header: http.Header{"Content-Type": {"text/html"}}}, 503, "503 Service Temporarily Unavailable"},
		{"504 empty body", fixtures.Script{Status: 504, ErrorBody: " ", Header: http.Header{"Content-Type": {"text/plain"}}}, 504, "Gateway Timeout"},
		{"401 WWW-Authenticate", fixtures.Script{Status: 401, ErrorBody: `{"detail":"Not authenticated"}`, Header: http.Header{"Www-Authenticate": {"Bearer"}}}, 401, "Not authenticated (WWW-Authenticate: Bearer)"},
		{"429 Retry-After", fixtures.Script{Status: 429, ErrorBody: `{"error":{"message":"Too many requests","type":"rate_limit_error"}}`, Header: http.Header{"Retry-After": {"20"}}}, 429, "Too many requests (Retry-After: 20)"},
	}
	for _, tc := range statuses {
		t.Run(tc.name, func(t *testing.T) {
			res, err := chat(t, serve(t, tc.sc))
			var he *stream.HTTPError
			require.ErrorAs(t, err, &he, "a non-2xx answer is a *stream.HTTPError")
			assert.Equal(t, tc.status, he.StatusCode, "status")
			assert.Equal(t, tc.msg, he.Message, "the server's message")
			assert.Equal(t, tc.status, res.StatusCode, "status in the result")
			if tc.status == 429 {
				assert.Equal(t, 20*time.Second, he.RetryAfter, "Retry-After parsed")
			}
			if tc.status == 401 {
				assert.Equal(t, "Bearer", he.Authenticate, "challenge kept")
			}
			out := record(t, serve(t, tc.sc), simpleCase("http", ""))
			assert.False(t, out.Record.OK, "never a success")
			assert.Contains(t, out.Record.Error, tc.msg, "record error has the server's message")
			assert.Contains(t, out.Record.Quality.Issues[0], tc.msg, "the server's message is the first issue")
			assert.Equal(t, runner.ConsequencePrefix+"HTTP error "+itoa(tc.status), out.Record.Quality.Issues[1], "the real status in the issue, marked as a consequence")
		})
	}
	for _, code := range []int{301, 302, 307, 308} {
		t.Run("redirect "+itoa(code)+" to a working endpoint", func(t *testing.T) {
			target := serve(t, fixtures.Script{Content: []string{"wrong", " place"}})
			location := target.URL + "/v1/chat/completions"
			srv := serve(t, fixtures.Script{Status: code, ErrorBody: "moved", Header: http.Header{"Location": {location}, "Content-Type": {"text/plain"}}})
			res, err := chat(t, srv)
			var he *stream.HTTPError
			require.ErrorAs(t, err, &he, "a redirected POST is an HTTPError, not silently followed")
			assert.Equal(t, code, he.StatusCode, "redirect status")
			assert.Equal(t, location, he.Location, "Location kept")
			assert.Contains(t, err.Error(), "redirect to "+location+" not followed", "the error names the Location")
			assert.Empty(t, res.Content, "nothing read from the target")
			out := record(t, srv, simpleCase("moved", ""))
			assert.False(t, out.Record.OK, "the runner does not follow it either")
			assert.Contains(t, out.Record.Error, location, "record names the Location")
			assert.Empty(t, target.ChatRequests(), "the target never saw a chat request")
		})
	}
	t.Run("accepts and never answers", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err, "listen")
		var wg sync.WaitGroup
		var mu sync.Mutex
		var conns []net.Conn
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				mu.Lock()
				conns = append(conns, c) // held open, never read or answered
				mu.Unlock()
			}
		}()
		defer func() {
			ln.Close()
			wg.Wait()
			for _, c := range conns {
				c.Close()
			}
		}()
		c := &stream.Client{BaseURL: "http://" + ln.Addr().String(), HTTP: &http.Client{Transport: &http.Transport{}}}
		defer c.HTTP.CloseIdleConnections()
		start := time.Now()
		res, err := c.ChatStream(context.Background(), stream.Request{Model: fixtures.DefaultModel, Timeout: 300 * time.Millisecond})
		assert.ErrorIs(t, err, stream.ErrPolicyTimeout, "policy timeout")
		assert.Less(t, time.Since(start), 300*time.Millisecond+2*time.Second, "returns promptly after the timeout")
		assert.Equal(t, 0, res.StatusCode, "no response")
		assert.GreaterOrEqual(t, res.E2ELms, 300.0, "E2E covers the timeout")
	})
	t.Run("headers then nothing (fixture Hang)", func(t *testing.T) {
		srv := serve(t, fixtures.Script{Hang: true})
		res, err := chat(t, srv, withTimeout(300*time.Millisecond))
		assert.ErrorIs(t, err, stream.ErrPolicyTimeout, "policy timeout")
		assert.Equal(t, 200, res.StatusCode, "headers arrived")
		requireReleased(t, srv)
		out := record(t, srv, simpleCase("hang", `"policy_timeout_ms":300`))
		assert.ErrorIs(t, out.Err, stream.ErrPolicyTimeout, "runner: policy timeout")
		require.NotNil(t, out.Record.Policy.WithinTimeout, "policy block")
		assert.False(t, *out.Record.Policy.WithinTimeout, "not within the timeout")
		assert.Contains(t, out.Record.Error, "timed out after 0.300s", "record error, in the reference's wording")
		requireReleased(t, srv)
	})
	t.Run("connection reset mid-stream", func(t *testing.T) {
		const id = "chatcmpl-rst"
		srv := raw(t, at(0, sse(text(id, "one"))+sse(text(id, " two"))+`data: {"id":"`+id+`","choices":[{"delta":{"con`), at(20*time.Millisecond, ""), fixtures.RawPart{Reset: true})
		res, err := chat(t, srv)
		assert.ErrorIs(t, err, stream.ErrConnectionLost, "a reset is a lost connection")
		assert.ErrorIs(t, err, syscall.ECONNRESET, "the net error is wrapped")
		assert.NotErrorIs(t, err, stream.ErrMalformed, "the cut fragment is not parsed")
		assert.Equal(t, "one two", res.Content, "content before the reset kept")
		requireReleased(t, srv)
		out := record(t, srv, simpleCase("reset", ""))
		assert.ErrorIs(t, out.Err, stream.ErrConnectionLost, "runner: lost connection")
		assert.False(t, out.Record.OK, "never a success")
		assert.Contains(t, out.Record.Error, "connection lost mid-stream", "record error")
	})
	t.Run("slow drip, one byte a second, under a policy timeout", func(t *testing.T) {
		t.Parallel()
		event := sse(text("chatcmpl-drip", "slow"))
		var parts []fixtures.RawPart
		for i := range len(event) {
			parts = append(parts, at(time.Second, event[i:i+1]))
		}
		srv := raw(t, parts...)
		start := time.Now()
		res, err := chat(t, srv, withTimeout(2500*time.Millisecond))
		assert.ErrorIs(t, err, stream.ErrPolicyTimeout, "a drip is cut by the policy timeout, not waited out")
		assert.Less(t, time.Since(start), 2500*time.Millisecond+3*time.Second, "returns soon after the limit")
		assert.GreaterOrEqual(t, res.E2ELms, 2500.0, "E2E covers the limit")
		assert.Equal(t, "", res.Content, "no complete event arrived")
		assert.Contains(t, err.Error(), "timed out after 2.500s", "the message gives the limit")
		requireReleased(t, srv)
	})
}

// TestConnectionsReleased: a cut stream frees the server's handler (the
// fixture's in-flight count returns to 0) whether cut by the policy
// timeout, by the caller's context, or by a reset; goleak in TestMain
// checks the client side.
func TestConnectionsReleased(t *testing.T) {
	endless := fixtures.Script{Forever: true, Content: []string{"tok "}, TokenDelay: 20 * time.Millisecond}
	t.Run("policy timeout", func(t *testing.T) {
		srv := serve(t, endless)
		res, err := chat(t, srv, withTimeout(300*time.Millisecond))
		assert.ErrorIs(t, err, stream.ErrPolicyTimeout, "policy timeout")
		assert.Greater(t, res.TokenChunks, 0, "tokens before the cut")
		requireReleased(t, srv)
		require.Eventually(t, func() bool { return len(srv.Cancelled()) == 1 }, 5*time.Second, 5*time.Millisecond, "the client asked the server to cancel")
		assert.Equal(t, res.RequestID, srv.Cancelled()[0], "cancel names the stream's id")
	})
	t.Run("caller cancels", func(t *testing.T) {
		srv := serve(t, endless)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(200*time.Millisecond, cancel)
		res, err := chatCtx(ctx, t, srv)
		assert.ErrorIs(t, err, context.Canceled, "the caller's cancellation")
		assert.Greater(t, res.TokenChunks, 0, "tokens before the cut")
		requireReleased(t, srv)
		assert.Empty(t, srv.Cancelled(), "no server cancel for a caller cancellation")
	})
	t.Run("caller deadline", func(t *testing.T) {
		srv := serve(t, fixtures.Script{Hang: true})
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		_, err := chatCtx(ctx, t, srv)
		assert.ErrorIs(t, err, context.DeadlineExceeded, "the caller's deadline")
		requireReleased(t, srv)
	})
	t.Run("reset", func(t *testing.T) {
		srv := raw(t, at(0, sse(text("r", "x"))), fixtures.RawPart{Delay: 20 * time.Millisecond, Reset: true})
		_, err := chat(t, srv)
		assert.ErrorIs(t, err, stream.ErrConnectionLost, "lost connection")
		requireReleased(t, srv)
	})
	t.Run("many in flight", func(t *testing.T) {
		srv := serve(t, endless)
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := &stream.Client{BaseURL: srv.URL, HTTP: srv.Client()}
				_, errs[i] = c.ChatStream(context.Background(), stream.Request{Model: fixtures.DefaultModel, Timeout: 300 * time.Millisecond})
			}()
		}
		wg.Wait()
		for i, err := range errs {
			assert.ErrorIs(t, err, stream.ErrPolicyTimeout, "request %d timed out", i)
		}
		requireReleased(t, srv)
		assert.True(t, strings.HasPrefix(srv.URL, "http://127.0.0.1:"), "loopback only")
	})
}
