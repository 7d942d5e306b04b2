package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/load"
	"github.com/benchserve/benchserve/results"
)

// invokeEnv runs benchserve with a fixed environment (getenv) instead of
// the process's.
func invokeEnv(t *testing.T, environ map[string]string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(k string) string { return environ[k] }})
	t.Logf("benchserve %s -> %d\nstderr:\n%s", strings.Join(args, " "), code, errb.String())
	return result{code, out.String(), errb.String()}
}

// readPayload decodes a workload payload file.
func readPayload(t *testing.T, path string) results.Payload {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err, "results file %s exists", path)
	var p results.Payload
	require.NoError(t, json.Unmarshal(data, &p), "results file %s is a JSON payload", path)
	return p
}

// writeWorkloadFile writes a workload JSON file in dir and returns its path.
func writeWorkloadFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	return path
}

const helpHint = "Run 'benchserve --help' for usage."

func TestWorkloadSLOs(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	out := filepath.Join(dir, "out.json")

	// smoke.json has defaults.slo ["ttft_p95_ms <= 2000", "error_rate <= 0"].
	res := invoke(t, "--url", srv.URL, "--workload", smoke, "--repetitions", "1", "--output", out,
		"--slo", "ttft_p95_ms >= 99999")
	assert.Equal(t, ExitFailed, res.code, "a failed --slo threshold exits 1 although every case passed")
	p := readPayload(t, out)
	assert.True(t, p.Summary.Passed, "the cases themselves passed")
	require.Len(t, p.SLO, 3, "the workload's two thresholds and the --slo one are recorded in the payload")
	assert.Equal(t, []string{"ttft_p95_ms <= 2000", "error_rate <= 0", "ttft_p95_ms >= 99999"},
		[]string{p.SLO[0].Threshold, p.SLO[1].Threshold, p.SLO[2].Threshold}, "workload thresholds first, then --slo, as written")
	assert.Equal(t, []bool{true, true, false}, []bool{p.SLO[0].Pass, p.SLO[1].Pass, p.SLO[2].Pass}, "outcomes recorded")
	require.NotNil(t, p.SLO[0].Measured, "ttft measured")
	ttft := load.Outcome{Measured: *p.SLO[0].Measured}.MeasuredString()
	assert.Contains(t, res.stderr, "SLO ttft_p95_ms <= 2000: PASS (measured "+ttft+")\n", "pass line with the recorded measurement")
	assert.Contains(t, res.stderr, "SLO error_rate <= 0: PASS (measured 0)\n", "scalar threshold line")
	assert.Contains(t, res.stderr, "SLO ttft_p95_ms >= 99999: FAIL (measured "+ttft+", want >= 99999)\n", "fail line says what was wanted")
	assert.Less(t, strings.Index(res.stderr, "SLO ttft_p95_ms <= 2000"), strings.Index(res.stderr, "Workload results written to"),
		"SLO lines come before the results are written (they are part of the payload)")

	res = invoke(t, "--url", srv.URL, "--workload", smoke, "--repetitions", "1", "--output", out, "--slo", "error_rate <= 0.5")
	assert.Equal(t, ExitOK, res.code, "passing thresholds exit 0")
	assert.Contains(t, res.stderr, "SLO error_rate <= 0.5: PASS (measured 0)\n")
	assert.Len(t, readPayload(t, out).SLO, 3, "--slo adds to the workload's thresholds")

	sent := len(srv.ChatRequests())
	res = invoke(t, "--url", srv.URL, "--workload", smoke, "--slo", "ttft_p95 <= 5", "--slo", "bogus")
	assert.Equal(t, ExitUsage, res.code, "a bad --slo expression is a usage error")
	assert.Contains(t, res.stderr, `benchserve: --slo: threshold "ttft_p95 <= 5": ttft is a time: add a unit`, "first bad expression named")
	assert.Contains(t, res.stderr, `benchserve: --slo: threshold "bogus"`, "every bad expression is reported")
	assert.Contains(t, res.stderr, helpHint, "a flag mistake points at --help")
	assert.Len(t, srv.ChatRequests(), sent, "nothing ran for a bad --slo")

	help := invoke(t, "--help")
	assert.Contains(t, help.stderr, "  --slo EXPR\n", "--slo documented in --help")
}

