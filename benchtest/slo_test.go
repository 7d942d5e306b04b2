package benchtest_test

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/benchtest"
	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/results"
)

// sloStats is four requests with TTFT 100, 200, 300, 400 ms (p95 385 ms)
// and one failure, over 2 s.
func sloStats() results.LoadStats {
	var samples []loadgen.Sample
	for _, ttft := range []float64{100, 200, 300, 400} {
		samples = append(samples, loadgen.Sample{TTFTms: ttft, E2ELms: 2 * ttft, TPOTms: 10, GenTPS: 100, CompletionTokens: 5})
	}
	samples = append(samples, loadgen.Sample{Kind: results.KindHTTP5xx})
	return summary.Requests(samples, 2*time.Second, summary.Options{})
}

// TestCheckSLOsChild is run by TestCheckSLOs in a child process, where its
// failing subtests are the expected outcome.
func TestCheckSLOsChild(t *testing.T) {
	if os.Getenv(childEnv) != "slo-test" {
		t.Skip("run by TestCheckSLOs in a child process")
	}
	outcomes, ok := benchtest.CheckSLOs(t, sloStats(),
		"ttft_p95_ms <= 500", "ttft_p95_ms <= 300", "error_rate <= 0.01", "gen_tps_p50 >= 20", "ttft_p95 <= 1")
	t.Logf("outcomes=%d ok=%v", len(outcomes), ok)
}

func TestCheckSLOs(t *testing.T) {
	leakCheck(t)
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestCheckSLOsChild$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"=slo-test")
	outb, err := cmd.CombinedOutput()
	out := string(outb)
	require.Error(t, err, "failed thresholds fail the test:\n%s", out)
	for _, want := range []string{
		"--- PASS: TestCheckSLOsChild/slo/ttft_p95_ms<=500",
		"--- FAIL: TestCheckSLOsChild/slo/ttft_p95_ms<=300",
		"ttft_p95_ms = 385, want <= 300",
		"--- FAIL: TestCheckSLOsChild/slo/error_rate<=0.01",
		"error_rate = 0.2, want <= 0.01",
		"--- PASS: TestCheckSLOsChild/slo/gen_tps_p50>=20",
		"--- FAIL: TestCheckSLOsChild/slo/parse",
		`load: threshold "ttft_p95 <= 1": ttft is a time: add a unit (_ms, _s or _us): bad threshold`,
		"outcomes=4 ok=false",
	} {
		assert.Contains(t, out, want, "child output has %q", want)
	}
}

func TestCheckSLOsAllPass(t *testing.T) {
	leakCheck(t)
	outcomes, ok := benchtest.CheckSLOs(t, sloStats(), "ttft_p99_ms < 1000", "requests == 5", "failed <= 1")
	assert.True(t, ok, "every threshold holds")
	require.Len(t, outcomes, 3, "one outcome per threshold")
	assert.InDelta(t, 397.0, outcomes[0].Measured, 1e-9, "measured TTFT p99 (ms)")
}

func TestPayloadStats(t *testing.T) {
	leakCheck(t)
	ttfo := 120.0
	no := false
	rec := func(started string, ttft, e2el float64) results.Record {
		return results.Record{StartedAt: started, Quality: results.Quality{OK: true},
			Metrics: results.Metrics{TTFTms: ttft, TTFOms: &ttfo, E2ELms: e2el, TPOTms: 5, GenTPS: 200,
				CompletionTokens: 10, ITLms: []float64{4, 6}}}
	}
	p := &results.Payload{Results: []results.Record{
		rec("2026-01-02T03:04:05.000000+00:00", 100, 1000),
		rec("2026-01-02T03:04:05.500000+00:00", 300, 1500), // ends at +2 s
		{StartedAt: "2026-01-02T03:04:06.000000+00:00", Error: "stream: HTTP 500: boom"},
		{StartedAt: "2026-01-02T03:04:06.000000+00:00", Error: "policy timeout", Policy: results.Policy{WithinTimeout: &no}},
		{StartedAt: "2026-01-02T03:04:06.000000+00:00", Quality: results.Quality{OK: false}, // streamed, failed a check
			Metrics: results.Metrics{TTFTms: 200, TTFOms: &ttfo, E2ELms: 500, TPOTms: 5, GenTPS: 200, CompletionTokens: 10, ITLms: []float64{4, 6}}},
	}}
	st := benchtest.PayloadStats(p)
	assert.Equal(t, 5, st.Requests, "every record is a request")
	assert.Equal(t, 2, st.Succeeded, "two clean records")
	assert.Equal(t, map[results.ErrorKind]int{summary.KindRequest: 1, results.KindPolicyTimeout: 1, results.KindQuality: 1}, st.Errors, "errors by kind")
	assert.Equal(t, 2*time.Second, st.Duration, "first start to last end")
	assert.Equal(t, 200.0, st.TTFT.Mean, "TTFT mean of every measured record, the quality failure included")
	assert.Equal(t, 3, st.TTFT.Count, "the wire failures have no timings")
	assert.Equal(t, 120.0, st.TTFO.Mean, "TTFO from the records")
	assert.Equal(t, 6, st.ITL.Count, "pooled chunk gaps")
	assert.Equal(t, 1.0, st.RequestThroughput, "2 succeeded in 2 s")
	assert.Equal(t, 15.0, st.OutputThroughput, "30 streamed tokens in 2 s")

	// The payload summary counts the same records: the SLO's TTFT and the
	// summary's TTFT are one number.
	sum := results.Summarize(p.Results)
	require.NotNil(t, sum.TTFTms, "summary TTFT")
	assert.Equal(t, sum.TTFTms.Mean, st.TTFT.Mean, "summary and SLO agree on the TTFT mean")
	assert.Equal(t, sum.TTFTms.P95, st.TTFT.P95, "summary and SLO agree on the TTFT p95")
}
