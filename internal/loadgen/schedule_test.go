package loadgen_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/loadgen"
)

func TestScheduleIsDeterministic(t *testing.T) {
	for _, b := range []float64{1, 0.5, 3} {
		a := loadgen.Schedule(20, b, 500, 42)
		c := loadgen.Schedule(20, b, 500, 42)
		require.Len(t, a, 500, "schedule length")
		assert.Equal(t, a, c, "burstiness %v: the same seed must give the same schedule", b)
		assert.NotEqual(t, a, loadgen.Schedule(20, b, 500, 43), "burstiness %v: another seed must give another schedule", b)
		assert.Zero(t, a[0], "the first request is sent at once")
		for i := 1; i < len(a); i++ {
			require.GreaterOrEqual(t, a[i], a[i-1], "offsets never decrease (index %d)", i)
		}
	}
}

func TestScheduleKnownValues(t *testing.T) {
	// Pinned: a change here changes every seeded schedule users recorded.
	got := loadgen.Schedule(10, 1, 4, 1)
	r := loadgen.NewRand(1)
	var at float64
	want := []time.Duration{0}
	for range 3 {
		at += r.ExpFloat64() / 10
		want = append(want, time.Duration(at*float64(time.Second)))
	}
	assert.Equal(t, want, got, "Poisson schedule = cumulative ExpFloat64()/rate from the PCG seeded with (seed, 0x9e3779b97f4a7c15)")
	assert.Equal(t, []time.Duration{0, 251632761, 293620507, 391037692}, got, "pinned Poisson schedule for seed 1 at 10 req/s")
	assert.Equal(t, []time.Duration{0, 341991, 289626583, 708030954}, loadgen.Schedule(10, 0.5, 4, 1),
		"pinned gamma schedule for seed 1 at 10 req/s, burstiness 0.5")
}

func TestScheduleInfiniteRate(t *testing.T) {
	assert.Equal(t, make([]time.Duration, 5), loadgen.Schedule(math.Inf(1), 1, 5, 7), "an infinite rate sends everything at 0")
}

func TestSchedulePanicsOnBadArguments(t *testing.T) {
	assert.PanicsWithValue(t, "load: arrivals: rate 0: want > 0 requests per second", func() { loadgen.Schedule(0, 1, 3, 1) }, "rate 0")
	assert.Panics(t, func() { loadgen.Schedule(1, -1, 3, 1) }, "negative burstiness")
	assert.Panics(t, func() { loadgen.Schedule(1, 1, -1, 1) }, "negative count")
	assert.Error(t, loadgen.CheckArrivals(math.NaN(), 1), "NaN rate")
	assert.Error(t, loadgen.CheckArrivals(1, math.Inf(1)), "infinite burstiness")
	assert.NoError(t, loadgen.CheckArrivals(1, 0), "burstiness 0 means Poisson")
}

// meanAndCV returns the mean gap in seconds and the coefficient of
// variation of the gaps of a schedule.
func meanAndCV(s []time.Duration) (mean, cv float64) {
	n := float64(len(s) - 1)
	mean = s[len(s)-1].Seconds() / n
	var ss float64
	for i := 1; i < len(s); i++ {
		d := (s[i] - s[i-1]).Seconds() - mean
		ss += d * d
	}
	return mean, math.Sqrt(ss/(n-1)) / mean
}

func TestScheduleRateAndBurstiness(t *testing.T) {
	// Seeded, so these statistics are deterministic; the tolerances are
	// what 20,000 gaps give (standard error of the mean ≈ cv/√n < 1%).
	for _, tc := range []struct{ rate, burstiness float64 }{
		{50, 1}, {50, 0.25}, {50, 0.5}, {50, 4}, {2, 1}, {1000, 2},
	} {
		s := loadgen.Schedule(tc.rate, tc.burstiness, 20001, 2024)
		mean, cv := meanAndCV(s)
		assert.InEpsilon(t, 1/tc.rate, mean, 0.03, "rate %v burstiness %v: mean gap is 1/rate", tc.rate, tc.burstiness)
		// Gamma(k, θ) has coefficient of variation 1/√k; exponential has 1.
		assert.InEpsilon(t, 1/math.Sqrt(tc.burstiness), cv, 0.05, "rate %v burstiness %v: gap CV is 1/√burstiness", tc.rate, tc.burstiness)
	}
}

func TestGammaMoments(t *testing.T) {
	for _, shape := range []float64{0.3, 1, 1.5, 5, 20} {
		r := loadgen.NewRand(99)
		const n = 100000
		var sum, sq float64
		for range n {
			x := loadgen.Gamma(r, shape)
			require.GreaterOrEqual(t, x, 0.0, "gamma draws are non-negative")
			sum += x
			sq += x * x
		}
		mean := sum / n
		variance := sq/n - mean*mean
		assert.InEpsilon(t, shape, mean, 0.02, "shape %v: mean = shape", shape)
		assert.InEpsilon(t, shape, variance, 0.05, "shape %v: variance = shape", shape)
	}
}

// A rate so low that an offset passes time.Duration's range (about 292
// years) saturates there instead of wrapping to a negative offset, which
// sent every request at once with a lag of -292 years.
func TestScheduleOffsetsBeyondDurationSaturate(t *testing.T) {
	for _, rate := range []float64{1e-300, 1e-12} {
		s := loadgen.Schedule(rate, 1, 4, 1)
		assert.Equal(t, time.Duration(0), s[0], "rate %g: the first at 0", rate)
		for i := 1; i < len(s); i++ {
			assert.GreaterOrEqual(t, s[i], s[i-1], "rate %g: offsets never go back (%v)", rate, s)
		}
		assert.Equal(t, time.Duration(math.MaxInt64), s[3], "rate %g: saturated", rate)
		first := loadgen.Open{Rate: rate, Burstiness: 1, Seed: 1, FirstGap: true}.Schedule(1)
		assert.Equal(t, time.Duration(math.MaxInt64), first[0], "rate %g: a first gap saturates too", rate)
	}
}
