package report_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/history"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/report"
	"github.com/benchserve/benchserve/results"
)

// writeInputs writes the fixed runs the three ways benchserve (and the
// reference) store them: payload JSON, sweep JSON and one SQLite file
// holding both workload runs and the sweep.
func writeInputs(t *testing.T) (base, cand, sweep, db string) {
	t.Helper()
	dir := t.TempDir()
	base, cand = filepath.Join(dir, "base.json"), filepath.Join(dir, "cand.json")
	sweep, db = filepath.Join(dir, "sweep.json"), filepath.Join(dir, "history.db")
	// A slice, not a map: the SQLite rows must go in baseline-first.
	for _, in := range []struct {
		path string
		p    *results.Payload
	}{{base, baselinePayload()}, {cand, candidatePayload()}} {
		path, p := in.path, in.p
		b, err := resultio.FormatJSON(p)
		require.NoError(t, err, "setup: format payload")
		require.NoError(t, os.WriteFile(path, b, 0o644), "setup: write payload")
		require.NoError(t, history.AppendPayload(p, db), "setup: sqlite workload rows")
	}
	b, err := resultio.FormatSweepJSON(sweepRows())
	require.NoError(t, err, "setup: format sweep")
	require.NoError(t, os.WriteFile(sweep, b, 0o644), "setup: write sweep")
	require.NoError(t, history.AppendSweep(sweepRows(), db), "setup: sqlite sweep rows")
	return base, cand, sweep, db
}

func TestLoadJSON(t *testing.T) {
	base, _, sweep, _ := writeInputs(t)
	runs, err := report.Load(base)
	require.NoError(t, err, "a payload JSON file loads")
	require.Len(t, runs, 1, "one payload is one run")
	assert.Equal(t, "base", runs[0].Label, "labelled with the file name")
	require.NotNil(t, runs[0].Payload, "a workload run")
	assert.Len(t, runs[0].Payload.Results, 8, "every record is read")
	assert.Equal(t, baselinePayload().Results[1].Quality.Issues, runs[0].Payload.Results[1].Quality.Issues, "issues survive the round trip")

	runs, err = report.Load(sweep)
	require.NoError(t, err, "a sweep JSON file loads")
	require.Len(t, runs, 1, "one sweep run id is one run")
	assert.Equal(t, "sweep", runs[0].Label, "labelled with the file name")
	assert.Len(t, runs[0].Sweep, 16, "every sweep row is read")
}

func TestLoadSQLite(t *testing.T) {
	_, _, _, db := writeInputs(t)
	runs, err := report.Load(db)
	require.NoError(t, err, "a benchserve SQLite file loads")
	var labels []string
	for _, r := range runs {
		labels = append(labels, r.Label)
	}
	assert.Equal(t, []string{"history:base0001", "history:cand0002", "history:swp00003"}, labels,
		"one run per run_id: workload runs first, then sweeps")
	p := runs[0].Payload
	require.NotNil(t, p, "workload rows become a payload")
	assert.Equal(t, "promotion", p.Workload.Name, "workload name from the rows")
	assert.Equal(t, 1, p.Summary.FailureCount, "the summary is recomputed from the rows")
	assert.Equal(t, []string{"content shorter than min_chars=400 (got 212)"}, p.Results[1].Quality.Issues, "quality_issues JSON is decoded")
	require.NotNil(t, p.Results[3].Policy.WithinTimeout, "within_policy_timeout is read")
	assert.True(t, *p.Results[3].Policy.WithinTimeout, "long-summary rep 0 was within its timeout")
	assert.Equal(t, []string{"quality", "slow"}, p.Results[3].Tags, "tags are split on commas")
	assert.Len(t, runs[2].Sweep, 16, "sweep rows are read")
	assert.Equal(t, 8, runs[2].Sweep[15].Concurrency, "sweep columns are mapped")
	assert.False(t, runs[2].Sweep[15].Validated, "booleans stored as 0/1 are read")

	var buf bytes.Buffer
	require.NoError(t, report.Write(&buf, runs...), "a report of the SQLite runs renders")
	_, data := dataOf(t, buf.String())
	assert.Empty(t, data["comparisons"], "report.Write is given no comparison: it computes none")
	assert.Contains(t, buf.String(), `2 runs of workload &#34;promotion&#34; are shown side by side, not compared`, "and the page says so")
	assert.Contains(t, buf.String(), "have no start time", "SQLite runs explain why there is no timeline")
}

func TestLoadBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644), "setup")
		return p
	}
	for _, tc := range []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "nope.json"), "no such file"},
		{"empty", write("empty.json", "  \n"), "empty file"},
		{"text", write("notes.txt", "hello"), "not a benchserve results file"},
		{"bad json", write("broken.json", `{"results": [`), "invalid JSON"},
		{"object without results", write("config.json", `{"model": "x"}`), `without a "results" array`},
		{"empty array", write("none.json", `[]`), "no sweep rows"},
		{"array of other objects", write("list.json", `[{"a": 1}]`), `row 0: a sweep row needs "prompt_set" and "concurrency"`},
		{"fake sqlite", write("history.db", "not a database"), "not a SQLite database"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := report.Load(tc.path)
			require.Error(t, err, "bad input must be an error")
			assert.True(t, errors.Is(err, report.ErrBadInput), "every Load error wraps ErrBadInput: %v", err)
			assert.Contains(t, err.Error(), filepath.Base(tc.path), "the error names the file")
			assert.Contains(t, err.Error(), tc.want, "the error says what is wrong")
		})
	}
}

