package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/benchserve/benchserve/internal/contract"
)

// errorAnswer sends the case's bad request non-streamed and judges the
// error that came back (judgeError).
func (r *contractRun) errorAnswer(ctx context.Context) Outcome {
	ex, err := r.post(ctx)
	if err != nil {
		return failed("", "", "%v", err)
	}
	o := r.judgeError(ex)
	o.Status = ex.status
	if o.Verdict == contract.Fail && o.Sent == "" {
		o.Sent, o.Received = ex.sentText(), ex.gotText()
	}
	return o
}

// judgeError judges the errors.* contracts on one answer: a malformed
// body and empty messages get a 4xx, an error body is a JSON object, an
// unknown model gets 404 or 400 with the error object.
func (r *contractRun) judgeError(ex *exchange) Outcome {
	if ex.status == 0 {
		return failed("", "", "no answer: %v", ex.err)
	}
	s := ex.status
	switch r.kind {
	case contract.MalformedBody:
		switch {
		case s == http.StatusBadRequest:
			return pass("HTTP 400")
		case s >= 400 && s < 500:
			return pass("HTTP %d (a 4xx: the client's fault, not retried; 400 is the reference's)", s)
		}
		return failed("", "", "HTTP %d for a body that is not JSON", s)
	case contract.EmptyMessages:
		if s >= 400 && s < 500 {
			return pass("HTTP %d", s)
		}
		return failed("", "", "HTTP %d for empty messages", s)
	case contract.ErrorJSON:
		if s < 400 {
			return skip("no error came (HTTP %d)", s)
		}
		var m map[string]any
		if err := json.Unmarshal(bytes.TrimSpace(ex.body), &m); err != nil {
			return failed("", "", "the HTTP %d body is not a JSON object (%s)", s, orNone(ex.contentType))
		}
		return pass("HTTP %d with a JSON body (%s)", s, orNone(ex.contentType))
	case contract.UnknownModel:
		if s != http.StatusNotFound && s != http.StatusBadRequest {
			return failed("", "", "HTTP %d for an unknown model", s)
		}
		var e struct {
			Error *struct {
				Message *string `json:"message"`
				Type    *string `json:"type"`
			} `json:"error"`
		}
		if json.Unmarshal(ex.body, &e) != nil || e.Error == nil {
			return failed("", "", "HTTP %d without the error object {\"error\": {…}}", s)
		}
		if e.Error.Message == nil || *e.Error.Message == "" {
			return failed("", "", "error.message is missing")
		}
		if e.Error.Type == nil {
			return failed("", "", "error.type is missing")
		}
		return pass("HTTP %d, error type %q: %s", s, nm(*e.Error.Type), contract.Cut(*e.Error.Message, 100))
	}
	return failed("", "", "check %s: not an error check", r.kind)
}

// wrongKey judges errors.wrong_api_key: a server that refuses a request
// without a key answers a wrong key with 401; one that needs no key is a
// skip.
func (r *contractRun) wrongKey(ctx context.Context) Outcome {
	body, err := r.body(false)
	if err != nil {
		return failed("", "", "%v", err)
	}
	noKey, wrongKey := "", WrongKey
	open := r.do(ctx, http.MethodPost, contract.EndpointChat, body, &noKey)
	if open.status == 0 {
		return failed(open.sentText(), open.gotText(), "no answer without a key")
	}
	if open.status >= 200 && open.status < 300 {
		return skip("the server answers without an API key (HTTP %d): it requires none", open.status)
	}
	ex := r.do(ctx, http.MethodPost, contract.EndpointChat, body, &wrongKey)
	if ex.status != http.StatusUnauthorized {
		o := failed(ex.sentText()+" with a wrong key", ex.gotText(), "HTTP %d for a wrong key (HTTP %d without one)", ex.status, open.status)
		o.Status = ex.status
		return o
	}
	return Outcome{Verdict: contract.Pass, Evidence: fmt.Sprintf("HTTP %d without a key, 401 with a wrong one", open.status), Status: ex.status}
}
