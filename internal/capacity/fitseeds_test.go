package capacity_test

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/capacity"
	"github.com/benchserve/benchserve/results"
)

// BENCHSERVE_CAPACITY_SEEDS=N runs the search from the estimated start,
// bisecting and with Fit, over N seeds of three simulated queues (virtual
// time), and prints a line per search and a summary per queue and
// method: how many estimates are within 15% of the steady state, how many
// intervals contain it, the median and worst error, the median
// interval's width relative to the steady state (an open end: inf), and
// the minutes of load and requests (the burst's 64 included) at the
// median and worst.
// It checks nothing: it is the table of docs/benchmarks.md.
func TestSearchFitSeeds(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("BENCHSERVE_CAPACITY_SEEDS"))
	if n <= 0 {
		t.Skip("set BENCHSERVE_CAPACITY_SEEDS to the number of seeds")
	}
	for _, q := range []queue{
		{Slots: 4, TTFT: 50 * time.Millisecond, Serve: 240 * time.Millisecond, SLOms: 200, Label: "4x0.24s"},
		{Slots: 2, TTFT: 100 * time.Millisecond, Serve: 295 * time.Millisecond, SLOms: 300, Label: "2x0.295s"},
		{Slots: 8, TTFT: 30 * time.Millisecond, Serve: 165 * time.Millisecond, SLOms: 80, Label: "8x0.165s"},
	} {
		truth := q.capacity()
		th, err := results.ParseThresholds(fmt.Sprintf("ttft_p95_ms <= %g", q.SLOms))
		require.NoError(t, err)
		for _, fit := range []bool{false, true} {
			method := map[bool]string{false: "bisect", true: "fit"}[fit]
			within, inside := 0, 0
			var errs, loads, sents, widths []float64
			for seed := uint64(1); seed <= uint64(n); seed++ {
				res, err := capacity.Search(t.Context(), q.probe(seed), capacity.Config{CapacitySearch: results.CapacitySearch{SLOs: th, Fit: fit}})
				require.NoError(t, err)
				load, sent := time.Duration(0), 64
				for _, p := range res.Probes {
					load += time.Duration(p.Summary.DurationS * float64(time.Second))
					sent += p.Summary.Sent
				}
				e := res.Capacity/truth - 1
				in := !(res.Interval.Low > truth) && !(res.Interval.High < truth)
				if math.Abs(e) <= 0.15 {
					within++
				}
				if in {
					inside++
				}
				errs, loads, sents = append(errs, math.Abs(e)), append(loads, load.Minutes()), append(sents, float64(sent))
				w := (res.Interval.High - math.Max(0, res.Interval.Low)) / truth // an open end: +Inf
				if math.IsNaN(w) {
					w = math.Inf(1)
				}
				widths = append(widths, w)
				t.Logf("%s %s seed %d: %s (%+.1f%%, contains %v), %v of load, %d requests, %d probes, %s", q.Label, method, seed,
					res.Headline(), 100*e, in, load.Round(time.Second), sent, len(res.Probes), res.Status)
			}
			med := func(v []float64) float64 { s := slices.Clone(v); slices.Sort(s); return s[len(s)/2] }
			t.Logf("| %s | %s | %.2f | %d/%d | %d/%d | %.1f%% (%.1f%%) | %.0f%% | %.1f (%.1f) | %.0f (%.0f) |", q.Label, method, truth, within, n, inside, n,
				100*med(errs), 100*slices.Max(errs), 100*med(widths), med(loads), slices.Max(loads), med(sents), slices.Max(sents))
		}
	}
}
