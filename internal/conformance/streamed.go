package conformance

import (
	"context"
	"errors"
	"fmt"

	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/internal/stream"
)

// streamed is one streamed answer with its raw events.
type streamed struct {
	sent   []byte
	res    *stream.Result
	err    error
	chunks []chunkView
}

// sentText is the streamed request, its body cut to EvidenceRunes.
func (st *streamed) sentText() string {
	return "POST " + contract.EndpointChat + " " + contract.Cut(string(st.sent), EvidenceRunes)
}

// httpStatus is the stream's HTTP error status, 0 when it was not one.
func (st *streamed) httpStatus() int {
	var he *stream.HTTPError
	if errors.As(st.err, &he) {
		return he.StatusCode
	}
	return 0
}

// stream sends the case's body streamed, keeping KeptEvents events;
// stopAfter > 0 closes it after that many token chunks. The error is
// the body's; the stream's own error is in streamed.err.
func (r *contractRun) stream(ctx context.Context, stopAfter int) (*streamed, error) {
	body, err := r.body(true)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	res, serr := r.t.Sender.Stream(ctx, stream.Request{Body: body, KeepEvents: KeptEvents, StopAfterChunks: stopAfter})
	st := &streamed{sent: body, res: res, err: serr}
	st.chunks = parseChunks(res.Events)
	return st, nil
}

// with fills the stream fields of an outcome: the stream and its
// error, the HTTP status when the outcome has none, and, for a failure
// that names no request, the streamed request.
func (st *streamed) with(o Outcome) Outcome {
	o.Stream, o.StreamErr = st.res, st.err
	if o.Status == 0 {
		o.Status = st.res.StatusCode
	}
	if o.Sent == "" && o.Verdict == contract.Fail {
		o.Sent = st.sentText()
	}
	return o
}

// failedStream is the outcome of a stream that gave no chunk to judge.
func (st *streamed) failedStream() (Outcome, bool) {
	if st.httpStatus() != 0 || st.err != nil && len(st.chunks) == 0 {
		return failed(st.sentText(), st.errText(), "the request failed: %v", st.err), true
	}
	var se *stream.ServerError
	if errors.As(st.err, &se) {
		return failed(st.sentText(), st.errText(), "the server reported an error inside the stream: %v", st.err), true
	}
	return Outcome{}, false
}

// errText is what came back of a stream that failed: the HTTP error
// status and body, else the last event, else the error.
func (st *streamed) errText() string {
	var he *stream.HTTPError
	if errors.As(st.err, &he) {
		return fmt.Sprintf("HTTP %d: %s", he.StatusCode, contract.Cut(he.Error(), EvidenceRunes))
	}
	if n := len(st.res.Events); n > 0 {
		return st.eventText(n)
	}
	if st.err != nil {
		return contract.Cut(st.err.Error(), EvidenceRunes)
	}
	return "no events"
}

// eventText renders event i (1-based) of the stream.
func (st *streamed) eventText(i int) string {
	ev := st.res.Events[i-1]
	switch {
	case ev.Error != "":
		return fmt.Sprintf("event %d: error: %s", i, contract.Cut(ev.Error, EvidenceRunes))
	case ev.Type != "":
		return fmt.Sprintf("event %d: event: %s data: %s", i, ev.Type, contract.Cut(ev.Data, EvidenceRunes))
	}
	return fmt.Sprintf("event %d: data: %s", i, contract.Cut(ev.Data, EvidenceRunes))
}

// usageText is the chunk that carried the last usage.
func (st *streamed) usageText() string {
	for i := len(st.chunks) - 1; i >= 0; i-- {
		if st.chunks[i].err == nil && st.chunks[i].c.Usage != nil {
			return st.chunks[i].text()
		}
	}
	return "no usage chunk"
}

// finishText is the chunk that carried the last finish_reason.
func (st *streamed) finishText() string {
	for i := len(st.chunks) - 1; i >= 0; i-- {
		v := st.chunks[i]
		if v.err != nil || v.c.Choices == nil {
			continue
		}
		for _, ch := range *v.c.Choices {
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				return v.text()
			}
		}
	}
	return st.errText()
}
