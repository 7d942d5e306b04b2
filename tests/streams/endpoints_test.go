package streams_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/workloads"
)

// revt is one Responses-API event as servers write it: an event: line
// and its data, whose type repeats it.
func revt(typ, fields string) string {
	return "event: " + typ + "\ndata: {\"type\":\"" + typ + "\"," + fields + "}\n\n"
}

func withEndpoint(e workloads.Endpoint) option {
	return func(_ *stream.Client, r *stream.Request) { r.Endpoint = e }
}

// TestCase16Responses: the Responses API's typed events (docs/streams.md
// case 16), hand-written in the shape Ollama and llama-server send.
func TestCase16Responses(t *testing.T) {
	created := revt("response.created", `"sequence_number":0,"response":{"id":"resp_7","status":"in_progress","output":[]}`)
	added := revt("response.output_item.added", `"sequence_number":1,"output_index":0,"item":{"type":"message","id":"msg_7","role":"assistant","content":[]}`)
	delta := func(seq, text string) string {
		return revt("response.output_text.delta", `"sequence_number":`+seq+`,"item_id":"msg_7","output_index":0,"content_index":0,"delta":"`+text+`"`)
	}
	completed := revt("response.completed", `"sequence_number":9,"response":{"id":"resp_7","status":"completed","usage":{"input_tokens":4,"output_tokens":2,"total_tokens":6}}`)

	t.Run("complete", func(t *testing.T) {
		srv := raw(t, at(0, created+added), at(80*time.Millisecond, delta("2", "Hi")), at(30*time.Millisecond, delta("3", " there")+completed))
		res, err := chat(t, srv, withEndpoint(workloads.EndpointResponses))
		require.NoError(t, err, "a complete Responses stream")
		assert.Equal(t, "Hi there", res.Content, "the output_text deltas")
		assert.Equal(t, "resp_7", res.RequestID, "the response id")
		assert.Equal(t, 2, res.CompletionTokens, "output_tokens")
		assert.Equal(t, 4, res.PromptTokens, "input_tokens")
		assert.GreaterOrEqual(t, res.TTFTms, 80.0, "TTFT at the first delta, written after 80 ms")
		assert.Equal(t, "stop", res.FinishReason, "completed is stop")
	})
	t.Run("no_terminal_event", func(t *testing.T) {
		srv := body(t, created+added+delta("2", "Hi"))
		res, err := chat(t, srv, withEndpoint(workloads.EndpointResponses))
		require.ErrorIs(t, err, stream.ErrTruncated, "a stream without a terminal event is a failed request")
		assert.Equal(t, "Hi", res.Content, "what came is kept")
	})
	t.Run("failed", func(t *testing.T) {
		srv := body(t, created+revt("response.failed", `"sequence_number":1,"response":{"id":"resp_7","status":"failed","error":{"code":"server_error","message":"out of memory"}}`))
		_, err := chat(t, srv, withEndpoint(workloads.EndpointResponses))
		var se *stream.ServerError
		require.ErrorAs(t, err, &se, "response.failed fails the request")
		assert.Equal(t, "out of memory", se.Message, "with the server's message")
	})
	t.Run("record", func(t *testing.T) {
		srv := serve(t, fixtures.Script{Reasoning: []string{"hm"}, Content: []string{"ok"}, TTFT: 50 * time.Millisecond})
		out := record(t, srv, `{"id":"r","endpoint":"responses","messages":[{"role":"user","content":"hi"}]}`)
		require.NoError(t, out.Err, "a Responses case")
		assert.Equal(t, "responses", out.Record.Request.Endpoint, "the record names the endpoint")
		assert.GreaterOrEqual(t, out.Record.Metrics.TTFTms, 50.0, "TTFT counts the reasoning delta")
		assert.True(t, out.Record.OK, "the checks pass: %v", out.Record.Quality.Issues)
	})
}

// TestCase17CompletionsAndEmbeddings: legacy completions read by the chat
// rules, and an embeddings batch recorded without TTFT (docs/streams.md
// case 17).
func TestCase17CompletionsAndEmbeddings(t *testing.T) {
	t.Run("completions", func(t *testing.T) {
		srv := serve(t, fixtures.Script{Content: []string{"Once", " upon"}, TTFT: 40 * time.Millisecond})
		res, err := chat(t, srv, withEndpoint(workloads.EndpointCompletions))
		require.NoError(t, err, "a completions stream")
		assert.Equal(t, "Once upon", res.Content, "choices[].text")
		assert.GreaterOrEqual(t, res.TTFTms, 40.0, "TTFT at the scripted 40 ms")
		assert.True(t, res.Done, "[DONE]")
	})
	t.Run("embeddings", func(t *testing.T) {
		srv := serve(t, fixtures.Script{TTFT: 30 * time.Millisecond})
		out := record(t, srv, `{"id":"e","endpoint":"embeddings","messages":[{"role":"user","content":"a"},{"role":"user","content":"b c"}]}`)
		require.NoError(t, out.Err, "an embeddings case")
		rec := out.Record
		assert.Equal(t, 2, rec.Request.Inputs, "one input per message")
		assert.GreaterOrEqual(t, rec.Metrics.E2ELms, 30.0, "the batch's latency")
		assert.True(t, math.IsNaN(rec.Metrics.TTFTms), "no TTFT: nothing was streamed")
		assert.Equal(t, 3, rec.Metrics.PromptTokens, "usage.prompt_tokens")

		c := &stream.Client{BaseURL: srv.URL, HTTP: srv.Client()}
		f, err := c.Embed(context.Background(), stream.EmbedRequest{Model: srv.Model(), Input: []string{"x", "x"}, EncodingFormat: "base64"})
		require.NoError(t, err, "base64 embeddings")
		assert.Equal(t, f.Vectors[0], f.Vectors[1], "identical inputs, identical vectors")
	})
}
