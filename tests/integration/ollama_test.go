package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/openai"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
)

const (
	envURL   = "BENCHSERVE_URL"
	envModel = "BENCHSERVE_MODEL"

	skipMessage = "integration: BENCHSERVE_URL is not set, so the real-server tests are skipped; " +
		"run them with: env $(scripts/realserver.sh start) go test ./tests/integration/ -v " +
		"(Ollama; needs scripts/realserver.sh install once) or env $(scripts/llamaserver.sh start) go test ./tests/integration/ -v " +
		"(llama-server; needs scripts/llamaserver.sh install once); see tests/integration/README.md"

	// defaultModel is the name scripts/realserver.sh registers.
	defaultModel = "tiny"
)

// server returns the server URL and model under test, skipping t when no
// server is configured.
func server(t *testing.T) (url, model string) {
	t.Helper()
	url = strings.TrimRight(os.Getenv(envURL), "/")
	if url == "" {
		t.Skip(skipMessage)
	}
	model = os.Getenv(envModel)
	if model == "" {
		model = defaultModel
	}
	return url, model
}

// client is a stream.Client for the server with its own transport, closed
// when the test ends. Like the runner's, the transport sends a request
// again when the server closed the reused connection unanswered
// (llama-server does after every streamed answer).
func client(t *testing.T, url string) *stream.Client {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &stream.Client{BaseURL: url, APIKey: os.Getenv(envAPIKey), HTTP: &http.Client{Transport: stream.RetryReused(tr), Timeout: 2 * time.Minute}}
}

func userMsg(text string) []results.Message {
	return []results.Message{{"role": "user", "content": text}}
}

// rawStream is what the server sent, read without benchserve's client.
type rawStream struct {
	IDs          map[string]bool
	Content      string
	FinishReason string
	Usage        *results.Usage
	Done         bool
	Chunks       int
}

// postRaw sends body to /v1/chat/completions and reads the SSE answer
// line by line (Ollama writes one "data: " line per event).
func postRaw(t *testing.T, url string, body map[string]any) rawStream {
	t.Helper()
	data, err := json.Marshal(body)
	require.NoError(t, err, "encode raw request")
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url+"/v1/chat/completions", bytes.NewReader(data))
	require.NoError(t, err, "build raw request")
	resp, err := plainHTTP.Do(req)
	require.NoError(t, err, "send raw request")
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "raw request status")
	raw := rawStream{IDs: map[string]bool{}}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if line == "[DONE]" {
			raw.Done = true
			continue
		}
		var ch openai.Chunk
		require.NoError(t, json.Unmarshal([]byte(line), &ch), "raw chunk decodes: %s", line)
		raw.Chunks++
		raw.IDs[ch.ID] = true
		if ch.Usage != nil {
			raw.Usage = ch.Usage
		}
		for _, c := range ch.Choices {
			if c.Delta.Content != nil {
				raw.Content += *c.Delta.Content
			}
			if c.FinishReason != nil && *c.FinishReason != "" {
				raw.FinishReason = *c.FinishReason
			}
		}
	}
	require.NoError(t, sc.Err(), "read raw stream")
	return raw
}

// streamedTokens is the number of tokens Ollama streamed according to its
// usage: completion_tokens counts the end-of-sequence token too, which is
// never sent as a chunk, so a stream ended by "stop" carries one chunk
// fewer than completion_tokens.
func streamedTokens(r *stream.Result) int {
	if r.Usage == nil {
		return r.TokenChunks
	}
	if r.FinishReason == "stop" {
		return r.Usage.CompletionTokens - 1
	}
	return r.Usage.CompletionTokens
}

