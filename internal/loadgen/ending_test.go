package loadgen_test

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/results"
)

// instant is a Func that answers at once.
func instant(context.Context, int) loadgen.Sample { return loadgen.Sample{E2ELms: 1} }

// Cancelling a run ends it at any rate without drawing the arrivals left:
// at 10⁸ req/s for an hour the remaining ~3.6·10¹¹ arrivals are counted
// arithmetically (a walk over them would not end in this test's life).
func TestRunOpenCancelAtAnyRateCountsUnsentArithmetically(t *testing.T) {
	for _, rate := range []float64{1e8, 1e3, 0.01} {
		t.Run(fmt.Sprintf("rate=%g", rate), func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var once sync.Once
			fn := func(ctx context.Context, i int) loadgen.Sample {
				once.Do(cancel) // the user presses Ctrl-C during the first request
				return loadgen.Sample{E2ELms: 1}
			}
			run, err := loadgen.RunOpen(ctx, fn, loadgen.Open{Rate: rate, Seed: 1, Duration: time.Hour})
			require.NoError(t, err, "rate %g", rate)
			assert.GreaterOrEqual(t, run.Sent, 1, "the first request was sent")
			assert.True(t, run.UnsentEstimated, "rate %g: an hour's arrivals are estimated, not drawn", rate)
			want := rate * 3600
			assert.InDelta(t, want, float64(run.Unsent+run.Sent), max(2, want/100), "rate %g: unsent ≈ rate × the hour left", rate)
		})
	}
}

// A count-bounded run cancelled early counts its unsent requests exactly.
func TestRunOpenCancelWithACountIsExact(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	var once sync.Once
	fn := func(context.Context, int) loadgen.Sample { once.Do(cancel); return loadgen.Sample{} }
	run, err := loadgen.RunOpen(ctx, fn, loadgen.Open{Rate: 1e6, Seed: 1, Requests: 1_000_000_000})
	require.NoError(t, err)
	assert.False(t, run.UnsentEstimated, "a count is exact")
	assert.Equal(t, 1_000_000_000, run.Sent+run.Unsent, "sent + unsent = the count")
}

// An unlimited rate bounded only by a duration has no schedule: RunOpen
// refuses it instead of looping forever at t = 0.
func TestRunOpenRefusesUnlimitedRateWithOnlyADuration(t *testing.T) {
	_, err := loadgen.RunOpen(t.Context(), instant, loadgen.Open{Rate: math.Inf(1), Duration: time.Second})
	require.Error(t, err, "inf rate with a duration")
	assert.Contains(t, err.Error(), "RunClosed", "the error says what to run instead")
}

// The duration ends the sending on the wall clock too: a client held
// back by its in-flight cap stops soon after the duration (DurationGrace),
// whatever is still due, and counts the rest as unsent.
func TestRunOpenDurationEndsABlockedSchedule(t *testing.T) {
	var calls atomic.Int64
	fn := func(ctx context.Context, _ int) loadgen.Sample {
		calls.Add(1)
		time.Sleep(300 * time.Millisecond) // longer than the duration and its grace
		return loadgen.Sample{}
	}
	run, err := loadgen.RunOpen(t.Context(), fn, loadgen.Open{Rate: 1000, Seed: 1, Duration: 100 * time.Millisecond, MaxInFlight: 1})
	require.NoError(t, err)
	assert.Equal(t, int64(1), calls.Load(), "one request held the only slot until the duration passed")
	assert.Equal(t, 1, run.Sent, "sent")
	assert.Positive(t, run.Unsent, "the arrivals due meanwhile are unsent")
	assert.True(t, run.UnsentEstimated, "a duration's remaining arrivals are estimated")
}

// Without a cap the in-flight bound is DefaultMaxInFlight, and the run
// says which bound it applied.
func TestRunOpenDefaultInFlightBound(t *testing.T) {
	run, err := loadgen.RunOpen(t.Context(), instant, loadgen.Open{Rate: 1000, Requests: 3})
	require.NoError(t, err)
	assert.Equal(t, loadgen.DefaultMaxInFlight, run.InFlightCap, "the default bound")
	run, err = loadgen.RunOpen(t.Context(), instant, loadgen.Open{Rate: 1000, Requests: 3, MaxInFlight: 7})
	require.NoError(t, err)
	assert.Equal(t, 7, run.InFlightCap, "the cap given")
}

// An open loop's Func learns when its request was due; a closed loop's
// request has no schedule.
func TestDueIsTheScheduledInstant(t *testing.T) {
	var mu sync.Mutex
	var lags []time.Duration
	fn := func(ctx context.Context, _ int) loadgen.Sample {
		due, ok := loadgen.Due(ctx)
		assert.True(t, ok, "an open loop's request has a due instant")
		mu.Lock()
		lags = append(lags, time.Since(due))
		mu.Unlock()
		return loadgen.Sample{}
	}
	run, err := loadgen.RunOpen(t.Context(), fn, loadgen.Open{Rate: 100, Seed: 3, Requests: 5})
	require.NoError(t, err)
	require.Len(t, lags, 5)
	for i, s := range run.Samples {
		assert.GreaterOrEqual(t, lags[i], time.Duration(0), "request %d is not sent before it is due", s.Index)
	}
	_, err = loadgen.RunClosed(t.Context(), func(ctx context.Context, _ int) loadgen.Sample {
		_, ok := loadgen.Due(ctx)
		assert.False(t, ok, "a closed loop has no schedule")
		return loadgen.Sample{}
	}, loadgen.Closed{Requests: 2})
	require.NoError(t, err)
}

