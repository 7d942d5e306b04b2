package cli

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
)

// A workload file with a "generator" and no cases of its own runs its
// generated cases through --workload, in bench-serve and capacity alike,
// instead of "--case-tag : no case of gen.json has any of these tags"
// with no --case-tag given (a newcomer's review); benchtest.RunWorkload
// always ran it.
func TestGeneratorWorkloadFileRuns(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	gen := writeWorkloadFile(t, dir, "gen.json",
		`{"name":"gen","generator":{"name":"random","num_prompts":3,"random_input_len":16,"random_output_len":4}}`)

	res := invoke(t, "--url", srv.URL, "--workload", gen, "--repetitions", "1")
	require.Equal(t, ExitOK, res.code, "stderr: %s", res.stderr)
	assert.NotContains(t, res.stderr, "no case of")
	var p struct {
		Results []json.RawMessage `json:"results"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &p), "the payload")
	assert.Len(t, p.Results, 3, "one record per generated prompt")

	res = invoke(t, "capacity", "--url", srv.URL, "--workload", gen, "--slo", "ttft_p95_ms <= 500", "--start", "2", "--max-rate", "2", "--max-time", "1s")
	assert.NotEqual(t, ExitUsage, res.code, "not refused: %s", res.stderr)
	assert.NotContains(t, res.stderr, "no case of")
	assert.Contains(t, res.stderr, "Capacity search by rate", "the search started: %s", res.stderr)
}