// TestStreamMatchesServer streams the same seeded request twice, once read
// raw and once through stream.Client, and checks that the client reports
// exactly what the server sent, with sane timings.
func TestStreamMatchesServer(t *testing.T) {
	url, model := server(t)
	msgs := userMsg("Tell me about the stream.")
	raw := postRaw(t, url, map[string]any{
		"model": model, "messages": msgs, "stream": true,
		"stream_options": map[string]any{"include_usage": true},
		"max_tokens":     64, "seed": 5,
	})
	require.NotNil(t, raw.Usage, "the server sends a usage chunk when stream_options.include_usage is set")

	res, err := client(t, url).ChatStream(t.Context(), stream.Request{
		Model: model, Messages: msgs, MaxTokens: 64, ExtraBody: map[string]any{"seed": 5},
	})
	require.NoError(t, err, "a seeded 64-token stream succeeds")

	assert.Equal(t, raw.Content, res.Content, "the client's content is the concatenated deltas the server sent (same seed, same text)")
	assert.Equal(t, raw.FinishReason, res.FinishReason, "finish_reason as sent")
	assert.Contains(t, []string{"stop", "length"}, res.FinishReason, "the tiny model ends by </s> or max_tokens")
	require.NotNil(t, res.Usage, "usage is present")
	// The second of two identical requests may find its prompt in the
	// server's prefix cache (llama-server reports it in
	// prompt_tokens_details.cached_tokens): the counts must agree, the
	// cache need not.
	rawUsage, gotUsage := *raw.Usage, *res.Usage
	rawUsage.PromptTokensDetails, gotUsage.PromptTokensDetails = nil, nil
	assert.Equal(t, rawUsage, gotUsage, "usage equals what the server reported (cached tokens aside)")
	assert.Equal(t, raw.Usage.PromptTokens, res.PromptTokens, "prompt tokens come from usage")
	assert.Equal(t, raw.Usage.CompletionTokens, res.CompletionTokens, "completion tokens come from usage")
	assert.Equal(t, streamedTokens(res), res.TokenChunks, "one token-bearing chunk per streamed token (usage also counts a final </s>)")
	assert.True(t, res.Done, "[DONE] was read")
	if id := identify(t, url); id.Kind == kindOllama {
		assert.Regexp(t, `^chatcmpl-\d+$`, res.RequestID, "Ollama ids are chatcmpl-<0..999>")
	} else {
		assert.Regexp(t, `^chatcmpl-[A-Za-z0-9]{32}$`, res.RequestID, "llama-server ids are chatcmpl- and 32 random letters and digits")
	}
	assert.Len(t, raw.IDs, 1, "every chunk of one stream carries the same id")
	assert.Empty(t, res.ToolCalls, "no tool calls from a plain chat request")
	assert.Empty(t, res.Reasoning, "no reasoning from this model")
	assert.True(t, res.HasOutput, "content arrived")
	assert.Greater(t, res.TTFTms, 0.0, "TTFT measured")
	assert.Less(t, res.TTFTms, res.E2ELms, "the first token arrives before the stream ends")
	if res.DecodeTiming == "" {
		assert.Greater(t, res.GenTPS, 0.0, "generation throughput measured")
		assert.Len(t, res.ITLms, res.TokenChunks-1, "one inter-token gap between consecutive token chunks")
	} else { // the tiny model answered within the burst rule: rates null, with the reason
		assert.True(t, math.IsNaN(res.GenTPS), "untimed decode (%s): gen_tps null, not a huge number", res.DecodeTiming)
	}
}

// TestFourParallelStreams runs four streams at once (the server has four
// slots) and checks that each completes on its own.
func TestFourParallelStreams(t *testing.T) {
	url, model := server(t)
	c := client(t, url)
	const n = 4
	results := make([]*stream.Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			results[i], errs[i] = c.ChatStream(t.Context(), stream.Request{
				Model: model, Messages: userMsg("parallel request"), MaxTokens: 200,
				ExtraBody: map[string]any{"seed": 100 + i},
			})
		})
	}
	wg.Wait()
	for i := range n {
		if !assert.NoError(t, errs[i], "parallel stream %d succeeds", i) {
			continue
		}
		r := results[i]
		assert.True(t, r.Done, "parallel stream %d read [DONE]", i)
		assert.Contains(t, []string{"stop", "length"}, r.FinishReason, "parallel stream %d finish_reason", i)
		if assert.NotNil(t, r.Usage, "parallel stream %d has usage", i) {
			assert.Equal(t, streamedTokens(r), r.TokenChunks, "parallel stream %d: usage counts the tokens streamed (plus </s>)", i)
		}
		assert.Less(t, r.TTFTms, r.E2ELms, "parallel stream %d: TTFT < E2E", i)
		assert.Empty(t, r.ToolCalls, "parallel stream %d: no tool calls", i)
	}
}

