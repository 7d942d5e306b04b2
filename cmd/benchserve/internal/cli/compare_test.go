package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/longtest"
	"github.com/benchserve/benchserve/results"
)

// runAt runs the one-case workload wl, 20 repetitions, against a fixture
// whose TTFT is ttft, into dir/name.
func runAt(t *testing.T, wl, dir, name string, ttft time.Duration) string {
	t.Helper()
	srv := fixtures.Start(t, fixtures.Options{Timing: &fixtures.Timing{TTFT: ttft, TokenDelay: time.Millisecond}})
	out := filepath.Join(dir, name)
	res := invoke(t, "--url", srv.URL, "--workload", wl, "--repetitions", "20", "--output", out)
	require.Equal(t, ExitOK, res.code, "the run passes: %s", res.stderr)
	return out
}

func compareWorkload(t *testing.T, dir string) string {
	return writeWorkloadFile(t, dir, "greet.json", `{"name":"greet","cases":[
		{"id":"greet","max_tokens":8,"checks":{"finish_reason":["stop","length"]},"messages":[{"role":"user","content":"Say hello."}]}]}`)
}

func change(t *testing.T, cmp results.Comparison, caseID, metric string) results.Change {
	t.Helper()
	for _, ch := range cmp.Changes {
		if ch.Case == caseID && ch.Metric == metric {
			return ch
		}
	}
	t.Fatalf("no %s row for case %q in %+v", metric, caseID, cmp.Changes)
	return results.Change{}
}

// scripted writes a copy of the payload at template with every request's
// TTFT (and E2E latency by as much) set to ttft ms plus seeded normal
// noise of 1 ms: a server scripted to that TTFT, without the jitter a
// busy machine adds to measured times (TestCompareServedFixture measures
// them, behind BENCHSERVE_LONG).
func scripted(t *testing.T, template, dir, name string, ttft float64, seed uint64) string {
	t.Helper()
	p := readPayload(t, template)
	r := rand.New(rand.NewPCG(seed, 1))
	for i := range p.Results {
		m := &p.Results[i].Metrics
		v := ttft + r.NormFloat64()
		m.E2ELms += v - m.TTFTms
		m.TTFTms = v
	}
	data, err := json.Marshal(p)
	require.NoError(t, err)
	out := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(out, data, 0o644))
	return out
}

// A scripted TTFT of 20 ms against 24 ms, 20 requests a side: worse,
// the interval holds +4 ms, exit 1 under the gate; the same server twice
// is ~ and exit 0.
func TestCompareCallsSlowerTTFTWorse(t *testing.T) {
	dir := t.TempDir()
	wl := compareWorkload(t, dir)
	template := runAt(t, wl, dir, "run.json", time.Millisecond)
	base := scripted(t, template, dir, "base.json", 20, 1)
	again := scripted(t, template, dir, "again.json", 20, 2)
	slow := scripted(t, template, dir, "slow.json", 24, 3)

	res := invoke(t, "compare", "--fail-on", "ttft_p50_ms +10%", "--format", "json", base, slow)
	require.Equal(t, ExitFailed, res.code, "a regression beyond the gate: %s", res.stdout)
	var cmp results.Comparison
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &cmp), "JSON on stdout")
	ch := change(t, cmp, "greet", "ttft_p50_ms")
	assert.Equal(t, "worse", ch.Verdict)
	require.NotNil(t, ch.Low, "a bounded interval")
	assert.LessOrEqual(t, *ch.Low, 4.0, "the interval holds the true +4 ms: [%v, %v]", *ch.Low, *ch.High)
	assert.GreaterOrEqual(t, *ch.High, 4.0, "the interval holds the true +4 ms: [%v, %v]", *ch.Low, *ch.High)
	assert.Len(t, cmp.GateFailures, 1, "the gated metric fails")

	res = invoke(t, "compare", "--fail-on", "ttft_p50_ms +10%", base, again)
	assert.Equal(t, ExitOK, res.code, "the same server twice: %s", res.stdout)
	assert.Regexp(t, `greet\s+ttft_p50_ms\s+\S+\s+\S+\s+.*\s~\n`, res.stdout, "the table calls the TTFT median ~")
	assert.Contains(t, res.stdout, "verdict: no regression")

	// A gate that 20 requests a side cannot decide (a p99) is not "no
	// regression": exit 2, saying which gate and why.
	res = invoke(t, "compare", "--fail-on", "ttft_p99_ms +10%", base, slow)
	assert.Equal(t, ExitUsage, res.code, "undecided: %s", res.stdout)
	assert.Contains(t, res.stdout, "verdict: UNDECIDED")
	assert.Contains(t, res.stderr, "benchserve compare: --fail-on ttft_p99_ms +10%: no row decided: ")

	// Several runs a side, the markdown form.
	res = invoke(t, "compare", "--format", "markdown", base, again, "--", slow)
	assert.Equal(t, ExitFailed, res.code, "without gates a worse row is a regression")
	assert.Contains(t, res.stdout, "| greet | ttft_p50_ms |")
	assert.Contains(t, res.stdout, "**worse**")
}

