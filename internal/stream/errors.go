package stream

import (
	"errors"
	"fmt"
	"time"
)

// Sentinel errors returned (wrapped) by Client.ChatStream. Test them with
// errors.Is.
var (
	// ErrPolicyTimeout: the request's policy timeout fired before the
	// stream ended.
	ErrPolicyTimeout = errors.New("policy timeout")
	// ErrTruncated: the body ended without the [DONE] sentinel.
	ErrTruncated = errors.New("stream truncated before [DONE]")
	// ErrStopped: the client closed the stream itself after
	// Request.StopAfterChunks token-bearing chunks.
	ErrStopped = errors.New("stream closed by the client")
)

// PolicyTimeoutError is returned when the request's policy timeout fires
// before the stream ends. It reads as the reference's TimeoutError,
// "stream_chat_completion timed out after 1.500s", followed by Note, and
// wraps ErrPolicyTimeout.
type PolicyTimeoutError struct {
	// Limit is the request's Timeout.
	Limit time.Duration
	// Elapsed is the time from sending to giving up, rounded to 1 ms:
	// Result.E2ELms, on the clock the limit was timed on, so it is at
	// least Limit (before rounding).
	Elapsed time.Duration
	// Note says when asking the server to cancel failed, else "".
	Note string
}

// Error returns the reference's wording (the limit in seconds, 3 decimals).
func (e *PolicyTimeoutError) Error() string {
	return fmt.Sprintf("stream_chat_completion timed out after %.3fs%s", e.Limit.Seconds(), e.Note)
}

// Unwrap returns ErrPolicyTimeout.
func (e *PolicyTimeoutError) Unwrap() error { return ErrPolicyTimeout }

// HTTPError is returned for a non-2xx answer. Message is the server's own
// error message when the body is OpenAI-style JSON, the <title> (else the
// tag-stripped text) of an HTML page, else the body text (at most 2 KiB),
// followed by what the headers below add.
type HTTPError struct {
	StatusCode int
	Message    string
	// Location is the Location header of a 3xx answer (never followed).
	Location string
	// RetryAfter is the Retry-After header of a 429 or 503 (delay-seconds
	// or an HTTP-date, turned into a wait from now); 0 when absent or
	// unreadable.
	RetryAfter time.Duration
	// Authenticate is the WWW-Authenticate challenge of a 401, "" if none.
	Authenticate string
}

// Error returns "stream: HTTP <status>: <server's message>".
func (e *HTTPError) Error() string {
	return fmt.Sprintf("stream: HTTP %d: %s", e.StatusCode, e.Message)
}

// ServerError is returned when the server reports an error inside an HTTP
// 200 stream (an "error" object or string in a data event, or a
// non-standard "error:" SSE field). Message is the server's message.
type ServerError struct {
	Message string
	Code    string
}

// Error returns "stream: server error in stream (code <code>): <message>",
// without the code part when the server sent none.
func (e *ServerError) Error() string {
	if e.Code != "" {
		return fmt.Sprintf("stream: server error in stream (code %s): %s", e.Code, e.Message)
	}
	return "stream: server error in stream: " + e.Message
}
