package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// endpointServer answers POST path with parts (as scriptServer does for
// chat) and records each request's body.
func endpointServer(t *testing.T, path string, parts ...part) (*httptest.Server, *[]map[string]any) {
	var mu sync.Mutex
	var bodies []map[string]any
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+path, func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		bodies = append(bodies, body)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		writeParts(w, r, parts)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, &bodies
}

// rev renders one Responses-API event: an "event:" line and its data,
// the type and a sequence number added to fields.
func rev(seq int, typ, fields string) string {
	if fields != "" {
		fields = "," + fields
	}
	return fmt.Sprintf("event: %s\ndata: {\"type\":%q,\"sequence_number\":%d%s}\n\n", typ, typ, seq, fields)
}

const respObj = `"response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}`

func TestResponsesStreamGrammarAndTimings(t *testing.T) {
	const (
		reasonAt = 60 * time.Millisecond
		textAt   = 120 * time.Millisecond
		gap      = 30 * time.Millisecond
	)
	parts := []part{
		{Data: rev(0, "response.created", respObj) + rev(1, "response.in_progress", respObj) +
			rev(2, "response.output_item.added", `"output_index":0,"item":{"type":"reasoning","id":"rs_1"}`)},
		{Delay: reasonAt, Data: rev(3, "response.reasoning_text.delta", `"item_id":"rs_1","output_index":0,"content_index":0,"delta":"think"`)},
		{Delay: textAt, Data: rev(4, "response.output_item.added", `"output_index":1,"item":{"type":"message","id":"msg_1","role":"assistant","content":[]}`) +
			rev(5, "response.content_part.added", `"item_id":"msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","text":""}`) +
			rev(6, "response.output_text.delta", `"item_id":"msg_1","output_index":1,"content_index":0,"delta":"Hello"`)},
		{Delay: textAt + gap, Data: rev(7, "response.output_text.delta", `"item_id":"msg_1","output_index":1,"content_index":0,"delta":" world"`)},
		{Delay: textAt + 2*gap, Data: rev(8, "response.output_text.delta", `"item_id":"msg_1","output_index":1,"content_index":0,"delta":"!"`) +
			rev(9, "response.output_text.done", `"item_id":"msg_1","output_index":1,"content_index":0,"text":"Hello world!"`) +
			rev(10, "response.content_part.done", `"item_id":"msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","text":"Hello world!"}`) +
			rev(11, "response.output_item.done", `"output_index":1,"item":{"type":"message","id":"msg_1"}`) +
			rev(12, "response.completed", `"response":{"id":"resp_1","status":"completed","usage":{"input_tokens":9,"output_tokens":4,"total_tokens":13,"output_tokens_details":{"reasoning_tokens":1}}}`)},
	}
	srv, bodies := endpointServer(t, "/v1/responses", parts...)
	res, err := newClient(srv).ChatStream(context.Background(), Request{Endpoint: workloads.EndpointResponses, Model: "m",
		Messages: []results.Message{{"role": "user", "content": "hi"}}, MaxTokens: 16})
	require.NoError(t, err, "a complete Responses-API stream must succeed")
	assert.Equal(t, "Hello world!", res.Content, "content is the output_text deltas")
	assert.Equal(t, "think", res.Reasoning, "reasoning is the reasoning_text deltas")
	assert.Equal(t, "resp_1", res.RequestID, "request id from response.created")
	assert.Equal(t, "stop", res.FinishReason, "response.completed without a function call finishes with stop")
	assert.True(t, res.Done, "the terminal event ends the stream")
	assert.Equal(t, 4, res.TokenChunks, "1 reasoning + 3 text deltas are token-bearing")
	require.NotNil(t, res.Usage, "usage from response.completed")
	assert.Equal(t, 9, res.PromptTokens, "input_tokens are the prompt tokens")
	assert.Equal(t, 4, res.CompletionTokens, "output_tokens are the completion tokens")
	assert.GreaterOrEqual(t, res.TTFTms, ms(reasonAt), "TTFT counts the first reasoning delta at the scripted 60 ms")
	assert.Less(t, res.TTFTms, ms(textAt), "TTFT is the reasoning delta's, before the first text at 120 ms")
	assert.GreaterOrEqual(t, res.TTFOms, ms(textAt), "TTFO is the first output_text delta at the scripted 120 ms")
	assert.Len(t, res.ITLms, 3, "3 gaps between 4 token-bearing events")
	assert.GreaterOrEqual(t, res.TTFTms+sum(res.ITLms), ms(textAt+2*gap), "the last delta arrives no earlier than its scripted 180 ms")
	assert.LessOrEqual(t, res.TTFTms+sum(res.ITLms), res.E2ELms, "the last delta arrives before the stream ends")
	require.Len(t, *bodies, 1, "one request")
	b := (*bodies)[0]
	assert.Equal(t, 16.0, b["max_output_tokens"], "max_tokens is sent as max_output_tokens")
	assert.Equal(t, false, b["store"], "benchserve never asks the server to store the response")
	assert.Equal(t, true, b["stream"], "streamed")
	assert.Equal(t, []any{map[string]any{"role": "user", "content": "hi"}}, b["input"], "messages become input items")
	assert.NotContains(t, b, "messages", "no chat messages key")
}

