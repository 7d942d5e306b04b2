package results

// Message is one chat message exactly as it travels on the wire. Messages
// are kept as raw JSON objects so that multimodal content arrays, null
// content, tool results and unknown keys pass through unchanged: a
// workload case's messages, what the fixture server received, and what
// benchserve sends are all []Message.
type Message = map[string]any

// ToolCall is one complete (merged) tool call of an assistant message, as
// the OpenAI chat completions API shapes it. Function.Arguments is the
// raw JSON text the model produced, which may be invalid JSON; the checks
// report that, the client never repairs it.
type ToolCall struct {
	// ID is the call's id (e.g. "call_0"), "" when the server sent none.
	ID string `json:"id"`
	// Type is "function".
	Type string `json:"type"`
	// Function is the called function and its arguments.
	Function FunctionCall `json:"function"`
}

// FunctionCall is the function part of a ToolCall.
type FunctionCall struct {
	// Name is the function's name.
	Name string `json:"name"`
	// Arguments is the JSON text of the arguments, as produced (possibly
	// invalid).
	Arguments string `json:"arguments"`
}

// Usage is the token accounting a server reports (the chat completions
// API's usage object), in tokens. In a stream it arrives on the chunk
// whose choices list is empty when the request set
// stream_options.include_usage.
type Usage struct {
	// PromptTokens is the prompt's length in tokens.
	PromptTokens int `json:"prompt_tokens"`
	// CompletionTokens is the generated tokens.
	CompletionTokens int `json:"completion_tokens"`
	// TotalTokens is PromptTokens + CompletionTokens as the server reports it.
	TotalTokens int `json:"total_tokens"`
	// CompletionTokensDetails breaks CompletionTokens down (OpenAI, vLLM
	// and others); nil when the server sent none.
	CompletionTokensDetails *CompletionTokensDetails `json:"completion_tokens_details,omitempty"`
	// PromptTokensDetails breaks PromptTokens down (OpenAI, vLLM with
	// --enable-prompt-tokens-details, SGLang, llama.cpp's llama-server
	// since February 2026); nil when the server sent none.
	PromptTokensDetails *PromptTokensDetails `json:"prompt_tokens_details,omitempty"`
}

// PromptTokensDetails is usage.prompt_tokens_details.
type PromptTokensDetails struct {
	// CachedTokens is the part of PromptTokens the server served from its
	// prefix cache instead of computing; nil when the server did not say
	// (a server that reports 0 is a cache miss, not silence).
	CachedTokens *int `json:"cached_tokens,omitempty"`
}

// CompletionTokensDetails is usage.completion_tokens_details.
type CompletionTokensDetails struct {
	// ReasoningTokens is the part of CompletionTokens spent reasoning; nil
	// when the server did not say.
	ReasoningTokens *int `json:"reasoning_tokens,omitempty"`
}

// DefaultMaxTokens is the max_tokens benchserve sends when nothing sets
// one: 256, the reference's default (bench-serve's --max-tokens and
// `defaults.get("max_tokens", 256)`, _resolve_max_tokens). Every part of
// benchserve uses this constant.
const DefaultMaxTokens = 256
