package stats

import "math"

// MethodClopperPearson names the interval of ProportionInterval in
// reports and JSON (results.Interval.Method).
const MethodClopperPearson = "Clopper-Pearson exact binomial"

// ProportionInterval is the exact (Clopper–Pearson) two-sided confidence
// interval of a proportion from k successes in n trials, at confidence
// in (0, 1): low is the p at which P(B >= k) = α/2 (0 for k = 0) and
// high the p at which P(B <= k) = α/2 (1 for k = n), B ~ Binomial(n, p),
// α = 1 − confidence. Its coverage is at least the confidence for every
// p (Clopper and Pearson, 1934). An error rate of 3 in 100 is 0.6%–8.5%
// at 95%: a 1% limit cannot be called failed on it. Both ends are NaN for
// n < 1, k outside [0, n] or confidence out of range.
func ProportionInterval(k, n int, confidence float64) (low, high float64) {
	if n < 1 || k < 0 || k > n || !(confidence > 0 && confidence < 1) {
		return math.NaN(), math.NaN()
	}
	alpha := 1 - confidence
	// atMost is P(B <= j) at p; it falls as p rises.
	atMost := func(j int, p float64) float64 {
		if j < 0 {
			return 0
		}
		return binomialCDF(n, p)[j]
	}
	// solve finds the p in [0, 1] where f (falling in p) crosses target.
	solve := func(f func(p float64) float64, target float64) float64 {
		lo, hi := 0.0, 1.0
		for range 60 {
			mid := (lo + hi) / 2
			if f(mid) > target {
				lo = mid
			} else {
				hi = mid
			}
		}
		return (lo + hi) / 2
	}
	low, high = 0, 1
	if k > 0 { // P(B >= k) = 1 − P(B <= k−1) rises in p: solve P(B <= k−1) = 1 − α/2
		low = solve(func(p float64) float64 { return atMost(k-1, p) }, 1-alpha/2)
	}
	if k < n {
		high = solve(func(p float64) float64 { return atMost(k, p) }, alpha/2)
	}
	return low, high
}
