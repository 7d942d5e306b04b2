package integration

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/benchtest"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// workloadPaths are the workloads written for the tiny model, by server
// kind: the same cases, with seeds for each server's sampler.
var workloadPaths = map[string]string{
	kindOllama:   "workloads/tiny-model.json",
	kindLlamaCpp: "workloads/tiny-model-llama.cpp.json",
}

// workloadPath is the tiny-model workload for the server at url.
func workloadPath(t *testing.T, url string) string {
	t.Helper()
	return workloadPaths[identify(t, url).Kind]
}

// basicCases are the ids of the cases tagged "basic", which must pass.
var basicCases = []string{"greet", "stop-early", "long", "multi-turn"}

// output returns the results file for one run when $BENCHSERVE_OUTPUT is
// set: the name with suffix inserted before the extension, so the runs of
// one go test do not overwrite each other.
func output(suffix string) []benchtest.Option {
	base := os.Getenv("BENCHSERVE_OUTPUT")
	if base == "" {
		return nil
	}
	ext := filepath.Ext(base)
	return []benchtest.Option{benchtest.WithOutput(strings.TrimSuffix(base, ext) + "-" + suffix + ext)}
}

// checkRecords asserts what must hold for every passing record of the
// tiny model on the server id: no error, usage reported, sane timings, no
// tool calls.
func checkRecords(t *testing.T, id serverID, p *results.Payload, wantRecords int) {
	t.Helper()
	require.NotNil(t, p, "RunWorkload returns a payload")
	require.Len(t, p.Results, wantRecords, "one record per case and repetition")
	for _, rec := range p.Results {
		m := rec.Metrics
		assert.True(t, rec.OK, "case %s rep %d passed its checks: %v", rec.CaseID, rec.Repetition, rec.Quality.Issues)
		assert.Empty(t, rec.Error, "case %s: no request error", rec.CaseID)
		assert.True(t, m.UsagePresent, "case %s: the server reported usage", rec.CaseID)
		assert.Positive(t, m.PromptTokens, "case %s: prompt tokens from usage", rec.CaseID)
		assert.Positive(t, m.CompletionTokens, "case %s: completion tokens from usage", rec.CaseID)
		assert.Less(t, m.TTFTms, m.E2ELms, "case %s: TTFT < E2E", rec.CaseID)
		switch {
		case m.DecodeTiming != "":
			// The tiny model can answer a short case within 1 ms: a burst
			// whose rates are null with the reason, never a huge number.
			assert.True(t, math.IsNaN(m.GenTPS) && math.IsNaN(m.TPOTms), "case %s: untimed decode (%s) has null rates", rec.CaseID, m.DecodeTiming)
			assert.NotEmpty(t, m.DecodeTimingNote, "case %s: and says why", rec.CaseID)
		case m.TokenChunks >= 2:
			assert.Positive(t, m.GenTPS, "case %s: generation tokens/s measured", rec.CaseID)
		}
		assert.Nil(t, rec.ToolCalls, "case %s: no tool calls", rec.CaseID)
		if assert.NotNil(t, rec.Quality.FinishReason, "case %s: finish_reason present", rec.CaseID) {
			assert.Equal(t, "stop", *rec.Quality.FinishReason, "case %s: the seeded basic cases end by </s>", rec.CaseID)
		}
		assert.Equal(t, id.Kind, rec.Runtime.Server, "case %s: runtime detected (the run's /v1/models entry, else /api/version)", rec.CaseID)
		assert.Nil(t, m.CacheHits, "case %s: no cache counters (Ollama has no /metrics, llama-server's counts no prefix-cache hits)", rec.CaseID)
	}
}

// TestWorkload runs the basic cases of the tiny-model workload one after
// another through the go test plugin; each case is a subtest named by its id.
func TestWorkload(t *testing.T) {
	url, model := server(t)
	opts := append([]benchtest.Option{
		benchtest.WithURL(url), benchtest.WithModel(model), benchtest.WithTags("basic"),
		benchtest.WithRequestTimeout(2 * time.Minute),
	}, output("sequential")...)
	p := benchtest.RunWorkload(t, workloadPath(t, url), opts...)
	checkRecords(t, identify(t, url), p, len(basicCases))
}

// TestWorkloadConcurrency4 runs the basic cases twice each with four
// requests in flight. Every case fixes its sampling seed, so both
// repetitions must produce the same answer even when batched with others.
func TestWorkloadConcurrency4(t *testing.T) {
	url, model := server(t)
	opts := append([]benchtest.Option{
		benchtest.WithURL(url), benchtest.WithModel(model), benchtest.WithTags("basic"),
		benchtest.WithConcurrency(4), benchtest.WithRepetitions(2),
		benchtest.WithRequestTimeout(2 * time.Minute),
	}, output("concurrency4")...)
	p := benchtest.RunWorkload(t, workloadPath(t, url), opts...)
	checkRecords(t, identify(t, url), p, 2*len(basicCases))

	byCase := map[string][]results.Record{}
	for _, rec := range p.Results {
		byCase[rec.CaseID] = append(byCase[rec.CaseID], rec)
	}
	for _, id := range basicCases {
		recs := byCase[id]
		if !assert.Len(t, recs, 2, "case %s ran twice", id) {
			continue
		}
		assert.Equal(t, recs[0].Quality.ContentPreview, recs[1].Quality.ContentPreview, "case %s: a fixed seed gives the same text under concurrency", id)
		assert.Equal(t, recs[0].Metrics.CompletionTokens, recs[1].Metrics.CompletionTokens, "case %s: same completion tokens", id)
	}
}

