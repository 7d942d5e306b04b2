package stream

import (
	"bufio"
	"context"
	"math"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchserve/benchserve/results"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestChatStreamSendsReferenceBody(t *testing.T) {
	srv, rec := scriptServer(t, whole(content("c1", "hi"), done)...)
	yes := true
	c := newClient(srv)
	c.APIKey = "sk-test"
	_, err := c.ChatStream(context.Background(), Request{
		Model:          "llama",
		Messages:       []results.Message{{"role": "user", "content": "hello"}},
		EnableThinking: &yes,
		ExtraBody:      map[string]any{"temperature": 0.5, "stream_options": map[string]any{"include_usage": false}},
	})
	require.NoError(t, err, "a well-formed stream must succeed")
	require.Len(t, rec.bodies, 1, "exactly one chat request must reach the server")
	assert.Equal(t, map[string]any{
		"model":           "llama",
		"messages":        []any{map[string]any{"role": "user", "content": "hello"}},
		"max_tokens":      256.0,
		"stream":          true,
		"stream_options":  map[string]any{"include_usage": false},
		"enable_thinking": true,
		"temperature":     0.5,
	}, rec.bodies[0], "body must hold the reference keys, max_tokens defaulting to 256, with extra_body winning")
	assert.Equal(t, "/v1/chat/completions", rec.paths[0], "request path")
	assert.Equal(t, "Bearer sk-test", rec.headers[0].Get("Authorization"), "API key header")
	assert.Equal(t, "text/event-stream", rec.headers[0].Get("Accept"), "Accept header")
	assert.Equal(t, "application/json", rec.headers[0].Get("Content-Type"), "Content-Type header")
}

func TestChatStreamOmitsOptionalFields(t *testing.T) {
	srv, rec := scriptServer(t, whole(content("c1", "hi"), done)...)
	_, err := run(t, srv, Request{MaxTokens: 7})
	require.NoError(t, err, "a well-formed stream must succeed")
	body := rec.bodies[0]
	assert.Equal(t, 7.0, body["max_tokens"], "explicit max_tokens is sent")
	assert.NotContains(t, body, "enable_thinking", "enable_thinking is omitted when nil")
	assert.Equal(t, []any{}, body["messages"], "nil messages are sent as []")
	assert.Empty(t, rec.headers[0].Get("Authorization"), "no Authorization header without an API key")
}