// The achieved rate is the arrivals' own: one request sent in a 2 s run
// at 0.1 req/s has no rate (the old requests / wall time made it 1 / its
// latency), and many requests at a known schedule give (n−1) / window.
func TestRunAchievedRateOverTheSendingWindow(t *testing.T) {
	run, err := loadgen.RunOpen(t.Context(), instant, loadgen.Open{Rate: 0.1, Seed: 0, Duration: 2 * time.Second})
	require.NoError(t, err)
	require.Equal(t, 1, run.Sent, "the second arrival of seed 0 at 0.1 req/s falls after 2 s")
	_, ok, reason := run.AchievedRate()
	assert.False(t, ok, "one request is no rate")
	assert.Equal(t, "only 1 sent: a rate needs at least 3 requests (two gaps between sends)", reason)

	run, err = loadgen.RunOpen(t.Context(), instant, loadgen.Open{Rate: 200, Seed: 5, Requests: 40})
	require.NoError(t, err)
	rate, ok, _ := run.AchievedRate()
	require.True(t, ok, "40 requests measure a rate")
	assert.InDelta(t, 39/(run.LastSent-run.FirstSent).Seconds(), rate, 1e-9, "(n−1) / (last send − first send)")
}

// A closed loop has no arrival rate: its achieved rate is null with the
// reason, and the rate it served is its completed throughput over the
// wall span, first send to last end (vLLM's request_throughput), which
// the time the requests took is part of.
func TestRunClosedHasThroughputNotAnArrivalRate(t *testing.T) {
	release := make(chan struct{})
	var started atomic.Int64
	fn := func(ctx context.Context, i int) loadgen.Sample {
		if started.Add(1) == 4 {
			close(release) // every request in flight: they end together
		}
		<-release
		if i == 0 {
			return loadgen.Sample{Kind: results.KindHTTP5xx}
		}
		return loadgen.Sample{E2ELms: 1}
	}
	run, err := loadgen.RunClosed(t.Context(), fn, loadgen.Closed{Concurrency: 4, Requests: 4})
	require.NoError(t, err)
	_, ok, reason := run.AchievedRate()
	assert.False(t, ok, "a closed loop's sends are no arrival rate")
	assert.Equal(t, "a closed loop has no arrival rate: each stream sent its next request when its last one ended (request_throughput is the rate the server served)", reason)
	assert.Equal(t, 3, run.Completed(), "the failed request did not complete")
	assert.GreaterOrEqual(t, run.LastEnded, run.LastSent, "the last request ends after it was sent")
	assert.Equal(t, run.LastEnded-run.FirstSent, run.WallSpan(), "first send to last end")
	rate, ok, reason := run.Throughput()
	if ok {
		assert.InDelta(t, 3/run.WallSpan().Seconds(), rate, 1e-9, "completed / wall span")
	} else {
		assert.Contains(t, reason, "4 sent and ended within", "only a sub-millisecond span is no throughput")
	}

	open, err := loadgen.RunOpen(t.Context(), instant, loadgen.Open{Rate: math.Inf(1), Requests: 5})
	require.NoError(t, err)
	_, ok, reason = open.AchievedRate()
	assert.False(t, ok, "requests all due at once have no arrival rate")
	assert.Equal(t, "every request was due at once (an unlimited rate): the sending window measures the client, not a rate (request_throughput is the rate the server served)", reason)
}

// A closed loop stopped before its count leaves the rest unsent, counted:
// by ctx (Ctrl-C) after 3 of 10, and by its duration after the one
// request at most the duration let out.
func TestRunClosedCountsUnsent(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	var n atomic.Int64
	stopAfter3 := func(context.Context, int) loadgen.Sample {
		if n.Add(1) == 3 {
			cancel()
		}
		return loadgen.Sample{E2ELms: 1}
	}
	run, err := loadgen.RunClosed(ctx, stopAfter3, loadgen.Closed{Concurrency: 1, Requests: 10})
	require.NoError(t, err)
	assert.Equal(t, 3, run.Sent, "the loop stops with ctx")
	assert.Equal(t, 7, run.Unsent, "the rest of the count")
	assert.False(t, run.UnsentEstimated, "a count, not an estimate")

	run, err = loadgen.RunClosed(t.Context(), instant, loadgen.Closed{Concurrency: 1, Requests: 5, Duration: time.Nanosecond})
	require.NoError(t, err)
	assert.LessOrEqual(t, run.Sent, 1, "the duration has passed by the first check or the second")
	assert.Equal(t, 5-run.Sent, run.Unsent, "the duration left the rest of the count unsent")

	run, err = loadgen.RunClosed(t.Context(), instant, loadgen.Closed{Concurrency: 2, Requests: 6})
	require.NoError(t, err)
	assert.Equal(t, 0, run.Unsent, "a loop that ran its count left nothing")
}

// An open loop whose duration ends its schedule before its count counts
// the rest as unsent, exactly: at 50 req/s for 200 ms the schedule of
// 50 has its first arrivals in the duration and the others are unsent.
func TestRunOpenDurationBeforeCountCountsUnsent(t *testing.T) {
	cfg := loadgen.Open{Rate: 50, Seed: 1, Requests: 50, Duration: 200 * time.Millisecond}
	in := 0
	for _, at := range cfg.Schedule(50) {
		if at < cfg.Duration {
			in++
		}
	}
	require.Less(t, in, 50, "the schedule of 50 runs past 200 ms")
	run, err := loadgen.RunOpen(t.Context(), instant, cfg)
	require.NoError(t, err)
	assert.LessOrEqual(t, run.Sent, in, "at most the arrivals within the duration are sent (a client behind by more than the grace sends fewer)")
	assert.Equal(t, 50-run.Sent, run.Unsent, "the rest of the count is unsent")
	assert.False(t, run.UnsentEstimated, "a count, not an estimate")
}
