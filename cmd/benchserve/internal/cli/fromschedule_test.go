package cli

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
)

// TestLoadLineShowsLatencyFromSchedule: a schedule --max-concurrency 1
// cannot keep (200 req/s of 20 ms answers) lags, and the CLI shows the
// latencies from the schedule beside the usual line; the payload has
// them in its schedule block and per record.
func TestLoadLineShowsLatencyFromSchedule(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{Timing: &fixtures.Timing{TTFT: 20 * time.Millisecond, TokenDelay: time.Millisecond}})
	dir := t.TempDir()
	wl := writeWorkloadFile(t, dir, "hello.json", `{"cases": [{"id": "hello", "messages": [{"role": "user", "content": "Say hello."}], "max_tokens": 4}]}`)
	out := filepath.Join(dir, "lag.json")
	res := invoke(t, "--url", srv.URL, "--workload", wl, "--request-rate", "200", "--num-prompts", "20",
		"--max-concurrency", "1", "--output", out)
	assert.Regexp(t, `Latency from the schedule \(lag p99 [\d.]+ ms\): TTFT p50 [\d.]+ ms p99 [\d.]+ ms, E2EL p50 [\d.]+ ms p99 [\d.]+ ms\n`, res.stderr)
	p := readPayload(t, out)
	require.NotNil(t, p.Schedule.E2ELFromScheduleMS)
	require.NotNil(t, p.Summary.LatencyMS)
	assert.Greater(t, p.Schedule.E2ELFromScheduleMS.P50, p.Summary.LatencyMS.P50, "from the schedule: the lag added")
	require.NotNil(t, p.Results[len(p.Results)-1].E2ELFromScheduleMS, "records keep theirs")
}
