package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/benchserve/benchserve/internal/scrape"
)

// SideRequestTimeout bounds each request the runner makes around a case
// (the /metrics scrapes before and after, the /v1/status read), or the
// case's policy timeout when that is shorter: a server whose /metrics
// hangs costs that case its cache counters (null), never the run.
const SideRequestTimeout = 5 * time.Second

// sideTimeout is Config.SideRequestTimeout or the package default.
func (r *Runner) sideTimeout() time.Duration {
	if r.cfg.SideRequestTimeout > 0 {
		return r.cfg.SideRequestTimeout
	}
	return SideRequestTimeout
}

// scrapeWithin reads the server's prefix-cache counters (scrape.Fetch)
// within limit; the zero Counters (every counter unavailable) when the
// scrape fails, was given up on, or the runner was configured with
// NoScrape.
func (r *Runner) scrapeWithin(ctx context.Context, limit time.Duration) scrape.Counters {
	if r.cfg.NoScrape || r.scrapeOff.Load() {
		return scrape.Counters{}
	}
	sctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	c, err := scrape.Fetch(sctx, r.side, r.cfg.URL, r.cfg.APIKey)
	if err != nil && ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
		// A /metrics that hangs would cost every case the side timeout
		// twice: stop reading it, once, and say so.
		if r.scrapeOff.CompareAndSwap(false, true) {
			r.warn(fmt.Sprintf("GET /metrics did not answer within %v: cache counters are not read for the rest of the run (null in the records); --scrape-metrics false (WithoutScrape) skips them", limit))
		}
	}
	return c
}

// statusWithin reads /v1/status within limit, giving up on it for the
// rest of the run (and saying so) when it hangs.
func (r *Runner) statusWithin(ctx context.Context, limit time.Duration) map[string]any {
	if r.statusOff.Load() {
		return nil
	}
	sctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	st := r.prober.Status(sctx)
	if len(st) == 0 && ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
		if r.statusOff.CompareAndSwap(false, true) {
			r.warn(fmt.Sprintf("GET /v1/status did not answer within %v: memory figures are not read for the rest of the run", limit))
		}
	}
	return st
}

// warn hands a note about the run to Config.Warn, if set.
func (r *Runner) warn(msg string) {
	if r.cfg.Warn != nil {
		r.cfg.Warn(msg)
	}
}

// note hands an informational message to Config.Note, else to Warn.
func (r *Runner) note(msg string) {
	if r.cfg.Note != nil {
		r.cfg.Note(msg)
		return
	}
	r.warn(msg)
}
