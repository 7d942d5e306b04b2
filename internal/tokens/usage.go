package tokens

import (
	"context"
	"encoding/json"
	"fmt"
)

// PromptCounter counts the prompt tokens of a chat request whose one user
// message has a given text: what usage.prompt_tokens says, the chat
// template's tokens included.
type PromptCounter interface {
	// PromptTokens returns the prompt tokens of a one-message chat
	// request with content text; an error names the endpoint and the
	// HTTP status.
	PromptTokens(ctx context.Context, text string) (int, error)
}

// Usage is the PromptCounter that asks the server itself: POST
// /v1/chat/completions with max_tokens 1, not streamed, reading
// usage.prompt_tokens. Every server of the OpenAI API answers it (Ollama
// too, which has no tokenizer endpoint); each count costs one prefill.
type Usage struct {
	Endpoint
}

// maxUsageBody bounds the answer read: one token's answer and its usage.
const maxUsageBody = 1 << 20

// PromptTokens returns usage.prompt_tokens of a chat request with one user
// message of content text and max_tokens 1.
func (u *Usage) PromptTokens(ctx context.Context, text string) (int, error) {
	const where = "tokens: POST /v1/chat/completions"
	raw, err := u.post(ctx, "/v1/chat/completions", map[string]any{"model": u.Model, "max_tokens": 1, "stream": false,
		"messages": []map[string]any{{"role": "user", "content": text}}}, maxUsageBody)
	if err != nil {
		return 0, err
	}
	var out struct {
		Usage *struct {
			PromptTokens *int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return 0, fmt.Errorf("%s: want a chat completion: %w", where, err)
	}
	if out.Usage == nil || out.Usage.PromptTokens == nil {
		return 0, fmt.Errorf("%s: the answer has no usage.prompt_tokens", where)
	}
	return *out.Usage.PromptTokens, nil
}
