package streams_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// tol is the scheduling tolerance added to scripted delays for upper
// bounds. The lower bounds are exact and tell a clock started at the
// right event from one started early; an upper bound only catches a clock
// started late or in the wrong unit, so it can be generous: a 2-core
// machine under -race with both cores taken by other work fires timers
// and reads streams late by over 600 ms. Where a late clock must be told
// from a later event, a relative bound does it (TTFT well before TTFO).
const tol = 1500 * time.Millisecond

// msOf converts a duration to float milliseconds.
func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// serve starts a fixture whose every chat completion is answered by sc.
func serve(t *testing.T, sc fixtures.Script) *fixtures.Server {
	t.Helper()
	return fixtures.Start(t, fixtures.Options{Responder: func(fixtures.Request) fixtures.Script { return sc }})
}

// raw starts a fixture answering every chat completion with parts, verbatim.
func raw(t *testing.T, parts ...fixtures.RawPart) *fixtures.Server {
	t.Helper()
	return serve(t, fixtures.Script{Raw: parts})
}

// body starts a fixture answering with one verbatim body.
func body(t *testing.T, text string) *fixtures.Server {
	t.Helper()
	return raw(t, fixtures.RawPart{Data: text})
}

// at is a raw part written after d (measured from the previous part).
func at(d time.Duration, data string) fixtures.RawPart { return fixtures.RawPart{Delay: d, Data: data} }

// option adjusts the client or request of one chat call.
type option func(*stream.Client, *stream.Request)

func withTimeout(d time.Duration) option {
	return func(_ *stream.Client, r *stream.Request) { r.Timeout = d }
}

// withReads makes every read of the response body return at most n bytes
// and never cross one of the absolute body offsets in cuts.
func withReads(n int, cuts ...int) option {
	return func(c *stream.Client, _ *stream.Request) {
		base := c.HTTP.Transport
		c.HTTP = &http.Client{Transport: splitTransport{base: base, n: n, cuts: cuts}}
	}
}

// chat sends one streamed request to srv through the real client.
func chat(t *testing.T, srv *fixtures.Server, opts ...option) (*stream.Result, error) {
	t.Helper()
	return chatCtx(context.Background(), t, srv, opts...)
}

func chatCtx(ctx context.Context, t *testing.T, srv *fixtures.Server, opts ...option) (*stream.Result, error) {
	t.Helper()
	c := &stream.Client{BaseURL: srv.URL, HTTP: srv.Client()}
	req := stream.Request{Model: srv.Model(), Messages: []results.Message{{"role": "user", "content": "hello there"}}}
	for _, o := range opts {
		o(c, &req)
	}
	res, err := c.ChatStream(ctx, req)
	require.NotNil(t, res, "ChatStream always returns a Result")
	return res, err
}

// record runs one case (given as its JSON object) against srv through
// runner.RunCase, as a benchmark run would.
func record(t *testing.T, srv *fixtures.Server, caseJSON string, cfg ...func(*runner.Config)) runner.Outcome {
	t.Helper()
	w, err := workloads.Parse([]byte(`{"name":"streams","cases":[`+caseJSON+`]}`), "streams.json")
	require.NoError(t, err, "the test's workload must load")
	c := runner.Config{URL: srv.URL, RequestTimeout: 30 * time.Second}
	for _, f := range cfg {
		f(&c)
	}
	r, err := runner.New(context.Background(), c)
	require.NoError(t, err, "runner against the fixture")
	defer r.Close()
	return r.RunCase(context.Background(), w, w.Cases[0], 0, nil)
}

// simpleCase is a case with one user message and optional extra keys.
func simpleCase(id string, extra string) string {
	if extra != "" {
		extra = "," + extra
	}
	return fmt.Sprintf(`{"id":%q,"messages":[{"role":"user","content":"hello there"}]%s}`, id, extra)
}

// sse renders one data event ("data: " + JSON + blank line).
func sse(j string) string { return "data: " + j + "\n\n" }

// delta renders a chunk JSON with id, a delta object and a finish_reason
// (JSON text: null, "stop", …).
func delta(id, deltaJSON, finish string) string {
	return fmt.Sprintf(`{"id":%q,"object":"chat.completion.chunk","created":1717000000,"model":"m","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}]}`, id, deltaJSON, finish)
}

// text renders a content delta chunk JSON.
func text(id, s string) string {
	b, _ := json.Marshal(s)
	return delta(id, `{"content":`+string(b)+`}`, "null")
}

// usage renders a choices:[] usage chunk JSON.
func usage(id string, prompt, completion int) string {
	return fmt.Sprintf(`{"id":%q,"object":"chat.completion.chunk","created":1717000000,"model":"m","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, id, prompt, completion, prompt+completion)
}

const done = "data: [DONE]\n\n"

// running is the fixture's in-flight completion count.
func running(srv *fixtures.Server) int { return srv.EngineStats()["num_running"].(int) }

// requireReleased waits until the fixture has no request in flight: the
// handler of every cut stream has returned.
func requireReleased(t *testing.T, srv *fixtures.Server) {
	t.Helper()
	require.Eventually(t, func() bool { return running(srv) == 0 }, 10*time.Second, 5*time.Millisecond,
		"the server's handler must return (num_running back to 0) once the client lets go")
}

// splitTransport wraps response bodies in a cutReader.
type splitTransport struct {
	base http.RoundTripper
	n    int
	cuts []int
}

func (s splitTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	base := s.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	resp.Body = &cutReader{rc: resp.Body, n: s.n, cuts: s.cuts}
	return resp, nil
}

// cutReader returns at most n bytes per Read and stops every read at the
// next cut offset, so a test decides exactly where the client's reads end.
type cutReader struct {
	rc   io.ReadCloser
	n    int
	cuts []int
	off  int
}

func (c *cutReader) Read(p []byte) (int, error) {
	limit := len(p)
	if c.n > 0 {
		limit = min(limit, c.n)
	}
	for _, cut := range c.cuts {
		if cut > c.off {
			limit = min(limit, cut-c.off)
			break
		}
	}
	n, err := io.ReadFull(c.rc, p[:limit])
	if err == io.ErrUnexpectedEOF {
		err = nil
		if n == 0 {
			err = io.EOF
		}
	}
	c.off += n
	return n, err
}

func (c *cutReader) Close() error { return c.rc.Close() }

// noCR reports whether none of the strings holds a carriage return.
func noCR(ss ...string) bool {
	for _, s := range ss {
		if strings.Contains(s, "\r") {
			return false
		}
	}
	return true
}
