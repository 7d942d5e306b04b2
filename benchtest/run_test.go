package benchtest_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/benchserve/benchserve/benchtest"
	"github.com/benchserve/benchserve/history"
	"github.com/benchserve/benchserve/internal/resultio"
	_ "github.com/benchserve/benchserve/report" // opts in to BENCHSERVE_REPORT (.html)
	"github.com/benchserve/benchserve/results"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// innerEnv marks a re-executed test binary: the Inner tests run only
// there, so that a test can fail on purpose and be inspected from outside.
const innerEnv = "BENCHTEST_INNER"

func TestInnerMixed(t *testing.T) {
	if os.Getenv(innerEnv) == "" {
		t.Skip("runs only inside TestRunWorkload* (re-executed test binary)")
	}
	benchtest.RunWorkload(t, "testdata/mixed.json")
}

func TestInnerBroken(t *testing.T) {
	if os.Getenv(innerEnv) == "" {
		t.Skip("runs only inside TestRunWorkload* (re-executed test binary)")
	}
	benchtest.RunWorkload(t, "testdata/broken.json")
}

func TestInnerSlow(t *testing.T) {
	if os.Getenv(innerEnv) == "" {
		t.Skip("runs only inside TestRunWorkloadKilledByTimeoutKeepsResults (re-executed test binary)")
	}
	benchtest.RunWorkload(t, "testdata/slow.json")
}

// runInner re-executes this test binary for one Inner test with extra
// environment, returning its verbose output and whether it passed.
func runInner(t *testing.T, test string, env ...string) (string, bool) {
	t.Helper()
	return runInnerArgs(t, test, nil, env...)
}

// runInnerArgs is runInner with extra test flags.
func runInnerArgs(t *testing.T, test string, args []string, env ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^" + test + "$", "-test.v", "-test.count=1"}, args...)...)
	// The developer's own BENCHSERVE_* settings must not leak into the
	// inner run: only the test's env applies.
	var base []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BENCHSERVE_") {
			base = append(base, kv)
		}
	}
	cmd.Env = append(base, append([]string{innerEnv + "=1"}, env...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "inner test binary failed to run: %s", out)
	}
	return string(out), err == nil
}

func TestRunWorkloadOneSubtestPerCaseWithPreciseFailures(t *testing.T) {
	out, ok := runInner(t, "TestInnerMixed")
	assert.False(t, ok, "a failing check fails the test")
	assert.Contains(t, out, "--- PASS: TestInnerMixed/passes", "one subtest per case, named by case id")
	assert.Contains(t, out, "--- FAIL: TestInnerMixed/too-short")
	assert.Contains(t, out, `testdata/mixed.json: case "too-short": checks.min_chars: content shorter than min_chars=100000 (content has `,
		"the failure names file, case and check, with the measured value")
	assert.Contains(t, out, "ttft_ms=", "measurements are logged per case")
	assert.NotContains(t, out, `case "passes"`, "the passing case reports no failure")
}

func TestRunWorkloadRepetitionsAndTags(t *testing.T) {
	out, _ := runInner(t, "TestInnerMixed", "BENCHSERVE_REPETITIONS=2", "BENCHSERVE_TAGS=good")
	assert.Contains(t, out, "--- PASS: TestInnerMixed/passes/rep=0")
	assert.Contains(t, out, "--- PASS: TestInnerMixed/passes/rep=1")
	assert.NotContains(t, out, "too-short", "the tag filter drops the untagged case")
}

func TestRunWorkloadConcurrency(t *testing.T) {
	out, ok := runInner(t, "TestInnerMixed", "BENCHSERVE_CONCURRENCY=2", "BENCHSERVE_TAGS=good", "BENCHSERVE_REPETITIONS=3")
	assert.True(t, ok, "all passing: %s", out)
	for _, rep := range []string{"0", "1", "2"} {
		assert.Contains(t, out, "--- PASS: TestInnerMixed/conc=2/passes/rep="+rep)
	}
}

