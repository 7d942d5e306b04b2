package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/history"
	"github.com/benchserve/benchserve/internal/resultio"
)

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
	rows, err := history.ReadRows(context.Background(), empty, resultio.WorkloadTable)
	require.NoError(t, err)
	assert.Len(t, rows, 3, "the run was appended to the empty file")
}

// workloadStderr runs smoke.json once to output and returns its stderr.
func workloadStderr(t *testing.T, url, output string) string {
	t.Helper()
	res := invoke(t, "--url", url, "--workload", smoke, "--repetitions", "1", "--output", output)
	require.Equal(t, ExitOK, res.code, res.stderr)
	return res.stderr
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
	rows, err := history.ReadRows(context.Background(), db, resultio.WorkloadTable)
	require.NoError(t, err, ".db output is a SQLite database")
	assert.Len(t, rows, 3)

	for _, ext := range []string{".sqlite", ".sqlite3"} {
		res, out := wl("runs" + ext)
		require.Equal(t, ExitOK, res.code)
		_, err := history.ReadRows(context.Background(), out, resultio.WorkloadTable)
		assert.NoError(t, err, "%s picks sqlite", ext)
	}

	res, csvOut := wl("runs.CSV")
	require.Equal(t, ExitOK, res.code)
	data, err := os.ReadFile(csvOut)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), strings.Join(resultio.WorkloadResultColumns, ",")+"\r\n"), ".csv (any case) picks csv")

	res, sqlOut := wl("runs.sql")
	require.Equal(t, ExitOK, res.code)
	data, err = os.ReadFile(sqlOut)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), "CREATE TABLE IF NOT EXISTS bench_serve_workload"), ".sql picks sql")

	res, txtOut := wl("runs.txt")
	require.Equal(t, ExitOK, res.code)
	data, err = os.ReadFile(txtOut)
	require.NoError(t, err)
	assert.Equal(t, resultio.WorkloadTableColumns, strings.Fields(strings.SplitN(string(data), "\n", 2)[0]), ".txt picks the table")

	res, other := wl("runs.out")
	require.Equal(t, ExitOK, res.code)
	readPayload(t, other) // anything else keeps the reference's json for workloads
	assert.Contains(t, res.stderr, "benchserve: note: --output "+other+": its extension names no results format (.json .csv .sql .txt/.table .db/.sqlite/.sqlite3); writing json",
		"an extension that names no format says which one the file holds")
	assert.NotContains(t, workloadStderr(t, srv.URL, filepath.Join(dir, "runs2.json")), "names no results format", "a known extension gets no note")
	assert.Contains(t, workloadStderr(t, srv.URL, filepath.Join(dir, "r.html")), "HTML is the report's format, not a results format; writing json to it",
		"an .html output says it holds JSON and how to render the report")
	readPayload(t, filepath.Join(dir, "r.html"))

	res = invoke(t, "--url", srv.URL, "--workload", smoke, "--repetitions", "1", "--output", "-")
	require.Equal(t, ExitOK, res.code, res.stderr)
	assert.Contains(t, res.stdout, `"run_id"`, "--output - writes the payload to stdout")
	assert.NoFileExists(t, "-", "and no file named -")

	sweepOut := filepath.Join(dir, "sweep.json")
	res = invoke(t, "--url", srv.URL, "--prompts", "short", "--concurrency", "1", "--repetitions", "1", "--warmup", "0", "--output", sweepOut)
	require.Equal(t, ExitOK, res.code)
	data, err = os.ReadFile(sweepOut)
	require.NoError(t, err)
	var jsonRows []map[string]any
	require.NoError(t, json.Unmarshal(data, &jsonRows), ".json picks json for sweeps too (the one extension table)")
	assert.Len(t, jsonRows, 1, "one sweep row")

	sweepDB := filepath.Join(dir, "sweep.sqlite")
	res = invoke(t, "--url", srv.URL, "--prompts", "short", "--concurrency", "1", "--repetitions", "1", "--warmup", "0", "--output", sweepDB)
	require.Equal(t, ExitOK, res.code)
	sweepRows, err := history.ReadRows(context.Background(), sweepDB, resultio.SweepTable)
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
	path, err := resultio.KeepPartial(filepath.Join(tmp, "gone", "runs.db"), []byte(`{"ok":true}`))
	require.NoError(t, err, "falls back to the temporary directory")
	assert.Equal(t, tmp, filepath.Dir(path), "written in os.TempDir()")
	assert.True(t, strings.HasPrefix(filepath.Base(path), "benchserve-runs.db-") && strings.HasSuffix(path, ".partial.json"),
		"named after the requested file: %s", path)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, `{"ok":true}`, string(data))

	next := filepath.Join(tmp, "runs.json")
	path, err = resultio.KeepPartial(next, []byte(`{}`))
	require.NoError(t, err)
	assert.Equal(t, next+".partial.json", path, "next to the requested file when its directory is writable")

	// A second failed run never replaces the first one's results.
	path, err = resultio.KeepPartial(next, []byte(`{"second":true}`))
	require.NoError(t, err)
	assert.Equal(t, next+".partial.2.json", path, "the next free name")
	data, err = os.ReadFile(next + ".partial.json")
	require.NoError(t, err)
	assert.Equal(t, `{}`, string(data), "the first run's fallback is intact")
}

// TestOutputEqualToARequestFileIsRefused: a case's request_path file is an
// input too.
func TestOutputEqualToARequestFileIsRefused(t *testing.T) {
	dir := t.TempDir()
	req := filepath.Join(dir, "req.json")
	require.NoError(t, os.WriteFile(req, []byte(`{"messages": [{"role": "user", "content": "hi"}]}`), 0o644))
	wl := writeWorkloadFile(t, dir, "w.json", `{"cases": [{"id": "a", "request_path": "req.json"}]}`)
	res := invoke(t, "--url", "http://127.0.0.1:1", "--workload", wl, "--output", req)
	assert.Equal(t, ExitUsage, res.code, "refused before anything runs")
	assert.Contains(t, res.stderr, "request_path", "the message names the request file")
	data, err := os.ReadFile(req)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"messages"`, "the request file is intact")
}
