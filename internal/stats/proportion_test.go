package stats_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/internal/stats"
)

// The exact binomial interval matches Clopper–Pearson values found
// independently (exact binomial sums in Python, bisected; for k = 0 the
// closed form 1 − 0.025^(1/n)): 3 of 100 is 0.006230–0.085176, 0 of 100
// 0–0.036217, 100 of 100 0.963783–1, 5 of 10 0.187086–0.812914.
func TestProportionInterval(t *testing.T) {
	for _, c := range []struct {
		k, n      int
		low, high float64
	}{
		{3, 100, 0.006230, 0.085176},
		{0, 100, 0, 0.036217},
		{100, 100, 0.963783, 1},
		{5, 10, 0.187086, 0.812914},
	} {
		low, high := stats.ProportionInterval(c.k, c.n, 0.95)
		assert.InDelta(t, c.low, low, 2e-6, "%d of %d: low", c.k, c.n)
		assert.InDelta(t, c.high, high, 2e-6, "%d of %d: high", c.k, c.n)
	}
	for _, c := range [][2]int{{0, 0}, {-1, 10}, {11, 10}} {
		low, high := stats.ProportionInterval(c[0], c[1], 0.95)
		assert.True(t, math.IsNaN(low) && math.IsNaN(high), "%d of %d has no interval", c[0], c[1])
	}
}
