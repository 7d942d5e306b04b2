package conformance

import (
	"context"
	"errors"
	"fmt"

	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/workloads"
)

// responsesStream streams the case's request to /v1/responses, keeping
// KeptEvents events; sent is the request as evidence.
func (r *contractRun) responsesStream(ctx context.Context) (res *stream.Result, serr error, sent string, err error) {
	req := stream.Request{Endpoint: workloads.EndpointResponses, Model: r.t.Model, Messages: r.in.Messages,
		MaxTokens: r.in.MaxTokens, EnableThinking: r.in.EnableThinking, KeepEvents: KeptEvents}
	body, err := stream.BuildBody(req)
	if err != nil {
		return nil, nil, "", fmt.Errorf("conformance: build body: %w", err)
	}
	req.Body = body
	sctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	res, serr = r.t.Sender.Stream(sctx, req)
	r.heard(res.StatusCode, serr)
	sent = "POST " + workloads.EndpointResponses.Path() + " " + contract.Cut(string(body), EvidenceRunes)
	return res, serr, sent, nil
}

// responsesContract streams the case's request to /v1/responses
// (responsesStream) and judges the stream with judge, keeping the stream,
// its error and its status in the outcome: the shape of every
// Responses-stream contract.
func (r *contractRun) responsesContract(ctx context.Context, judge func(res *stream.Result, serr error, sent string) Outcome) Outcome {
	res, serr, sent, err := r.responsesStream(ctx)
	if err != nil {
		return failed("", "", "%v", err)
	}
	o := judge(res, serr, sent)
	o.Stream, o.StreamErr = res, serr
	if o.Status == 0 {
		o.Status = res.StatusCode
	}
	return o
}

// unjudgeableResponses is the outcome of a Responses stream no judge
// reads: an endpoint not served (a skip), a stream that failed before
// its end (other than cut short or ended by the server's error event),
// or one cut short by the bounds (a skip); ok is false for a stream to
// judge.
func unjudgeableResponses(res *stream.Result, serr error, sent string) (o Outcome, ok bool) {
	if notServed(res.StatusCode) {
		return skip("not served: POST %s is answered HTTP %d", workloads.EndpointResponses.Path(), res.StatusCode), true
	}
	var se *stream.ServerError
	if serr != nil && !errors.Is(serr, stream.ErrTruncated) && !errors.As(serr, &se) {
		return failed(sent, contract.Cut(serr.Error(), EvidenceRunes), "the stream failed: %v", contract.Cut(serr.Error(), 160)), true
	}
	if why, incomplete := (&streamed{res: res}).incomplete(); incomplete {
		return skip("%s", why), true
	}
	return Outcome{}, false
}
