package stats

import (
	"math"
	"slices"
)

// Shift is an estimated change (candidate − base) with its confidence
// interval, in the samples' unit. Low and High are NaN when the samples
// cannot support an interval at the confidence asked.
type Shift struct {
	Estimate, Low, High float64
}

// HodgesLehmann is the Hodges–Lehmann estimate of the shift from base to
// candidate (independent samples): the median of the len(base) ×
// len(candidate) differences c − b, with the distribution-free interval
// that inverts the Mann–Whitney test (Lehmann, Nonparametrics, 1975,
// §2.6; Hollander and Wolfe §4.3): the k-th smallest and k-th largest
// difference, k from the U distribution's α/2 quantile (normal
// approximation with a continuity correction: k = ⌊mn/2 − z·√(mn(m+n+1)/12) + ½⌋,
// exact enough from 10 samples a side; below that the interval is a
// little conservative). confidence in (0, 1). ErrTooFewSamples when a side
// is empty; Low and High are NaN when k < 1 (too few samples for the
// confidence).
func HodgesLehmann(base, candidate []float64, confidence float64) (Shift, error) {
	m, n := len(base), len(candidate)
	if m == 0 || n == 0 {
		return Shift{math.NaN(), math.NaN(), math.NaN()}, ErrTooFewSamples
	}
	diffs := make([]float64, 0, m*n)
	for _, b := range base {
		for _, c := range candidate {
			diffs = append(diffs, c-b)
		}
	}
	slices.Sort(diffs)
	mn := float64(m * n)
	z := normalQuantile(1 - (1-confidence)/2)
	k := int(math.Floor(mn/2 - z*math.Sqrt(mn*float64(m+n+1)/12) + 0.5))
	return shiftFrom(diffs, k), nil
}

// PairedHodgesLehmann is the one-sample Hodges–Lehmann estimate of the
// paired differences d (candidate − base per pair): the median of the
// n(n+1)/2 Walsh averages (dᵢ + dⱼ)/2, i <= j, with the interval that
// inverts the signed-rank test (Hollander and Wolfe §3.3): the k-th
// smallest and largest Walsh average, k = ⌊n(n+1)/4 −
// z·√(n(n+1)(2n+1)/24) + ½⌋ (normal approximation with a continuity
// correction; the tables' value from 10 pairs). ErrTooFewSamples for no
// differences; Low and High are NaN when k < 1.
func PairedHodgesLehmann(d []float64, confidence float64) (Shift, error) {
	n := len(d)
	if n == 0 {
		return Shift{math.NaN(), math.NaN(), math.NaN()}, ErrTooFewSamples
	}
	walsh := make([]float64, 0, n*(n+1)/2)
	for i := range n {
		for j := i; j < n; j++ {
			walsh = append(walsh, (d[i]+d[j])/2)
		}
	}
	slices.Sort(walsh)
	nn := float64(n)
	z := normalQuantile(1 - (1-confidence)/2)
	k := int(math.Floor(nn*(nn+1)/4 - z*math.Sqrt(nn*(nn+1)*(2*nn+1)/24) + 0.5))
	return shiftFrom(walsh, k), nil
}

// shiftFrom is the median of sorted with the k-th smallest and largest as
// the interval (NaN ends when k < 1).
func shiftFrom(sorted []float64, k int) Shift {
	s := Shift{Estimate: Percentile(sorted, 50), Low: math.NaN(), High: math.NaN()}
	if k >= 1 && k <= len(sorted) {
		s.Low, s.High = sorted[k-1], sorted[len(sorted)-k]
	}
	return s
}

// PercentileDifference is the change of the p-th percentile (p in
// [0, 100]) from base to candidate, each in measurement order, with a
// conservative interval: each side's distribution-free interval
// (OrderInterval, so autocorrelated samples count by their effective
// sample size) at confidence √confidence, combined as [cLow − bHigh,
// cHigh − bLow]; both sides' intervals cover at once with probability
// >= confidence, and then so does the combination. Low and High are NaN
// when either side's interval is unbounded (too few effective samples
// for that percentile); ErrTooFewSamples when a side is empty.
func PercentileDifference(base, candidate []float64, p, confidence, resolution float64) (Shift, error) {
	if len(base) == 0 || len(candidate) == 0 {
		return Shift{math.NaN(), math.NaN(), math.NaN()}, ErrTooFewSamples
	}
	each := math.Sqrt(confidence)
	bLo, bHi, _ := OrderInterval(base, p, each, resolution)
	cLo, cHi, _ := OrderInterval(candidate, p, each, resolution)
	sb, sc := slices.Clone(base), slices.Clone(candidate)
	slices.Sort(sb)
	slices.Sort(sc)
	// NaN ends propagate: an unbounded side leaves the change unbounded.
	return Shift{Estimate: Percentile(sc, p) - Percentile(sb, p), Low: cLo - bHi, High: cHi - bLo}, nil
}
