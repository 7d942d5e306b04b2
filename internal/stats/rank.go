package stats

import (
	"errors"
	"math"
	"slices"

	moremath "github.com/aclements/go-moremath/stats"
)

// ErrTooFewSamples is returned by the comparison tests when a side has
// too few samples (or only equal ones) for any test to reach a verdict.
var ErrTooFewSamples = errors.New("too few samples")

// MannWhitney is the two-sided Mann–Whitney U test (Wilcoxon rank-sum)
// of base and candidate, independent samples: the p-value of the null
// hypothesis that neither tends to be larger. It is go-moremath's
// MannWhitneyUTest (the test benchstat runs): exact U distribution
// (with ties) for small samples, the normal approximation with tie
// correction beyond. ErrTooFewSamples when a side is empty or every
// value of both sides is equal (no ordering to test).
func MannWhitney(base, candidate []float64) (p float64, err error) {
	if len(base) == 0 || len(candidate) == 0 {
		return math.NaN(), ErrTooFewSamples
	}
	res, err := moremath.MannWhitneyUTest(base, candidate, moremath.LocationDiffers)
	if err != nil {
		return math.NaN(), ErrTooFewSamples
	}
	return res.P, nil
}

// WilcoxonSignedRank is the two-sided Wilcoxon signed-rank test of
// paired differences d (candidate − base, one per pair): the p-value of
// the null hypothesis that they are symmetric about 0. Zero differences
// are dropped (Wilcoxon's convention, scipy's zero_method "wilcox"), ties
// get mid-ranks. With at most 50 non-zero differences and no ties the
// p-value is exact (the signed-rank distribution by counting); otherwise
// it is the normal approximation with tie correction and a continuity
// correction of 1/2. ErrTooFewSamples when no difference is non-zero.
func WilcoxonSignedRank(d []float64) (p float64, err error) {
	nz := make([]float64, 0, len(d))
	for _, v := range d {
		if v != 0 && !math.IsNaN(v) {
			nz = append(nz, v)
		}
	}
	n := len(nz)
	if n == 0 {
		return math.NaN(), ErrTooFewSamples
	}
	abs := make([]float64, n)
	for i, v := range nz {
		abs[i] = math.Abs(v)
	}
	ranks, tied := midRanks(abs)
	wPlus := 0.0
	for i, v := range nz {
		if v > 0 {
			wPlus += ranks[i]
		}
	}
	total := float64(n*(n+1)) / 2
	if !tied && n <= 50 {
		counts := signedRankCounts(n)
		w := int(math.Round(math.Min(wPlus, total-wPlus)))
		sum := 0.0
		for k := 0; k <= w; k++ {
			sum += counts[k]
		}
		return math.Min(1, 2*sum/math.Exp2(float64(n))), nil
	}
	mean := total / 2
	variance := float64(n*(n+1)*(2*n+1)) / 24
	for _, t := range tieSizes(abs) {
		variance -= float64(t*t*t-t) / 48
	}
	if variance <= 0 {
		return math.NaN(), ErrTooFewSamples
	}
	z := (math.Abs(wPlus-mean) - 0.5) / math.Sqrt(variance)
	if z < 0 {
		z = 0
	}
	return math.Min(1, 2*normalUpper(z)), nil
}

// signedRankCounts[k] is the number of subsets of {1..n} summing to k:
// the null distribution of the signed-rank statistic times 2^n.
func signedRankCounts(n int) []float64 {
	maxSum := n * (n + 1) / 2
	c := make([]float64, maxSum+1)
	c[0] = 1
	for r := 1; r <= n; r++ {
		for k := maxSum; k >= r; k-- {
			c[k] += c[k-r]
		}
	}
	return c
}

// midRanks returns the 1-based ranks of values, ties sharing the mean of
// their ranks, and whether any tie occurred.
func midRanks(values []float64) (ranks []float64, tied bool) {
	idx := make([]int, len(values))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmpFloat(values[a], values[b]) })
	ranks = make([]float64, len(values))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && values[idx[j+1]] == values[idx[i]] {
			j++
		}
		if j > i {
			tied = true
		}
		r := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			ranks[idx[k]] = r
		}
		i = j + 1
	}
	return ranks, tied
}

// tieSizes are the sizes of the groups of equal values (groups of one
// left out).
func tieSizes(values []float64) []int {
	s := slices.Clone(values)
	slices.Sort(s)
	var out []int
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[i] {
			j++
		}
		if j > i {
			out = append(out, j-i+1)
		}
		i = j + 1
	}
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// normalUpper is P(Z > z) for a standard normal Z.
func normalUpper(z float64) float64 { return 0.5 * math.Erfc(z/math.Sqrt2) }

// normalQuantile is the standard normal's p-quantile.
func normalQuantile(p float64) float64 {
	return moremath.NormalDist{Mu: 0, Sigma: 1}.InvCDF(p)
}
