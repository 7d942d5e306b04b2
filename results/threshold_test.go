package results_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/results"
)

func TestParseThreshold(t *testing.T) {
	for _, tc := range []struct {
		expr                   string
		metric, stat, unit, op string
		value                  float64
		name                   string
	}{
		{"ttft_p95_ms <= 500", "ttft", "p95", "ms", "<=", 500, "ttft_p95_ms<=500"},
		{"tpot_mean_ms<=50", "tpot", "mean", "ms", "<=", 50, "tpot_mean_ms<=50"},
		{"error_rate <= 0.01", "error_rate", "", "", "<=", 0.01, "error_rate<=0.01"},
		{"gen_tps_p50 >= 20", "gen_tps", "p50", "", ">=", 20, "gen_tps_p50>=20"},
		{" itl_p99.9_us < 8e4 ", "itl", "p99.9", "us", "<", 80000, "itl_p99.9_us<80000"},
		{"E2EL_max_s == 3", "e2el", "max", "s", "==", 3, "e2el_max_s==3"},
		{"lag_count != 0", "lag", "count", "", "!=", 0, "lag_count!=0"},
		{"goodput > 1.5", "goodput", "", "", ">", 1.5, "goodput>1.5"},
	} {
		th, err := results.ParseThreshold(tc.expr)
		require.NoError(t, err, "parse %q", tc.expr)
		assert.Equal(t, results.Threshold{Expr: tc.expr, Metric: tc.metric, Stat: tc.stat, Unit: tc.unit, Op: tc.op, Value: tc.value}, th, "parse %q", tc.expr)
		assert.Equal(t, tc.name, th.Name(), "name of %q", tc.expr)
	}
}

func TestParseThresholdErrors(t *testing.T) {
	for expr, want := range map[string]string{
		"ttft_p95 <= 500":      `load: threshold "ttft_p95 <= 500": ttft is a time: add a unit (_ms, _s or _us): bad threshold`,
		"ttft_p95_ms 500":      `load: threshold "ttft_p95_ms 500": want metric_stat_unit op value, e.g. ttft_p95_ms <= 500: bad threshold`,
		"ttft_p95_ms <= fast":  `load: threshold "ttft_p95_ms <= fast": value "fast" is not a number: bad threshold`,
		"latency_p95_ms < 1":   `load: threshold "latency_p95_ms < 1": unknown metric "latency" (want ttft, ttfo, tpot, itl, e2el, lag, gen_tps or a scalar such as error_rate): bad threshold`,
		"ttft_avg_ms < 1":      `load: threshold "ttft_avg_ms < 1": unknown statistic "avg" (want mean, median, stddev, min, max, count or pN such as p95): bad threshold`,
		"ttft_p95_min < 1":     `load: threshold "ttft_p95_min < 1": unknown time unit "min" (want ms, s or us): bad threshold`,
		"gen_tps_p50_ms >= 20": `load: threshold "gen_tps_p50_ms >= 20": gen_tps takes no unit, got "ms": bad threshold`,
		"ttft_p101_ms < 1":     `load: threshold "ttft_p101_ms < 1": percentile 101 is above 100: bad threshold`,
		"tpot <= 3":            `load: threshold "tpot <= 3": tpot needs a statistic (mean, median, stddev, min, max, count or pN): bad threshold`,
	} {
		_, err := results.ParseThreshold(expr)
		assert.ErrorIs(t, err, results.ErrThreshold, "%q wraps ErrThreshold", expr)
		assert.EqualError(t, err, want, "message for %q", expr)
	}
	_, err := results.ParseThresholds("ttft_p95_ms <= 1", "bad", "tpot <= 3")
	assert.ErrorContains(t, err, `"bad"`, "all problems are reported")
	assert.ErrorContains(t, err, `"tpot <= 3"`, "all problems are reported")
}

// An error rate over no request is not measured: "no samples", failing,
// as a latency threshold over no request does (not 0, which would pass).
func TestErrorRateOfNoRequestsIsNotMeasured(t *testing.T) {
	th, err := results.ParseThreshold("error_rate <= 0.01")
	require.NoError(t, err)
	o := th.Evaluate(results.LoadStats{})
	assert.False(t, o.Pass, "nothing was measured")
	assert.Equal(t, "error_rate: no samples, want <= 0.01", o.String())

	o = th.Evaluate(results.LoadStats{Requests: 4, Failed: 1, ErrorRate: 0.25})
	assert.False(t, o.Pass, "1 of 4 failed")
	assert.Equal(t, "error_rate = 0.25, want <= 0.01", o.String())
	o = th.Evaluate(results.LoadStats{Dropped: 2, ErrorRate: 1})
	assert.Equal(t, 1.0, o.Measured, "dropped requests count: none was sent, all failed")
}

// Scale converts a threshold's unit to its samples' milliseconds.
func TestThresholdScale(t *testing.T) {
	for expr, want := range map[string]float64{"ttft_p95_s <= 0.2": 1000, "ttft_p95_ms <= 200": 1, "tpot_p50_us <= 900": 0.001, "error_rate <= 0.01": 1} {
		th, err := results.ParseThreshold(expr)
		require.NoError(t, err, expr)
		assert.Equal(t, want, th.Scale(), expr)
	}
}
