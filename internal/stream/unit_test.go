package stream

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/openai"
)

// TestComputeTimings: the reference's compute_request_metrics, formula
// for formula: tpot is the mean chunk gap, gen_tps N over the span.
func TestComputeTimings(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name             string
		first, last, end time.Duration
		chunks, n        int
		prompt           int
		want             Timings
	}{
		{"one token per chunk", 100 * ms, 400 * ms, 450 * ms, 4, 4, 50,
			Timings{TTFTms: 100, TPOTms: 100, E2ELms: 450, GenTPS: 4 / 0.3, PromptTPS: 500}},
		{"batched tokens: the mean chunk gap, N over the span", 100 * ms, 400 * ms, 450 * ms, 4, 31, 0,
			Timings{TTFTms: 100, TPOTms: 100, E2ELms: 450, GenTPS: 31 / 0.3}},
		{"single token", 80 * ms, 80 * ms, 90 * ms, 1, 1, 8,
			Timings{TTFTms: 80, E2ELms: 90, PromptTPS: 100}},
		{"all tokens in one chunk", 80 * ms, 80 * ms, 90 * ms, 1, 20, 8,
			Timings{TTFTms: 80, E2ELms: 90, PromptTPS: 100}},
		{"no token: first = last = end", 250 * ms, 250 * ms, 250 * ms, 0, 0, 10,
			Timings{TTFTms: 250, E2ELms: 250, PromptTPS: 40}},
		{"zero everything", 0, 0, 0, 0, 0, 0, Timings{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ComputeTimings(tc.first, tc.last, tc.end, tc.chunks, tc.n, tc.prompt)
			assert.InDelta(t, tc.want.TTFTms, got.TTFTms, 1e-9, "TTFT")
			assert.InDelta(t, tc.want.TPOTms, got.TPOTms, 1e-9, "TPOT")
			assert.InDelta(t, tc.want.E2ELms, got.E2ELms, 1e-9, "E2EL")
			assert.InDelta(t, tc.want.GenTPS, got.GenTPS, 1e-9, "GenTPS")
			assert.InDelta(t, tc.want.PromptTPS, got.PromptTPS, 1e-9, "PromptTPS")
		})
	}
}

func idx(i int) *int { return &i }

func fn(name, args string) *openai.FunctionCallDelta {
	return &openai.FunctionCallDelta{Name: name, Arguments: args}
}

func TestToolCallAccumulator(t *testing.T) {
	t.Run("by index, out of order", func(t *testing.T) {
		var a ToolCallAccumulator
		a.Add([]openai.ToolCallDelta{{Index: idx(1), ID: "b", Function: fn("second", "{")}})
		a.Add([]openai.ToolCallDelta{{Index: idx(0), ID: "a", Type: "function", Function: fn("first", "[")}, {Index: idx(1), Function: fn("", "}")}})
		a.Add([]openai.ToolCallDelta{{Index: idx(0), Function: fn("", "]")}})
		assert.Equal(t, []openai.ToolCall{
			{ID: "a", Type: "function", Function: openai.FunctionCall{Name: "first", Arguments: "[]"}},
			{ID: "b", Type: "function", Function: openai.FunctionCall{Name: "second", Arguments: "{}"}},
		}, a.Calls(), "calls sorted by index, fragments appended")
		assert.Equal(t, 2, a.Len(), "two calls")
	})
	t.Run("name fragments append, empty names ignored, id and type overwrite", func(t *testing.T) {
		var a ToolCallAccumulator
		a.Add([]openai.ToolCallDelta{{Index: idx(0), Function: fn("get_", "")}})
		a.Add([]openai.ToolCallDelta{{Index: idx(0), ID: "late", Type: "custom", Function: fn("weather", "{}")}})
		a.Add([]openai.ToolCallDelta{{Index: idx(0), Function: fn("", "")}, {Index: idx(0)}})
		assert.Equal(t, []openai.ToolCall{{ID: "late", Type: "custom", Function: openai.FunctionCall{Name: "get_weather", Arguments: "{}"}}}, a.Calls(), "merged call")
	})
	t.Run("no index", func(t *testing.T) {
		var a ToolCallAccumulator
		a.Add([]openai.ToolCallDelta{{Function: fn("", "{\"q\":")}}) // none yet: starts call 0
		a.Add([]openai.ToolCallDelta{{ID: "x1", Function: fn("search", "")}})
		a.Add([]openai.ToolCallDelta{{Function: fn("", "1}")}})
		a.Add([]openai.ToolCallDelta{{ID: "x2", Function: fn("fetch", "{}")}}) // new id: new call
		a.Add([]openai.ToolCallDelta{{ID: "x1", Function: fn("", "")}})        // known id: back to it
		a.Add([]openai.ToolCallDelta{{ID: "x2"}})
		a.Add([]openai.ToolCallDelta{{Index: idx(1), Function: fn("", " ")}}) // index 1 = the no-index call x2
		assert.Equal(t, []openai.ToolCall{
			{ID: "x1", Type: "function", Function: openai.FunctionCall{Name: "search", Arguments: `{"q":1}`}},
			{ID: "x2", Type: "function", Function: openai.FunctionCall{Name: "fetch", Arguments: `{} `}},
		}, a.Calls(), "index-less merging")
	})
	t.Run("empty", func(t *testing.T) {
		var a ToolCallAccumulator
		a.Add(nil)
		assert.Nil(t, a.Calls(), "no calls is nil")
	})
}

