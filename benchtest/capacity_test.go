package benchtest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/benchtest"
	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/capacity"
	"github.com/benchserve/benchserve/internal/stats"
)

// TestSearchCapacityByConcurrency: a search by concurrency against a
// fixture with 4 generation slots (requests hold a slot 120 ms, so a fifth
// stream waits a whole request for its first token) finds 4 streams, at
// the floor of 4 given.
func TestSearchCapacityByConcurrency(t *testing.T) {
	if testing.Short() {
		t.Skip("probes of 120 ms requests (-short skips it)")
	}
	ths, err := stats.ParseThresholds("ttft_p95_ms <= 170")
	require.NoError(t, err)
	res := benchtest.SearchCapacity(t, "testdata/one.json", capacity.Config{
		By: capacity.ByConcurrency, SLOs: ths, Start: 2, Max: 8, MaxTime: 4 * time.Minute,
	}, 4, benchtest.WithURL(""), benchtest.WithFixture(fixtures.Options{Slots: 4, Responder: func(fixtures.Request) fixtures.Script {
		return fixtures.Script{Content: []string{"a ", "b"}, TTFT: 100 * time.Millisecond, TokenDelay: 20 * time.Millisecond}
	}}))
	assert.Equal(t, capacity.StatusFound, res.Status, res.Reason)
	assert.Equal(t, 4.0, res.Capacity, "the fixture's slot count")
	assert.Equal(t, 4.0, res.Interval.Low, "the lower end too")
	assert.NoError(t, res.AtLeast(4), "at the floor")
	assert.Error(t, res.AtLeast(5), "a floor above the capacity fails")
}
