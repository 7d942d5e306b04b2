package cli

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/results"
)

func TestWorkloadSLOs(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	out := filepath.Join(dir, "out.json")

	// smoke.json has defaults.slo ["ttft_p95_ms <= 2000", "error_rate <= 0"].
	res := invoke(t, "--url", srv.URL, "--workload", smoke, "--repetitions", "1", "--output", out,
		"--slo", "ttft_p95_ms >= 99999")
	assert.Equal(t, ExitFailed, res.code, "a failed --slo threshold exits 1 although every case passed")
	p := readPayload(t, out)
	assert.True(t, p.Summary.Passed, "the cases themselves passed")
	require.Len(t, p.SLO, 3, "the workload's two thresholds and the --slo one are recorded in the payload")
	assert.Equal(t, []string{"ttft_p95_ms <= 2000", "error_rate <= 0", "ttft_p95_ms >= 99999"},
		[]string{p.SLO[0].Expr, p.SLO[1].Expr, p.SLO[2].Expr}, "workload thresholds first, then --slo, as written")
	assert.Equal(t, []bool{true, true, false}, []bool{p.SLO[0].Pass, p.SLO[1].Pass, p.SLO[2].Pass}, "outcomes recorded")
	require.False(t, math.IsNaN(p.SLO[0].Measured), "ttft measured")
	ttft := results.SLOResult{Measured: p.SLO[0].Measured}.MeasuredString()
	assert.Contains(t, res.stderr, "SLO ttft_p95_ms <= 2000: PASS (measured "+ttft+", 95% CI ", "pass line with the recorded measurement and its interval")
	require.NotNil(t, p.SLO[0].CI, "a percentile threshold records its interval")
	assert.True(t, math.IsNaN(p.SLO[0].CI.High), "a p95 of a few requests has no upper bound")
	assert.False(t, p.SLO[0].Conclusive(), "so the pass is not conclusive")
	assert.Contains(t, res.stderr, "–inf: not conclusive, the interval reaches across the limit)\n", "and the line says so")
	require.NotNil(t, p.SLO[1].CI, "error_rate has its exact binomial interval")
	assert.Equal(t, 0.0, p.SLO[1].CI.Low, "0 of 3 failed: from 0")
	assert.Contains(t, res.stderr, "SLO error_rate <= 0: PASS (measured 0, 95% CI 0–0.7076)\n", "scalar threshold line: 0 of 3 failed, up to 70.8%")
	assert.Contains(t, res.stderr, "SLO ttft_p95_ms >= 99999: FAIL (measured "+ttft+", want >= 99999, 95% CI ", "fail line says what was wanted")
	assert.Less(t, strings.Index(res.stderr, "SLO ttft_p95_ms <= 2000"), strings.Index(res.stderr, "Workload results written to"),
		"SLO lines come before the results are written (they are part of the payload)")

	res = invoke(t, "--url", srv.URL, "--workload", smoke, "--repetitions", "1", "--output", out, "--slo", "error_rate <= 0.5")
	assert.Equal(t, ExitOK, res.code, "passing thresholds exit 0")
	assert.Contains(t, res.stderr, "SLO error_rate <= 0.5: PASS (measured 0, 95% CI 0–0.7076)\n")
	assert.Len(t, readPayload(t, out).SLO, 3, "--slo adds to the workload's thresholds")

	sent := len(srv.ChatRequests())
	res = invoke(t, "--url", srv.URL, "--workload", smoke, "--slo", "ttft_p95 <= 5", "--slo", "bogus")
	assert.Equal(t, ExitUsage, res.code, "a bad --slo expression is a usage error")
	assert.Contains(t, res.stderr, `benchserve: --slo: threshold "ttft_p95 <= 5": ttft is a time: add a unit`, "first bad expression named")
	assert.Contains(t, res.stderr, `benchserve: --slo: threshold "bogus"`, "every bad expression is reported")
	assert.Contains(t, res.stderr, helpHint, "a flag mistake points at --help")
	assert.Len(t, srv.ChatRequests(), sent, "nothing ran for a bad --slo")

	help := invoke(t, "--help")
	assert.Contains(t, help.stdout, "  --slo EXPR\n", "--slo documented in --help")
}
