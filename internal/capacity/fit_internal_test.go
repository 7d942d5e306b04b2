package capacity

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The fit's interval is Fieller's over the probes: the loads where the
// fitted line is within t standard errors of the limit. On points drawn
// from a known line (margin = 0.18 · (x − 10), noise sd 0.25 as a
// 200-request probe near the 4-slot queue's crossing has), six probes
// around 10, the interval contains the crossing in about 95% of draws.
func TestFitIntervalCoverage(t *testing.T) {
	covered, open := 0, 0
	const draws = 2000
	rng := rand.New(rand.NewPCG(7, 9))
	for range draws {
		var pts []fitPoint
		for _, x := range []float64{8.5, 9.2, 10, 10.8, 11.5, 10} {
			pts = append(pts, fitPoint{x: x, y: 0.18*(x-10) + 0.25*rng.NormFloat64(), v: math.NaN()})
		}
		lo, hi := interval(pts)
		if math.IsNaN(lo) || math.IsNaN(hi) {
			open++
			covered++ // an open interval contains everything
			continue
		}
		if lo <= 10 && hi >= 10 {
			covered++
		}
	}
	share := float64(covered) / draws
	t.Logf("covered %d of %d (%d open)", covered, draws, open)
	assert.InDelta(t, 0.95, share, 0.02, "coverage")
}
