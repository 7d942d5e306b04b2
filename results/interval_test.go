package results_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/results"
)

// The p95 of 50 samples has no upper bound at 95% (0.95^50 > 2.5%); of
// 72 it is the largest sample.
func TestPercentileIntervalUnbounded(t *testing.T) {
	iv := results.NewDist(seq(50)).PercentileInterval(95, 0.95)
	assert.True(t, math.IsNaN(iv.High), "unbounded above: %v", iv)
	assert.False(t, math.IsNaN(iv.Low), "bounded below: %v", iv)
	assert.Regexp(t, `^95% CI 4[0-4]–inf$`, iv.String(), "printed")
	iv = results.NewDist(seq(72)).PercentileInterval(95, 0.95)
	assert.Equal(t, 72.0, iv.High, "the maximum of 72")
	empty := results.NewDist(nil).PercentileInterval(95, 0.95)
	assert.True(t, math.IsNaN(empty.Low) && math.IsNaN(empty.High), "no samples")
}

// seq is 1..n in a shuffled (independent-looking) order.
func seq(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i + 1)
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(n, func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// Independent exponential samples: the interval covers the true p95
// (ln 20) at least 95% of the time, give or take the simulation's error.
func TestPercentileIntervalCoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	truth := math.Log(20)
	covered, reps := 0, 2000
	for range reps {
		v := make([]float64, 200)
		for i := range v {
			v[i] = r.ExpFloat64()
		}
		iv := results.NewDist(v).PercentileInterval(95, 0.95)
		if covers(iv, truth) {
			covered++
		}
	}
	assert.GreaterOrEqual(t, float64(covered)/float64(reps), 0.94, "coverage of independent samples")
}

// covers reports whether iv holds v, an unbounded (NaN) end holding
// everything on its side.
func covers(iv results.Interval, v float64) bool {
	return (math.IsNaN(iv.Low) || iv.Low <= v) && (math.IsNaN(iv.High) || v <= iv.High)
}

// Samples that come in runs (each value repeated 10 times, as a queue's
// waiting times cluster) are worth about a tenth as many: the interval
// widens to keep its coverage, where the naive one would not.
func TestPercentileIntervalCorrelated(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	truth := math.Log(20)
	covered, reps := 0, 500
	var neff float64
	for range reps {
		v := make([]float64, 0, 1000)
		for len(v) < 1000 {
			x := r.ExpFloat64()
			for range 10 {
				v = append(v, x)
			}
		}
		iv := results.NewDist(v).PercentileInterval(95, 0.95)
		neff += iv.EffectiveN / float64(reps)
		if covers(iv, truth) {
			covered++
		}
	}
	assert.InDelta(t, 100, neff, 35, "effective sample size about n/10")
	assert.GreaterOrEqual(t, float64(covered)/float64(reps), 0.9, "coverage kept for runs of samples")
}

// Evaluate attaches the interval to percentile thresholds, in the
// threshold's unit, and says when the verdict holds with confidence.
func TestOutcomeInterval(t *testing.T) {
	v := make([]float64, 400)
	for i := range v {
		v[i] = float64(i%100) + 1 // 1..100 four times over, ms
	}
	rand.New(rand.NewPCG(5, 5)).Shuffle(len(v), func(i, j int) { v[i], v[j] = v[j], v[i] })
	st := results.LoadStats{TTFT: results.NewDist(v), ErrorRate: 0}
	ths, err := results.ParseThresholds("ttft_p95_ms <= 200", "ttft_p95_s <= 0.0955", "ttft_mean_ms <= 60", "error_rate <= 0", "ttft_p95_ms <= 50")
	require.NoError(t, err)
	out := evaluate(st, ths)
	require.NotNil(t, out[0].CI, "percentile threshold has an interval")
	assert.Equal(t, "binomial order statistics, effective sample size from autocorrelation", out[0].CI.Method, "method named")
	assert.True(t, out[0].Pass && out[0].Conclusive() && out[0].ConfidentPass(), "200 ms far above: %v", out[0].CI)
	require.NotNil(t, out[1].CI)
	assert.Less(t, out[1].CI.High, 1.0, "interval in seconds like the threshold: %v", out[1].CI)
	assert.False(t, out[1].Conclusive(), "95.5 ms lies inside the interval %v", out[1].CI)
	assert.False(t, out[1].ConfidentPass(), "not a confident pass")
	assert.Nil(t, out[2].CI, "a mean has no interval here")
	assert.True(t, out[2].Conclusive(), "judged on its value")
	assert.Nil(t, out[3].CI, "nor does error_rate without a request")
	assert.True(t, !out[4].Pass && out[4].Conclusive(), "50 ms is below the whole interval: a confident failure")
}

