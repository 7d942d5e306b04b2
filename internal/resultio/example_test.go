package resultio_test

import (
	"fmt"

	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/results"
)

func ExampleFormat() {
	stop := "stop"
	p := resultio.BuildPayload(resultio.PayloadInput{
		RunID:     "0badc0de",
		Timestamp: "2025-01-02T03:04:05+00:00",
		Workload:  results.WorkloadInfo{Name: "smoke", Repetitions: 1},
		CacheMode: "none",
		Records: []results.Record{{
			CaseID:  "greet",
			Tags:    []string{"smoke"},
			Metrics: results.Metrics{TTFTms: 12.34, E2ELms: 250, GenTPS: 48.25},
			Quality: results.Quality{OK: true, Issues: []string{}, FinishReason: &stop},
			OK:      true,
		}},
	})
	table, err := resultio.Format(p, "table")
	if err != nil {
		panic(err)
	}
	fmt.Println(string(table))
	fmt.Println(p.Summary.Passed, p.Summary.LatencyMS.P50)
	// Output:
	// case_id      repetition  tags    quality_ok    within_policy_timeout      ttft_ms    gen_tps    e2e_latency_ms  cache_hits    tokens_saved    finish_reason
	// ---------  ------------  ------  ------------  -----------------------  ---------  ---------  ----------------  ------------  --------------  ---------------
	// greet                 0  smoke   True                                        12.3       48.2               250                                stop
	// true 250
}
