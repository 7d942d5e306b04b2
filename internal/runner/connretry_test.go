package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/runner"
)

// TestLoadAgainstServerClosingKeptAliveConnections: 200 chat requests
// at 40 req/s through the engine against a server that closes every
// kept-alive connection after its answer without saying so: no request
// fails, every request the server closed on was sent again and counted
// in its record, and the payload's summary and schedule carry the sum.
func TestLoadAgainstServerClosingKeptAliveConnections(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{CloseKeptAlive: true})
	r := newRunner(t, srv)
	w := load(t, `{"cases": [{"id": "hello", "messages": [{"role": "user", "content": "Say hello."}]}]}`)
	s, err := r.Start(context.Background(), w, runner.RunOptions{})
	require.NoError(t, err)
	before := srv.KeptAliveClosed()
	_, err = s.RunLoad(context.Background(), runner.Load{Rate: 40, Requests: 200, Seed: 1})
	require.NoError(t, err, "load run")
	closed := srv.KeptAliveClosed() - before

	p := s.Payload()
	require.Len(t, p.Results, 200, "one record per request")
	failed, retries := 0, 0
	for _, rec := range p.Results {
		if rec.Error != "" {
			failed++
			t.Logf("%s/%d: %s", rec.CaseID, rec.Repetition, rec.Error)
		}
		retries += rec.Metrics.ConnectionRetries
	}
	assert.Zero(t, failed, "no request fails because the server closed a kept-alive connection")
	assert.Positive(t, closed, "the server closed kept-alive connections during the run")
	assert.EqualValues(t, closed, retries, "every request the server closed on was retried and counted in its record")
	assert.Equal(t, retries, p.Summary.ConnectionRetries, "the summary carries the sum")
	require.NotNil(t, p.Schedule, "a load run records its schedule")
	assert.Equal(t, retries, p.Schedule.ConnectionRetries, "the load figures carry the sum")
	t.Logf("200 requests at 40 req/s: %d failed, %d connection retries, %d requests the server closed on", failed, retries, closed)
}

// TestLowRateLoadAgainstServerClosingIdleConnections: a server that
// closes kept-alive connections idle for 200 ms (uvicorn's 5 s, scaled)
// under a load of 3 req/s, whose gaps are often longer: no request
// fails, and every request the server closed on was retried and counted.
func TestLowRateLoadAgainstServerClosingIdleConnections(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{IdleClose: 200 * time.Millisecond})
	r := newRunner(t, srv)
	w := load(t, `{"cases": [{"id": "hello", "messages": [{"role": "user", "content": "Say hello."}]}]}`)
	s, err := r.Start(context.Background(), w, runner.RunOptions{})
	require.NoError(t, err)
	_, err = s.RunLoad(context.Background(), runner.Load{Rate: 3, Requests: 15, Seed: 2})
	require.NoError(t, err, "load run")
	closed := srv.KeptAliveClosed()
	p := s.Payload()
	require.Len(t, p.Results, 15)
	failed, retries := 0, 0
	for _, rec := range p.Results {
		if rec.Error != "" {
			failed++
			t.Logf("%s/%d: %s", rec.CaseID, rec.Repetition, rec.Error)
		}
		retries += rec.Metrics.ConnectionRetries
	}
	assert.Zero(t, failed, "no request fails because the server closed an idle connection")
	assert.Positive(t, closed, "the server closed idle connections during the run")
	assert.EqualValues(t, closed, retries, "every request closed on was retried and counted")
	assert.Equal(t, retries, p.Schedule.ConnectionRetries, "the schedule carries the sum")
	t.Logf("15 requests at 3 req/s, idle close 200 ms: %d failed, %d retries", failed, retries)
}
