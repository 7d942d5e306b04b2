package metrics

import (
	"bufio"
	"net"
	"net/http"
	"strings"
)

// DefaultRoutes are the path templates Middleware recognises when the
// request was not routed by a ServeMux: the vllm-mlx / OpenAI-compatible
// endpoints and the fixture server's. Requests matching none are labelled
// path="__unmatched__" (UnmatchedRoute). Templates use http.ServeMux syntax.
var DefaultRoutes = []string{
	"/health",
	"/metrics",
	"/v1/models",
	"/v1/models/{model...}",
	"/v1/status",
	"/v1/cache",
	"/v1/cache/stats",
	"/v1/chat/completions",
	"/v1/completions",
	"/v1/embeddings",
	"/v1/messages",
	"/v1/messages/count_tokens",
	"/v1/rerank",
	"/v1/audio/transcriptions",
	"/v1/audio/speech",
	"/v1/mcp/tools",
	"/v1/mcp/servers",
	"/v1/mcp/execute",
	"/v1/requests/{id}/cancel",
}

// UnmatchedRoute is the path label of requests matching no known route,
// the label the reference's server gives them.
const UnmatchedRoute = "__unmatched__"

// OtherMethod is the method label of requests with a non-standard HTTP
// method (bounded cardinality; the reference passes the method through).
const OtherMethod = "other"

// otherRoute is the former name of UnmatchedRoute.
//
// Deprecated: use UnmatchedRoute; its value is now "__unmatched__".
const otherRoute = UnmatchedRoute

type router struct{ mux *http.ServeMux }

var noopHandler = http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})

// newRouter builds a matcher from DefaultRoutes plus extra. It panics on an
// invalid pattern, as http.ServeMux.Handle does.
func newRouter(extra []string) *router {
	mux := http.NewServeMux()
	seen := map[string]bool{}
	for _, p := range append(append([]string(nil), DefaultRoutes...), extra...) {
		if seen[p] {
			continue
		}
		seen[p] = true
		mux.Handle(p, noopHandler)
	}
	return &router{mux: mux}
}

// patternPath turns a ServeMux pattern ("[METHOD ][HOST]/path") into its
// path template: "POST /v1/requests/{id}/cancel" → "/v1/requests/{id}/cancel".
func patternPath(p string) string {
	if i := strings.IndexAny(p, " \t"); i >= 0 {
		p = strings.TrimLeft(p[i:], " \t")
	}
	if i := strings.IndexByte(p, '/'); i > 0 {
		p = p[i:]
	}
	if strings.HasSuffix(p, "/{$}") {
		p = strings.TrimSuffix(p, "{$}")
	}
	if p == "" {
		return UnmatchedRoute
	}
	return p
}

// route returns the bounded path label for r: the pattern of mux when the
// middleware wraps a ServeMux, else the pattern of an outer ServeMux that
// routed r here (r.Pattern, Go 1.22+), else the collector's route templates,
// else UnmatchedRoute.
func (c *Collector) route(r *http.Request, mux *http.ServeMux) string {
	if mux != nil {
		if _, p := mux.Handler(r); p != "" {
			return patternPath(p)
		}
		return UnmatchedRoute
	}
	if r.Pattern != "" {
		return patternPath(r.Pattern)
	}
	if _, p := c.router.mux.Handler(r); p != "" {
		return patternPath(p)
	}
	return UnmatchedRoute
}

// RouteLabel returns the path label Middleware uses for r when it wraps a
// handler that is not a ServeMux (see Middleware). Exposed for callers that
// account HTTP requests themselves with ObserveHTTPStart/Finish.
func (c *Collector) RouteLabel(r *http.Request) string { return c.route(r, nil) }

func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return OtherMethod
}

// Middleware wraps next with HTTP accounting (the reference does this in
// its FastAPI middleware with observe_http_start / observe_http_finish):
// vllm_mlx_http_requests_in_flight while the request runs, then
// vllm_mlx_http_requests_total{method,path,status_code} and
// vllm_mlx_http_request_duration_seconds{method,path}.
//
// Labels stay bounded: path is a route template, never the raw URL. When
// next is an *http.ServeMux its matching pattern is used (method and host
// stripped: "POST /v1/requests/{id}/cancel" → "/v1/requests/{id}/cancel"),
// and unmatched requests are "__unmatched__" (as in the reference's
// server). Otherwise the pattern of an outer ServeMux (r.Pattern) is used,
// else DefaultRoutes plus Options.Routes, else "__unmatched__".
// Non-standard methods are labelled "other".
//
// The status is the one passed to WriteHeader (200 when the handler only
// writes, or writes nothing; 101 when it hijacks the connection without
// writing a header; 500 when it panics before writing a header, the panic
// being re-raised). The ResponseWriter given to next supports http.Flusher
// and http.Hijacker whenever the original does (Flush is a no-op and Hijack
// returns http.ErrNotSupported otherwise) and Unwrap for
// http.ResponseController, so streaming responses flush through.
//
// While the collector is disabled requests go straight to next, unwrapped.
func (c *Collector) Middleware(next http.Handler) http.Handler {
	mux, _ := next.(*http.ServeMux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := c.active()
		if st == nil {
			next.ServeHTTP(w, r)
			return
		}
		method, path := methodLabel(r.Method), c.route(r, mux)
		start := c.now()
		st.httpInFlight.WithLabelValues(method, path).Inc()
		sw := &statusWriter{ResponseWriter: w}
		panicked := true
		defer func() {
			status := sw.status
			switch {
			case status != 0:
			case panicked:
				status = http.StatusInternalServerError
			case sw.hijacked:
				status = http.StatusSwitchingProtocols
			default:
				status = http.StatusOK
			}
			// Account on the state captured at start so the in-flight gauge
			// stays balanced even if the collector is disabled meanwhile.
			st.httpFinish(method, path, status, c.now().Sub(start).Seconds())
		}()
		next.ServeHTTP(sw, r)
		panicked = false
	})
}

// statusWriter records the response status for Middleware.
type statusWriter struct {
	http.ResponseWriter
	status   int
	hijacked bool
}

// WriteHeader records the first final status (1xx other than 101 are
// informational and passed through without being recorded).
func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 && (code >= 200 || code == http.StatusSwitchingProtocols) {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write implies status 200 when no header was written.
func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush implements http.Flusher by flushing the underlying writer when it
// can (a no-op otherwise).
func (w *statusWriter) Flush() {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Hijack implements http.Hijacker through the underlying writer, returning
// http.ErrNotSupported when it cannot hijack.
func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err == nil {
		w.hijacked = true
	}
	return conn, rw, err
}

// Unwrap returns the original ResponseWriter for http.ResponseController.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
