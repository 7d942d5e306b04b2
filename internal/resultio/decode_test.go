package resultio

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/results"
)

// burstRecord is a record whose decode span was not observable.
func burstRecord(id string) results.Record {
	return results.Record{CaseID: id, Quality: results.Quality{OK: true}, Metrics: results.Metrics{
		TTFTms: 40, E2ELms: 41, TPOTms: math.NaN(), GenTPS: math.NaN(),
		CompletionTokens: 77, TokenChunks: 1,
		DecodeTiming: "single_chunk", DecodeTimingNote: "all 77 tokens arrived in one chunk",
	}}
}

// TestUnmeasuredRatesAreNull: tpot_ms, gen_tps and itl_ms are written as
// null with the reason, and read back as NaN.
func TestUnmeasuredRatesAreNull(t *testing.T) {
	p := &results.Payload{Results: []results.Record{burstRecord("a")}}
	p.Summary = results.Summarize(p.Results)
	out, err := FormatJSON(p)
	require.NoError(t, err, "NaN must not break the JSON")
	text := string(out)
	for _, want := range []string{`"tpot_ms": null`, `"gen_tps": null`, `"itl_ms": null`, `"decode_timing": "single_chunk"`,
		`"decode_timing_note": "all 77 tokens arrived in one chunk"`, `"gen_tps_skipped": 1`} {
		assert.Contains(t, text, want, "JSON payload")
	}
	var back results.Payload
	require.NoError(t, json.Unmarshal(out, &back), "payload reads back")
	assert.True(t, math.IsNaN(back.Results[0].Metrics.TPOTms), "null tpot_ms reads back as NaN")
	assert.True(t, math.IsNaN(back.Results[0].Metrics.GenTPS), "null gen_tps reads back as NaN")
	csv, err := Format(p, "csv")
	require.NoError(t, err, "csv")

	// No first token (an embeddings request): ttft_ms and prompt_tps are
	// null, and read back as NaN, not a measured 0 ms that a comparison
	// would call a change.
	noFirst := burstRecord("e")
	noFirst.Metrics.TTFTms, noFirst.Metrics.PromptTPS = math.NaN(), math.NaN()
	out, err = FormatJSON(&results.Payload{Results: []results.Record{noFirst}})
	require.NoError(t, err)
	assert.Contains(t, string(out), `"ttft_ms": null`)
	back = results.Payload{}
	require.NoError(t, json.Unmarshal(out, &back))
	assert.True(t, math.IsNaN(back.Results[0].Metrics.TTFTms), "null ttft_ms reads back as NaN")
	assert.True(t, math.IsNaN(back.Results[0].Metrics.PromptTPS), "null prompt_tps reads back as NaN")
	assert.False(t, strings.Contains(strings.ToLower(string(csv)), "nan"), "no NaN cell in CSV: %s", csv)
}
