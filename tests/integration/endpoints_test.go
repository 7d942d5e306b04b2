package integration

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/workloads"
)

// unserved skips t when err says the server does not serve the endpoint
// at all (404, 405, 501: Ollama before 0.13.3 has no /v1/responses,
// llama-server serves embeddings only with --embeddings): a capability
// the server lacks, not a failure.
func unserved(t *testing.T, id serverID, endpoint string, err error) {
	t.Helper()
	var he *stream.HTTPError
	if errors.As(err, &he) && (he.StatusCode == http.StatusNotFound || he.StatusCode == http.StatusMethodNotAllowed || he.StatusCode == http.StatusNotImplemented) {
		t.Skipf("%s does not serve %s: HTTP %d %s", id, endpoint, he.StatusCode, he.Message)
	}
}

// sampledEmptyTries is how many times answered sends a request whose
// answer the model ended at once: the tiny model samples its
// end-of-sequence token first about one time in a hundred (300 completions
// on Ollama v0.17.4: 3 empty), so three empty answers in a row (about one
// in a million) say the server, not the sampling, gives no text.
const sampledEmptyTries = 3

// answered sends with send until the answer has a token chunk, up to
// sampledEmptyTries times, and returns the last result: an answer that
// ended before any token (finish_reason "stop", no error) is the model's
// sample, not the endpoint's fault, so it is logged and sent again. An
// error ends the tries at once.
func answered(t *testing.T, id serverID, send func() (*stream.Result, error)) (*stream.Result, error) {
	t.Helper()
	for try := 1; ; try++ {
		res, err := send()
		if err != nil || res.TokenChunks > 0 || try == sampledEmptyTries {
			return res, err
		}
		t.Logf("%s: try %d: the model ended its answer before any token (finish_reason %q); sending again", id, try, res.FinishReason)
	}
}

func TestEndpointResponsesStream(t *testing.T) {
	url, model := server(t)
	id := identify(t, url)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	res, err := answered(t, id, func() (*stream.Result, error) {
		return client(t, url).ChatStream(ctx, stream.Request{Endpoint: workloads.EndpointResponses, Model: model,
			Messages: userMsg("Say hello in five words."), MaxTokens: 24, KeepEvents: 4})
	})
	unserved(t, id, "/v1/responses", err)
	require.NoError(t, err, "%s: a Responses-API stream", id)
	assert.True(t, res.Done, "%s: the stream ended at its terminal event", id)
	assert.Regexp(t, `^resp_`, res.RequestID, "%s: the response id has the resp_ prefix", id)
	assert.Positive(t, res.TokenChunks, "%s: token-bearing deltas arrived", id)
	assert.NotEmpty(t, res.Content+res.Reasoning, "%s: some text", id)
	assert.Contains(t, []string{"stop", "length"}, res.FinishReason, "%s: completed or incomplete", id)
	require.NotNil(t, res.Usage, "%s: usage from the terminal event", id)
	assert.Positive(t, res.Usage.PromptTokens, "%s: input_tokens", id)
	assert.Positive(t, res.Usage.CompletionTokens, "%s: output_tokens", id)
	assert.LessOrEqual(t, res.Usage.CompletionTokens, 24, "%s: max_output_tokens held", id)
	assert.Positive(t, res.TTFTms, "%s: TTFT measured", id)
	assert.LessOrEqual(t, res.TTFTms, res.E2ELms, "%s: TTFT within E2E", id)
	require.NotEmpty(t, res.Events, "%s: events kept", id)
	assert.Equal(t, "response.created", res.Events[0].Type, "%s: the first event is response.created", id)
}

func TestEndpointCompletionsStream(t *testing.T) {
	url, model := server(t)
	id := identify(t, url)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	res, err := answered(t, id, func() (*stream.Result, error) {
		return client(t, url).ChatStream(ctx, stream.Request{Endpoint: workloads.EndpointCompletions, Model: model,
			Messages: userMsg("Once upon a time"), MaxTokens: 16})
	})
	unserved(t, id, "/v1/completions", err)
	require.NoError(t, err, "%s: a completions stream", id)
	assert.True(t, res.Done, "%s: [DONE]", id)
	assert.Positive(t, res.TokenChunks, "%s: text chunks arrived", id)
	assert.NotEmpty(t, res.Content, "%s: some text", id)
	assert.Contains(t, []string{"stop", "length"}, res.FinishReason, "%s: a finish reason", id)
	if assert.NotNil(t, res.Usage, "%s: usage chunk (stream_options.include_usage)", id) {
		assert.LessOrEqual(t, res.Usage.CompletionTokens, 16, "%s: max_tokens held", id)
	}
}

func TestEndpointEmbeddingsLoad(t *testing.T) {
	url, model := server(t)
	id := identify(t, url)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	c := client(t, url)
	in := []string{"the cat sat", "a dog ran far", "the cat sat"}
	e, err := c.Embed(ctx, stream.EmbedRequest{Model: model, Input: in})
	unserved(t, id, "/v1/embeddings", err)
	require.NoError(t, err, "%s: an embeddings batch", id)
	require.Len(t, e.Vectors, 3, "%s: one vector per input", id)
	assert.Positive(t, e.Dims(), "%s: vectors have dimensions", id)
	assert.InDeltaSlice(t, e.Vectors[0], e.Vectors[2], 1e-4, "%s: identical inputs give identical vectors", id)
	assert.Positive(t, e.LatencyMS, "%s: latency measured", id)

	// A load run of two batch sizes through the runner, as the CLI's
	// --endpoint embeddings does.
	w, err := workloads.Parse([]byte(`{"name":"emb","defaults":{"endpoint":"embeddings"},"cases":[
		{"id":"b1","messages":[{"role":"user","content":"one input"}]},
		{"id":"b4","messages":[{"role":"user","content":"x"}],"extra_body":{"input":["a","b c","d e f","g"]}}]}`), "emb.json")
	require.NoError(t, err, "the embeddings workload parses")
	r, err := runner.New(ctx, runner.Config{URL: url, Model: model, APIKey: os.Getenv(envAPIKey), RequestTimeout: time.Minute})
	require.NoError(t, err, "%s: runner", id)
	defer r.Close()
	s, err := r.Start(ctx, w, runner.RunOptions{})
	require.NoError(t, err, "start")
	_, err = s.RunLoad(ctx, runner.Load{Requests: 8, MaxConcurrency: 2})
	require.NoError(t, err, "%s: an embeddings load run", id)
	p := s.Payload()
	require.Len(t, p.Results, 8, "%s: every request recorded", id)
	for _, rec := range p.Results {
		where := fmt.Sprintf("%s: %s/%d", id, rec.CaseID, rec.Repetition)
		assert.Empty(t, rec.Error, "%s: no error", where)
		assert.Equal(t, map[string]int{"b1": 1, "b4": 4}[rec.CaseID], rec.Request.Inputs, "%s: batch size", where)
		assert.Positive(t, rec.Metrics.E2ELms, "%s: latency", where)
		assert.Contains(t, rec.Metrics.DecodeTimingNote, "inputs/s", "%s: the rate", where)
	}
}