func TestOutputCheckedBeforeRun(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	sent := len(srv.ChatRequests())

	missing := filepath.Join(dir, "no-such-dir", "out.json")
	res := invoke(t, "--url", srv.URL, "--workload", smoke, "--output", missing)
	assert.Equal(t, ExitUsage, res.code, "an --output in a missing directory exits 2")
	assert.Contains(t, res.stderr, "--output "+missing+": directory "+filepath.Dir(missing)+" does not exist")
	assert.NotContains(t, res.stderr, helpHint, "not a flag-syntax problem: no --help hint")

	file := filepath.Join(dir, "plain")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	res = invoke(t, "--url", srv.URL, "--prompts", "short", "--output", filepath.Join(file, "out.csv"))
	assert.Equal(t, ExitUsage, res.code, "an --output under a regular file exits 2 (sweep mode too)")
	assert.Contains(t, res.stderr, "is not a directory")

	notDB := filepath.Join(dir, "notes.db")
	require.NoError(t, os.WriteFile(notDB, []byte("my precious notes, not a database\n"), 0o644))
	res = invoke(t, "--url", srv.URL, "--workload", smoke, "--format", "sqlite", "--output", notDB)
	assert.Equal(t, ExitUsage, res.code, "--format sqlite onto a non-SQLite file exits 2")
	assert.Contains(t, res.stderr, "--output "+notDB+": the file exists and is not a SQLite database", "message names the file")
	data, err := os.ReadFile(notDB)
	require.NoError(t, err)
	assert.Equal(t, "my precious notes, not a database\n", string(data), "the file is left alone")
	res = invoke(t, "--url", srv.URL, "--prompts", "short", "--output", notDB)
	assert.Equal(t, ExitUsage, res.code, "--format auto with .db is sqlite, so the same check applies to sweeps")

	assert.Len(t, srv.ChatRequests(), sent, "no request was sent for any of these")

	empty := filepath.Join(dir, "empty.sqlite")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	res = invoke(t, "--url", srv.URL, "--workload", smoke, "--repetitions", "1", "--format", "sqlite", "--output", empty)
	require.Equal(t, ExitOK, res.code, "an empty file is fine for sqlite")
	rows, err := results.ReadRows(context.Background(), empty, results.WorkloadTable)
	require.NoError(t, err)
	assert.Len(t, rows, 3, "the run was appended to the empty file")
}

func TestFormatAutoFromExtension(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	wl := func(name string) (result, string) {
		out := filepath.Join(dir, name)
		return invoke(t, "--url", srv.URL, "--workload", smoke, "--repetitions", "1", "--output", out), out
	}

	res, db := wl("runs.db")
	require.Equal(t, ExitOK, res.code)
	assert.Contains(t, res.stderr, "Workload SQLite results written to "+db, ".db picks sqlite")
	rows, err := results.ReadRows(context.Background(), db, results.WorkloadTable)
	require.NoError(t, err, ".db output is a SQLite database")
	assert.Len(t, rows, 3)

	for _, ext := range []string{".sqlite", ".sqlite3"} {
		res, out := wl("runs" + ext)
		require.Equal(t, ExitOK, res.code)
		_, err := results.ReadRows(context.Background(), out, results.WorkloadTable)
		assert.NoError(t, err, "%s picks sqlite", ext)
	}

	res, csvOut := wl("runs.CSV")
	require.Equal(t, ExitOK, res.code)
	data, err := os.ReadFile(csvOut)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), strings.Join(results.WorkloadResultColumns, ",")+"\r\n"), ".csv (any case) picks csv")

	res, sqlOut := wl("runs.sql")
	require.Equal(t, ExitOK, res.code)
	data, err = os.ReadFile(sqlOut)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), "CREATE TABLE IF NOT EXISTS bench_serve_workload"), ".sql picks sql")

	res, txtOut := wl("runs.txt")
	require.Equal(t, ExitOK, res.code)
	data, err = os.ReadFile(txtOut)
	require.NoError(t, err)
	assert.Equal(t, results.WorkloadTableColumns, strings.Fields(strings.SplitN(string(data), "\n", 2)[0]), ".txt picks the table")

	res, other := wl("runs.out")
	require.Equal(t, ExitOK, res.code)
	readPayload(t, other) // anything else keeps the reference's json for workloads

	sweepOut := filepath.Join(dir, "sweep.json")
	res = invoke(t, "--url", srv.URL, "--prompts", "short", "--concurrency", "1", "--repetitions", "1", "--warmup", "0", "--output", sweepOut)
	require.Equal(t, ExitOK, res.code)
	data, err = os.ReadFile(sweepOut)
	require.NoError(t, err)
	assert.Equal(t, results.TableColumns, strings.Fields(strings.SplitN(string(data), "\n", 2)[0]), "sweeps keep the reference's auto (table) for .json")

	sweepDB := filepath.Join(dir, "sweep.sqlite")
	res = invoke(t, "--url", srv.URL, "--prompts", "short", "--concurrency", "1", "--repetitions", "1", "--warmup", "0", "--output", sweepDB)
	require.Equal(t, ExitOK, res.code)
	sweepRows, err := results.ReadRows(context.Background(), sweepDB, results.SweepTable)
	require.NoError(t, err, ".sqlite picks sqlite for sweeps")
	assert.Len(t, sweepRows, 1)

	res = invoke(t, "--url", srv.URL, "--workload", smoke, "--repetitions", "1", "--format", "json", "--output", filepath.Join(dir, "explicit.db"))
	require.Equal(t, ExitOK, res.code)
	readPayload(t, filepath.Join(dir, "explicit.db")) // an explicit --format wins over the extension
}

