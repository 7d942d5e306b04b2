package tokens

import (
	"context"
	"encoding/json"
	"fmt"
)

// Server counts tokens with a server's own POST /tokenize (MethodServer):
// vLLM's and SGLang's shape ({"model", "prompt"} or {"model", "messages"}
// → {"count", "tokens"}) and llama.cpp's ({"content"} → {"tokens"}); the
// answer's "count" is used when present, else the length of "tokens".
// Ollama has no such endpoint (HTTP 404).
type Server struct {
	Endpoint
}

// maxTokenizeBody bounds the answer read: token ids of a long prompt.
const maxTokenizeBody = 16 << 20

// Count returns the server's count of text's tokens.
func (s *Server) Count(ctx context.Context, text string) (int, error) {
	return s.tokenize(ctx, map[string]any{"model": s.Model, "prompt": text, "content": text, "add_special_tokens": false})
}

// CountMessages returns the server's count of a chat request's prompt:
// messages with the model's chat template applied (vLLM's /tokenize with
// "messages"), which is what usage.prompt_tokens counts.
func (s *Server) CountMessages(ctx context.Context, messages []map[string]any) (int, error) {
	return s.tokenize(ctx, map[string]any{"model": s.Model, "messages": messages})
}

// Method returns MethodServer.
func (s *Server) Method() Method { return MethodServer }

// tokenize posts body to /tokenize and reads its count.
func (s *Server) tokenize(ctx context.Context, body map[string]any) (int, error) {
	raw, err := s.post(ctx, "/tokenize", body, maxTokenizeBody)
	if err != nil {
		return 0, err
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
