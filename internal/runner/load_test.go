package runner_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/results"
)

// TestRunLoadOpenLoop sends a workload's cases as an open loop: every
// request is recorded and judged by its case's checks, and the payload
// says what schedule was asked for and what the client achieved.
func TestRunLoadOpenLoop(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	r := newRunner(t, srv)
	w := load(t, `{"cases": [
		{"id": "ok", "messages": [{"role": "user", "content": "Say hello."}]},
		{"id": "short", "messages": [{"role": "user", "content": "Say hello."}], "checks": {"min_chars": 100000}}]}`)
	var calls int
	s, err := r.Start(context.Background(), w, runner.RunOptions{
		SLOs: mustThresholds(t, "error_rate <= 0.6"),
		Progress: func(_ runner.Outcome, done, total int) {
			calls++
			assert.Equal(t, 20, total, "progress total is the request count")
		},
	})
	require.NoError(t, err)
	run, err := s.RunLoad(context.Background(), runner.Load{Rate: 200, Requests: 20, Seed: 7,
		Goodput: &results.GoodputSLO{E2ELms: 60_000}})
	require.NoError(t, err, "load run")
	assert.Len(t, run.Samples, 20, "every scheduled request was sent")
	assert.Equal(t, 20, calls, "every request went through Execute")

	p := s.Payload()
	require.Len(t, p.Results, 20, "one record per request")
	reps := map[string][]int{}
	for _, rec := range p.Results {
		reps[rec.CaseID] = append(reps[rec.CaseID], rec.Repetition)
		assert.Equal(t, rec.CaseID == "ok", rec.OK, "%s/%d judged by its own case's checks", rec.CaseID, rec.Repetition)
	}
	assert.ElementsMatch(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, reps["ok"], "cycled: each case 10 times, repetitions numbered")
	assert.ElementsMatch(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, reps["short"])
	assert.Equal(t, 10, p.Summary.FailureCount, "the quality failures count")

	sc := p.Schedule
	require.NotNil(t, sc, "the payload records the schedule")
	assert.Equal(t, "open", sc.Mode)
	require.NotNil(t, sc.TargetRate)
	assert.Equal(t, 200.0, *sc.TargetRate, "target rate")
	assert.Equal(t, 1.0, sc.Burstiness, "Poisson by default")
	assert.Equal(t, uint64(7), sc.Seed)
	assert.Equal(t, 20, sc.Requests)
	require.NotNil(t, sc.AchievedRate, "achieved rate measured: %s", sc.AchievedRateReason)
	assert.Greater(t, *sc.AchievedRate, 0.0, "achieved rate measured")
	assert.Equal(t, 20, sc.Sent, "sent")
	assert.Equal(t, 256, sc.InFlightCap, "no cap: the default bound, recorded")
	for _, rec := range p.Results {
		require.NotNil(t, rec.LagMS, "%s/%d: a load record carries its lag", rec.CaseID, rec.Repetition)
		assert.GreaterOrEqual(t, *rec.LagMS, 0.0, "sent no earlier than due")
		assert.NotEmpty(t, rec.EndedAt, "and when it ended")
	}
	fromRecords, err := resultio.ScheduleFromRecords(sc, p.Results)
	require.NoError(t, err)
	require.NotNil(t, fromRecords.LagMS, "the records alone give the lag")
	require.NotNil(t, sc.LagMS, "lag percentiles of the sent requests")
	// A record's lag is read at its stream's start, after the send the
	// run's lag is read at: never less (started_at has µs resolution),
	// more by however long a busy machine took between the two reads.
	assert.GreaterOrEqual(t, fromRecords.LagMS.P50, sc.LagMS.P50-0.01, "the records' lag is read after the run's (ms)")
	assert.Less(t, fromRecords.LagMS.P50, sc.LagMS.P50+100, "and matches it up to the scheduling delay (ms): no unit or origin error")
	assert.GreaterOrEqual(t, sc.LagMS.Max, sc.LagMS.P50, "lag max >= median")
	require.NotNil(t, sc.Goodput, "goodput with a per-request SLO")
	assert.Greater(t, *sc.Goodput, 0.0, "the passing requests met the 60 s E2EL limit")
	require.Len(t, p.SLO, 1)
	require.False(t, math.IsNaN(p.SLO[0].Measured))
	assert.Equal(t, 0.5, p.SLO[0].Measured, "error rate: the quality failures, on the same records as the summary")
}

