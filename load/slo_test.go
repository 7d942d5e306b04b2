package load_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/load"
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
		th, err := load.ParseThreshold(tc.expr)
		require.NoError(t, err, "parse %q", tc.expr)
		assert.Equal(t, load.Threshold{Expr: tc.expr, Metric: tc.metric, Stat: tc.stat, Unit: tc.unit, Op: tc.op, Value: tc.value}, th, "parse %q", tc.expr)
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
		_, err := load.ParseThreshold(expr)
		assert.ErrorIs(t, err, load.ErrThreshold, "%q wraps ErrThreshold", expr)
		assert.EqualError(t, err, want, "message for %q", expr)
	}
	_, err := load.ParseThresholds("ttft_p95_ms <= 1", "bad", "tpot <= 3")
	assert.ErrorContains(t, err, `"bad"`, "all problems are reported")
	assert.ErrorContains(t, err, `"tpot <= 3"`, "all problems are reported")
}

func TestEvaluateThresholds(t *testing.T) {
	st := load.Summarize(handBuilt(), 2*time.Second, load.StatsOptions{})
	ths, err := load.ParseThresholds(
		"ttft_p95_ms <= 500",  // 385
		"ttft_p95_ms <= 300",  // fails
		"ttft_mean_s < 0.2",   // 0.25 s fails
		"tpot_mean_ms <= 50",  // 20
		"error_rate <= 0.01",  // 1/3 fails
		"gen_tps_p50 >= 20",   // 50
		"itl_p50_us >= 10000", // 10 ms
		"ttft_p75_ms == 325",  // percentile not precomputed
		"ttft_count == 4",
	)
	require.NoError(t, err, "thresholds parse")
	got := load.Evaluate(st, ths)
	want := []struct {
		pass bool
		msg  string
	}{
		{true, "ttft_p95_ms = 385, want <= 500"},
		{false, "ttft_p95_ms = 385, want <= 300"},
		{false, "ttft_mean_s = 0.25, want < 0.2"},
		{true, "tpot_mean_ms = 20, want <= 50"},
		{false, "error_rate = 0.3333, want <= 0.01"},
		{true, "gen_tps_p50 = 50, want >= 20"},
		{true, "itl_p50_us = 10000, want >= 10000"},
		{true, "ttft_p75_ms = 325, want == 325"},
		{true, "ttft_count = 4, want == 4"},
	}
	require.Len(t, got, len(want), "one outcome per threshold")
	for i, w := range want {
		assert.Equal(t, w.pass, got[i].Pass, "%s passes: %v", got[i].Expr, w.pass)
		assert.Equal(t, w.msg, got[i].String(), "message of %s", got[i].Expr)
	}
	empty := load.Summarize(nil, time.Second, load.StatsOptions{})
	th, _ := load.ParseThreshold("ttft_p95_ms <= 500")
	o := th.Evaluate(empty)
	assert.False(t, o.Pass, "no samples fails a threshold")
	assert.Equal(t, "ttft_p95_ms: no samples, want <= 500", o.String(), "no-sample message")
}