func TestOneTokenChunksWithUsage(t *testing.T) {
	srv, _ := scriptServer(t, whole(
		ev(`{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}`),
		content("chatcmpl-1", "The"), content("chatcmpl-1", " quick"), content("chatcmpl-1", " fox"), content("chatcmpl-1", "."),
		ev(`{"id":"chatcmpl-1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
		ev(`{"id":"chatcmpl-1","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":4,"total_tokens":16}}`),
		done)...)
	res, err := run(t, srv, Request{})
	require.NoError(t, err, "a well-formed stream must succeed")
	assert.Equal(t, "The quick fox.", res.Content, "content is the concatenated deltas")
	assert.Equal(t, "chatcmpl-1", res.RequestID, "request id from the chunk id")
	assert.Equal(t, "stop", res.FinishReason, "finish reason")
	assert.Equal(t, &results.Usage{PromptTokens: 12, CompletionTokens: 4, TotalTokens: 16}, res.Usage, "usage from the choices:[] chunk")
	assert.Equal(t, 12, res.PromptTokens, "prompt tokens from usage")
	assert.Equal(t, 4, res.CompletionTokens, "completion tokens from usage")
	assert.Equal(t, 4, res.TokenChunks, "the role-only and finish chunks are not tokens")
	// The whole body is one write: the 4 chunks are read within
	// microseconds, so the decode span is a burst, not a measurement.
	assert.Equal(t, DecodeBurst, res.DecodeTiming, "4 chunks in one write are a burst")
	assert.Contains(t, res.DecodeNote, "all 4 tokens arrived in 4 chunks within", "the note says what arrived")
	assert.Nil(t, res.ITLms, "no chunk gaps from a burst")
	assert.True(t, math.IsNaN(res.TPOTms), "no TPOT from a burst")
	assert.True(t, math.IsNaN(res.GenTPS), "no gen_tps from a burst")
	assert.True(t, res.Done, "[DONE] was read")
	assert.True(t, res.HasOutput, "content arrived")
	assert.Equal(t, 200, res.StatusCode, "status")
	assert.Equal(t, res.TTFTms, res.TTFOms, "with no reasoning the first output is the first token")
	assert.GreaterOrEqual(t, res.E2ELms, res.TTFTms, "E2E covers TTFT")
	assert.False(t, res.StartedAt.IsZero(), "StartedAt is set")
}

func TestMultiTokenChunksUseUsageForTPOT(t *testing.T) {
	srv, _ := scriptServer(t,
		part{Delay: 0, Data: content("c1", "a b c")},
		part{Delay: 40 * time.Millisecond, Data: content("c1", " d e f")},
		part{Delay: 80 * time.Millisecond, Data: content("c1", " g h i") + usageEv(20, 9) + done},
	)
	res, err := run(t, srv, Request{})
	require.NoError(t, err, "a well-formed stream must succeed")
	assert.Equal(t, 3, res.TokenChunks, "three token-bearing chunks")
	assert.Equal(t, 9, res.CompletionTokens, "completion tokens from usage")
	span := sum(res.ITLms)
	require.Greater(t, span, 0.0, "chunks 40 ms apart must have a positive span")
	// 9 tokens in 3 chunks: 6 of them were produced over the span.
	assert.Equal(t, DecodeByContent, res.DecodeMethod, "no per-chunk usage: apportioned by the chunks' text")
	assert.InDelta(t, 6.0, res.DecodeTokens, 1e-9, "chunks of equal text: 9·2/3, the equal share")
	assert.InDelta(t, span/6, res.TPOTms, 1e-9, "TPOT = span / the tokens after the first chunk, not the mean chunk gap")
	assert.InDelta(t, 6/(span/1000), res.GenTPS, 1e-6, "GenTPS = the tokens after the first chunk / span seconds")
	assert.InDelta(t, span/2, res.RefTPOTms, 1e-9, "the reference's tpot: the mean chunk gap")
	assert.InDelta(t, 9/(span/1000), res.RefGenTPS, 1e-6, "the reference's gen_tps: N / span seconds")
	assert.InDelta(t, 20/(res.TTFTms/1000), res.PromptTPS, 1e-6, "PromptTPS = prompt tokens / TTFT seconds")
	assert.GreaterOrEqual(t, span, 40.0, "the span reflects the scripted 80 ms (a stalled reader can only compress it)")
}

func TestScriptedTimings(t *testing.T) {
	parts := []part{{Delay: 5 * time.Millisecond, Data: ev(`{"id":"c9","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`)}}
	for i := range 5 {
		parts = append(parts, part{Delay: 214*time.Millisecond + time.Duration(i)*30*time.Millisecond, Data: content("c9", "t")})
	}
	parts = append(parts, part{Delay: 360 * time.Millisecond, Data: usageEv(3, 5) + done})
	srv, _ := scriptServer(t, parts...)
	res, err := run(t, srv, Request{})
	require.NoError(t, err, "a well-formed stream must succeed")
	assert.Equal(t, 5, res.TokenChunks, "the role chunk with empty content is not a token")
	assert.GreaterOrEqual(t, res.TTFTms, 214.0, "TTFT is measured at the first content chunk (scripted at 214 ms), not the role chunk")
	assert.LessOrEqual(t, res.TTFTms, 214.0+slackMS, "TTFT within scheduling tolerance")
	assert.LessOrEqual(t, sum(res.ITLms), 120.0+slackMS, "4 gaps of 30 ms, within tolerance")
	for i, g := range res.ITLms {
		assert.GreaterOrEqual(t, g, 0.0, "ITL[%d] non-negative", i)
	}
	assert.GreaterOrEqual(t, res.E2ELms, 360.0, "E2E covers the final usage chunk at 360 ms")
	assert.InDelta(t, sum(res.ITLms)/4, res.TPOTms, 1e-9, "TPOT formula")
}

func TestReasoningBeforeContent(t *testing.T) {
	for _, key := range []string{"reasoning_content", "reasoning"} {
		t.Run(key, func(t *testing.T) {
			srv, _ := scriptServer(t,
				part{Delay: 0, Data: ev(`{"id":"r1","choices":[{"delta":{"role":"assistant"}}]}`)},
				part{Delay: 50 * time.Millisecond, Data: ev(`{"id":"r1","choices":[{"delta":{"` + key + `":"Let me"}}]}`)},
				part{Delay: 60 * time.Millisecond, Data: ev(`{"id":"r1","choices":[{"delta":{"` + key + `":" think."}}]}`)},
				part{Delay: 200 * time.Millisecond, Data: ev(`{"id":"r1","choices":[{"delta":{"content":"42"},"finish_reason":"stop"}]}`) + done},
			)
			res, err := run(t, srv, Request{})
			require.NoError(t, err, "a well-formed stream must succeed")
			assert.Equal(t, "Let me think.", res.Reasoning, "reasoning deltas are concatenated")
			assert.Equal(t, "42", res.Content, "content")
			assert.Equal(t, 3, res.TokenChunks, "reasoning chunks are tokens")
			assert.True(t, res.HasOutput, "content arrived")
			assert.GreaterOrEqual(t, res.TTFTms, 50.0, "TTFT at the first reasoning chunk (50 ms)")
			assert.LessOrEqual(t, res.TTFTms, 50.0+slackMS, "TTFT within tolerance")
			assert.Less(t, res.TTFTms, res.TTFOms, "TTFT must not wait for content")
			assert.GreaterOrEqual(t, res.TTFOms, 200.0, "TTFO at the first content chunk (200 ms)")
			assert.LessOrEqual(t, res.TTFOms, 200.0+slackMS, "TTFO within tolerance")
			assert.Equal(t, 0, res.CompletionTokens-3, "without usage CompletionTokens counts token chunks")
		})
	}
}

func TestBothReasoningKeysAreNotDoubled(t *testing.T) {
	srv, _ := scriptServer(t, whole(
		ev(`{"choices":[{"delta":{"reasoning_content":"x","reasoning":"x"}}]}`),
		ev(`{"choices":[{"delta":{"reasoning_content":"","reasoning":"y"}}]}`), done)...)
	res, err := run(t, srv, Request{})
	require.NoError(t, err, "stream must succeed")
	assert.Equal(t, "xy", res.Reasoning, "reasoning_content wins when non-empty, else reasoning")
	assert.False(t, res.HasOutput, "reasoning only: no output")
	assert.Equal(t, 0.0, res.TTFOms, "TTFO is 0 without output")
}

func TestNoUsage(t *testing.T) {
	srv, _ := scriptServer(t, whole(content("a", "x"), content("a", "y"), content("a", ""), content("a", "z"), done)...)
	res, err := run(t, srv, Request{})
	require.NoError(t, err, "stream must succeed")
	assert.Nil(t, res.Usage, "usage absent is recorded as nil")
	assert.Equal(t, 0, res.PromptTokens, "no prompt tokens without usage")
	assert.Equal(t, 3, res.CompletionTokens, "completion tokens fall back to the non-empty token chunks")
	assert.Equal(t, 3, res.TokenChunks, "an empty-content chunk is not a token")
	assert.Equal(t, "", res.FinishReason, "missing finish_reason stays empty")
	assert.Equal(t, 0.0, res.PromptTPS, "prompt TPS 0 without prompt tokens")
}

func TestUsageAfterFinishWithUnknownFields(t *testing.T) {
	srv, _ := scriptServer(t, whole(
		ev(`{"id":"x","object":"chat.completion.chunk","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":"ok"},"logprobs":null,"finish_reason":null,"stop_reason":null}]}`),
		ev(`{"id":"x","choices":[{"index":0,"delta":{},"finish_reason":"length","stop_reason":128}]}`),
		ev(`{"id":"x","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6,"prompt_tokens_details":{"cached_tokens":0}},"timings":{"prompt_n":5,"predicted_ms":1.5}}`),
		done)...)
	res, err := run(t, srv, Request{})
	require.NoError(t, err, "unknown fields must be ignored")
	assert.Equal(t, "length", res.FinishReason, "finish reason from the finish chunk")
	require.NotNil(t, res.Usage, "usage must be read from the trailing chunk")
	zero := 0
	assert.Equal(t, results.Usage{PromptTokens: 5, CompletionTokens: 1, TotalTokens: 6,
		PromptTokensDetails: &results.PromptTokensDetails{CachedTokens: &zero}}, *res.Usage, "usage values, the cached prompt tokens kept (0: a miss)")
	assert.Equal(t, DecodeSingleChunk, res.DecodeTiming, "one token-bearing chunk: no decode span")
	assert.Equal(t, "all 1 tokens arrived in one chunk", res.DecodeNote, "the note says why")
	assert.True(t, math.IsNaN(res.TPOTms), "TPOT is not measured (NaN, null in records), never 0")
	assert.True(t, math.IsNaN(res.GenTPS), "GenTPS is not measured (NaN, null in records), never 0")
}

func TestFinishReasonLastNonEmptyWins(t *testing.T) {
	srv, _ := scriptServer(t, whole(
		ev(`{"choices":[{"delta":{"content":"a"},"finish_reason":""}]}`),
		ev(`{"choices":[{"delta":{"content":"b"},"finish_reason":""}]}`),
		ev(`{"choices":[{"delta":{},"finish_reason":"stop"}]}`),
		ev(`{"choices":[{"delta":{},"finish_reason":null}]}`),
		ev(`{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}`), done)...)
	res, err := run(t, srv, Request{})
	require.NoError(t, err, "stream must succeed")
	assert.Equal(t, "stop", res.FinishReason, `"" and null never replace a real finish reason`)
	assert.Equal(t, "ab", res.Content, "content")
}

func TestSSEFieldForms(t *testing.T) {
	tests := []struct {
		name  string
		parts []part
	}{
		{"data without space", whole(`data:{"choices":[{"delta":{"content":"A"}}]}`+"\n\n", `data:{"choices":[{"delta":{"content":"B"}}]}`+"\n\n", "data:[DONE]\n\n")},
		{"comments retry id event", whole(": keep-alive\n\n", "retry: 3000\n\n", "id: 7\nevent: message\n"+`data: {"choices":[{"delta":{"content":"A"}}]}`+"\n\n", ":ping\n", `data: {"choices":[{"delta":{"content":"B"}}]}`+"\n\n", "event: done\ndata: [DONE]\n\n")},
		{"CRLF", whole(strings.ReplaceAll(ev(`{"choices":[{"delta":{"content":"A"}}]}`)+": c\n"+ev(`{"choices":[{"delta":{"content":"B"}}]}`)+done, "\n", "\r\n"))},
		{"CR only", whole(strings.ReplaceAll(ev(`{"choices":[{"delta":{"content":"A"}}]}`)+ev(`{"choices":[{"delta":{"content":"B"}}]}`)+done, "\n", "\r"))},
		{"no final blank line", whole(ev(`{"choices":[{"delta":{"content":"A"}}]}`), ev(`{"choices":[{"delta":{"content":"B"}}]}`), "data: [DONE]\n")},
		{"no final newline", whole(ev(`{"choices":[{"delta":{"content":"A"}}]}`), ev(`{"choices":[{"delta":{"content":"B"}}]}`), "data: [DONE]")},
		{"multi-line data", whole("data: {\"choices\":[{\"delta\":\ndata: {\"content\":\"A\"}}]}\n\n", ev(`{"choices":[{"delta":{"content":"B"}}]}`), done)},
		{"keep-alive empty data", whole("data:\n\n", "data: \n\n", ev(`{"choices":[{"delta":{"content":"A"}}]}`), ev(`{"choices":[{"delta":{"content":"B"}}]}`), done)},
		{"split in 3-byte reads", pieces(ev(`{"choices":[{"delta":{"content":"A"}}]}`)+ev(`{"choices":[{"delta":{"content":"B"}}]}`)+done, 3)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := scriptServer(t, tc.parts...)
			res, err := run(t, srv, Request{})
			require.NoError(t, err, "the transcript is a complete stream")
			assert.Equal(t, "AB", res.Content, "both content events are read")
			assert.Equal(t, 2, res.TokenChunks, "two token chunks")
			assert.True(t, res.Done, "[DONE] recognised")
		})
	}
}

func TestLargeEventAndUTF8SplitAcrossReads(t *testing.T) {
	big := strings.Repeat("x", 200_000)
	text := "Zürich 修复 😀"
	transcript := ev(`{"choices":[{"delta":{"content":"`+big+`"}}]}`) + content("u", text) + done
	for _, n := range []int{1, 7} {
		t.Run(strings.Repeat("b", n), func(t *testing.T) {
			// The big event in 4 KiB writes, the UTF-8 event and [DONE]
			// in n-byte writes, each flushed.
			cut := len(transcript) - len(content("u", text)+done)
			parts := append(pieces(transcript[:cut], 4096), pieces(transcript[cut:], n)...)
			srv, _ := scriptServer(t, parts...)
			res, err := run(t, srv, Request{})
			require.NoError(t, err, "a 200 kB event is below the 16 MiB default")
			assert.Equal(t, big+text, res.Content, "content intact, multi-byte runes split across reads included")
			assert.Equal(t, 2, res.TokenChunks, "two token chunks")
		})
	}
	t.Run("whole transcript in 7-byte writes", func(t *testing.T) {
		srv, _ := scriptServer(t, pieces(transcript, 7)...)
		res, err := run(t, srv, Request{})
		require.NoError(t, err, "stream must succeed")
		assert.Equal(t, big+text, res.Content, "content intact")
	})
}

func TestEventTooLarge(t *testing.T) {
	srv, _ := scriptServer(t, whole(content("a", "ok"), ev(`{"choices":[{"delta":{"content":"`+strings.Repeat("y", 5000)+`"}}]}`), done)...)
	c := newClient(srv)
	c.MaxEventBytes = 1024
	res, err := c.ChatStream(context.Background(), Request{Model: "m"})
	require.Error(t, err, "an event above MaxEventBytes must fail, not be truncated")
	assert.ErrorIs(t, err, ErrEventTooLarge, "sentinel")
	assert.ErrorIs(t, err, bufio.ErrTooLong, "the splitter's error is wrapped")
	assert.Contains(t, err.Error(), "1024", "the message names the limit")
	assert.Equal(t, "ok", res.Content, "content before the big event is kept")
	assert.False(t, res.Done, "not done")
}

func TestErrorObjectAfterPartialContent(t *testing.T) {
	srv, _ := scriptServer(t, whole(content("e1", "Hel"), content("e1", "lo"),
		ev(`{"id":"e1","error":{"message":"CUDA out of memory","type":"InternalServerError","code":500}}`), done)...)
	res, err := run(t, srv, Request{})
	var se *ServerError
	require.ErrorAs(t, err, &se, "an error object in a 200 stream is a ServerError")
	assert.Equal(t, "CUDA out of memory", se.Message, "server message")
	assert.Equal(t, "500", se.Code, "numeric code rendered")
	assert.Equal(t, "Hello", res.Content, "partial content kept")
	assert.Equal(t, 2, res.TokenChunks, "partial token count kept")
	assert.Equal(t, "e1", res.RequestID, "request id kept")
	assert.False(t, res.Done, "not done")
	assert.Greater(t, res.E2ELms, 0.0, "E2E measured to the failure")
}

func TestStringErrorWithErrorType(t *testing.T) {
	srv, _ := scriptServer(t, whole(content("e", "x"), ev(`{"error":"Input validation error: too long","error_type":"validation"}`), done)...)
	_, err := run(t, srv, Request{})
	var se *ServerError
	require.ErrorAs(t, err, &se, "a string error is a ServerError")
	assert.Equal(t, "Input validation error: too long", se.Message, "message")
	assert.Equal(t, "validation", se.Code, "error_type becomes the code")
}

func TestSSEErrorField(t *testing.T) {
	srv, _ := scriptServer(t, whole(content("e", "x"), "error: model worker crashed\n\n", done)...)
	res, err := run(t, srv, Request{})
	var se *ServerError
	require.ErrorAs(t, err, &se, "an error: field is a ServerError")
	assert.Equal(t, "model worker crashed", se.Message, "message")
	assert.Equal(t, "x", res.Content, "content before kept")
}

func TestEventTypeError(t *testing.T) {
	srv, _ := scriptServer(t, whole("event: error\n"+`data: {"error":{"message":"overloaded","code":"busy"}}`+"\n\n", done)...)
	_, err := run(t, srv, Request{})
	var se *ServerError
	require.ErrorAs(t, err, &se, "event: error is a ServerError")
	assert.Equal(t, "overloaded", se.Message, "message")
	assert.Equal(t, "busy", se.Code, "code")
}

func TestNullErrorIsNotAnError(t *testing.T) {
	srv, _ := scriptServer(t, whole(ev(`{"choices":[{"delta":{"content":"ok"}}],"error":null}`), done)...)
	res, err := run(t, srv, Request{})
	require.NoError(t, err, `"error": null is no error`)
	assert.Equal(t, "ok", res.Content, "content")
}

func TestMalformedEvent(t *testing.T) {
	srv, _ := scriptServer(t, whole(content("a", "ok"), "data: {not json\n\n", done)...)
	res, err := run(t, srv, Request{})
	assert.ErrorIs(t, err, ErrMalformed, "a non-JSON data event is reported")
	assert.NotErrorIs(t, err, ErrTruncated, "a complete bad event is not a truncation")
	assert.Equal(t, "ok", res.Content, "content before kept")
}

func TestTruncatedFinalEvent(t *testing.T) {
	srv, _ := scriptServer(t, whole(content("a", "ok"), `data: {"choices":[{"delta":{"cont`)...)
	_, err := run(t, srv, Request{})
	assert.ErrorIs(t, err, ErrTruncated, "a body ending inside an event is truncated")
}

func TestToolCallsInStream(t *testing.T) {
	srv, _ := scriptServer(t, whole(
		ev(`{"choices":[{"delta":{"role":"assistant"}}]}`),
		ev(`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}`),
		ev(`{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":"{\"tz\":"}}]}}]}`),
		ev(`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"","arguments":"{\"city\":"}}]}}]}`),
		ev(`{"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"name":"","arguments":"\"UTC\"}"}}]}}]}`),
		ev(`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"","arguments":"\"Paris\"}"}}]}}]}`),
		ev(`{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}`), done)...)
	res, err := run(t, srv, Request{})
	require.NoError(t, err, "stream must succeed")
	assert.Equal(t, []results.ToolCall{
		{ID: "call_a", Type: "function", Function: results.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}},
		{ID: "call_b", Type: "function", Function: results.FunctionCall{Name: "get_time", Arguments: `{"tz":"UTC"}`}},
	}, res.ToolCalls, "interleaved parallel calls merged by index; empty names never append")
	assert.True(t, res.HasOutput, "tool calls are output")
	assert.Equal(t, 5, res.TokenChunks, "each tool-call delta chunk is a token chunk")
	assert.Equal(t, res.TTFTms, res.TTFOms, "the first tool call is the first output")
	assert.Equal(t, "tool_calls", res.FinishReason, "finish reason")
}

func TestToolCallsWithoutIndexInStream(t *testing.T) {
	srv, _ := scriptServer(t, whole(
		ev(`{"choices":[{"delta":{"tool_calls":[{"id":"t1","function":{"name":"a","arguments":"{\"x\""}}]}}]}`),
		ev(`{"choices":[{"delta":{"tool_calls":[{"index":null,"function":{"arguments":":1}"}}]}}]}`),
		ev(`{"choices":[{"delta":{"tool_calls":[{"index":null,"id":"t2","function":{"name":"b","arguments":"{}"}}]}}]}`),
		done)...)
	res, err := run(t, srv, Request{})
	require.NoError(t, err, "stream must succeed")
	assert.Equal(t, []results.ToolCall{
		{ID: "t1", Type: "function", Function: results.FunctionCall{Name: "a", Arguments: `{"x":1}`}},
		{ID: "t2", Type: "function", Function: results.FunctionCall{Name: "b", Arguments: `{}`}},
	}, res.ToolCalls, "index-less deltas continue the last call until a new id arrives")
}

func TestEOFWithoutDone(t *testing.T) {
	srv, _ := scriptServer(t, whole(content("t", "par"), content("t", "tial"))...)
	res, err := run(t, srv, Request{})
	assert.ErrorIs(t, err, ErrTruncated, "a body without [DONE] is truncated")
	assert.Contains(t, err.Error(), "after 2 events", "the message says how far it got")
	assert.Equal(t, "partial", res.Content, "received content kept")
	assert.Equal(t, 2, res.TokenChunks, "received tokens kept")
	assert.False(t, res.Done, "not done")
}

func TestHTTPErrors(t *testing.T) {
	long := strings.Repeat("é", 3000)
	tests := []struct {
		name, ctype, body string
		status            int
		want              string
	}{
		{"openai object", "application/json", `{"error":{"message":"model 'x' not found","type":"invalid_request_error","code":"model_not_found"}}`, 404, "model 'x' not found"},
		{"error string", "application/json", `{"error":"rate limited"}`, 429, "rate limited"},
		{"fastapi detail string", "application/json", `{"detail":"Not authenticated"}`, 401, "Not authenticated"},
		{"fastapi detail list", "application/json", `{"detail":[{"loc":["body","messages"],"msg":"field required"}]}`, 422, `[{"loc":["body","messages"],"msg":"field required"}]`},
		{"message key", "application/json", `{"message":"engine is sleeping"}`, 503, "engine is sleeping"},
		{"plain text", "text/plain", "upstream connect error\n", 502, "upstream connect error"},
		{"html without title", "text/html", "<html><body>Bad Gateway</body></html>", 502, "Bad Gateway"},
		{"html title", "text/html; charset=utf-8", "<!DOCTYPE html><html><head><title>503 Service Temporarily Unavailable</title><style>b{}</style></head><body><h1>503 Service Temporarily Unavailable</h1><hr><center>nginx</center></body></html>", 503, "503 Service Temporarily Unavailable"},
		{"html sniffed, entities", "", "<html><body><p>Tom &amp; Jerry\n  are   down</p><script>x()</script></body></html>", 500, "Tom & Jerry are down"},
		{"empty", "text/plain", "", 500, "Internal Server Error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := handlerServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.ctype)
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			})
			res, err := run(t, srv, Request{})
			var he *HTTPError
			require.ErrorAs(t, err, &he, "a non-2xx answer is an HTTPError")
			assert.Equal(t, tc.status, he.StatusCode, "status in the error")
			assert.Equal(t, tc.want, he.Message, "server message extracted")
			assert.Equal(t, tc.status, res.StatusCode, "status in the result")
			assert.Equal(t, 0, res.TokenChunks, "no tokens")
		})
	}
	t.Run("long body capped at 2 KiB", func(t *testing.T) {
		srv, _ := handlerServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(500)
			_, _ = w.Write([]byte(long))
		})
		_, err := run(t, srv, Request{})
		var he *HTTPError
		require.ErrorAs(t, err, &he, "HTTPError")
		assert.LessOrEqual(t, len(he.Message), 2048+len("…"), "message capped at 2 KiB")
		assert.True(t, strings.HasPrefix(he.Message, strings.Repeat("é", 1000)), "cut on a rune boundary")
		assert.True(t, strings.HasSuffix(he.Message, "…"), "cut marked")
	})
}

