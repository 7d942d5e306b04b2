package cli

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
)

// TestConformanceSaysOnceThatTheServerWentAway: a server that dies
// mid-run fails the contract it was on, the rest are skipped, one line
// says the server went away, and the exit status is 1 (a MUST failed).
func TestConformanceSaysOnceThatTheServerWentAway(t *testing.T) {
	fx := conformanceFixture(t)
	target, err := url.Parse(fx.URL)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) > 18 {
			// Gone: the connection closes without an answer. The 19th
			// request is limits.stop's, a MUST (after the 20th the run
			// was on choices.n, a SHOULD, once limits.stop_several came).
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	res := invoke(t, "conformance", "--url", srv.URL, "--api-key", conformanceKey)
	assert.Equal(t, ExitFailed, res.code, "a MUST failed when the server went away:\n%s\n%s", res.stdout, res.stderr)
	assert.Contains(t, res.stderr, "benchserve conformance: the server went away: ", "one line says so:\n%s", res.stderr)
	assert.Contains(t, res.stdout, "not checked: the server went away", "the skipped contracts say why")
}

// TestConformanceModelsListIsNotCircular: without --model, under the
// models-missing fault, models.list fails, whichever model the run took.
func TestConformanceModelsListIsNotCircular(t *testing.T) {
	srv := conformanceFixture(t, fixtures.Fault("models-missing"))
	res := invoke(t, "conformance", "--url", srv.URL, "--api-key", conformanceKey, "--case-tag", "models")
	block := contractBlock(res.stdout, "models.list")
	assert.Contains(t, block, "FAIL", "models.list fails on a server whose list is wrong:\n%s", res.stdout)
	assert.Equal(t, ExitFailed, res.code, "a MUST failed:\n%s", res.stdout)
}

// TestConformanceWithoutOutputLeavesNoJournal: without --output the
// printed lines are the results, so a run that ended removes the journal
// it kept in the temp directory (every run used to leave one behind).
func TestConformanceWithoutOutputLeavesNoJournal(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	srv := conformanceFixture(t)
	res := invoke(t, "conformance", "--url", srv.URL, "--api-key", conformanceKey, "--case-tag", "models")
	require.Equal(t, ExitOK, res.code, "%s", res.stdout)
	left, err := os.ReadDir(tmp)
	require.NoError(t, err)
	var names []string
	for _, e := range left {
		names = append(names, e.Name())
	}
	assert.Empty(t, names, "nothing left in the temp directory")
}
