package benchtest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/benchtest"
	"github.com/benchserve/benchserve/results"
)

// dist is a results.Dist with the reported fields set; every value differs
// from every other in the test so that a figure reported under the wrong
// name cannot match. Values in ms are exact in binary, and so are their
// ns (×1e6) counterparts.
func dist(count int, mean, p50, p95, p99 float64) results.Dist {
	return results.Dist{Count: count, Mean: mean, Median: p50, P50: p50, P90: (p50 + p95) / 2, P95: p95, P99: p99,
		Min: p50 / 2, Max: p99 * 2, Stddev: 0.25}
}

// reported runs ReportStats in a real benchmark and returns what it
// reported, unit -> value.
func reported(st results.LoadStats) map[string]float64 {
	r := testing.Benchmark(func(b *testing.B) { benchtest.ReportStats(b, st) })
	return r.Extra
}

func TestReportStats(t *testing.T) {
	tests := []struct {
		name string
		st   results.LoadStats
		want map[string]float64
	}{
		{
			name: "every_distribution_and_goodput",
			st: results.LoadStats{
				Requests: 20, Succeeded: 17, Failed: 2, Dropped: 1, Unsent: 4, Late: 5,
				TTFT:              dist(17, 100, 90, 180, 250),
				TTFO:              dist(16, 110, 95, 190, 260),
				TPOT:              dist(15, 20, 19, 30, 40),
				ITL:               dist(300, 21, 18, 31, 41.5),
				E2EL:              dist(17, 1000, 950, 1800, 2500),
				GenTPS:            dist(15, 48.5, 50, 60, 70),
				Lag:               dist(20, 3, 2, 7, 9),
				RequestThroughput: 4.25,
				OutputTokens:      1234,
				OutputThroughput:  312.5,
				Goodput:           3.75,
				GoodputSLO:        &results.GoodputSLO{TTFTms: 200},
			},
			want: map[string]float64{
				"ttft-ns/op": 100e6, "ttft-p50-ns/op": 90e6, "ttft-p95-ns/op": 180e6, "ttft-p99-ns/op": 250e6,
				"ttfo-ns/op": 110e6, "ttfo-p50-ns/op": 95e6, "ttfo-p95-ns/op": 190e6, "ttfo-p99-ns/op": 260e6,
				"tpot-ns/op": 20e6, "tpot-p50-ns/op": 19e6, "tpot-p95-ns/op": 30e6, "tpot-p99-ns/op": 40e6,
				"itl-ns/op": 21e6, "itl-p50-ns/op": 18e6, "itl-p95-ns/op": 31e6, "itl-p99-ns/op": 41.5e6,
				"e2el-ns/op": 1000e6, "e2el-p50-ns/op": 950e6, "e2el-p95-ns/op": 1800e6, "e2el-p99-ns/op": 2500e6,
				"gen-tok/s":     48.5,
				"out-tok/s":     312.5,
				"req/s":         4.25,
				"failures":      3, // Failed + Dropped; Unsent and Late are not failures
				"goodput-req/s": 3.75,
			},
		},
		{
			name: "empty_distributions_absent_no_goodput",
			st: results.LoadStats{
				Requests: 5, Succeeded: 1, Failed: 4, Dropped: 2,
				TTFT:              dist(1, 12.5, 12.5, 12.5, 12.5),
				E2EL:              dist(1, 62.5, 62.5, 62.5, 62.5),
				RequestThroughput: 0.5,
				OutputThroughput:  0.5,
			},
			want: map[string]float64{
				"ttft-ns/op": 12.5e6, "ttft-p50-ns/op": 12.5e6, "ttft-p95-ns/op": 12.5e6, "ttft-p99-ns/op": 12.5e6,
				"e2el-ns/op": 62.5e6, "e2el-p50-ns/op": 62.5e6, "e2el-p95-ns/op": 62.5e6, "e2el-p99-ns/op": 62.5e6,
				"out-tok/s": 0.5,
				"req/s":     0.5,
				"failures":  6, // 4 failed + 2 dropped
			},
		},
		{
			name: "nothing_measured",
			st:   results.LoadStats{Dropped: 7},
			want: map[string]float64{"out-tok/s": 0, "req/s": 0, "failures": 7},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, reported(tc.st), "ReportStats reports exactly these units and values")
		})
	}
}
