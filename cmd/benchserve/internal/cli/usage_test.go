package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/present"
)

func TestHelpListsEveryCommand(t *testing.T) {
	res := invoke(t, "--help")
	require.Equal(t, ExitOK, res.code)
	for _, c := range commands {
		listed := strings.Contains(res.stdout, "  benchserve "+c.name) || strings.Contains(res.stdout, "  benchserve ["+c.name+"]")
		assert.True(t, listed, "help lists the %s command", c.name)
		for _, s := range c.synopses {
			assert.Contains(t, res.stdout, "  benchserve "+s.args, "help shows the usage line %q", s.args)
		}
	}
	assert.Contains(t, res.stdout, "  benchserve report [--output report.html]", "the report subcommand is listed")
	assert.Empty(t, res.stderr, "help goes to stdout, nothing to stderr")
}

// helpCommands are the arguments that print each command's help.
var helpCommands = [][]string{{}, {"bench-serve"}, {"report"}, {"recover"}, {"capacity"}, {"merge"}, {"conformance"}, {"conformance", "matrix"}, {"fixture"}, {"version"}}

func TestHelpGoesToStdoutWithinAHundredColumns(t *testing.T) {
	for _, cmd := range helpCommands {
		for _, flag := range []string{"--help", "-h"} {
			res := invoke(t, append(append([]string{}, cmd...), flag)...)
			name := strings.Join(append(append([]string{}, cmd...), flag), " ")
			assert.Equal(t, ExitOK, res.code, "benchserve %s exits 0", name)
			assert.NotEmpty(t, res.stdout, "benchserve %s prints help on stdout", name)
			assert.Empty(t, res.stderr, "benchserve %s prints nothing on stderr", name)
			for _, l := range strings.Split(res.stdout, "\n") {
				assert.LessOrEqual(t, present.Width(l), maxHelpCols, "benchserve %s: a help line of at most %d columns: %q", name, maxHelpCols, l)
			}
		}
	}
	res := invoke(t, "help", "capacity")
	assert.Equal(t, ExitOK, res.code, "benchserve help capacity exits 0")
	assert.True(t, strings.HasPrefix(res.stdout, "Usage: benchserve capacity"), "benchserve help CMD is CMD --help: %q", res.stdout)
}

func TestFlagMistakeSaysWhatAndWhereHelpIs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--concurency", "4"}, "benchserve: unknown flag --concurency; did you mean --concurrency?\nRun 'benchserve --help' for usage.\n"},
		{[]string{"capacity", "--slos", "x"}, "benchserve capacity: unknown flag --slos; did you mean --slo?\nRun 'benchserve capacity --help' for usage.\n"},
		{[]string{"conformance", "--stirct"}, "benchserve conformance: unknown flag --stirct; did you mean --strict?\nRun 'benchserve conformance --help' for usage.\n"},
		{[]string{"merge", "--zzz"}, "benchserve merge: unknown flag --zzz\nRun 'benchserve merge --help' for usage.\n"},
		{[]string{"recover", "--ouput", "x"}, "benchserve recover: unknown flag --ouput; did you mean --output?\nRun 'benchserve recover --help' for usage.\n"},
		{[]string{"fixture", "--slot", "2"}, "benchserve fixture: unknown flag --slot; did you mean --slots?\nRun 'benchserve fixture --help' for usage.\n"},
		{[]string{"--repetitions", "many"}, "benchserve: invalid value \"many\" for --repetitions: parse error\nRun 'benchserve --help' for usage.\n"},
		{[]string{"capacity", "--url"}, "benchserve capacity: --url needs a value\nRun 'benchserve capacity --help' for usage.\n"},
		{[]string{"confromance"}, "benchserve: unknown command \"confromance\"; did you mean conformance?"},
		// vllm bench serve's flags say what does their job here.
		{[]string{"--base-url", "http://h:8000"}, "benchserve: unknown flag --base-url; vLLM's --base-url is --url here (http://host:port, without /v1)\n"},
		{[]string{"--percentile-metrics", "ttft"}, "benchserve: unknown flag --percentile-metrics; every run records TTFT, TPOT, ITL and E2EL with p50, p95 and p99"},
		{[]string{"--backend", "vllm"}, "--endpoint picks chat, completions, responses or embeddings"},
	} {
		res := invoke(t, tc.args...)
		name := strings.Join(tc.args, " ")
		assert.Equal(t, ExitUsage, res.code, "benchserve %s exits 2", name)
		assert.Contains(t, res.stderr, tc.want, "benchserve %s says what was wrong, what was meant and where help is", name)
		assert.LessOrEqual(t, strings.Count(res.stderr, "\n"), 2, "benchserve %s: no usage dump after the error: %q", name, res.stderr)
		assert.Empty(t, res.stdout, "benchserve %s: nothing on stdout", name)
	}
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
