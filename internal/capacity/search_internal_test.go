package capacity

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/results"
)

// The time cap stops the search before a probe would start past it; the
// capacity is the highest load that passed, and the reason gives the
// bracket. A fake clock advances 10 s per probe.
func TestSearchTimeCap(t *testing.T) {
	clock := time.Unix(0, 0)
	probe := func(ctx context.Context, spec ProbeSpec, obs Observer) (*loadgen.Run, error) {
		clock = clock.Add(10 * time.Second)
		ttft := 100.0
		if spec.Load > 40 {
			ttft = 1000
		}
		run := &loadgen.Run{Mode: "open"}
		for i := 0; i < spec.Requests && ctx.Err() == nil; i++ {
			s := loadgen.Sample{Index: i, Sent: time.Duration(i) * time.Millisecond, TTFTms: ttft, E2ELms: ttft}
			obs.Sent(i, s.Sent)
			obs.Done(s)
			run.Samples = append(run.Samples, s)
		}
		return run, nil
	}
	ths, err := results.ParseThresholds("ttft_p95_ms <= 500")
	require.NoError(t, err)
	cfg := Config{CapacitySearch: results.CapacitySearch{SLOs: ths, Start: 10, Precision: 0.01, MaxTime: 35 * time.Second}, now: func() time.Time { return clock }}
	res, err := Search(context.Background(), probe, cfg)
	require.NoError(t, err, "a time cap is not an error")
	// Probes at 10, 20 (pass), 40 (pass: capacity is 40 inclusive), 80
	// (fail) take 40 s: the fourth started at 30 s < 35 s, none after.
	assert.Equal(t, StatusTimeCap, res.Status, "stopped by the cap")
	require.Len(t, res.Probes, 4, "no probe starts after the cap")
	assert.Equal(t, 40.0, res.Capacity, "highest pass so far")
	assert.Equal(t, "time cap 35s reached after 4 probes; capacity between 40 and 80 req/s", res.Reason, "reason")
	assert.Equal(t, 40*time.Second, res.Elapsed, "elapsed on the search's clock")
}

// Busy cycles: every arrival that finds the fewest in flight starts one,
// and so does a return to the 10th percentile after reaching the median
// (for a server that never empties).
func TestCycles(t *testing.T) {
	assert.Equal(t, 0, cycles(nil), "no arrivals")
	assert.Equal(t, 5, cycles([]int{2, 2, 2, 2, 2}), "a count that never moves: every arrival finds the same state")
	assert.Equal(t, 3, cycles([]int{0, 1, 2, 3, 0, 1, 2, 0}), "an emptying server: the arrivals that find it empty")
	// Never empty: least 3 (twice), low (10th percentile of 20) 4, median 6.
	q := []int{3, 4, 6, 7, 4, 5, 8, 9, 4, 3, 6, 6, 7, 5, 4, 6, 7, 8, 6, 6}
	assert.Equal(t, 2+3, cycles(q), "two arrivals at the least, three returns to 4 after reaching 6")
	assert.Equal(t, 1, cycles([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}), "a queue building up from empty: one cycle")
}
