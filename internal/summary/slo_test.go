package summary_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/results"
)

func TestEvaluateThresholds(t *testing.T) {
	st := summary.Requests(handBuilt(), 2*time.Second, summary.Options{})
	ths, err := results.ParseThresholds(
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
	got := summary.Evaluate(st, ths)
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
	empty := summary.Requests(nil, time.Second, summary.Options{})
	th, _ := results.ParseThreshold("ttft_p95_ms <= 500")
	o := th.Evaluate(empty)
	assert.False(t, o.Pass, "no samples fails a threshold")
	assert.Equal(t, "ttft_p95_ms: no samples, want <= 500", o.String(), "no-sample message")
}
