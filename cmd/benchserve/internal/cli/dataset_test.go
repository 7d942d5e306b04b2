package cli

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
)

// TestDatasetRandomGivesExactLengths is issue 27's "done when" on the
// fixture: every request's usage.prompt_tokens is the asked 512 and,
// with --ignore-eos, completion_tokens the asked 64.
func TestDatasetRandomGivesExactLengths(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	out := filepath.Join(dir, "out.json")
	args := []string{"--url", srv.URL, "--dataset-name", "random", "--random-input-len", "512",
		"--random-output-len", "64", "--random-range-ratio", "0", "--num-prompts", "20", "--ignore-eos", "--seed", "3"}
	res := invoke(t, append(args, "--output", out)...)
	require.Equal(t, ExitOK, res.code, res.stderr)
	p := readPayload(t, out)
	require.Len(t, p.Results, 20, "--num-prompts requests, each once")
	require.NotNil(t, p.Workload.Generator)
	assert.Equal(t, "random", p.Workload.Generator.Name)
	assert.Equal(t, uint64(3), p.Workload.Generator.Seed, "--seed seeds the generator")
	assert.True(t, p.Workload.Generator.IgnoreEOS)
	// Calibrated on the fixture's POST /tokenize before the run, and said.
	assert.Equal(t, "server_tokenize", p.Workload.Generator.TokenCounting)
	require.NotNil(t, p.Workload.Generator.TemplateTokens)
	assert.Equal(t, 0, *p.Workload.Generator.TemplateTokens, "the fixture counts the messages' words only")
	assert.Positive(t, p.Workload.Generator.CalibrationRequests)
	assert.Contains(t, res.stderr, "benchserve: note: generator random: prompts calibrated on the server (server_tokenize): the chat template adds 0 tokens",
		"the calibration is informational: a note, not a warning")
	assert.NotContains(t, res.stderr, "warning: generator random: prompts calibrated")
	for _, rec := range p.Results {
		assert.Equal(t, 512, rec.Metrics.PromptTokens, "%s: prompt_tokens", rec.CaseID)
		assert.Equal(t, 64, rec.Metrics.CompletionTokens, "%s: completion_tokens", rec.CaseID)
		require.NotNil(t, rec.Requested, rec.CaseID)
		assert.Equal(t, 512, rec.Requested.InputTokens, rec.CaseID)
	}

	// --no-calibration: counted by words, no calibration request.
	srv2 := fixtures.Start(t, fixtures.Options{})
	out3 := filepath.Join(dir, "out3.json")
	res = invoke(t, "--url", srv2.URL, "--dataset-name", "random", "--random-input-len", "32", "--num-prompts", "2", "--no-calibration", "--output", out3)
	require.Equal(t, ExitOK, res.code, res.stderr)
	p3 := readPayload(t, out3)
	assert.Equal(t, "words", p3.Workload.Generator.TokenCounting)
	assert.Nil(t, p3.Workload.Generator.TemplateTokens)
	assert.NotContains(t, res.stderr, "calibrated")
	chats := 0
	for _, rec := range srv2.Requests() {
		if rec.Path == "/v1/chat/completions" {
			chats++
		}
	}
	assert.Equal(t, 2, chats, "the two prompts, no calibration request")
	assert.Contains(t, invoke(t, "--url", srv2.URL, "--no-calibration").stderr, "--no-calibration needs --dataset-name")

	// The same seed sends the same requests: the same workload digest.
	out2 := filepath.Join(dir, "out2.json")
	require.Equal(t, ExitOK, invoke(t, append(args, "--output", out2)...).code)
	assert.Equal(t, p.Workload.Digest, readPayload(t, out2).Workload.Digest, "same seed, same requests")
}

func TestDatasetFlagsAreCheckedBeforeAnythingIsSent(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--dataset-name", "nosuch"}, `unknown dataset name "nosuch"`},
		{[]string{"--dataset-name", "random", "--random-range-ratio", "1.5"}, "--random-range-ratio 1.5: want 0 <= ratio < 1"},
		{[]string{"--random-input-len", "5"}, "--random-input-len needs --dataset-name"},
	} {
		res := invoke(t, append([]string{"--url", "http://127.0.0.1:1"}, tc.args...)...)
		assert.Equal(t, ExitUsage, res.code, "%v", tc.args)
		assert.Contains(t, res.stderr, tc.want, "%v", tc.args)
	}
}

