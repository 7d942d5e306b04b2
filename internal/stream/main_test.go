package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		t.CloseIdleConnections()
	}
	CloseIdleConnections()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// part is one piece of a scripted SSE transcript: written (and flushed)
// after Delay, measured from the start of the response.
type part struct {
	Delay time.Duration
	Data  string
}

// recorder keeps what the test server saw.
type recorder struct {
	mu        sync.Mutex
	bodies    []map[string]any
	headers   []http.Header
	paths     []string
	cancelled []string
}

func (r *recorder) cancelledIDs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.cancelled...)
}

// scriptServer starts a loopback server whose /v1/chat/completions answers
// 200 text/event-stream with parts, each written and flushed on schedule,
// and whose /v1/requests/{id}/cancel records the id. The handler stops
// early when the client goes away.
func scriptServer(t testing.TB, parts ...part) (*httptest.Server, *recorder) {
	return handlerServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		writeParts(w, r, parts)
	})
}

func writeParts(w http.ResponseWriter, r *http.Request, parts []part) {
	fl := w.(http.Flusher)
	fl.Flush()
	start := time.Now()
	for _, p := range parts {
		if wait := p.Delay - time.Since(start); wait > 0 {
			select {
			case <-time.After(wait):
			case <-r.Context().Done():
				return
			}
		}
		if _, err := io.WriteString(w, p.Data); err != nil {
			return
		}
		fl.Flush()
	}
}

// handlerServer wraps chat with request recording and the cancel endpoint.
func handlerServer(t testing.TB, chat http.HandlerFunc) (*httptest.Server, *recorder) {
	rec := &recorder{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		rec.mu.Lock()
		rec.bodies = append(rec.bodies, body)
		rec.headers = append(rec.headers, r.Header.Clone())
		rec.paths = append(rec.paths, r.URL.Path)
		rec.mu.Unlock()
		chat(w, r)
	})
	mux.HandleFunc("POST /v1/requests/{id}/cancel", func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.cancelled = append(rec.cancelled, r.PathValue("id"))
		rec.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"cancelled":true}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, rec
}

// pieces splits s into n-byte parts with no delay.
func pieces(s string, n int) []part {
	var out []part
	for len(s) > 0 {
		k := min(n, len(s))
		out = append(out, part{Data: s[:k]})
		s = s[k:]
	}
	return out
}

// whole returns the transcript as one part.
func whole(lines ...string) []part { return []part{{Data: strings.Join(lines, "")}} }

// content renders a content-delta event with the given id.
func content(id, text string) string {
	b, _ := json.Marshal(map[string]any{
		"id": id, "object": "chat.completion.chunk", "created": 1700000000, "model": "m",
		"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": text}, "logprobs": nil, "finish_reason": nil}},
	})
	return "data: " + string(b) + "\n\n"
}

// ev renders one data event from a raw JSON string.
func ev(j string) string { return "data: " + j + "\n\n" }

const done = "data: [DONE]\n\n"

func usageEv(prompt, completion int) string {
	return ev(fmt.Sprintf(`{"id":"c1","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, prompt, completion, prompt+completion))
}

func newClient(srv *httptest.Server) *Client {
	return &Client{BaseURL: srv.URL, HTTP: srv.Client()}
}

func run(t *testing.T, srv *httptest.Server, req Request) (*Result, error) {
	t.Helper()
	if req.Model == "" {
		req.Model = "m"
	}
	res, err := newClient(srv).ChatStream(context.Background(), req)
	require.NotNil(t, res, "ChatStream must always return a Result")
	return res, err
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

// slackMS is the scheduling tolerance, in ms, added to scripted delays for
// upper bounds: generous enough for a loaded 2-core machine under -race
// (the lower bounds, which a correct client cannot beat, stay exact).
const slackMS = 400.0
