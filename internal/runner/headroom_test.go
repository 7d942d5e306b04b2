package runner_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/results"
)

// clientRun runs a small open-loop load under lim and returns its
// schedule block.
func clientRun(t *testing.T, lim runner.ClientLimits) *results.Schedule {
	t.Helper()
	srv := fixtures.Start(t, fixtures.Options{})
	r := newRunner(t, srv)
	w := load(t, `{"cases": [{"id": "ok", "messages": [{"role": "user", "content": "Say hello."}]}]}`)
	s, err := r.Start(context.Background(), w, runner.RunOptions{})
	require.NoError(t, err)
	_, err = s.RunLoad(context.Background(), runner.Load{Rate: 200, Requests: 10, Seed: 1, ClientLimits: &lim})
	require.NoError(t, err)
	sc := s.Payload().Schedule
	require.NotNil(t, sc)
	require.NotNil(t, sc.ClientValid, "the client is judged")
	return sc
}

func TestClientVerdictValidShowsHeadroom(t *testing.T) {
	// Limits no busy machine reaches: a lag of an hour, CPU above 100%.
	sc := clientRun(t, runner.ClientLimits{LagFloorMS: 3_600_000, CPUUtil: 1.01})
	assert.True(t, *sc.ClientValid, sc.ClientReason)
	assert.Contains(t, sc.ClientReason, "headroom: lag p99 ")
	assert.Contains(t, sc.ClientReason, "of 3600000.0 ms")
	require.NotNil(t, sc.ClientGCPauseMS)
	require.NotNil(t, sc.ClientGCPauseMaxMS)
	assert.GreaterOrEqual(t, *sc.ClientGCPauseMS, *sc.ClientGCPauseMaxMS, "the total pause holds the longest")
	if sc.ClientCPUUtil != nil {
		assert.Contains(t, sc.ClientReason, "client CPU ")
		assert.Greater(t, *sc.ClientCPUUtil, 0.0, "sending requests costs some CPU")
		assert.LessOrEqual(t, *sc.ClientCPUUtil, 1.0)
	}
}

func TestClientVerdictLagPastLimitIsInvalid(t *testing.T) {
	// A negative lag limit: every run's lag p99 is past it.
	sc := clientRun(t, runner.ClientLimits{LagFloorMS: -1, LagShare: -1, CPUUtil: 1.01})
	assert.False(t, *sc.ClientValid)
	assert.Contains(t, sc.ClientReason, "client could not keep up: lag p99 ")
	assert.Contains(t, sc.ClientReason, "> -1.0 ms")
}

func TestClientVerdictCPUPastLimitIsInvalid(t *testing.T) {
	sc := clientRun(t, runner.ClientLimits{LagFloorMS: 3_600_000, CPUUtil: 0})
	if sc.ClientCPUUtil == nil {
		t.Skip("the client's CPU is not measured on this platform")
	}
	assert.False(t, *sc.ClientValid)
	assert.Contains(t, sc.ClientReason, "client could not keep up: client CPU ")
	assert.Contains(t, sc.ClientReason, "≥ 0%")
}

func TestDefaultClientLimitsLag(t *testing.T) {
	lim := runner.DefaultClientLimits
	assert.Equal(t, 50.0, lim.LagLimitMS(200), "5 ms gaps: the 50 ms floor")
	assert.Equal(t, 50.0, lim.LagLimitMS(2), "500 ms gaps: a tenth is under the floor")
	assert.InDelta(t, 100.0, lim.LagLimitMS(1), 1e-9, "1 s gaps: a tenth of them")
}
