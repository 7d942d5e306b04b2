package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
)

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
