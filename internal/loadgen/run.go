package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benchserve/benchserve/internal/stats"
	"github.com/benchserve/benchserve/results"
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
	// since the start (requests in flight finish; those of Requests not
	// sent are counted in Run.Unsent); 0 means no limit (Requests must
	// then be set).
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
	// sends everything at once, and needs Requests).
	Rate float64
	// Burstiness is the gamma shape of the gaps; 0 or 1 means Poisson.
	Burstiness float64
	// Seed fixes the schedule (see NewRand).
	Seed uint64
	// Requests is how many requests the schedule holds; 0 means as many as
	// fit in Duration (Duration must then be set).
	Requests int
	// Duration stops the schedule at that offset, and the sending on the
	// wall clock DurationGrace after it; 0 means no limit (Requests must
	// then be set).
	Duration time.Duration
	// FirstGap draws the first arrival after a gap like every other one
	// instead of sending it at 0 (the reference's first request): what a
	// shard of a run does (Shard.Open sets it), so that N shards started
	// together do not open with a burst of N requests and add up to one
	// arrival process from the start.
	FirstGap bool
	// MaxInFlight caps requests in flight; 0 means DefaultMaxInFlight.
	// What happens to a request due beyond it is Overflow's choice.
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
	// Offsets, when set, is the schedule in place of the seeded arrivals
	// (a trace's timestamps; see Offsets).
	Offsets Offsets
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
	// FirstSent and LastSent are the offsets from Started of the first
	// and the last request sent (dropped ones are not sent); Sent counts
	// the requests sent. The achieved rate is measured over that window
	// (AchievedRate).
	FirstSent, LastSent time.Duration
	Sent                int
	// LastEnded is the offset from Started at which the last request
	// sent ended: the completed-request throughput is measured from
	// FirstSent to it (Throughput).
	LastEnded time.Duration
	// PeakInFlight is the largest number of requests in flight at once.
	PeakInFlight int
	// Unsent counts the requests of the run's count (or schedule) never
	// sent because its context or duration ended first, in either loop;
	// UnsentEstimated says
	// it is the expected number of arrivals left in the duration, not a
	// count (a duration-bound schedule is not drawn past its end).
	Unsent          int
	UnsentEstimated bool
	// InFlightCap is the bound on requests in flight the run applied
	// (Open.MaxInFlight or DefaultMaxInFlight; Closed.Concurrency).
	InFlightCap int
	// Late counts sent requests whose lag exceeded LateAfter (open loop).
	Late int
	// burst says every request was due at once (an open loop at an
	// unlimited rate): the sends are as fast as the client goes, no
	// arrival rate (AchievedRate is null).
	burst bool
	// client is what the client process itself spent over the run (CPU,
	// GC pauses; ClientUtil), to tell a client that set the pace from a
	// server that did.
	client clientCost
}

// ClientUtil is the client process's CPU use over the run as a share of
// what it could have used: (user + system CPU) / (wall time ×
// GOMAXPROCS), 0 to 1. ok is false off unix, where it is not measured.
// It counts the whole process, so a server in the same process (a test's
// httptest server) counts too.
func (r *Run) ClientUtil() (util float64, ok bool) {
	c := r.client
	if !c.CPUOK || c.Wall <= 0 || c.Procs <= 0 {
		return 0, false
	}
	return float64(c.CPU) / (float64(c.Wall) * float64(c.Procs)), true
}

// ClientGC is the garbage collector's pauses over the run: their total and
// the longest (among the last 256 collections), and how many there were.
func (r *Run) ClientGC() (total, longest time.Duration, collections int) {
	return r.client.GCPause, r.client.GCMax, r.client.GCs
}

// AchievedRate is the rate the run sent its requests at, over its sending
// window (FirstSent to LastSent): stats.SendRate, so the time the last
// request took is not part of it. It is the check of an open loop's
// schedule (did the client keep the target rate?), so ok is false, with
// the reason, for a closed loop or an open one at an unlimited rate
// (every request due at once: the span of the sends is how fast the
// client went, not a rate the server served; Throughput is that), and
// when the window holds too few requests to measure a rate.
func (r *Run) AchievedRate() (rate float64, ok bool, reason string) {
	switch {
	case r.Mode == "closed":
		return 0, false, "a closed loop has no arrival rate: each stream sent its next request when its last one ended (request_throughput is the rate the server served)"
	case r.burst:
		return 0, false, "every request was due at once (an unlimited rate): the sending window measures the client, not a rate (request_throughput is the rate the server served)"
	}
	return stats.SendRate(r.Sent, r.LastSent-r.FirstSent)
}

// Throughput is the run's completed-request throughput: the requests
// that succeeded (Sample.OK) per second of the run's wall span, from the
// first send to the end of the last request (stats.Throughput; vLLM's
// request_throughput). It is what a run of any loop served; ok is false,
// with the reason, for fewer than 2 requests sent or a span too short to
// time.
func (r *Run) Throughput() (rate float64, ok bool, reason string) {
	return stats.Throughput(r.Completed(), r.Sent, r.WallSpan())
}