// decodeBoth runs the fast path and encoding/json on data, valid JSON or
// not: the fast path must decline whatever encoding/json rejects.
func decodeBoth(t testing.TB, data []byte) (fast decoded, fastOK bool, slow decoded, slowErr error) {
	var d chunkDecoder
	d.scratch = make([]byte, 0, 2*len(data))
	fastOK = d.fast(data, &fast)
	fast = cloneDecoded(fast)
	var d2 chunkDecoder
	slowErr = d2.slow(data, &slow)
	slow = cloneDecoded(slow)
	return
}

func cloneDecoded(x decoded) decoded {
	c := func(b []byte) []byte {
		if len(b) == 0 {
			return nil
		}
		return append([]byte(nil), b...)
	}
	x.id, x.content, x.reasoning, x.finish, x.refusal = c(x.id), c(x.content), c(x.reasoning), c(x.finish), c(x.refusal)
	if len(x.rest) == 0 {
		x.rest = nil
	}
	if x.errRaw == nil {
		x.errType = nil
	}
	x.errRaw, x.errType = c(x.errRaw), c(x.errType)
	return x
}

var chunkSamples = []string{
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"content":" the"},"logprobs":null,"finish_reason":null}]}`,
	`{"id":"a","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`,
	`{"choices":[{"delta":{"content":"line\nbreak \"q\" \u00e9 \ud83d\ude00 \ud800 tab\t\/"}}]}`,
	`{"choices":[{"delta":{"reasoning_content":"r","reasoning":"s"}}]}`,
	`{"choices":[{"delta":{"reasoning":"only"}}]}`,
	`{"choices":[{"delta":{},"finish_reason":"stop"}]}`,
	`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}}]}`,
	`{"error":{"message":"x","code":1},"error_type":"t"}`,
	`{"error":"s"}`,
	`{"error":null,"choices":null,"usage":null,"id":null}`,
	` { "id" : "sp" , "choices" : [ { "delta" : { "content" : "x" } } ] } `,
	`{"ID":"upper","choices":[{"Delta":{"Content":"case"}}]}`,
	`{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}}]}`,
	`{"choices":[{"delta":{"content":"a","content":"b"}}]}`,
	`{"created":1.5}`,
	`{"choices":[{"index":"0"}]}`,
	`{"choices":[{"delta":{"content":5}}]}`,
	`null`,
	`[]`,
	"{\"choices\":[{\"delta\":{\"content\":\"bad \xff utf8\"}}]}",
	`{"object":"error","message":"too long","type":"BadRequestError","param":null,"code":400}`,
	`{"object":"chat.completion.chunk","choices":[]}`,
	`{"choices":[{"index":2,"delta":{"refusal":"I can't","content":null}}]}`,
	`{"choices":[{"index":null,"delta":{"refusal":null}}]}`,
	// Not JSON: the fast path must decline every one (no json.Valid first).
	`{"id":"a"`,
	`{"id":"a"}x`,
	`{"id":"a"}{}`,
	`{"id":"a",}`,
	`{"id":"a" "model":"m"}`,
	`{"id" "a"}`,
	`{"x":01}`,
	`{"created":01}`,
	`{"created":-}`,
	`{"x":1.}`,
	`{"x":1e}`,
	`{"x":.5}`,
	`{"x":nul}`,
	`{"x":tru}`,
	`{"choices":nul}`,
	`{"x":[1,]}`,
	`{"x":{"a":1,}}`,
	`{"x":{"a"}}`,
	`{"error":[1 2]}`,
	"{\"choices\":[{\"delta\":{\"content\":\"ctl \x01\"}}]}",
	`{"choices":[{"delta":{"content":"bad \x escape"}}]}`,
	`{"choices":[{"delta":{"content":"\u12G4"}}]}`,
	`{"choices":[{"delta":{"content":"\u12"}}]}`,
	`{"choices":[{"delta":{"content":"open}}]}`,
	`{"choices":[{"delta":{"content":"a"}}]`,
	`{"choices":[{"delta":{"content":"a"}}}`,
	`{"choices":[{"delta":{"content":"a"}]}`,
	`{"usage":{"prompt_tokens":1,}}`,
	`{"choices":[{"delta":{"tool_calls":[}}]}`,
	`{`,
	``,
	`   `,
}

func TestFastDecoderAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range chunkSamples {
		fast, fastOK, slow, slowErr := decodeBoth(t, []byte(s))
		if fastOK {
			require.NoError(t, slowErr, "fast path accepted what encoding/json rejects: %s", s)
			assert.Equal(t, slow, fast, "fast and slow decodes differ for %s", s)
		}
	}
	for _, s := range chunkSamples[:12] {
		_, fastOK, _, _ := decodeBoth(t, []byte(s))
		assert.True(t, fastOK, "common chunk shapes take the fast path: %s", s)
	}
	for _, s := range chunkSamples {
		if json.Valid([]byte(s)) {
			continue
		}
		_, fastOK, _, slowErr := decodeBoth(t, []byte(s))
		assert.False(t, fastOK, "the fast path declines what is not JSON: %q", s)
		assert.ErrorIs(t, slowErr, errBadJSON, "the slow path reports what is not JSON: %q", s)
	}
}

func FuzzChunkDecode(f *testing.F) {
	for _, s := range chunkSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, fastOK, slow, slowErr := decodeBoth(t, data)
		if !fastOK {
			return
		}
		if slowErr != nil {
			t.Fatalf("fast path accepted %q, encoding/json: %v", data, slowErr)
		}
		assert.Equal(t, slow, fast, "fast and slow decodes differ for %q", data)
	})
}

func TestNewTransport(t *testing.T) {
	tr := NewTransport(0)
	assert.Equal(t, 1<<10, tr.WriteBufferSize, "1 KiB write buffer per connection")
	assert.Equal(t, 1<<10, tr.ReadBufferSize, "1 KiB read buffer per connection")
	assert.Equal(t, 0, tr.MaxIdleConnsPerHost, "conns 0 keeps net/http's idle default")
	assert.NotNil(t, tr.Proxy, "proxy from the environment, as http.DefaultTransport")
	tr = NewTransport(500)
	assert.Equal(t, 500, tr.MaxIdleConnsPerHost, "conns > 0: that many idle connections per host")
	assert.Equal(t, 500, tr.MaxIdleConns, "conns > 0: and in all")
	rr, ok := defaultHTTP.Transport.(*retryReused)
	if assert.True(t, ok, "the default client retries on reused connections: %T", defaultHTTP.Transport) {
		assert.Same(t, defaultTransport, rr.rt, "the default client uses the small-buffer transport")
		fresh, _ := rr.fresh.(*http.Transport)
		if assert.NotNil(t, fresh, "the retries' transport is a clone") {
			assert.True(t, fresh.DisableKeepAlives, "the retries' transport dials a connection of its own")
			assert.Equal(t, 1<<10, fresh.ReadBufferSize, "the clone keeps the small buffers")
		}
	}
}
