package cli

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
)

// TestSessionsFromTheCLI: --dataset-name sessions sends --num-prompts
// sessions of --sessions-turns turns, each turn carrying the earlier
// answers, and records the generator and each turn.
func TestSessionsFromTheCLI(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	out := filepath.Join(t.TempDir(), "out.json")
	res := invoke(t, "--url", srv.URL, "--dataset-name", "sessions", "--num-prompts", "2", "--sessions-turns", "3",
		"--sessions-input-len", "16", "--sessions-output-len", "8", "--sessions-think-time-ms", "5", "--max-concurrency", "2", "--output", out)
	require.Equal(t, ExitOK, res.code, res.stderr)
	p := readPayload(t, out)
	require.Len(t, p.Results, 6, "2 sessions x 3 turns")
	require.NotNil(t, p.Workload.Generator)
	assert.Equal(t, "sessions", p.Workload.Generator.Name)
	assert.EqualValues(t, 3, p.Workload.Generator.Params["sessions_turns"])
	assert.EqualValues(t, 5, p.Workload.Generator.Params["sessions_think_time_ms"])
	turns := map[int]int{}
	for _, rec := range p.Results {
		require.NotNil(t, rec.Requested, rec.CaseID)
		require.NotNil(t, rec.Requested.Turn, rec.CaseID)
		turns[*rec.Requested.Turn]++
	}
	assert.Equal(t, map[int]int{0: 2, 1: 2, 2: 2}, turns, "each session's three turns")
	chats := srv.ChatRequests()
	require.Len(t, chats, 6)
	longest := 0
	for _, c := range chats {
		msgs, _ := c.Body["messages"].([]any)
		longest = max(longest, len(msgs))
	}
	assert.Equal(t, 5, longest, "the third turn carries two user turns and two answers before its own")
	require.NotNil(t, p.Summary.PromptCache, "the built reuse beside the hit rate")
	assert.Positive(t, p.Summary.PromptCache.ExpectedTokens)
}

func TestSessionsFlagsAreChecked(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--dataset-name", "sessions", "--sessions-turns", "0"}, "--sessions-turns 0: want >= 1"},
		{[]string{"--dataset-name", "sessions", "--sessions-think-time-ms", "-1"}, "--sessions-think-time-ms -1: want >= 0"},
		{[]string{"--dataset-name", "sessions", "--request-rate", "5"}, "--request-rate does not apply to sessions"},
		{[]string{"--dataset-name", "random", "--sessions-turns", "2"}, "--sessions-turns applies to --dataset-name sessions"},
		{[]string{"--sessions-turns", "2"}, "--sessions-turns needs --dataset-name"},
		{[]string{"capacity", "--dataset-name", "sessions", "--slo", "ttft_p95_ms <= 500"}, "a capacity search sets the rate"},
	} {
		args := tc.args
		if args[0] == "capacity" {
			args = append([]string{"capacity", "--url", "http://127.0.0.1:1"}, args[1:]...)
		} else {
			args = append([]string{"--url", "http://127.0.0.1:1"}, args...)
		}
		res := invoke(t, args...)
		assert.Equal(t, ExitUsage, res.code, "%v: %s", tc.args, res.stderr)
		assert.Contains(t, res.stderr, tc.want, "%v", tc.args)
	}
}
