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
