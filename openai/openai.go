// Package openai holds the wire types of the OpenAI-compatible chat
// completions API that benchserve sends and reads: requests, streamed
// chunks, usage and tool calls. It has no behaviour beyond JSON shapes, so
// the client (package stream), the fixture server (package fixtures) and the
// quality checks (package checks) agree on one definition.
package openai

import "encoding/json"

// Message is one chat message exactly as it travels on the wire. Messages
// are kept as raw JSON objects so that multimodal content arrays, null
// content, tool results and unknown keys pass through unchanged.
type Message = map[string]any

// ToolCall is one complete (merged) tool call of an assistant message.
// Function.Arguments is the raw JSON text the model produced, which may be
// invalid JSON; the checks report that, the client never repairs it.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall is the function part of a ToolCall.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Usage is the token accounting a server reports, in tokens. In a stream it
// arrives on the chunk whose choices list is empty when the request set
// stream_options.include_usage.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Chunk is one streamed chat.completion.chunk. Unknown fields (llama.cpp's
// timings, vLLM's prompt_logprobs, …) are ignored on decode.
type Chunk struct {
	ID      string        `json:"id,omitempty"`
	Object  string        `json:"object,omitempty"`
	Created int64         `json:"created,omitempty"`
	Model   string        `json:"model,omitempty"`
	Choices []ChunkChoice `json:"choices"`
	Usage   *Usage        `json:"usage,omitempty"`
	// Error is set by servers that report a failure inside an HTTP 200
	// stream: an object ({"message":…,"code":…}) or a plain string.
	Error json.RawMessage `json:"error,omitempty"`
}

// ChunkChoice is one entry of Chunk.Choices.
type ChunkChoice struct {
	Index        int     `json:"index"`
	Delta        Delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

// Delta is the incremental message of a ChunkChoice. ReasoningContent is
// the vLLM/DeepSeek spelling, Reasoning the OpenRouter/Ollama one.
type Delta struct {
	Role             string          `json:"role,omitempty"`
	Content          *string         `json:"content,omitempty"`
	ReasoningContent *string         `json:"reasoning_content,omitempty"`
	Reasoning        *string         `json:"reasoning,omitempty"`
	ToolCalls        []ToolCallDelta `json:"tool_calls,omitempty"`
}

// ToolCallDelta is one streamed fragment of a tool call. Index is a
// pointer because some servers omit it or send null; see
// stream.ToolCallAccumulator for how such fragments are merged.
type ToolCallDelta struct {
	Index    *int               `json:"index,omitempty"`
	ID       string             `json:"id,omitempty"`
	Type     string             `json:"type,omitempty"`
	Function *FunctionCallDelta `json:"function,omitempty"`
}

// FunctionCallDelta is the function part of a ToolCallDelta.
type FunctionCallDelta struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
}

// ChatRequest is the subset of a chat completions request body that
// benchserve builds itself. Extra keys from a workload's extra_body are
// merged on top by the client, so this struct is never the whole story.
type ChatRequest struct {
	Model          string         `json:"model"`
	Messages       []Message      `json:"messages"`
	MaxTokens      int            `json:"max_tokens"`
	Stream         bool           `json:"stream"`
	StreamOptions  *StreamOptions `json:"stream_options,omitempty"`
	EnableThinking *bool          `json:"enable_thinking,omitempty"`
}

// StreamOptions asks the server to append a usage chunk to the stream.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}
