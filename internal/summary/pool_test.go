package summary_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/results"
)

// TestPoolPoolsRounds: two rounds pool into one set of statistics over
// their summed durations, with the larger peak and the late requests
// summed; AllFailed only when every measured request failed.
func TestPoolPoolsRounds(t *testing.T) {
	ok := loadgen.Sample{TTFTms: 10, E2ELms: 100, CompletionTokens: 10}
	bad := loadgen.Sample{Kind: results.KindQuality, TTFTms: 30, E2ELms: 300, CompletionTokens: 10}
	var p summary.Pool
	p.Add(&loadgen.Run{Samples: []loadgen.Sample{ok, ok}, Duration: time.Second, PeakInFlight: 2, Sent: 2, Late: 1, FirstSent: 0, LastSent: 500 * time.Millisecond})
	p.Add(&loadgen.Run{Samples: []loadgen.Sample{bad}, Duration: time.Second, PeakInFlight: 1, Sent: 1})
	st := p.Stats(summary.Options{})
	assert.Equal(t, 3, st.Requests)
	assert.Equal(t, 2, st.Succeeded)
	assert.Equal(t, 1, st.Errors[results.KindQuality])
	assert.Equal(t, 2, st.PeakInFlight, "the larger peak")
	assert.Equal(t, 1, st.Late)
	assert.InDelta(t, 1.0, st.RequestThroughput, 1e-12, "2 succeeded over 2 s")
	assert.InDelta(t, 50.0/3, st.TTFT.Mean, 1e-12, "a failed check's timings count")
	assert.False(t, summary.AllFailed(st))
	assert.True(t, summary.AllFailed(results.LoadStats{Requests: 2, Failed: 2}))
	assert.False(t, summary.AllFailed(results.LoadStats{}), "nothing measured is not every request failed")
}

// TestPoolSendRateOfClosedLoopsIsNull: open-loop rounds pool their
// arrivals' rate ((sent − 1) gaps over the summed windows); a closed-loop
// round has none, so the pooled rate is null with the reason and req/s
// (RequestThroughput) is what the server served.
func TestPoolSendRateOfClosedLoopsIsNull(t *testing.T) {
	var open summary.Pool
	open.Add(&loadgen.Run{Mode: "open", Sent: 3, LastSent: time.Second})
	open.Add(&loadgen.Run{Mode: "open", Sent: 3, LastSent: time.Second})
	rate, ok, _ := open.SendRate()
	assert.True(t, ok)
	assert.InDelta(t, 2.0, rate, 1e-12, "4 gaps over 2 s")

	var closed summary.Pool
	closed.Add(&loadgen.Run{Mode: "closed", Sent: 20, LastSent: 2600 * time.Microsecond, Duration: 90 * time.Millisecond})
	_, ok, reason := closed.SendRate()
	assert.False(t, ok, "20 sends in 2.6 ms are how fast the client went, not 7300 req/s")
	assert.Equal(t, "a closed loop has no arrival rate: each stream sent its next request when its last one ended (req/s is the rate the server served)", reason)
}
