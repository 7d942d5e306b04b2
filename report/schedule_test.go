package report_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/report"
	"github.com/benchserve/benchserve/results"
)

// loadRun is the baseline payload sent as open-loop load at 20 req/s,
// with the client's verdict valid or not.
func loadRun(valid bool, reason string) report.Run {
	p := baselinePayload()
	p.Schedule = &results.Schedule{
		Mode: "open", TargetRate: ptr(20.0), Burstiness: 1, Requests: 8, Sent: 8, SendingWindowS: 0.42,
		AchievedRate: ptr(19.05), LagMS: &results.LagStats{P50: 0.21, P95: 0.8, P99: 37.5, Max: 41.2},
		Late: 3, PeakInFlight: 5, ConnectionRetries: 2,
		ClientValid: &valid, ClientReason: reason, ClientCPUUtil: ptr(0.97),
		ClientGCPauseMS: ptr(1.5), ClientGCPauseMaxMS: ptr(0.4),
		TTFTFromScheduleMS: &results.Stats{P50: 150, P99: 260}, E2ELFromScheduleMS: &results.Stats{P50: 1200, P99: 3450},
		GoodputReason: "no --goodput given",
	}
	return report.FromPayload(p, "load")
}

// TestReportHeaderSaysTheClientCouldNotKeepUp: a load run whose client
// could not keep up says "invalid for the server's figures" in its card's
// header, with the reason and the numbers that show it, and its badge is
// INVALID, not PASS: its latencies measure the client.
func TestReportHeaderSaysTheClientCouldNotKeepUp(t *testing.T) {
	page := render(t, loadRun(false, "schedule lag p99 37.5 ms over the limit 10 ms; client CPU 97% of 2 cores"))
	assert.Contains(t, page, "Invalid for the server&#39;s figures: the client could not keep up: schedule lag p99 37.5 ms over the limit 10 ms", "the verdict with its reason")
	assert.Contains(t, page, `<span class="badge fail">INVALID</span>`, "the badge says invalid")
	assert.NotContains(t, page, `badge pass`, "not a pass")
	for _, want := range []string{
		"open loop at 20.0 req/s (Poisson)", "8 of 8 requests over 0.42 s", "19.1 req/s",
		"p50 0.21 · p99 37.5 · max 41.2 ms", "3 · 0 · 0", "97%", "1.50 ms in all, longest 0.40 ms",
		"p50 150.0 · p99 260.0 ms", "not measured: no --goodput given",
	} {
		assert.Contains(t, page, want, "the load facts show %q", want)
	}
	_, data := dataOf(t, page)
	runs := data["runs"].([]any)
	require.Len(t, runs, 1)
	sched, ok := runs[0].(map[string]any)["schedule"].(map[string]any)
	require.True(t, ok, "the data block holds the schedule")
	assert.Equal(t, false, sched["client_valid"], "and its verdict")
}

// TestReportHeaderShowsAValidClientsHeadroom: a run the client kept up
// with says so, with its headroom, and keeps its PASS/FAIL badge.
func TestReportHeaderShowsAValidClientsHeadroom(t *testing.T) {
	page := render(t, loadRun(true, "headroom: lag p99 0.9 ms of 10 ms, CPU 31% of 90%"))
	assert.Contains(t, page, "✓ The client kept up: headroom: lag p99 0.9 ms of 10 ms", "the headroom")
	assert.NotContains(t, page, "INVALID", "a valid run is not marked invalid")
	assert.Contains(t, page, `<span class="badge fail">FAIL</span>`, "the baseline's failed check still fails the run")
}

// TestReportWithoutAScheduleHasNoLoadBlock: a run not sent as load (or a
// merged payload without a verdict) shows no client verdict.
func TestReportWithoutAScheduleHasNoLoadBlock(t *testing.T) {
	page := render(t, report.FromPayload(baselinePayload(), "seq"))
	assert.NotContains(t, page, `class="facts load"`, "no load block")
	assert.NotContains(t, page, "the client", "no client verdict")

	run := loadRun(true, "")
	run.Payload.Schedule.ClientValid = nil
	page = render(t, run)
	assert.Contains(t, page, `class="facts load"`, "the load facts are shown")
	assert.NotContains(t, page, "kept up", "no verdict when none was judged")
	assert.NotContains(t, page, "INVALID", "not judged is not invalid")
}
