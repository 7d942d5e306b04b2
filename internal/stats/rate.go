package stats

import (
	"fmt"
	"time"
)

// MinRateRequests is the fewest sends a request rate is measured from:
// the rate over a window is (n − 1) gaps divided by the window, and
// fewer than two gaps say nothing about a rate (one request "per" its own
// latency is what a naive requests / wall time reports).
const MinRateRequests = 3

// MinRateWindow is the shortest sending window a rate is measured over:
// below a millisecond the window is the clock's and the scheduler's
// resolution, not the load's.
const MinRateWindow = time.Millisecond

// SendRate is the rate, in requests per second, at which n requests were
// sent when the first and the last of them were sent window apart:
// (n − 1) / window, the arrivals' own rate (the time the last request
// then took is not part of it). It returns ok false and the reason, in
// words, when n < MinRateRequests or window < MinRateWindow: record the
// rate as null with that reason, never as a number.
func SendRate(n int, window time.Duration) (rate float64, ok bool, reason string) {
	switch {
	case n < MinRateRequests:
		return 0, false, fmt.Sprintf("only %d sent: a rate needs at least %d requests (two gaps between sends)", n, MinRateRequests)
	case window < MinRateWindow:
		return 0, false, fmt.Sprintf("%d sent within %v: a sending window under %v measures the clock, not the load", n, window, MinRateWindow)
	}
	return float64(n-1) / window.Seconds(), true, ""
}

// WindowRate is the rate, in requests per second, of n requests sent
// within a window that its sends do not bound (a window cut out of a
// longer run): n / window. Like SendRate it returns ok false and the
// reason below MinRateRequests requests or a MinRateWindow window.
func WindowRate(n int, window time.Duration) (rate float64, ok bool, reason string) {
	switch {
	case n < MinRateRequests:
		return 0, false, fmt.Sprintf("only %d sent: a rate needs at least %d requests", n, MinRateRequests)
	case window < MinRateWindow:
		return 0, false, fmt.Sprintf("%d sent within %v: a window under %v measures the clock, not the load", n, window, MinRateWindow)
	}
	return float64(n) / window.Seconds(), true, ""
}

// Throughput is the completed-request throughput of a run, in requests
// per second: completed / span, where span is the run's wall time from
// its first send to the end of its last request (vLLM bench serve's
// request_throughput, completions over the benchmark duration). Unlike
// SendRate it holds whatever loop sent the requests, closed or open,
// since it counts what the server finished, not when the client sent.
// It returns ok false and the reason when sent < 2 (one request's
// throughput is only the inverse of its own latency) or span <
// MinRateWindow: record it as null with that reason, never as a number.
func Throughput(completed, sent int, span time.Duration) (rate float64, ok bool, reason string) {
	switch {
	case sent == 0:
		return 0, false, "no request was sent"
	case sent < 2:
		return 0, false, "only 1 sent: one request's throughput is the inverse of its own latency, not a rate the server sustained"
	case span < MinRateWindow:
		return 0, false, fmt.Sprintf("%d sent and ended within %v: a span under %v measures the clock, not the server", sent, span, MinRateWindow)
	}
	return float64(completed) / span.Seconds(), true, ""
}
