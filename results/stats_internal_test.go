package results

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Expected values were computed with the reference compute_summary_stats
// on CPython 3.11 and are compared exactly: the port must agree to the bit.

func TestComputeEmptyIserrNoSamples(t *testing.T) {
	_, err := computeStats(nil)
	assert.True(t, errors.Is(err, errNoSamples), "empty input must return errNoSamples, got %v", err)
	_, err = computeStats([]float64{})
	assert.ErrorIs(t, err, errNoSamples, "empty non-nil input must return errNoSamples")
}

func TestComputeOneValue(t *testing.T) {
	s, err := computeStats([]float64{42.5})
	require.NoError(t, err, "one value is enough")
	assert.Equal(t, Stats{Mean: 42.5, Stddev: 0, Min: 42.5, Max: 42.5, P50: 42.5, P95: 42.5, P99: 42.5}, s,
		"a single value is every statistic and stddev is 0")
}

func TestComputeTwoValues(t *testing.T) {
	s, err := computeStats([]float64{200, 100})
	require.NoError(t, err, "two values")
	assert.Equal(t, Stats{Mean: 150, Stddev: 70.71067811865476, Min: 100, Max: 200, P50: 150, P95: 195, P99: 199}, s,
		"sample stddev (n-1) and interpolated percentiles of two values")
}

func TestComputeTenValuesInterpolates(t *testing.T) {
	in := []float64{10, 1, 9, 2, 8, 3, 7, 4, 6, 5}
	s, err := computeStats(in)
	require.NoError(t, err, "ten values")
	assert.Equal(t, 5.5, s.Mean, "mean")
	assert.Equal(t, 3.0276503540974917, s.Stddev, "sample stddev")
	assert.Equal(t, 1.0, s.Min, "min")
	assert.Equal(t, 10.0, s.Max, "max")
	assert.Equal(t, 5.5, s.P50, "p50 idx 4.5")
	assert.Equal(t, 9.549999999999999, s.P95, "p95 idx 8.55 interpolates 9→10")
	assert.Equal(t, 9.91, s.P99, "p99 idx 8.91 interpolates 9→10")
	assert.Equal(t, []float64{10, 1, 9, 2, 8, 3, 7, 4, 6, 5}, in, "the input must not be reordered")
}

func TestComputeHundredOneValuesHitsRanks(t *testing.T) {
	in := make([]float64, 101)
	for i := range in {
		in[100-i] = float64(i)
	}
	s, err := computeStats(in)
	require.NoError(t, err, "101 values")
	assert.Equal(t, 50.0, s.P50, "p50 of 0..100 is exactly rank 50")
	assert.Equal(t, 95.0, s.P95, "p95 of 0..100 is exactly rank 95")
	assert.Equal(t, 99.0, s.P99, "p99 of 0..100 is exactly rank 99")
	assert.Equal(t, 29.300170647967224, s.Stddev, "sample stddev of 0..100")
}

func TestComputeMatchesPythonRounding(t *testing.T) {
	s, err := computeStats([]float64{12.5, 40.25, 7.125})
	require.NoError(t, err, "three values")
	assert.Equal(t, 19.958333333333332, s.Mean, "statistics.mean is the correctly rounded mean")
	assert.Equal(t, 17.77741427579763, s.Stddev, "statistics.stdev")
	assert.Equal(t, 37.474999999999994, s.P95, "p95")
	assert.Equal(t, 39.695, s.P99, "p99")
}

func TestComputeNaNPropagates(t *testing.T) {
	s, err := computeStats([]float64{1, math.NaN()})
	require.NoError(t, err, "NaN is a sample, not an error")
	assert.True(t, math.IsNaN(s.Mean), "NaN mean")
}