// WallSpan is the run's wall span: from its first send to the end of its
// last request (0 when nothing was sent).
func (r *Run) WallSpan() time.Duration {
	if r.Sent == 0 {
		return 0
	}
	return r.LastEnded - r.FirstSent
}

// Completed counts the requests that succeeded (Sample.OK).
func (r *Run) Completed() int {
	n := 0
	for _, s := range r.Samples {
		if s.OK() {
			n++
		}
	}
	return n
}

// recorder collects samples and tracks requests in flight.
type recorder struct {
	start    time.Time
	use      clientUse // the client's costs at the start
	mu       sync.Mutex
	samples  []Sample
	inFlight atomic.Int64
	peak     atomic.Int64
	// first and last send offsets, and the sends (under mu).
	first, last time.Duration
	sent        int
	// ended is the latest offset at which a sent request ended (under mu).
	ended time.Duration
}

func (rec *recorder) send(ctx context.Context, fn Func, i int, scheduled time.Duration, scheduledSet bool) Sample {
	n := rec.inFlight.Add(1)
	for p := rec.peak.Load(); n > p && !rec.peak.CompareAndSwap(p, n); p = rec.peak.Load() {
	}
	sent := time.Since(rec.start)
	rec.mu.Lock()
	if rec.sent == 0 || sent < rec.first {
		rec.first = sent
	}
	rec.last = max(rec.last, sent)
	rec.sent++
	rec.mu.Unlock()
	s := fn(ctx, i)
	ended := time.Since(rec.start)
	rec.inFlight.Add(-1)
	rec.mu.Lock()
	rec.ended = max(rec.ended, ended)
	rec.mu.Unlock()
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
		FirstSent:    rec.first,
		LastSent:     rec.last,
		Sent:         rec.sent,
		LastEnded:    rec.ended,
		client:       costSince(rec.use, useNow()),
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
	rec := &recorder{start: time.Now(), use: useNow()}
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
	run := rec.finish("closed")
	run.InFlightCap = conc
	if cfg.Requests > 0 {
		// Stopped by its duration, its cap or ctx before the count: the
		// rest were never sent.
		run.Unsent = cfg.Requests - run.Sent
	}
	return run, nil
}

// RunOpen runs fn in an open loop: request i is due at its offset in
// cfg.Schedule (or the i-th of cfg.Offsets, a schedule the caller gives,
// such as a trace's timestamps; its end then bounds the run) and is sent then, whatever happened to earlier requests,
// unless MaxInFlight requests are in flight (see Overflow). Each sample
// records its lag (actual send − scheduled), so a client that cannot keep
// up shows in results.LoadStats.Lag and Run.Late instead of silently lowering
// the rate; fn finds the instant its request was due with Due(ctx).
//
// Duration ends the schedule at that offset, and the sending on the wall
// clock DurationGrace later, so a client held back by its cap or behind
// schedule stops on time too; the arrivals left are counted in
// Run.Unsent without being drawn (exactly for a count, as an expected
// value for a duration: Run.UnsentEstimated).
// When ctx ends, sending stops at once, whatever the rate.
//
// It returns an error, before sending anything, for invalid arrival
// parameters, an unbounded run, or an unlimited rate bounded only by a
// duration (every arrival would be due at once, forever: that is a closed
// loop, RunClosed).
func RunOpen(ctx context.Context, fn Func, cfg Open) (*Run, error) {
	if cfg.Offsets != nil {
		return runOffsets(ctx, fn, cfg)
	}
	if err := CheckArrivals(cfg.Rate, cfg.Burstiness); err != nil {
		return nil, err
	}
	if cfg.Requests < 0 || cfg.Duration < 0 || cfg.MaxInFlight < 0 || cfg.MaxDuration < 0 || cfg.LateAfter < 0 {
		return nil, fmt.Errorf("load: open loop: negative setting in %+v", cfg)
	}
	if cfg.Requests == 0 && cfg.Duration == 0 {
		return nil, errors.New("load: open loop: unbounded: set Requests or Duration")
	}
	inf := math.IsInf(cfg.Rate, 1) || cfg.Rate == math.MaxFloat64
	if inf && cfg.Requests == 0 {
		return nil, errors.New("load: open loop: an unlimited rate bounded only by a duration has no schedule (every request due at once, without end): run a closed loop (RunClosed) or set Requests")
	}
	arrivals := newArrivals(cfg.Rate, cfg.Burstiness, cfg.Seed, cfg.FirstGap)
	return sendOpen(ctx, fn, cfg, func() (time.Duration, bool) { return arrivals.next(), true })
}

