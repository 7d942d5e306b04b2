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

// A capacity search of a workload holds its defaults.slo in every probe,
// before --slo, as bench-serve and benchtest.SearchCapacity judge them
// (a newcomer's review: smoke.json's "error_rate <= 0" was dropped); one
// the search cannot follow is refused naming the file.
func TestCapacityKeepsTheWorkloadSLOs(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	w := writeWorkloadFile(t, dir, "w.json",
		`{"name":"w","defaults":{"slo":["ttft_p99_ms <= 900","error_rate <= 0"]},"cases":[{"id":"a","messages":[{"role":"user","content":"hi"}]}]}`)
	res := invoke(t, "capacity", "--url", srv.URL, "--workload", w, "--slo", "ttft_p95_ms <= 500", "--start", "2", "--max-rate", "2", "--max-time", "1s")
	assert.Contains(t, res.stderr, "SLOs: ttft_p99_ms <= 900; error_rate <= 0; ttft_p95_ms <= 500,", "the header lists every SLO the probes hold")

	bad := writeWorkloadFile(t, dir, "bad.json",
		`{"name":"bad","defaults":{"slo":["ttft_p95_ms >= 200"]},"cases":[{"id":"a","messages":[{"role":"user","content":"hi"}]}]}`)
	sent := len(srv.ChatRequests())
	res = invoke(t, "capacity", "--url", srv.URL, "--workload", bad, "--slo", "ttft_p95_ms <= 500")
	assert.Equal(t, ExitUsage, res.code)
	assert.Contains(t, res.stderr, bad+`: defaults.slo: slo "ttft_p95_ms >= 200": a lower limit on ttft`, "names the file, the field and the threshold: %s", res.stderr)
	assert.Len(t, srv.ChatRequests(), sent, "nothing was sent for the refused search")
}
