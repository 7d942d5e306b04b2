package capacity_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/capacity"
	"github.com/benchserve/benchserve/results"
)

// With Fit, a rate search from the estimated start brackets the
// capacity, then fits the crossing across probes of 200 measured
// requests near it: on the 4-slot queue (10.22 req/s under
// ttft_p95_ms <= 200) and the 2-slot one (2.67 req/s under 300 ms), over
// eight seeds each, the estimate is within 15% of the steady state, its
// interval contains it, and the search sends at most 1,800 requests in
// all (the burst's 64 included): under 3 minutes of load for the 4-slot
// queue, where the bisection takes 5-7.
func TestSearchFitSimulatedQueues(t *testing.T) {
	for _, q := range []queue{
		{Slots: 4, TTFT: 50 * time.Millisecond, Serve: 240 * time.Millisecond, SLOms: 200, Label: "4x0.24s"},
		{Slots: 2, TTFT: 100 * time.Millisecond, Serve: 295 * time.Millisecond, SLOms: 300, Label: "2x0.295s"},
	} {
		truth := q.capacity()
		th, err := results.ParseThresholds(fmt.Sprintf("ttft_p95_ms <= %g", q.SLOms))
		require.NoError(t, err)
		for seed := uint64(1); seed <= 8; seed++ {
			t.Run(fmt.Sprintf("%s/seed=%d", q.Label, seed), func(t *testing.T) {
				res, err := capacity.Search(t.Context(), q.probe(seed), capacity.Config{CapacitySearch: results.CapacitySearch{SLOs: th, Fit: true}})
				require.NoError(t, err)
				sent, load := 64, time.Duration(0)
				for _, p := range res.Probes {
					sent += p.Summary.Sent
					load += time.Duration(p.Summary.DurationS * float64(time.Second))
				}
				t.Logf("capacity %s (%d probes, %d requests, %v of load; %s); steady state %.2f req/s", res.Headline(), len(res.Probes), sent,
					load.Round(time.Second), res.Status, truth)
				assert.InEpsilon(t, truth, res.Capacity, 0.15, "estimate within 15%% of the steady state")
				assert.False(t, res.Interval.Low > truth || res.Interval.High < truth, "the interval %s contains the steady state", res.Interval)
				assert.LessOrEqual(t, sent, 1800, "requests in all")
				if q.Slots == 4 {
					assert.Less(t, load, 3*time.Minute, "minutes of load")
				}
				assert.Contains(t, []string{capacity.StatusFound, capacity.StatusBudgetSpent}, res.Status)
				assert.Contains(t, res.Reason, "the fit over ", "the reason names the fit")
			})
		}
	}
}