// sendOpen sends fn on the schedule next yields (false: its end) under
// cfg's bounds; RunOpen has checked cfg.
func sendOpen(ctx context.Context, fn Func, cfg Open, next func() (time.Duration, bool)) (*Run, error) {
	maxIn := cfg.MaxInFlight
	if maxIn == 0 {
		maxIn = DefaultMaxInFlight
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
	rec := &recorder{start: time.Now(), use: useNow()}
	// sending ends with ctx or, with a duration, soon after its offset on
	// the wall clock (DurationGrace), so that a client held back by its
	// cap or too slow for the rate stops too, while one a few
	// milliseconds behind still sends the schedule's last arrivals (late);
	// requests in flight keep ctx.
	sending := ctx
	if cfg.Duration > 0 {
		var cancel context.CancelFunc
		sending, cancel = context.WithDeadline(ctx, rec.start.Add(cfg.Duration+DurationGrace(cfg.Duration)))
		defer cancel()
	}
	slots := make(chan struct{}, maxIn)
	var wg sync.WaitGroup
	var late atomic.Int64
	unsent, estimated := 0, false
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
schedule:
	for i := 0; cfg.Requests == 0 || i < cfg.Requests; i++ {
		at, ok := next()
		if !ok {
			break
		}
		if cfg.Duration > 0 && at >= cfg.Duration {
			// The duration ended the schedule: the requests of a
			// count it had left are unsent (none for a duration alone).
			unsent, estimated = remaining(cfg, i, at)
			break
		}
		if !waitUntil(sending, timer, rec.start.Add(at)) {
			unsent, estimated = remaining(cfg, i, at)
			break schedule
		}
		if sending.Err() != nil {
			unsent, estimated = remaining(cfg, i, at)
			break
		}
		switch cfg.Overflow {
		case OverflowDrop:
			select {
			case slots <- struct{}{}:
			default:
				now := time.Since(rec.start)
				rec.add(Sample{Index: i, Scheduled: at, Sent: now, Lag: now - at,
					Kind: results.KindDropped, Err: errDropped})
				continue
			}
		default:
			select {
			case slots <- struct{}{}:
			case <-sending.Done():
				unsent, estimated = remaining(cfg, i, at)
				break schedule
			}
		}
		due := dueAt{start: rec.start, at: at}
		wg.Go(func() {
			defer func() { <-slots }()
			if s := rec.send(context.WithValue(ctx, dueKey{}, due), fn, i, at, true); s.Lag > lateAfter {
				late.Add(1)
			}
		})
	}
	wg.Wait()
	run := rec.finish("open")
	run.burst = cfg.Offsets == nil && (math.IsInf(cfg.Rate, 1) || cfg.Rate == math.MaxFloat64)
	run.Unsent, run.UnsentEstimated = unsent, estimated
	run.Late = int(late.Load())
	run.InFlightCap = maxIn
	return run, nil
}

// DurationGrace is how long after an open loop's Duration, on the wall
// clock, it still sends arrivals the schedule had due before the
// Duration: a tenth of it, at most a second. Past it, the arrivals left
// are unsent.
func DurationGrace(d time.Duration) time.Duration { return min(d/10, time.Second) }

// DefaultMaxInFlight bounds the requests an open loop keeps in flight
// when Open.MaxInFlight is 0: enough for any rate a single client
// process can sustain against one server, few enough that a server which
// stops answering is not buried under thousands of open streams (later
// arrivals wait, and their lag shows it).
const DefaultMaxInFlight = 256

// dueKey keys when a request was due in its context (a dueAt).
type dueKey struct{}

// dueAt is a request's place on the schedule: the run's start and the
// offset from it the request was due at.
type dueAt struct {
	start time.Time
	at    time.Duration
}

// Due returns the wall-clock instant the open-loop schedule had the
// request of ctx due (what a Func called by RunOpen receives), and false
// for a closed loop's request, which is due when it is sent.
func Due(ctx context.Context) (time.Time, bool) {
	d, ok := ctx.Value(dueKey{}).(dueAt)
	if !ok {
		return time.Time{}, false
	}
	return d.start.Add(d.at), true
}

// DueOffset is the request of ctx's place on an open-loop schedule: the
// run's start (Run.Started) and the offset from it the request was due
// at; ok is false for a closed loop's request.
func DueOffset(ctx context.Context) (start time.Time, at time.Duration, ok bool) {
	d, ok := ctx.Value(dueKey{}).(dueAt)
	return d.start, d.at, ok
}

// errDropped is the Err of a dropped sample.
var errDropped = errors.New("load: request dropped: in-flight cap reached")

// remaining counts the requests not sent from index i (due at at) on,
// without drawing them: exactly for a count, else the expected number of
// arrivals in [at, Duration) (1 + rate·(Duration − at)), estimated true.
func remaining(cfg Open, i int, at time.Duration) (n int, estimated bool) {
	if cfg.Offsets != nil {
		return remainingOffsets(cfg, i, at), false
	}
	if cfg.Requests > 0 {
		return cfg.Requests - i, false
	}
	if at >= cfg.Duration {
		return 0, false
	}
	left := math.Round(cfg.Rate * (cfg.Duration - at).Seconds())
	if left >= math.MaxInt32*float64(math.MaxInt32) { // past any count a run could mean; int conversion would overflow
		left = math.MaxInt32 * float64(math.MaxInt32)
	}
	return 1 + int(left), true
}
