package tokens

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Server counts tokens with a server's own POST /tokenize (MethodServer):
// vLLM's and SGLang's shape ({"model", "prompt"} or {"model", "messages"}
// → {"count", "tokens"}) and llama.cpp's ({"content"} → {"tokens"}); the
// answer's "count" is used when present, else the length of "tokens".
// Ollama has no such endpoint (HTTP 404).
type Server struct {
	// BaseURL is the server's base URL without /v1 ("http://host:8000").
	BaseURL string
	// APIKey, when set, is sent as a Bearer token.
	APIKey string
	// Model is the model whose tokenizer counts.
	Model string
	// HTTP is the client; it must set a timeout (every request has a
	// deadline). nil is refused.
	HTTP *http.Client
}

// maxTokenizeBody bounds the answer read: token ids of a long prompt.
const maxTokenizeBody = 16 << 20

// Count returns the server's count of text's tokens.
func (s *Server) Count(ctx context.Context, text string) (int, error) {
	return s.post(ctx, map[string]any{"model": s.Model, "prompt": text, "content": text, "add_special_tokens": false})
}

// CountMessages returns the server's count of a chat request's prompt:
// messages with the model's chat template applied (vLLM's /tokenize with
// "messages"), which is what usage.prompt_tokens counts.
func (s *Server) CountMessages(ctx context.Context, messages []map[string]any) (int, error) {
	return s.post(ctx, map[string]any{"model": s.Model, "messages": messages})
}

// Method returns MethodServer.
func (s *Server) Method() Method { return MethodServer }

func (s *Server) post(ctx context.Context, body map[string]any) (int, error) {
	if s.HTTP == nil {
		return 0, fmt.Errorf("tokens: POST /tokenize: no HTTP client")
	}
	data, err := json.Marshal(body)
	if err != nil {
		return 0, fmt.Errorf("tokens: POST /tokenize: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(s.BaseURL, "/")+"/tokenize", bytes.NewReader(data))
	if err != nil {
		return 0, fmt.Errorf("tokens: POST /tokenize: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if s.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+s.APIKey)
	}
	resp, err := s.HTTP.Do(req)
	if err != nil {
		return 0, fmt.Errorf("tokens: POST /tokenize: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenizeBody))
	if err != nil {
		return 0, fmt.Errorf("tokens: POST /tokenize: read: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("tokens: POST /tokenize: HTTP %d", resp.StatusCode)
	}
	var out struct {
		Count  *int              `json:"count"`
		Tokens []json.RawMessage `json:"tokens"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return 0, fmt.Errorf("tokens: POST /tokenize: want {\"count\"} or {\"tokens\"}: %w", err)
	}
	if out.Count != nil {
		return *out.Count, nil
	}
	if out.Tokens != nil {
		return len(out.Tokens), nil
	}
	return 0, fmt.Errorf("tokens: POST /tokenize: the answer has neither \"count\" nor \"tokens\"")
}
