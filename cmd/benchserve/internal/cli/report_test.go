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
		Comparisons []struct{ Baseline, Candidate string }
	}
	require.NoError(t, json.Unmarshal([]byte(m[1]), &data), "the data block is JSON")
	assert.Len(t, data.Runs, 2, "both inputs are in the report")
	require.Len(t, data.Comparisons, 1, "the two runs of one workload are compared")
	assert.Equal(t, "base", data.Comparisons[0].Baseline, "the first file given is the baseline")
	assert.Equal(t, "cand", data.Comparisons[0].Candidate, "the second file is the candidate")
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
