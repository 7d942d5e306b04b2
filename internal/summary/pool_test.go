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