func TestResponsesStreamWithoutTerminalEventFails(t *testing.T) {
	srv, _ := endpointServer(t, "/v1/responses", whole(rev(0, "response.created", respObj),
		rev(1, "response.output_text.delta", `"item_id":"msg_1","output_index":0,"delta":"Hi"`))...)
	res, err := newClient(srv).ChatStream(context.Background(), Request{Endpoint: workloads.EndpointResponses, Model: "m"})
	require.ErrorIs(t, err, ErrTruncated, "a Responses stream that ends without a terminal event is a failed request")
	assert.Contains(t, err.Error(), "without a terminal event", "the error names what was missing")
	assert.Equal(t, "Hi", res.Content, "what arrived is kept")
	assert.False(t, res.Done, "not done")
}

func TestResponsesStreamDoneBeforeTerminalFails(t *testing.T) {
	srv, _ := endpointServer(t, "/v1/responses", whole(rev(0, "response.created", respObj), done)...)
	_, err := newClient(srv).ChatStream(context.Background(), Request{Endpoint: workloads.EndpointResponses, Model: "m"})
	assert.ErrorIs(t, err, ErrTruncated, "[DONE] is not a Responses-API terminal event")
}

func TestResponsesStreamFailedAndErrorEvents(t *testing.T) {
	failed := rev(1, "response.failed", `"response":{"id":"resp_1","status":"failed","error":{"code":"server_error","message":"the model crashed"}}`)
	errEv := rev(1, "error", `"code":"rate_limit_exceeded","message":"slow down"`)
	for name, tc := range map[string]struct{ body, msg, code string }{
		"failed": {failed, "the model crashed", "server_error"},
		"error":  {errEv, "slow down", "rate_limit_exceeded"},
	} {
		t.Run(name, func(t *testing.T) {
			srv, _ := endpointServer(t, "/v1/responses", whole(rev(0, "response.created", respObj), tc.body)...)
			_, err := newClient(srv).ChatStream(context.Background(), Request{Endpoint: workloads.EndpointResponses, Model: "m"})
			var se *ServerError
			require.ErrorAs(t, err, &se, "%s fails the request with a ServerError", name)
			assert.Equal(t, tc.msg, se.Message, "the server's message")
			assert.Equal(t, tc.code, se.Code, "the server's code")
		})
	}
}

func TestResponsesStreamIncompleteIsLength(t *testing.T) {
	srv, _ := endpointServer(t, "/v1/responses", whole(rev(0, "response.created", respObj),
		rev(1, "response.output_text.delta", `"item_id":"msg_1","output_index":0,"delta":"Hi"`),
		rev(2, "response.incomplete", `"response":{"id":"resp_1","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":3,"output_tokens":1,"total_tokens":4}}`))...)
	res, err := newClient(srv).ChatStream(context.Background(), Request{Endpoint: workloads.EndpointResponses, Model: "m"})
	require.NoError(t, err, "response.incomplete ends the stream well")
	assert.Equal(t, "length", res.FinishReason, "incomplete for max_output_tokens reads as chat's length")
	assert.Equal(t, 1, res.CompletionTokens, "usage from response.incomplete")
}

func TestResponsesStreamFunctionCall(t *testing.T) {
	srv, _ := endpointServer(t, "/v1/responses", whole(rev(0, "response.created", respObj),
		rev(1, "response.output_item.added", `"output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":""}`),
		rev(2, "response.function_call_arguments.delta", `"item_id":"fc_1","output_index":0,"delta":"{\"city\":"`),
		rev(3, "response.function_call_arguments.delta", `"item_id":"fc_1","output_index":0,"delta":"\"Paris\"}"`),
		rev(4, "response.function_call_arguments.done", `"item_id":"fc_1","output_index":0,"arguments":"{\"city\":\"Paris\"}"`),
		rev(5, "response.output_item.done", `"output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"}`),
		rev(6, "response.completed", `"response":{"id":"resp_1","status":"completed"}`))...)
	res, err := newClient(srv).ChatStream(context.Background(), Request{Endpoint: workloads.EndpointResponses, Model: "m"})
	require.NoError(t, err, "a function-call stream must succeed")
	require.Len(t, res.ToolCalls, 1, "one function call")
	assert.Equal(t, results.ToolCall{ID: "call_1", Type: "function", Function: results.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}},
		res.ToolCalls[0], "the call's id is call_id, arguments the deltas (not doubled by .done)")
	assert.Equal(t, "tool_calls", res.FinishReason, "a completed response with a function call finishes with tool_calls")
	assert.Equal(t, 3, res.TokenChunks, "the named item and two argument deltas are token-bearing")
}

func TestResponsesBodyConvertsToolsAndHistory(t *testing.T) {
	b, err := BuildBody(Request{Endpoint: workloads.EndpointResponses, Model: "m",
		Messages: []results.Message{
			{"role": "user", "content": "weather?"},
			{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{"id": "call_1", "type": "function",
				"function": map[string]any{"name": "get_weather", "arguments": `{"city":"Paris"}`}}}},
			{"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
		},
		ExtraBody: map[string]any{"tools": []any{map[string]any{"type": "function",
			"function": map[string]any{"name": "get_weather", "parameters": map[string]any{"type": "object"}}}}}})
	require.NoError(t, err, "body builds")
	var got map[string]any
	require.NoError(t, json.Unmarshal(b, &got), "body is JSON")
	assert.Equal(t, []any{
		map[string]any{"role": "user", "content": "weather?"},
		map[string]any{"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": `{"city":"Paris"}`},
		map[string]any{"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
	}, got["input"], "tool history becomes function_call and function_call_output items")
	assert.Equal(t, []any{map[string]any{"type": "function", "name": "get_weather", "parameters": map[string]any{"type": "object"}}},
		got["tools"], "chat-shaped tools are flattened")
}
