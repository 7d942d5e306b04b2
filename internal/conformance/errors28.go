package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/internal/stream"
)

// TypedSender is a Sender that can send a body of another Content-Type
// than JSON (stream.Client.DoAs): errors.form_body needs it, and is a
// skip on a Sender without it.
type TypedSender interface {
	DoAs(ctx context.Context, method, path string, body []byte, contentType string, key *string, limit int64) (stream.Exchange, error)
}

// formContentType is the Content-Type errors.form_body sends.
const formContentType = "application/x-www-form-urlencoded"

// run28 runs the contracts of issue 28 that have their own function
// (form body, missing key, invalid schema, completions echo, logprobs
// and n, Responses ids and store, cache repeat); ok is false for every
// other kind.
func (r *contractRun) run28(ctx context.Context) (o Outcome, ok bool) {
	switch r.kind {
	case contract.FormBody:
		return r.formBody(ctx), true
	case contract.MissingAPIKey:
		return r.missingKey(ctx), true
	case contract.InvalidSchema:
		return r.invalidSchema(ctx), true
	case contract.CompletionsEcho:
		return r.completionsEcho(ctx), true
	case contract.CompletionsLogprobs:
		return r.completionsLogprobs(ctx), true
	case contract.CompletionsN:
		return r.completionsN(ctx), true
	case contract.ResponsesIDs:
		return r.responsesIDs(ctx), true
	case contract.ResponsesStore:
		return r.responsesStore(ctx), true
	case contract.CacheRepeat:
		return r.cacheRepeat(ctx), true
	}
	return Outcome{}, false
}

// formBody judges errors.form_body: the case's request form-encoded
// (model, messages as JSON, max_tokens) is answered 4xx: a 2xx means
// the server parsed what a client did not mean to send, a 5xx is retried
// and paged as the server's fault.
func (r *contractRun) formBody(ctx context.Context) Outcome {
	ts, ok := r.t.Sender.(TypedSender)
	if !ok {
		return skip("this client cannot send a form-encoded body")
	}
	msgs, err := json.Marshal(r.in.Messages)
	if err != nil {
		return failed("", "", "conformance: encode messages: %v", err)
	}
	maxTokens := r.in.MaxTokens
	if maxTokens <= 0 {
		maxTokens = 256
	}
	body := []byte(url.Values{"model": {r.t.Model}, "messages": {string(msgs)}, "max_tokens": {strconv.Itoa(maxTokens)}}.Encode())
	ex := &exchange{method: http.MethodPost, path: contract.EndpointChat, sent: body}
	dctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	got, derr := ts.DoAs(dctx, http.MethodPost, contract.EndpointChat, body, formContentType, nil, maxBody)
	r.heard(got.Status, derr)
	ex.status, ex.contentType, ex.body = got.Status, got.ContentType, got.Body
	if derr != nil {
		ex.err = derr
	}
	sent := ex.sentText() + " (Content-Type " + formContentType + ")"
	s := ex.status
	var o Outcome
	switch {
	case s == 0:
		o = failed(sent, ex.gotText(), "no answer to a form-encoded body")
	case s >= 400 && s < 500:
		o = pass("HTTP %d for a form-encoded body", s)
	case s >= 500:
		o = failed(sent, ex.gotText(), "HTTP %d for a form-encoded body: a 5xx is the server's fault (retried, paged), the body is the client's", s)
	default:
		o = failed(sent, ex.gotText(), "HTTP %d for a form-encoded body: the server answered a body that is not JSON", s)
	}
	o.Status = s
	return o
}

// missingKey judges errors.missing_key, as wrongKey does errors.
// wrong_api_key: a server that answers a request without an API key
// requires none (a skip); one that requires a key answers its absence
// with 401 and the error object {"error": {"message": …}} (OpenAI's
// "You didn't provide an API key"), which clients read to say why.
func (r *contractRun) missingKey(ctx context.Context) Outcome {
	body, err := r.body(false)
	if err != nil {
		return failed("", "", "%v", err)
	}
	noKey := ""
	ex := r.do(ctx, http.MethodPost, contract.EndpointChat, body, &noKey)
	sent := ex.sentText() + " without an Authorization header"
	var o Outcome
	switch s := ex.status; {
	case s == 0:
		o = failed(sent, ex.gotText(), "no answer without a key")
	case s >= 200 && s < 300:
		o = skip("the server answers without an API key (HTTP %d): it requires none", s)
	case s != http.StatusUnauthorized:
		o = failed(sent, ex.gotText(), "HTTP %d without an API key, not 401", s)
	default:
		var e struct {
			Error *struct {
				Message *string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(ex.body, &e) != nil || e.Error == nil {
			o = failed(sent, ex.gotText(), `HTTP 401 without the error object {"error": {"message": …}}`)
		} else if e.Error.Message == nil || *e.Error.Message == "" {
			o = failed(sent, ex.gotText(), "HTTP 401 whose error.message is missing or empty")
		} else {
			o = pass("HTTP 401 without a key: %s", contract.Cut(*e.Error.Message, 100))
		}
	}
	o.Status = ex.status
	return o
}

// invalidSchema judges structured.invalid_schema: a json_schema
// response_format whose schema does not compile is answered 4xx within
// the request's deadline; no answer by then (a server stuck building a
// grammar), a 5xx or an answer served fails.
func (r *contractRun) invalidSchema(ctx context.Context) Outcome {
	ex, err := r.post(ctx)
	if err != nil {
		return failed("", "", "%v", err)
	}
	s := ex.status
	var o Outcome
	switch {
	case s == 0 && errors.Is(ex.err, context.DeadlineExceeded):
		o = failed(ex.sentText(), ex.gotText(), "no answer within the request deadline of %s for an invalid schema: the server hangs", r.timeout())
	case s == 0:
		o = failed(ex.sentText(), ex.gotText(), "no answer for an invalid schema")
	case s >= 400 && s < 500:
		o = pass("HTTP %d for an invalid schema: %s", s, contract.Cut(string(ex.body), 120))
	case s >= 500:
		o = failed(ex.sentText(), ex.gotText(), "HTTP %d for an invalid schema: a 5xx is the server's fault (retried, paged), the schema is the client's", s)
	default:
		o = failed(ex.sentText(), ex.gotText(), "HTTP %d for an invalid schema: it was not refused", s)
	}
	o.Status = s
	return o
}
