package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/capacity"
)

// TestCapacityByConcurrencyFindsTheSlots: against a fixture with 4
// generation slots whose requests hold a slot 120 ms, a fifth stream waits
// a whole request before its first token, so the TTFT SLO holds up to 4
// streams and fails beyond: the search answers 4, prints every probe and
// writes capacity.json; --floor gates on it.
func TestCapacityByConcurrencyFindsTheSlots(t *testing.T) {
	if testing.Short() {
		t.Skip("probes of 120 ms requests (-short skips it)")
	}
	srv := fixtures.Start(t, fixtures.Options{Slots: 4, Responder: func(fixtures.Request) fixtures.Script {
		return fixtures.Script{Content: []string{"a ", "b"}, TTFT: 100 * time.Millisecond, TokenDelay: 20 * time.Millisecond}
	}})
	dir := t.TempDir()
	w := writeWorkloadFile(t, dir, "w.json", `{"cases": [{"id": "hi", "messages": [{"role": "user", "content": "hi"}]}]}`)
	out := filepath.Join(dir, "capacity.json")
	res := invoke(t, "capacity", "--url", srv.URL, "--workload", w, "--by", "concurrency", "--start", "2", "--max-rate", "8",
		"--probe-requests", "16", "--slo", "ttft_p95_ms <= 170", "--max-time", "2m", "--output", out, "--floor", "4")
	require.Equal(t, ExitOK, res.code, "the search finished at or above the floor")
	assert.Regexp(t, `probe 1: 2 streams: pass`, res.stderr, "every probe is printed as it finishes")
	assert.Contains(t, res.stderr, "Capacity: 4 streams (found", "the answer")
	data, err := os.ReadFile(out)
	require.NoError(t, err, "capacity.json written")
	var got capacity.Result
	require.NoError(t, json.Unmarshal(data, &got), "capacity.json round-trips")
	assert.Equal(t, 4.0, got.Capacity, "the slot count")
	assert.Contains(t, string(data), `"capacity_concurrency": 4`, "named by what was searched")
	assert.Contains(t, string(data), `"ttft_p95_ms <= 170"`, "the SLOs as written")

	res = invoke(t, "capacity", "--url", srv.URL, "--workload", w, "--by", "concurrency", "--start", "2", "--max-rate", "8",
		"--probe-requests", "16", "--slo", "ttft_p95_ms <= 170", "--max-time", "2m", "--floor", "6")
	assert.Equal(t, ExitFailed, res.code, "a capacity below --floor fails CI")
}

func TestCapacityUsage(t *testing.T) {
	res := invoke(t, "capacity", "--url", "http://127.0.0.1:1", "--by", "speed", "--max-error-rate", "2")
	assert.Equal(t, ExitUsage, res.code)
	for _, want := range []string{"--by", "--slo: give at least one threshold", "--max-error-rate", "--workload FILE or --prompts SET"} {
		assert.Contains(t, res.stderr, want, "every problem is said at once")
	}
}
