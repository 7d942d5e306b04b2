package sweep

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/results"
)

// TestAggregateSkipsUnmeasuredRates: a request whose decode span was not
// observable (NaN tpot and gen_tps: one chunk or a burst) counts for TTFT,
// E2E and throughput but not for the row's tpot and gen_tps means, which
// are NaN (null) when no request was timed.
func TestAggregateSkipsUnmeasuredRates(t *testing.T) {
	nan := math.NaN()
	a := aggregate([]*results.Record{ok(100, 20, 1000, 50, 400, 40, true), ok(300, nan, 2000, nan, 200, 60, true)}, 2, true)
	assert.Equal(t, 2, a.valid, "both requests are valid")
	assert.Equal(t, 200.0, a.ttft, "TTFT over both")
	assert.Equal(t, 20.0, a.tpot, "TPOT over the timed request only")
	assert.Equal(t, 50.0, a.genTPS, "gen_tps over the timed request only, no burst rate")
	assert.Equal(t, 50.0, a.throughput, "throughput still counts every token")
	none := aggregate([]*results.Record{ok(300, nan, 2000, nan, 200, 60, true)}, 1, true)
	assert.True(t, math.IsNaN(none.genTPS) && math.IsNaN(none.tpot), "no timed request: no rate, not 0 and not a burst's")
}
