package stats

import "math"

// Percentile returns the p-th percentile (p in [0, 100]) of sorted, which
// must be sorted ascending, by the reference's linear interpolation:
// idx = p/100·(n−1), result = s[lo] + (idx−lo)·(s[lo+1]−s[lo]), clamped to
// the last value. It returns NaN for an empty slice, the only value for a
// single-element slice, and clamps p outside [0, 100] to the ends.
func Percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	switch {
	case n == 0:
		return math.NaN()
	case n == 1:
		return sorted[0]
	case p <= 0:
		return sorted[0]
	}
	idx := p / 100 * float64(n-1)
	lo := int(idx)
	hi := lo + 1
	if hi >= n {
		return sorted[n-1]
	}
	frac := idx - float64(lo)
	return sorted[lo] + frac*(sorted[hi]-sorted[lo])
}
