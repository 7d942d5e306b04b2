package runner_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/runner"
)

// halfFailing is a workload whose every other request is answered 500
// by the fixture (its error-500 scenario).
const halfFailing = `{"cases": [
	{"id": "ok", "messages": [{"role": "user", "content": "Say hello."}]},
	{"id": "bad", "messages": [{"role": "user", "content": "Say hello. [fixture:error-500]"}]}]}`

// TestRunLoadStopsOnErrorRate: half the requests fail against a limit of
// 5%: the run stops once the interval's lower end is above it (not at
// the first error), most of the 300 requests are left unsent, and the
// schedule says why with the numbers.
func TestRunLoadStopsOnErrorRate(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	r := newRunner(t, srv)
	s, err := r.Start(context.Background(), load(t, halfFailing), runner.RunOptions{})
	require.NoError(t, err)
	limit := 0.05
	_, err = s.RunLoad(context.Background(), runner.Load{Rate: 100, Requests: 300, Seed: 1, MaxErrorRate: &limit})
	require.NoError(t, err, "an error-rate stop is the run's verdict, not a failure to run")
	p := s.Payload()
	sc := p.Schedule
	require.NotNil(t, sc)
	assert.Contains(t, sc.StopReason, "error rate: ", "the payload says why the run stopped")
	assert.Contains(t, sc.StopReason, "over the limit 0.05 with confidence")
	require.NotNil(t, sc.MaxErrorRate)
	assert.Equal(t, 0.05, *sc.MaxErrorRate, "the limit is recorded")
	assert.Greater(t, sc.Unsent, 200, "most of the 300 requests were never sent")
	assert.Less(t, len(p.Results), 100, "the run ended early")
	measured := 0
	for _, rec := range p.Results {
		if !rec.Interrupted {
			measured++
		}
	}
	assert.GreaterOrEqual(t, measured, 10, "not stopped before the interval could say so")
	t.Logf("stopped: %s; %d records, %d unsent", sc.StopReason, len(p.Results), sc.Unsent)
}

// TestRunLoadUnderErrorRateLimitCompletes: one request in ten fails
// under a limit of 50%: the run sends every request and has no stop
// reason.
func TestRunLoadUnderErrorRateLimitCompletes(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	r := newRunner(t, srv)
	w := load(t, `{"cases": [
		{"id": "bad", "messages": [{"role": "user", "content": "Say hello. [fixture:error-500]"}]},
		{"id": "a", "messages": [{"role": "user", "content": "Say hello."}]},
		{"id": "b", "messages": [{"role": "user", "content": "Say hello."}]},
		{"id": "c", "messages": [{"role": "user", "content": "Say hello."}]},
		{"id": "d", "messages": [{"role": "user", "content": "Say hello."}]},
		{"id": "e", "messages": [{"role": "user", "content": "Say hello."}]},
		{"id": "f", "messages": [{"role": "user", "content": "Say hello."}]},
		{"id": "g", "messages": [{"role": "user", "content": "Say hello."}]},
		{"id": "h", "messages": [{"role": "user", "content": "Say hello."}]},
		{"id": "i", "messages": [{"role": "user", "content": "Say hello."}]}]}`)
	s, err := r.Start(context.Background(), w, runner.RunOptions{})
	require.NoError(t, err)
	limit := 0.5
	_, err = s.RunLoad(context.Background(), runner.Load{Rate: 100, Requests: 60, Seed: 1, MaxErrorRate: &limit})
	require.NoError(t, err)
	p := s.Payload()
	require.Len(t, p.Results, 60, "every request was sent")
	assert.Equal(t, 6, p.Summary.FailureCount, "one in ten failed")
	assert.Empty(t, p.Schedule.StopReason, "under the limit: no stop")
	assert.Zero(t, p.Schedule.Unsent)
}

// TestClosedLoopStopsOnErrorRate: the same stop in a closed loop (no
// --request-rate, --max-concurrency streams).
func TestClosedLoopStopsOnErrorRate(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	r := newRunner(t, srv)
	s, err := r.Start(context.Background(), load(t, halfFailing), runner.RunOptions{})
	require.NoError(t, err)
	limit := 0.05
	_, err = s.RunLoad(context.Background(), runner.Load{MaxConcurrency: 2, Requests: 300, MaxErrorRate: &limit})
	require.NoError(t, err)
	p := s.Payload()
	assert.Contains(t, p.Schedule.StopReason, "over the limit 0.05")
	assert.Less(t, len(p.Results), 100, "the closed loop stopped sending")
}

// TestLoadCheckRefusesBadErrorRate: a limit outside [0, 1] is refused
// before anything is sent.
func TestLoadCheckRefusesBadErrorRate(t *testing.T) {
	bad := 2.0
	err := runner.Load{Rate: 1, Requests: 1, MaxErrorRate: &bad}.Check()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "max error rate 2: want a fraction in [0, 1]")
}
