package loadgen_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/results"
)

// scripted starts a fixture answering every request with tokens content
// tokens after ttft, tokenDelay apart, and returns a Func streaming to it.
func scripted(t *testing.T, tokens int, ttft, tokenDelay time.Duration) loadgen.Func {
	t.Helper()
	content := make([]string, tokens)
	for i := range content {
		content[i] = fmt.Sprintf(" w%d", i)
	}
	srv := fixtures.Start(t, fixtures.Options{Responder: func(fixtures.Request) fixtures.Script {
		return fixtures.Script{Content: content, TTFT: ttft, TokenDelay: tokenDelay}
	}})
	c := &stream.Client{BaseURL: srv.URL, HTTP: srv.Client()}
	req := stream.Request{Model: fixtures.DefaultModel, Messages: []map[string]any{{"role": "user", "content": "hi"}}, MaxTokens: 64}
	return streamFunc(c, func(int) stream.Request { return req })
}

func TestRunClosedCount(t *testing.T) {
	fn := scripted(t, 5, 20*time.Millisecond, time.Millisecond)
	run, err := loadgen.RunClosed(t.Context(), fn, loadgen.Closed{Concurrency: 4, Requests: 12})
	require.NoError(t, err, "closed run")
	require.Len(t, run.Samples, 12, "one sample per request")
	for i, s := range run.Samples {
		assert.Equal(t, i, s.Index, "samples are in index order")
		assert.True(t, s.OK(), "request %d succeeded: %v", i, s.Err)
		assert.Equal(t, s.Sent, s.Scheduled, "closed loop: no schedule, no lag")
	}
	assert.GreaterOrEqual(t, run.PeakInFlight, 2, "requests overlap (all 4 workers do unless the machine starves one)")
	assert.LessOrEqual(t, run.PeakInFlight, 4, "never more in flight than workers")
	st := summary.Run(run, summary.Options{Percentiles: []float64{99.9}})
	assert.Equal(t, "closed", st.Mode, "mode")
	assert.Equal(t, 12, st.Succeeded, "all succeeded")
	assert.Equal(t, 60, st.OutputTokens, "12 requests × 5 tokens")
	assert.GreaterOrEqual(t, st.TTFT.Min, 20.0, "TTFT is at least the scripted 20 ms")
	assert.Equal(t, 12*4, st.ITL.Count, "ITL pools the 4 gaps of every 5-token stream")
	assert.Contains(t, st.TTFT.Extra, 99.9, "extra percentile computed")
	assert.InDelta(t, 60/st.Duration.Seconds(), st.OutputThroughput, 1e-9, "output throughput = tokens / duration")
}

func TestRunClosedDuration(t *testing.T) {
	fn := scripted(t, 2, 10*time.Millisecond, 0)
	run, err := loadgen.RunClosed(t.Context(), fn, loadgen.Closed{Concurrency: 2, Duration: 150 * time.Millisecond})
	require.NoError(t, err, "closed run")
	assert.GreaterOrEqual(t, len(run.Samples), 2, "at least one request per worker")
	// Sent is read from the clock just after a worker's Duration check, so
	// a busy machine can let it pass the Duration, by however long it
	// held the worker; but each worker starts at most that one request.
	after := 0
	for _, s := range run.Samples {
		if s.Sent >= 150*time.Millisecond {
			after++
		}
	}
	assert.LessOrEqual(t, after, 2, "no request starts after Duration but the one per worker that passed its check before it")
}

func TestRunClosedRejectsUnbounded(t *testing.T) {
	_, err := loadgen.RunClosed(t.Context(), nil, loadgen.Closed{Concurrency: 2})
	assert.ErrorContains(t, err, "unbounded", "neither Requests nor Duration")
}

func TestRunOpenReportsLagWhenOverloaded(t *testing.T) {
	// 20 requests due within ~100 ms (200 req/s) but each takes 100 ms and
	// only 2 may be in flight: the client cannot keep the schedule, and the
	// stats must say so.
	fn := scripted(t, 1, 100*time.Millisecond, 0)
	run, err := loadgen.RunOpen(t.Context(), fn, loadgen.Open{Rate: 200, Seed: 1, Requests: 20, MaxInFlight: 2})
	require.NoError(t, err, "open run")
	require.Len(t, run.Samples, 20, "every request is sent eventually (OverflowWait)")
	st := summary.Run(run, summary.Options{})
	assert.Equal(t, 20, st.Succeeded, "all succeeded")
	assert.LessOrEqual(t, st.PeakInFlight, 2, "the in-flight cap holds")
	// 10 waves of 2 × ≥100 ms: the last request goes out ≥ 900 ms after
	// the start while it was due in about 100 ms.
	assert.Greater(t, st.Lag.Max, 500.0, "max lag (ms) shows the overload")
	assert.Greater(t, st.Lag.P50, 100.0, "median lag (ms) shows the overload")
	assert.GreaterOrEqual(t, st.Late, 15, "most requests were late")
	last := run.Samples[19]
	assert.Equal(t, last.Sent-last.Scheduled, last.Lag, "lag = sent − scheduled")
	assert.Equal(t, loadgen.Schedule(200, 1, 20, 1)[19], last.Scheduled, "scheduled offsets are the seeded schedule")
}