func TestWriteFailureKeepsResults(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.json")
	var once sync.Once
	srv := fixtures.Start(t, fixtures.Options{Responder: func(req fixtures.Request) fixtures.Script {
		// While the run is going, something takes the output's name: a
		// directory, which the final rename cannot replace.
		once.Do(func() {
			_ = os.MkdirAll(filepath.Join(out, "sub"), 0o755)
		})
		return fixtures.DefaultResponder(req)
	}})
	res := invoke(t, "--url", srv.URL, "--workload", smoke, "--repetitions", "1", "--output", out)
	assert.Equal(t, ExitFailed, res.code, "a write failure after the run exits 1")
	assert.Contains(t, res.stderr, "benchserve: writing the results failed: ", "the write error is reported")
	assert.Contains(t, res.stderr, "benchserve: the measured results were kept as JSON in "+out+".partial.json\n", "says where the results went")
	p := readPayload(t, out+".partial.json")
	assert.Len(t, p.Results, 3, "every measured record was kept")
	assert.Len(t, p.SLO, 2, "the SLO outcomes too")
}

func TestWriteFallbackToTempDir(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	path, err := writeFallback(filepath.Join(tmp, "gone", "runs.db"), []byte(`{"ok":true}`))
	require.NoError(t, err, "falls back to the temporary directory")
	assert.Equal(t, tmp, filepath.Dir(path), "written in os.TempDir()")
	assert.True(t, strings.HasPrefix(filepath.Base(path), "benchserve-runs.db-") && strings.HasSuffix(path, ".partial.json"),
		"named after the requested file: %s", path)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, `{"ok":true}`, string(data))

	next := filepath.Join(tmp, "runs.json")
	path, err = writeFallback(next, []byte(`{}`))
	require.NoError(t, err)
	assert.Equal(t, next+".partial.json", path, "next to the requested file when its directory is writable")
}

func TestHelpListsEveryCommand(t *testing.T) {
	res := invoke(t, "--help")
	require.Equal(t, ExitOK, res.code)
	for _, c := range commands {
		listed := strings.Contains(res.stderr, "  benchserve "+c.name) || strings.Contains(res.stderr, "  benchserve ["+c.name+"]")
		assert.True(t, listed, "help lists the %s command", c.name)
		for _, s := range c.synopses {
			assert.Contains(t, res.stderr, "  benchserve "+s.args, "help shows the usage line %q", s.args)
		}
	}
	assert.Contains(t, res.stderr, "  benchserve report [--output report.html]", "the report subcommand is listed")

	ref, err := os.ReadFile("../../REFERENCE.md")
	require.NoError(t, err)
	assert.NotContains(t, string(ref), "will be added", "REFERENCE.md does not promise report as future work")
	for _, want := range []string{"`report`", "`--slo`", "`--case-tag`", "$BENCHSERVE_TAGS", ".partial.json", "SQLite format 3"} {
		assert.Contains(t, string(ref), want, "REFERENCE.md documents %s", want)
	}
}

