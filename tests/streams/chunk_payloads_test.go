package streams_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
)

// TestCase06ErrorsInStream: the server reports an error inside an HTTP 200
// stream, in every shape seen in the wild. The case must fail with the
// server's message, never be a success with 0 tokens, and be left out of
// latency statistics.
func TestCase06ErrorsInStream(t *testing.T) {
	const id = "chatcmpl-err"
	partial := sse(delta(id, `{"role":"assistant"}`, "null")) + sse(text(id, "Par")) + sse(text(id, "tial"))
	tgi := "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens and 200 `max_new_tokens`"
	tests := []struct {
		name, transcript, msg, code, content string
		usage                                bool
	}{
		{"openai object with code 504 after partial content",
			partial + sse(`{"error":{"message":"upstream request timeout","type":"server_error","param":null,"code":504}}`) + done,
			"upstream request timeout", "504", "Partial", false},
		{"TGI string error with error_type",
			partial + sse(`{"error":"`+strings.ReplaceAll(tgi, "`", "`")+`","error_type":"validation"}`) + done,
			tgi, "validation", "Partial", false},
		{"non-standard error: field",
			partial + `error: {"message":"model worker crashed","code":"worker_crash"}` + "\n\n" + done,
			"model worker crashed", "worker_crash", "Partial", false},
		{"error: field with plain text",
			partial + "error: CUDA error: out of memory\n\n",
			"CUDA error: out of memory", "", "Partial", false},
		{"event: error block",
			partial + "event: error\ndata: {\"error\":{\"message\":\"Overloaded\",\"type\":\"overloaded_error\"}}\n\n",
			"Overloaded", "overloaded_error", "Partial", false},
		{"after the usage chunk",
			partial + sse(delta(id, `{}`, `"stop"`)) + sse(usage(id, 12, 2)) + sse(`{"error":{"message":"stream writer failed","code":500}}`),
			"stream writer failed", "500", "Partial", true},
		{"code as a string",
			partial + sse(`{"id":"`+id+`","error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`) + done,
			"Rate limit reached for requests", "rate_limit_exceeded", "Partial", false},
		{"first event, no content at all",
			sse(`{"error":{"message":"prompt is too long","code":400}}`) + done,
			"prompt is too long", "400", "", false},
		{"vLLM ErrorResponse without envelope",
			sse(text(id, "x")) + sse(`{"object":"error","message":"This model's maximum context length is 4096 tokens.","type":"BadRequestError","param":null,"code":400}`) + done,
			"This model's maximum context length is 4096 tokens.", "400", "x", false},
	}
	var records []results.Record
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := chat(t, body(t, tc.transcript))
			var se *stream.ServerError
			require.ErrorAs(t, err, &se, "an error inside a 200 stream is a *stream.ServerError")
			assert.Equal(t, tc.msg, se.Message, "the server's message")
			assert.Equal(t, tc.code, se.Code, "the server's code")
			assert.Contains(t, err.Error(), tc.msg, "the error text carries the server's message")
			assert.Equal(t, tc.content, res.Content, "content before the error is kept")
			assert.False(t, res.Done, "an errored stream is not done")
			assert.Equal(t, tc.usage, res.Usage != nil, "usage kept when it came before the error")

			out := record(t, body(t, tc.transcript), simpleCase("err", ""))
			rec := out.Record
			assert.True(t, errors.As(out.Err, &se), "the runner keeps the ServerError")
			assert.False(t, rec.OK, "never a success")
			assert.Contains(t, rec.Error, tc.msg, "record error has the server's message")
			require.NotEmpty(t, rec.Quality.Issues, "issues")
			assert.Equal(t, "request error: "+rec.Error, rec.Quality.Issues[0], "the error, the root cause, is the first issue")
			for _, is := range rec.Quality.Issues[1:] {
				assert.True(t, strings.HasPrefix(is, runner.ConsequencePrefix), "the failures after it are marked as its consequences: %s", is)
			}
			records = append(records, rec)
		})
	}
	t.Run("left out of latency statistics", func(t *testing.T) {
		require.Len(t, records, len(tests), "every variant produced a record")
		good := record(t, body(t, sse(text(id, "fine"))+sse(delta(id, `{}`, `"stop"`))+sse(usage(id, 3, 1))+done), simpleCase("err", ""))
		require.NoError(t, good.Err, "the good case succeeds")
		all := append(append([]results.Record{}, records...), good.Record)
		sum := results.Summarize(all)
		assert.Equal(t, len(all), sum.CaseCount, "errored records still count as samples")
		assert.Equal(t, len(tests), sum.FailureCount, "and as failures")
		require.NotNil(t, sum.LatencyMS, "latency stats from the successful record")
		assert.Equal(t, good.Record.Metrics.E2ELms, sum.LatencyMS.Min, "latency min is the one success")
		assert.Equal(t, good.Record.Metrics.E2ELms, sum.LatencyMS.Max, "latency max is the one success: no errored sample")
		require.NotNil(t, sum.TTFTms, "TTFT stats")
		assert.Equal(t, good.Record.Metrics.TTFTms, sum.TTFTms.Mean, "TTFT mean is the success's alone")
		cs := sum.CaseSummaries["err"]
		require.NotNil(t, cs.LatencyMS, "case latency stats")
		assert.Equal(t, good.Record.Metrics.E2ELms, cs.LatencyMS.Mean, "case latency mean is the success's alone")
	})
}

