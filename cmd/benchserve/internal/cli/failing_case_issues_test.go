package cli

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
)

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
	assert.True(t, strings.HasPrefix(broken[0], "request error: "), "the request error, the root cause, is the record's first issue")
	var want strings.Builder
	for _, is := range broken {
		want.WriteString("      " + strings.Replace(is, "stream: ", "", 1) + "\n") // no package chain on the terminal
	}
	assert.Contains(t, res.stderr, " FAIL (2/3)\n"+want.String()+"  [1/1] fine ... ", "request error printed first")
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
