package stream

import (
	"context"
	"errors"
	"net"
	"net/http"
	"syscall"
	"time"
)

// DefaultRetryWindow is how long RetryConnect keeps retrying a request
// whose connection could not be made when it is given a window of 0: long
// enough to ride out a server restart or a listener that is a moment
// late, short enough that a server that is really gone fails the run
// within seconds instead of every remaining case failing in milliseconds
// with the same error.
const DefaultRetryWindow = 2 * time.Second

// Backoff bounds of RetryConnect: the first retry waits retryFirstWait,
// each later one twice the previous, at most retryMaxWait.
const (
	retryFirstWait = 25 * time.Millisecond
	retryMaxWait   = 250 * time.Millisecond
)

// RetryConnect wraps rt so that a request whose connection could not be
// made is sent again, with a short backoff (25 ms doubling to 250 ms),
// until window has passed since the first attempt; window 0 means
// DefaultRetryWindow and a negative window returns rt unchanged. Only
// failures where nothing was sent are retried: a dial error
// (*net.OpError with Op "dial", which covers connection refused,
// unreachable networks and DNS failures) or ECONNREFUSED. A request
// whose body cannot be replayed (Body set without GetBody; http.NewRequest
// sets GetBody for bytes, strings and bytes.Buffer bodies) is not
// retried, nor is any failure after a connection was made (reset, EOF,
// timeouts), since the server may have acted on it. The request's context
// ends the retries at once; the last dial error is then returned.
//
// The time spent retrying is part of the request as its caller measures
// it (a stream's TTFT and E2E latency include it); a caller that reports
// retries passes an observer with WithRetryObserver.
//
// The returned RoundTripper forwards CloseIdleConnections to rt.
func RetryConnect(rt http.RoundTripper, window time.Duration) http.RoundTripper {
	if window < 0 {
		return rt
	}
	if window == 0 {
		window = DefaultRetryWindow
	}
	return &retryConnect{rt: rt, window: window}
}

type retryConnect struct {
	rt     http.RoundTripper
	window time.Duration
}

// RetryObserver is called before each retry RetryConnect makes, with the
// 1-based retry number, the wait before it and the dial error that
// caused it. It runs on the request's goroutine and must not block.
type RetryObserver func(retry int, wait time.Duration, err error)

type retryObserverKey struct{}

// WithRetryObserver returns a context whose requests report their
// RetryConnect retries to obs (for a record's note or a log line).
func WithRetryObserver(ctx context.Context, obs RetryObserver) context.Context {
	return context.WithValue(ctx, retryObserverKey{}, obs)
}

func (t *retryConnect) RoundTrip(req *http.Request) (*http.Response, error) {
	replayable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	start := time.Now()
	wait := retryFirstWait
	obs, _ := req.Context().Value(retryObserverKey{}).(RetryObserver)
	r := req
	for retry := 1; ; retry++ {
		resp, err := t.rt.RoundTrip(r)
		if err == nil || !replayable || !NotSent(err) {
			return resp, err
		}
		if time.Since(start)+wait > t.window {
			return nil, err
		}
		if obs != nil {
			obs(retry, wait, err)
		}
		timer := time.NewTimer(wait)
		select {
		case <-req.Context().Done():
			timer.Stop()
			return nil, err
		case <-timer.C:
		}
		wait = min(2*wait, retryMaxWait)
		r = req.Clone(req.Context())
		if req.GetBody != nil {
			body, gerr := req.GetBody()
			if gerr != nil {
				return nil, err
			}
			r.Body = body
		}
	}
}

// CloseIdleConnections closes the wrapped transport's idle connections.
func (t *retryConnect) CloseIdleConnections() {
	if c, ok := t.rt.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// NotSent reports whether err (from a RoundTripper or an http.Client)
// is a failure to connect, before any byte of the request was sent: a
// dial error or ECONNREFUSED. Such a request can be sent again safely.
func NotSent(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// Unwrap returns the wrapped RoundTripper (a caller that must not retry,
// such as a best-effort probe, uses it directly).
func (t *retryConnect) Unwrap() http.RoundTripper { return t.rt }
