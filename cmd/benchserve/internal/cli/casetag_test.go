package cli

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
)

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
	assert.Contains(t, help.stdout, "  --case-tag tags\n", "--case-tag documented")
	assert.Contains(t, help.stdout, "$BENCHSERVE_TAGS", "its environment default documented")
}