// An error rate carries its exact binomial interval: 3 failures in 100
// requests are over a 1% limit by their point value but not with
// confidence (0.6%–8.5%), 30 in 100 are; 0 in 100 passes on its point
// value, as does 1 in 100 against 1%.
func TestErrorRateInterval(t *testing.T) {
	th, err := results.ParseThreshold("error_rate <= 0.01")
	require.NoError(t, err)
	judge := func(failed, requests int) results.SLOResult {
		return th.Evaluate(results.LoadStats{Requests: requests, Failed: failed, ErrorRate: float64(failed) / float64(requests)})
	}
	few := judge(3, 100)
	require.NotNil(t, few.CI, "the error rate has an interval")
	assert.Equal(t, "Clopper-Pearson exact binomial", few.CI.Method, "named")
	assert.InDelta(t, 0.00623, few.CI.Low, 1e-5, "low end")
	assert.InDelta(t, 0.08518, few.CI.High, 1e-5, "high end")
	assert.False(t, few.Pass, "over the limit by its point value")
	assert.False(t, few.Conclusive(), "but not with confidence: %s", few.CI)
	assert.False(t, few.ConfidentPass(), "nor a pass")
	many := judge(30, 100)
	assert.True(t, !many.Pass && many.Conclusive(), "30 in 100 fail a 1%% limit with confidence: %s", many.CI)
	for _, failed := range []int{0, 1} {
		o := judge(failed, 100)
		assert.True(t, o.Pass && o.Conclusive() && o.ConfidentPass(), "%d in 100 pass on the point value: %s", failed, o.CI)
	}
}

// A threshold's interval takes its autocorrelation over the samples
// rounded to a hundredth of the limit: 100 TTFTs of 51.8–52.8 ms in slow
// waves (timer jitter on a busy machine comes in runs) leave the plain
// percentile interval open above, but "p95 <= 200 ms" passes with
// confidence; a real queue's waits, tens of ms long, keep their runs.
func TestThresholdIntervalIgnoresJitterRuns(t *testing.T) {
	values := make([]float64, 100)
	for i := range values {
		values[i] = 52.3 + 0.5*math.Sin(float64(i)/8)
	}
	raw := results.NewDist(values).PercentileInterval(95, 0.95)
	require.True(t, math.IsNaN(raw.High), "setup: the runs leave the plain interval open above (effective n %.1f)", raw.EffectiveN)
	th, err := results.ParseThreshold("ttft_p95_ms <= 200")
	require.NoError(t, err)
	o := th.Evaluate(results.LoadStats{TTFT: results.NewDist(values)})
	require.NotNil(t, o.CI)
	assert.True(t, o.ConfidentPass(), "jitter of a fraction of the 2 ms resolution is no run: %s", o.CI)
	assert.InDelta(t, 100, o.CI.EffectiveN, 1e-9, "every sample counts")
	assert.Contains(t, values, o.CI.Low, "the ends are samples, not rounded ones")
	assert.Contains(t, values, o.CI.High, "the ends are samples, not rounded ones")

	waits := make([]float64, 100)
	for i := range waits {
		waits[i] = 100 + 60*math.Sin(float64(i)/8) // runs of 40–160 ms
	}
	ow := th.Evaluate(results.LoadStats{TTFT: results.NewDist(waits)})
	assert.Less(t, ow.CI.EffectiveN, 50.0, "runs at the threshold's scale still count: %s (effective n %.1f)", ow.CI, ow.CI.EffectiveN)
}

// evaluate is every threshold evaluated on st, in order.
func evaluate(st results.LoadStats, ths []results.Threshold) []results.SLOResult {
	out := make([]results.SLOResult, len(ths))
	for i, th := range ths {
		out[i] = th.Evaluate(st)
	}
	return out
}
