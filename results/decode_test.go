package results

import (
	"encoding/json"
	"math"
	"strings"
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

// TestUnmeasuredRatesAreNull: tpot_ms, gen_tps and itl_ms are written as
// null with the reason, and read back as NaN.
func TestUnmeasuredRatesAreNull(t *testing.T) {
	p := &Payload{Results: []Record{burstRecord("a")}}
	p.Summary = Summarize(p.Results)
	out, err := FormatJSON(p)
	require.NoError(t, err, "NaN must not break the JSON")
	text := string(out)
	for _, want := range []string{`"tpot_ms": null`, `"gen_tps": null`, `"itl_ms": null`, `"decode_timing": "single_chunk"`,
		`"decode_timing_note": "all 77 tokens arrived in one chunk"`, `"gen_tps_skipped": 1`} {
		assert.Contains(t, text, want, "JSON payload")
	}
	var back Payload
	require.NoError(t, json.Unmarshal(out, &back), "payload reads back")
	assert.True(t, math.IsNaN(back.Results[0].Metrics.TPOTms), "null tpot_ms reads back as NaN")
	assert.True(t, math.IsNaN(back.Results[0].Metrics.GenTPS), "null gen_tps reads back as NaN")
	csv, err := Format(p, "csv")
	require.NoError(t, err, "csv")
	assert.False(t, strings.Contains(strings.ToLower(string(csv)), "nan"), "no NaN cell in CSV: %s", csv)
}
