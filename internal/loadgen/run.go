package loadgen

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benchserve/benchserve/internal/stats"
)

// Func sends request i (0-based, in schedule order) of a run and returns
// its measurement. The load generator only schedules: the caller supplies
// the sending (in benchserve, the engine's runner.Session, which judges
// and records every request). It is called concurrently; ctx ends when the run's
// duration cap passes or the caller's context ends. Index, Scheduled, Sent
// and Lag are filled in by the runner.
type Func func(ctx context.Context, i int) Sample

// Closed configures a closed-loop run (the reference's mode): Concurrency
// workers, each sending its next request as soon as its previous one ended.
type Closed struct {
	// Concurrency is the number of concurrent streams; 0 means 1.
	Concurrency int
	// Requests is how many requests to send in all; 0 means no count limit
	// (Duration must then be set).
	Requests int
	// Duration stops sending new requests once that much time has passed
	// since the start (requests in flight finish); 0 means no limit
	// (Requests must then be set).
	Duration time.Duration
	// MaxDuration is a hard cap on the whole run: when it passes, requests
	// still in flight are cancelled (kind canceled); 0 means none beyond
	// ctx.
	MaxDuration time.Duration
}

// Overflow says what an open-loop run does with a request that is due
// while MaxInFlight requests are already in flight.
type Overflow int

const (
	// OverflowWait sends it as soon as a slot frees: it is late, and its
	// lag (and the run's Late count) shows by how much.
	OverflowWait Overflow = iota
	// OverflowDrop does not send it: it is recorded as a sample of kind
	// "dropped" and counts as a failure.
	OverflowDrop
)

// Open configures an open-loop run: requests sent on a seeded arrival
// schedule (see Schedule) whether or not earlier ones finished.
type Open struct {
	// Rate is the mean arrival rate in requests per second (> 0; +Inf
	// sends everything at once).
	Rate float64
	// Burstiness is the gamma shape of the gaps; 0 or 1 means Poisson.
	Burstiness float64
	// Seed fixes the schedule (see NewRand).
	Seed uint64
	// Requests is how many requests the schedule holds; 0 means as many as
	// fit in Duration (Duration must then be set).
	Requests int
	// Duration stops the schedule at that offset; 0 means no limit
	// (Requests must then be set).
	Duration time.Duration
	// MaxInFlight caps requests in flight; 0 means 1024. What happens to a
	// request due beyond it is Overflow's choice.
	MaxInFlight int
	// Overflow is OverflowWait (default) or OverflowDrop.
	Overflow Overflow
	// LateAfter is the lag beyond which a sent request counts as late in
	// Run.Late; 0 means 1 ms.
	LateAfter time.Duration
	// MaxDuration is a hard cap on the whole run: when it passes, requests
	// not yet sent are counted in Run.Unsent and those in flight are
	// cancelled; 0 means none beyond ctx.
	MaxDuration time.Duration
}

// Run is what a closed- or open-loop run measured.
type Run struct {
	// Mode is "closed" or "open".
	Mode string
	// Samples holds one entry per request sent or dropped, by Index.
	Samples []Sample
	// Started is the wall-clock start of the run.
	Started time.Time
	// Duration runs from the start to the end of the last request.
	Duration time.Duration
	// PeakInFlight is the largest number of requests in flight at once.
	PeakInFlight int
	// Unsent counts scheduled requests never sent because the run's
	// context ended first (open loop).
	Unsent int
	// Late counts sent requests whose lag exceeded LateAfter (open loop).
	Late int
}

// stats.Stats summarizes the run (see Summarize) and adds the run-level counts.
func (r *Run) Stats(opts StatsOptions) stats.Stats {
	s := Summarize(r.Samples, r.Duration, opts)
	s.Mode = r.Mode
	s.PeakInFlight = r.PeakInFlight
	s.Unsent = r.Unsent
	s.Late = r.Late
	return s
}

// recorder collects samples and tracks requests in flight.
type recorder struct {
	start    time.Time
	mu       sync.Mutex
	samples  []Sample
	inFlight atomic.Int64
	peak     atomic.Int64
}

func (rec *recorder) send(ctx context.Context, fn Func, i int, scheduled time.Duration, scheduledSet bool) Sample {
	n := rec.inFlight.Add(1)
	for p := rec.peak.Load(); n > p && !rec.peak.CompareAndSwap(p, n); p = rec.peak.Load() {
	}
	sent := time.Since(rec.start)
	s := fn(ctx, i)
	rec.inFlight.Add(-1)
	if !scheduledSet {
		scheduled = sent
	}
	s.Index, s.Scheduled, s.Sent, s.Lag = i, scheduled, sent, sent-scheduled
	if s.Kind == "" && s.Err != nil {
		s.Kind = Classify(s.Err)
	}
	rec.add(s)
	return s
}

func (rec *recorder) add(s Sample) {
	rec.mu.Lock()
	rec.samples = append(rec.samples, s)
	rec.mu.Unlock()
}

