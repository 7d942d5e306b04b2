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
