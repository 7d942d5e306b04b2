package serverinfo

import (
	"encoding/json"
	"fmt"
	"strings"
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
	// or the first 200 characters of a text body); "" when none.
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

// serverMessage extracts the message of an error body: OpenAI's
// {"error": {"message": …}}, {"error": "…"}, {"message": …} or {"detail":
// …}, else the trimmed text (at most 200 characters).
func serverMessage(body []byte) string {
	var data map[string]any
	if json.Unmarshal(body, &data) == nil {
		if e, ok := data["error"].(map[string]any); ok {
			if m, ok := e["message"].(string); ok {
				return m
			}
		}
		for _, k := range []string{"error", "message", "detail"} {
			if m, ok := data[k].(string); ok {
				return m
			}
		}
	}
	s := strings.TrimSpace(string(body))
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}