// TestPolicyTimeoutFiresMidStream runs the case tagged timeout, whose
// policy timeout (250 ms) is far shorter than its generation (4000 tokens,
// seconds even on an idle machine): the runner must stop it mid-stream
// with a policy-timeout failure, and the server must keep serving.
func TestPolicyTimeoutFiresMidStream(t *testing.T) {
	url, model := server(t)
	w, c, r := loadCase(t, url, model, "timeout-mid-stream")
	require.NotNil(t, c.PolicyTimeoutMS, "the timeout case sets policy_timeout_ms")
	limit := *c.PolicyTimeoutMS

	out := r.RunCase(t.Context(), w, c, 0, nil)
	rec, res := out.Record, out.Result
	t.Logf("timed out after e2e=%.0f ms (limit %.0f ms), ttft=%.1f ms, %d tokens streamed; error: %v",
		rec.Metrics.E2ELms, limit, rec.Metrics.TTFTms, res.TokenChunks, out.Err)

	require.ErrorIs(t, out.Err, stream.ErrPolicyTimeout, "the case is expected to hit its policy timeout")
	assert.False(t, rec.OK, "a timed-out case is a failure")
	assert.Contains(t, rec.Error, "timed out after", "the record says why it failed (the reference's TimeoutError wording)")
	if assert.NotNil(t, rec.Policy.WithinTimeout, "within_timeout is set when a policy timeout applies") {
		assert.False(t, *rec.Policy.WithinTimeout, "within_timeout is false")
	}
	// Mid-stream: tokens had arrived, the answer was cut short.
	assert.True(t, res.HasOutput, "tokens arrived before the timeout fired (TTFT %.1f ms < %.0f ms)", res.TTFTms, limit)
	assert.Less(t, res.TokenChunks, c.EffectiveMaxTokens(), "the stream was cut before max_tokens")
	assert.False(t, res.Done, "no [DONE] was read")
	assert.Empty(t, res.FinishReason, "no finish_reason was read")
	assert.GreaterOrEqual(t, rec.Metrics.E2ELms, limit, "the request ran at least until the limit")

	// The server drops the abandoned generation and keeps serving.
	client := &stream.Client{BaseURL: r.URL(), APIKey: os.Getenv(envAPIKey), HTTP: r.HTTP()}
	after, err := client.ChatStream(t.Context(), stream.Request{
		Model: model, Messages: userMsg("are you still there?"), MaxTokens: 16,
		ExtraBody: map[string]any{"seed": followUpSeed[identify(t, url).Kind]},
	})
	require.NoError(t, err, "a normal request after the timeout succeeds")
	assert.True(t, after.Done, "the follow-up stream completes with [DONE]")
	assert.Contains(t, []string{"stop", "length"}, after.FinishReason, "the follow-up stream ends normally")
	assert.NotEmpty(t, after.Content, "the follow-up stream has content")
}

// followUpSeed is a seed whose 16-token answer has content, by server kind
// (on llama-server seed 1 ends by </s> at once).
var followUpSeed = map[string]int{kindOllama: 1, kindLlamaCpp: 2}

// loadCase loads the tiny-model workload, returns the case with the given
// id and a runner for the server (the lower-level API benchtest uses).
func loadCase(t *testing.T, url, model, id string) (*workloads.Workload, workloads.Case, *runner.Runner) {
	t.Helper()
	path := workloadPath(t, url)
	w, err := workloads.Load(path)
	require.NoError(t, err, "load %s", path)
	idx := -1
	for i := range w.Cases {
		if w.Cases[i].ID == id {
			idx = i
		}
	}
	require.GreaterOrEqual(t, idx, 0, "%s has the case %s", path, id)
	r, err := runner.New(t.Context(), runner.Config{URL: url, Model: model, APIKey: os.Getenv(envAPIKey), RequestTimeout: 2 * time.Minute, NoScrape: true})
	require.NoError(t, err, "runner.New against %s", url)
	t.Cleanup(r.Close)
	return w, w.Cases[idx], r
}

// TestTruncationIsFlagged runs the case tagged truncated (max_tokens 5):
// the real server ends it with finish_reason "length". The case's checks
// allow "length" explicitly, so it passes (benchserve departs from the
// reference here); the same answer with no finish_reason check is
// reported as truncated, as the reference's validate_response does.
func TestTruncationIsFlagged(t *testing.T) {
	url, model := server(t)
	w, c, r := loadCase(t, url, model, "capped")
	out := r.RunCase(t.Context(), w, c, 0, nil)
	require.NoError(t, out.Err, "the request itself succeeds")
	rec := out.Record
	if assert.NotNil(t, rec.Quality.FinishReason, "finish_reason present") {
		assert.Equal(t, "length", *rec.Quality.FinishReason, "max_tokens 5 ends by length")
	}
	assert.Equal(t, 5, rec.Metrics.CompletionTokens, "usage counts exactly max_tokens")
	assert.Empty(t, rec.Quality.Issues, "length is explicitly allowed by the case")
	assert.True(t, rec.OK)

	unchecked := c
	unchecked.Checks = nil
	out = r.RunCase(t.Context(), w, unchecked, 0, nil)
	require.NoError(t, out.Err)
	assert.Equal(t, []string{"Truncated (finish_reason=length)"}, out.Record.Quality.Issues,
		"without an explicit allowance the basic validation reports the truncation")
	assert.False(t, out.Record.OK, "a truncated answer fails")
}
