package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
)

// llamaCppBuilds are the llama-server builds these tests pin, by the
// build_info GET /props reports: scripts/llamaserver.sh builds the vendored
// source stamped with its commit (no history in the archive: build 0).
var llamaCppBuilds = []string{"b0-c2b1518fd"}

// TestLlamaCppVersion records the build under test (a JUnit property under
// gotestsum) and fails for a build nothing is pinned for.
func TestLlamaCppVersion(t *testing.T) {
	url, _ := server(t)
	only(t, url, kindLlamaCpp, "TestOllamaVersion pins Ollama's")
	var props struct {
		BuildInfo string `json:"build_info"`
	}
	require.True(t, getJSON(t, url+"/props", &props), "GET /props answers 200 with JSON")
	t.Attr("llamacpp_build", props.BuildInfo)
	assert.Contains(t, llamaCppBuilds, props.BuildInfo,
		"the server reports build %q, and these tests pin %s only (a build without the commit stamp reports b0-unknown: build it with scripts/llamaserver.sh install)",
		props.BuildInfo, strings.Join(llamaCppBuilds, ", "))
}

// weatherTools are the conformance suite's two tools.
var weatherTools = []any{
	map[string]any{"type": "function", "function": map[string]any{
		"name": "get_weather", "description": "Get the current weather in a city",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{
			"city": map[string]any{"type": "string"},
			"unit": map[string]any{"type": "string", "enum": []string{"celsius", "fahrenheit"}},
		}, "required": []string{"city"}},
	}},
	map[string]any{"type": "function", "function": map[string]any{
		"name": "get_time", "description": "Get the current local time in a city",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{
			"city": map[string]any{"type": "string"},
		}, "required": []string{"city"}},
	}},
}

// TestLlamaCppToolCalls sends tool requests through stream.Client: with
// --jinja, llama-server constrains the answer to a tool call with a
// grammar (tool_choice "required", or "auto" once the model opens a call),
// and the llama.cpp variant of the tiny model opens one whenever tools are
// offered, so every answer is a complete call within a few dozen tokens.
func TestLlamaCppToolCalls(t *testing.T) {
	url, model := server(t)
	only(t, url, kindLlamaCpp, "TestOllamaToolsStreaming pins Ollama's")
	c := client(t, url)
	for _, choice := range []any{"required", "auto", map[string]any{"type": "function", "function": map[string]any{"name": "get_time"}}} {
		for _, streamed := range []bool{true, false} {
			name, _ := json.Marshal(choice)
			t.Run(string(name)+map[bool]string{true: " streamed", false: " not streamed"}[streamed], func(t *testing.T) {
				body := map[string]any{"tools": weatherTools, "tool_choice": choice, "seed": 3}
				var calls []results.ToolCall
				var finish string
				var completion int
				if streamed {
					res, err := c.ChatStream(t.Context(), stream.Request{Model: model, Messages: userMsg("What is the weather in Paris?"), MaxTokens: 64, ExtraBody: body})
					require.NoError(t, err, "the tool request streams")
					calls, finish = res.ToolCalls, res.FinishReason
					require.NotNil(t, res.Usage, "usage")
					completion = res.Usage.CompletionTokens
				} else {
					body["model"], body["messages"], body["max_tokens"] = model, userMsg("What is the weather in Paris?"), 64
					status, answer, err := postJSON(t.Context(), url+"/v1/chat/completions", body)
					require.NoError(t, err, "non-streamed answer decodes")
					require.Equal(t, http.StatusOK, status, "tool request accepted: %v", answer)
					var resp struct {
						Choices []struct {
							Message struct {
								ToolCalls []results.ToolCall `json:"tool_calls"`
							} `json:"message"`
							FinishReason string `json:"finish_reason"`
						} `json:"choices"`
						Usage results.Usage `json:"usage"`
					}
					data, _ := json.Marshal(answer)
					require.NoError(t, json.Unmarshal(data, &resp), "chat.completion shape")
					require.Len(t, resp.Choices, 1, "one choice")
					calls, finish, completion = resp.Choices[0].Message.ToolCalls, resp.Choices[0].FinishReason, resp.Usage.CompletionTokens
				}
				require.Len(t, calls, 1, "one tool call")
				call := calls[0]
				// llama-server reads tool_choice as a string: an object naming
				// get_time is "auto", and the model calls get_weather.
				assert.Equal(t, "get_weather", call.Function.Name, "the model's function, whatever tool_choice names")
				assert.NotEmpty(t, call.ID, "the call has an id")
				var args map[string]any
				require.NoError(t, json.Unmarshal([]byte(call.Function.Arguments), &args), "the arguments are JSON: %s", call.Function.Arguments)
				city, _ := args["city"].(string)
				assert.NotEmpty(t, city, "the required string argument is there: %s", call.Function.Arguments)
				assert.Equal(t, "tool_calls", finish, "an answer that calls a tool ends with tool_calls")
				assert.LessOrEqual(t, completion, 24, "the constrained answer closes well within max_tokens")
			})
		}
	}

	t.Run("tool_choice none", func(t *testing.T) {
		// The tools are still in the prompt, so the model writes a call,
		// which llama-server leaves in the content unparsed.
		res, err := c.ChatStream(t.Context(), stream.Request{Model: model, Messages: userMsg("weather?"), MaxTokens: 32,
			ExtraBody: map[string]any{"tools": weatherTools, "tool_choice": "none", "seed": 3}})
		require.NoError(t, err, "the request streams")
		assert.Empty(t, res.ToolCalls, "no tool call is parsed")
		assert.True(t, strings.HasPrefix(res.Content, "<tool_call>"), "the content is the model's unparsed call: %q", res.Content)
	})

	t.Run("no tools", func(t *testing.T) {
		res, err := c.ChatStream(t.Context(), stream.Request{Model: model, Messages: userMsg("weather?"), MaxTokens: 32, ExtraBody: map[string]any{"seed": 3}})
		require.NoError(t, err, "the request streams")
		assert.Empty(t, res.ToolCalls, "no tool call")
		assert.NotContains(t, res.Content, "<", "prose, no markup: %q", res.Content)
	})
}

