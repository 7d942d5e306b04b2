package sweep_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/sweep"
)

// hungMetrics serves the fixture except GET /metrics, which never answers
// (it waits for the client to give up); hits counts the scrapes begun.
func hungMetrics(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	srv := fixtures.Start(t, fixtures.Options{})
	target, err := url.Parse(srv.URL)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var hits atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" {
			hits.Add(1)
			<-r.Context().Done()
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	// One connection per request, so the hung scrape's connection is never
	// one a chat request goes out on: with keep-alives a chat request was
	// cut (EOF after 1 event) about one run in five on a loaded machine.
	ts.Config.SetKeepAlivesEnabled(false)
	t.Cleanup(ts.Close)
	return ts.URL, &hits
}

// TestSweepWithHungMetricsFinishes: a sweep against a server whose
// /metrics never answers gives the scrape up after the side-request bound,
// once, and measures every point (cache counters 0, unavailable) instead
// of hanging. The run's own deadline is far above the bound: reaching it
// is the failure.
func TestSweepWithHungMetricsFinishes(t *testing.T) {
	base, hits := hungMetrics(t)
	var warnings []string
	r, err := runner.New(context.Background(), runner.Config{URL: base, SideRequestTimeout: 200 * time.Millisecond,
		Warn: func(msg string) { warnings = append(warnings, msg) }})
	require.NoError(t, err)
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	outs, err := sweep.Run(ctx, r, sweep.Config{PromptSets: []string{"short"}, Concurrencies: []int{1, 2},
		Repetitions: 2, SkipPreflightTokenCount: true})
	require.NoError(t, err, "the sweep finishes: the hung /metrics costs the counters, not the run")
	require.Len(t, outs, 4, "every point measured")
	for i, o := range outs {
		assert.True(t, o.Row.Validated, "row %d validated: %v", i, o.Reasons)
		assert.Zero(t, o.Row.CacheHits, "row %d: no counters read", i)
	}
	assert.Equal(t, int32(1), hits.Load(), "one hung scrape, then /metrics is not read for the rest of the run")
	require.Len(t, warnings, 1, "the user is told once")
	assert.Contains(t, warnings[0], "GET /metrics did not answer within 200ms")
}

// TestSweepRecordsAndJournal: the sweep's requests are records of its
// session (judged by the engine, tool-call answers included) and its
// journal holds them and one row per point, which ReadJournal returns.
func TestSweepRecordsAndJournal(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	r, err := runner.New(context.Background(), runner.Config{URL: srv.URL})
	require.NoError(t, err)
	defer r.Close()
	journal := filepath.Join(t.TempDir(), "rows.json.journal.jsonl")
	sw, err := sweep.Start(context.Background(), r, sweep.Config{PromptSets: []string{"short"}, Concurrencies: []int{2},
		Repetitions: 1, SkipPreflightTokenCount: true, Journal: journal})
	require.NoError(t, err)
	outs, err := sw.Run(context.Background())
	require.NoError(t, err)
	require.Len(t, outs, 1)
	p := sw.Session().Payload()
	require.Len(t, p.Results, 2, "two requests of the conc=2 round are records of the session")
	for _, rec := range p.Results {
		assert.Equal(t, "short", rec.Workload, "a record names its prompt set")
		assert.True(t, rec.OK, "the engine's verdict: %v", rec.Quality.Issues)
	}
	require.NoError(t, sw.Session().FinishJournal(false), "keep the journal")
	h, recs, err := resultio.ReadJournal(journal)
	require.NoError(t, err)
	assert.True(t, h.Sweep, "the journal says it is a sweep's")
	assert.Len(t, recs, 2, "every record journaled")
	require.Len(t, h.SweepRows, 1, "one row per finished point")
	assert.Equal(t, outs[0].Row.TTFTms, h.SweepRows[0].TTFTms, "the journaled row is the row")
	assert.Equal(t, 2, h.Expected, "the journal expects the sweep's requests")
}
