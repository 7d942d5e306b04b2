package results

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// burstRecord is a record whose decode span was not observable.
func burstRecord(id string) Record {
	return Record{CaseID: id, Quality: Quality{OK: true}, Metrics: Metrics{
		TTFTms: 40, E2ELms: 41, TPOTms: math.NaN(), GenTPS: math.NaN(),
		CompletionTokens: 77, TokenChunks: 1,
		DecodeTiming: "single_chunk", DecodeTimingNote: "all 77 tokens arrived in one chunk",
	}}
}

// TestSummarySkipsUnmeasuredRates: a null gen_tps is left out of the
// statistics (never averaged as 0 or as a huge rate) and counted.
func TestSummarySkipsUnmeasuredRates(t *testing.T) {
	steady := Record{CaseID: "a", Quality: Quality{OK: true}, Metrics: Metrics{TTFTms: 10, E2ELms: 110, TPOTms: 10, GenTPS: 100, ITLms: []float64{10, 10}}}
	s := Summarize([]Record{steady, burstRecord("a"), burstRecord("b")})
	require.NotNil(t, s.GenTPS, "one measured gen_tps")
	assert.Equal(t, 100.0, s.GenTPS.Mean, "only the measured record counts")
	assert.Equal(t, 100.0, s.GenTPS.Max, "no burst rate in the max")
	assert.Equal(t, 2, s.GenTPSSkipped, "two records skipped")
	assert.Equal(t, 1, s.CaseSummaries["a"].GenTPSSkipped, "case a skipped one")
	assert.Nil(t, s.CaseSummaries["b"].GenTPS, "case b has no measured gen_tps")
	require.NotNil(t, s.CaseSummaries["b"].TTFTms, "TTFT is still summarized")
	assert.Equal(t, 40.0, s.CaseSummaries["b"].TTFTms.Mean, "TTFT kept")
}