// TestLlamaCppStructuredOutput: a json_schema response_format is
// constrained by a grammar and closes; json_object without a schema is
// not constrained at all.
func TestLlamaCppStructuredOutput(t *testing.T) {
	url, model := server(t)
	only(t, url, kindLlamaCpp, "TestOllamaDifferences pins Ollama's json_object")
	content := func(t *testing.T, format map[string]any) (string, string, int) {
		t.Helper()
		status, answer, err := postJSON(t.Context(), url+"/v1/chat/completions", map[string]any{
			"model": model, "messages": userMsg("Name the capital of France and its country."), "max_tokens": 128, "seed": 3,
			"response_format": format,
		})
		require.NoError(t, err, "non-streamed answer decodes")
		require.Equal(t, http.StatusOK, status, "response_format accepted: %v", answer)
		var resp struct {
			Choices []struct {
				Message      struct{ Content string } `json:"message"`
				FinishReason string                   `json:"finish_reason"`
			} `json:"choices"`
			Usage results.Usage `json:"usage"`
		}
		data, _ := json.Marshal(answer)
		require.NoError(t, json.Unmarshal(data, &resp), "chat.completion shape")
		require.Len(t, resp.Choices, 1, "one choice")
		return resp.Choices[0].Message.Content, resp.Choices[0].FinishReason, resp.Usage.CompletionTokens
	}

	t.Run("json_schema", func(t *testing.T) {
		text, finish, n := content(t, map[string]any{"type": "json_schema", "json_schema": map[string]any{
			"name": "capital", "strict": true, "schema": map[string]any{
				"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}, "country": map[string]any{"type": "string"}},
				"required": []string{"city", "country"}, "additionalProperties": false,
			},
		}})
		var got map[string]any
		require.NoError(t, json.Unmarshal([]byte(text), &got), "the answer is JSON: %q", text)
		assert.ElementsMatch(t, []string{"city", "country"}, slices.Collect(maps.Keys(got)), "exactly the schema's properties: %q", text)
		assert.Equal(t, "stop", finish, "the constrained answer ends by itself")
		assert.LessOrEqual(t, n, 24, "within a couple of dozen tokens")
	})

	t.Run("json_object without a schema is not constrained", func(t *testing.T) {
		text, _, _ := content(t, map[string]any{"type": "json_object"})
		assert.False(t, strings.HasPrefix(strings.TrimSpace(text), "{"), "llama-server applies no grammar to json_object without a schema: the answer is prose: %q", text)
	})
}

