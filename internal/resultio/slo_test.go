package resultio

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/results"
)

// The payload's slo block is each results.SLOResult in its JSON shape
// (SLOResult.MarshalJSON: threshold, measured, pass, ci, conclusive), with
// Python's float repr like every other number of the payload.
func TestFormatJSONSLOEntries(t *testing.T) {
	th, err := results.ParseThresholds("ttft_p95_ms <= 500", "tpot_mean_ms <= 5")
	require.NoError(t, err, "setup")
	ci := &results.Interval{Low: 20, High: math.NaN(), Confidence: 0.95, Method: "m", N: 4, EffectiveN: 2.7}
	p := fixedPayload()
	p.SLO = []results.SLOResult{
		{Threshold: th[0], Measured: 30, Pass: true, Skipped: 2, CI: ci},
		{Threshold: th[1], Measured: math.NaN()},
	}
	out, err := FormatJSON(p)
	require.NoError(t, err, "FormatJSON")
	var m struct {
		SLO []json.RawMessage `json:"slo"`
	}
	require.NoError(t, json.Unmarshal(out, &m), "valid JSON")
	require.Len(t, m.SLO, 2, "both entries")
	assert.JSONEq(t, `{"threshold": "ttft_p95_ms <= 500", "measured": 30.0, "pass": true,
		"ci": {"low": 20.0, "high": null, "confidence": 0.95, "method": "m", "n": 4, "effective_n": 2.7},
		"conclusive": false}`, string(m.SLO[0]), "a percentile's entry: its interval, open above, so not conclusive")
	assert.Contains(t, string(out), `"measured": 30.0,`, "a float keeps its .0 as in Python")
	assert.JSONEq(t, `{"threshold": "tpot_mean_ms <= 5", "measured": null, "pass": false}`, string(m.SLO[1]),
		"no samples: measured null, no interval")

	want, err := json.Marshal(p.SLO[1])
	require.NoError(t, err, "encoding/json of the entry")
	assert.JSONEq(t, string(want), string(m.SLO[1]), "the same shape as SLOResult.MarshalJSON")
	var back results.Payload
	require.NoError(t, json.Unmarshal(out, &back), "reads back")
	assert.Equal(t, p.SLO[0].Threshold, back.SLO[0].Threshold, "the threshold parsed back")
	assert.False(t, back.SLO[0].Conclusive(), "and its verdict's confidence")
}
