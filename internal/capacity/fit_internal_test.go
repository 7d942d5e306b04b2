package capacity

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"gonum.org/v1/gonum/stat/distuv"
)

// The fit's regression on counts drawn from a known logistic curve (the
// share beyond the limit 5% at 10 req/s, its logit rising 0.7 per req/s,
// about the 4-slot queue's near its crossing; six probes of 200 requests
// around 10): the crossing's median lies within 2% of 10, and Fieller's
// interval (an open one contains everything) covers it in at least 95%
// of draws, less the Monte Carlo error.
func TestFitLogisticCoverage(t *testing.T) {
	const draws = 2000
	rng := rand.New(rand.NewPCG(7, 9))
	covered, open := 0, 0
	var estimates []float64
	for range draws {
		var pts []fitPoint
		for _, x := range []float64{8.5, 9.2, 10, 10.8, 11.5, 10} {
			share := 1 / (1 + math.Exp(-(math.Log(0.05/0.95) + 0.7*(x-10))))
			k := int(distuv.Binomial{N: 200, P: share, Src: rng}.Rand())
			pts = append(pts, fitPoint{x: x, k: k, n: 200, allowed: 0.05, tau: 1})
		}
		l := fitLogistic(pts)
		if x := l.crossing(); !math.IsNaN(x) {
			estimates = append(estimates, x)
		}
		lo, hi := l.interval()
		switch {
		case math.IsNaN(lo) || math.IsNaN(hi):
			open++
			covered++
		case lo <= 10 && hi >= 10:
			covered++
		}
	}
	slices.Sort(estimates)
	t.Logf("covered %d of %d (%d open); median crossing %.3f of %d", covered, draws, open, estimates[len(estimates)/2], len(estimates))
	assert.InDelta(t, 10, estimates[len(estimates)/2], 0.2, "median crossing")
	assert.GreaterOrEqual(t, float64(covered)/draws, 0.94, "coverage")
	assert.Less(t, open, draws/2, "most intervals are bounded")
}

// The tabled t quantiles are gonum's to the table's three decimals, and
// the expansion beyond them within 0.001.
func TestStudentT975(t *testing.T) {
	for _, df := range []int{1, 2, 4, 7, 30, 31, 60, 200} {
		want := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(0.975)
		assert.InDelta(t, want, studentT975(df), 1e-3, "df %d", df)
	}
}
