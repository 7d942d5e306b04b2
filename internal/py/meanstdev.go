package py

import (
	"math"
	"math/big"
)

// MeanStdev returns the mean and sample standard deviation of values the
// way Python's statistics.mean and statistics.stdev do (the reference's
// compute_summary_stats): exact rational arithmetic, so the
// mean is the correctly rounded true mean and the standard deviation is the
// square root of the correctly rounded true variance. Non-finite inputs fall
// back to plain float arithmetic (NaN/Inf propagate).
func MeanStdev(values []float64) (mean, stddev float64) {
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