// TestLlamaCppDifferences pins what llama-server does unlike an idealized
// OpenAI server (and unlike Ollama). See README.md.
func TestLlamaCppDifferences(t *testing.T) {
	url, model := server(t)
	only(t, url, kindLlamaCpp, "TestOllamaDifferences pins Ollama's")

	t.Run("health metrics props and tokenize are served", func(t *testing.T) {
		var health struct{ Status string }
		require.True(t, getJSON(t, url+"/health", &health), "GET /health answers 200 with JSON")
		assert.Equal(t, "ok", health.Status, "/health says ok once the model is loaded")
		resp, err := plainHTTP.Get(url + "/metrics")
		require.NoError(t, err, "GET /metrics")
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, "/metrics is served (--metrics)")
		assert.Contains(t, string(body), "llamacpp:requests_processing", "with the running-requests gauge cancel.stops reads")
		status, tok, err := postJSON(t.Context(), url+"/tokenize", map[string]any{"content": "the model"})
		require.NoError(t, err, "POST /tokenize")
		require.Equal(t, http.StatusOK, status, "/tokenize is served")
		assert.NotEmpty(t, tok["tokens"], "and tokenizes")
	})

	t.Run("models list the alias owned by llamacpp", func(t *testing.T) {
		var list struct {
			Data []struct {
				ID      string `json:"id"`
				OwnedBy string `json:"owned_by"`
			} `json:"data"`
		}
		require.True(t, getJSON(t, url+"/v1/models", &list), "GET /v1/models")
		require.Len(t, list.Data, 1, "one model")
		assert.Equal(t, model, list.Data[0].ID, "listed by its --alias, with no tag")
		assert.Equal(t, "llamacpp", list.Data[0].OwnedBy, "owned_by llamacpp (how benchserve detects the runtime)")
	})

	for _, tc := range []struct {
		name   string
		body   map[string]any
		status int
	}{
		{"any model name is served", map[string]any{"model": "no-such-model", "messages": userMsg("hi"), "max_tokens": 3}, http.StatusOK},
		{"empty messages are answered", map[string]any{"model": model, "messages": []any{}, "max_tokens": 3}, http.StatusOK},
		{"stream_options without stream is accepted", map[string]any{"model": model, "messages": userMsg("hi"), "max_tokens": 3, "stream_options": map[string]any{"include_usage": true}}, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, answer, err := postJSON(t.Context(), url+"/v1/chat/completions", tc.body)
			require.NoError(t, err, "the answer decodes")
			assert.Equal(t, tc.status, status, "status: %v", answer)
			assert.Equal(t, model, answer["model"], "the answer names the served model")
		})
	}

	t.Run("a body that is not JSON is a 500", func(t *testing.T) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url+"/v1/chat/completions", strings.NewReader(`{"model": "m", "messages": [`))
		require.NoError(t, err, "build request")
		resp, err := plainHTTP.Do(req)
		require.NoError(t, err, "send")
		defer resp.Body.Close()
		assert.Equal(t, http.StatusInternalServerError, resp.StatusCode, "a parse error is a server_error, not a 400")
		var e struct {
			Error struct{ Type, Message string } `json:"error"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&e), "with an error object")
		assert.Equal(t, "server_error", e.Error.Type, "typed server_error")
		assert.Contains(t, e.Error.Message, "parse_error", "naming the JSON parse error")
	})

	t.Run("a repeated prompt reports cached tokens", func(t *testing.T) {
		body := map[string]any{"model": model, "messages": userMsg("a prompt the server caches"), "max_tokens": 3}
		var cached, prompt int
		for range 2 {
			status, answer, err := postJSON(t.Context(), url+"/v1/chat/completions", body)
			require.NoError(t, err, "the answer decodes")
			require.Equal(t, http.StatusOK, status, "answered")
			var u struct {
				Usage struct {
					PromptTokens        int `json:"prompt_tokens"`
					PromptTokensDetails *struct {
						CachedTokens int `json:"cached_tokens"`
					} `json:"prompt_tokens_details"`
				} `json:"usage"`
			}
			data, _ := json.Marshal(answer)
			require.NoError(t, json.Unmarshal(data, &u), "usage")
			require.NotNil(t, u.Usage.PromptTokensDetails, "usage.prompt_tokens_details")
			cached, prompt = u.Usage.PromptTokensDetails.CachedTokens, u.Usage.PromptTokens
		}
		// The last prompt token is always evaluated again.
		assert.Equal(t, prompt-1, cached, "the second identical request has all but its last prompt token from the cache")
	})

	t.Run("cancel endpoint is missing", func(t *testing.T) {
		err := client(t, url).Cancel(t.Context(), "chatcmpl-1")
		var he *stream.HTTPError
		require.ErrorAs(t, err, &he, "Cancel reports the server's answer")
		assert.Equal(t, http.StatusNotFound, he.StatusCode, "POST /v1/requests/{id}/cancel is 404 on llama-server")
	})

	t.Run("the connection is closed after a streamed answer", func(t *testing.T) {
		// It says "Keep-Alive: timeout=5, max=100" and then closes: a
		// client that sends its next request on the connection gets EOF,
		// which the runner's client sends again on a fresh one.
		assert.True(t, closedAfter(t, url, true), "after a streamed answer the server closes the connection")
		assert.False(t, closedAfter(t, url, false), "after a non-streamed answer the connection stays open")
	})

	t.Run("embeddings", func(t *testing.T) {
		status, answer, err := postJSON(t.Context(), url+"/v1/embeddings", map[string]any{"model": model, "input": []string{"hello", "hello", "the model"}})
		require.NoError(t, err, "the answer decodes")
		require.Equal(t, http.StatusOK, status, "/v1/embeddings is served (--embeddings --pooling mean): %v", answer)
		var resp struct {
			Data []struct {
				Embedding []float64 `json:"embedding"`
			} `json:"data"`
			Usage struct {
				PromptTokens int `json:"prompt_tokens"`
				TotalTokens  int `json:"total_tokens"`
			} `json:"usage"`
		}
		data, _ := json.Marshal(answer)
		require.NoError(t, json.Unmarshal(data, &resp), "embeddings shape")
		require.Len(t, resp.Data, 3, "one vector per input")
		assert.Len(t, resp.Data[0].Embedding, 64, "the model's width")
		assert.Equal(t, resp.Data[0].Embedding, resp.Data[1].Embedding, "identical inputs, identical vectors")
		assert.Equal(t, resp.Usage.PromptTokens, resp.Usage.TotalTokens, "usage.prompt_tokens == total_tokens")
		status, _, err = postJSON(t.Context(), url+"/v1/embeddings", map[string]any{"model": model, "input": []string{}})
		require.NoError(t, err, "the refusal decodes")
		assert.Equal(t, http.StatusInternalServerError, status, "an empty input is a 500 (\"prompt\" must not be empty), not a 400")
	})
}

// closedAfter sends one chat request on a raw keep-alive connection,
// reads the whole answer and reports whether the server then closed the
// connection (within two seconds).
func closedAfter(t *testing.T, base string, streamed bool) bool {
	t.Helper()
	u, err := url.Parse(base)
	require.NoError(t, err, "parse %s", base)
	conn, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
	require.NoError(t, err, "dial %s", u.Host)
	defer conn.Close()
	body, _ := json.Marshal(map[string]any{"model": "tiny", "messages": userMsg("hi"), "max_tokens": 3, "stream": streamed})
	req, err := http.NewRequest(http.MethodPost, base+"/v1/chat/completions", bytes.NewReader(body))
	require.NoError(t, err, "build request")
	req.Header.Set("Content-Type", "application/json")
	if key := os.Getenv(envAPIKey); key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	require.NoError(t, conn.SetDeadline(time.Now().Add(30*time.Second)), "deadline")
	require.NoError(t, req.Write(conn), "write the request")
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, req)
	require.NoError(t, err, "read the answer")
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.NoError(t, err, "read the answer's body")
	require.Equal(t, http.StatusOK, resp.StatusCode, "answered")
	assert.NotEqual(t, "close", strings.ToLower(resp.Header.Get("Connection")), "the answer does not say it closes the connection")
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(2*time.Second)), "deadline")
	_, err = r.ReadByte()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	require.ErrorIs(t, err, io.EOF, "the connection either stays open or is closed")
	return true
}
