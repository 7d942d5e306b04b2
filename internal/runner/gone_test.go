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
	"github.com/benchserve/benchserve/workloads"
)

// TestContractsNotCheckedFailAMust: once the server went away, the rest of
// the suite is a skip saying so; a MUST among them cannot be said to hold,
// so its record is not OK (the run fails) whichever contract met the loss,
// while a SHOULD's is OK with a note.
func TestContractsNotCheckedFailAMust(t *testing.T) {
	fx := fixtures.Start(t, fixtures.Options{})
	target, err := url.Parse(fx.URL)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) > 8 {
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				_ = conn.Close()
			}
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	r, err := runner.New(context.Background(), runner.Config{URL: srv.URL, RequestTimeout: 10 * time.Second})
	require.NoError(t, err)
	t.Cleanup(r.Close)
	w, err := workloads.Conformance()
	require.NoError(t, err)
	sess, err := r.Start(context.Background(), w, runner.RunOptions{})
	require.NoError(t, err)
	require.NoError(t, sess.RunAll(context.Background(), nil))
	musts, shoulds := 0, 0
	for _, rec := range sess.Payload().Results {
		c := rec.Contract
		if c == nil || !strings.HasPrefix(c.Evidence, "not checked: the server went away") {
			continue
		}
		assert.Equal(t, "skip", c.Verdict, "%s: not judged", c.Name)
		switch c.Level {
		case "MUST":
			musts++
			assert.False(t, rec.OK, "%s: a MUST not checked fails the run", c.Name)
			assert.True(t, c.Failing, "%s", c.Name)
		case "SHOULD":
			shoulds++
			assert.True(t, rec.OK, "%s: a SHOULD not checked is a note", c.Name)
		}
	}
	assert.Positive(t, musts, "some MUSTs were not checked")
	assert.Positive(t, shoulds, "some SHOULDs were not checked")
}
