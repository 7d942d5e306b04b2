package conformance

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/workloads"
)

// storeFollowUp is the input of responses.store's second request, the
// turn that continues the stored response.
const storeFollowUp = "Say it again in other words."

// responsesStore judges responses.store, a capability (issue 28 item 1):
// the case's messages are sent non-streamed to /v1/responses with store
// true, then a follow-up with previous_response_id the first answer's id;
// the second answer is 2xx with previous_response_id that id. A 4xx to
// either is unsupported (a stateless server refuses store or
// previous_response_id, as OpenAI's "Previous response … not found"
// would); no answer, a 5xx, an answer without an id, or a 2xx follow-up
// whose previous_response_id is absent or another fails; an endpoint not
// served (404, 405, 501 to the first request) is a skip.
func (r *contractRun) responsesStore(ctx context.Context) Outcome {
	path := workloads.EndpointResponses.Path()
	maxOut := r.limit("max_tokens")
	first, _ := json.Marshal(map[string]any{"model": r.t.Model, "input": r.in.Messages, "max_output_tokens": maxOut, "store": true})
	ex := r.do(ctx, http.MethodPost, path, first, nil)
	if o, done := storeAnswerStatus(ex, "store: true", true); done {
		return o
	}
	var a struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(ex.body, &a) != nil || a.ID == "" {
		return withStatus(failed(ex.sentText(), ex.gotText(), "the stored response has no id to continue from"), ex.status)
	}
	second, _ := json.Marshal(map[string]any{"model": r.t.Model, "input": storeFollowUp, "max_output_tokens": maxOut,
		"store": true, "previous_response_id": a.ID})
	ex2 := r.do(ctx, http.MethodPost, path, second, nil)
	if o, done := storeAnswerStatus(ex2, "previous_response_id", false); done {
		return o
	}
	var b struct {
		Previous *string `json:"previous_response_id"`
	}
	if err := json.Unmarshal(ex2.body, &b); err != nil {
		return withStatus(failed(ex2.sentText(), ex2.gotText(), "the follow-up's answer is not a JSON object: %v", err), ex2.status)
	}
	switch {
	case b.Previous == nil:
		return withStatus(failed(ex2.sentText(), ex2.gotText(), "HTTP %d to previous_response_id %q, but the answer has no previous_response_id: the server did not continue the stored response", ex2.status, nm(a.ID)), ex2.status)
	case *b.Previous != a.ID:
		return withStatus(failed(ex2.sentText(), ex2.gotText(), "previous_response_id %q in the answer, not the %q sent", nm(*b.Previous), nm(a.ID)), ex2.status)
	}
	return withStatus(pass("the response %q was stored and continued: the follow-up's answer has previous_response_id %q", nm(a.ID), nm(a.ID)), ex2.status)
}

// storeAnswerStatus judges the status of one of responses.store's
// answers (what the request asked: "store: true" or
// "previous_response_id"): done is true when o is the verdict already:
// no answer or a 5xx (fail), the endpoint not served on the first
// request (skip), a 4xx (unsupported, quoting the refusal).
func storeAnswerStatus(ex *exchange, asked string, first bool) (o Outcome, done bool) {
	s := ex.status
	switch {
	case s == 0:
		return failed(ex.sentText(), ex.gotText(), "no answer to %s", asked), true
	case first && notServed(s):
		return withStatus(skip("not served: POST %s is answered HTTP %d", ex.path, s), s), true
	case s >= 400 && s < 500:
		return withStatus(unsupported("%s refused with HTTP %d (the server stores no responses): %s", asked, s, cutBody(ex.body)), s), true
	case s < 200 || s >= 300:
		return withStatus(failed(ex.sentText(), ex.gotText(), "HTTP %d to %s, neither 2xx nor a 4xx refusal", s, asked), s), true
	}
	return Outcome{}, false
}

// cutBody is an answer's body as evidence, trimmed and cut to 200
// characters.
func cutBody(b []byte) string {
	return contract.Cut(strings.TrimSpace(string(b)), 200)
}
