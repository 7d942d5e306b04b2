package bench

import (
	"os"
	"os/exec"
	"regexp"
	"testing"
)

// TestHarnessBenchmarksRun runs the harness benchmarks once each (one
// iteration, the small concurrency levels) in a child process, so that a
// change that makes every streamed request fail — the figures then come
// out NaN with a failures count, not as a test failure — is caught by
// go test ./..., which never runs benchmarks. It checks correctness only;
// the figures are for -bench runs.
func TestHarnessBenchmarksRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the harness benchmarks in a child process")
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$", "-test.benchtime=1x",
		"-test.bench=^(BenchmarkHotPath|BenchmarkTTFTAccuracy/fixture=child/conc=(1|16))$")
	cmd.Env = os.Environ()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("harness benchmarks failed: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`BenchmarkHotPath/fixture=child`).Match(out) {
		t.Fatalf("BenchmarkHotPath did not run:\n%s", out)
	}
	if m := regexp.MustCompile(`\s([1-9][0-9.]*) failures`).FindSubmatch(out); m != nil {
		t.Fatalf("a harness benchmark had %s failed requests:\n%s", m[1], out)
	}
}
