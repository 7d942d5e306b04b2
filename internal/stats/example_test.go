package stats_test

import (
	"fmt"

	"github.com/benchserve/benchserve/internal/stats"
)

func ExamplePercentile() {
	sorted := []float64{80, 100, 120, 400}
	fmt.Printf("p50=%.1f p95=%.1f\n", stats.Percentile(sorted, 50), stats.Percentile(sorted, 95))
	// Output: p50=110.0 p95=358.0
}
