package results_test

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/results"
)

// sloOf evaluates expr on st.
func sloOf(t *testing.T, expr string, st results.LoadStats) results.SLOResult {
	t.Helper()
	th, err := results.ParseThreshold(expr)
	require.NoError(t, err, "setup: parse %q", expr)
	return th.Evaluate(st)
}

// An SLOResult's JSON is the payload's slo entry: the threshold as
// written, measured null without samples, ci and conclusive only for a
// percentile, an unbounded end null; it reads back to the same outcome.
func TestSLOResultJSON(t *testing.T) {
	few := results.LoadStats{TTFT: results.NewDist([]float64{10, 20, 30, 40})}
	p95 := sloOf(t, "ttft_p95_ms <= 500", few)
	require.NotNil(t, p95.CI, "setup: a percentile has an interval")
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as capacity.json is written
	require.NoError(t, enc.Encode(p95))
	b := bytes.TrimSpace(buf.Bytes())
	assert.JSONEq(t, `{"threshold": "ttft_p95_ms <= 500", "measured": 38.5, "pass": true,
		"ci": {"low": 20, "high": null, "confidence": 0.95,
			"method": "binomial order statistics, effective sample size from autocorrelation", "n": 4, "effective_n": 2.7},
		"conclusive": false}`, string(b), "the entry, its open upper end null")
	assert.Contains(t, string(b), `"ttft_p95_ms <= 500"`, "no HTML escaping of <= where the encoder does none")

	var back results.SLOResult
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, p95.Threshold, back.Threshold, "the threshold is parsed back")
	assert.True(t, math.IsNaN(back.CI.High), "a null end reads back as NaN")
	assert.Equal(t, p95.Conclusive(), back.Conclusive(), "the verdict's confidence is the same")
	buf.Reset()
	require.NoError(t, enc.Encode(back))
	assert.Equal(t, string(b), string(bytes.TrimSpace(buf.Bytes())), "a round trip writes the same bytes")

	none := sloOf(t, "tpot_mean_ms <= 5", results.LoadStats{})
	b, err := json.Marshal(none)
	require.NoError(t, err)
	assert.JSONEq(t, `{"threshold": "tpot_mean_ms <= 5", "measured": null, "pass": false}`, string(b),
		"no samples: null, failing, no interval")
	require.NoError(t, json.Unmarshal(b, &back))
	assert.True(t, math.IsNaN(back.Measured), "null reads back as NaN, not 0")
	assert.Equal(t, "tpot_mean_ms: no samples, want <= 5", back.String(), "and prints as not measured")
}

// A threshold that no longer parses (a hand-edited file) keeps its text.
func TestSLOResultJSONKeepsAnUnparsedThreshold(t *testing.T) {
	var o results.SLOResult
	require.NoError(t, json.Unmarshal([]byte(`{"threshold": "speed >= fast", "measured": 1, "pass": true}`), &o))
	assert.Equal(t, "speed >= fast", o.Expr, "the threshold as written")
	b, err := json.Marshal(o)
	require.NoError(t, err)
	assert.JSONEq(t, `{"threshold": "speed >= fast", "measured": 1, "pass": true}`, string(b), "written back as read")
}

// A percentile interval's effective sample size is rounded to 0.1, the
// precision the JSON outputs carry.
func TestIntervalEffectiveNRounded(t *testing.T) {
	v := make([]float64, 300)
	for i := range v {
		v[i] = 100 + 60*math.Sin(float64(i)/8) // runs: fewer independent samples than 300
	}
	iv := results.NewDist(v).PercentileInterval(95, results.DefaultConfidence)
	assert.Less(t, iv.EffectiveN, 300.0, "setup: the runs shrink the effective sample size")
	assert.Equal(t, math.Round(iv.EffectiveN*10)/10, iv.EffectiveN, "rounded to 0.1: %v", iv.EffectiveN)
	assert.Equal(t, 300, iv.N, "every sample counted")
}

// A Capacity's SLOs are written as their expressions and parsed back.
func TestCapacityJSONThresholds(t *testing.T) {
	ths, err := results.ParseThresholds("ttft_p95_ms <= 500", "error_rate <= 0.01")
	require.NoError(t, err)
	c := results.Capacity{CapacitySearch: results.CapacitySearch{SLOs: ths, By: "concurrency", MaxErrorRate: 0.01},
		Status: "first_probe_failed", Probes: []results.CapacityProbe{{Number: 1, By: "concurrency", Load: 2, Verdict: "fail"}}}
	b, err := json.Marshal(c)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	assert.Equal(t, []any{"ttft_p95_ms <= 500", "error_rate <= 0.01"}, m["slos"], "the thresholds as written")
	assert.Nil(t, m["capacity_concurrency"], "no probe passed: null, not 0")
	var back results.Capacity
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, ths, back.SLOs, "parsed back")
	assert.Equal(t, "none (no probe passed), 95% CI 0–2 streams", back.Headline(), "the bracket of a hand-made result")
}
