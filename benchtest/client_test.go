package benchtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/results"
)

// TestFailClient: the load doors fail the test with the reason when the
// client could not keep up, and log a valid run's headroom.
func TestFailClient(t *testing.T) {
	no, yes := false, true
	tb := &recordingTB{attrs: map[string]string{}}
	failClient(tb, &results.Schedule{ClientValid: &no, ClientReason: "client could not keep up: lag p99 40.0 ms > 10.0 ms"})
	require.Len(t, tb.logs, 1)
	assert.Equal(t, "benchtest: the load run is invalid: client could not keep up: lag p99 40.0 ms > 10.0 ms", tb.logs[0])

	tb = &recordingTB{attrs: map[string]string{}}
	failClient(tb, &results.Schedule{ClientValid: &yes, ClientReason: "headroom: lag p99 1.0 ms of 10.0 ms"})
	require.Len(t, tb.logs, 1)
	assert.Equal(t, "load: client headroom: lag p99 1.0 ms of 10.0 ms", tb.logs[0])

	tb = &recordingTB{attrs: map[string]string{}}
	failClient(tb, &results.Schedule{})
	assert.Empty(t, tb.logs, "an unjudged schedule says nothing")
}
