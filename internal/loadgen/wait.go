package loadgen

import (
	"context"
	"runtime"
	"time"
)

// spinAhead is how long before an arrival's due time the open loop stops
// sleeping and yields in a loop until the instant comes. Go's scheduler,
// with nothing else to run, parks in the network poller with a timeout
// rounded up to whole milliseconds, so a timer due in 0.3 ms fires about
// 1 ms late: the open loop's schedule lag had a p50 of 0.6–0.8 ms from
// that alone (BenchmarkOffsetsLag). Yielding the last stretch costs at
// most spinAhead of one core per arrival (at 100 req/s, a fifth of a
// core; at 500 req/s and above the loop is never idle that long anyway)
// and lets other goroutines run meanwhile (runtime.Gosched).
const spinAhead = 2 * time.Millisecond

// waitUntil returns when due has come (true) or ctx ended first (false),
// sleeping on timer (stopped, its channel empty) until spinAhead before
// due.
func waitUntil(ctx context.Context, timer *time.Timer, due time.Time) bool {
	if sleep := time.Until(due) - spinAhead; sleep > 0 {
		timer.Reset(sleep)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop() // since Go 1.23 no stale tick is left to drain
			return false
		}
	}
	for time.Now().Before(due) {
		if ctx.Err() != nil {
			return false
		}
		runtime.Gosched()
	}
	return true
}
