package capacity_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/capacity"
	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/load"
	"github.com/benchserve/benchserve/stream"
)

// queueServer starts a fixture with slots generation slots answering every
// request with 2 tokens: 40 ms to the first, 10 ms to the second, so one
// request holds a slot for about 50 ms and the queue's capacity is about
// slots / 50 ms. It returns a load.Func streaming to it.
func queueServer(t *testing.T, slots int) load.Func {
	t.Helper()
	srv := fixtures.Start(t, fixtures.Options{Slots: slots, Responder: func(fixtures.Request) fixtures.Script {
		return fixtures.Script{Content: []string{"a ", "b"}, TTFT: 40 * time.Millisecond, TokenDelay: 10 * time.Millisecond}
	}})
	tr := stream.NewTransport(256)
	t.Cleanup(tr.CloseIdleConnections)
	c := &stream.Client{BaseURL: srv.URL, HTTP: &http.Client{Transport: tr}}
	req := stream.Request{Model: srv.Model(), Messages: []map[string]any{{"role": "user", "content": "hi"}}, MaxTokens: 8}
	return load.StreamFunc(c, func(int) stream.Request { return req })
}

// calibrate measures the fixture unloaded: the TTFT p95 and the mean
// E2E latency of a request (ms) at a rate far below capacity.
func calibrate(t *testing.T, fn load.Func) (ttftP95, e2el float64) {
	t.Helper()
	run, err := load.RunOpen(t.Context(), fn, load.Open{Rate: 20, Burstiness: 16, Requests: 16, Seed: 1})
	require.NoError(t, err, "calibration run")
	st := run.Stats(load.StatsOptions{})
	require.Equal(t, 16, st.Succeeded, "calibration requests succeed")
	return st.TTFT.P95, st.E2EL.Mean
}

// searchQueue runs a capacity search against a fixture queue and checks
// the answer is within 20% of the capacity the queue implies (slots /
// E2E per request, measured unloaded). The SLO allows budget ms of
// waiting on top of the unloaded TTFT: below the capacity the line stays
// short, above it the line grows through the probe and TTFT p95 with it.
func searchQueue(t *testing.T, slots, probeRequests int, burstiness float64, budget time.Duration) {
	fn := queueServer(t, slots)
	ttft, e2el := calibrate(t, fn)
	implied := float64(slots) / (e2el / 1000)
	slo := fmt.Sprintf("ttft_p95_ms <= %.1f", ttft+float64(budget.Milliseconds()))
	cfg := capacity.Config{
		SLOs: slos(t, slo), Start: implied / 2, Max: implied * 4, ProbeRequests: probeRequests,
		Precision: 0.1, MaxTime: time.Minute,
		OnProbe: func(p capacity.Probe) { t.Log(p) },
	}
	res, err := capacity.Search(t.Context(), capacity.LoadProbe(fn, capacity.ProbeOptions{Burstiness: burstiness, Seed: 3}), cfg)
	require.NoError(t, err, "search")
	t.Logf("implied capacity %.1f req/s (%d slots / %.1f ms), SLO %s: %s, %s", implied, slots, e2el, slo, res.Status, res.Reason)
	assert.Equal(t, capacity.StatusFound, res.Status, "the search converged")
	assert.InEpsilon(t, implied, res.Capacity, 0.2, "capacity within 20%% of slots / E2E")
	assert.LessOrEqual(t, len(res.Probes), cfg.MaxProbes(), "bounded")
	for _, p := range res.Probes {
		assert.Equal(t, 0.0, p.Summary.ErrorRate, "no request failed at %v req/s", p.Load)
	}
}

// Short form: near-regular arrivals (burstiness 16) and 80 requests a
// probe, about 3 s.
func TestSearchFindsFixtureQueueCapacity(t *testing.T) {
	searchQueue(t, 8, 80, 16, 15*time.Millisecond)
}

// Long form: Poisson arrivals, whose bursts queue even below capacity,
// and 300 requests a probe.
func TestSearchFindsFixtureQueueCapacityPoisson(t *testing.T) {
	if testing.Short() {
		t.Skip("long: Poisson probes of 300 requests (-short skips it)")
	}
	searchQueue(t, 8, 300, 1, 35*time.Millisecond)
}