// greetRun runs the one-case workload "w" (case greet), reps repetitions,
// against a fixture into dir/base.json and returns its path.
func greetRun(t *testing.T, dir string, reps int) string {
	t.Helper()
	srv := fixtures.Start(t, fixtures.Options{})
	wl := writeWorkloadFile(t, dir, "w.json", `{"name":"w","cases":[
		{"id":"greet","max_tokens":8,"checks":{"finish_reason":["stop","length"]},"messages":[{"role":"user","content":"Say hello."}]}]}`)
	base := filepath.Join(dir, "base.json")
	require.Equal(t, ExitOK, invoke(t, "--url", srv.URL, "--workload", wl, "--repetitions", fmt.Sprint(reps), "--output", base).code)
	return base
}

// A case that passes in the base and fails in the candidate exits 1
// whatever the numbers.
func TestComparePassToFailExits1(t *testing.T) {
	dir := t.TempDir()
	base := greetRun(t, dir, 3)
	// The same run with a failed check in the candidate.
	p := readPayload(t, base)
	p.Results[1].OK, p.Results[1].Quality.OK = false, false
	p.Results[1].Quality.Issues = []string{"checks.min_chars: content has 5 chars, want >= 40"}
	data, err := json.Marshal(p)
	require.NoError(t, err)
	cand := filepath.Join(dir, "cand.json")
	require.NoError(t, os.WriteFile(cand, data, 0o644))
	res := invoke(t, "compare", base, cand)
	assert.Equal(t, ExitFailed, res.code)
	assert.Contains(t, res.stdout, `case "greet": passed in the base (3 of 3), fails in the candidate (1 of 3 failed)`)
}

func TestCompareBadInputExits2NamingFileAndField(t *testing.T) {
	dir := t.TempDir()
	base := greetRun(t, dir, 2)
	p := readPayload(t, base)
	p.Workload.Digest = ""
	data, _ := json.Marshal(p)
	old := filepath.Join(dir, "old.json")
	require.NoError(t, os.WriteFile(old, data, 0o644))
	sweep := filepath.Join(dir, "sweep.json")
	require.NoError(t, os.WriteFile(sweep, []byte(`[{"prompt_set":"short","concurrency":1}]`), 0o644))
	out := filepath.Join(dir, "out.md")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{base, old}, "old.json: workload.digest: missing"},
		{[]string{base, sweep}, "base.json is a workload payload, " + sweep + " is a prompt sweep: compare compares results of one kind"},
		{[]string{base}, "want BASE CANDIDATE"},
		{[]string{"--fail-on", "ttft +10%", base, base}, `unknown metric "ttft"`},
		{[]string{"--allow-different", "color", base, base}, `--allow-different "color"`},
	} {
		res := invoke(t, append([]string{"compare", "--output", out}, tc.args...)...)
		assert.Equal(t, ExitUsage, res.code, "%v", tc.args)
		assert.Contains(t, res.stderr, tc.want, "%v", tc.args)
		assert.NoFileExists(t, out, "nothing written for %v", tc.args)
	}
}

// Against a served fixture, timed by the client on whatever machine runs
// it: 40 pairs of runs of one unchanged server (10 requests a side) are
// called a regression at most 3 times at alpha 0.05, and a TTFT of 20 ms
// against 24 ms with 60 requests a side is called worse.
func TestCompareServedFixture(t *testing.T) {
	longtest.Skip(t, "about 3.5 minutes under -race on a busy 2-core machine: 82 workload runs against fixture servers")
	dir := t.TempDir()
	wl := compareWorkload(t, dir)
	srv := fixtures.Start(t, fixtures.Options{Timing: &fixtures.Timing{TTFT: 5 * time.Millisecond, TokenDelay: time.Millisecond}})
	runOnce := func(name string) string {
		out := filepath.Join(dir, name)
		res := invokeQuiet(t, "--url", srv.URL, "--workload", wl, "--repetitions", "10", "--output", out)
		require.Equal(t, ExitOK, res.code, "the run passes: %s", res.stderr)
		return out
	}
	alarms := 0
	for i := range 40 {
		a, b := runOnce(fmt.Sprintf("a%d.json", i)), runOnce(fmt.Sprintf("b%d.json", i))
		res := invokeQuiet(t, "compare", a, b)
		require.NotEqual(t, ExitUsage, res.code, res.stderr)
		if res.code == ExitFailed {
			alarms++
			t.Logf("pair %d called a regression:\n%s", i, res.stdout)
		}
	}
	assert.LessOrEqual(t, alarms, 3, "false alarms of 40 pairs at alpha 0.05")

	run := func(name string, ttft time.Duration) string {
		s := fixtures.Start(t, fixtures.Options{Timing: &fixtures.Timing{TTFT: ttft, TokenDelay: time.Millisecond}})
		out := filepath.Join(dir, name)
		res := invokeQuiet(t, "--url", s.URL, "--workload", wl, "--repetitions", "60", "--output", out)
		require.Equal(t, ExitOK, res.code, res.stderr)
		return out
	}
	base, slow := run("base.json", 20*time.Millisecond), run("slow.json", 24*time.Millisecond)
	res := invokeQuiet(t, "compare", "--fail-on", "ttft_p50_ms +10%", "--format", "json", base, slow)
	assert.Equal(t, ExitFailed, res.code, "20 ms against 24 ms: %s", res.stdout)
	var cmp results.Comparison
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &cmp))
	assert.Equal(t, "worse", change(t, cmp, "greet", "ttft_p50_ms").Verdict)
}

// invokeQuiet runs benchserve without logging its output (the long test
// runs it a hundred times).
func invokeQuiet(t *testing.T, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(string) string { return "" }})
	return result{code, out.String(), errb.String()}
}
