package capacity

import (
	"context"
	"math"
	"slices"

	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/workloads"
)

// SessionProbe returns the ProbeFunc of a capacity search over w's cases
// on r, the search's strategy on top of the engine's session: each probe
// is one load run (runner.Session.RunLoad) of the cases selected by opts,
// at the probe's rate (an open loop with base's burstiness and
// concurrency cap, seeded ProbeSeed(base.Seed, spec.Index)) or
// concurrency (that many streams in a closed loop), for at most the
// probe's request count or duration, every request reported to the
// search's observer (Watch) so it can stop the probe early. Every request
// is judged by the engine's one verdict (results.Record.Outcome): a
// failed check counts in the probe's error rate, a capped answer as a
// success. each, when set, sees every probe's session (to keep or write
// the records; requests the search cut short are marked interrupted
// there).
func SessionProbe(r *runner.Runner, w *workloads.Workload, opts runner.RunOptions, base runner.Load, each func(spec ProbeSpec, s *runner.Session)) ProbeFunc {
	return func(ctx context.Context, spec ProbeSpec, obs Observer) (*loadgen.Run, error) {
		s, err := r.Start(ctx, w, opts)
		if err != nil {
			return nil, err
		}
		l := base
		l.Requests, l.Duration = spec.Requests, spec.Duration
		l.Wrap = func(fn loadgen.Func) loadgen.Func { return Watch(fn, obs) }
		l.Seed = ProbeSeed(base.Seed, spec.Index)
		switch spec.By {
		case ByConcurrency:
			l.Rate, l.MaxConcurrency = math.Inf(1), int(spec.Load)
		default:
			l.Rate = spec.Load
		}
		run, err := s.RunLoad(ctx, l)
		if each != nil {
			each(spec, s)
		}
		return run, err
	}
}

// WithWorkloadSLOs is cfg with w's defaults.slo before its own SLOs: a
// search over w's cases holds the thresholds a run of w is judged by, as
// both doors (the CLI's capacity, benchtest.SearchCapacity) search.
func WithWorkloadSLOs(cfg Config, w *workloads.Workload) Config {
	if w != nil && len(w.SLO) > 0 {
		cfg.SLOs = append(slices.Clone(w.SLO), cfg.SLOs...)
	}
	return cfg
}
