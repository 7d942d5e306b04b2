package stream

import (
	"context"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
)

// RetryReused wraps rt so that a request that failed on a reused pooled
// connection before any byte of the answer arrived is sent once more, on
// a fresh connection. A server may close a kept-alive connection after
// its answer without saying so ("Connection: close"), or when it has been
// idle for a while (uvicorn, behind vLLM and SGLang, after 5 s): a client
// that picks the connection from its pool just then gets a reset or an
// EOF that the server never meant for the request. net/http itself sends
// such a request again only when it is idempotent (not a POST); this
// retry is safe for any request because the server did not answer it.
//
// A request is sent again only when all of these hold: the failed attempt
// ran on a reused connection (httptrace's GotConn.Reused), no byte of a
// response arrived (GotFirstResponseByte did not fire), the request's
// context has not ended, and the body can be replayed (no body, or
// GetBody set, which http.NewRequest does for bytes, strings and
// bytes.Buffer bodies). A failure on a fresh connection, or after the
// answer began, is returned as it is: that is the server's.
//
// The fresh connection is dialled for the retry alone: when rt is an
// *http.Transport the retry goes through a clone of it that keeps no
// connection alive (DisableKeepAlives), so it cannot pick another
// connection from the pool that the server closed too; any other
// RoundTripper is asked again as it is. The time the retry takes is part
// of the request as its caller measures it (ChatStream's TTFT and E2E
// latency run from the first send), and ChatStream counts the retry in
// Result.ConnectionRetries.
//
// The returned RoundTripper forwards CloseIdleConnections to rt.
func RetryReused(rt http.RoundTripper) http.RoundTripper {
	fresh := rt
	if tr, ok := rt.(*http.Transport); ok {
		fresh = tr.Clone()
		fresh.(*http.Transport).DisableKeepAlives = true
	}
	return &retryReused{rt: rt, fresh: fresh}
}

type retryReused struct {
	rt, fresh http.RoundTripper
}

type reusedObserverKey struct{}

// withReusedObserver returns a context whose requests call obs before
// RetryReused sends them again, with the error the reused connection
// gave. obs runs on the request's goroutine.
func withReusedObserver(ctx context.Context, obs func(error)) context.Context {
	return context.WithValue(ctx, reusedObserverKey{}, obs)
}

func (t *retryReused) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return t.rt.RoundTrip(req)
	}
	// GotFirstResponseByte runs on the connection's read goroutine.
	var reused, answered atomic.Bool
	trace := &httptrace.ClientTrace{
		GotConn:              func(info httptrace.GotConnInfo) { reused.Store(info.Reused) },
		GotFirstResponseByte: func() { answered.Store(true) },
	}
	resp, err := t.rt.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
	if err == nil || !reused.Load() || answered.Load() || req.Context().Err() != nil {
		return resp, err
	}
	retry := req.Clone(req.Context())
	if req.GetBody != nil {
		body, gerr := req.GetBody()
		if gerr != nil {
			return nil, err
		}
		retry.Body = body
	}
	if obs, ok := req.Context().Value(reusedObserverKey{}).(func(error)); ok {
		obs(err)
	}
	return t.fresh.RoundTrip(retry)
}

// CloseIdleConnections closes the wrapped transport's idle connections
// (the retries' transport keeps none).
func (t *retryReused) CloseIdleConnections() {
	if c, ok := t.rt.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