func TestCapacityTakesADatasetMix(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	res := invoke(t, "capacity", "--url", srv.URL, "--dataset-name", "random", "--random-input-len", "64",
		"--random-output-len", "8", "--num-prompts", "10", "--slo", "ttft_p95_ms <= 500", "--max-time", "1ms")
	assert.Equal(t, ExitFailed, res.code, "the mix was accepted; a 1 ms search measures nothing")
	assert.Contains(t, res.stderr, "nothing was measured", res.stderr)

	res = invoke(t, "capacity", "--url", srv.URL, "--dataset-name", "random", "--random-input-len", "0",
		"--slo", "ttft_p95_ms <= 500")
	assert.Equal(t, ExitUsage, res.code)
	assert.Contains(t, res.stderr, "--random-input-len 0: want >= 1 token")
	res = invoke(t, "capacity", "--url", srv.URL, "--num-prompts", "5", "--slo", "ttft_p95_ms <= 500")
	assert.Equal(t, ExitUsage, res.code)
	assert.Contains(t, res.stderr, "--num-prompts needs --dataset-name")
}

func TestDatasetRunWarnsWhenTokenizeDisagreesWithUsage(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{Faults: []fixtures.Fault{"wrong-token-count"}})
	res := invoke(t, "--url", srv.URL, "--dataset-name", "random", "--random-input-len", "16",
		"--random-output-len", "4", "--num-prompts", "2", "--output", filepath.Join(t.TempDir(), "o.json"))
	assert.Equal(t, ExitOK, res.code, res.stderr)
	assert.Contains(t, res.stderr, "benchserve: warning: the server's POST /tokenize counts 21 tokens for case", "both numbers on stderr")
	assert.Contains(t, res.stderr, "its usage.prompt_tokens says 16: the records keep the usage's count")
}

func TestDatasetRandomMixFlag(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	out := filepath.Join(t.TempDir(), "o.json")
	res := invoke(t, "--url", srv.URL, "--dataset-name", "random", "--random-mix", "8,2:1;24,3:1",
		"--num-prompts", "12", "--seed", "9", "--output", out)
	require.Equal(t, ExitOK, res.code, res.stderr)
	seen := map[int]bool{}
	for _, rec := range readPayload(t, out).Results {
		seen[rec.Requested.InputTokens] = true
		assert.Equal(t, rec.Requested.InputTokens, rec.Metrics.PromptTokens, rec.CaseID)
	}
	assert.Equal(t, map[int]bool{8: true, 24: true}, seen, "both components drawn")
	res = invoke(t, "--url", srv.URL, "--dataset-name", "random", "--random-mix", "8:1")
	assert.Equal(t, ExitUsage, res.code)
	assert.Contains(t, res.stderr, `--random-mix: component 1 "8:1"`)
}

// TestIgnoreEOSShortAnswersWarn: a server that ignores ignore_eos (the
// fixture's early-stop fault) answers short of --random-output-len; the
// run warns with the numbers on stderr and still exits 0 (vLLM only
// reports it; no check asked for the length).
func TestIgnoreEOSShortAnswersWarn(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{Faults: []fixtures.Fault{"early-stop"}})
	out := filepath.Join(t.TempDir(), "short.json")
	res := invoke(t, "--url", srv.URL, "--dataset-name", "random", "--random-input-len", "32", "--random-output-len", "600",
		"--num-prompts", "3", "--ignore-eos", "--no-calibration", "--output", out)
	require.Equal(t, ExitOK, res.code, "a warning, not a failure: %s", res.stderr)
	p := readPayload(t, out)
	require.NotNil(t, p.Summary.Lengths)
	require.Equal(t, 3, p.Summary.Lengths.EndedShort, "every answer ended short")
	got := p.Results[0].Metrics.CompletionTokens
	require.Less(t, got, 600)
	assert.Regexp(t, `Warning: 3 of 3 answers ended short of the asked output length under ignore_eos: asked 600 tokens \(p50\), got p50 \d+ \(min \d+, max \d+\); finish_reason stop 3: the server did not honour it`, res.stderr)
}