func TestRedirectIsNotFollowed(t *testing.T) {
	srv, rec := handlerServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere/v1/chat/completions", http.StatusTemporaryRedirect)
	})
	c := &Client{BaseURL: srv.URL} // default HTTP client
	res, err := c.ChatStream(context.Background(), Request{Model: "m"})
	var he *HTTPError
	require.ErrorAs(t, err, &he, "a redirect is an HTTPError")
	assert.Equal(t, http.StatusTemporaryRedirect, he.StatusCode, "redirect status")
	assert.Contains(t, he.Message, "/elsewhere/v1/chat/completions", "the message says where it pointed")
	assert.Equal(t, http.StatusTemporaryRedirect, res.StatusCode, "status in result")
	rec.mu.Lock()
	defer rec.mu.Unlock()
	assert.Len(t, rec.paths, 1, "the redirect target was not requested")
}

func TestPolicyTimeoutAfterRoleChunkCancelsOnServer(t *testing.T) {
	srv, rec := scriptServer(t,
		part{Data: ev(`{"id":"chatcmpl-hang","choices":[{"delta":{"role":"assistant"}}]}`)},
		part{Delay: time.Hour, Data: done})
	start := time.Now()
	res, err := run(t, srv, Request{Timeout: 300 * time.Millisecond})
	assert.ErrorIs(t, err, ErrPolicyTimeout, "policy timeout sentinel")
	assert.NotErrorIs(t, err, context.DeadlineExceeded, "the caller's context did not end")
	assert.Less(t, time.Since(start), 5*time.Second, "returns promptly after the timeout")
	assert.GreaterOrEqual(t, res.E2ELms, 300.0, "E2E covers the policy timeout")
	assert.Equal(t, "chatcmpl-hang", res.RequestID, "request id kept")
	assert.Equal(t, []string{"chatcmpl-hang"}, rec.cancelledIDs(), "the server was asked to cancel the request")
	assert.Equal(t, "stream_chat_completion timed out after 0.300s", err.Error(), "the reference's TimeoutError wording, with the limit")
}

