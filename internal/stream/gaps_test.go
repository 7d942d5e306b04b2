package stream

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/stats"
)

func TestGapsKeptExactlyUpToTheBound(t *testing.T) {
	var r Result
	assert.True(t, math.IsNaN(r.ITLPercentile(50)), "no gap, no percentile")
	gaps := []float64{5, 1, 3, 0, 2}
	for _, g := range gaps {
		r.addGap(g)
	}
	assert.Equal(t, gaps, r.ITLms, "every gap kept, in order")
	assert.Equal(t, GapStats{Count: 5, SumMS: 11, MinMS: 0, MaxMS: 5}, r.Gaps, "exact count, sum, min, max; no histogram")
	assert.InDelta(t, 2.2, r.Gaps.MeanMS(), 1e-12, "mean")
	assert.Equal(t, stats.Percentile([]float64{0, 1, 2, 3, 5}, 95), r.ITLPercentile(95), "exact percentile while everything is kept")
}

func TestGapsBoundedOnAnEndlessStream(t *testing.T) {
	const n = 1_000_000
	rng := rand.New(rand.NewPCG(1, 2))
	all := make([]float64, n)
	var r Result
	sum := 0.0
	for i := range all {
		// Mostly ~0.1 ms gaps with a long tail, as a fast server's stream.
		g := 0.05 + rng.ExpFloat64()*0.08
		if i%1000 == 0 {
			g = 20 + rng.Float64()*200
		}
		if i%77 == 0 {
			g = 0 // two chunks in one read
		}
		all[i] = g
		sum += g
		r.addGap(g)
	}
	require.Len(t, r.ITLms, MaxKeptGaps, "only the first MaxKeptGaps gaps are kept")
	assert.Equal(t, all[:MaxKeptGaps], r.ITLms, "the kept gaps are the stream's first")
	assert.Equal(t, n, r.Gaps.Count, "every gap counted")
	assert.InDelta(t, sum, r.Gaps.SumMS, 1e-6*sum, "exact sum")
	assert.Equal(t, slices.Min(all), r.Gaps.MinMS, "exact min")
	assert.Equal(t, slices.Max(all), r.Gaps.MaxMS, "exact max")
	assert.Len(t, r.Gaps.hist, gapBuckets, "the histogram has a fixed size")

	sorted := slices.Sorted(slices.Values(all))
	for _, p := range []float64{0, 1, 50, 90, 95, 99, 99.9, 100} {
		rank := int(math.Round(p / 100 * float64(n-1)))
		want := sorted[rank]
		got := r.ITLPercentile(p)
		if want == 0 {
			assert.Equal(t, 0.0, got, "p%v of zero gaps is exact", p)
			continue
		}
		assert.InEpsilon(t, want, got, GapRelativeError+1e-9, "p%v of all %d gaps within %.2f%%", p, n, 100*GapRelativeError)
	}
}

func TestGapBucketCoversTheRange(t *testing.T) {
	assert.Equal(t, 0, gapBucket(0), "zero")
	assert.Equal(t, 0, gapBucket(math.NaN()), "NaN")
	assert.Equal(t, gapBuckets-1, gapBucket(1e12), "huge values land in the last bucket")
	for _, v := range []float64{0.0011, 0.37, 1, 12.5, 999, 1e6, 9.9e6} {
		i := gapBucket(v)
		assert.InEpsilon(t, v, gapEstimate(i), GapRelativeError+1e-12, "%v ms estimated within the relative error", v)
	}
}
