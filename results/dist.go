package results

import (
	"math"
	"slices"

	"github.com/benchserve/benchserve/internal/stats"
)

// Dist summarizes one metric's samples: count, mean, sample standard
// deviation, min, max, median and p50/p90/p95/p99 by the reference's
// linear interpolation (compute_summary_stats: idx = p/100·(n−1) into the
// sorted samples), plus any extra percentiles asked for. Units are those
// of the samples (milliseconds for latencies, tokens per second for
// GenTPS). Build one with NewDist: with no samples every value is then
// NaN and Count 0. The zero Dist has no samples either (Count 0), its
// other fields zero: read them only when Count > 0.
type Dist struct {
	// Count is the number of samples.
	Count int
	// Mean, Stddev (sample, n − 1), Min and Max are in the samples' unit.
	Mean, Stddev, Min, Max float64
	// Median equals P50; P50…P99 are percentiles in the samples' unit.
	Median, P50, P90, P95, P99 float64
	// Extra holds the extra percentiles NewDist was asked for, keyed by p
	// (e.g. 99.9).
	Extra map[float64]float64

	sorted []float64
	// ordered holds the samples as given (measurement order), for
	// PercentileInterval's autocorrelation.
	ordered []float64
}

// NewDist summarizes values (not modified), in the order they were
// measured, computing the extra percentiles (p in [0, 100]) too.
func NewDist(values []float64, extra ...float64) Dist {
	st, err := computeStats(values)
	if err != nil {
		nan := math.NaN()
		return Dist{Mean: nan, Stddev: nan, Min: nan, Max: nan, Median: nan,
			P50: nan, P90: nan, P95: nan, P99: nan}
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	d := Dist{
		Count: len(values), Mean: st.Mean, Stddev: st.Stddev, Min: st.Min, Max: st.Max,
		Median: st.P50, P50: st.P50, P90: stats.Percentile(sorted, 90),
		P95: st.P95, P99: st.P99, sorted: sorted, ordered: slices.Clone(values),
	}
	if len(extra) > 0 {
		d.Extra = make(map[float64]float64, len(extra))
		for _, p := range extra {
			d.Extra[p] = stats.Percentile(sorted, p)
		}
	}
	return d
}

// PercentileInterval is the distribution-free confidence interval of the
// p-th percentile (p in [0, 100]) of the samples the Dist was built from,
// at the two-sided confidence (in (0, 1); DefaultConfidence is 95%), in
// the samples' unit: the binomial order statistics bracketing the
// percentile, over the effective sample size their autocorrelation leaves
// (a queue's latencies come in runs and are worth fewer independent
// samples); Method names the method. An end the sample is too small
// to bound is NaN (the p95 of fewer than 72 independent samples has no
// upper bound at 95%); both are NaN without samples or with p or
// confidence out of range.
func (d Dist) PercentileInterval(p, confidence float64) Interval {
	return orderInterval(d.ordered, p, confidence, 0)
}

// orderInterval is the Interval of the percentile's order statistics
// (internal/stats: OrderInterval, whose resolution it passes on).
func orderInterval(values []float64, p, confidence, resolution float64) Interval {
	low, high, neff := stats.OrderInterval(values, p, confidence, resolution)
	return Interval{Low: low, High: high, Confidence: confidence, Method: stats.MethodOrderStatistics,
		N: len(values), EffectiveN: math.Round(neff*10) / 10}
}

// Percentile returns the p-th percentile (p in [0, 100]) of the samples
// the Dist was built from, by the same interpolation; NaN when empty.
func (d Dist) Percentile(p float64) float64 {
	if d.Count == 0 {
		return math.NaN()
	}
	if v, ok := d.Extra[p]; ok {
		return v
	}
	return stats.Percentile(d.sorted, p)
}