func TestRunWorkloadWritesOutputEvenWhenCasesFail(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	_, ok := runInner(t, "TestInnerMixed", "BENCHSERVE_OUTPUT="+path)
	assert.False(t, ok)
	data, err := os.ReadFile(path)
	require.NoError(t, err, "the results file is written despite the failure")
	var p struct {
		Summary struct {
			CaseCount    int  `json:"case_count"`
			FailureCount int  `json:"failure_count"`
			Passed       bool `json:"passed"`
		} `json:"summary"`
		Results []struct {
			CaseID string `json:"case_id"`
			OK     bool   `json:"ok"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal(data, &p))
	assert.Equal(t, 2, p.Summary.CaseCount)
	assert.Equal(t, 1, p.Summary.FailureCount)
	assert.False(t, p.Summary.Passed)
	require.Len(t, p.Results, 2)
	assert.Equal(t, "passes", p.Results[0].CaseID)
	assert.True(t, p.Results[0].OK)
	assert.False(t, p.Results[1].OK)
}

func TestRunWorkloadCSVAndSQLiteOutput(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "out.csv")
	runInner(t, "TestInnerMixed", "BENCHSERVE_OUTPUT="+csvPath)
	data, err := os.ReadFile(csvPath)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	assert.Len(t, lines, 3, "header and two rows")
	assert.True(t, strings.HasPrefix(lines[0], "run_id,timestamp,workload,case_id,"), "reference column order")

	db := filepath.Join(dir, "runs.db")
	runInner(t, "TestInnerMixed", "BENCHSERVE_OUTPUT="+db)
	runInner(t, "TestInnerMixed", "BENCHSERVE_OUTPUT="+db)
	rows, err := history.ReadRows(context.Background(), db, resultio.WorkloadTable)
	require.NoError(t, err, "SQLite file written")
	assert.Len(t, rows, 4, "two runs of two cases, appended")
}

func TestRunWorkloadLoadErrorNamesEveryProblem(t *testing.T) {
	out, ok := runInner(t, "TestInnerBroken")
	assert.False(t, ok)
	assert.Contains(t, out, "benchtest: workload did not load")
	assert.Contains(t, out, `case "a"`, "names the case")
	assert.Contains(t, out, "max_token", "names the unknown field")
	assert.Contains(t, out, "min_chars", "and the second case's bad check")
}

func TestRunWorkloadBadEnvironment(t *testing.T) {
	out, ok := runInner(t, "TestInnerMixed", "BENCHSERVE_REPETITIONS=two")
	assert.False(t, ok)
	assert.Contains(t, out, `$BENCHSERVE_REPETITIONS="two": want a positive integer`)
}

func TestRunWorkloadReturnsPayload(t *testing.T) {
	p := benchtest.RunWorkload(t, "../workloads/examples/tools.json", benchtest.WithURL(""), benchtest.WithTags("tools"))
	require.Len(t, p.Results, 2)
	assert.True(t, p.Summary.Passed)
	tc := p.Results[0].ToolCalls
	require.NotNil(t, tc, "the weather case streamed a tool call")
	assert.Equal(t, []string{"get_weather"}, tc.Names)
	assert.Equal(t, "tools", p.Workload.Name)
}

func TestRunWorkloadWritesReport(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.html")
	runInner(t, "TestInnerMixed", "BENCHSERVE_REPORT="+path)
	data, err := os.ReadFile(path)
	require.NoError(t, err, "the HTML report is written after the run")
	html := string(data)
	assert.Contains(t, html, "too-short", "the failing case is in the report")
	assert.Contains(t, html, "content shorter than min_chars=100000", "with its failing check")
	assert.Contains(t, html, `id="benchserve-data"`, "and the data behind the charts")
	assert.NotContains(t, html, "https://", "self-contained: no external resources")
}

func TestInnerSLO(t *testing.T) {
	if os.Getenv(innerEnv) == "" {
		t.Skip("runs only inside TestRunWorkloadSLO (re-executed test binary)")
	}
	benchtest.RunWorkload(t, "testdata/mixed.json", benchtest.WithTags("good"),
		benchtest.WithSLO("ttft_p95_ms <= 600000", "e2el_max_ms <= 0.001"))
}

func TestRunWorkloadSLO(t *testing.T) {
	out, ok := runInner(t, "TestInnerSLO")
	assert.False(t, ok, "an unmet SLO fails the test")
	assert.Contains(t, out, "--- PASS: TestInnerSLO/slo/ttft_p95_ms<=600000", "each threshold is its own subtest")
	assert.Contains(t, out, "--- FAIL: TestInnerSLO/slo/e2el_max_ms<=0.001")
	assert.Regexp(t, `e2el_max_ms = [0-9.]+, want <= 0.001`, out, "the failure carries the measured value")
	assert.Contains(t, out, "--- PASS: TestInnerSLO/passes", "the case itself passed")
}

// TestRunWorkloadStopsBeforeTheTimeout: go test's -timeout panics the
// binary and no cleanup runs; RunWorkload stops sending shortly before it,
// so the output holds every finished case, the case in flight is recorded
// as interrupted (out of the statistics) and the rest are skipped.
func TestRunWorkloadStopsBeforeTheTimeout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "partial.json")
	out, ok := runInnerArgs(t, "TestInnerSlow", []string{"-test.timeout=3s"}, "BENCHSERVE_OUTPUT="+path)
	assert.False(t, ok)
	assert.NotContains(t, out, "test timed out", "the binary was not killed: it stopped first")
	assert.Contains(t, out, "not run: go test's -timeout is near", "the remaining cases say why they were skipped")
	p := readPayloadFile(t, path)
	require.NotEmpty(t, p.Results, "at least the first case finished before the timeout")
	assert.Equal(t, "s1", p.Results[0].CaseID)
	assert.Less(t, len(p.Results), 4, "and the run was really cut short")
	last := p.Results[len(p.Results)-1]
	if len(p.Results) > 1 {
		assert.True(t, last.Interrupted, "the case in flight at the deadline is marked interrupted")
	}
	assert.NoFileExists(t, resultio.JournalPath(path), "the output was written, the journal removed")
}

// TestRunWorkloadRemovesJournalWhenWritten: a finished run writes its
// output and leaves no journal behind.
func TestRunWorkloadRemovesJournalWhenWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.json")
	_, ok := runInner(t, "TestInnerTwoWorkloads", "BENCHSERVE_OUTPUT="+path)
	require.True(t, ok)
	assert.FileExists(t, path, "the output is written")
	assert.NoFileExists(t, resultio.JournalPath(path), "and its journal removed")
}

// TestRunWorkloadConcurrencyHonoursRun: with concurrency > 1 the requests
// are sent before the subtests run, so -run must be applied up front: a
// filtered run sends (and records) only the selected cases.
func TestRunWorkloadConcurrencyHonoursRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "filtered.json")
	out, ok := runInnerArgs(t, "TestInnerMixed", []string{"-test.run=^TestInnerMixed$/conc=2/passes"},
		"BENCHSERVE_CONCURRENCY=2", "BENCHSERVE_REPETITIONS=2", "BENCHSERVE_OUTPUT="+path)
	assert.True(t, ok, "only the passing case runs: %s", out)
	assert.Contains(t, out, "--- PASS: TestInnerMixed/conc=2/passes/rep=1")
	assert.NotContains(t, out, "too-short", "the other case is not even reported")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var p struct {
		Results []struct {
			CaseID string `json:"case_id"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal(data, &p))
	ids := []string{}
	for _, r := range p.Results {
		ids = append(ids, r.CaseID)
	}
	assert.Equal(t, []string{"passes", "passes"}, ids, "two repetitions of the selected case, nothing else was requested")

	out, _ = runInnerArgs(t, "TestInnerMixed", []string{"-test.skip=^TestInnerMixed$/conc=2/too-short"},
		"BENCHSERVE_CONCURRENCY=2", "BENCHSERVE_OUTPUT="+path)
	assert.Contains(t, out, "--- PASS: TestInnerMixed/conc=2/passes")
	assert.NotContains(t, out, "--- FAIL", "-skip drops the failing case")
	data, err = os.ReadFile(path)
	require.NoError(t, err)
	p.Results = nil
	require.NoError(t, json.Unmarshal(data, &p))
	require.Len(t, p.Results, 1, "the skipped case sent no request")
	assert.Equal(t, "passes", p.Results[0].CaseID)
}

func TestSplitPatternAndMatch(t *testing.T) {
	assert.Equal(t, []string{"^A$", "b[/]c", "(x/y)"}, benchtest.SplitPatternForTest("^A$/b[/]c/(x/y)"))
}

func TestInnerCollidingIDs(t *testing.T) {
	if os.Getenv(innerEnv) == "" {
		t.Skip("runs only inside TestRunWorkloadRejectsCollidingSubtestNames (re-executed test binary)")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "collide.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"cases":[
		{"id":"with space","messages":[{"role":"user","content":"a"}]},
		{"id":"with_space","messages":[{"role":"user","content":"b"}]}]}`), 0o644))
	benchtest.RunWorkload(t, path)
}

func TestRunWorkloadRejectsCollidingSubtestNames(t *testing.T) {
	out, ok := runInner(t, "TestInnerCollidingIDs")
	assert.False(t, ok)
	assert.Contains(t, out, `case ids "with space" and "with_space" both become the subtest name "with_space"`)
	assert.NotContains(t, out, "=== RUN   TestInnerCollidingIDs/with_space", "nothing runs")
}

func TestInnerTwoWorkloads(t *testing.T) {
	if os.Getenv(innerEnv) == "" {
		t.Skip("runs only inside TestRunWorkloadSharedOutput (re-executed test binary)")
	}
	t.Run("first", func(t *testing.T) { benchtest.RunWorkload(t, "testdata/mixed.json", benchtest.WithTags("good")) })
	t.Run("second", func(t *testing.T) { benchtest.RunWorkload(t, "../workloads/examples/smoke.json") })
}

// TestRunWorkloadSharedOutput: several RunWorkload calls of one test
// binary with one BENCHSERVE_OUTPUT lose no record: the first writes the
// file, a later one writes beside it under its test name; a directory gets
// one file per call; a SQLite history gets every call's rows.
func TestRunWorkloadSharedOutput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.json")
	_, ok := runInner(t, "TestInnerTwoWorkloads", "BENCHSERVE_OUTPUT="+out)
	require.True(t, ok, "both workloads pass")
	first := readPayloadFile(t, out)
	assert.Equal(t, "mixed", first.Workload.Name, "the first call wrote the file as given")
	second := readPayloadFile(t, filepath.Join(dir, "x.TestInnerTwoWorkloads_second.json"))
	assert.Equal(t, "smoke", second.Workload.Name, "the second call wrote beside it, under its test name")
	assert.Len(t, second.Results, 3, "every record of the second workload")

	outDir := filepath.Join(dir, "runs") + "/"
	_, ok = runInner(t, "TestInnerTwoWorkloads", "BENCHSERVE_OUTPUT="+outDir)
	require.True(t, ok)
	assert.Equal(t, "mixed", readPayloadFile(t, filepath.Join(outDir, "TestInnerTwoWorkloads_first.json")).Workload.Name, "a directory gets one file per call")
	assert.Equal(t, "smoke", readPayloadFile(t, filepath.Join(outDir, "TestInnerTwoWorkloads_second.json")).Workload.Name)

	db := filepath.Join(dir, "h.db")
	_, ok = runInner(t, "TestInnerTwoWorkloads", "BENCHSERVE_OUTPUT="+db)
	require.True(t, ok)
	rows, err := history.ReadRows(context.Background(), db, resultio.WorkloadTable)
	require.NoError(t, err, "the history exists")
	assert.Len(t, rows, len(first.Results)+3, "both calls appended their rows")
}

func readPayloadFile(t *testing.T, path string) results.Payload {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err, "results file %s", path)
	var p results.Payload
	require.NoError(t, json.Unmarshal(data, &p), "results file %s is a payload", path)
	return p
}

func TestInnerLoad(t *testing.T) {
	if os.Getenv(innerEnv) == "" {
		t.Skip("runs only inside TestRunWorkloadLoad (re-executed test binary)")
	}
	benchtest.RunWorkload(t, "testdata/mixed.json")
}

// TestRunWorkloadLoad: the BENCHSERVE_REQUEST_RATE family turns RunWorkload
// into an open loop over the cases, every request judged by its case's
// checks, every failure named by case and repetition, the schedule in the
// payload.
func TestRunWorkloadLoad(t *testing.T) {
	out := filepath.Join(t.TempDir(), "load.json")
	log, ok := runInner(t, "TestInnerLoad", "BENCHSERVE_REQUEST_RATE=50", "BENCHSERVE_NUM_PROMPTS=8", "BENCHSERVE_SEED=2", "BENCHSERVE_OUTPUT="+out)
	assert.False(t, ok, "the too-short case fails under load too")
	assert.Contains(t, log, "--- FAIL: TestInnerLoad/load", "one load subtest")
	assert.Regexp(t, `testdata/mixed.json: case "too-short" rep \d: checks.min_chars`, log, "each failure names its case and repetition")
	assert.Regexp(t, `load: 8 requests, achieved [\d.e+]+ req/s`, log, "the schedule is logged")
	p := readPayloadFile(t, out)
	assert.Len(t, p.Results, 8, "every request recorded")
	require.NotNil(t, p.Schedule, "with its schedule")
	assert.Equal(t, uint64(2), p.Schedule.Seed)

	log, ok = runInner(t, "TestInnerLoad", "BENCHSERVE_REQUEST_RATE=fast")
	assert.False(t, ok)
	assert.Contains(t, log, `$BENCHSERVE_REQUEST_RATE="fast": want requests per second or inf`, "a bad variable is named")
}

func TestInnerOwnWorkload(t *testing.T) {
	if os.Getenv(innerEnv) == "" {
		t.Skip("runs only inside TestRunWorkloadNeverOverwritesItsInput")
	}
	benchtest.RunWorkload(t, os.Getenv("INNER_WORKLOAD"))
}

// TestRunWorkloadNeverOverwritesItsInput: BENCHSERVE_OUTPUT naming the
// workload file, or one of its request files, fails before anything is
// sent and leaves the file as it was.
func TestRunWorkloadNeverOverwritesItsInput(t *testing.T) {
	dir := t.TempDir()
	req := filepath.Join(dir, "req.json")
	require.NoError(t, os.WriteFile(req, []byte(`{"messages": [{"role": "user", "content": "hi"}]}`), 0o644))
	wl := filepath.Join(dir, "w.json")
	body := `{"cases": [{"id": "a", "request_path": "req.json"}]}`
	require.NoError(t, os.WriteFile(wl, []byte(body), 0o644))
	for _, out := range []string{wl, req} {
		log, ok := runInner(t, "TestInnerOwnWorkload", "INNER_WORKLOAD="+wl, "BENCHSERVE_OUTPUT="+out)
		assert.False(t, ok, "output %s is refused", out)
		assert.Contains(t, log, "is the same file as the workload input", "the failure says why")
	}
	data, err := os.ReadFile(wl)
	require.NoError(t, err)
	assert.Equal(t, body, string(data), "the workload is intact")
	data, err = os.ReadFile(req)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"messages"`, "the request file is intact")
}