func TestPolicyTimeoutServerNeverAnswers(t *testing.T) {
	srv, rec := handlerServer(t, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	res, err := run(t, srv, Request{Timeout: 200 * time.Millisecond})
	assert.ErrorIs(t, err, ErrPolicyTimeout, "policy timeout sentinel")
	assert.Equal(t, 0, res.StatusCode, "no response arrived")
	assert.GreaterOrEqual(t, res.E2ELms, 200.0, "E2E covers the timeout")
	assert.Equal(t, res.E2ELms, res.TTFTms, "TTFT = E2E when no token arrived (reference)")
	assert.Empty(t, rec.cancelledIDs(), "no id known, so no cancel call")
}

func TestSlowDripUnderPolicyTimeout(t *testing.T) {
	var parts []part
	for i := range 200 {
		parts = append(parts, part{Delay: time.Duration(i) * 50 * time.Millisecond, Data: content("drip", "t")})
	}
	srv, rec := scriptServer(t, parts...)
	res, err := run(t, srv, Request{Timeout: 400 * time.Millisecond})
	assert.ErrorIs(t, err, ErrPolicyTimeout, "a slow drip is cut by the policy timeout")
	assert.GreaterOrEqual(t, res.TokenChunks, 2, "some tokens arrived before the timeout")
	assert.LessOrEqual(t, res.TokenChunks, 9, "no tokens after the timeout")
	assert.Equal(t, strings.Repeat("t", res.TokenChunks), res.Content, "partial content kept")
	assert.Len(t, res.ITLms, res.TokenChunks-1, "ITL for the received tokens")
	assert.Equal(t, []string{"drip"}, rec.cancelledIDs(), "server cancel called with the id")
}

func TestCallerCancellation(t *testing.T) {
	srv, rec := scriptServer(t, part{Data: content("cc", "a")}, part{Delay: time.Hour, Data: done})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(150*time.Millisecond, cancel)
	res, err := newClient(srv).ChatStream(ctx, Request{Model: "m", Timeout: time.Minute})
	assert.ErrorIs(t, err, context.Canceled, "the caller's cancellation is returned")
	assert.NotErrorIs(t, err, ErrPolicyTimeout, "not a policy timeout")
	assert.Equal(t, "a", res.Content, "partial content kept")
	assert.Empty(t, rec.cancelledIDs(), "no server cancel for a caller cancellation")
}

// hijackServer answers with a raw HTTP/1.1 head and body, then closes the
// connection (with RST when reset is set).
func hijackServer(t *testing.T, head, body string, reset bool) (*Client, func()) {
	srv, _ := handlerServer(t, func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		_, _ = buf.WriteString(head + body)
		_ = buf.Flush()
		// Give the client time to read what was sent: a RST discards
		// unread data in the client's receive buffer. The server cannot
		// see the client's reads, so this is a generous wait, not a sync.
		time.Sleep(300 * time.Millisecond)
		if tc, ok := conn.(*net.TCPConn); ok && reset {
			_ = tc.SetLinger(0)
		}
		_ = conn.Close()
	})
	return newClient(srv), srv.Close
}

