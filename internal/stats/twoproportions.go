package stats

import "math"

// Wilson is the Wilson score interval of a proportion of successes out
// of n at the two-sided confidence (Wilson 1927; Newcombe 1998, method
// 3). Both ends are NaN for n = 0.
func Wilson(successes, n int, confidence float64) (low, high float64) {
	if n <= 0 {
		return math.NaN(), math.NaN()
	}
	z := normalQuantile(1 - (1-confidence)/2)
	nn := float64(n)
	p := float64(successes) / nn
	center := (p + z*z/(2*nn)) / (1 + z*z/nn)
	half := z / (1 + z*z/nn) * math.Sqrt(p*(1-p)/nn+z*z/(4*nn*nn))
	return math.Max(0, center-half), math.Min(1, center+half)
}

// ProportionDifference is the change of a proportion from base (xb of
// nb) to candidate (xc of nc), pc − pb, with Newcombe's hybrid score
// interval (Newcombe 1998, method 10: the sides' Wilson intervals
// combined), which keeps its coverage for proportions near 0 or 1 where
// the Wald interval fails, as error rates are. The change is significant
// at 1 − confidence when the interval excludes 0. ErrTooFewSamples when a
// side has no trials.
func ProportionDifference(xb, nb, xc, nc int, confidence float64) (Shift, error) {
	if nb <= 0 || nc <= 0 {
		return Shift{math.NaN(), math.NaN(), math.NaN()}, ErrTooFewSamples
	}
	pb, pc := float64(xb)/float64(nb), float64(xc)/float64(nc)
	lb, ub := Wilson(xb, nb, confidence)
	lc, uc := Wilson(xc, nc, confidence)
	d := pc - pb
	return Shift{
		Estimate: d,
		Low:      d - math.Sqrt((pc-lc)*(pc-lc)+(ub-pb)*(ub-pb)),
		High:     d + math.Sqrt((uc-pc)*(uc-pc)+(pb-lb)*(pb-lb)),
	}, nil
}
