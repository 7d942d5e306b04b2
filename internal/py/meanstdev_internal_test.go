package py

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// ratMeanStdev is MeanStdev's definition written directly in big.Rat
// (Python's statistics module: the exact mean and variance, each rounded
// once), the reference the integer arithmetic must agree with bit for bit.
func ratMeanStdev(values []float64) (mean, stddev float64) {
	n := len(values)
	total := new(big.Rat)
	for _, v := range values {
		total.Add(total, new(big.Rat).SetFloat64(v))
	}
	exact := new(big.Rat).Quo(total, new(big.Rat).SetInt64(int64(n)))
	mean, _ = exact.Float64()
	if n == 1 {
		return mean, 0
	}
	ss := new(big.Rat)
	for _, v := range values {
		d := new(big.Rat).Sub(new(big.Rat).SetFloat64(v), exact)
		ss.Add(ss, d.Mul(d, d))
	}
	variance, _ := ss.Quo(ss, new(big.Rat).SetInt64(int64(n-1))).Float64()
	return mean, math.Sqrt(variance)
}

func TestMeanStdevIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sets := map[string][]float64{
		"one":          {3.7},
		"two":          {0.1, 0.2},
		"zeros":        {0, 0, 0},
		"with zero":    {0, 1e-3, 2.5},
		"negative":     {-1.5, 2.25, -0.125, 7},
		"wide range":   {1e-300, 1, 1e300, -1e-300},
		"subnormal":    {5e-324, 1e-310, 0},
		"one repeated": {0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1},
	}
	ms := make([]float64, 2000)
	for i := range ms {
		ms[i] = rng.ExpFloat64() * 80 // latencies in ms
	}
	sets["latencies"] = ms
	for name, vs := range sets {
		t.Run(name, func(t *testing.T) {
			wantMean, wantSD := ratMeanStdev(vs)
			gotMean, gotSD := MeanStdev(vs)
			assert.Equal(t, math.Float64bits(wantMean), math.Float64bits(gotMean), "mean %v, want %v", gotMean, wantMean)
			assert.Equal(t, math.Float64bits(wantSD), math.Float64bits(gotSD), "stddev %v, want %v", gotSD, wantSD)
		})
	}
}

// A load run's pooled ITL holds hundreds of thousands of gaps; summing
// them as big.Rat (a GCD per addition, denominators growing) took seconds
// and held up the end of an interrupted run. The exact sums are integer
// sums: a few allocations for the whole input, not several per value.
func TestMeanStdevAllocatesPerInputNotPerValue(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vs := make([]float64, 10000)
	for i := range vs {
		vs[i] = rng.ExpFloat64() * 2
	}
	allocs := testing.AllocsPerRun(3, func() { MeanStdev(vs) })
	assert.LessOrEqual(t, allocs, 200.0, "allocations for 10,000 values")
}
