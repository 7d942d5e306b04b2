package runner

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/benchserve/benchserve/internal/datasets"
	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/internal/traces"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// Trace is a timed replay (Load.Trace): a generator whose requests carry
// their send offsets (datasets.Request.Timed: the "mooncake" and "azure"
// generators, a trace file's timestamps × trace_scale), sent by the one
// open loop at those offsets (loadgen.Open.Offsets) and recorded like any
// load request. The trace is streamed: a request is built when its offset
// comes up and forgotten once sent, so a million-line trace never sits in
// memory (the records do, one per request, as for any run).
type Trace struct {
	// Generator yields the timed requests.
	Generator datasets.Generator
	// Output is how each request asks the server to reach its
	// output_length (ignore_eos, min_tokens).
	Output datasets.OutputControl
}

// IsTrace reports whether w's generator is streamed as load (RunLoad)
// instead of expanded into cases (ExpandGenerator leaves it): a timed
// trace ("mooncake", "azure"), sent at its times, or multi-turn
// "sessions", whose turns carry the server's earlier answers.
func IsTrace(w *workloads.Workload) bool {
	return w != nil && w.Generator != nil && (slices.Contains(traces.Formats, w.Generator.Name) || w.Generator.Name == datasets.SessionsName)
}

// traceOf builds w's trace generator, nil when w has none (IsTrace).
// Errors name the workload file and the parameter.
func traceOf(w *workloads.Workload) (*Trace, error) {
	if !IsTrace(w) {
		return nil, nil
	}
	spec := w.Generator
	g, err := datasets.New(datasets.Options{Name: spec.Name, Path: spec.Path, NumPrompts: spec.NumPrompts,
		Seed: spec.Seed, Params: spec.Params})
	if err != nil {
		return nil, fmt.Errorf("runner: %s: generator: %w", w.Path, err)
	}
	return &Trace{Generator: g, Output: datasets.OutputControl{IgnoreEOS: spec.IgnoreEOS, MinTokens: spec.MinTokens}}, nil
}

// scanner is a generator that can check its whole input before the run
// and count its requests (the trace generators: datasets' trace.Scan).
type scanner interface{ Scan() (int, error) }

// checkTrace reports a Load whose settings do not go with a trace.
func (l Load) checkTrace() error {
	var errs []error
	if l.Rate != 0 && !math.IsInf(l.Rate, 1) {
		errs = append(errs, errors.New("a trace sets its own arrival times: leave the request rate out"))
	}
	if l.Burstiness != 0 && l.Burstiness != 1 { // 1, Poisson, is the CLI's default
		errs = append(errs, errors.New("a trace sets its own arrival times: burstiness does not apply"))
	}
	if l.Sample {
		errs = append(errs, errors.New("a trace is replayed in its order: sampling does not apply"))
	}
	if l.Shard.Sharded() {
		errs = append(errs, errors.New("a trace replay is not sharded (each shard would replay the whole trace)"))
	}
	if l.Trace.Generator == nil {
		errs = append(errs, errors.New("a trace without a generator"))
	}
	return errors.Join(errs...)
}

