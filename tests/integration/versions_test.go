package integration

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/stream"
)

// ollamaPins is what one Ollama version does where the versions CI runs
// differ. The tests look it up by the version the server reports, so a
// difference is pinned where it was observed, never guessed from the URL.
type ollamaPins struct {
	// ThinkingRefused: a reasoning_effort other than "none" ("low",
	// "high") sent to a model without thinking is refused with a 400 that
	// names the model, instead of being ignored.
	ThinkingRefused bool
	// Logprobs: logprobs=true returns one log probability per content
	// token (choices[].logprobs.content) instead of being ignored.
	Logprobs bool
	// ToolsBuffered: a streamed request with tools gets the whole answer in
	// one content chunk at the end (the server holds it back to look for
	// tool calls), instead of a chunk per token: TTFT then equals E2E.
	ToolsBuffered bool
}

// pinsByVersion is keyed by GET /api/version's "version".
var pinsByVersion = map[string]ollamaPins{
	"0.6.5":  {ThinkingRefused: false, Logprobs: false, ToolsBuffered: true},
	"0.17.4": {ThinkingRefused: true, Logprobs: true, ToolsBuffered: false},
}

// ollamaVersion returns the version the server reports on GET /api/version.
// scripts/realserver.sh stamps it into the binary as Ollama's release builds
// do; a go install without the stamp reports "0.0.0".
func ollamaVersion(t *testing.T, url string) string {
	t.Helper()
	resp, err := plainHTTP.Get(url + "/api/version")
	require.NoError(t, err, "GET /api/version")
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "GET /api/version answers 200 on every Ollama version")
	var v struct {
		Version string `json:"version"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&v), "GET /api/version is {\"version\": ...}")
	return v.Version
}

// pinsFor returns the server's version and what is pinned for it, failing
// t when nothing is: expectations for a version are written after watching
// it, not assumed.
func pinsFor(t *testing.T, url string) (string, ollamaPins) {
	t.Helper()
	v := ollamaVersion(t, url)
	p, ok := pinsByVersion[v]
	require.Truef(t, ok, "the server at %s reports Ollama version %q, and these tests pin the behaviour of %s only "+
		"(a go install build without the version stamp reports 0.0.0: build it with scripts/realserver.sh --version vX.Y.Z install)",
		url, v, strings.Join(slices.Sorted(maps.Keys(pinsByVersion)), " and "))
	return v, p
}

// TestOllamaVersion records the version under test (a JUnit property under
// gotestsum) and fails for a version nothing is pinned for.
func TestOllamaVersion(t *testing.T) {
	url, _ := server(t)
	only(t, url, kindOllama, "TestLlamaCppVersion pins llama-server's")
	v, _ := pinsFor(t, url)
	t.Attr("ollama_version", v)
	t.Logf("Ollama %s at %s", v, url)
}

// TestOllamaVersionDifferences pins what the versions do differently for
// requests a benchserve workload can send (in extra_body).
func TestOllamaVersionDifferences(t *testing.T) {
	url, model := server(t)
	only(t, url, kindOllama, "TestLlamaCppDifferences pins llama-server's")
	v, pins := pinsFor(t, url)
	chat := url + "/v1/chat/completions"

	// benchserve's advice for turning thinking off on Ollama (runner's
	// ThinkingIgnored note) is reasoning_effort "none": every version takes it.
	t.Run("reasoning_effort none is accepted", func(t *testing.T) {
		raw := postRaw(t, url, map[string]any{
			"model": model, "messages": userMsg("hi"), "max_tokens": 3, "seed": 7,
			"reasoning_effort": "none", "stream": true,
		})
		assert.True(t, raw.Done, "the stream completes")
		assert.NotEmpty(t, raw.Content, "with content")
	})

	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("reasoning_effort high on a model without thinking stream=%v", stream), func(t *testing.T) {
			body := map[string]any{
				"model": model, "messages": userMsg("hi"), "max_tokens": 3, "seed": 7,
				"reasoning_effort": "high", "stream": stream,
			}
			if !pins.ThinkingRefused {
				if stream {
					raw := postRaw(t, url, body)
					assert.True(t, raw.Done, "Ollama %s ignores reasoning_effort: the stream completes", v)
					assert.NotEmpty(t, raw.Content, "with content")
					return
				}
				status, answer, err := postJSON(t.Context(), chat, body)
				require.NoError(t, err, "non-streamed answer decodes")
				assert.Equal(t, http.StatusOK, status, "Ollama %s ignores reasoning_effort on a model without thinking", v)
				assert.NotEmpty(t, answer["choices"], "and answers")
				return
			}
			status, answer, err := postJSON(t.Context(), chat, body)
			require.NoError(t, err, "the refusal is a JSON body, sent before any stream")
			assert.Equal(t, http.StatusBadRequest, status, "Ollama %s refuses reasoning_effort=high on a model without thinking", v)
			e, _ := answer["error"].(map[string]any)
			require.NotNil(t, e, "OpenAI-style error body: %v", answer)
			msg, _ := e["message"].(string)
			assert.Contains(t, msg, model, "the refusal names the model")
			assert.Contains(t, msg, "thinking", "the refusal says thinking is what the model lacks")
		})
	}

	t.Run("logprobs", func(t *testing.T) {
		status, answer, err := postJSON(t.Context(), chat, map[string]any{
			"model": model, "messages": userMsg("hi"), "max_tokens": 40, "seed": 9,
			"logprobs": true, "top_logprobs": 2,
		})
		require.NoError(t, err, "non-streamed answer decodes")
		require.Equal(t, http.StatusOK, status, "logprobs is accepted by every version")
		var resp struct {
			Choices []struct {
				Message struct {
					Content string `json:"content"`
				} `json:"message"`
				Logprobs *struct {
					Content []struct {
						Token       string            `json:"token"`
						TopLogprobs []json.RawMessage `json:"top_logprobs"`
					} `json:"content"`
				} `json:"logprobs"`
			} `json:"choices"`
		}
		data, err := json.Marshal(answer)
		require.NoError(t, err, "re-encode answer")
		require.NoError(t, json.Unmarshal(data, &resp), "chat.completion shape")
		require.Len(t, resp.Choices, 1, "one choice")
		c := resp.Choices[0]
		if !pins.Logprobs {
			if c.Logprobs != nil {
				t.Errorf("Ollama %s was pinned as ignoring logprobs, but it returned %d of them", v, len(c.Logprobs.Content))
			}
			return
		}
		require.NotNil(t, c.Logprobs, "Ollama %s returns logprobs", v)
		var joined strings.Builder
		for i, lp := range c.Logprobs.Content {
			joined.WriteString(lp.Token)
			assert.Len(t, lp.TopLogprobs, 2, "token %d carries top_logprobs=2 alternatives", i)
		}
		assert.Equal(t, c.Message.Content, joined.String(), "one entry per content token: the tokens spell the content")
	})
}

// TestOllamaToolsStreaming streams the same seeded request to toolsModel
// with and without tools: the answer is the same text, and the pinned
// version either streams it token by token both ways or holds it back
// into one chunk when tools are present.
func TestOllamaToolsStreaming(t *testing.T) {
	url, _ := server(t)
	only(t, url, kindOllama, "TestLlamaCppToolCalls pins llama-server's")
	v, pins := pinsFor(t, url)
	c := client(t, url)
	tools := []any{map[string]any{"type": "function", "function": map[string]any{
		"name": "get_weather", "parameters": map[string]any{"type": "object"},
	}}}
	req := stream.Request{Model: toolsModel, Messages: userMsg("weather?"), MaxTokens: 8, ExtraBody: map[string]any{"seed": 7}}
	plain, err := c.ChatStream(t.Context(), req)
	require.NoError(t, err, "the request without tools streams")
	req.ExtraBody = map[string]any{"seed": 7, "tools": tools}
	withTools, err := c.ChatStream(t.Context(), req)
	require.NoError(t, err, "the request with tools streams")

	assert.Equal(t, plain.Content, withTools.Content, "the same seeded answer with and without tools")
	assert.Equal(t, "length", withTools.FinishReason, "8 tokens end by length")
	assert.Empty(t, withTools.ToolCalls, "the tiny model never writes a tool call")
	assert.Equal(t, 8, plain.TokenChunks, "without tools: a chunk per token")
	if pins.ToolsBuffered {
		assert.Equal(t, 1, withTools.TokenChunks, "Ollama %s holds an answer with tools back into one chunk", v)
	} else {
		assert.Equal(t, plain.TokenChunks, withTools.TokenChunks, "Ollama %s streams an answer with tools token by token", v)
	}
}
