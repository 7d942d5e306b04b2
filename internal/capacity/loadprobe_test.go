package capacity_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/capacity"
	"github.com/benchserve/benchserve/internal/loadgen"
)

// LoadProbe runs rate probes as open loops and concurrency probes as
// closed loops of the spec's length; with a shard it sends that shard's
// part.
func TestLoadProbe(t *testing.T) {
	var calls atomic.Int64
	fn := func(context.Context, int) loadgen.Sample {
		calls.Add(1)
		return loadgen.Sample{TTFTms: 5, E2ELms: 10, CompletionTokens: 1}
	}
	probe := capacity.LoadProbe(fn, capacity.ProbeOptions{Seed: 1})
	st, err := probe(t.Context(), capacity.ProbeSpec{By: capacity.ByRate, Load: 5000, Requests: 30})
	require.NoError(t, err, "rate probe")
	assert.Equal(t, "open", st.Mode, "open loop")
	assert.Equal(t, 30, st.Requests, "the spec's count")
	assert.Equal(t, 5.0, st.TTFT.P95, "stats of the samples")

	st, err = probe(t.Context(), capacity.ProbeSpec{By: capacity.ByConcurrency, Load: 3, Requests: 24})
	require.NoError(t, err, "concurrency probe")
	assert.Equal(t, "closed", st.Mode, "closed loop")
	assert.Equal(t, 24, st.Requests, "the spec's count")
	assert.LessOrEqual(t, st.PeakInFlight, 3, "at most 3 streams")

	calls.Store(0)
	sharded := capacity.LoadProbe(fn, capacity.ProbeOptions{Seed: 1, Shard: loadgen.Shard{Index: 1, Count: 4}})
	st, err = sharded(t.Context(), capacity.ProbeSpec{By: capacity.ByRate, Load: 5000, Requests: 30})
	require.NoError(t, err, "sharded probe")
	assert.Equal(t, 8, st.Requests, "shard 1 of 4 sends 30/4 rounded up (7 or 8: the first 30 mod 4 shards send 8)")
	assert.Equal(t, int64(8), calls.Load(), "and only those")

	_, err = probe(t.Context(), capacity.ProbeSpec{By: "rps", Load: 1, Requests: 1})
	require.Error(t, err, "unknown kind")
	assert.Contains(t, err.Error(), `capacity: probe by "rps"`, "says what")
}

// A concurrency search against a fixture of 4 slots finds 4 streams: up
// to 4 nothing waits; at 5 the streams fall into step, and in every round
// one request of the five waits a whole request's time for a slot, so the
// TTFT p95 exceeds the unloaded one by a whole request; the SLO's budget
// is three quarters of one. Requests hold a slot 120 ms, so scheduling
// noise on a busy machine stays inside the 90 ms budget; about 5 s,
// skipped by -short.
func TestSearchByConcurrencyFindsSlots(t *testing.T) {
	if testing.Short() {
		t.Skip("long: concurrency probes of 120 ms requests (-short skips it)")
	}
	fn := queueServer(t, 4, 100*time.Millisecond, 20*time.Millisecond)
	ttft, e2el := calibrate(t, fn)
	slo := slos(t, "ttft_p95_ms <= "+strconvF(ttft+e2el*3/4))
	cfg := capacity.Config{By: capacity.ByConcurrency, SLOs: slo, Start: 2, Max: 8, ProbeRequests: 16,
		MaxTime: time.Minute, OnProbe: func(p capacity.Probe) { t.Log(p) }}
	res, err := capacity.Search(t.Context(), capacity.LoadProbe(fn, capacity.ProbeOptions{}), cfg)
	require.NoError(t, err, "search")
	assert.Equal(t, capacity.StatusFound, res.Status, "converged: %s", res.Reason)
	assert.Equal(t, 4.0, res.Capacity, "the slot count")
}

func strconvF(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