// TestOllamaDifferences pins what the real server does unlike an idealized
// OpenAI server (and unlike benchserve's fixture), so a client change that
// stops coping with it fails here. See README.md.
func TestOllamaDifferences(t *testing.T) {
	url, model := server(t)
	only(t, url, kindOllama, "TestLlamaCppDifferences pins llama-server's")
	c := client(t, url)

	t.Run("no health metrics or status endpoints", func(t *testing.T) {
		for _, p := range []string{"/health", "/metrics", "/v1/status"} {
			resp, err := plainHTTP.Get(url + p)
			require.NoError(t, err, "GET %s", p)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Equal(t, http.StatusNotFound, resp.StatusCode, "GET %s is 404 on Ollama", p)
			assert.Equal(t, "404 page not found", string(body), "GET %s body is Go's plain-text 404", p)
		}
	})

	t.Run("models are listed with a tag", func(t *testing.T) {
		resp, err := plainHTTP.Get(url + "/v1/models")
		require.NoError(t, err, "GET /v1/models")
		defer resp.Body.Close()
		var list struct {
			Data []struct {
				ID      string `json:"id"`
				OwnedBy string `json:"owned_by"`
			} `json:"data"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&list), "decode /v1/models")
		var ids []string
		for _, m := range list.Data {
			ids = append(ids, m.ID)
			assert.Equal(t, "library", m.OwnedBy, "Ollama reports owned_by library")
		}
		assert.Contains(t, ids, model+":latest", "the model is listed as NAME:latest, not as the name requests use")
	})

	t.Run("unknown model is a 404 JSON error before any stream", func(t *testing.T) {
		// The wording changes between versions (v0.6.5: `model "x" not
		// found, try pulling it first`; v0.17.4: `model 'x' not found`):
		// what a user relies on is the status and that the server's own
		// message reaches them unchanged.
		req := stream.Request{Model: "no-such-model", Messages: userMsg("hi"), MaxTokens: 4}
		res, err := c.ChatStream(t.Context(), req)
		var he *stream.HTTPError
		require.ErrorAs(t, err, &he, "an unknown model is an HTTP error, not a stream error")
		assert.Equal(t, http.StatusNotFound, he.StatusCode, "Ollama answers 404 for an unknown model")
		assert.Equal(t, http.StatusNotFound, res.StatusCode, "the partial result records the status")
		body, err := stream.BuildBody(req)
		require.NoError(t, err, "request body")
		var sent map[string]any
		require.NoError(t, json.Unmarshal(body, &sent), "request body is JSON")
		status, answer, err := postJSON(t.Context(), url+"/v1/chat/completions", sent)
		require.NoError(t, err, "the same request, sent by hand")
		require.Equal(t, http.StatusNotFound, status, "same status by hand")
		e, _ := answer["error"].(map[string]any)
		require.NotNil(t, e, "OpenAI-style error body: %v", answer)
		msg, _ := e["message"].(string)
		require.NotEmpty(t, msg, "the server says why")
		assert.Equal(t, msg, he.Message, "the server's own message is carried through unchanged")
		assert.Contains(t, he.Message, "no-such-model", "the message names the model (every version does)")
	})

	t.Run("response_format json_object constrains the answer", func(t *testing.T) {
		// The tiny model never writes a brace unconstrained (its workload
		// forbids them), so an answer that opens with one was constrained.
		// Versions sample differently under the grammar; a capped answer
		// can be unfinished JSON, a finished one parses.
		status, answer, err := postJSON(t.Context(), url+"/v1/chat/completions", map[string]any{
			"model": model, "messages": userMsg("hi"), "max_tokens": 30, "seed": 7,
			"response_format": map[string]any{"type": "json_object"},
		})
		require.NoError(t, err, "non-streamed answer decodes")
		require.Equal(t, http.StatusOK, status, "json_object is accepted")
		var resp struct {
			Choices []struct {
				Message      struct{ Content string } `json:"message"`
				FinishReason string                   `json:"finish_reason"`
			} `json:"choices"`
		}
		data, _ := json.Marshal(answer)
		require.NoError(t, json.Unmarshal(data, &resp), "chat.completion shape")
		require.Len(t, resp.Choices, 1, "one choice")
		content := resp.Choices[0].Message.Content
		assert.True(t, strings.HasPrefix(strings.TrimSpace(content), "{"), "the answer opens a JSON object: %q", content)
		if resp.Choices[0].FinishReason == "stop" {
			assert.True(t, json.Valid([]byte(content)), "a finished answer is JSON: %q", content)
		}
	})

	t.Run("max_completion_tokens and n are ignored", func(t *testing.T) {
		// Seed 7 on "hi" runs past 3 tokens: max_completion_tokens does not
		// cap it (max_tokens does), and n=2 gives one choice, not two and
		// not a 4xx.
		status, answer, err := postJSON(t.Context(), url+"/v1/chat/completions", map[string]any{
			"model": model, "messages": userMsg("hi"), "seed": 7, "max_completion_tokens": 3, "n": 2,
		})
		require.NoError(t, err, "non-streamed answer decodes")
		require.Equal(t, http.StatusOK, status, "both fields are accepted")
		var resp struct {
			Choices []json.RawMessage `json:"choices"`
			Usage   results.Usage     `json:"usage"`
		}
		data, _ := json.Marshal(answer)
		require.NoError(t, json.Unmarshal(data, &resp), "chat.completion shape")
		assert.Len(t, resp.Choices, 1, "n=2 gives one choice")
		assert.Greater(t, resp.Usage.CompletionTokens, 3, "max_completion_tokens=3 does not cap the answer")
	})

	t.Run("cancel endpoint is missing", func(t *testing.T) {
		err := c.Cancel(t.Context(), "chatcmpl-1")
		var he *stream.HTTPError
		require.ErrorAs(t, err, &he, "Cancel reports the server's answer")
		assert.Equal(t, http.StatusNotFound, he.StatusCode, "POST /v1/requests/{id}/cancel is 404 on Ollama")
	})

	t.Run("completion_tokens counts the end-of-sequence token", func(t *testing.T) {
		// Seed 9 on "hi" ends by </s> after 17 streamed tokens (see the
		// transcript): usage says 18.
		res, err := c.ChatStream(t.Context(), stream.Request{
			Model: model, Messages: userMsg("hi"), MaxTokens: 40, ExtraBody: map[string]any{"seed": 9},
		})
		require.NoError(t, err, "seeded stream succeeds")
		require.Equal(t, "stop", res.FinishReason, "seed 9 ends by </s> (sampling is reproducible for a fixed seed)")
		require.NotNil(t, res.Usage, "usage present")
		assert.Equal(t, res.TokenChunks+1, res.Usage.CompletionTokens, "Ollama's completion_tokens includes the unsent </s>")
	})

	t.Run("repeat abort ends the body without finish_reason usage or DONE", func(t *testing.T) {
		// Greedy decoding of the tiny model repeats " the"; after 30
		// identical tokens Ollama aborts and just closes the stream.
		res, err := c.ChatStream(t.Context(), stream.Request{
			Model: model, Messages: userMsg("hi"), MaxTokens: 200,
			ExtraBody: map[string]any{"temperature": 0},
		})
		assert.ErrorIs(t, err, stream.ErrTruncated, "a body that ends without [DONE] must not pass as a clean answer")
		assert.False(t, res.Done, "no [DONE]")
		assert.Empty(t, res.FinishReason, "no finish_reason chunk")
		assert.Nil(t, res.Usage, "no usage chunk")
		assert.Contains(t, res.Content, strings.Repeat(" the", 30), "the content ends in the repeated token")
	})
}

// postJSON posts body as JSON and returns the status and the decoded JSON
// answer.
func postJSON(ctx context.Context, url string, body any) (int, map[string]any, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return 0, nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		return 0, nil, err
	}
	resp, err := plainHTTP.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil && !errors.Is(err, io.EOF) {
		return resp.StatusCode, nil, err
	}
	return resp.StatusCode, out, nil
}

