package stats_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/internal/stats"
)

func TestSendRate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		n      int
		window time.Duration
		rate   float64
		reason string
	}{
		{"arrivals' own rate", 11, 2 * time.Second, 5, ""},
		{"one request", 1, 0, 0, "only 1 sent: a rate needs at least 3 requests (two gaps between sends)"},
		{"two requests", 2, time.Second, 0, "only 2 sent: a rate needs at least 3 requests (two gaps between sends)"},
		{"a burst", 5, 100 * time.Microsecond, 0, "5 sent within 100µs: a sending window under 1ms measures the clock, not the load"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rate, ok, reason := stats.SendRate(tc.n, tc.window)
			assert.Equal(t, tc.reason == "", ok, "measured")
			assert.InDelta(t, tc.rate, rate, 1e-12, "rate")
			assert.Equal(t, tc.reason, reason, "reason")
		})
	}
}

// The completed-request throughput is completions over the wall span
// (first send to last end): 20 requests sent at once that took 90 ms in
// all served 222 req/s, not the 7328 req/s their 2.6 ms of sending made.
func TestThroughput(t *testing.T) {
	for _, tc := range []struct {
		name            string
		completed, sent int
		span            time.Duration
		rate            float64
		reason          string
	}{
		{"a closed loop's burst", 20, 20, 90 * time.Millisecond, 20 / 0.09, ""},
		{"failures do not count", 15, 20, 2 * time.Second, 7.5, ""},
		{"none completed", 0, 4, time.Second, 0, ""},
		{"nothing sent", 0, 0, 0, 0, "no request was sent"},
		{"one request", 1, 1, 90 * time.Millisecond, 0, "only 1 sent: one request's throughput is the inverse of its own latency, not a rate the server sustained"},
		{"a span under the clock", 3, 3, 200 * time.Microsecond, 0, "3 sent and ended within 200µs: a span under 1ms measures the clock, not the server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rate, ok, reason := stats.Throughput(tc.completed, tc.sent, tc.span)
			assert.Equal(t, tc.reason == "", ok, "measured")
			assert.InDelta(t, tc.rate, rate, 1e-9, "rate")
			assert.Equal(t, tc.reason, reason, "reason")
		})
	}
}
