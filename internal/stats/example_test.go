package stats_test

import (
	"fmt"

	"github.com/benchserve/benchserve/internal/stats"
)

func ExampleCompute() {
	s, err := stats.Compute([]float64{120, 80, 100, 400})
	if err != nil {
		panic(err)
	}
	fmt.Printf("mean=%.1f p50=%.1f p95=%.1f max=%.0f\n", s.Mean, s.P50, s.P95, s.Max)
	// Output: mean=175.0 p50=110.0 p95=358.0 max=400
}
