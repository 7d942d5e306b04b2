package stats_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/internal/stats"
)

// binomTail sums Binomial(n, p) probabilities of k in [from, to] by the
// pmf recurrence, independently of the package's log-space sums.
func binomTail(n int, p float64, from, to int) float64 {
	pmf := math.Pow(1-p, float64(n))
	sum := 0.0
	for k := 0; k <= n; k++ {
		if k > 0 {
			pmf *= float64(n-k+1) / float64(k) * p / (1 - p)
		}
		if k >= from && k <= to {
			sum += pmf
		}
	}
	return sum
}

// The ranks are the tightest that keep each tail within alpha/2.
func TestBinomialRanks(t *testing.T) {
	for _, tc := range []struct {
		n    int
		p    float64
		l, u int
	}{{100, 0.95, 90, 100}, {200, 0.95, 184, 197}, {100, 0.5, 40, 61}, {50, 0.95, 44, 51}} {
		l, u := stats.BinomialRanks(tc.n, tc.p, 0.05)
		assert.Equal(t, [2]int{tc.l, tc.u}, [2]int{l, u}, "n=%d p=%v", tc.n, tc.p)
		assert.LessOrEqual(t, binomTail(tc.n, tc.p, 0, l-1), 0.025, "n=%d: lower tail within 2.5%%", tc.n)
		assert.Greater(t, binomTail(tc.n, tc.p, 0, l), 0.025, "n=%d: rank l+1 would not be", tc.n)
		if u <= tc.n {
			assert.LessOrEqual(t, binomTail(tc.n, tc.p, u, tc.n), 0.025, "n=%d: upper tail within 2.5%%", tc.n)
			assert.Greater(t, binomTail(tc.n, tc.p, u-1, tc.n), 0.025, "n=%d: rank u-1 would not be", tc.n)
		}
	}
}
