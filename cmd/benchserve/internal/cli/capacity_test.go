package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/longtest"
	"github.com/benchserve/benchserve/results"
)

// TestCapacityByConcurrencyFindsTheSlots: against a fixture with 4
// generation slots whose requests hold a slot 120 ms, a fifth stream waits
// a whole request before its first token, so the TTFT SLO holds up to 4
// streams and fails beyond: the search answers 4, prints every probe and
// writes capacity.json; --floor gates on it.
func TestCapacityByConcurrencyFindsTheSlots(t *testing.T) {
	longtest.Skip(t, "about 45 s: three capacity searches of concurrency probes of 120 ms requests")
	srv := fixtures.Start(t, fixtures.Options{Slots: 4, Responder: func(fixtures.Request) fixtures.Script {
		return fixtures.Script{Content: []string{"a ", "b"}, TTFT: 100 * time.Millisecond, TokenDelay: 20 * time.Millisecond}
	}})
	dir := t.TempDir()
	w := writeWorkloadFile(t, dir, "w.json", `{"cases": [{"id": "hi", "messages": [{"role": "user", "content": "hi"}]}]}`)
	out := filepath.Join(dir, "capacity.json")
	res := invoke(t, "capacity", "--url", srv.URL, "--workload", w, "--by", "concurrency", "--start", "2", "--max-rate", "8",
		"--slo", "ttft_p95_ms <= 170", "--max-time", "4m", "--output", out, "--floor", "4")
	require.Equal(t, ExitOK, res.code, "the search finished at or above the floor: %s", res.stderr)
	assert.Regexp(t, `probe 1: 2 streams: pass`, res.stderr, "every probe is printed as it finishes")
	assert.Contains(t, res.stderr, "Capacity: 4 streams, 95% CI 4–5 streams (bracket of probes decided with confidence", "the answer with its interval and method")
	assert.Contains(t, res.stderr, "stopped because the highest passing load 4 streams and the lowest not passing 5 streams are adjacent", "why it stopped")
	data, err := os.ReadFile(out)
	require.NoError(t, err, "capacity.json written")
	var got results.Capacity
	require.NoError(t, json.Unmarshal(data, &got), "capacity.json round-trips")
	assert.Equal(t, 4.0, got.Capacity, "the slot count")
	assert.Contains(t, string(data), `"capacity_concurrency": 4`, "named by what was searched")
	assert.Contains(t, string(data), `"ttft_p95_ms <= 170"`, "the SLOs as written")

	res = invoke(t, "capacity", "--url", srv.URL, "--workload", w, "--by", "concurrency", "--start", "2", "--max-rate", "8",
		"--extensions", "-1", "--slo", "ttft_p95_ms <= 170", "--max-time", "2m", "--floor", "6")
	assert.Equal(t, ExitFailed, res.code, "a capacity below --floor fails CI")

	res = invoke(t, "capacity", "--url", srv.URL, "--workload", w, "--slo", "ttft_p95_ms <= 170", "--max-time", "1ms", "--output", out+".none")
	assert.Equal(t, ExitFailed, res.code, "a search that measured nothing fails")
	assert.Contains(t, res.stderr, "benchserve capacity: nothing was measured: time cap 1ms reached after 0 probes", "and says so")
	assert.NotContains(t, res.stderr, "Capacity: 0", "no capacity that looks measured")
	assert.NoFileExists(t, out+".none", "no capacity.json")
}

func TestCapacityUsage(t *testing.T) {
	res := invoke(t, "capacity", "--url", "http://127.0.0.1:1", "--by", "speed", "--max-error-rate", "2")
	assert.Equal(t, ExitUsage, res.code)
	for _, want := range []string{"--by", "--slo: give at least one threshold", "--max-error-rate", "--workload FILE or --prompts SET"} {
		assert.Contains(t, res.stderr, want, "every problem is said at once")
	}
}

// Odd values are refused, each said once, rather than turned into
// defaults: --start 0, --max-rate 0, --precision 0, --floor -1, a floor on
// latency, p100, a fractional concurrency, --max-error-rate 2 and --fit
// by concurrency (which the fit does not do).
func TestCapacityOddInputs(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--start", "0"}, "--start: want a value > 0, got 0"},
		{[]string{"--max-rate", "0"}, "--max-rate: want a value > 0, got 0"},
		{[]string{"--precision", "0"}, "--precision: want a value > 0, got 0"},
		{[]string{"--floor", "-1"}, "--floor: want a load >= 0"},
		{[]string{"--slo", "ttft_p95_ms >= 200"}, "a lower limit on ttft, which rises with load"},
		{[]string{"--slo", "ttft_p100_ms <= 200"}, "p100 is the maximum"},
		{[]string{"--by", "concurrency", "--start", "0.5"}, "concurrency start 0.5"},
		{[]string{"--max-error-rate", "2"}, "--max-error-rate: want a number in [0, 1], got 2"},
		{[]string{"--by", "concurrency", "--fit"}, "--fit: the fit searches by rate only"},
	} {
		args := append([]string{"capacity", "--url", "http://127.0.0.1:1", "--prompts", "short"}, c.args...)
		if !slices.Contains(c.args, "--slo") {
			args = append(args, "--slo", "ttft_p95_ms <= 200")
		}
		res := invoke(t, args...)
		assert.Equal(t, ExitUsage, res.code, "%v: a usage error", c.args)
		assert.Contains(t, res.stderr, c.want, "%v: said", c.args)
		assert.Equal(t, 1, strings.Count(res.stderr, c.want), "%v: said once: %s", c.args, res.stderr)
	}
}

// A capacity search logs a line as each probe starts (its first look,
// most requests and how long they take at its rate) beside the line as
// it ends; off a terminal no live line is drawn.
func TestCapacityProbeStartLines(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	res := invoke(t, "capacity", "--url", srv.URL, "--workload", smoke, "--slo", "ttft_mean_ms <= 5000",
		"--start", "5", "--max-rate", "5", "--probe-requests", "10")
	assert.Contains(t, res.stderr, "  probe 1: 5 req/s: started; first look at 10 measured, at most 90 requests (about 2s to the first look, 18s at most)\n", "the start line")
	end := strings.Index(res.stderr, "  probe 1: 5 req/s: ")
	start := strings.Index(res.stderr, "started; first look")
	require.GreaterOrEqual(t, start, 0, "%s", res.stderr)
	assert.Greater(t, strings.Index(res.stderr[start:], "\n  probe 1: 5 req/s: "), 0, "the end line after the start line: %s", res.stderr)
	assert.GreaterOrEqual(t, end, 0, "the probe's lines")
	assert.NotContains(t, res.stderr, "\033[K", "no live line off a terminal")
}

// Without --start, the line saying where the search starts comes before
// the first probe, not after the search (a newcomer's review).
func TestCapacityStartLineComesFirst(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	res := invoke(t, "capacity", "--url", srv.URL, "--workload", smoke, "--slo", "ttft_mean_ms <= 5000",
		"--max-rate", "40", "--probe-requests", "10")
	from := strings.Index(res.stderr, "Starting at ") // at half the burst's rate, up to 40: the machine decides
	assert.Regexp(t, `Starting at [0-9.]+ req/s: a closed loop of 16 streams completed 64 requests`, res.stderr)
	probe := strings.Index(res.stderr, "  probe 1: ")
	require.GreaterOrEqual(t, from, 0, "the start line: %s", res.stderr)
	require.GreaterOrEqual(t, probe, 0, "the probe: %s", res.stderr)
	assert.Less(t, from, probe, "before the first probe: %s", res.stderr)
}
