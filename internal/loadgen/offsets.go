package loadgen

import (
	"context"
	"fmt"
	"time"
)

// Offsets is an open loop's schedule given by the caller instead of drawn
// from a seed (a trace's timestamps, scaled): each call returns the next
// request's send offset from the start of the run, and false at the
// schedule's end. RunOpen calls it once per request, in index order, from
// one goroutine, just before it waits for that offset, so a caller can
// stream the schedule (a trace read line by line) and learn which request
// an offset belongs to by counting calls. Offsets should not decrease: one
// already past is sent at once, and its lag shows by how much.
type Offsets func() (at time.Duration, ok bool)

// runOffsets is RunOpen on cfg.Offsets: Rate, Burstiness, Seed and
// FirstGap are unused, and the schedule's end bounds the run when neither
// Requests nor Duration does.
func runOffsets(ctx context.Context, fn Func, cfg Open) (*Run, error) {
	if cfg.Requests < 0 || cfg.Duration < 0 || cfg.MaxInFlight < 0 || cfg.MaxDuration < 0 || cfg.LateAfter < 0 {
		return nil, fmt.Errorf("load: open loop: negative setting in %+v", cfg)
	}
	return sendOpen(ctx, fn, cfg, cfg.Offsets)
}

// remainingOffsets counts the requests from index i (due at at, already
// drawn) on that the schedule held but the run did not send, by reading
// the rest of cfg.Offsets up to Requests or Duration: exact, at the cost of
// reading a trace to its end.
func remainingOffsets(cfg Open, i int, at time.Duration) int {
	if cfg.Duration > 0 && at >= cfg.Duration {
		return 0
	}
	n := 1
	for cfg.Requests == 0 || i+n < cfg.Requests {
		next, ok := cfg.Offsets()
		if !ok || (cfg.Duration > 0 && next >= cfg.Duration) {
			break
		}
		n++
	}
	return n
}
