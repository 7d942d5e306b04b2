package benchserve_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchserve/benchserve/benchtest"
)

// BenchmarkWorkload benchmarks every example workload in workloads/examples/ at
// concurrency 1 and 4, against the embedded fixture server (its default
// pace: 2 ms to the first token, 1 ms per token) or the server in
// $BENCHSERVE_URL:
//
//	go test -bench Workload -run '^$' .
//	go test -bench 'Workload/workload=smoke/case=greet' -run '^$' -count 5 . | tee new.txt
//
// Sub-benchmarks are named workload=<name>/case=<id>/conc=<n>; each
// reports TTFT, TTFO, TPOT, ITL and E2EL (mean, p50, p95, p99, in ns),
// gen-tok/s, out-tok/s, req/s and failures (see benchtest.BenchWorkload),
// so benchstat can compare two runs (docs/benchmarks.md).
func BenchmarkWorkload(b *testing.B) {
	files, err := filepath.Glob("workloads/examples/*.json")
	if err != nil || len(files) == 0 {
		b.Fatalf("no example workloads in workloads/: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		b.Run("workload="+name, func(b *testing.B) {
			benchtest.BenchWorkload(b, f, benchtest.WithConcurrencyLevels(1, 4))
		})
	}
}

// BenchmarkSweep is the reference's prompt-set sweep as a benchmark: the
// builtin "short" prompt set at concurrency 1 and 4 (sub-benchmarks
// prompts=short/conc=<n>).
func BenchmarkSweep(b *testing.B) {
	benchtest.BenchSweep(b, []string{"short"}, []int{1, 4})
}
