package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/runner"
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
	assert.Regexp(t, `Load: target 40 req/s \(burstiness 1, seed 3\), achieved [\d.]+ req/s over [\d.]+ s of sending; at most 256 in flight \(the default bound; --max-concurrency sets it\); throughput [\d.]+ req/s over [\d.]+ s \(first send to last end\); lag p50 [\d.]+ ms p99 [\d.]+ ms; \d+ late, 0 dropped, 0 unsent, 0 connection retries; goodput [\d.]+ req/s`, res.stderr, "the schedule line")
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

	res = invoke(t, "--url", srv.URL, "--workload", smoke, "--request-rate", "1e-300", "--num-prompts", "2")
	assert.Equal(t, ExitUsage, res.code, "a rate whose first arrival is centuries away")
	assert.Contains(t, res.stderr, `"1e-300" is below one request a day`)
	assert.Len(t, srv.ChatRequests(), 12, "nothing was sent")

	res = invoke(t, "--url", srv.URL, "--prompts", "short", "--max-concurrency", "2")
	assert.Equal(t, ExitUsage, res.code, "workload-only load flags are refused in sweep mode, not ignored")
}

// TestLoadLineCountsConnectionRetries: against a server that closes
// kept-alive connections without saying so, a load run passes and its
// line says how often a request was sent again on a fresh connection,
// the payload's figure.
func TestLoadLineCountsConnectionRetries(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{CloseKeptAlive: true})
	out := filepath.Join(t.TempDir(), "rate.json")
	res := invoke(t, "--url", srv.URL, "--workload", smoke, "--request-rate", "40", "--num-prompts", "24", "--seed", "3", "--output", out)
	require.Equal(t, ExitOK, res.code, "no request fails because the server closed a kept-alive connection:\n%s", res.stderr)
	p := readPayload(t, out)
	require.NotNil(t, p.Schedule, "the payload records the schedule")
	assert.Positive(t, p.Schedule.ConnectionRetries, "requests were sent again on fresh connections")
	assert.Equal(t, p.Summary.ConnectionRetries, p.Schedule.ConnectionRetries, "the summary and the schedule agree")
	assert.Contains(t, res.stderr, fmt.Sprintf(", 0 unsent, %d connection retries", p.Schedule.ConnectionRetries), "the load line carries the count")
}

// TestSweepAtRates: in a prompt sweep --request-rate is a dimension after
// --concurrency: each point sends --num-prompts requests as an open loop
// at its rate, --concurrency caps the requests in flight, and the row
// records its rate (JSON only: the CSV/SQL columns stay the reference's).
func TestSweepAtRates(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	res := invoke(t, "--url", srv.URL, "--prompts", "short", "--concurrency", "2", "--request-rate", "20,inf",
		"--num-prompts", "6", "--seed", "1", "--repetitions", "1", "--warmup", "0", "--skip-preflight-token-count", "--format", "json")
	require.Equal(t, ExitOK, res.code, "the sweep passes")
	assert.Contains(t, res.stderr, "short conc=2 rate=20 rep=0: TTFT=", "the rate is in the point's label")
	assert.Contains(t, res.stderr, "short conc=2 rep=0: TTFT=", "inf is the reference's closed round")
	var rows []map[string]any
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &rows))
	require.Len(t, rows, 2, "one row per rate")
	assert.Equal(t, 20.0, rows[0]["request_rate"], "the rate point records its rate")
	assert.NotContains(t, rows[1], "request_rate", "the closed round has none")
	assert.Len(t, srv.ChatRequests(), 6+2, "--num-prompts requests at the rate, one round of --concurrency")

	res = invoke(t, "--url", srv.URL, "--prompts", "short", "--num-prompts", "6", "--duration", "5s")
	assert.Equal(t, ExitUsage, res.code, "workload-only load flags and --num-prompts without a rate are refused in a sweep")
}

