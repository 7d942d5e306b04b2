package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// Load says how a workload's cases are sent as load instead of the
// reference's one-after-another run (vLLM bench serve's flags). The
// cases are the request mix: request i is case i mod n (cycled, the
// default) or a case drawn with Seed (Sample); every request is judged by
// its case's checks and recorded.
type Load struct {
	// Rate is the mean arrival rate in requests per second
	// (--request-rate); 0 or +Inf means no schedule: a closed loop of
	// MaxConcurrency streams, else of every request at once (at most
	// loadgen.DefaultMaxInFlight) for a count, else of one stream for a
	// duration.
	Rate float64
	// Burstiness is the gamma shape of the arrival gaps (--burstiness);
	// 0 or 1 means Poisson.
	Burstiness float64
	// Requests is how many requests to send (--num-prompts); 0 means as
	// many as Duration holds, and with neither, cases × repetitions.
	Requests int
	// Duration stops the schedule at that offset (--duration); 0: none.
	Duration time.Duration
	// MaxConcurrency caps requests in flight (--max-concurrency); a
	// request due beyond it waits and its lag shows it; 0 means the
	// default bound, loadgen.DefaultMaxInFlight.
	MaxConcurrency int
	// Seed fixes the arrival schedule and the sampling (--seed).
	Seed uint64
	// Sample draws each request's case at random (seeded) instead of
	// cycling through the cases in order.
	Sample bool
	// Goodput, when set, is the per-request SLO the schedule's goodput is
	// counted against (--goodput ttft:MS tpot:MS e2el:MS).
	Goodput *results.GoodputSLO
	// Wrap, when set, wraps the function that sends each request, to
	// watch the run as it happens (capacity.Watch: a capacity probe's
	// monitor, which ends ctx once it has seen enough).
	Wrap func(loadgen.Func) loadgen.Func
	// Shard, when set (Count > 1), sends only this shard's part of the
	// schedule (loadgen.Shard.Open: rate/N with a derived seed, its share of
	// the requests); the records carry the shard, and the shards'
	// payloads of one run (same run id) join with resultio.MergePayloads.
	Shard loadgen.Shard
	// StartAt, when set, is the wall-clock instant the schedule starts at
	// (--start-at): RunLoad waits for it before the first arrival, so
	// the shards of one run, started by their scheduler seconds apart,
	// send together. An instant already past starts at once, with a
	// warning (Config.Warn) saying how late; Check refuses one more than
	// MaxStartAtPast in the past or MaxStartAtAhead ahead. The schedule
	// block records it and how late the schedule really started.
	StartAt time.Time
	// Trace, when set, replays a timed generator at its requests' own
	// send offsets instead of the session's cases on a rate (see Trace;
	// Rate, Burstiness, Sample and Shard then do not apply).
	Trace *Trace
	// MaxErrorRate, when set, is the error rate (a fraction in [0, 1])
	// past which the run is stopped early (--max-error-rate): once the
	// exact binomial interval of the failed share of the requests
	// completed so far lies wholly above it (loadgen.ErrorRateOver, at
	// least loadgen.ErrorStopMin of them), the requests in flight are cut
	// (interrupted) and the rest left unsent; Schedule.StopReason says so
	// with the numbers. nil: no limit.
	MaxErrorRate *float64
	// ClientLimits, when set, replaces the limits past which the client
	// is judged unable to keep up (DefaultClientLimits); tests lower them
	// to drive the verdict without saturating the machine.
	ClientLimits *ClientLimits
}

// MaxStartAtPast and MaxStartAtAhead bound Load.StartAt: an instant an
// hour gone is a stale setting (an old BENCHSERVE_START_AT, a re-run
// job), not a shard that is a little late, and one more than a day
// ahead is a typo that would hang the run.
const (
	MaxStartAtPast  = time.Hour
	MaxStartAtAhead = 24 * time.Hour
)

