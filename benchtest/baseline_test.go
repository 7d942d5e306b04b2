package benchtest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/benchtest"
	"github.com/benchserve/benchserve/fixtures"
)

// TestBaselineChild is run by TestBaseline in a child process: one case
// 20 times against a fixture whose TTFT is $BASELINE_TTFT_MS, compared
// with the baseline at $BASELINE_PATH.
func TestBaselineChild(t *testing.T) {
	if os.Getenv(childEnv) != "baseline" {
		t.Skip("run by TestBaseline in a child process")
	}
	ms, err := strconv.Atoi(os.Getenv("BASELINE_TTFT_MS"))
	require.NoError(t, err)
	timing := fixtures.Timing{TTFT: time.Duration(ms) * time.Millisecond, TokenDelay: time.Millisecond}
	benchtest.RunWorkload(t, os.Getenv("BASELINE_WORKLOAD"), benchtest.WithRepetitions(20),
		benchtest.WithFixture(fixtures.Options{Timing: &timing}),
		benchtest.Baseline(os.Getenv("BASELINE_PATH"), "ttft_p50_ms +10%", "tpot_p50_ms +50%", "e2el_p99_ms +50%"))
}

func runBaselineChild(t *testing.T, dir string, ttftMS int, update bool) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestBaselineChild$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"=baseline", "BASELINE_TTFT_MS="+strconv.Itoa(ttftMS),
		"BASELINE_PATH="+filepath.Join(dir, "base.json"), "BASELINE_WORKLOAD="+filepath.Join(dir, "w.json"))
	if update {
		cmd.Env = append(cmd.Env, "BENCHSERVE_UPDATE_BASELINE=1")
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// A baseline written with BENCHSERVE_UPDATE_BASELINE=1, then a run whose
// TTFT tripled: the gated TTFT subtest fails, the TPOT one (unchanged)
// passes, and the p99 gate, which 20 requests a side cannot decide, fails
// as undecided rather than passing unseen.
func TestBaseline(t *testing.T) {
	leakCheck(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "w.json"), []byte(`{"name":"greet","cases":[
		{"id":"greet","max_tokens":8,"checks":{"finish_reason":["stop","length"]},"messages":[{"role":"user","content":"Say hello."}]}]}`), 0o644))

	out, err := runBaselineChild(t, dir, 20, false)
	require.Error(t, err, "no baseline yet:\n%s", out)
	assert.Contains(t, out, "base.json does not exist: run once with BENCHSERVE_UPDATE_BASELINE=1 to write it")

	out, err = runBaselineChild(t, dir, 20, true)
	require.NoError(t, err, "writing the baseline passes:\n%s", out)
	assert.Contains(t, out, "benchtest: baseline written to ")
	require.FileExists(t, filepath.Join(dir, "base.json"))

	out, err = runBaselineChild(t, dir, 60, false)
	require.Error(t, err, "a tripled TTFT fails:\n%s", out)
	for _, want := range []string{
		"--- FAIL: TestBaselineChild/baseline/ttft_p50_ms",
		`benchtest: baseline ttft_p50_ms +10%: case "greet": +`,
		"--- PASS: TestBaselineChild/baseline/tpot_p50_ms",
		"--- FAIL: TestBaselineChild/baseline/e2el_p99_ms",
		"benchtest: baseline gate undecided: e2el_p99_ms +50%: no row decided: the e2el_p99_ms row had too few samples",
		"--- PASS: TestBaselineChild/baseline/regressions",
	} {
		assert.Contains(t, out, want, "child output has %q", want)
	}
}

// TestConformanceBaselineChild is run by TestConformanceBaseline: the
// conformance suite against a fixture with the faults in
// $BASELINE_FAULTS, compared with the baseline at $BASELINE_PATH.
func TestConformanceBaselineChild(t *testing.T) {
	if os.Getenv(childEnv) != "conformance-baseline" {
		t.Skip("run by TestConformanceBaseline in a child process")
	}
	var faults []fixtures.Fault
	if f := os.Getenv("BASELINE_FAULTS"); f != "" {
		faults = append(faults, fixtures.Fault(f))
	}
	benchtest.RunConformance(t, benchtest.WithFixture(fixtures.Options{Faults: faults, Timing: &fixtures.Timing{}}),
		benchtest.Baseline(os.Getenv("BASELINE_PATH")))
}

// A baseline of a conforming fixture, then a run whose server ignores n
// (a SHOULD: pass → warn is listed, not a regression) and one whose
// stream ends without [DONE] (a MUST: pass → fail fails
// baseline/regressions, naming the contract).
func TestConformanceBaseline(t *testing.T) {
	leakCheck(t)
	path := filepath.Join(t.TempDir(), "conformance-base.json")
	child := func(faults string, update bool) (string, error) {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestConformanceBaselineChild$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), childEnv+"=conformance-baseline", "BASELINE_PATH="+path, "BASELINE_FAULTS="+faults)
		if update {
			cmd.Env = append(cmd.Env, "BENCHSERVE_UPDATE_BASELINE=1")
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := child("", true)
	require.NoError(t, err, "the conforming fixture passes and writes the baseline:\n%s", out)
	out, err = child("", false)
	require.NoError(t, err, "the same server against its baseline passes:\n%s", out)
	assert.Contains(t, out, "--- PASS: TestConformanceBaselineChild/baseline/regressions")
	out, err = child("ignore-n", false)
	require.NoError(t, err, "a SHOULD that broke does not fail:\n%s", out)
	assert.Contains(t, out, `contract "choices.n": pass → warn`, "the change is listed in the comparison")
	assert.Contains(t, out, "--- PASS: TestConformanceBaselineChild/baseline/regressions")
	out, err = child("no-done", false)
	require.Error(t, err, "a MUST that broke fails:\n%s", out)
	assert.Contains(t, out, "--- FAIL: TestConformanceBaselineChild/baseline/regressions")
	assert.Contains(t, out, `regression against the baseline: contract "stream.framing": pass in the base, fail in the candidate`)
}
