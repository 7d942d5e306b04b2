package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/benchserve/benchserve/loadgen"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/stats"
	"github.com/benchserve/benchserve/workload"
)

// Load says how a workload's cases are sent as load instead of the
// reference's one-after-another run (vLLM bench serve's flags). The
// cases are the request mix: request i is case i mod n (cycled, the
// default) or a case drawn with Seed (Sample); every request is judged by
// its case's checks and recorded.
type Load struct {
	// Rate is the mean arrival rate in requests per second
	// (--request-rate); 0 or +Inf sends every request at once, capped by
	// MaxConcurrency.
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
	// request due beyond it waits and its lag shows it; 0 means no cap
	// (1024 in flight at most).
	MaxConcurrency int
	// Seed fixes the arrival schedule and the sampling (--seed).
	Seed uint64
	// Sample draws each request's case at random (seeded) instead of
	// cycling through the cases in order.
	Sample bool
	// Goodput, when set, is the per-request SLO the schedule's goodput is
	// counted against (--goodput ttft:MS tpot:MS e2el:MS).
	Goodput *stats.RequestSLO
	// Wrap, when set, wraps the function that sends each request, to
	// watch the run as it happens (capacity.Watch: a capacity probe's
	// monitor, which ends ctx once it has seen enough).
	Wrap func(loadgen.Func) loadgen.Func
	// Shard, when set (Count > 1), sends only this shard's part of the
	// schedule (loadgen.Shard.Open: rate/N with a derived seed, its share of
	// the requests); the records carry the shard, and the shards'
	// payloads of one run (same run id) join with results.MergePayloads.
	Shard loadgen.Shard
}

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
	if l.Shard.Count > 1 || l.Shard.Index != 0 {
		if err := l.Shard.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// RunLoad sends the session's cases as load l (an open loop on a seeded
// schedule; loadgen.RunOpen) and records every request like Execute does, so
// the payload, its summary and SLOs cover the load run; Payload then
// carries the schedule block (target and achieved rate, lag, late,
// dropped). It returns the load run for its statistics. The cases and
// repetitions of Start define the mix; Include is not consulted.
func (s *Session) RunLoad(ctx context.Context, l Load) (*loadgen.Run, error) {
	if err := l.Check(); err != nil {
		return nil, fmt.Errorf("runner: load: %w", err)
	}
	cases := UniqueCases(s.jobs)
	n := l.Requests
	if n == 0 && l.Duration == 0 {
		n = len(s.jobs)
	}
	rate := l.Rate
	if rate == 0 {
		rate = math.Inf(1)
	}
	var (
		mu    sync.Mutex
		seen  = map[string]int{} // requests so far per case: the record's repetition
		rng   = loadgen.NewRand(l.Seed)
		picks []workload.Case // sampled picks, by request index
	)
	shard := l.Shard
	pick := func(i int) Job {
		mu.Lock()
		defer mu.Unlock()
		g := i
		if shard.Sharded() {
			g = shard.Global(i) // the request's number in the whole run
		}
		var c workload.Case
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
	s.mu.Unlock()
	fn := func(ctx context.Context, i int) loadgen.Sample {
		out := s.Execute(ctx, pick(i))
		smp := loadgen.SampleOf(out.Result, out.Err)
		if out.Err == nil && !out.Record.OK {
			smp.Kind, smp.Err = stats.KindQuality, errors.New("quality check failed")
		}
		return smp
	}
	if l.Wrap != nil {
		fn = l.Wrap(fn)
	}
	var run *loadgen.Run
	var err error
	if math.IsInf(rate, 1) && !shard.Sharded() {
		// Every request due at once, capped by MaxConcurrency: a closed
		// loop of that many streams (which also honours Duration).
		conc := l.MaxConcurrency
		if conc == 0 {
			conc = max(n, 1)
		}
		run, err = loadgen.RunClosed(ctx, fn, loadgen.Closed{Concurrency: conc, Requests: n, Duration: l.Duration})
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
	st := run.Stats(loadgen.StatsOptions{Goodput: l.Goodput})
	s.mu.Lock()
	s.payload.Schedule = scheduleOf(l, rate, run, st)
	s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return run, fmt.Errorf("runner: load run stopped after %d requests: %w", len(run.Samples), err)
	}
	return run, nil
}

// scheduleOf builds the payload's schedule block.
func scheduleOf(l Load, rate float64, run *loadgen.Run, st stats.Stats) *results.Schedule {
	sc := &results.Schedule{
		Mode: run.Mode, Burstiness: l.Burstiness, Seed: l.Seed, MaxConcurrency: l.MaxConcurrency,
		Requests: len(run.Samples) + run.Unsent, DurationS: l.Duration.Seconds(),
		Late: run.Late, Dropped: st.Dropped, Unsent: run.Unsent, PeakInFlight: run.PeakInFlight,
	}
	if sc.Burstiness == 0 {
		sc.Burstiness = 1 // Poisson
	}
	if !math.IsInf(rate, 1) {
		r := rate
		if l.Shard.Sharded() {
			r = l.Shard.Rate(rate) // this shard's part of the run's rate
			sc.Shard, sc.RunRate = l.Shard.String(), &rate
		}
		sc.TargetRate = &r
	}
	if secs := run.Duration.Seconds(); secs > 0 {
		sc.AchievedRate = float64(st.Requests) / secs
	}
	if st.Lag.Count > 0 {
		sc.LagMS = &results.LagStats{P50: st.Lag.P50, P95: st.Lag.P95, P99: st.Lag.P99, Max: st.Lag.Max}
	}
	if l.Goodput != nil {
		g := st.Goodput
		sc.Goodput = &g
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

// UniqueCases returns the cases of jobs in first-seen order.
func UniqueCases(jobs []Job) []workload.Case {
	var out []workload.Case
	seen := map[string]bool{}
	for _, j := range jobs {
		if !seen[j.Case.ID] {
			seen[j.Case.ID] = true
			out = append(out, j.Case)
		}
	}
	return out
}