// Check reports a Load that cannot run, before anything is sent.
func (l Load) Check() error {
	var errs []error
	if math.IsNaN(l.Rate) || l.Rate < 0 {
		errs = append(errs, fmt.Errorf("request rate %v: want a positive number of requests per second, or inf", l.Rate))
	}
	if math.IsNaN(l.Burstiness) || math.IsInf(l.Burstiness, 0) || l.Burstiness < 0 {
		errs = append(errs, fmt.Errorf("burstiness %v: want a positive gamma shape (1 = Poisson)", l.Burstiness))
	}
	if l.Requests < 0 {
		errs = append(errs, fmt.Errorf("num prompts %d: want at least 1", l.Requests))
	}
	if l.Duration < 0 {
		errs = append(errs, fmt.Errorf("duration %v: want a positive duration", l.Duration))
	}
	if l.MaxConcurrency < 0 {
		errs = append(errs, fmt.Errorf("max concurrency %d: want at least 1", l.MaxConcurrency))
	}
	if e := l.MaxErrorRate; e != nil && !(*e >= 0 && *e <= 1) {
		errs = append(errs, fmt.Errorf("max error rate %v: want a fraction in [0, 1]", *e))
	}
	if l.Shard.Count > 1 || l.Shard.Index != 0 {
		if err := l.Shard.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if !l.StartAt.IsZero() {
		switch until := time.Until(l.StartAt); {
		case until < -MaxStartAtPast:
			errs = append(errs, fmt.Errorf("start at %s: %v ago, more than %v: a stale time; give the shards a new one", l.StartAt.Format(time.RFC3339), -until.Round(time.Second), MaxStartAtPast))
		case until > MaxStartAtAhead:
			errs = append(errs, fmt.Errorf("start at %s: %v ahead, more than %v", l.StartAt.Format(time.RFC3339), until.Round(time.Second), MaxStartAtAhead))
		}
	}
	return errors.Join(errs...)
}

// count is the run's request count: Requests, else with no Duration the
// session's jobs (cases × repetitions); 0 when the duration bounds it.
func (l Load) count(jobs int) int {
	if l.Requests == 0 && l.Duration == 0 {
		return jobs
	}
	return l.Requests
}

// CheckSplit reports a sharded Load whose request count (Requests, else
// jobs, the cases × repetitions, when no Duration bounds the run) cannot
// be split over its shards: fewer requests than shards would leave a
// shard with nothing to send. nil for an unsharded Load.
func (l Load) CheckSplit(jobs int) error {
	if n := l.count(jobs); l.Shard.Sharded() && n > 0 && n < l.Shard.Count {
		return fmt.Errorf("shard %s: %d requests cannot be split %d ways (give at least %d requests, --num-prompts, or bound the run by --duration)", l.Shard, n, l.Shard.Count, l.Shard.Count)
	}
	return nil
}

// closedStreams is the number of streams of an unlimited-rate run (a
// closed loop) sending n requests (0: bounded by Duration):
// MaxConcurrency when set; else every request at once up to
// loadgen.DefaultMaxInFlight, and one stream when only the duration
// bounds the run (the reference's one request after another).
func (l Load) closedStreams(n int) int {
	switch {
	case l.MaxConcurrency > 0:
		return l.MaxConcurrency
	case n > 0:
		return min(n, loadgen.DefaultMaxInFlight)
	}
	return 1
}

// RunLoad sends the session's cases as load l (an open loop on a seeded
// schedule; loadgen.RunOpen) and records every request like Execute does, so
// the payload, its summary and SLOs cover the load run; Payload then
// carries the schedule block (target and achieved rate, lag, late,
// dropped). It returns the load run for its statistics. The cases and
// repetitions of Start define the mix; Include is not consulted.
func (s *Session) RunLoad(ctx context.Context, l Load) (*loadgen.Run, error) {
	if l.Trace == nil {
		l.Trace = s.trace // nil unless the workload's generator is a trace
	}
	if l.Trace != nil {
		return s.runTrace(ctx, l)
	}
	if err := l.Check(); err != nil {
		return nil, fmt.Errorf("runner: load: %w", err)
	}
	cases := UniqueCases(s.jobs)
	n := l.count(len(s.jobs))
	if err := l.CheckSplit(len(s.jobs)); err != nil {
		return nil, fmt.Errorf("runner: load: %w", err)
	}
	rate := l.Rate
	if rate == 0 {
		rate = math.Inf(1)
	}
	var (
		mu    sync.Mutex
		seen  = map[string]int{} // requests so far per case: the record's repetition
		rng   = loadgen.NewRand(l.Seed)
		picks []workloads.Case // sampled picks, by request index
	)
	shard := l.Shard
	pick := func(i int) Job {
		mu.Lock()
		defer mu.Unlock()
		g := i
		if shard.Sharded() {
			g = shard.Global(i) // the request's number in the whole run
		}
		var c workloads.Case
		if l.Sample {
			for len(picks) <= i {
				picks = append(picks, cases[rng.IntN(len(cases))])
			}
			c = picks[i]
		} else {
			c = cases[g%len(cases)]
		}
		rep := seen[c.ID]
		if shard.Sharded() && !l.Sample {
			rep = g / len(cases) // unique across the shards of one run
		}
		seen[c.ID]++
		return Job{Case: c, Rep: rep}
	}
	s.mu.Lock()
	s.noSideRequests = true
	s.loadTotal = n
	if shard.Sharded() {
		s.loadTotal = shard.Requests(n)
		s.shard = &shard.Index
	}
	if s.journal != nil && s.journalErr == nil {
		// The settings go to the journal before anything is sent, so a
		// killed run's records recover into a payload merge accepts.
		var idx *int
		if shard.Sharded() {
			i := shard.Index
			idx = &i
		}
		sc := l.settings(rate, n)
		sc.StartedAt = resultio.ISOTimestamp(time.Now()) // within microseconds of the schedule's start
		s.journalErr = s.journal.AppendLoad(sc, idx, shard.Requests(n))
	}
	s.mu.Unlock()
	fn := func(ctx context.Context, i int) loadgen.Sample {
		return SampleOf(s.Execute(ctx, pick(i)))
	}
	if l.Wrap != nil {
		fn = l.Wrap(fn)
	}
	if err := s.waitStart(ctx, l.StartAt); err != nil {
		return nil, err
	}
	parent := ctx
	ctx, fn, es, cancel := l.errorStop(ctx, fn)
	defer cancel()
	var run *loadgen.Run
	var err error
	if math.IsInf(rate, 1) {
		// An unlimited rate has no schedule: a closed loop of
		// MaxConcurrency streams (closedStreams), each sending its next
		// request when its last one ended, until the count or the
		// duration is reached.
		run, err = loadgen.RunClosed(ctx, fn, loadgen.Closed{Concurrency: l.closedStreams(shard.Requests(n)),
			Requests: shard.Requests(n), Duration: l.Duration})
	} else {
		cfg := loadgen.Open{Rate: rate, Burstiness: l.Burstiness, Seed: l.Seed, Requests: n, Duration: l.Duration,
			MaxInFlight: l.MaxConcurrency}
		if shard.Sharded() {
			if cfg, err = shard.Open(cfg); err != nil {
				return nil, fmt.Errorf("runner: load: %w", err)
			}
		}
		run, err = loadgen.RunOpen(ctx, fn, cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("runner: load: %w", err)
	}
	st := summary.Run(run, summary.Options{Goodput: l.Goodput})
	s.mu.Lock()
	sc := scheduleOf(l, rate, n, run, st)
	finishSchedule(sc, es, parent, s.payload.Results)
	s.payload.Schedule = sc
	s.version++
	s.mu.Unlock()
	if err := parent.Err(); err != nil {
		return run, fmt.Errorf("runner: load run stopped after %d requests: %w", len(run.Samples), err)
	}
	return run, nil
}

// settings is the schedule block of l at rate before anything is sent:
// the settings only (what a journal records and merge compares); n is
// the run's request count (0 for a duration).
func (l Load) settings(rate float64, n int) *results.Schedule {
	sc := &results.Schedule{
		Mode: "open", Burstiness: l.Burstiness, Seed: l.Seed, MaxConcurrency: l.MaxConcurrency,
		DurationS: l.Duration.Seconds(), RunRequests: l.Requests,
		InFlightCap: l.MaxConcurrency,
	}
	if sc.InFlightCap == 0 {
		sc.InFlightCap = loadgen.DefaultMaxInFlight
	}
	if sc.Burstiness == 0 {
		sc.Burstiness = 1 // Poisson
	}
	if !l.StartAt.IsZero() {
		sc.StartAt = l.StartAt.UTC().Format(time.RFC3339Nano)
	}
	if l.MaxErrorRate != nil {
		v := *l.MaxErrorRate
		sc.MaxErrorRate = &v
	}
	if math.IsInf(rate, 1) {
		sc.Mode, sc.InFlightCap = "closed", l.closedStreams(l.Shard.Requests(n))
	} else {
		r := rate
		if l.Shard.Sharded() {
			r = l.Shard.Rate(rate) // this shard's part of the run's rate
			sc.RunRate = &rate
		}
		sc.TargetRate = &r
	}
	if l.Shard.Sharded() {
		sc.Shard = l.Shard.String()
	}
	if l.Goodput != nil {
		sc.GoodputSLO = map[string]float64{}
		if l.Goodput.TTFTms > 0 {
			sc.GoodputSLO["ttft_ms"] = l.Goodput.TTFTms
		}
		if l.Goodput.TPOTms > 0 {
			sc.GoodputSLO["tpot_ms"] = l.Goodput.TPOTms
		}
		if l.Goodput.E2ELms > 0 {
			sc.GoodputSLO["e2el_ms"] = l.Goodput.E2ELms
		}
	}
	return sc
}

// scheduleOf builds the payload's schedule block.
func scheduleOf(l Load, rate float64, n int, run *loadgen.Run, st results.LoadStats) *results.Schedule {
	sc := l.settings(rate, n)
	sc.Mode, sc.Requests, sc.InFlightCap = run.Mode, len(run.Samples)+run.Unsent, run.InFlightCap
	sc.Sent, sc.SendingWindowS = run.Sent, (run.LastSent - run.FirstSent).Seconds()
	sc.Late, sc.Dropped, sc.Unsent, sc.UnsentEstimated = run.Late, st.Dropped, run.Unsent, run.UnsentEstimated
	sc.PeakInFlight = run.PeakInFlight
	for _, smp := range run.Samples {
		sc.ConnectionRetries += smp.ConnectionRetries
	}
	sc.StartedAt = resultio.ISOTimestamp(run.Started)
	if !l.StartAt.IsZero() {
		late := float64(run.Started.Sub(l.StartAt)) / float64(time.Millisecond)
		sc.StartLateMS = &late
	}
	if r, ok, reason := run.AchievedRate(); ok {
		sc.AchievedRate = &r
	} else {
		sc.AchievedRateReason = reason
	}
	if st.Lag.Count > 0 && run.Mode == "open" { // a closed loop has no schedule to lag behind
		sc.LagMS = &results.LagStats{P50: st.Lag.P50, P95: st.Lag.P95, P99: st.Lag.P99, Max: st.Lag.Max}
	}
	judgeClient(sc, run, l.clientLimits())
	sc.WallSpanS = run.WallSpan().Seconds()
	if r, ok, reason := run.Throughput(); ok {
		sc.RequestThroughput = &r
	} else {
		sc.RequestThroughputReason = reason
	}
	if l.Goodput != nil {
		if g, ok, reason := summary.RunGoodput(run, *l.Goodput); ok {
			sc.Goodput = &g
		} else {
			sc.GoodputReason = reason
		}
	}
	return sc
}

// waitStart waits until at (Load.StartAt; zero: no wait), or warns that
// it passed. It returns an error when ctx ends first.
func (s *Session) waitStart(ctx context.Context, at time.Time) error {
	if at.IsZero() {
		return nil
	}
	until := time.Until(at)
	if until <= 0 {
		s.r.warn(fmt.Sprintf("start at %s passed %v ago: the load starts now, late by that much against shards that waited for it", at.Format(time.RFC3339Nano), -until.Round(time.Millisecond)))
		return nil
	}
	t := time.NewTimer(until)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return fmt.Errorf("runner: load run stopped while waiting for its start at %s: %w", at.Format(time.RFC3339), ctx.Err())
	case <-t.C:
		return nil
	}
}

// UniqueCases returns the cases of jobs in first-seen order.
func UniqueCases(jobs []Job) []workloads.Case {
	var out []workloads.Case
	seen := map[string]bool{}
	for _, j := range jobs {
		if !seen[j.Case.ID] {
			seen[j.Case.ID] = true
			out = append(out, j.Case)
		}
	}
	return out
}

// stampLoad adds what a load run's record carries besides the reference's
// fields: when its stream ended and, on a schedule, how late it was sent
// (loadgen.Due), so merge and recover recompute the run-level figures
// from the records.
func stampLoad(ctx context.Context, out *Outcome) {
	res := out.Result
	if res == nil || res.StartedAt.IsZero() {
		return
	}
	if !math.IsNaN(res.E2ELms) && res.E2ELms >= 0 {
		out.Record.EndedAt = resultio.ISOTimestamp(res.StartedAt.Add(time.Duration(res.E2ELms * float64(time.Millisecond))))
	}
	if start, at, ok := loadgen.DueOffset(ctx); ok {
		rec := &out.Record
		sent := res.StartedAt.Sub(start)
		lag, due, sentMS := ms(sent-at), ms(at), ms(sent)
		rec.LagMS, rec.DueOffsetMS, rec.SentOffsetMS = &lag, &due, &sentMS
		if !math.IsNaN(res.E2ELms) && res.E2ELms >= 0 {
			e2el := res.E2ELms + lag
			rec.E2ELFromScheduleMS = &e2el
		}
		if !math.IsNaN(res.TTFTms) && res.TTFTms >= 0 && out.Err == nil {
			ttft := res.TTFTms + lag
			rec.TTFTFromScheduleMS = &ttft
		}
	}
}

// errorStop sets up l's error-rate stop (Load.MaxErrorRate): a context
// under ctx that the stop ends, fn counted by it, and the stop (nil
// without a limit) whose Reason the schedule records. cancel must be
// called when the run ends.
func (l Load) errorStop(ctx context.Context, fn loadgen.Func) (context.Context, loadgen.Func, *loadgen.ErrorStop, context.CancelFunc) {
	if l.MaxErrorRate == nil {
		return ctx, fn, nil, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	es := loadgen.NewErrorStop(*l.MaxErrorRate, cancel)
	return ctx, es.Wrap(fn), es, cancel
}

// finishSchedule completes sc after the run: why it stopped before its
// end (the error stop's reason, es, nil without a limit; else an
// interrupt, parent the run's own context ending: Ctrl-C, a signal, the
// caller's deadline) and the latencies from the schedule over records
// (results.Schedule.SummarizeFromSchedule). A run its --duration ended
// is not stopped: its unsent requests are its design.
func finishSchedule(sc *results.Schedule, es *loadgen.ErrorStop, parent context.Context, records []results.Record) {
	if why := es.Reason(); why != "" {
		sc.StopReason = "error rate: " + why
	} else if parent.Err() != nil {
		sc.StopReason = fmt.Sprintf("interrupted (%v) after %d of %d requests were sent", context.Cause(parent), sc.Sent, sc.Requests)
	}
	sc.SummarizeFromSchedule(records)
}
