package stream

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/benchserve/benchserve/results"
)

// responsesBody is the /v1/responses body: model, input (the messages as
// Responses-API input items, see responsesInput), max_output_tokens
// (default 256), stream, store: false (benchserve never asks a server to
// keep state; stateless servers reject store: true), enable_thinking when
// set, then ExtraBody merged over it. Chat-shaped tools in ExtraBody
// ({"type":"function","function":{…}}) are flattened to the Responses
// shape ({"type":"function","name":…}).
func responsesBody(req Request, streamed bool) ([]byte, error) {
	body := map[string]any{
		"model":             req.Model,
		"input":             responsesInput(req.Messages),
		"max_output_tokens": cmpMaxTokens(req.MaxTokens),
		"stream":            streamed,
		"store":             false,
	}
	if req.EnableThinking != nil {
		body["enable_thinking"] = *req.EnableThinking
	}
	for k, v := range req.ExtraBody {
		body[k] = v
	}
	if tools, ok := body["tools"].([]any); ok {
		body["tools"] = flattenTools(tools)
	}
	return json.Marshal(body)
}

// responsesInput turns chat messages into Responses-API input items: a
// message keeps its role and content; an assistant message's tool_calls
// become function_call items and a tool message a function_call_output.
func responsesInput(msgs []results.Message) []any {
	out := make([]any, 0, len(msgs))
	for _, m := range msgs {
		role, _ := m["role"].(string)
		switch {
		case role == "tool":
			out = append(out, map[string]any{"type": "function_call_output",
				"call_id": m["tool_call_id"], "output": m["content"]})
			continue
		case role == "assistant" && m["tool_calls"] != nil:
			if c, ok := m["content"].(string); ok && c != "" {
				out = append(out, map[string]any{"role": role, "content": c})
			}
			calls, _ := m["tool_calls"].([]any)
			for _, tc := range calls {
				call, _ := tc.(map[string]any)
				fn, _ := call["function"].(map[string]any)
				out = append(out, map[string]any{"type": "function_call", "call_id": call["id"],
					"name": fn["name"], "arguments": fn["arguments"]})
			}
			continue
		}
		out = append(out, map[string]any{"role": role, "content": m["content"]})
	}
	return out
}

// flattenTools rewrites chat-shaped function tools to the Responses shape;
// other entries are kept as they are.
func flattenTools(tools []any) []any {
	out := make([]any, len(tools))
	for i, t := range tools {
		out[i] = t
		tm, ok := t.(map[string]any)
		fn, isChat := tm["function"].(map[string]any)
		if !ok || !isChat {
			continue
		}
		flat := map[string]any{"type": "function"}
		for k, v := range fn {
			flat[k] = v
		}
		out[i] = flat
	}
	return out
}

// completionsBody is the /v1/completions body: model, prompt (the
// messages' text, see promptText), max_tokens (default 256), stream,
// stream_options: {include_usage: true} when streamed, then ExtraBody
// merged over it (a "prompt" there wins).
func completionsBody(req Request, streamed bool) ([]byte, error) {
	body := map[string]any{
		"model":      req.Model,
		"prompt":     promptText(req.Messages),
		"max_tokens": cmpMaxTokens(req.MaxTokens),
		"stream":     streamed,
	}
	if streamed {
		body["stream_options"] = map[string]any{"include_usage": true}
	}
	for k, v := range req.ExtraBody {
		body[k] = v
	}
	return json.Marshal(body)
}

// promptText is the text a completions prompt or an embeddings input is
// made of when a case gives chat messages: each message's text content
// (a string, or the "text" of its content parts) in order, joined by a
// newline. Roles are dropped: the endpoints take plain text.
func promptText(msgs []results.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		text := ""
		switch c := m["content"].(type) {
		case string:
			text = c
		case []any:
			var parts []string
			for _, p := range c {
				if pm, ok := p.(map[string]any); ok {
					if s, ok := pm["text"].(string); ok {
						parts = append(parts, s)
					}
				}
			}
			text = strings.Join(parts, "")
		case nil:
		default:
			text = fmt.Sprint(c)
		}
		if text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(text)
	}
	return b.String()
}

// cmpMaxTokens is n, or the default 256 when n is 0.
func cmpMaxTokens(n int) int {
	if n == 0 {
		return defaultMaxTokens
	}
	return n
}