func TestConnectionResetMidStream(t *testing.T) {
	body := content("rst", "one") + content("rst", "two")
	t.Run("RST", func(t *testing.T) {
		c, _ := hijackServer(t, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n", body+`data: {"choices":[{"del`, true)
		res, err := c.ChatStream(context.Background(), Request{Model: "m"})
		assert.ErrorIs(t, err, ErrConnectionLost, "a reset is reported as a lost connection")
		assert.ErrorIs(t, err, syscall.ECONNRESET, "the net error is wrapped")
		assert.Equal(t, "onetwo", res.Content, "content before the reset kept; the cut fragment is dropped")
		assert.NotErrorIs(t, err, ErrMalformed, "the fragment is not parsed")
	})
	t.Run("chunked body cut", func(t *testing.T) {
		c, _ := hijackServer(t, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n",
			chunk(body)+chunk(`data: {"choices":[{"del`), false)
		res, err := c.ChatStream(context.Background(), Request{Model: "m"})
		assert.ErrorIs(t, err, ErrConnectionLost, "a chunked body cut short is a lost connection")
		assert.Equal(t, "onetwo", res.Content, "content kept")
	})
}

func chunk(s string) string { return strings.ToUpper(strconvHex(len(s))) + "\r\n" + s + "\r\n" }

func strconvHex(n int) string {
	const digits = "0123456789abcdef"
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{digits[n%16]}, b...)
		n /= 16
	}
	return string(b)
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err, "listen")
	addr := ln.Addr().String()
	require.NoError(t, ln.Close(), "close listener")
	res, err := (&Client{BaseURL: "http://" + addr}).ChatStream(context.Background(), Request{Model: "m"})
	assert.ErrorIs(t, err, syscall.ECONNREFUSED, "send error wrapped")
	assert.Equal(t, 0, res.StatusCode, "no status")
	assert.True(t, strings.HasPrefix(err.Error(), "stream: chat: send: "), "error prefix: %v", err)
}

func TestCancelEscapesID(t *testing.T) {
	srv, rec := handlerServer(t, func(w http.ResponseWriter, r *http.Request) {})
	c := newClient(srv)
	require.NoError(t, c.Cancel(context.Background(), "chatcmpl-a/b c"), "cancel must succeed")
	assert.Equal(t, []string{"chatcmpl-a/b c"}, rec.cancelledIDs(), "the id arrives intact (path-escaped on the wire)")
	assert.Error(t, c.Cancel(context.Background(), ""), "an empty id is an error")
	err := (&Client{BaseURL: srv.URL + "/nope", HTTP: srv.Client()}).Cancel(context.Background(), "x")
	var he *HTTPError
	require.ErrorAs(t, err, &he, "a missing endpoint is an HTTPError")
	assert.Equal(t, 404, he.StatusCode, "404")
}

func TestServerErrorShapes(t *testing.T) {
	tests := []struct {
		raw, errType, msg, code string
	}{
		{`{"message":"m","code":"c"}`, "", "m", "c"},
		{`{"message":"m","type":"t"}`, "", "m", "t"},
		{`"plain"`, "et", "plain", "et"},
		{`{"error":{"message":"inner","code":429}}`, "", "inner", "429"},
		{`{"error":"s","error_type":"x"}`, "", "s", "x"},
		{`not json`, "", "not json", ""},
		{`{"foo":1}`, "", `{"foo":1}`, ""},
	}
	for _, tc := range tests {
		se := serverError([]byte(tc.raw), []byte(tc.errType))
		assert.Equal(t, tc.msg, se.Message, "message for %s", tc.raw)
		assert.Equal(t, tc.code, se.Code, "code for %s", tc.raw)
	}
}

// TestPolicyTimeoutOneClock: the limit and the record share one clock, so
// a request that timed out reports an E2E of at least the limit however
// long the client stalled between starting the timer and sending.
func TestPolicyTimeoutOneClock(t *testing.T) {
	srv, _ := handlerServer(t, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	const limit = 100 * time.Millisecond
	c := newClient(srv)
	c.beforeSend = func() { time.Sleep(limit + 50*time.Millisecond) }
	res, err := c.ChatStream(context.Background(), Request{Model: "m", Timeout: limit})
	assert.ErrorIs(t, err, ErrPolicyTimeout, "the stalled request hit its policy timeout")
	assert.GreaterOrEqual(t, res.E2ELms, 100.0, "a request that timed out at 100 ms reports E2E >= 100 ms")
	var pe *PolicyTimeoutError
	if assert.ErrorAs(t, err, &pe, "a PolicyTimeoutError") {
		assert.GreaterOrEqual(t, pe.Elapsed, limit, "the error's elapsed time is on the same clock")
	}
}

// TestOverLimitNeedsTheDeadline: a timer that fired after the stream had
// already ended (before ChatStream stopped it) does not turn the stream
// into a policy timeout; one that ended at or after the deadline is one.
func TestOverLimitNeedsTheDeadline(t *testing.T) {
	start := time.Now()
	st := &state{start: start, deadline: start.Add(100 * time.Millisecond)}
	st.policyFired.Store(true)
	st.end = start.Add(99 * time.Millisecond)
	assert.False(t, st.overLimit(), "ended at 99 ms under a 100 ms limit: not timed out")
	st.end = start.Add(100 * time.Millisecond)
	assert.True(t, st.overLimit(), "ended at the 100 ms deadline after the timer fired: timed out")
	st.policyFired.Store(false)
	assert.False(t, st.overLimit(), "the timer did not fire: not timed out")
}
