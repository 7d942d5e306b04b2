package stats_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/stats"
)

// scipy.stats.wilcoxon's documented example (exact distribution, no ties):
// W− = 24 of 15 differences, two-sided p = 1352/32768.
func TestWilcoxonSignedRankExact(t *testing.T) {
	d := []float64{6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75}
	p, err := stats.WilcoxonSignedRank(d)
	require.NoError(t, err)
	assert.InDelta(t, 0.041259765625, p, 1e-12, "exact two-sided p of scipy's example")
	// Zero differences are dropped; only zeros leave nothing to test.
	p0, err := stats.WilcoxonSignedRank(append([]float64{0, 0}, d...))
	require.NoError(t, err)
	assert.InDelta(t, p, p0, 1e-12, "zero differences are dropped")
	_, err = stats.WilcoxonSignedRank([]float64{0, 0, 0})
	assert.ErrorIs(t, err, stats.ErrTooFewSamples, "only zero differences")
}

// With ties the normal approximation applies; its z for 60 differences of
// +1 and -1 in ratio 40:20 is computable by hand: mid-rank 30.5 for every
// |d|, W+ = 40·30.5 = 1220, mean 915, variance 18452.5 − (60³−60)/48.
func TestWilcoxonSignedRankTies(t *testing.T) {
	d := make([]float64, 60)
	for i := range d {
		d[i] = 1
		if i >= 40 {
			d[i] = -1
		}
	}
	p, err := stats.WilcoxonSignedRank(d)
	require.NoError(t, err)
	variance := 60.0*61*121/24 - (60.0*60*60-60)/48
	z := (1220 - 915 - 0.5) / math.Sqrt(variance)
	assert.InDelta(t, math.Erfc(z/math.Sqrt2), p, 1e-12, "normal approximation with tie correction")
	assert.InDelta(t, 0.0099, p, 0.0005, "the sign test's p for 40 of 60 is about 0.01 too")
}

// scipy.stats.mannwhitneyu's documented example: U = 17, exact p = 1/9.
func TestMannWhitneyExact(t *testing.T) {
	p, err := stats.MannWhitney([]float64{19, 22, 16, 29, 24}, []float64{20, 11, 17, 12})
	require.NoError(t, err)
	assert.InDelta(t, 0.1111111111, p, 1e-9, "exact two-sided p of scipy's example")
	_, err = stats.MannWhitney(nil, []float64{1})
	assert.ErrorIs(t, err, stats.ErrTooFewSamples, "an empty side")
	_, err = stats.MannWhitney([]float64{3, 3}, []float64{3, 3})
	assert.ErrorIs(t, err, stats.ErrTooFewSamples, "all values equal")
}

// For m = n = 10 at 95% the interval is the 24th smallest and largest of
// the 100 differences (critical U = 23, Hollander and Wolfe table A.6);
// base = candidate = 0..9 has 21 differences <= -4 and 28 <= -3.
func TestHodgesLehmann(t *testing.T) {
	x := []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	s, err := stats.HodgesLehmann(x, x, 0.95)
	require.NoError(t, err)
	assert.Equal(t, stats.Shift{Estimate: 0, Low: -3, High: 3}, s, "interval from the 24th order statistics")
	s, err = stats.HodgesLehmann([]float64{1, 2, 3}, []float64{4, 5, 6}, 0.95)
	require.NoError(t, err)
	assert.Equal(t, 3.0, s.Estimate, "median of the nine differences")
	assert.True(t, math.IsNaN(s.Low) && math.IsNaN(s.High), "3 + 3 samples cannot give a 95%% interval: %+v", s)
}

func TestPairedHodgesLehmann(t *testing.T) {
	s, err := stats.PairedHodgesLehmann([]float64{1, 2, 3}, 0.95)
	require.NoError(t, err)
	assert.Equal(t, 2.0, s.Estimate, "median of the Walsh averages 1, 1.5, 2, 2, 2.5, 3")
	assert.True(t, math.IsNaN(s.Low), "3 pairs cannot give a 95%% interval")
	// n = 20: k = floor(105 − 1.96·√717.5 + 0.5) = 53 (table: critical
	// T = 52, so the 53rd Walsh averages): 1..20 has Walsh averages
	// (i+j)/2; the 53rd smallest is 7.5.
	d := make([]float64, 20)
	for i := range d {
		d[i] = float64(i + 1)
	}
	s, err = stats.PairedHodgesLehmann(d, 0.95)
	require.NoError(t, err)
	assert.Equal(t, 10.5, s.Estimate, "symmetric differences 1..20")
	assert.Equal(t, stats.Shift{Estimate: 10.5, Low: 7.5, High: 13.5}, s, "the 53rd smallest and largest Walsh averages")
}

// Newcombe (1998) Table II, example (a): 56/70 vs 48/80, method 10 gives
// 0.0524 to 0.3339 for the difference 0.2 (here base 48/80, candidate 56/70).
func TestProportionDifferenceNewcombe(t *testing.T) {
	s, err := stats.ProportionDifference(48, 80, 56, 70, 0.95)
	require.NoError(t, err)
	assert.InDelta(t, 0.2, s.Estimate, 1e-12)
	assert.InDelta(t, 0.0524, s.Low, 5e-5, "Newcombe's lower end")
	assert.InDelta(t, 0.3339, s.High, 5e-5, "Newcombe's upper end")
	lo, hi := stats.Wilson(81, 263, 0.95)
	assert.InDelta(t, 0.2553, lo, 5e-5, "Newcombe's Wilson example 81/263")
	assert.InDelta(t, 0.3662, hi, 5e-5, "Newcombe's Wilson example 81/263")
	_, err = stats.ProportionDifference(0, 0, 1, 2, 0.95)
	assert.ErrorIs(t, err, stats.ErrTooFewSamples)
}

func TestHolm(t *testing.T) {
	got := stats.Holm([]float64{0.01, 0.04, 0.03, 0.005, math.NaN()})
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i, w := range want {
		assert.InDelta(t, w, got[i], 1e-12, "adjusted p %d", i)
	}
	assert.True(t, math.IsNaN(got[4]), "no test stays NaN")
}

// The percentile difference's interval covers the true shift: two
// independent normal samples of 400, p50 shifted by 4.
func TestPercentileDifference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	b, c := make([]float64, 400), make([]float64, 400)
	for i := range b {
		b[i] = 20 + r.NormFloat64()
		c[i] = 24 + r.NormFloat64()
	}
	s, err := stats.PercentileDifference(b, c, 50, 0.95, 0)
	require.NoError(t, err)
	assert.InDelta(t, 4, s.Estimate, 0.3)
	assert.Less(t, s.Low, 4.0, "interval contains the shift: %+v", s)
	assert.Greater(t, s.High, 4.0, "interval contains the shift: %+v", s)
	assert.Greater(t, s.Low, 3.0, "and is narrow: %+v", s)
	s, err = stats.PercentileDifference(b[:10], c[:10], 99, 0.95, 0)
	require.NoError(t, err)
	assert.True(t, math.IsNaN(s.High), "10 samples cannot bound a p99: %+v", s)
}