func TestFailingCaseIssuesPlain(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	wl := writeWorkloadFile(t, dir, "failing.json", `{"name":"failing","cases":[
		{"id":"never","messages":[{"role":"user","content":"Say hello."}],"checks":{"required_regex":["THIS-TEXT-NEVER-APPEARS"],"min_chars":100000}},
		{"id":"broken","messages":[{"role":"user","content":"[fixture:error-500] hi"}]},
		{"id":"fine","messages":[{"role":"user","content":"Say hello."}]}]}`)
	out := filepath.Join(dir, "out.json")
	res := invoke(t, "--url", srv.URL, "--workload", wl, "--repetitions", "1", "--output", out)
	require.Equal(t, ExitFailed, res.code)
	p := readPayload(t, out)
	require.Len(t, p.Results, 3)

	never := p.Results[0].Quality.Issues
	require.Len(t, never, 2, "two failed checks recorded")
	assert.Contains(t, res.stderr, " FAIL (1/3)\n      "+never[0]+"\n      "+never[1]+"\n  [1/1] broken ... ",
		"each issue on its own indented line under the failing case, in the record's order")

	broken := p.Results[1].Quality.Issues
	require.GreaterOrEqual(t, len(broken), 2, "HTTP error and request error recorded")
	assert.True(t, strings.HasPrefix(broken[len(broken)-1], "request error: "), "the request error is the record's last issue")
	var want strings.Builder
	for _, is := range broken {
		want.WriteString("      " + is + "\n")
	}
	assert.Contains(t, res.stderr, " FAIL (2/3)\n"+want.String()+"  [1/1] fine ... ", "request error printed last")
	assert.Regexp(t, `fine \.\.\. \d+ms ok \(3/3\)\n(benchserve|Workload|SLO)`, res.stderr, "no issue lines under a passing case")
}

func TestFailingCaseIssuesLive(t *testing.T) {
	old := stderrIsTerminal
	stderrIsTerminal = func(io.Writer) bool { return true }
	t.Cleanup(func() { stderrIsTerminal = old })

	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	wl := writeWorkloadFile(t, dir, "failing.json", `{"name":"failing","cases":[
		{"id":"never","tags":["x"],"messages":[{"role":"user","content":"Say hello."}],"checks":{"required_regex":["THIS-TEXT-NEVER-APPEARS"]}},
		{"id":"fine","tags":["x"],"messages":[{"role":"user","content":"Say hello."}]},
		{"id":"untagged","messages":[{"role":"user","content":"Say hello."}]}]}`)
	out := filepath.Join(dir, "out.json")
	res := invoke(t, "--url", srv.URL, "--workload", wl, "--repetitions", "2", "--case-tag", "x", "--output", out)
	require.Equal(t, ExitFailed, res.code)
	p := readPayload(t, out)
	require.Len(t, p.Results, 4, "2 tagged cases x 2 repetitions")
	issue := p.Results[0].Quality.Issues[0]

	assert.NotContains(t, res.stderr, "  [1/2] never ... ", "no plain progress lines in live mode")
	assert.Contains(t, res.stderr, "benchserve: done 4/4 cases, 2 failed", "the live total counts the selected cases only")
	tally := strings.Index(res.stderr, "benchserve: done 4/4")
	report := strings.Index(res.stderr, "Failed cases:\n  never\n    [1/2] "+issue+"\n    [2/2] "+issue+"\n")
	assert.True(t, report > tally && tally >= 0, "the issues are printed after Finish, grouped by case")
	assert.NotContains(t, res.stderr, "  fine\n", "passing cases are not listed")
}

func TestUsageHintOnlyForFlagMistakes(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	bad := writeWorkloadFile(t, dir, "bad.json", `{"cases":[{"id":"a","messages":[],"max_token":3}]}`)
	res := invoke(t, "--url", srv.URL, "--workload", bad)
	assert.Equal(t, ExitUsage, res.code)
	assert.Contains(t, res.stderr, `case "a"`, "the workload problem is reported")
	assert.NotContains(t, res.stderr, helpHint, "no --help hint for a workload that does not load")

	res = invoke(t, "--url", srv.URL, "--workload", filepath.Join(dir, "missing.json"))
	assert.Equal(t, ExitUsage, res.code)
	assert.NotContains(t, res.stderr, helpHint, "no --help hint for a missing workload file")

	res = invoke(t, "--url", srv.URL, "--workload", bad, "--repetitions", "0")
	assert.Equal(t, ExitUsage, res.code)
	assert.Contains(t, res.stderr, helpHint, "the hint when a flag was misused too")

	badPrompts := writeWorkloadFile(t, dir, "prompts.json", `{"not":"a list"}`)
	res = invoke(t, "--url", srv.URL, "--prompts", badPrompts)
	assert.Equal(t, ExitUsage, res.code)
	assert.Contains(t, res.stderr, badPrompts, "the prompt file problem is reported")
	assert.NotContains(t, res.stderr, helpHint, "no --help hint for a prompt file that does not load")

	res = invoke(t, "--url", srv.URL, "--prompts", "short", "--concurrency", "x")
	assert.Equal(t, ExitUsage, res.code)
	assert.Contains(t, res.stderr, helpHint, "the hint for a bad flag value in sweep mode")

	res = invoke(t, "--url", srv.URL, "--prompts", "short", "--extra-body", "{nope}")
	assert.Equal(t, ExitUsage, res.code)
	assert.Contains(t, res.stderr, `extra body 0 "{nope}"`)
	assert.Contains(t, res.stderr, helpHint, "a bad --extra-body is a flag mistake")
}

