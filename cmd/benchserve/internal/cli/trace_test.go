package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
)

func writeMooncake(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"timestamp": %d, "input_length": 40, "output_length": 3, "hash_ids": [0, 1, %d]}`+"\n", i*10, 2+i)
	}
	path := filepath.Join(dir, "trace.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o600))
	return path
}

// TestTraceReplayFromTheCLI: --dataset-name mooncake replays every line of
// the trace at its timestamp × --trace-scale, records the generator and
// verifies the cache.
func TestTraceReplayFromTheCLI(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	out := filepath.Join(dir, "out.json")
	res := invoke(t, "--url", srv.URL, "--dataset-name", "mooncake", "--dataset-path", writeMooncake(t, dir, 12),
		"--trace-scale", "2", "--trace-block-size", "16", "--max-concurrency", "1", "--output", out)
	require.Equal(t, ExitOK, res.code, res.stderr)
	p := readPayload(t, out)
	require.Len(t, p.Results, 12, "every line, not --num-prompts' default 1000 nor a cycle")
	require.NotNil(t, p.Workload.Generator, "the generator recorded")
	assert.Equal(t, "mooncake", p.Workload.Generator.Name)
	assert.Equal(t, map[string]any{"trace_scale": 2.0, "trace_block_size": 16.0}, p.Workload.Generator.Params, "its parameters")
	require.NotNil(t, p.Schedule, "a schedule")
	assert.Nil(t, p.Schedule.TargetRate, "no rate: the trace's times")
	require.NotNil(t, p.Schedule.SendingWindowS, "sending window")
	// The window runs from the first send, which may itself be late, to
	// the last, which is never early: at least 220 ms less the first lag.
	firstLagS := 0.0
	if p.Results[0].LagMS != nil {
		firstLagS = *p.Results[0].LagMS / 1000
	}
	assert.GreaterOrEqual(t, p.Schedule.SendingWindowS+firstLagS, (220 * time.Millisecond).Seconds(), "the last line (110 ms) sent at 220 ms, scale 2")
	assert.Equal(t, "trace", p.Schedule.Mode, "a trace's schedule says so")
	assert.Contains(t, res.stderr, "Load: replayed at the trace's timestamps", "and the load line")
	require.NotNil(t, p.Summary.PromptCache, "the cache verified")
	assert.Equal(t, 11*32, p.Summary.PromptCache.ExpectedTokens, "blocks 0 and 1 shared by the 11 requests after the first")

	res = invoke(t, "--url", srv.URL, "--dataset-name", "mooncake", "--dataset-path", writeMooncake(t, dir, 12),
		"--num-prompts", "4", "--output", filepath.Join(dir, "four.json"))
	require.Equal(t, ExitOK, res.code, res.stderr)
	assert.Len(t, readPayload(t, filepath.Join(dir, "four.json")).Results, 4, "--num-prompts takes the trace's first N")
}

func TestTraceFlagsAreChecked(t *testing.T) {
	dir := t.TempDir()
	trace := writeMooncake(t, dir, 2)
	bad := filepath.Join(dir, "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte(`{"timestamp": 0, "input_length": 4, "output_length": 1}`+"\n"+`{"timestamp": 1, "input_length": 4}`+"\n"), 0o600))
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--dataset-name", "mooncake"}, ExitUsage, "no trace file: give --dataset-path"},
		{[]string{"--dataset-name", "mooncake", "--dataset-path", trace, "--trace-scale", "0"}, ExitUsage, "--trace-scale 0: want a factor > 0"},
		{[]string{"--dataset-name", "mooncake", "--dataset-path", trace, "--request-rate", "5"}, ExitUsage, "--request-rate does not apply to a trace replay"},
		{[]string{"--dataset-name", "random", "--trace-scale", "2"}, ExitUsage, "--trace-scale applies to a trace replay"},
		{[]string{"capacity", "--dataset-name", "azure", "--dataset-path", trace, "--slo", "ttft_p95_ms <= 500"}, ExitUsage, "a capacity search sets the rate"},
	} {
		args := tc.args
		if args[0] == "capacity" {
			args = append([]string{"capacity", "--url", "http://127.0.0.1:1"}, args[1:]...)
		} else {
			args = append([]string{"--url", "http://127.0.0.1:1"}, args...)
		}
		res := invoke(t, args...)
		assert.Equal(t, tc.code, res.code, "%v: %s", tc.args, res.stderr)
		assert.Contains(t, res.stderr, tc.want, "%v", tc.args)
	}

	srv := fixtures.Start(t, fixtures.Options{})
	res := invoke(t, "--url", srv.URL, "--dataset-name", "mooncake", "--dataset-path", bad, "--output", filepath.Join(dir, "o.json"))
	assert.NotEqual(t, ExitOK, res.code, "a malformed line fails the run")
	assert.Contains(t, res.stderr, bad+`:2: field "output_length": missing`, "file, line and field named")
	for _, req := range srv.Requests() {
		assert.NotEqual(t, "/v1/chat/completions", req.Path, "no chat request before the whole trace was read")
	}
}
