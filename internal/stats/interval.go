package stats

import (
	"math"
	"slices"
	"strconv"
)

// DefaultConfidence is the two-sided coverage of the intervals Evaluate
// attaches to percentile thresholds: 95%.
const DefaultConfidence = 0.95

// MethodOrderStatistics names the percentile interval of
// PercentileInterval in reports and JSON.
const MethodOrderStatistics = "binomial order statistics, effective sample size from autocorrelation"

// Interval is a confidence interval for one statistic of a sample.
type Interval struct {
	// Low and High bound the statistic, in the samples' unit (a
	// threshold's unit on an Outcome); NaN when that end is unbounded:
	// the sample is too small for the confidence (the p95 of fewer than
	// 72 samples has no finite upper bound at 95%).
	Low, High float64
	// Confidence is the two-sided coverage, e.g. 0.95: each end is a
	// one-sided bound at (1 + Confidence) / 2.
	Confidence float64
	// Method says how it was computed (MethodOrderStatistics).
	Method string
	// N is the number of samples; EffectiveN the independent samples
	// they are worth after their autocorrelation (N for independent
	// samples, less for the waiting times of a queue, which come in runs).
	N          int
	EffectiveN float64
}

// String is "95% CI 140.1–171.3", an unbounded end written "inf" (or
// "-inf"); values formatted like Outcome.MeasuredString.
func (iv Interval) String() string {
	end := func(v float64, inf string) string {
		if math.IsNaN(v) {
			return inf
		}
		return formatMeasured(v)
	}
	return strconv.FormatFloat(100*iv.Confidence, 'g', 4, 64) + "% CI " + end(iv.Low, "-inf") + "–" + end(iv.High, "inf")
}

// PercentileInterval is the distribution-free confidence interval of the
// p-th percentile (p in [0, 100]) of values, given in the order they were
// measured (arrival order), at the two-sided confidence (in (0, 1)).
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
// With no samples, or p or confidence out of range, both ends are NaN.
func PercentileInterval(values []float64, p, confidence float64) Interval {
	return percentileInterval(values, p, confidence, 0)
}

// percentileInterval is PercentileInterval with the autocorrelation
// times taken over values rounded to multiples of resolution (> 0;
// 0 keeps them as they are): differences far below the scale a
// threshold cares about — timer jitter of a fraction of a millisecond
// on a busy machine, which comes in runs — then do not shrink the
// effective sample size. The order statistics stay the values' own.
func percentileInterval(values []float64, p, confidence, resolution float64) Interval {
	n := len(values)
	iv := Interval{Low: math.NaN(), High: math.NaN(), Confidence: confidence, Method: MethodOrderStatistics, N: n}
	if n == 0 || !(p >= 0 && p <= 100) || !(confidence > 0 && confidence < 1) {
		return iv
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
	iv.EffectiveN = float64(n) / tau
	m := max(1, int(math.Floor(iv.EffectiveN)))
	lo, hi := BinomialRanks(m, p/100, 1-confidence)
	scale := float64(n) / float64(m)
	if lo >= 1 {
		iv.Low = sorted[max(1, int(math.Floor(float64(lo)*scale)))-1]
	}
	if hi <= m {
		iv.High = sorted[min(n, int(math.Ceil(float64(hi)*scale)))-1]
	}
	return iv
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

// confident reports, for an outcome with an interval, whether the whole
// interval lies within the threshold (pass) or outside it (fail);
// decided is false when it straddles the limit or the needed end is
// unbounded.
func confident(op string, limit float64, iv Interval) (pass, decided bool) {
	lo, hi := iv.Low, iv.High
	switch op {
	case "<=":
		return hi <= limit, hi <= limit || lo > limit
	case "<":
		return hi < limit, hi < limit || lo >= limit
	case ">=":
		return lo >= limit, lo >= limit || hi < limit
	case ">":
		return lo > limit, lo > limit || hi <= limit
	}
	return false, false
}

// Conclusive reports whether the outcome's verdict holds with the
// confidence of its interval: the whole interval lies within the
// threshold (Pass) or outside it (a failure). An outcome without an
// interval (a mean, a count, error_rate, == and !=) or without samples is
// conclusive on its measured value.
func (o Outcome) Conclusive() bool {
	if o.CI == nil || math.IsNaN(o.Measured) {
		return true
	}
	_, decided := confident(o.Op, o.Value, *o.CI)
	return decided
}

// ConfidentPass reports whether the threshold holds with confidence: its
// interval lies within it (or, without an interval, it passed).
func (o Outcome) ConfidentPass() bool {
	if o.CI == nil || math.IsNaN(o.Measured) {
		return o.Pass
	}
	pass, _ := confident(o.Op, o.Value, *o.CI)
	return pass
}

// Interval is the confidence interval of the threshold's statistic on s,
// in the threshold's unit, at confidence, its autocorrelation taken over
// the samples rounded to a hundredth of the limit (percentileInterval);
// ok is false for a threshold
// that is not a percentile (pN or median) of a distribution metric, and
// for == and != (an interval decides neither).
func (t Threshold) Interval(s Stats, confidence float64) (iv Interval, ok bool) {
	if t.Op == "==" || t.Op == "!=" {
		return Interval{}, false
	}
	p := 50.0
	switch {
	case t.Stat == "median" || t.Stat == "p50":
	case percentileRE.MatchString(t.Stat):
		p, _ = strconv.ParseFloat(t.Stat[1:], 64)
	default:
		return Interval{}, false
	}
	d, ok := t.dist(s)
	if !ok {
		return Interval{}, false
	}
	// Resolution: a hundredth of the limit (2 ms for 200 ms).
	iv = percentileInterval(d.ordered, p, confidence, math.Abs(t.Value)/100*t.Scale())
	iv.Low /= t.Scale()
	iv.High /= t.Scale()
	return iv, true
}
