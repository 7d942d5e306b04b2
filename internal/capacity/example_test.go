package capacity_test

import (
	"context"
	"fmt"
	"time"

	"github.com/benchserve/benchserve/internal/capacity"
	"github.com/benchserve/benchserve/results"
)

// A search against a synthetic server whose TTFT p95 passes 500 ms above
// 45 req/s (see server in search_test.go). With a real server, the probe
// is capacity.LoadProbe(fn, opts), fn a loadgen.Func sending request i;
// benchtest.SearchCapacity and benchserve capacity use the engine's probes
// (capacity.SessionProbe).
func ExampleSearch() {
	slo, _ := results.ParseThreshold("ttft_p95_ms <= 500")
	res, err := capacity.Search(context.Background(), server(37), capacity.Config{
		CapacitySearch: results.CapacitySearch{SLOs: []results.Threshold{slo}, Start: 4, Max: 256,
			ProbeDuration: 30 * time.Second, Precision: 0.05},
		OnProbe: func(p results.CapacityProbe) { fmt.Printf("%v req/s pass=%v\n", p.Load, p.Pass) },
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("capacity %.4g req/s (%s)\n", res.Capacity, res.Status)
	// Output:
	// 4 req/s pass=true
	// 8 req/s pass=true
	// 16 req/s pass=true
	// 32 req/s pass=true
	// 64 req/s pass=false
	// 48 req/s pass=false
	// 40 req/s pass=true
	// 44 req/s pass=true
	// 46 req/s pass=false
	// capacity 45 req/s (found)
}
