package integration

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/workloads"
)

// countingBy is how each server's prompts are calibrated: Ollama has no
// tokenizer endpoint (usage.prompt_tokens alone), llama-server has POST
// /tokenize.
var countingBy = map[string]string{
	kindOllama:   "usage_calibration",
	kindLlamaCpp: "server_tokenize",
}

// TestRandomPromptsHaveTheAskedLength is issue 27's "done when" on a real
// server: `--dataset-name random --random-input-len 512
// --random-output-len 64 --random-range-ratio 0 --num-prompts 20` gives
// every request a usage.prompt_tokens within ±1% of 512 (the calibration
// makes it exact), and the payload says which way the server's tokens
// were counted.
func TestRandomPromptsHaveTheAskedLength(t *testing.T) {
	url, model := server(t)
	id := identify(t, url)
	w, err := workloads.Parse([]byte(`{"name": "isl512", "generator": {"name": "random", "num_prompts": 20, "seed": 1,
		"random_input_len": 512, "random_output_len": 64, "random_range_ratio": 0}}`), "isl512.json")
	require.NoError(t, err)
	var notes []string
	r, err := runner.New(t.Context(), runner.Config{URL: url, Model: model, APIKey: os.Getenv(envAPIKey),
		RequestTimeout: 2 * time.Minute, NoScrape: true, Warn: func(msg string) { notes = append(notes, msg) }})
	require.NoError(t, err, "runner.New against %s", url)
	t.Cleanup(r.Close)
	s, err := r.Start(t.Context(), w, runner.RunOptions{})
	require.NoError(t, err, "%s: calibrate and start", id)
	_, err = s.RunLoad(t.Context(), runner.Load{MaxConcurrency: 4})
	require.NoError(t, err, "%s: the load run", id)
	p := s.Payload()
	t.Logf("%s: %v", id, notes)
	g := p.Workload.Generator
	require.NotNil(t, g)
	assert.Equal(t, countingBy[id.Kind], g.TokenCounting, "%s: the payload says how the prompts were counted", id)
	require.NotNil(t, g.TemplateTokens, "%s: calibrated", id)
	assert.Positive(t, *g.TemplateTokens, "%s: the chat template adds tokens", id)
	require.Len(t, p.Results, 20)
	lo, hi := 1<<30, 0
	for _, rec := range p.Results {
		require.Empty(t, rec.Error, "%s: %s", id, rec.CaseID)
		require.True(t, rec.Metrics.UsagePresent, "%s: %s: usage", id, rec.CaseID)
		n := rec.Metrics.PromptTokens
		lo, hi = min(lo, n), max(hi, n)
		assert.InDelta(t, 512, n, 5.12, "%s: %s: usage.prompt_tokens within 1%% of 512", id, rec.CaseID)
	}
	t.Logf("%s: prompt_tokens %d..%d over 20 requests (asked 512), template %d tokens, %d calibration requests",
		id, lo, hi, *g.TemplateTokens, g.CalibrationRequests)
	require.NotNil(t, p.Summary.Lengths)
	assert.Zero(t, p.Summary.Lengths.InputOffBy1Pct, "%s: the summary agrees", id)
}
