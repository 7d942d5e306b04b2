package runner_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/runner"
)

// TestNewWrongAPIKeySaysUnauthorized: a wrong key is reported as the
// server's 401 with its message, not as an undetermined model.
func TestNewWrongAPIKeySaysUnauthorized(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{APIKey: "right"})
	_, err := runner.New(context.Background(), runner.Config{URL: srv.URL, APIKey: "wrong"})
	require.Error(t, err, "a wrong API key cannot list the models")
	assert.Contains(t, err.Error(), "HTTP 401", "the status is said")
	assert.Contains(t, err.Error(), "check the API key", "and what to do")
	assert.NotContains(t, err.Error(), "could not determine the model id", "no guess about the model")
}

// TestNewRedactsURLCredentials: a password in the URL never reaches an
// error message.
func TestNewRedactsURLCredentials(t *testing.T) {
	_, err := runner.New(context.Background(), runner.Config{URL: "http://user:hunter2@127.0.0.1:1"})
	require.Error(t, err, "nothing listens on port 1")
	assert.NotContains(t, err.Error(), "hunter2", "the password is redacted")
}

// TestSessionConcurrency: RunAll keeps at most Concurrency requests in
// flight, records every job once and reports the outcomes in job order.
func TestSessionConcurrency(t *testing.T) {
	var inFlight, peak atomic.Int32
	srv := fixtures.Start(t, fixtures.Options{Responder: func(fixtures.Request) fixtures.Script {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(30 * time.Millisecond)
		inFlight.Add(-1)
		return fixtures.Script{Content: []string{"Hello", " there"}}
	}})
	r := newRunner(t, srv)
	w := load(t, `{"cases": [
		{"id": "a", "messages": [{"role": "user", "content": "a"}]},
		{"id": "b", "messages": [{"role": "user", "content": "b"}]},
		{"id": "c", "messages": [{"role": "user", "content": "c"}]}]}`)
	s, err := r.Start(context.Background(), w, runner.RunOptions{Repetitions: 2, Concurrency: 2,
		Include: func(j runner.Job) bool { return j.Case.ID != "c" }})
	require.NoError(t, err, "start")
	var order []string
	require.NoError(t, s.RunAll(context.Background(), func(j runner.Job, out runner.Outcome, sent bool) {
		if sent {
			order = append(order, out.Record.CaseID+"/"+j.Name(2))
		} else {
			order = append(order, "skipped:"+j.Name(2))
		}
	}), "run")
	assert.Equal(t, []string{"a/a/rep=0", "b/b/rep=0", "skipped:c/rep=0", "a/a/rep=1", "b/b/rep=1", "skipped:c/rep=1"}, order,
		"outcomes in the reference's job order; Include's refusals send nothing")
	assert.LessOrEqual(t, peak.Load(), int32(2), "never more than Concurrency requests in flight")
	p := s.Payload()
	assert.Len(t, p.Results, 4, "one record per sent job")
	assert.Equal(t, 4, p.Summary.CaseCount, "the summary counts the records")
	assert.Len(t, srv.ChatRequests(), 4, "the refused jobs sent no request")
}

// TestSideRequestsHaveDeadlines: a server whose /metrics never answers
// costs each case its cache counters, not the run.
func TestSideRequestsHaveDeadlines(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	target, err := url.Parse(srv.URL)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	var metricsHits atomic.Int32
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if strings.HasPrefix(req.URL.Path, "/metrics") {
			metricsHits.Add(1)
			select { // never answers until the test ends or the client gives up
			case <-req.Context().Done():
			case <-hang:
			}
			return
		}
		proxy.ServeHTTP(w, req)
	}))
	// One connection per request: a hung side request's connection is never
	// one a chat request goes out on (with keep-alives one was cut now and
	// then under load).
	front.Config.SetKeepAlivesEnabled(false)
	t.Cleanup(front.Close)
	var warnings []string
	r, err := runner.New(context.Background(), runner.Config{URL: front.URL, Warn: func(m string) { warnings = append(warnings, m) }})
	require.NoError(t, err)
	t.Cleanup(r.Close)
	w := load(t, `{"defaults": {"policy_timeout_ms": 2000}, "cases": [
		{"id": "a", "messages": [{"role": "user", "content": "a"}]},
		{"id": "b", "messages": [{"role": "user", "content": "b"}]}]}`)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := r.Run(ctx, w, runner.RunOptions{})
	require.NoError(t, err, "the run finishes although /metrics hangs")
	require.Len(t, p.Results, 2, "both cases are recorded")
	for _, rec := range p.Results {
		assert.Nil(t, rec.Metrics.CacheHits, "%s: no counters from a hanging /metrics: null, not 0", rec.CaseID)
		assert.True(t, rec.OK, "%s: the case itself passed: %v", rec.CaseID, rec.Quality.Issues)
	}
	require.Len(t, warnings, 1, "one warning, when /metrics first hangs")
	assert.Contains(t, warnings[0], "GET /metrics did not answer within 2s", "it says what hung and for how long")
	assert.Equal(t, int32(1), metricsHits.Load(), "after the first hang no case asks /metrics again")
}

// TestEchoedAPIKeyIsRedacted: a server that quotes the Authorization
// header in its error messages never gets the key into an error or a
// record.
func TestEchoedAPIKeyIsRedacted(t *testing.T) {
	const key = "sk-VERYSECRET-1234"
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/v1/models" && r.URL.Query().Get("deny") == "" && r.Header.Get("X-Deny") == "" {
			_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"m","owned_by":"x"}]}`))
			return
		}
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"message":"Incorrect API key provided: ` + r.Header.Get("Authorization") + `"}}`))
	}))
	t.Cleanup(echo.Close)
	r, err := runner.New(context.Background(), runner.Config{URL: echo.URL, APIKey: key, NoScrape: true})
	require.NoError(t, err)
	t.Cleanup(r.Close)
	p, err := r.Run(context.Background(), load(t, `{"cases": [{"id": "a", "messages": [{"role": "user", "content": "hi"}]}]}`), runner.RunOptions{})
	require.NoError(t, err)
	rec := p.Results[0]
	require.NotEmpty(t, rec.Error, "the request failed with the server's message")
	assert.Contains(t, rec.Error, "Incorrect API key provided: Bearer xxxxx", "the message is kept, the key replaced")
	for _, is := range rec.Quality.Issues {
		assert.NotContains(t, is, key, "no issue carries the key")
	}
	assert.NotContains(t, rec.Error, key, "the record's error does not carry the key")
}