func TestURLNormalized(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	res := invoke(t, "--url", srv.URL+"/v1", "--workload", smoke, "--repetitions", "1", "--format", "csv")
	assert.Equal(t, ExitOK, res.code, "an OpenAI-style .../v1 base URL works in workload mode")
	assert.Equal(t, 4, strings.Count(res.stdout, "\r\n"), "header and 3 records")

	res = invoke(t, "--url", srv.URL+"/v1/", "--prompts", "short", "--concurrency", "1", "--repetitions", "1", "--warmup", "0")
	assert.Equal(t, ExitOK, res.code, "and in sweep mode")
	assert.Contains(t, res.stderr, "Connecting to "+srv.URL+"...\n", "the normalized URL is used")

	for _, mode := range [][]string{{"--workload", smoke}, {"--prompts", "short"}} {
		res = invoke(t, append([]string{"--url", "127.0.0.1:8080"}, mode...)...)
		assert.Equal(t, ExitUsage, res.code, "a URL without scheme is a usage error (%s)", mode[0])
		assert.Contains(t, res.stderr, `benchserve: --url: server URL "127.0.0.1:8080": want http:// or https:// and a host`, "clear message (%s)", mode[0])
		assert.NotContains(t, res.stderr, "cannot reach", "no connection attempted (%s)", mode[0])
	}
}

func TestCaseTagFilter(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	cases := func(res result, out string) []string {
		require.Equal(t, ExitOK, res.code)
		var ids []string
		for _, r := range readPayload(t, out).Results {
			ids = append(ids, r.CaseID)
		}
		return ids
	}
	out := filepath.Join(dir, "out.json")
	base := []string{"--url", srv.URL, "--workload", smoke, "--repetitions", "1", "--output", out}

	res := invoke(t, append(base, "--case-tag", "knowledge")...)
	assert.Equal(t, []string{"explain-tides"}, cases(res, out), "one tag keeps the cases having it")
	assert.Contains(t, res.stderr, "explain-tides ... ", "progress shows the selected case")
	assert.Contains(t, res.stderr, " ok (1/1)\n", "progress total counts the selected cases only")

	res = invoke(t, append(base, "--case-tag", "chat,knowledge")...)
	assert.Equal(t, []string{"explain-tides", "multi-turn"}, cases(res, out), "comma-separated tags: any of them")

	res = invoke(t, append(base, "--case-tag", "chat", "--case-tag", "knowledge")...)
	assert.Equal(t, []string{"explain-tides", "multi-turn"}, cases(res, out), "repeated flags: any of them")

	res = invokeEnv(t, map[string]string{"BENCHSERVE_TAGS": "chat"}, base...)
	assert.Equal(t, []string{"multi-turn"}, cases(res, out), "$BENCHSERVE_TAGS is the default")

	res = invokeEnv(t, map[string]string{"BENCHSERVE_TAGS": "chat"}, append(base, "--case-tag", "knowledge")...)
	assert.Equal(t, []string{"explain-tides"}, cases(res, out), "the flag overrides $BENCHSERVE_TAGS")

	sent := len(srv.ChatRequests())
	res = invoke(t, append(base, "--case-tag", "nosuch")...)
	assert.Equal(t, ExitUsage, res.code, "a tag no case has is a usage error")
	assert.Contains(t, res.stderr, "--case-tag nosuch: no case of "+smoke+" has any of these tags")
	assert.Len(t, srv.ChatRequests(), sent, "nothing ran")

	res = invoke(t, "--url", srv.URL, "--prompts", "short", "--concurrency", "1", "--repetitions", "1", "--warmup", "0", "--case-tag", "x", "--tag", "nightly")
	assert.Equal(t, ExitOK, res.code)
	assert.Contains(t, res.stderr, "Warning: --case-tag applies to --workload runs only; ignored for the prompt sweep", "sweep warns")

	help := invoke(t, "--help")
	assert.Contains(t, help.stderr, "  --case-tag tags\n", "--case-tag documented")
	assert.Contains(t, help.stderr, "$BENCHSERVE_TAGS", "its environment default documented")
}
