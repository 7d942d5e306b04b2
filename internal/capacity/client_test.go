package capacity_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/capacity"
	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/results"
)

// clientBound is a server that is never the limit (TTFT 10 ms at any
// load) driven by a client that cannot send faster than ceiling req/s:
// above it, every request goes out later and later behind its schedule,
// as a 2-core client's did at 1,024 req/s (sent at 312).
func clientBound(ceiling float64) capacity.ProbeFunc {
	return func(ctx context.Context, spec capacity.ProbeSpec, obs capacity.Observer) (*loadgen.Run, error) {
		sched := loadgen.Schedule(spec.Load, 1, spec.Requests, 7)
		samples := make([]loadgen.Sample, len(sched))
		var free time.Duration // when the client can send next
		for i, at := range sched {
			sent := max(at, free)
			free = sent + time.Duration(float64(time.Second)/ceiling)
			samples[i] = loadgen.Sample{Index: i, Scheduled: at, Sent: sent, Lag: sent - at, TTFTms: 10, E2ELms: 20,
				TPOTms: 1, GenTPS: 1, CompletionTokens: 10, HasOutput: true}
		}
		return emit(ctx, obs, samples), nil
	}
}

// A probe whose client could not keep up is invalid, and the search stops
// there: the capacity is the highest load that passed below it, status
// client_limited, never "every probe passed up to the maximum".
func TestSearchStopsWhereTheClientCannotKeepUp(t *testing.T) {
	res, err := capacity.Search(t.Context(), clientBound(100), capacity.Config{CapacitySearch: results.CapacitySearch{SLOs: slos(t, "ttft_p95_ms <= 200"), Start: 8}})
	require.NoError(t, err)
	assert.Equal(t, capacity.StatusClientLimited, res.Status, "status: %s", res.Reason)
	last := res.Probes[len(res.Probes)-1]
	assert.Equal(t, capacity.VerdictInvalid, last.Verdict, "the last probe measured the client: %s", last)
	require.NotNil(t, last.Summary.LagP99ms)
	assert.Greater(t, *last.Summary.LagP99ms, 50.0, "its requests went out behind schedule (the Poisson bursts queue at the client)")
	assert.Contains(t, last.String(), "INVALID, it measured the client (client could not keep up: lag p99")
	for _, p := range res.Probes[:len(res.Probes)-1] {
		assert.Less(t, p.Load, last.Load, "every probe before it was below it")
		assert.Equal(t, capacity.VerdictPass, p.Verdict, "and passed: %s", p)
	}
	assert.True(t, res.Measured, "a lower bound was measured")
	assert.Equal(t, res.Probes[len(res.Probes)-2].Load, res.Capacity, "the capacity is the highest load that passed")
	assert.Contains(t, res.Reason, "a bound of this client, not of the server")
	assert.False(t, math.IsInf(res.Capacity, 0))
}
