package conformance

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/benchserve/benchserve/internal/contract"
)

// exchange is one non-streamed HTTP request and its answer.
type exchange struct {
	method, path string
	sent         []byte
	status       int
	contentType  string
	body         []byte
	err          error
}

// sentText is the request, its body cut to EvidenceRunes.
func (e *exchange) sentText() string {
	if e.method == http.MethodGet {
		return "GET " + e.path
	}
	return e.method + " " + e.path + " " + contract.Cut(string(e.sent), EvidenceRunes)
}

// gotText is the answer: status, Content-Type and body cut to
// EvidenceRunes, or the transport error when none came.
func (e *exchange) gotText() string {
	if e.err != nil && e.status == 0 {
		return "no answer: " + e.err.Error()
	}
	return fmt.Sprintf("HTTP %d (%s): %s", e.status, orNone(e.contentType), contract.Cut(strings.TrimSpace(string(e.body)), EvidenceRunes))
}

// orNone is a Content-Type, or "no Content-Type" for none.
func orNone(s string) string {
	if s == "" {
		return "no Content-Type"
	}
	return s
}
