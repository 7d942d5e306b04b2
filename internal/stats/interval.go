package stats

import (
	"math"
	"slices"
)

// MethodOrderStatistics names the percentile interval of OrderInterval
// in reports and JSON (results.Interval.Method).
const MethodOrderStatistics = "binomial order statistics, effective sample size from autocorrelation"

// OrderInterval is the distribution-free confidence interval of the
// p-th percentile (p in [0, 100]) of values, given in the order they were
// measured (arrival order), at the two-sided confidence (in (0, 1)): its
// ends low and high in the values' unit, and the effective sample size
// they were found from.
//
// Method: the number of samples at or below the true percentile q is
// Binomial(n, p/100), so the order statistics x(l) and x(u) with
// P(B < l) <= α/2 and P(B >= u) <= α/2 (α = 1 − confidence) bracket q
// with probability >= confidence (Hahn and Meeker, Statistical Intervals,
// §5.2) whatever the distribution. That holds for independent samples;
// latencies of a queue are not: a slow request is followed by slow ones.
// The binomial is therefore taken over the effective sample size n/τ,
// where τ is the larger of the integrated autocorrelation times of the
// indicator series 1{x_i <= estimate} and of the samples' ranks (Geyer's
// initial positive sequence, τ >= 1; the ranks' estimate holds up when
// few samples lie beyond a high percentile), and the ranks found are
// scaled back to the n samples. Independent samples keep
// the exact interval; correlated ones get a wider one. An end that needs
// a rank beyond the sample is unbounded (NaN).
//
// resolution > 0 takes the autocorrelation times over values rounded to
// multiples of it (0 keeps them as they are): differences far below the
// scale a threshold cares about — timer jitter of a fraction of a
// millisecond on a busy machine, which comes in runs — then do not shrink
// the effective sample size. The order statistics stay the values' own.
//
// With no samples, or p or confidence out of range, both ends are NaN
// and effectiveN is 0.
func OrderInterval(values []float64, p, confidence, resolution float64) (low, high, effectiveN float64) {
	n := len(values)
	low, high = math.NaN(), math.NaN()
	if n == 0 || !(p >= 0 && p <= 100) || !(confidence > 0 && confidence < 1) {
		return low, high, 0
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	est := Percentile(sorted, p)
	series, seriesSorted := values, sorted
	if resolution > 0 {
		series, seriesSorted = quantized(values, resolution), quantized(sorted, resolution)
		est = math.Round(est/resolution) * resolution
	}
	tau := math.Max(indicatorTau(series, est), rankTau(series, seriesSorted))
	effectiveN = float64(n) / tau
	m := max(1, int(math.Floor(effectiveN)))
	lo, hi := BinomialRanks(m, p/100, 1-confidence)
	scale := float64(n) / float64(m)
	if lo >= 1 {
		low = sorted[max(1, int(math.Floor(float64(lo)*scale)))-1]
	}
	if hi <= m {
		high = sorted[min(n, int(math.Ceil(float64(hi)*scale)))-1]
	}
	return low, high, effectiveN
}

// quantized is values rounded to multiples of resolution (a copy).
func quantized(values []float64, resolution float64) []float64 {
	out := make([]float64, len(values))
	for i, v := range values {
		out[i] = math.Round(v/resolution) * resolution
	}
	return out
}

// BinomialRanks returns the 1-based ranks l and u of the order statistics
// that bracket the quantile of probability p (in [0, 1]) of n samples
// with coverage >= 1 − alpha: l is the largest rank with P(B < l) <=
// alpha/2 and u the smallest with P(B >= u) <= alpha/2, B ~ Binomial(n,
// p). l = 0 means the interval is unbounded below, u = n + 1 that it is
// unbounded above.
func BinomialRanks(n int, p, alpha float64) (l, u int) {
	cdf := binomialCDF(n, p)
	at := func(j int) float64 { // P(B <= j)
		if j < 0 {
			return 0
		}
		return cdf[j]
	}
	for l = 0; l+1 <= n && at(l) <= alpha/2; l++ {
	}
	// P(B < l) = at(l − 1) <= alpha/2 for the l found.
	for u = 1; u <= n && at(u-1) < 1-alpha/2; u++ {
	}
	return l, u
}

// binomialCDF is P(B <= k) for k = 0..n, B ~ Binomial(n, p), from the
// probabilities in log space (math.Lgamma), so n in the hundreds of
// thousands stays exact to rounding.
func binomialCDF(n int, p float64) []float64 {
	cdf := make([]float64, n+1)
	switch {
	case p <= 0:
		for k := range cdf {
			cdf[k] = 1
		}
		return cdf
	case p >= 1:
		cdf[n] = 1
		return cdf
	}
	lnN, _ := math.Lgamma(float64(n + 1))
	lp, lq := math.Log(p), math.Log1p(-p)
	sum := 0.0
	for k := 0; k <= n; k++ {
		a, _ := math.Lgamma(float64(k + 1))
		b, _ := math.Lgamma(float64(n - k + 1))
		sum += math.Exp(lnN - a - b + float64(k)*lp + float64(n-k)*lq)
		cdf[k] = math.Min(sum, 1)
	}
	cdf[n] = 1
	return cdf
}

// rankTau is the integrated autocorrelation time of values' ranks (in
// their order), by the same initial positive sequence: a sturdier
// estimate than the indicator's when few samples lie beyond a high
// percentile, since a run of slow requests shows in every rank.
func rankTau(values, sorted []float64) float64 {
	ranks := make([]float64, len(values))
	for i, v := range values {
		lo, _ := slices.BinarySearch(sorted, v)
		ranks[i] = float64(lo)
	}
	return seriesTau(ranks)
}

// indicatorTau is the integrated autocorrelation time of the series
// 1{v <= q} over values in their order, by Geyer's initial positive
// sequence (sums of adjacent autocorrelation pairs, cut at the first
// pair that is not positive), at least 1.
func indicatorTau(values []float64, q float64) float64 {
	n := len(values)
	y := make([]float64, n)
	mean := 0.0
	for i, v := range values {
		if v <= q {
			y[i] = 1
		}
		mean += y[i]
	}
	if mean == 0 || mean == float64(n) {
		return 1
	}
	return seriesTau(y)
}

// seriesTau is the integrated autocorrelation time of y by Geyer's
// initial positive sequence, at least 1 (1 for fewer than 4 values or a
// constant series).
func seriesTau(y []float64) float64 {
	n := len(y)
	if n < 4 {
		return 1
	}
	y = slices.Clone(y)
	mean := 0.0
	for _, v := range y {
		mean += v / float64(n)
	}
	variance := 0.0
	for i := range y {
		y[i] -= mean
		variance += y[i] * y[i] / float64(n)
	}
	if variance == 0 {
		return 1
	}
	rho := func(k int) float64 {
		s := 0.0
		for i := 0; i+k < n; i++ {
			s += y[i] * y[i+k]
		}
		return s / float64(n) / variance
	}
	tau := -1.0
	for k := 0; k+1 < n/2; k += 2 {
		pair := rho(k) + rho(k+1)
		if pair <= 0 {
			break
		}
		tau += 2 * pair
	}
	return math.Max(tau, 1)
}

// MethodBracket names how a capacity's interval is found (its Method):
// its ends are the probes decided with confidence.
const MethodBracket = "bracket of probes decided with confidence (percentiles: " + MethodOrderStatistics + ")"
