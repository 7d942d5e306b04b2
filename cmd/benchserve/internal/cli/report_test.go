package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
)

// TestReportCommand renders two runs of the same workload, written by the
// CLI itself on the fixture, into one HTML page that compares them.
func TestReportCommand(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	base, cand := filepath.Join(dir, "base.json"), filepath.Join(dir, "cand.json")
	for _, out := range []string{base, cand} {
		res := invoke(t, "--url", srv.URL, "--workload", smoke, "--format", "json", "--output", out)
		require.Equal(t, ExitOK, res.code, "setup: smoke workload passes on the fixture")
	}
	page := filepath.Join(dir, "r.html")
	res := invoke(t, "report", base, "--output", page, cand, "--title", "Nightly <promotion>")
	require.Equal(t, ExitOK, res.code, "report writes: stderr %q", res.stderr)
	assert.Equal(t, "wrote "+page+" (2 runs)\n", res.stdout, "flags after file names are parsed too")
	b, err := os.ReadFile(page)
	require.NoError(t, err, "the report file exists")
	assert.Contains(t, string(b), "<title>Nightly &lt;promotion&gt;</title>", "--title sets the (escaped) title")
	m := regexp.MustCompile(`(?s)<script type="application/json" id="benchserve-data">(.*?)</script>`).FindStringSubmatch(string(b))
	require.NotNil(t, m, "the report embeds its data block")
	var data struct {
		Runs        []any
		Comparisons []struct {
			Base, Candidate []string
			Kind            string
			Changes         []struct{ Case, Metric, Verdict string }
			CDFs            []struct{ Case, Metric string }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(m[1]), &data), "the data block is JSON")
	assert.Len(t, data.Runs, 2, "both inputs are in the report")
	require.Len(t, data.Comparisons, 1, "the two runs of one workload are compared")
	c := data.Comparisons[0]
	assert.Equal(t, []string{"base"}, c.Base, "the first file given is the baseline")
	assert.Equal(t, []string{"cand"}, c.Candidate, "the second file is the candidate")
	assert.Equal(t, "workload", c.Kind, "computed by the workload comparison of benchserve compare")
	verdicts := map[string]string{}
	for _, ch := range c.Changes {
		verdicts[ch.Case+" "+ch.Metric] = ch.Verdict
	}
	assert.Equal(t, "too few samples", verdicts["greet ttft_p50_ms"], "3 requests against 3 cannot reach significance at 0.05 (Mann–Whitney's least p is 0.1): the report says so rather than a fixed band's verdict")
	assert.Contains(t, []string{"~", "better", "worse"}, verdicts[" ttft_p50_ms"], "over all 9 requests a side the medians get a rank test's verdict")
	assert.NotEmpty(t, c.CDFs, "the two runs' latencies are overlaid per case")
	assert.Contains(t, string(b), `id="cmp-1-case-1"`, "the first case's CDF chart is in the page")
}

// TestReportCommandSkipsWhatCannotBeCompared: a payload without a
// workload digest (an older benchserve's or the reference's) is still
// reported, but not compared, and stderr says why.
func TestReportCommandSkipsWhatCannotBeCompared(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	base, cand := filepath.Join(dir, "base.json"), filepath.Join(dir, "old.json")
	for _, out := range []string{base, cand} {
		res := invoke(t, "--url", srv.URL, "--workload", smoke, "--format", "json", "--output", out)
		require.Equal(t, ExitOK, res.code, "setup: smoke workload passes on the fixture")
	}
	raw, err := os.ReadFile(cand)
	require.NoError(t, err, "setup: read the payload")
	var p map[string]any
	require.NoError(t, json.Unmarshal(raw, &p), "setup: the payload is JSON")
	delete(p["workload"].(map[string]any), "digest")
	raw, err = json.Marshal(p)
	require.NoError(t, err, "setup: marshal")
	require.NoError(t, os.WriteFile(cand, raw, 0o644), "setup: an older payload without workload.digest")
	page := filepath.Join(dir, "r.html")
	res := invoke(t, "report", base, cand, "--output", page)
	require.Equal(t, ExitOK, res.code, "the report is still written: stderr %q", res.stderr)
	assert.Contains(t, res.stderr, "benchserve report: old not compared with base: ", "stderr names both runs")
	assert.Contains(t, res.stderr, "workload.digest: missing", "and why")
	b, err := os.ReadFile(page)
	require.NoError(t, err, "the report file exists")
	assert.Contains(t, string(b), "are shown side by side, not compared", "the page says the runs are not compared")
}

func TestReportCommandErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"x": 1}`), 0o644), "setup")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no files", nil, 2, "no results files given"},
		{"unknown flag", []string{"--nope"}, 2, "benchserve report: unknown flag --nope\nRun 'benchserve report --help' for usage.\n"},
		{"bad input", []string{bad}, 2, "bad.json: a JSON object without a \"results\" array"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := invoke(t, append([]string{"report"}, tc.args...)...)
			assert.Equal(t, tc.code, res.code, "exit code")
			assert.Contains(t, res.stderr, tc.want, "stderr explains")
			assert.Empty(t, res.stdout, "nothing on stdout")
		})
	}
	help := invoke(t, "report", "-h")
	assert.Equal(t, ExitOK, help.code, "-h exits 0")
	assert.True(t, strings.HasPrefix(help.stdout, "Usage: benchserve report"), "help on stdout: %q", help.stdout)
	assert.Empty(t, help.stderr, "nothing on stderr for -h")
	srv := fixtures.Start(t, fixtures.Options{})
	base := filepath.Join(t.TempDir(), "base.json")
	require.Equal(t, ExitOK, invoke(t, "--url", srv.URL, "--workload", smoke, "--output", base).code, "setup")
	res := invoke(t, "report", "-o", filepath.Join(t.TempDir(), "missing", "r.html"), base)
	assert.Equal(t, 1, res.code, "a report that cannot be written exits 1")
	assert.True(t, strings.HasPrefix(res.stderr, "benchserve report: write "), "stderr names the failed write, without the package chain: %q", res.stderr)
}

// TestReportCommandTellsSameNamedFilesApart: two files named alike in
// different directories get distinct labels, so the comparison finds
// each side's own run.
func TestReportCommandTellsSameNamedFilesApart(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	var files []string
	for _, sub := range []string{"a", "b"} {
		require.NoError(t, os.Mkdir(filepath.Join(dir, sub), 0o755), "setup")
		out := filepath.Join(dir, sub, "run.json")
		res := invoke(t, "--url", srv.URL, "--workload", smoke, "--format", "json", "--output", out)
		require.Equal(t, ExitOK, res.code, "setup: smoke workload passes on the fixture")
		files = append(files, out)
	}
	page := filepath.Join(dir, "r.html")
	res := invoke(t, "report", files[0], files[1], "--output", page)
	require.Equal(t, ExitOK, res.code, "report writes: stderr %q", res.stderr)
	b, err := os.ReadFile(page)
	require.NoError(t, err, "the report file exists")
	m := regexp.MustCompile(`(?s)<script type="application/json" id="benchserve-data">(.*?)</script>`).FindSubmatch(b)
	require.NotNil(t, m, "the report embeds its data block")
	var data struct {
		Runs        []struct{ Label string }
		Comparisons []struct {
			Base, Candidate []string
			BaseRuns        []string `json:"base_runs"`
			CandidateRuns   []string `json:"candidate_runs"`
		}
	}
	require.NoError(t, json.Unmarshal(m[1], &data), "the data block is JSON")
	require.Len(t, data.Runs, 2, "both runs are reported")
	assert.Equal(t, "run", data.Runs[0].Label, "the first keeps its name")
	assert.Equal(t, "run (2)", data.Runs[1].Label, "the second is told apart")
	require.Len(t, data.Comparisons, 1, "they are compared")
	assert.Equal(t, []string{"run-1"}, data.Comparisons[0].BaseRuns, "the base is the first run")
	assert.Equal(t, []string{"run-2"}, data.Comparisons[0].CandidateRuns, "the candidate the second")
}
