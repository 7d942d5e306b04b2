package stream

import (
	"math"
	"slices"

	"github.com/benchserve/benchserve/internal/stats"
)

// MaxKeptGaps is how many chunk gaps a Result keeps in ITLms: the first
// 4096, enough for every gap of any bounded answer (a 4,096-chunk
// answer), 32 KiB per Result at most. A longer stream (one that never
// ends until its policy timeout cuts it: 1.25 million gaps in 15 s) is
// still counted in full in Result.Gaps, which keeps the exact count, sum,
// minimum and maximum and a fixed-size histogram from which
// Result.ITLPercentile estimates percentiles of all gaps.
const MaxKeptGaps = 4096

// GapRelativeError bounds the relative error of ITLPercentile once a
// stream had more than MaxKeptGaps gaps: the estimate is within 1% (this
// constant, ≈ 0.0099) of a gap value at the percentile's rank, for gaps
// from 1 µs to 10⁷ ms (below 1 µs the estimate is the exact minimum, so
// the absolute error is under 1 µs; above, the exact maximum).
const GapRelativeError = (gapGamma - 1) / (gapGamma + 1)

// The histogram: bucket i > 0 holds gaps in (gapLow·γ^(i−1), gapLow·γ^i]
// ms, bucket 0 gaps ≤ gapLow, the last bucket everything above.
const (
	gapGamma   = 1.02
	gapLow     = 1e-3 // ms
	gapBuckets = 1164 // gapLow·γ^1163 ≈ 1e7 ms
)

var gapLogGamma = math.Log(gapGamma)

// GapStats summarizes every gap between consecutive token-bearing chunks
// of a stream in bounded memory (Result.Gaps). Durations are in ms.
type GapStats struct {
	// Count is the number of gaps (TokenChunks − 1 once a token arrived).
	Count int
	// SumMS, MinMS and MaxMS are exact over all gaps (0 when Count is 0).
	SumMS, MinMS, MaxMS float64
	// hist counts all gaps by log bucket; nil until Count exceeds
	// MaxKeptGaps (the kept gaps are exact until then). 4.6 KiB.
	hist []uint32
}

// MeanMS is the mean gap in ms, NaN when there is none.
func (g *GapStats) MeanMS() float64 {
	if g.Count == 0 {
		return math.NaN()
	}
	return g.SumMS / float64(g.Count)
}

// addGap records one gap of ms milliseconds: kept in ITLms while fewer
// than MaxKeptGaps are, always counted in Gaps.
func (r *Result) addGap(ms float64) {
	g := &r.Gaps
	if g.Count == 0 || ms < g.MinMS {
		g.MinMS = ms
	}
	if g.Count == 0 || ms > g.MaxMS {
		g.MaxMS = ms
	}
	g.Count++
	g.SumMS += ms
	if len(r.ITLms) < MaxKeptGaps {
		r.ITLms = append(r.ITLms, ms)
		return
	}
	if g.hist == nil { // first gap beyond the kept ones: histogram them all
		g.hist = make([]uint32, gapBuckets)
		for _, v := range r.ITLms {
			g.hist[gapBucket(v)]++
		}
	}
	if b := gapBucket(ms); g.hist[b] < math.MaxUint32 {
		g.hist[b]++
	}
}

// gapBucket returns the histogram bucket of a gap in ms.
func gapBucket(ms float64) int {
	if !(ms > gapLow) { // also NaN
		return 0
	}
	i := int(math.Ceil(math.Log(ms/gapLow) / gapLogGamma))
	return min(max(i, 1), gapBuckets-1)
}

// ITLPercentile returns the p-th percentile (p in [0, 100]) of all the
// stream's chunk gaps in ms, NaN when there is none. While every gap is
// kept (Gaps.Count == len(ITLms)) it is exact, by stats.Percentile's
// linear interpolation, as the statistics of ITLms are; beyond
// MaxKeptGaps it is estimated from the histogram of all gaps, within
// GapRelativeError of a gap at the percentile's rank and always within
// [Gaps.MinMS, Gaps.MaxMS].
func (r *Result) ITLPercentile(p float64) float64 {
	g := &r.Gaps
	if g.Count == 0 {
		return math.NaN()
	}
	if g.hist == nil {
		return stats.Percentile(slices.Sorted(slices.Values(r.ITLms)), p)
	}
	p = min(max(p, 0), 100)
	rank := int64(math.Round(p / 100 * float64(g.Count-1))) // 0-based
	var seen int64
	for i, n := range g.hist {
		seen += int64(n)
		if seen > rank {
			return min(max(gapEstimate(i), g.MinMS), g.MaxMS)
		}
	}
	return g.MaxMS
}

// gapEstimate is the value reported for bucket i: the point of the bucket
// with the least worst-case relative error, 2·hi/(γ+1).
func gapEstimate(i int) float64 {
	if i == 0 {
		return 0 // clamped up to the minimum
	}
	hi := gapLow * math.Pow(gapGamma, float64(i))
	return 2 * hi / (gapGamma + 1)
}