func TestRunOpenDropsOverflow(t *testing.T) {
	fn := scripted(t, 1, 100*time.Millisecond, 0)
	run, err := loadgen.RunOpen(t.Context(), fn, loadgen.Open{Rate: 500, Seed: 3, Requests: 20, MaxInFlight: 2, Overflow: loadgen.OverflowDrop})
	require.NoError(t, err, "open run")
	st := summary.Run(run, summary.Options{})
	assert.Len(t, run.Samples, 20, "sent and dropped requests are all recorded")
	assert.Greater(t, st.Dropped, 10, "20 requests in ~40 ms with 2 slots of 100 ms: most are dropped")
	assert.Equal(t, st.Dropped, st.Errors[results.KindDropped], "dropped requests are counted by kind")
	assert.Equal(t, 20, st.Requests+st.Dropped, "requests + dropped = schedule")
	assert.InDelta(t, float64(st.Dropped)/20, st.ErrorRate, 1e-9, "dropped requests count in the error rate")
}

func TestRunOpenMaxDuration(t *testing.T) {
	fn := scripted(t, 1, 0, 0)
	run, err := loadgen.RunOpen(t.Context(), fn, loadgen.Open{Rate: 20, Seed: 5, Duration: time.Hour, MaxDuration: 150 * time.Millisecond})
	require.NoError(t, err, "open run")
	assert.Greater(t, run.Unsent, 1000, "an hour at 20 req/s: almost everything is left unsent, and counted")
	assert.Less(t, run.Duration, 5*time.Second, "the duration cap ends the run")
}

func TestRunOpenInFlightCanceledAtCap(t *testing.T) {
	fn := scripted(t, 1, 5*time.Second, 0)
	run, err := loadgen.RunOpen(t.Context(), fn, loadgen.Open{Rate: 1000, Seed: 5, Requests: 3, MaxDuration: 100 * time.Millisecond})
	require.NoError(t, err, "open run")
	st := summary.Run(run, summary.Options{})
	assert.Equal(t, 3, st.Errors[results.KindCanceled], "requests in flight at the cap are cancelled and counted")
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want results.ErrorKind
	}{
		{nil, ""},
		{&stream.HTTPError{StatusCode: 429}, results.KindHTTP4xx},
		{fmt.Errorf("wrapped: %w", &stream.HTTPError{StatusCode: 503}), results.KindHTTP5xx},
		{&stream.HTTPError{StatusCode: 302}, results.KindHTTPOther},
		{&stream.ServerError{Message: "boom"}, results.KindServerError},
		{fmt.Errorf("x: %w", stream.ErrPolicyTimeout), results.KindPolicyTimeout},
		{fmt.Errorf("x: %w: %w", stream.ErrPolicyTimeout, context.DeadlineExceeded), results.KindPolicyTimeout},
		{stream.ErrTruncated, results.KindTruncated},
		{context.Canceled, results.KindCanceled},
		{errors.New("connection refused"), results.KindTransport},
	} {
		assert.Equal(t, tc.want, loadgen.Classify(tc.err), "Classify(%v)", tc.err)
	}
}

func TestRunWithFixtureErrors(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{Responder: func(r fixtures.Request) fixtures.Script {
		switch r.LastUserText() {
		case "500":
			return fixtures.Script{Status: 500}
		case "stream":
			return fixtures.Script{Content: []string{"a", "b", "c", "d"}, ErrorAfter: 2, ErrorMessage: "oops"}
		case "trunc":
			return fixtures.Script{Content: []string{"a"}, NoDone: true}
		}
		return fixtures.Script{Content: []string{"a", "b"}}
	}})
	c := &stream.Client{BaseURL: srv.URL, HTTP: srv.Client()}
	prompts := []string{"ok", "500", "stream", "trunc"}
	fn := streamFunc(c, func(i int) stream.Request {
		return stream.Request{Model: fixtures.DefaultModel, Messages: []map[string]any{{"role": "user", "content": prompts[i%4]}}}
	})
	run, err := loadgen.RunClosed(t.Context(), fn, loadgen.Closed{Concurrency: 2, Requests: 8})
	require.NoError(t, err, "closed run")
	st := summary.Run(run, summary.Options{})
	assert.Equal(t, map[results.ErrorKind]int{results.KindHTTP5xx: 2, results.KindServerError: 2, results.KindTruncated: 2}, st.Errors, "errors by kind")
	assert.Equal(t, 2, st.Succeeded, "the plain requests succeeded")
	assert.InDelta(t, 0.75, st.ErrorRate, 1e-9, "6 of 8 failed")
}

// streamFunc is a Func streaming pick(i) with c (what the engine's
// session does, without judging or recording).
func streamFunc(c *stream.Client, pick func(i int) stream.Request) loadgen.Func {
	return func(ctx context.Context, i int) loadgen.Sample {
		return loadgen.SampleOf(c.ChatStream(ctx, pick(i)))
	}
}
