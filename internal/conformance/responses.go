package conformance

import (
	"context"
	"fmt"

	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/workloads"
)

// responsesUsage judges responses.usage: the case's request streamed to
// /v1/responses ends with response.completed carrying usage whose
// total_tokens is input_tokens plus output_tokens, none all zero, and
// output_tokens at most max_output_tokens. An endpoint not served (404,
// 405, 501) is a skip.
func (r *contractRun) responsesUsage(ctx context.Context) Outcome {
	req := stream.Request{Endpoint: workloads.EndpointResponses, Model: r.t.Model, Messages: r.in.Messages,
		MaxTokens: r.in.MaxTokens, EnableThinking: r.in.EnableThinking}
	body, err := stream.BuildBody(req)
	if err != nil {
		return failed("", "", "conformance: build body: %v", err)
	}
	req.Body = body
	sctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	res, serr := r.t.Sender.Stream(sctx, req)
	r.heard(res.StatusCode, serr)
	sent := "POST " + workloads.EndpointResponses.Path() + " " + contract.Cut(string(body), EvidenceRunes)
	o := r.judgeResponsesUsage(res, serr, sent)
	o.Stream, o.StreamErr = res, serr
	if o.Status == 0 {
		o.Status = res.StatusCode
	}
	return o
}

// judgeResponsesUsage is responsesUsage's verdict on one stream.
func (r *contractRun) judgeResponsesUsage(res *stream.Result, serr error, sent string) Outcome {
	if notServed(res.StatusCode) {
		return skip("not served: POST %s is answered HTTP %d", workloads.EndpointResponses.Path(), res.StatusCode)
	}
	if serr != nil {
		return failed(sent, contract.Cut(serr.Error(), EvidenceRunes), "the stream failed: %v", contract.Cut(serr.Error(), 160))
	}
	u := res.Usage
	if u == nil {
		return failed(sent, "no usage", "response.completed carries no usage")
	}
	got := fmt.Sprintf("usage input_tokens %d, output_tokens %d, total_tokens %d", u.PromptTokens, u.CompletionTokens, u.TotalTokens)
	limit := r.limit("max_tokens")
	switch {
	case u.PromptTokens == 0 && u.CompletionTokens == 0 && u.TotalTokens == 0:
		return failed(sent, got, "usage is all zero: every request has input")
	case u.TotalTokens != u.PromptTokens+u.CompletionTokens:
		return failed(sent, got, "total_tokens %d != input_tokens %d + output_tokens %d", u.TotalTokens, u.PromptTokens, u.CompletionTokens)
	case u.CompletionTokens > limit:
		return failed(sent, got, "output_tokens %d > max_output_tokens %d", u.CompletionTokens, limit)
	}
	return pass("total_tokens %d = %d + %d, output_tokens <= max_output_tokens %d", u.TotalTokens, u.PromptTokens, u.CompletionTokens, limit)
}
