package summary_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/results"
)

// TestSweepRowSkipsUnmeasuredRates: a request whose decode span was not
// observable (NaN tpot and gen_tps: one chunk or a burst) counts for TTFT,
// E2E and throughput but not for the row's tpot and gen_tps means, which
// are NaN (null) when no request was timed.
func TestSweepRowSkipsUnmeasuredRates(t *testing.T) {
	nan := math.NaN()
	a := summary.SweepRowOf([]*results.Record{ok(100, 20, 1000, 50, 400, 40, true), ok(300, nan, 2000, nan, 200, 60, true)}, 2, true)
	assert.Equal(t, 2, a.Valid, "both requests are valid")
	assert.Equal(t, 200.0, a.TTFT, "TTFT over both")
	assert.Equal(t, 20.0, a.TPOT, "TPOT over the timed request only")
	assert.Equal(t, 50.0, a.GenTPS, "gen_tps over the timed request only, no burst rate")
	assert.Equal(t, 50.0, a.Throughput, "throughput still counts every token")
	none := summary.SweepRowOf([]*results.Record{ok(300, nan, 2000, nan, 200, 60, true)}, 1, true)
	assert.True(t, math.IsNaN(none.GenTPS) && math.IsNaN(none.TPOT), "no timed request: no rate, not 0 and not a burst's")
}