func (rec *recorder) finish(mode string) *Run {
	slices.SortFunc(rec.samples, func(a, b Sample) int { return a.Index - b.Index })
	return &Run{
		Mode:         mode,
		Samples:      rec.samples,
		Started:      rec.start,
		Duration:     time.Since(rec.start),
		PeakInFlight: int(rec.peak.Load()),
	}
}

// RunClosed runs fn in a closed loop (reference: run_concurrent_requests,
// generalised from one round to a request count or a duration). It returns
// an error, before sending anything, when neither Requests nor Duration
// bounds the run or a field is negative. Request failures are in the
// samples, never the error.
func RunClosed(ctx context.Context, fn Func, cfg Closed) (*Run, error) {
	if cfg.Concurrency < 0 || cfg.Requests < 0 || cfg.Duration < 0 || cfg.MaxDuration < 0 {
		return nil, fmt.Errorf("load: closed loop: negative setting in %+v", cfg)
	}
	if cfg.Requests == 0 && cfg.Duration == 0 {
		return nil, errors.New("load: closed loop: unbounded: set Requests or Duration")
	}
	conc := max(cfg.Concurrency, 1)
	if cfg.Requests > 0 {
		conc = min(conc, cfg.Requests)
	}
	if cfg.MaxDuration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.MaxDuration)
		defer cancel()
	}
	rec := &recorder{start: time.Now()}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range conc {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if cfg.Requests > 0 && i >= cfg.Requests {
					return
				}
				if cfg.Duration > 0 && time.Since(rec.start) >= cfg.Duration {
					return
				}
				rec.send(ctx, fn, i, 0, false)
			}
		})
	}
	wg.Wait()
	return rec.finish("closed"), nil
}

// RunOpen runs fn in an open loop: request i is due at its offset in
// Schedule(Rate, Burstiness, n, Seed) and is sent then, whatever happened
// to earlier requests, unless MaxInFlight requests are in flight (see
// Overflow). Each sample records its lag (actual send − scheduled), so a
// client that cannot keep up shows in stats.Stats.Lag and Run.Late instead of
// silently lowering the rate. It returns an error, before sending
// anything, for invalid arrival parameters or an unbounded run.
func RunOpen(ctx context.Context, fn Func, cfg Open) (*Run, error) {
	if err := CheckArrivals(cfg.Rate, cfg.Burstiness); err != nil {
		return nil, err
	}
	if cfg.Requests < 0 || cfg.Duration < 0 || cfg.MaxInFlight < 0 || cfg.MaxDuration < 0 || cfg.LateAfter < 0 {
		return nil, fmt.Errorf("load: open loop: negative setting in %+v", cfg)
	}
	if cfg.Requests == 0 && cfg.Duration == 0 {
		return nil, errors.New("load: open loop: unbounded: set Requests or Duration")
	}
	maxIn := cfg.MaxInFlight
	if maxIn == 0 {
		maxIn = 1024
	}
	lateAfter := cfg.LateAfter
	if lateAfter == 0 {
		lateAfter = time.Millisecond
	}
	if cfg.MaxDuration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.MaxDuration)
		defer cancel()
	}
	arrivals := newArrivals(cfg.Rate, cfg.Burstiness, cfg.Seed)
	rec := &recorder{start: time.Now()}
	slots := make(chan struct{}, maxIn)
	var wg sync.WaitGroup
	var late atomic.Int64
	unsent := 0
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
schedule:
	for i := 0; cfg.Requests == 0 || i < cfg.Requests; i++ {
		at := arrivals.next()
		if cfg.Duration > 0 && at >= cfg.Duration {
			break
		}
		if wait := time.Until(rec.start.Add(at)); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				unsent = remaining(cfg, i, at, arrivals)
				break schedule
			}
		}
		if ctx.Err() != nil {
			unsent = remaining(cfg, i, at, arrivals)
			break
		}
		switch cfg.Overflow {
		case OverflowDrop:
			select {
			case slots <- struct{}{}:
			default:
				now := time.Since(rec.start)
				rec.add(Sample{Index: i, Scheduled: at, Sent: now, Lag: now - at,
					Kind: stats.KindDropped, Err: errDropped})
				continue
			}
		default:
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				unsent = remaining(cfg, i, at, arrivals)
				break schedule
			}
		}
		wg.Go(func() {
			defer func() { <-slots }()
			if s := rec.send(ctx, fn, i, at, true); s.Lag > lateAfter {
				late.Add(1)
			}
		})
	}
	wg.Wait()
	run := rec.finish("open")
	run.Unsent = unsent
	run.Late = int(late.Load())
	return run, nil
}

// errDropped is the Err of a dropped sample.
var errDropped = errors.New("load: request dropped: in-flight cap reached")

// remaining counts the requests not sent from index i (due at at) on.
func remaining(cfg Open, i int, at time.Duration, a *arrivals) int {
	if cfg.Requests > 0 {
		return cfg.Requests - i
	}
	n := 0
	for ; at < cfg.Duration; at = a.next() {
		n++
	}
	return n
}
