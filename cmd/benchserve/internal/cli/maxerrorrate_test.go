package cli

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
)

// halfFailingWorkload answers every other request 500 (the fixture's
// error-500 scenario).
const halfFailingWorkload = `{"cases": [
	{"id": "ok", "messages": [{"role": "user", "content": "Say hello."}]},
	{"id": "bad", "messages": [{"role": "user", "content": "Say hello. [fixture:error-500]"}]}]}`

// TestMaxErrorRateStopsALoadRun: half the requests fail against
// --max-error-rate 0.05: the run stops with most of its 300 requests
// unsent, says why in a line with the numbers, records it in the payload
// and exits 1; under a limit of 0.9 the same run sends everything.
func TestMaxErrorRateStopsALoadRun(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	wl := writeWorkloadFile(t, dir, "half.json", halfFailingWorkload)
	out := filepath.Join(dir, "stopped.json")
	res := invoke(t, "--url", srv.URL, "--workload", wl, "--request-rate", "100", "--num-prompts", "300",
		"--max-error-rate", "0.05", "--output", out)
	assert.Equal(t, ExitFailed, res.code)
	assert.Regexp(t, `Error: the run was stopped early: error rate: \d+ of \d+ requests failed \(error rate [\d.]+%, 95% CI [\d.]+%–[\d.]+%\), over the limit 0\.05 with confidence; \d+ requests were not sent`, res.stderr)
	assert.NotRegexp(t, `\] ok \.\.\. \d+ms FAIL`, res.stderr, "a request cut by the stop is interrupted, not failed")
	p := readPayload(t, out)
	require.NotNil(t, p.Schedule)
	assert.Contains(t, p.Schedule.StopReason, "over the limit 0.05")
	assert.Greater(t, p.Schedule.Unsent, 200, "most requests unsent")

	out = filepath.Join(dir, "under.json")
	res = invoke(t, "--url", srv.URL, "--workload", wl, "--request-rate", "100", "--num-prompts", "40",
		"--max-error-rate", "0.9", "--output", out)
	assert.Equal(t, ExitFailed, res.code, "failed requests still fail the run")
	assert.NotContains(t, res.stderr, "stopped early")
	p = readPayload(t, out)
	assert.Len(t, p.Results, 40, "under the limit every request is sent")
	assert.Empty(t, p.Schedule.StopReason)

	res = invoke(t, "--url", srv.URL, "--workload", wl, "--request-rate", "100", "--max-error-rate", "2")
	assert.Equal(t, ExitUsage, res.code)
	assert.Contains(t, res.stderr, "max error rate 2: want a fraction in [0, 1]")
}
