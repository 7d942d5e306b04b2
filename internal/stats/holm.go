package stats

import (
	"math"
	"slices"
)

// Holm adjusts the p-values of a family of tests for Holm's step-down
// familywise correction (Holm 1979): the i-th smallest of m becomes
// max over j <= i of min(1, (m − j + 1)·p₍ⱼ₎), so rejecting the adjusted
// p-values below α keeps the chance of any false rejection at most α.
// NaN p-values (no test) stay NaN and do not count in m. The result is
// in the input's order.
func Holm(p []float64) []float64 {
	out := make([]float64, len(p))
	var idx []int
	for i, v := range p {
		out[i] = math.NaN()
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmpFloat(p[a], p[b]) })
	m := len(idx)
	running := 0.0
	for rank, i := range idx {
		adj := math.Min(1, float64(m-rank)*p[i])
		running = math.Max(running, adj)
		out[i] = running
	}
	return out
}
