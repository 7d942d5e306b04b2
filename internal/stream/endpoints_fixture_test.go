package stream_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// The fixture's known timings: a first token at 150 ms, then one every
// 20 ms on a fixed schedule (Paced), so the last of 5 tokens is due at
// 230 ms however late one wake-up is.
var pacedScript = fixtures.Script{Reasoning: []string{"hm"}, Content: []string{"a", " b", " c", " d"},
	TTFT: 150 * time.Millisecond, TokenDelay: 20 * time.Millisecond, Paced: true}

func TestFixtureResponsesStreamTimings(t *testing.T) {
	_, res, err := fixtureChat(t, pacedScript, stream.Request{Endpoint: workloads.EndpointResponses})
	require.NoError(t, err, "the fixture's Responses stream must succeed")
	assert.Equal(t, "a b c d", res.Content, "content from output_text deltas")
	assert.Equal(t, "hm", res.Reasoning, "reasoning from reasoning_text deltas")
	assert.Equal(t, 5, res.TokenChunks, "1 reasoning + 4 text deltas")
	assert.GreaterOrEqual(t, res.TTFTms, 150.0, "TTFT (the reasoning delta) no earlier than the scripted 150 ms")
	assert.LessOrEqual(t, res.TTFTms, 150.0+slackMS, "TTFT within tolerance")
	assert.GreaterOrEqual(t, res.TTFOms, 170.0, "the first text delta is due at 170 ms")
	last := res.TTFTms + sumF(res.ITLms)
	assert.GreaterOrEqual(t, last, 230.0, "the last delta is due at 230 ms")
	assert.LessOrEqual(t, last, 230.0+slackMS, "the last delta within tolerance")
	require.NotNil(t, res.Usage, "usage from response.completed")
	assert.Equal(t, 5, res.CompletionTokens, "output_tokens count reasoning and text")
	assert.Equal(t, "stop", res.FinishReason, "completed")
	assert.Regexp(t, `^resp_`, res.RequestID, "the response id has the resp_ prefix")
	assert.True(t, res.Done, "the terminal event arrived")
}

func TestFixtureResponsesLengthAndToolCall(t *testing.T) {
	_, res, err := fixtureChat(t, fixtures.Script{Content: []string{"a", "b", "c", "d"}}, stream.Request{Endpoint: workloads.EndpointResponses, MaxTokens: 2})
	require.NoError(t, err, "a cut Responses stream still ends well")
	assert.Equal(t, "length", res.FinishReason, "response.incomplete for max_output_tokens")
	assert.Equal(t, "ab", res.Content, "cut at max_output_tokens")

	call := results.ToolCall{Type: "function", Function: results.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}}
	_, res, err = fixtureChat(t, fixtures.Script{ToolCalls: []results.ToolCall{call}}, stream.Request{Endpoint: workloads.EndpointResponses})
	require.NoError(t, err, "a function-call stream")
	require.Len(t, res.ToolCalls, 1, "one call")
	assert.Equal(t, call.Function, res.ToolCalls[0].Function, "name and arguments arrive whole")
	assert.NotEmpty(t, res.ToolCalls[0].ID, "call_id is the tool call's id")
	assert.Equal(t, "tool_calls", res.FinishReason, "a completed response with a call")
}

func TestFixtureResponsesNoTerminalEventFails(t *testing.T) {
	_, _, err := fixtureChat(t, fixtures.Script{Content: []string{"a"}, NoDone: true}, stream.Request{Endpoint: workloads.EndpointResponses})
	assert.ErrorIs(t, err, stream.ErrTruncated, "NoDone leaves out the terminal event: a failed request")
}

func TestFixtureCompletionsStream(t *testing.T) {
	_, res, err := fixtureChat(t, pacedScript, stream.Request{Endpoint: workloads.EndpointCompletions})
	require.NoError(t, err, "the fixture's completions stream must succeed")
	assert.Equal(t, "a b c d", res.Content, "text of the chunks")
	assert.GreaterOrEqual(t, res.TTFTms, 150.0, "TTFT no earlier than the scripted 150 ms")
	require.NotNil(t, res.Usage, "usage chunk")
	assert.Equal(t, 4, res.CompletionTokens, "completion tokens")
	assert.True(t, res.Done, "[DONE]")
}

func TestFixtureEmbeddingsBatchLatency(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{Responder: func(fixtures.Request) fixtures.Script {
		return fixtures.Script{TTFT: 90 * time.Millisecond}
	}})
	c := &stream.Client{BaseURL: srv.URL, HTTP: srv.Client()}
	in := []string{"the cat", "a dog runs", "the cat"}
	f, err := c.Embed(context.Background(), stream.EmbedRequest{Model: srv.Model(), Input: in})
	require.NoError(t, err, "embeddings of a batch of 3")
	require.Len(t, f.Vectors, 3, "one vector per input")
	assert.Equal(t, f.Vectors[0], f.Vectors[2], "identical inputs give identical vectors")
	assert.NotEqual(t, f.Vectors[0], f.Vectors[1], "different inputs differ")
	assert.GreaterOrEqual(t, f.LatencyMS, 90.0, "latency no less than the scripted 90 ms")
	assert.LessOrEqual(t, f.InputsPerSec, 3/0.090, "inputs/s cannot beat 3 inputs per 90 ms")
	require.NotNil(t, f.Usage, "usage")
	assert.Equal(t, 7, f.Usage.PromptTokens, "prompt tokens by the whitespace tokenizer")
	assert.Equal(t, f.Usage.PromptTokens, f.Usage.TotalTokens, "total = prompt for embeddings")

	b, err := c.Embed(context.Background(), stream.EmbedRequest{Model: srv.Model(), Input: in, EncodingFormat: "base64"})
	require.NoError(t, err, "base64 embeddings")
	assert.Equal(t, f.Vectors, b.Vectors, "base64 round-trips to the same floats")

	_, err = c.Embed(context.Background(), stream.EmbedRequest{Model: srv.Model(), Input: []string{}})
	var he *stream.HTTPError
	require.ErrorAs(t, err, &he, "input [] is refused")
	assert.Equal(t, 400, he.StatusCode, "with 400")
}
