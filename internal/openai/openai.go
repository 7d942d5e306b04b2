// Package openai holds the engine's wire types of the OpenAI-compatible
// chat completions API: the streamed chunks and their deltas. The shapes
// users meet (messages, tool calls, usage) are the public vocabulary of
// package results, which these types use. Besides the JSON shapes it holds
// the few protocol rules every request shares (Authorize, ErrorMessage),
// so the client (package stream) and the fixture server (package
// fixtures) agree on one definition.
package openai

import (
	"encoding/json"
	"net/http"

	"github.com/benchserve/benchserve/results"
)

// Chunk is one streamed chat.completion.chunk. Unknown fields (llama.cpp's
// timings, vLLM's prompt_logprobs, …) are ignored on decode.
type Chunk struct {
	// ID is the completion's id, normally the same on every chunk.
	ID string `json:"id,omitempty"`
	// Object is "chat.completion.chunk".
	Object string `json:"object,omitempty"`
	// Created is the completion's creation time in Unix seconds.
	Created int64 `json:"created,omitempty"`
	// Model is the model that answered.
	Model string `json:"model,omitempty"`
	// Choices holds one entry per choice; empty on the usage chunk.
	Choices []ChunkChoice `json:"choices"`
	// Usage is the token accounting, normally on the final usage chunk only.
	Usage *results.Usage `json:"usage,omitempty"`
	// Error is set by servers that report a failure inside an HTTP 200
	// stream: an object ({"message":…,"code":…}) or a plain string.
	Error json.RawMessage `json:"error,omitempty"`
}

// ChunkChoice is one entry of Chunk.Choices.
type ChunkChoice struct {
	// Index is the choice's index: 0 for a single-choice request, 0..n-1
	// when the request set n.
	Index int `json:"index"`
	// Delta is this chunk's increment of the message.
	Delta Delta `json:"delta"`
	// FinishReason is null until the last chunk of the choice ("stop", "length",
	// "tool_calls", …).
	FinishReason *string `json:"finish_reason"`
}

// Delta is the incremental message of a ChunkChoice. ReasoningContent is
// the vLLM/DeepSeek spelling, Reasoning the OpenRouter/Ollama one.
type Delta struct {
	// Role is "assistant", usually on the first chunk only.
	Role string `json:"role,omitempty"`
	// Content is the next piece of the answer; nil when absent or null.
	Content *string `json:"content,omitempty"`
	// ReasoningContent is the next piece of the reasoning (vLLM, DeepSeek).
	ReasoningContent *string `json:"reasoning_content,omitempty"`
	// Reasoning is the same under OpenRouter's and Ollama's name.
	Reasoning *string `json:"reasoning,omitempty"`
	// ToolCalls are this chunk's tool-call fragments.
	ToolCalls []ToolCallDelta `json:"tool_calls,omitempty"`
	// Refusal is the next piece of a refusal (OpenAI: the model's answer
	// when it declines; content stays null).
	Refusal *string `json:"refusal,omitempty"`
}

// ToolCallDelta is one streamed fragment of a tool call. Index is a
// pointer because some servers omit it or send null; see
// stream.ToolCallAccumulator for how such fragments are merged.
type ToolCallDelta struct {
	// Index is the tool call this fragment belongs to; nil when omitted or null.
	Index *int `json:"index,omitempty"`
	// ID is the call's id, usually on its first fragment only.
	ID string `json:"id,omitempty"`
	// Type is "function", usually on the first fragment only.
	Type string `json:"type,omitempty"`
	// Function holds the name (first fragment) and a piece of the arguments.
	Function *FunctionCallDelta `json:"function,omitempty"`
}

// FunctionCallDelta is the function part of a ToolCallDelta.
type FunctionCallDelta struct {
	// Name is the function's name, usually on the first fragment only.
	Name string `json:"name,omitempty"`
	// Arguments is the next piece of the arguments' JSON text.
	Arguments string `json:"arguments,omitempty"`
}

// Authorize sets "Authorization: Bearer <apiKey>" on h when apiKey is not
// empty: the one place benchserve sets the header, for chat, probes,
// scrapes and cache resets alike.
func Authorize(h http.Header, apiKey string) {
	if apiKey != "" {
		h.Set("Authorization", "Bearer "+apiKey)
	}
}