// TestCase07ToolCallDeltas: tool-call deltas without "index" or with
// "index": null; parallel calls whose id comes only on the first delta,
// later deltas repeating "name": "", interleaved by index; every call sent
// with index 0.
func TestCase07ToolCallDeltas(t *testing.T) {
	const id = "chatcmpl-tc"
	tc := func(deltas string) string { return sse(delta(id, `{"tool_calls":`+deltas+`}`, "null")) }
	end := sse(delta(id, `{}`, `"tool_calls"`)) + sse(usage(id, 30, 12)) + done
	weather := results.ToolCall{ID: "call_w", Type: "function", Function: results.FunctionCall{Name: "get_weather", Arguments: `{"city":"Zürich"}`}}
	clock := results.ToolCall{ID: "call_t", Type: "function", Function: results.FunctionCall{Name: "get_time", Arguments: `{"tz":"UTC"}`}}
	tests := map[string]string{
		"no index": tc(`[{"id":"call_w","type":"function","function":{"name":"get_weather","arguments":""}}]`) +
			tc(`[{"function":{"arguments":"{\"city\":"}}]`) + tc(`[{"function":{"arguments":"\"Zürich\"}"}}]`) +
			tc(`[{"id":"call_t","type":"function","function":{"name":"get_time","arguments":"{\"tz\":"}}]`) +
			tc(`[{"function":{"arguments":"\"UTC\"}"}}]`) + end,
		"index null": tc(`[{"index":null,"id":"call_w","type":"function","function":{"name":"get_weather","arguments":""}}]`) +
			tc(`[{"index":null,"function":{"name":null,"arguments":"{\"city\":\"Zürich\"}"}}]`) +
			tc(`[{"index":null,"id":"call_t","type":"function","function":{"name":"get_time","arguments":"{\"tz\":\"UTC\"}"}}]`) + end,
		"parallel, id on first delta, name repeated empty, interleaved": tc(`[{"index":0,"id":"call_w","type":"function","function":{"name":"get_weather","arguments":""}}]`) +
			tc(`[{"index":1,"id":"call_t","type":"function","function":{"name":"get_time","arguments":""}}]`) +
			tc(`[{"index":0,"function":{"name":"","arguments":"{\"city\":"}}]`) +
			tc(`[{"index":1,"function":{"name":"","arguments":"{\"tz\":"}},{"index":0,"function":{"name":"","arguments":"\"Zürich\"}"}}]`) +
			tc(`[{"index":1,"id":"","type":"","function":{"name":"","arguments":"\"UTC\"}"}}]`) + end,
		"every call index 0": tc(`[{"index":0,"id":"call_w","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Zürich\"}"}}]`) +
			tc(`[{"index":0,"id":"call_t","type":"function","function":{"name":"get_time","arguments":"{\"tz\":\"UTC\"}"}}]`) + end,
		"role chunk with empty tool_calls first": sse(delta(id, `{"role":"assistant","content":"","tool_calls":[]}`, "null")) +
			tc(`[{"index":0,"id":"call_w","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Zürich\"}"}}]`) +
			tc(`[{"index":1,"id":"call_t","type":"function","function":{"name":"get_time","arguments":"{\"tz\":\"UTC\"}"}}]`) + end,
	}
	for name, transcript := range tests {
		t.Run(name, func(t *testing.T) {
			res, err := chat(t, body(t, transcript))
			require.NoError(t, err, "stream succeeds")
			assert.Equal(t, []results.ToolCall{weather, clock}, res.ToolCalls, "two calls, merged exactly")
			assert.Equal(t, "tool_calls", res.FinishReason, "finish reason")
			assert.True(t, res.HasOutput, "tool calls are output")
			assert.Equal(t, "", res.Content, "no content")
		})
	}
	t.Run("record", func(t *testing.T) {
		out := record(t, body(t, tests["parallel, id on first delta, name repeated empty, interleaved"]), simpleCase("tools", ""))
		require.NoError(t, out.Err, "the case succeeds")
		rec := out.Record
		assert.True(t, rec.OK, "tool calls without content pass the basic validation: %v", rec.Quality.Issues)
		require.NotNil(t, rec.ToolCalls, "tool-call summary")
		assert.Equal(t, 2, rec.ToolCalls.Count, "count")
		assert.Equal(t, []string{"get_time", "get_weather"}, rec.ToolCalls.Names, "names sorted")
		assert.Equal(t, []results.ToolCall{weather, clock}, rec.ToolCalls.Raw, "raw calls in index order")
	})
}