// TestLoadClientVerdict: a load run's line shows the client's headroom,
// and a run past the client's limits (lowered here, so no saturation is
// needed) says the client could not keep up and exits ExitFailed.
func TestLoadClientVerdict(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	generous := runner.ClientLimits{LagFloorMS: 3_600_000, CPUUtil: 1.01}
	before := clientLimits
	clientLimits = &generous
	t.Cleanup(func() { clientLimits = before })
	res := invoke(t, "--url", srv.URL, "--workload", smoke, "--request-rate", "40", "--num-prompts", "6", "--seed", "3")
	require.Equal(t, ExitOK, res.code, res.stderr)
	assert.Regexp(t, `Client: headroom: lag p99 [\d.]+ ms of 3600000.0 ms`, res.stderr, "a valid run shows its headroom")

	tight := runner.ClientLimits{LagFloorMS: -1, LagShare: -1, CPUUtil: 1.01}
	clientLimits = &tight
	out := filepath.Join(t.TempDir(), "rate.json")
	res = invoke(t, "--url", srv.URL, "--workload", smoke, "--request-rate", "40", "--num-prompts", "6", "--seed", "3", "--output", out)
	assert.Equal(t, ExitFailed, res.code, "an invalid run fails")
	assert.Regexp(t, `Error: the run is invalid: client could not keep up: lag p99 [\d.]+ ms > -1.0 ms`, res.stderr)
	p := readPayload(t, out)
	require.NotNil(t, p.Schedule)
	require.NotNil(t, p.Schedule.ClientValid)
	assert.False(t, *p.Schedule.ClientValid, "the payload carries the verdict")
}

// A closed loop (no --request-rate) has no arrival rate: its line and
// payload give no achieved rate (it was the span of the burst of sends,
// thousands of req/s for requests that took ~100 ms) but the completed
// throughput over the wall span, which holds the longest request, and
// goodput over the same span.
func TestClosedLoopReportsThroughputNotASendingRate(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	out := filepath.Join(t.TempDir(), "closed.json")
	res := invoke(t, "--url", srv.URL, "--dataset-name", "random", "--random-input-len", "32", "--random-output-len", "8",
		"--num-prompts", "6", "--no-calibration", "--goodput", "e2el:100000", "--output", out)
	require.Equal(t, ExitOK, res.code, res.stderr)
	assert.Regexp(t, `Load: no schedule \(--request-rate inf, the default\): a closed loop of 6 streams, each sending its next request when its last one ended; throughput [\d.]+ req/s over [\d.]+ s \(first send to last end\);`, res.stderr, "the schedule line")
	assert.NotContains(t, res.stderr, "achieved", "a closed loop has no achieved arrival rate to show")
	p := readPayload(t, out)
	sc := p.Schedule
	require.NotNil(t, sc)
	assert.Nil(t, sc.AchievedRate, "no arrival rate in a closed loop")
	assert.Contains(t, sc.AchievedRateReason, "a closed loop has no arrival rate")
	longest := 0.0
	for _, r := range p.Results {
		longest = max(longest, r.Metrics.E2ELms/1000)
	}
	assert.GreaterOrEqual(t, sc.WallSpanS, longest, "the wall span holds the longest request")
	require.NotNil(t, sc.RequestThroughput, sc.RequestThroughputReason)
	assert.InDelta(t, 6/sc.WallSpanS, *sc.RequestThroughput, 1e-9, "6 completed over the wall span")
	assert.LessOrEqual(t, *sc.RequestThroughput, 6/longest, "never more than the requests over the longest one")
	require.NotNil(t, sc.Goodput, sc.GoodputReason)
	assert.InDelta(t, *sc.RequestThroughput, *sc.Goodput, 1e-9, "every request met e2el 100 s: goodput is the throughput")
}

// A --duration that ends the schedule before --num-prompts counts the
// rest as unsent and says the duration did it; the run is not a failure.
func TestDurationBeforeTheCountCountsTheUnsent(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	out := filepath.Join(t.TempDir(), "d.json")
	res := invoke(t, "--url", srv.URL, "--workload", smoke, "--request-rate", "50", "--num-prompts", "50",
		"--duration", "200ms", "--seed", "1", "--output", out)
	require.Equal(t, ExitOK, res.code, "a run its duration ended passes: %s", res.stderr)
	sc := readPayload(t, out).Schedule
	require.NotNil(t, sc)
	assert.Less(t, sc.Sent, 50, "the duration ended the schedule first")
	assert.Equal(t, 50-sc.Sent, sc.Unsent, "the rest of --num-prompts is unsent")
	assert.Equal(t, 50, sc.Requests, "sent and unsent make the count")
	assert.Empty(t, sc.StopReason, "not stopped: the duration is the design")
	assert.Contains(t, res.stderr, fmt.Sprintf(" dropped, %d unsent (--duration 0.2s ended the run first), ", sc.Unsent))
	assert.NotContains(t, res.stderr, "Error:", "nothing failed")
}
