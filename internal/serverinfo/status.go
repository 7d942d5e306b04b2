package serverinfo

import (
	"fmt"

	"github.com/benchserve/benchserve/internal/openai"
)

// StatusError is returned by Models when the server answered with an HTTP
// error status (401 for a wrong API key, 404 for no /v1/models): the status
// and the server's own message, so the caller can say what the server
// said instead of guessing.
type StatusError struct {
	// Path is the request path, e.g. "/v1/models".
	Path string
	// StatusCode is the HTTP status, e.g. 401.
	StatusCode int
	// Message is the server's error message (the JSON error's "message",
	// or the start of a text body, at most 200 bytes cut on a code point); "" when none.
	Message string
}

// Error returns "serverinfo: GET /v1/models: HTTP 401: <message>".
func (e *StatusError) Error() string {
	msg := fmt.Sprintf("serverinfo: GET %s: HTTP %d", e.Path, e.StatusCode)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// serverMessage is the server's message in an error body
// (openai.ErrorMessage, the one reader), at most 200 bytes.
func serverMessage(body []byte) string { return openai.ErrorMessage(body, 200) }