func TestLoadSQLiteWithoutTables(t *testing.T) {
	db := filepath.Join(t.TempDir(), "other.sqlite")
	require.NoError(t, history.WriteRows(t.Context(), db, "something_else", "a TEXT", []string{"a"}, [][]any{{"x"}}), "setup: unrelated SQLite file")
	_, err := report.Load(db)
	assert.ErrorIs(t, err, report.ErrBadInput, "a SQLite file without benchserve tables is bad input")
	assert.ErrorContains(t, err, "no rows in tables bench_serve_workload or bench_serve", "the error names the tables looked for")
}

// TestLoadSQLiteKeepsFailuresAndNulls: a failed request read back from a
// SQLite history is still a failed request (its "request error" issue),
// and a NULL rate stays unmeasured, not 0, as in the run's JSON.
func TestLoadSQLiteKeepsFailuresAndNulls(t *testing.T) {
	stop := "stop"
	recs := []results.Record{
		{RunID: "sq000001", CaseID: "ok", Workload: "w", OK: true, StartedAt: "2026-01-02T03:04:05.000000+00:00",
			Metrics: results.Metrics{TTFTms: 2, E2ELms: 3, TPOTms: math.NaN(), GenTPS: math.NaN(), CompletionTokens: 50},
			Quality: results.Quality{OK: true, Issues: []string{}, FinishReason: &stop}},
		{RunID: "sq000001", CaseID: "slow", Workload: "w", StartedAt: "2026-01-02T03:04:06.000000+00:00",
			Metrics: results.Metrics{TTFTms: 301, E2ELms: 301},
			Quality: results.Quality{Issues: []string{"request error: stream_chat_completion timed out after 0.300s"}},
			Error:   "stream_chat_completion timed out after 0.300s"},
	}
	p := resultio.BuildPayload(resultio.PayloadInput{RunID: "sq000001", Workload: results.WorkloadInfo{Name: "w"}, Records: recs})
	db := filepath.Join(t.TempDir(), "h.db")
	require.NoError(t, history.AppendPayload(p, db), "setup")
	runs, err := report.Load(db)
	require.NoError(t, err)
	require.Len(t, runs, 1)
	got := runs[0].Payload.Results
	require.Len(t, got, 2)
	assert.True(t, math.IsNaN(got[0].Metrics.GenTPS), "a NULL gen_tps is unmeasured, not 0")
	assert.Equal(t, "stream_chat_completion timed out after 0.300s", got[1].Error, "the failed request is a failure, not a measurement")
}

// A SQLite file whose bench_serve_workload table is not a benchserve
// history (other columns) is refused naming what is missing, and a cell
// that is not a number is an error naming the row and column: neither
// renders as a run measured at 0 ms.
func TestLoadSQLiteThatIsNotAHistory(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.db")
	require.NoError(t, history.WriteRows(context.Background(), other, resultio.WorkloadTable,
		"run_id TEXT, case_id TEXT, latency REAL", []string{"run_id", "case_id", "latency"},
		[][]any{{"r1", "a", 12.5}}), "setup: a table of that name with other columns")
	_, err := report.Load(other)
	require.Error(t, err, "not a history")
	assert.ErrorIs(t, err, report.ErrBadInput)
	assert.Contains(t, err.Error(), "table bench_serve_workload is not a benchserve history: it lacks the column(s) timestamp, workload, repetition", "names the missing columns")
	assert.Contains(t, err.Error(), "ttft_ms", "including the latencies")

	bad := filepath.Join(dir, "bad.db")
	var recs []results.Record
	for i := range 3 {
		recs = append(recs, results.Record{RunID: "r1", Timestamp: "2025-01-02T03:04:05+00:00", Workload: "w", CaseID: "a", Repetition: i,
			OK: true, Quality: results.Quality{OK: true, Issues: []string{}}, Metrics: results.Metrics{TTFTms: 10, E2ELms: 100}})
	}
	p := resultio.BuildPayload(resultio.PayloadInput{RunID: "r1", Records: recs})
	require.NoError(t, history.AppendPayload(p, bad), "setup: a history")
	db, err := sql.Open("sqlite", bad)
	require.NoError(t, err)
	_, err = db.Exec("UPDATE bench_serve_workload SET e2e_latency_ms = 'fast' WHERE rowid = 2")
	require.NoError(t, err, "setup: a non-numeric cell")
	require.NoError(t, db.Close())
	_, err = report.Load(bad)
	require.Error(t, err, "a non-numeric latency")
	assert.Contains(t, err.Error(), `row 2: column e2e_latency_ms: "fast", not a number`, "names the row, the column and the cell")
}
