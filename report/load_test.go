package report_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
		b, err := results.FormatJSON(p)
		require.NoError(t, err, "setup: format payload")
		require.NoError(t, os.WriteFile(path, b, 0o644), "setup: write payload")
		require.NoError(t, results.WriteSQLite(p, db), "setup: sqlite workload rows")
	}
	b, err := results.FormatSweepJSON(sweepRows())
	require.NoError(t, err, "setup: format sweep")
	require.NoError(t, os.WriteFile(sweep, b, 0o644), "setup: write sweep")
	require.NoError(t, results.WriteSweepSQLite(sweepRows(), db), "setup: sqlite sweep rows")
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
	assert.Len(t, data["comparisons"], 1, "the two workload runs from SQLite are compared")
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
	require.NoError(t, results.WriteRows(t.Context(), db, "something_else", "a TEXT", []string{"a"}, [][]any{{"x"}}), "setup: unrelated SQLite file")
	_, err := report.Load(db)
	assert.ErrorIs(t, err, report.ErrBadInput, "a SQLite file without benchserve tables is bad input")
	assert.ErrorContains(t, err, "no rows in tables bench_serve_workload or bench_serve", "the error names the tables looked for")
}

func TestMainCLI(t *testing.T) {
	base, cand, sweep, _ := writeInputs(t)
	out := filepath.Join(t.TempDir(), "r.html")
	var stdout, stderr bytes.Buffer
	code := report.Main([]string{base, "--output", out, cand, sweep, "--title", "Nightly <promotion>"}, &stdout, &stderr)
	require.Equal(t, 0, code, "report writes: stderr %q", stderr.String())
	assert.Equal(t, "wrote "+out+" (3 runs)\n", stdout.String(), "flags after file names are parsed too")
	b, err := os.ReadFile(out)
	require.NoError(t, err, "the report file exists")
	page := string(b)
	assert.Contains(t, page, "<title>Nightly &lt;promotion&gt;</title>", "--title sets the (escaped) title")
	_, data := dataOf(t, page)
	assert.Len(t, data["runs"], 3, "all three inputs are in the report")
	assert.Len(t, data["comparisons"], 1, "the two workload runs are compared")
	var js struct {
		Comparisons []struct{ Baseline, Candidate string }
	}
	raw, _ := dataOf(t, page)
	require.NoError(t, json.Unmarshal([]byte(raw), &js), "decode comparisons")
	assert.Equal(t, "base", js.Comparisons[0].Baseline, "the first file given is the baseline")
	assert.Equal(t, "cand", js.Comparisons[0].Candidate, "the second file is the candidate")
}

func TestMainErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"x": 1}`), 0o644), "setup")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no files", nil, 2, "no results files given"},
		{"unknown flag", []string{"--nope"}, 2, "flag provided but not defined: -nope"},
		{"bad input", []string{bad}, 2, "bad.json: a JSON object without a \"results\" array"},
		{"help", []string{"-h"}, 0, "usage: benchserve report"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := report.Main(tc.args, &stdout, &stderr)
			assert.Equal(t, tc.code, code, "exit code")
			assert.Contains(t, stderr.String(), tc.want, "stderr explains")
			assert.Empty(t, stdout.String(), "nothing on stdout")
		})
	}
	// A write failure is exit 1.
	base, _, _, _ := writeInputs(t)
	var stdout, stderr bytes.Buffer
	code := report.Main([]string{"-o", filepath.Join(t.TempDir(), "missing", "r.html"), base}, &stdout, &stderr)
	assert.Equal(t, 1, code, "a report that cannot be written exits 1")
	assert.True(t, strings.HasPrefix(stderr.String(), "benchserve report: results: write"), "stderr names the failed write: %q", stderr.String())
}
