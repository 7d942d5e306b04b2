package conformance

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/benchserve/benchserve/internal/scrape"
	"github.com/benchserve/benchserve/internal/stream"
)

// running reads the server's running-requests gauge.
func (r *contractRun) running(ctx context.Context) (float64, string, bool) {
	ex := r.do(ctx, http.MethodGet, "/metrics", nil, nil)
	if ex.status != http.StatusOK {
		return 0, "", false
	}
	v, name, ok, err := scrape.ParseRunning(ex.body, ex.contentType)
	return v, name, ok && err == nil
}

// cancel judges cancel.stops: after the client closes the stream, the
// server's running-requests gauge falls back within CancelGrace; a
// server without the gauge is a skip.
func (r *contractRun) cancel(ctx context.Context) Outcome {
	base, gauge, ok := r.running(ctx)
	if !ok {
		return skip("the server has no running-requests gauge on /metrics (%s)", strings.Join(scrape.RunningGauges, ", "))
	}
	st, err := r.stream(ctx, r.s.CancelAfter)
	if err != nil {
		return failed("", "", "%v", err)
	}
	if !errors.Is(st.err, stream.ErrStopped) {
		if st.err == nil {
			return st.with(skip("the answer ended after %d token chunks, before the client closed it", st.res.TokenChunks))
		}
		o, _ := st.failedStream()
		if o.Verdict == "" {
			o = failed(st.sentText(), st.errText(), "the stream failed: %v", st.err)
		}
		return st.with(o)
	}
	closed := time.Now()
	v := base
	for {
		// Read before the scrape: the last scrape starts after the grace,
		// however long a scrape takes on a busy machine.
		over := time.Since(closed) > CancelGrace
		v, _, ok = r.running(ctx)
		if ok && v <= base {
			return st.with(pass("%s fell back to %g within %d ms of the close", gauge, v, time.Since(closed).Milliseconds()))
		}
		if over || ctx.Err() != nil {
			break
		}
		t := time.NewTimer(50 * time.Millisecond)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
	return st.with(failed(st.sentText(), fmt.Sprintf("%s %g, %g before the request", gauge, v, base),
		"%s still counts the request %s after the client closed the stream", gauge, CancelGrace))
}
