package metrics

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPatternPath(t *testing.T) {
	cases := map[string]string{
		"POST /v1/requests/{id}/cancel": "/v1/requests/{id}/cancel",
		"/v1/models/{model...}":         "/v1/models/{model...}",
		"GET example.com/health":        "/health",
		"GET /{$}":                      "/",
		"/":                             "/",
		"":                              "__unmatched__",
	}
	for in, want := range cases {
		assert.Equal(t, want, patternPath(in), "patternPath(%q)", in)
	}
}

func TestRouteLabelWithoutMux(t *testing.T) {
	c := NewWithOptions(Options{Routes: []string{"/v1/things/{id}"}})
	cases := map[string]string{
		"/v1/chat/completions":            "/v1/chat/completions",
		"/v1/requests/req-123/cancel":     "/v1/requests/{id}/cancel",
		"/v1/requests/abc/cancel?x=1":     "/v1/requests/{id}/cancel",
		"/v1/models/mlx-community/Qwen3":  "/v1/models/{model...}",
		"/v1/things/42":                   "/v1/things/{id}",
		"/wp-admin/install.php":           "__unmatched__",
		"/v1/requests/a/b/cancel":         "__unmatched__",
		"/":                               "__unmatched__",
		"/v1/chat/completions/extra/path": "__unmatched__",
	}
	for target, want := range cases {
		r := httptest.NewRequest(http.MethodPost, target, nil)
		assert.Equal(t, want, c.RouteLabel(r), "route label of %s", target)
	}
}

// middlewareServer returns a collector and a server whose ServeMux is
// wrapped by the collector's middleware.
func middlewareServer(t *testing.T, mux *http.ServeMux) (*Collector, *fakeClock, *httptest.Server) {
	t.Helper()
	c, clk := enabledCollector()
	srv := httptest.NewServer(c.Middleware(mux))
	t.Cleanup(srv.Close)
	return c, clk, srv
}

func do(t *testing.T, srv *httptest.Server, method, path string) int {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	require.NoError(t, err, "new request")
	resp, err := srv.Client().Do(req)
	require.NoError(t, err, "%s %s", method, path)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func TestMiddlewareLabelsServeMuxPatterns(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/requests/{id}/cancel", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
	})
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	})
	mux.HandleFunc("POST /boom", func(w http.ResponseWriter, r *http.Request) {
		panic(http.ErrAbortHandler)
	})
	c, _, srv := middlewareServer(t, mux)

	assert.Equal(t, 202, do(t, srv, "POST", "/v1/requests/a1/cancel"), "cancel a1")
	assert.Equal(t, 202, do(t, srv, "POST", "/v1/requests/b2/cancel"), "cancel b2")
	assert.Equal(t, 200, do(t, srv, "GET", "/health"), "health")
	assert.Equal(t, 404, do(t, srv, "GET", "/nope/123"), "unknown path")
	assert.Equal(t, 405, do(t, srv, "DELETE", "/health"), "wrong method")
	req, _ := http.NewRequest("POST", srv.URL+"/boom", nil) // POST: the client does not retry it
	if resp, err := srv.Client().Do(req); err == nil {
		resp.Body.Close()
	}

	const want = `
# HELP vllm_mlx_http_requests_total HTTP requests handled by the server.
# TYPE vllm_mlx_http_requests_total counter
vllm_mlx_http_requests_total{method="DELETE",path="__unmatched__",status_code="405"} 1
vllm_mlx_http_requests_total{method="GET",path="/health",status_code="200"} 1
vllm_mlx_http_requests_total{method="GET",path="__unmatched__",status_code="404"} 1
vllm_mlx_http_requests_total{method="POST",path="/boom",status_code="500"} 1
vllm_mlx_http_requests_total{method="POST",path="/v1/requests/{id}/cancel",status_code="202"} 2
`
	assert.NoError(t, testutil.GatherAndCompare(c.Gatherer(nil, nil), strings.NewReader(want), "vllm_mlx_http_requests_total"),
		"ids are folded into the route template and unknown routes into __unmatched__ (the reference's label)")
	n, err := testutil.GatherAndCount(c.Gatherer(nil, nil), "vllm_mlx_http_requests_in_flight")
	require.NoError(t, err, "count in-flight")
	assert.Equal(t, 5, n, "one in-flight series per (method, route): 5 distinct pairs")
}

