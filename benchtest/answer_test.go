package benchtest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/benchtest"
	"github.com/benchserve/benchserve/fixtures"
)

// workloadEnv names the workload TestInnerWorkload runs (an absolute
// path: the inner binary runs in a temporary directory, so the
// NoCacheFile marker it writes there never lands in the source tree).
const workloadEnv = "BENCHTEST_WORKLOAD"

func TestInnerWorkload(t *testing.T) {
	if os.Getenv(innerEnv) == "" {
		t.Skip("runs only inside TestRunWorkloadSaysWhatTheAnswerWas (re-executed test binary)")
	}
	benchtest.RunWorkload(t, os.Getenv(workloadEnv))
}

// TestRunWorkloadSaysWhatTheAnswerWas: the test log shows reasoning beside
// content, null rates with their reason for a burst, the refusal, and a
// cache reset the server refused; and a run against a real server leaves
// the NoCacheFile marker, set ahead in time, in the working directory.
func TestRunWorkloadSaysWhatTheAnswerWas(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{NoCacheReset: true})
	abs, err := filepath.Abs("testdata/shapes.json")
	require.NoError(t, err, "workload path")
	dir := t.TempDir()
	cmd := innerWorkload(dir, innerEnv+"=1", workloadEnv+"="+abs, "BENCHSERVE_URL="+srv.URL, "BENCHSERVE_CACHE_POLICY=before-run")
	b, err := cmd.CombinedOutput()
	out := string(b)
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "the refusing case fails: %s", out)

	assert.Contains(t, out, `benchtest: cache reset before-run refused: DELETE /v1/cache: HTTP 404 (404 page not found); the server's cache was not cleared, so "before-run" measured as "preserve"`,
		"a refused cache reset is said in the test log")
	assert.Regexp(t, `content_chars=0 reasoning_chars=\d{3,} reasoning_chunks=60`, out, "reasoning beside content")
	assert.Contains(t, out, "note: enable_thinking=false was sent but", "the ignored flag is noted")
	assert.Contains(t, out, `shapes.json: case "thinks": capped: Truncated (finish_reason=length): the answer was reasoning only:`, "the capped answer (the one outcome) says what the answer was")
	assert.Contains(t, out, "--- PASS: TestInnerWorkload/thinks", "a capped answer is not a failure")
	assert.Regexp(t, `tpot_ms=null e2e_latency_ms=[\d.]+ gen_tps=null .* decode_timing=burst \(all \d+ tokens arrived in \d+ chunks within`, out, "a burst's rates are null with the reason")
	assert.NotContains(t, out, "NaN", "no NaN in the log")
	assert.Contains(t, out, `refusal="I'm sorry, but I can't help with that request."`, "the refusal in the log")
	assert.Contains(t, out, `case "refuses": response: refused: I'm sorry`, "the refusal is the failure")

	info, err := os.Stat(filepath.Join(dir, ".benchserve-nocache"))
	require.NoError(t, err, "the marker is in the working directory")
	assert.Greater(t, info.ModTime().Unix(), time.Now().Unix(), "the marker's mtime is ahead of now")
}

// TestRunWorkloadWarnsOfShortAnswersUnderIgnoreEOS: a generator workload
// with ignore_eos against a server that ignores it (the fixture's
// early-stop fault) logs the warning with the numbers, and passes (vLLM
// only reports the lengths; no check asked for them).
func TestRunWorkloadWarnsOfShortAnswersUnderIgnoreEOS(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{Faults: []fixtures.Fault{"early-stop"}})
	dir := t.TempDir()
	wl := filepath.Join(dir, "short.json")
	require.NoError(t, os.WriteFile(wl, []byte(`{"name": "short", "generator": {"name": "random", "num_prompts": 2, "seed": 1,
		"random_input_len": 32, "random_output_len": 600, "ignore_eos": true}}`), 0o600))
	cmd := innerWorkload(dir, innerEnv+"=1", workloadEnv+"="+wl, "BENCHSERVE_URL="+srv.URL)
	b, err := cmd.CombinedOutput()
	out := string(b)
	require.NoError(t, err, "short answers are a warning, not a failure: %s", out)
	assert.Regexp(t, `benchtest: warning: 2 of 2 answers ended short of the asked output length under ignore_eos: asked 600 tokens \(p50\), got p50 \d+ \(min \d+, max \d+\); finish_reason stop 2`, out)
}

// innerWorkload is TestInnerWorkload run in a child process in dir, with
// the parent's environment less its BENCHSERVE_ settings, plus env.
func innerWorkload(dir string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestInnerWorkload$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BENCHSERVE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	return cmd
}
