package workloads

import (
	"fmt"
	"strings"
)

// Endpoint names the OpenAI-compatible API a case's request is sent to:
// a workload's "endpoint" (per case or in defaults) and the CLI's
// --endpoint. The zero value "" means EndpointChat.
type Endpoint string

// The endpoints benchserve sends to. Paths are relative to the server
// root (a base URL without /v1).
const (
	// EndpointChat is POST /v1/chat/completions, streamed (the default).
	EndpointChat Endpoint = "chat"
	// EndpointResponses is POST /v1/responses, streamed: the Responses
	// API's typed events (docs/streams.md), stateless (store: false).
	EndpointResponses Endpoint = "responses"
	// EndpointCompletions is POST /v1/completions, streamed: the legacy
	// text completions API, the prompt being the messages' text.
	EndpointCompletions Endpoint = "completions"
	// EndpointEmbeddings is POST /v1/embeddings, not streamed: one
	// request embeds a batch of inputs (the messages' text).
	EndpointEmbeddings Endpoint = "embeddings"
)

// parseEndpoint returns the Endpoint named s ("chat", "responses",
// "completions", "embeddings"; any case, surrounding space ignored; ""
// is EndpointChat). Any other name is an error listing the valid ones.
func parseEndpoint(s string) (Endpoint, error) {
	switch e := Endpoint(strings.ToLower(strings.TrimSpace(s))); e {
	case "":
		return EndpointChat, nil
	case EndpointChat, EndpointResponses, EndpointCompletions, EndpointEmbeddings:
		return e, nil
	}
	return "", fmt.Errorf("want one of chat, responses, completions, embeddings, got %q", s)
}

// Path returns the endpoint's request path, e.g. "/v1/responses"; the
// zero value's is the chat path.
func (e Endpoint) Path() string {
	switch e {
	case EndpointResponses:
		return "/v1/responses"
	case EndpointCompletions:
		return "/v1/completions"
	case EndpointEmbeddings:
		return "/v1/embeddings"
	}
	return "/v1/chat/completions"
}

// endpoint reads an "endpoint" value (field names it in problems): ""
// when absent or null, else a name parseEndpoint accepts.
func (p *parser) endpoint(where at, field string, v any) Endpoint {
	if v == nil {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		p.add(where, field, "want a string (chat, responses, completions, embeddings), got %s", describe(v))
		return ""
	}
	e, err := parseEndpoint(s)
	if err != nil {
		p.add(where, field, "%v", err)
	}
	return e
}
