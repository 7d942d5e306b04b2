package benchserve_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/benchserve/benchserve/benchtest"
)

// TestWorkload is how a user qualifies a server: one line per
// workload. Without BENCHSERVE_URL it runs against the embedded fixture
// server; with BENCHSERVE_URL=http://host:port it runs against that
// server. Each case is a subtest: go test -run 'TestWorkload$/greet' -v.
func TestWorkload(t *testing.T) {
	benchtest.RunWorkload(t, "workloads/examples/smoke.json")
}

// TestWorkloadExamples runs every other example workload shipped in
// workloads/examples/ (smoke.json is TestWorkload's).
func TestWorkloadExamples(t *testing.T) {
	files, err := filepath.Glob("workloads/examples/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example workloads found in workloads/: %v", err)
	}
	for _, f := range files {
		if filepath.Base(f) == "smoke.json" {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			benchtest.RunWorkload(t, f)
		})
	}
}

// TestWorkloadRealdata runs the reference project's own example workload,
// unchanged, to show benchserve reads the same files.
func TestWorkloadRealdata(t *testing.T) {
	path := filepath.Join("..", "shared", "realdata", "quality-contract-smoke.json")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("reference workload not available at %s (the ../shared/realdata folder is absent): %v", path, err)
	}
	benchtest.RunWorkload(t, path)
}