// TestCase08FinishReason: "" on every chunk before the final "stop" (empty
// means none); finish_reason null (or "") on every chunk, never sent:
// missing, not "stop"; streams cut at EOF without [DONE]: truncated.
func TestCase08FinishReason(t *testing.T) {
	const id = "chatcmpl-fr"
	chunks := func(finish string) string {
		return sse(delta(id, `{"role":"assistant","content":""}`, finish)) + sse(delta(id, `{"content":"Hel"}`, finish)) + sse(delta(id, `{"content":"lo"}`, finish))
	}
	t.Run("empty before stop", func(t *testing.T) {
		res, err := chat(t, body(t, chunks(`""`)+sse(delta(id, `{}`, `"stop"`))+sse(delta(id, `{}`, `""`))+done))
		require.NoError(t, err, "stream succeeds")
		assert.Equal(t, "stop", res.FinishReason, `"" means none; the final stop wins and a later "" does not erase it`)
		assert.Equal(t, "Hello", res.Content, "content")
	})
	t.Run("stop on the last content chunk", func(t *testing.T) {
		res, err := chat(t, body(t, chunks("null")+sse(delta(id, `{"content":"!"}`, `"stop"`))+done))
		require.NoError(t, err, "stream succeeds")
		assert.Equal(t, "Hello!", res.Content, "the finishing chunk's content counts")
		assert.Equal(t, 3, res.TokenChunks, "three content chunks")
		assert.Equal(t, "stop", res.FinishReason, "finish reason")
	})
	for name, finish := range map[string]string{"null on every chunk": "null", "empty on every chunk": `""`, "absent on every chunk": ""} {
		t.Run("never sent/"+name, func(t *testing.T) {
			transcript := chunks(finish) + sse(usage(id, 3, 2)) + done
			if finish == "" {
				transcript = sse(`{"id":"`+id+`","choices":[{"index":0,"delta":{"content":"Hel"}}]}`) + sse(`{"id":"`+id+`","choices":[{"index":0,"delta":{"content":"lo"}}]}`) + done
			}
			res, err := chat(t, body(t, transcript))
			require.NoError(t, err, "the stream itself is complete")
			assert.Equal(t, "", res.FinishReason, "reported as missing, not stop")
			out := record(t, body(t, transcript), simpleCase("nofinish", ""))
			require.NoError(t, out.Err, "no request error")
			assert.Nil(t, out.Record.Quality.FinishReason, "finish_reason null in the record")
			assert.False(t, out.Record.OK, "a missing finish reason fails the basic validation")
			assert.Equal(t, []string{"Missing finish_reason"}, out.Record.Quality.Issues, "the reference's issue text")
			assert.Equal(t, "", out.Record.Error, "not a request error")
		})
	}
	t.Run("length", func(t *testing.T) {
		out := record(t, body(t, chunks("null")+sse(delta(id, `{}`, `"length"`))+done), simpleCase("len", ""))
		require.NoError(t, out.Err, "no request error")
		assert.Equal(t, "length", *out.Record.Quality.FinishReason, "length recorded")
		assert.Equal(t, []string{"Truncated (finish_reason=length)"}, out.Record.Quality.Issues, "the reference's issue")
	})
	cuts := map[string]string{
		"after content":            chunks("null"),
		"after finish and usage":   chunks("null") + sse(delta(id, `{}`, `"stop"`)) + sse(usage(id, 3, 2)),
		"inside an event":          chunks("null") + `data: {"id":"` + id + `","choices":[{"delta":{"cont`,
		"inside the DONE sentinel": chunks("null") + "data: [DO",
	}
	for name, transcript := range cuts {
		t.Run("cut at EOF/"+name, func(t *testing.T) {
			res, err := chat(t, body(t, transcript))
			assert.ErrorIs(t, err, stream.ErrTruncated, "a body without [DONE] is truncated")
			assert.Equal(t, "Hello", res.Content, "content received is kept")
			assert.False(t, res.Done, "not done")
			out := record(t, body(t, transcript), simpleCase("cut", ""))
			assert.ErrorIs(t, out.Err, stream.ErrTruncated, "the runner keeps the sentinel")
			assert.Contains(t, out.Record.Error, "truncated", "the record says truncated")
			assert.False(t, out.Record.OK, "never a success")
		})
	}
}
