package stats

import (
	"errors"
	"math"
	"math/big"
	"slices"
)

// ErrNoSamples is returned by Compute for an empty input (the
// reference raises ValueError("Cannot compute summary stats on empty
// list")). Callers branch on it with errors.Is.
var ErrNoSamples = errors.New("stats: no samples")

// Compute summarizes values (reference: compute_summary_stats): the
// arithmetic mean, the sample standard deviation (n−1 denominator; 0 for a
// single value), min, max, and p50/p95/p99 by linear interpolation between
// closest ranks (index = p/100·(n−1) into the sorted values). Units are
// those of the input. values is not modified. An empty input returns
// ErrNoSamples. NaN inputs propagate into the result as in the reference.
func Compute(values []float64) (Summary, error) {
	n := len(values)
	if n == 0 {
		return Summary{}, ErrNoSamples
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	mean, stddev := meanStdev(values)
	return Summary{
		Mean:   mean,
		Stddev: stddev,
		Min:    sorted[0],
		Max:    sorted[n-1],
		P50:    Percentile(sorted, 50),
		P95:    Percentile(sorted, 95),
		P99:    Percentile(sorted, 99),
	}, nil
}

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

// meanStdev returns the mean and sample standard deviation of values the
// way Python's statistics module does: exact rational arithmetic, so the
// mean is the correctly rounded true mean and the standard deviation is the
// square root of the correctly rounded true variance. Non-finite inputs fall
// back to plain float arithmetic (NaN/Inf propagate).
func meanStdev(values []float64) (mean, stddev float64) {
	n := len(values)
	for _, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			var sum float64
			for _, x := range values {
				sum += x
			}
			mean = sum / float64(n)
			if n > 1 {
				var ss float64
				for _, x := range values {
					ss += (x - mean) * (x - mean)
				}
				stddev = math.Sqrt(ss / float64(n-1))
			}
			return mean, stddev
		}
	}
	// Each finite value is an integer mantissa times a power of 2; scaled
	// to the smallest power among them, every value is an integer V_i.
	// Then mean = S/n and variance = Σ(n·V_i − S)² / (n²·(n−1)), in that
	// scale, with S = ΣV_i: exact integer sums (no big.Rat per value,
	// whose normalising made a pooled ITL of 10⁵ gaps take seconds),
	// divided and rounded once.
	minExp := math.MaxInt
	for _, v := range values {
		if v != 0 {
			_, e := mantExp(v)
			minExp = min(minExp, e)
		}
	}
	if minExp == math.MaxInt {
		return 0, 0 // all zeros
	}
	scaled := func(dst *big.Int, v float64) *big.Int {
		m, e := mantExp(v)
		return dst.Lsh(dst.SetInt64(m), uint(e-minExp))
	}
	sum, vi := new(big.Int), new(big.Int)
	for _, v := range values {
		if v != 0 {
			sum.Add(sum, scaled(vi, v))
		}
	}
	bigN := big.NewInt(int64(n))
	// ratio returns num / den · 2^(k·minExp), correctly rounded.
	ratio := func(num, den *big.Int, k int) float64 {
		num, den = new(big.Int).Set(num), new(big.Int).Set(den)
		if shift := k * minExp; shift < 0 {
			den.Lsh(den, uint(-shift))
		} else {
			num.Lsh(num, uint(shift))
		}
		f, _ := new(big.Rat).SetFrac(num, den).Float64()
		return f
	}
	mean = ratio(sum, bigN, 1)
	if n == 1 {
		return mean, 0
	}
	ss, d, sq := new(big.Int), new(big.Int), new(big.Int)
	for _, v := range values {
		scaled(vi, v)
		d.Sub(d.Mul(vi, bigN), sum)
		ss.Add(ss, sq.Mul(d, d)) // sq, not d: an aliased Mul allocates
	}
	den := new(big.Int).Mul(bigN, bigN)
	den.Mul(den, big.NewInt(int64(n-1)))
	variance := ratio(ss, den, 2)
	return mean, math.Sqrt(variance)
}

// mantExp splits a finite non-zero v into an integer mantissa m and an
// exponent e with v = m·2^e exactly.
func mantExp(v float64) (m int64, e int) {
	frac, exp := math.Frexp(v) // v = frac·2^exp, 0.5 <= |frac| < 1
	return int64(frac * (1 << 53)), exp - 53
}

// Summary holds the summary statistics of one metric (reference:
// compute_summary_stats): sample standard deviation, percentiles by linear
// interpolation between closest ranks.
type Summary struct {
	// Mean is the arithmetic mean, in the metric's unit (ms, tokens/s,
	// characters).
	Mean float64 `json:"mean"`
	// Stddev is the sample standard deviation (n − 1), 0 for one sample.
	Stddev float64 `json:"stddev"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	// P50, P95 and P99 are percentiles by linear interpolation between closest
	// ranks.
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
}