func TestMiddlewareFallsBackToRouteTemplates(t *testing.T) {
	c, _ := enabledCollector()
	h := c.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	for _, p := range []string{"/v1/requests/x/cancel", "/v1/requests/y/cancel", "/random"} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", p, nil))
	}
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("BREW", "/health", nil))
	const want = `
# HELP vllm_mlx_http_requests_total HTTP requests handled by the server.
# TYPE vllm_mlx_http_requests_total counter
vllm_mlx_http_requests_total{method="POST",path="/v1/requests/{id}/cancel",status_code="200"} 2
vllm_mlx_http_requests_total{method="POST",path="__unmatched__",status_code="200"} 1
vllm_mlx_http_requests_total{method="other",path="/health",status_code="200"} 1
`
	assert.NoError(t, testutil.GatherAndCompare(c.Gatherer(nil, nil), strings.NewReader(want), "vllm_mlx_http_requests_total"),
		"plain handlers are labelled from the route templates; unknown methods are other")
}

func TestMiddlewareUsesOuterMuxPattern(t *testing.T) {
	c, _ := enabledCollector()
	mux := http.NewServeMux()
	mux.Handle("GET /v1/widgets/{id}", c.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})))
	mux.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/v1/widgets/9", nil))
	const want = `
# HELP vllm_mlx_http_requests_total HTTP requests handled by the server.
# TYPE vllm_mlx_http_requests_total counter
vllm_mlx_http_requests_total{method="GET",path="/v1/widgets/{id}",status_code="200"} 1
`
	assert.NoError(t, testutil.GatherAndCompare(c.Gatherer(nil, nil), strings.NewReader(want), "vllm_mlx_http_requests_total"),
		"a middleware mounted inside a mux route uses r.Pattern")
}

func TestMiddlewareFlushesStreams(t *testing.T) {
	firstSeen := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		f, ok := w.(http.Flusher)
		if !ok {
			http.Error(w, "no flusher", 500)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: first\n\n")
		f.Flush()
		select { // the client must see the first event before the second is written
		case <-firstSeen:
		case <-r.Context().Done():
			return
		case <-time.After(10 * time.Second):
		}
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
	})
	c, _, srv := middlewareServer(t, mux)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", srv.URL+"/v1/chat/completions", nil)
	require.NoError(t, err, "new request")
	resp, err := srv.Client().Do(req)
	require.NoError(t, err, "POST stream")
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	line, err := br.ReadString('\n')
	require.NoError(t, err, "read first event before the handler finishes (flush must pass through)")
	assert.Equal(t, "data: first\n", line, "first streamed line")
	close(firstSeen)
	rest, err := io.ReadAll(br)
	require.NoError(t, err, "read rest")
	assert.Equal(t, "\ndata: [DONE]\n\n", string(rest), "rest of the stream")
	resp.Body.Close()

	require.Eventually(t, func() bool {
		return testutil.ToFloat64(c.state.Load().httpRequests.WithLabelValues("POST", "/v1/chat/completions", "200")) == 1
	}, 5*time.Second, 5*time.Millisecond, "the streamed request is counted with status 200")
}

func TestStatusWriterPassthrough(t *testing.T) {
	rec := httptest.NewRecorder()
	sw := &statusWriter{ResponseWriter: rec}
	sw.WriteHeader(http.StatusEarlyHints)
	sw.WriteHeader(http.StatusCreated)
	sw.Flush()
	assert.True(t, rec.Flushed, "Flush reaches the underlying writer")
	assert.Equal(t, http.StatusCreated, sw.status, "1xx informational statuses are not the final status")
	_, _, err := sw.Hijack()
	assert.ErrorIs(t, err, http.ErrNotSupported, "Hijack on a non-hijackable writer reports ErrNotSupported")
	assert.Same(t, rec, sw.Unwrap(), "Unwrap returns the original writer")
}

func TestMiddlewareHijack(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ws", func(w http.ResponseWriter, r *http.Request) {
		conn, brw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		defer conn.Close()
		_, _ = brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: close\r\n\r\n")
		_ = brw.Flush()
	})
	c, _, srv := middlewareServer(t, mux)
	assert.Equal(t, 101, do(t, srv, "GET", "/ws"), "hijacked response status")
	require.Eventually(t, func() bool {
		return testutil.ToFloat64(c.state.Load().httpRequests.WithLabelValues("GET", "/ws", "101")) == 1
	}, 5*time.Second, 5*time.Millisecond, "a hijacked request is counted as 101")
}

func TestMiddlewareDisabledPassesThrough(t *testing.T) {
	c := New()
	var got http.ResponseWriter
	h := c.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = w }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/health", nil))
	assert.Same(t, rec, got, "a disabled collector hands the original writer to the handler")
}
