package cli

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
)

// TestWorkloadAtARate runs a workload as an open loop from the CLI: every
// request is judged and recorded, the payload has the schedule, and the
// line on stderr says the target and the achieved rate.
func TestWorkloadAtARate(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	out := filepath.Join(t.TempDir(), "rate.json")
	res := invoke(t, "--url", srv.URL, "--workload", smoke, "--request-rate", "40", "--num-prompts", "12",
		"--seed", "3", "--goodput", "ttft:60000", "e2el:60000", "--output", out)
	require.Equal(t, ExitOK, res.code, "the smoke cases pass under load")
	assert.Regexp(t, `Load: target 40 req/s \(burstiness 1, seed 3\), achieved [\d.]+ req/s; lag p50 [\d.]+ ms p99 [\d.]+ ms; \d+ late, 0 dropped, 0 unsent; goodput [\d.]+ req/s`, res.stderr, "the schedule line")
	p := readPayload(t, out)
	assert.Len(t, p.Results, 12, "--num-prompts requests, each recorded")
	require.NotNil(t, p.Schedule, "the payload records the schedule")
	require.NotNil(t, p.Schedule.TargetRate)
	assert.Equal(t, 40.0, *p.Schedule.TargetRate)
	assert.Equal(t, map[string]float64{"ttft_ms": 60000, "e2el_ms": 60000}, p.Schedule.GoodputSLO, "vLLM's space-separated --goodput pairs")
	assert.Equal(t, 12, p.Summary.CaseCount)

	res = invoke(t, "--url", srv.URL, "--workload", smoke, "--request-rate", "0", "--goodput", "ttft:x", "--burstiness", "-1")
	assert.Equal(t, ExitUsage, res.code, "bad load flags are usage errors")
	assert.Contains(t, res.stderr, "--request-rate", "names the flag")
	assert.Len(t, srv.ChatRequests(), 12, "nothing was sent for the bad flags")

	res = invoke(t, "--url", srv.URL, "--prompts", "short", "--request-rate", "2")
	assert.Equal(t, ExitUsage, res.code, "load flags are refused in sweep mode, not ignored")
}
