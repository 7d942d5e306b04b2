package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/internal/stream"
)

// freesCapacity judges cancel.frees_capacity, the rule the servers' own
// suites check as "cancellation frees the slot": a baseline request
// (the case's, max_tokens contract.CapacityProbeTokens, read to its end)
// gives the bound max(contract.CapacityFactor × its E2E latency,
// contract.CapacityFloor); then contract.AbandonedStreams streams of the
// case's request are opened at once and each closed after its first
// token chunk; every one of them must get that chunk within the bound (a
// server that keeps the slots of the streams it was left by makes the
// later ones wait for them), and a new request like the baseline must
// then finish within the bound. The whole contract has
// contract.CapacityDeadline; a baseline so slow that twice its bound
// does not fit in it is a skip, and so is a server that refused every
// abandoned stream (429 or 503: nothing was abandoned).
func (r *contractRun) freesCapacity(ctx context.Context) Outcome {
	ctx, cancel := context.WithTimeout(ctx, contract.CapacityDeadline)
	defer cancel()
	long, err := r.body(true)
	if err != nil {
		return failed("", "", "%v", err)
	}
	short, err := withBodyKey(long, "max_tokens", contract.CapacityProbeTokens)
	if err != nil {
		return failed("", "", "%v", err)
	}
	base, took := r.timedStream(ctx, short, 0)
	if o, bad := base.failedStream(); bad {
		o.Evidence = "the baseline request: " + o.Evidence
		return base.with(o)
	}
	bound := max(contract.CapacityFactor*took, contract.CapacityFloor)
	if left := time.Until(deadlineOf(ctx)); 2*bound > left {
		return base.with(skip("the baseline request took %s: twice its bound %s does not fit in the %s left of the contract's deadline",
			took.Round(time.Millisecond), bound.Round(time.Millisecond), left.Round(time.Second)))
	}
	ab := r.abandon(ctx, long, bound)
	if ab.stalled > 0 {
		o := failed(ab.sentText, ab.stalledText,
			"%d of %d streams opened at once got no first token within %s (max(%d× the baseline's %s, %s)): %d got one and were closed, %d ended by themselves; the server did not free the capacity of the streams it was left by",
			ab.stalled, contract.AbandonedStreams, bound.Round(time.Millisecond), contract.CapacityFactor, took.Round(time.Millisecond),
			contract.CapacityFloor, ab.closed, ab.ended)
		return base.with(o)
	}
	if ab.failed != nil {
		return ab.failed.with(failed(ab.failed.sentText(), ab.failed.errText(), "an abandoned stream failed: %v", ab.failed.err))
	}
	if ab.closed == 0 {
		return base.with(skip("no stream was abandoned: of %d, %d were refused (429 or 503) and %d ended before their first token chunk was read",
			contract.AbandonedStreams, ab.refused, ab.ended))
	}
	nctx, ncancel := context.WithTimeout(ctx, bound)
	defer ncancel()
	next, nextTook := r.timedStream(nctx, short, 0)
	if nctx.Err() != nil {
		return next.with(failed(next.sentText(), next.errText(),
			"after %d streams were abandoned after their first token, a new request did not finish within %s (max(%d× the baseline's %s, %s)): the server did not free their capacity",
			ab.closed, bound.Round(time.Millisecond), contract.CapacityFactor, took.Round(time.Millisecond), contract.CapacityFloor))
	}
	if o, bad := next.failedStream(); bad {
		o.Evidence = fmt.Sprintf("the new request after %d abandoned streams: %s", ab.closed, o.Evidence)
		return next.with(o)
	}
	return next.with(pass("baseline %s; %d of %d streams got their first token within %s and were closed (%d refused, %d ended by themselves); a new request then finished in %s (bound %s)",
		took.Round(time.Millisecond), ab.closed, contract.AbandonedStreams, ab.slowest.Round(time.Millisecond), ab.refused, ab.ended,
		nextTook.Round(time.Millisecond), bound.Round(time.Millisecond)))
}

// abandoned is what became of the streams freesCapacity abandons: closed
// after their first token chunk, ended by themselves first, refused
// (429, 503), stalled (no first token within the bound, the first one's
// last event or error in stalledText), or the first that failed
// otherwise; slowest is the latest first token of the closed ones.
type abandoned struct {
	closed, ended, refused, stalled int
	slowest                         time.Duration
	failed                          *streamed
	sentText, stalledText           string
}

// abandon opens contract.AbandonedStreams streams of body at once, each
// closed after its first token chunk or when bound has passed.
func (r *contractRun) abandon(ctx context.Context, body []byte, bound time.Duration) abandoned {
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	var (
		mu  sync.Mutex
		out abandoned
		wg  sync.WaitGroup
	)
	for range contract.AbandonedStreams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, took, status := r.sendStream(ctx, body, 1)
			mu.Lock()
			defer mu.Unlock()
			r.heard(status, st.err)
			out.sentText = st.sentText()
			switch s := st.httpStatus(); {
			case errors.Is(st.err, stream.ErrStopped):
				out.closed++
				out.slowest = max(out.slowest, took)
			case st.err == nil:
				out.ended++
			case s == http.StatusTooManyRequests || s == http.StatusServiceUnavailable:
				out.refused++
			case ctx.Err() != nil:
				if out.stalled == 0 {
					out.stalledText = st.errText()
				}
				out.stalled++
			case out.failed == nil:
				out.failed = st
			}
		}()
	}
	wg.Wait()
	return out
}

// timedStream sends body streamed (closing it after stopAfter token
// chunks when > 0), bounded by the contract's request timeout, and
// returns the answer and the time it took.
func (r *contractRun) timedStream(ctx context.Context, body []byte, stopAfter int) (*streamed, time.Duration) {
	st, took, status := r.sendStream(ctx, body, stopAfter)
	r.heard(status, st.err)
	return st, took
}

// sendStream is timedStream without noting the answer for Health (heard
// is not safe for concurrent use): it also returns the status heard
// takes, 0 when no answer came.
func (r *contractRun) sendStream(ctx context.Context, body []byte, stopAfter int) (*streamed, time.Duration, int) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	start := time.Now()
	res, serr := r.t.Sender.Stream(ctx, stream.Request{Body: body, KeepEvents: KeptEvents, StopAfterChunks: stopAfter})
	took := time.Since(start)
	status := res.StatusCode
	if status == http.StatusOK && res.EventsSeen == 0 && serr != nil {
		status = 0 // headers, then nothing: no answer
	}
	return &streamed{sent: body, res: res, err: serr, chunks: parseChunks(res.Events)}, took, status
}

// withBodyKey is the JSON object body with key set to v.
func withBodyKey(body []byte, key string, v any) ([]byte, error) {
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("conformance: build body: %w", err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("conformance: build body: %w", err)
	}
	m[key] = b
	return json.Marshal(m)
}

// deadlineOf is ctx's deadline; ctx always has one here.
func deadlineOf(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	return d
}
