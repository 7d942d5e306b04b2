package conformance

import (
	"context"
	"errors"
	"fmt"
	"net/http"

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
	status := res.StatusCode
	if status == http.StatusOK && res.EventsSeen == 0 && serr != nil {
		status = 0 // headers, then nothing: no answer
	}
	r.heard(status, serr)
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

// failedStream is the outcome of a stream that cannot be judged as an
// answer: one that gave no chunk, one that carried the server's error,
// and one that broke part-way (the connection lost, a malformed event,
// the deadline passed), which would otherwise be judged as if the part
// that came were the whole answer. A stream that ended cleanly without
// data: [DONE] is judged (stream.framing fails it), and so is one the
// client closed itself (cancel.stops).
func (st *streamed) failedStream() (Outcome, bool) {
	if st.httpStatus() != 0 || st.err != nil && len(st.chunks) == 0 {
		return failed(st.sentText(), st.errText(), "the request failed: %v", st.err), true
	}
	var se *stream.ServerError
	if errors.As(st.err, &se) {
		return failed(st.sentText(), st.errText(), "the server reported an error inside the stream: %v", st.err), true
	}
	if st.err != nil && !errors.Is(st.err, stream.ErrTruncated) && !errors.Is(st.err, stream.ErrStopped) {
		return failed(st.sentText(), st.errText(), "the stream broke after %d events, so the answer is not whole: %v", st.res.EventsSeen, st.err), true
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

// incomplete says why the kept events are not the whole stream: an event
// cut at stream.MaxKeptEventBytes, or more events (or bytes) than
// KeptEvents and stream.MaxKeptBytes keep; ok is false when every event
// was kept whole. The contracts that read the events skip such a stream
// rather than judge a part of it as if it were all.
func (st *streamed) incomplete() (why string, ok bool) {
	if st.res == nil {
		return "", false
	}
	for i, ev := range st.res.Events {
		if ev.Cut {
			return fmt.Sprintf("event %d is larger than the %d bytes the judge keeps of an event (stream.MaxKeptEventBytes): the stream was not judged", i+1, stream.MaxKeptEventBytes), true
		}
	}
	if n := len(st.res.Events); st.res.EventsSeen > n {
		return fmt.Sprintf("the stream ran to %d events, past the %d the judge keeps (KeptEvents, at most %d bytes in all): the stream was not judged", st.res.EventsSeen, n, stream.MaxKeptBytes), true
	}
	return "", false
}
