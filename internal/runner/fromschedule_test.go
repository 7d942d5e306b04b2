package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/internal/runner"
)

// TestLatencyFromSchedule: a schedule far faster than one request in
// flight can serve (200 req/s, --max-concurrency 1, 20 ms answers) holds
// the client back, so requests are sent late; each record keeps when it
// was due and when it was sent, its latencies from the schedule are the
// send-time ones plus its lag, and the schedule block's summary of them
// is above the summary's send-time figures by the mean lag.
func TestLatencyFromSchedule(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{Timing: &fixtures.Timing{TTFT: 20 * time.Millisecond, TokenDelay: time.Millisecond}})
	r := newRunner(t, srv)
	w := load(t, `{"cases": [{"id": "hello", "messages": [{"role": "user", "content": "Say hello."}], "max_tokens": 4}]}`)
	s, err := r.Start(context.Background(), w, runner.RunOptions{})
	require.NoError(t, err)
	_, err = s.RunLoad(context.Background(), runner.Load{Rate: 200, Requests: 20, Seed: 1, MaxConcurrency: 1})
	require.NoError(t, err)
	p := s.Payload()
	require.Len(t, p.Results, 20)
	lagSum := 0.0
	for _, rec := range p.Results {
		require.NotNil(t, rec.DueOffsetMS, "%d: due offset", rec.Repetition)
		require.NotNil(t, rec.SentOffsetMS)
		require.NotNil(t, rec.LagMS)
		require.NotNil(t, rec.E2ELFromScheduleMS)
		require.NotNil(t, rec.TTFTFromScheduleMS)
		assert.InDelta(t, *rec.SentOffsetMS-*rec.DueOffsetMS, *rec.LagMS, 1e-6, "lag is sent minus due")
		assert.InDelta(t, rec.Metrics.E2ELms+*rec.LagMS, *rec.E2ELFromScheduleMS, 1e-6, "e2el from the schedule")
		assert.InDelta(t, rec.Metrics.TTFTms+*rec.LagMS, *rec.TTFTFromScheduleMS, 1e-6, "ttft from the schedule")
		lagSum += *rec.LagMS
	}
	meanLag := lagSum / 20
	// 20 requests due within ~0.1 s, served one at a time at >= 20 ms
	// each: the last waits about 0.4 s, the mean lag is well over 50 ms.
	assert.Greater(t, meanLag, 50.0, "the in-flight cap held requests back")
	sc := p.Schedule
	require.NotNil(t, sc.E2ELFromScheduleMS)
	require.NotNil(t, sc.TTFTFromScheduleMS)
	assert.Empty(t, sc.FromScheduleReason)
	assert.InDelta(t, p.Summary.LatencyMS.Mean+meanLag, sc.E2ELFromScheduleMS.Mean, 1e-6, "from the schedule: above the send-time latency by the lag")
	assert.InDelta(t, p.Summary.TTFTms.Mean+meanLag, sc.TTFTFromScheduleMS.Mean, 1e-6)
	assert.Greater(t, sc.E2ELFromScheduleMS.P99, p.Summary.LatencyMS.P99+50)
	fromRecords, err := resultio.ScheduleFromRecords(sc, p.Results)
	require.NoError(t, err)
	assert.Equal(t, sc.E2ELFromScheduleMS, fromRecords.E2ELFromScheduleMS, "merge and recover recompute them from the records")
	assert.Equal(t, sc.TTFTFromScheduleMS, fromRecords.TTFTFromScheduleMS)
	t.Logf("e2el p50 %.1f ms from the send, %.1f ms from the schedule (mean lag %.1f ms)", p.Summary.LatencyMS.P50, sc.E2ELFromScheduleMS.P50, meanLag)
}

// TestClosedLoopHasNoLatencyFromSchedule: a closed loop has no schedule,
// so the from-schedule figures are null with the reason and its records
// carry none.
func TestClosedLoopHasNoLatencyFromSchedule(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	r := newRunner(t, srv)
	w := load(t, `{"cases": [{"id": "hello", "messages": [{"role": "user", "content": "Say hello."}]}]}`)
	s, err := r.Start(context.Background(), w, runner.RunOptions{})
	require.NoError(t, err)
	_, err = s.RunLoad(context.Background(), runner.Load{Requests: 5, MaxConcurrency: 2})
	require.NoError(t, err)
	p := s.Payload()
	for _, rec := range p.Results {
		assert.Nil(t, rec.E2ELFromScheduleMS)
		assert.Nil(t, rec.DueOffsetMS)
	}
	assert.Nil(t, p.Schedule.E2ELFromScheduleMS)
	assert.Nil(t, p.Schedule.TTFTFromScheduleMS)
	assert.Contains(t, p.Schedule.FromScheduleReason, "closed loop")
}