// runTrace is RunLoad for l.Trace: the run's request count is the trace's
// (Scan, which also refuses a malformed line before anything is sent),
// capped by Requests; Duration ends the replay at that offset.
func (s *Session) runTrace(ctx context.Context, l Load) (*loadgen.Run, error) {
	if c, ok := l.Trace.Generator.(datasets.Conversations); ok {
		return s.runSessions(ctx, l, c)
	}
	if err := errors.Join(l.Check(), l.checkTrace()); err != nil {
		return nil, fmt.Errorf("runner: load: %w", err)
	}
	g := l.Trace.Generator
	n := l.Requests
	if sc, ok := g.(scanner); ok {
		total, err := sc.Scan()
		if err != nil {
			return nil, fmt.Errorf("runner: load: %w", err)
		}
		if n == 0 || total < n {
			n = total
		}
	}
	rep := newReplay(g.Requests())
	defer rep.stop()
	name := g.Spec().Name
	s.mu.Lock()
	s.noSideRequests = true
	s.loadTotal = n
	if s.payload.Workload.Generator == nil {
		spec := g.Spec()
		s.payload.Workload.Generator = &results.Generator{Name: spec.Name, Path: spec.Path, Seed: spec.Seed,
			NumPrompts: spec.NumPrompts, Params: spec.Params, IgnoreEOS: l.Trace.Output.IgnoreEOS,
			MinTokens: l.Trace.Output.MinTokens, TokenCounting: string(spec.Counting)}
	}
	if s.journal != nil && s.journalErr == nil {
		sc := traceSettings(l, n)
		sc.StartedAt = resultio.ISOTimestamp(time.Now())
		s.journalErr = s.journal.AppendLoad(sc, nil, n)
	}
	s.mu.Unlock()
	fn := func(ctx context.Context, i int) loadgen.Sample {
		r := rep.take(i)
		c := r.Case(i, l.Trace.Output, name)
		c.Requested = &results.Requested{InputTokens: r.InputTokens, OutputTokens: r.OutputTokens,
			Group: r.Group, PrefixTokens: r.PrefixTokens}
		return SampleOf(s.Execute(ctx, Job{Case: c}))
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
	run, err := loadgen.RunOpen(ctx, fn, loadgen.Open{Offsets: rep.next, Requests: n, Duration: l.Duration,
		MaxInFlight: l.MaxConcurrency})
	if err != nil {
		return nil, fmt.Errorf("runner: load: %w", err)
	}
	st := summary.Run(run, summary.Options{Goodput: l.Goodput})
	sc := scheduleOf(l, math.NaN(), n, run, st)
	sc.TargetRate, sc.Mode = nil, "trace" // the trace's times, not a rate
	s.mu.Lock()
	finishSchedule(sc, es, parent, s.payload.Results)
	s.payload.Schedule = sc
	s.version++
	s.mu.Unlock()
	if err := rep.failed(); err != nil {
		return run, fmt.Errorf("runner: load: trace replay stopped after %d requests: %w", len(run.Samples), err)
	}
	if err := parent.Err(); err != nil {
		return run, fmt.Errorf("runner: load run stopped after %d requests: %w", len(run.Samples), err)
	}
	return run, nil
}

// traceSettings is a trace replay's schedule block before anything is
// sent: an open loop with no target rate (the trace's times are the
// schedule; the payload's generator block names the trace and its scale).
func traceSettings(l Load, n int) *results.Schedule {
	sc := l.settings(math.NaN(), n)
	sc.TargetRate, sc.Mode = nil, "trace"
	return sc
}

// replay streams a timed generator for one run: next (loadgen.Offsets)
// pulls request i and keeps it until take(i) hands it to the request's
// sender, so only the requests between their offset and their send are
// held.
type replay struct {
	pull    func() (datasets.Request, error, bool)
	stop    func()
	mu      sync.Mutex
	pending map[int]datasets.Request
	i       int
	err     error
}

func newReplay(seq iter.Seq2[datasets.Request, error]) *replay {
	pull, stop := iter.Pull2(seq)
	return &replay{pull: pull, stop: stop, pending: map[int]datasets.Request{}}
}

// next is the run's loadgen.Offsets: request i's Arrival, false at the
// trace's end or its first error (failed).
func (p *replay) next() (time.Duration, bool) {
	r, err, ok := p.pull()
	p.mu.Lock()
	defer p.mu.Unlock()
	if !ok {
		return 0, false
	}
	if err == nil && !r.Timed {
		err = fmt.Errorf("request %s has no arrival time: not a trace", r.ID)
	}
	if err != nil {
		p.err = err
		return 0, false
	}
	p.pending[p.i] = r
	p.i++
	return r.Arrival, true
}

// take returns request i and forgets it.
func (p *replay) take(i int) datasets.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.pending[i]
	delete(p.pending, i)
	return r
}

func (p *replay) failed() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}
