package summary_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/results"
)

// handBuilt is four succeeded requests, one failure and one drop.
func handBuilt() []loadgen.Sample {
	ok := func(ttft, tpot, e2el float64, tokens int, itl ...float64) loadgen.Sample {
		return loadgen.Sample{TTFTms: ttft, TTFOms: ttft, HasOutput: true, TPOTms: tpot, E2ELms: e2el,
			CompletionTokens: tokens, ITLms: itl, GenTPS: 1000 / tpot, Lag: time.Millisecond}
	}
	return []loadgen.Sample{
		ok(100, 10, 200, 11, 10, 10),
		ok(200, 20, 400, 11, 20),
		ok(300, 30, 600, 11),
		ok(400, 40, 800, 1), // one token: no TPOT, no gen_tps
		{Err: &stream.HTTPError{StatusCode: 500}, Kind: results.KindHTTP5xx, E2ELms: 5},
		{Kind: results.KindDropped, Err: errors.New("dropped")},
	}
}

func TestSummarize(t *testing.T) {
	st := summary.Requests(handBuilt(), 2*time.Second, summary.Options{Percentiles: []float64{75}})
	assert.Equal(t, 5, st.Requests, "dropped samples are not requests")
	assert.Equal(t, 4, st.Succeeded, "succeeded")
	assert.Equal(t, 1, st.Failed, "failed")
	assert.Equal(t, 1, st.Dropped, "dropped")
	assert.Equal(t, map[results.ErrorKind]int{results.KindHTTP5xx: 1, results.KindDropped: 1}, st.Errors, "errors by kind")
	assert.InDelta(t, 2.0/6, st.ErrorRate, 1e-12, "(failed + dropped) / (requests + dropped)")

	assert.Equal(t, 4, st.TTFT.Count, "failed requests have no TTFT")
	assert.Equal(t, 250.0, st.TTFT.Mean, "TTFT mean")
	assert.Equal(t, 250.0, st.TTFT.Median, "TTFT median interpolates 200 and 300")
	assert.InDelta(t, 370.0, st.TTFT.P90, 1e-9, "p90: index 0.9·3 = 2.7 → 300 + 0.7·100")
	assert.InDelta(t, 385.0, st.TTFT.P95, 1e-9, "p95: index 2.85")
	assert.InDelta(t, 397.0, st.TTFT.P99, 1e-9, "p99: index 2.97")
	assert.InDelta(t, 325.0, st.TTFT.Extra[75], 1e-9, "extra p75: index 2.25")
	assert.InDelta(t, 129.0994, st.TTFT.Stddev, 1e-4, "sample stddev of 100..400")
	assert.Equal(t, 100.0, st.TTFT.Min, "min")
	assert.Equal(t, 400.0, st.TTFT.Max, "max")

	assert.Equal(t, 3, st.TPOT.Count, "TPOT only from requests with >= 2 tokens")
	assert.Equal(t, 20.0, st.TPOT.Mean, "TPOT mean")
	assert.Equal(t, 3, st.ITL.Count, "ITL pools every chunk gap")
	assert.InDelta(t, 40.0/3, st.ITL.Mean, 1e-12, "ITL mean of 10, 10, 20")
	assert.Equal(t, 3, st.GenTPS.Count, "gen_tps only from requests with >= 2 tokens")
	assert.Equal(t, 5, st.Lag.Count, "lag of every sent request")
	assert.Equal(t, 1.0, st.Lag.Max, "lag in ms")

	assert.Equal(t, 34, st.OutputTokens, "tokens of succeeded requests")
	assert.Equal(t, 2.0, st.RequestThroughput, "4 succeeded in 2 s")
	assert.Equal(t, 17.0, st.OutputThroughput, "34 tokens in 2 s")
	assert.Zero(t, st.Goodput, "no goodput without an SLO")
}

func TestSummarizeEmpty(t *testing.T) {
	st := summary.Requests(nil, 0, summary.Options{})
	assert.Zero(t, st.TTFT.Count, "no samples")
	assert.True(t, math.IsNaN(st.TTFT.Mean), "empty distributions are NaN, not 0")
	assert.True(t, math.IsNaN(st.TTFT.Percentile(99)), "empty percentile is NaN")
	assert.Zero(t, st.ErrorRate, "no requests, no errors")
}

func TestGoodput(t *testing.T) {
	samples := handBuilt()
	for _, tc := range []struct {
		slo  results.GoodputSLO
		want float64
		why  string
	}{
		{results.GoodputSLO{}, 2, "no limits: every succeeded request (4 in 2 s)"},
		{results.GoodputSLO{TTFTms: 250}, 1, "TTFT 100 and 200 pass"},
		{results.GoodputSLO{TTFTms: 200}, 1, "the limit is inclusive"},
		{results.GoodputSLO{TPOTms: 25}, 1.5, "TPOT 10 and 20 pass, and the 1-token request has no TPOT to fail"},
		{results.GoodputSLO{TTFTms: 1000, TPOTms: 25, E2ELms: 300}, 0.5, "only the first meets all three"},
		{results.GoodputSLO{E2ELms: 10}, 0, "the failed request's 5 ms does not count"},
	} {
		assert.Equal(t, tc.want, summary.Goodput(samples, 2*time.Second, tc.slo), tc.why)
	}
	slo := results.GoodputSLO{TTFTms: 250}
	st := summary.Requests(samples, 2*time.Second, summary.Options{Goodput: &slo})
	assert.Equal(t, 1.0, st.Goodput, "Summarize computes goodput with an SLO")
}

func TestCheckPayloadRecordsOutcomes(t *testing.T) {
	ok := func(ttft float64) results.Record {
		return results.Record{Quality: results.Quality{OK: true}, Metrics: results.Metrics{TTFTms: ttft, E2ELms: ttft * 2},
			StartedAt: "2026-01-02T03:04:05.000000+00:00"}
	}
	p := &results.Payload{Results: []results.Record{ok(100), ok(200), ok(300)}}
	outs, err := summary.CheckPayload(p, []string{"ttft_max_ms <= 250", "error_rate <= 0", "tpot_mean_ms <= 5"})
	require.NoError(t, err)
	require.Len(t, outs, 3)
	require.Len(t, p.SLO, 3)
	assert.Equal(t, "ttft_max_ms <= 250", p.SLO[0].Expr, "named as written")
	assert.False(t, p.SLO[0].Pass)
	assert.Equal(t, 300.0, p.SLO[0].Measured)
	assert.True(t, p.SLO[1].Pass)
	assert.Equal(t, 0.0, p.SLO[1].Measured)
	assert.True(t, math.IsNaN(p.SLO[2].Measured), "no request had two tokens: no TPOT sample, recorded as null")
	assert.False(t, p.SLO[2].Pass, "a threshold without samples fails")

	_, err = summary.CheckPayload(p, []string{"ttft <= 1", "bogus"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"ttft <= 1"`)
	assert.Contains(t, err.Error(), `"bogus"`)
	assert.Len(t, p.SLO, 3, "unchanged on a parse error")
}
