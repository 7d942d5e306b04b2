package loadgen_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/results"
)

// TestSummarizeSkipsUnmeasuredDecode: a request whose tpot and gen_tps
// are NaN (one chunk or a burst) is left out of TPOT and GenTPS, counted
// in DecodeSkipped, and a tpot or gen_tps threshold says so.
func TestSummarizeSkipsUnmeasuredDecode(t *testing.T) {
	nan := math.NaN()
	samples := []loadgen.Sample{
		{TTFTms: 10, E2ELms: 100, TPOTms: 5, GenTPS: 200, CompletionTokens: 20, ITLms: []float64{5, 5}},
		{TTFTms: 30, E2ELms: 30, TPOTms: nan, GenTPS: nan, CompletionTokens: 77},
	}
	st := summary.Requests(samples, time.Second, summary.Options{})
	assert.Equal(t, 1, st.DecodeSkipped, "one request skipped")
	assert.Equal(t, 1, st.TPOT.Count, "one TPOT sample")
	assert.Equal(t, 200.0, st.GenTPS.Max, "no NaN and no burst rate in gen_tps")
	assert.Equal(t, 2, st.TTFT.Count, "TTFT keeps both")
	ths, err := results.ParseThresholds("gen_tps_mean >= 100", "ttft_p95_ms <= 500")
	require.NoError(t, err, "thresholds")
	out := summary.Evaluate(st, ths)
	assert.True(t, out[0].Pass, "the measured gen_tps passes")
	assert.Equal(t, 1, out[0].Skipped, "gen_tps threshold counts the skipped request")
	assert.Contains(t, out[0].String(), "(1 requests left out: decode span not observable)", "and says so")
	assert.Equal(t, 0, out[1].Skipped, "ttft skips nothing")
}
