package stream

import (
	"encoding/json"

	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// BuildBody returns the JSON request body ChatStream sends for req. For
// the chat endpoint (Request.Endpoint "" or chat) it holds model,
// messages, max_tokens (default 256), stream: true, stream_options:
// {include_usage: true}, enable_thinking when non-nil, then req.ExtraBody
// keys merged over it (extra wins, as the reference's body.update); the
// responses and completions bodies are responsesBody's and
// completionsBody's (endpointbody.go). Errors come from encoding/json (e.g. a message holding a channel).
func BuildBody(req Request) ([]byte, error) { return buildBody(req, true) }

// buildBody is the one request builder: BuildBody's body, streamed or
// not (a non-streamed body has "stream": false and no stream_options).
func buildBody(req Request, streamed bool) ([]byte, error) {
	switch req.Endpoint {
	case workloads.EndpointResponses:
		return responsesBody(req, streamed)
	case workloads.EndpointCompletions:
		return completionsBody(req, streamed)
	}
	maxTokens := req.MaxTokens
	if maxTokens == 0 {
		maxTokens = defaultMaxTokens
	}
	msgs := req.Messages
	if msgs == nil {
		msgs = []results.Message{}
	}
	body := map[string]any{
		"model":          req.Model,
		"messages":       msgs,
		"max_tokens":     maxTokens,
		"stream":         streamed,
		"stream_options": map[string]any{"include_usage": true},
	}
	if !streamed {
		delete(body, "stream_options")
	}
	if req.EnableThinking != nil {
		body["enable_thinking"] = *req.EnableThinking
	}
	for k, v := range req.ExtraBody {
		body[k] = v
	}
	return json.Marshal(body)
}