// TestErrorBodies checks the error format of bad requests: OpenAI-style
// JSON, never a stream, with 400 or 404 (not the 500 an idealized server
// test might expect), and a message; not one version's wording.
func TestErrorBodies(t *testing.T) {
	url, model := server(t)
	only(t, url, kindOllama, "TestLlamaCppDifferences pins llama-server's error statuses")
	cases := []struct {
		name   string
		body   map[string]any
		status int
		msg    string
	}{
		{"empty messages", map[string]any{"model": model, "messages": []any{}, "stream": true}, 400, ""},
		{"missing model", map[string]any{"messages": userMsg("hi"), "stream": true}, 400, ""},
		{"unknown model", map[string]any{"model": "nope", "messages": userMsg("hi"), "stream": true}, 404, "nope"},
		{"tools unsupported by template", map[string]any{
			"model": model, "messages": userMsg("hi"), "stream": true,
			"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "f", "parameters": map[string]any{"type": "object"}}}},
		}, 400, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, body, err := postJSON(t.Context(), url+"/v1/chat/completions", tc.body)
			require.NoError(t, err, "request and JSON decode succeed")
			assert.Equal(t, tc.status, status, "status")
			e, _ := body["error"].(map[string]any)
			require.NotNil(t, e, "body is {\"error\": {...}}: %v", body)
			msg, _ := e["message"].(string)
			// The wording is the server version's (it changed between
			// v0.6.5 and v0.17.4); only that it says why is pinned, and
			// that it names what it refers to where every version does.
			assert.NotEmpty(t, msg, "error message")
			assert.Contains(t, msg, tc.msg, "error message")
		})
	}
}
