package benchtest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/benchtest"
	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/longtest"
	"github.com/benchserve/benchserve/results"
)

// TestSearchCapacityByConcurrency: a search by concurrency against a
// fixture with 4 generation slots (requests hold a slot 120 ms, so a fifth
// stream waits a whole request for its first token) finds 4 streams, at
// the floor of 4 given.
func TestSearchCapacityByConcurrency(t *testing.T) {
	longtest.Skip(t, "about 30 s: a capacity search of concurrency probes of 120 ms requests")
	res := benchtest.SearchCapacity(t, "testdata/one.json", results.CapacitySearch{
		By: "concurrency", Start: 2, Max: 8, MaxTime: 4 * time.Minute,
	}, 4, benchtest.WithSLO("ttft_p95_ms <= 170"), benchtest.WithURL(""), benchtest.WithFixture(fixtures.Options{Slots: 4, Responder: func(fixtures.Request) fixtures.Script {
		return fixtures.Script{Content: []string{"a ", "b"}, TTFT: 100 * time.Millisecond, TokenDelay: 20 * time.Millisecond}
	}}))
	assert.Equal(t, "found", res.Status, res.Reason)
	assert.Equal(t, 4.0, res.Capacity, "the fixture's slot count")
	assert.Equal(t, 4.0, res.Interval.Low, "the lower end too")
	require.NotEmpty(t, res.Probes)
	assert.Equal(t, 1, res.Probes[0].Number, "probes count from 1")
	assert.Equal(t, 2.0, res.Probes[0].Load, "the first probe at Start")
}