// TestRunLoadSampledIsSeeded: sampling the cases with a seed gives the same
// mix every time.
func TestRunLoadSampledIsSeeded(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	r := newRunner(t, srv)
	w := load(t, `{"cases": [
		{"id": "a", "messages": [{"role": "user", "content": "a"}]},
		{"id": "b", "messages": [{"role": "user", "content": "b"}]},
		{"id": "c", "messages": [{"role": "user", "content": "c"}]}]}`)
	mix := func() map[string]int {
		s, err := r.Start(context.Background(), w, runner.RunOptions{})
		require.NoError(t, err)
		_, err = s.RunLoad(context.Background(), runner.Load{Requests: 30, MaxConcurrency: 4, Seed: 3, Sample: true})
		require.NoError(t, err)
		m := map[string]int{}
		for _, rec := range s.Payload().Results {
			m[rec.CaseID]++
		}
		return m
	}
	first := mix()
	assert.Equal(t, first, mix(), "the same seed draws the same mix")
	assert.Equal(t, 30, first["a"]+first["b"]+first["c"], "every request recorded")
	assert.NotEqual(t, map[string]int{"a": 10, "b": 10, "c": 10}, first, "sampled, not cycled")
}

func TestLoadCheck(t *testing.T) {
	for _, l := range []runner.Load{{Rate: math.NaN()}, {Rate: -1}, {Burstiness: math.Inf(1)}, {Requests: -1}, {MaxConcurrency: -2}} {
		assert.Error(t, l.Check(), "%+v is refused before anything is sent", l)
	}
	assert.NoError(t, runner.Load{Rate: math.Inf(1), Requests: 5}.Check(), "inf is a rate")
}

// An unlimited rate bounded by a duration is a closed loop that ends at
// the duration, sharded or not (every arrival at t = 0 never reached the
// duration before), and the schedule says it was a closed loop.
func TestRunLoadUnlimitedRateWithDurationEnds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		shard loadgen.Shard
		conc  int
		want  int // streams
	}{
		{"unsharded", loadgen.Shard{}, 0, 1},
		{"shard 0/2", loadgen.Shard{Index: 0, Count: 2}, 0, 1},
		{"shard 1/2 capped", loadgen.Shard{Index: 1, Count: 2}, 3, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fixtures.Start(t, fixtures.Options{})
			r := newRunner(t, srv)
			w := load(t, `{"cases": [{"id": "ok", "messages": [{"role": "user", "content": "Say hello."}]}]}`)
			s, err := r.Start(context.Background(), w, runner.RunOptions{})
			require.NoError(t, err)
			run, err := s.RunLoad(context.Background(), runner.Load{Duration: 200 * time.Millisecond, Shard: tc.shard, MaxConcurrency: tc.conc})
			require.NoError(t, err, "the run ends")
			// A stream passes its duration check and then reads the clock:
			// on a busy machine it may read it after the duration, once.
			after := 0
			for _, smp := range run.Samples {
				if smp.Sent >= 200*time.Millisecond {
					after++
				}
			}
			assert.LessOrEqual(t, after, tc.want, "no request sent after the duration but one per stream that passed its check before it")
			sc := s.Payload().Schedule
			assert.Equal(t, "closed", sc.Mode, "no schedule: a closed loop")
			assert.Equal(t, tc.want, sc.InFlightCap, "its streams")
			assert.LessOrEqual(t, sc.PeakInFlight, tc.want, "never more in flight than streams")
		})
	}
}

// A count that cannot be split over the shards is refused before
// anything is sent.
func TestLoadCheckSplit(t *testing.T) {
	l := runner.Load{Requests: 2, Shard: loadgen.Shard{Index: 5, Count: 10}}
	err := l.CheckSplit(0)
	require.Error(t, err, "2 requests over 10 shards")
	assert.Contains(t, err.Error(), "2 requests cannot be split 10 ways")
	assert.Error(t, runner.Load{Shard: loadgen.Shard{Index: 0, Count: 4}}.CheckSplit(3), "3 cases × 1 repetition over 4 shards")
	assert.NoError(t, runner.Load{Shard: loadgen.Shard{Index: 0, Count: 4}, Duration: time.Second}.CheckSplit(3), "a duration splits any way")
	assert.NoError(t, runner.Load{Requests: 2}.CheckSplit(0), "unsharded")
}
