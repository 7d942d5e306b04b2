package runner_test

import (
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/runner"
)

func TestRunCaseResponsesEndpoint(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{Responder: func(fixtures.Request) fixtures.Script {
		return fixtures.Script{Content: []string{"one", " two", " three"}, TTFT: 60 * time.Millisecond, TokenDelay: 10 * time.Millisecond}
	}})
	w := load(t, `{"defaults":{"endpoint":"responses"},"cases":[{"id":"r","messages":[{"role":"user","content":"hi there"}],
		"checks":{"required_regex":["three$"],"finish_reason":"stop"}}]}`)
	out := newRunner(t, srv).RunCase(context.Background(), w, w.Cases[0], 0, nil)
	require.NoError(t, out.Err, "a Responses-API case on the fixture")
	rec := out.Record
	assert.True(t, rec.OK, "the checks judge the Responses answer: %v", rec.Quality.Issues)
	assert.Equal(t, "responses", rec.Request.Endpoint, "the record names the endpoint")
	assert.GreaterOrEqual(t, rec.Metrics.TTFTms, 60.0, "TTFT no earlier than the scripted 60 ms")
	assert.Equal(t, 3, rec.Metrics.CompletionTokens, "output_tokens from response.completed")
	assert.Equal(t, 2, rec.Metrics.PromptTokens, "input_tokens")
	assert.Len(t, rec.Metrics.ITLms, 2, "three deltas give two gaps")
	var paths []string
	for _, q := range srv.Requests() {
		paths = append(paths, q.Path)
	}
	assert.Contains(t, paths, "/v1/responses", "sent to /v1/responses")
	assert.NotContains(t, paths, "/v1/chat/completions", "nothing sent to chat")
}

func TestRunLoadEmbeddings(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{Responder: func(fixtures.Request) fixtures.Script {
		return fixtures.Script{TTFT: 40 * time.Millisecond}
	}})
	r := newRunner(t, srv)
	w := load(t, `{"defaults":{"endpoint":"embeddings"},"cases":[
		{"id":"b1","messages":[{"role":"user","content":"one input"}]},
		{"id":"b4","messages":[{"role":"user","content":"x"}],"extra_body":{"input":["a","b c","d","e f g"]}}]}`)
	s, err := r.Start(context.Background(), w, runner.RunOptions{})
	require.NoError(t, err, "start")
	run, err := s.RunLoad(context.Background(), runner.Load{Requests: 6, MaxConcurrency: 2})
	require.NoError(t, err, "an embeddings load run")
	assert.Len(t, run.Samples, 6, "every request sent")
	p := s.Payload()
	require.Len(t, p.Results, 6, "one record per request")
	for _, rec := range p.Results {
		assert.Empty(t, rec.Error, "%s: no error", rec.CaseID)
		assert.Equal(t, "embeddings", rec.Request.Endpoint, "endpoint recorded")
		want := map[string]int{"b1": 1, "b4": 4}[rec.CaseID]
		assert.Equal(t, want, rec.Request.Inputs, "%s: batch size recorded", rec.CaseID)
		assert.GreaterOrEqual(t, rec.Metrics.E2ELms, 40.0, "%s: latency no less than the scripted 40 ms", rec.CaseID)
		assert.True(t, math.IsNaN(rec.Metrics.TTFTms), "%s: no TTFT for an answer that is not streamed", rec.CaseID)
		assert.Contains(t, rec.Metrics.DecodeTimingNote, "inputs/s", "%s: the note gives the rate", rec.CaseID)
	}
	b, err := json.Marshal(p.Results[0].Request)
	require.NoError(t, err, "request block marshals")
	assert.Contains(t, string(b), `"endpoint":"embeddings"`, "the endpoint is in the JSON")
}
