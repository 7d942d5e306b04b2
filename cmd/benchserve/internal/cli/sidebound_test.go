package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/results"
)

// TestSweepAgainstHungMetricsFinishes is the measurement: a prompt
// sweep against a server whose /metrics never answers finishes (it had
// written nothing after 120 s): the first scrape is given up after
// runner.SideRequestTimeout, /metrics is not read again, and every row is
// measured.
func TestSweepAgainstHungMetricsFinishes(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out one side-request timeout")
	}
	srv := fixtures.Start(t, fixtures.Options{})
	target, err := url.Parse(srv.URL)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var scrapes atomic.Int32
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" {
			scrapes.Add(1)
			<-r.Context().Done()
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	// One connection per request: the hung scrape's is never one a chat
	// request goes out on (with keep-alives one was cut now and then).
	hung.Config.SetKeepAlivesEnabled(false)
	t.Cleanup(hung.Close)
	res := invoke(t, "--url", hung.URL, "--prompts", "short", "--concurrency", "1", "--repetitions", "2",
		"--warmup", "0", "--format", "json")
	require.Equal(t, ExitOK, res.code, "the sweep finishes")
	var rows []results.SweepResult
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &rows))
	assert.Len(t, rows, 2, "every point measured")
	assert.Equal(t, int32(1), scrapes.Load(), "one hung scrape, then /metrics is left alone")
	assert.Contains(t, res.stderr, "GET /metrics did not answer within 5s", "the user is told")
}
