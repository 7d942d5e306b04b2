package runner

import (
	"context"
	"math"

	"github.com/benchserve/benchserve/internal/capacity"
	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/workloads"
)

// CapacityProbe returns the capacity.ProbeFunc of a capacity search over
// w's cases on r: each probe is one load run (Session.RunLoad) of the
// cases selected by opts, at the probe's rate (an open loop with base's
// burstiness and concurrency cap, seeded capacity.ProbeSeed(base.Seed,
// spec.Index)) or concurrency (that many streams
// in a closed loop), for at most the probe's request count or duration,
// every request reported to the search's observer (capacity.Watch) so it
// can stop the probe early. Every request is judged by its case's checks,
// so a failed check counts in the probe's error rate. each, when set,
// sees every probe's session (to keep or write the records; requests the
// search cut short are marked interrupted there).
func (r *Runner) CapacityProbe(w *workloads.Workload, opts RunOptions, base Load, each func(spec capacity.ProbeSpec, s *Session)) capacity.ProbeFunc {
	return func(ctx context.Context, spec capacity.ProbeSpec, obs capacity.Observer) (*loadgen.Run, error) {
		s, err := r.Start(ctx, w, opts)
		if err != nil {
			return nil, err
		}
		l := base
		l.Requests, l.Duration = spec.Requests, spec.Duration
		l.Wrap = func(fn loadgen.Func) loadgen.Func { return capacity.Watch(fn, obs) }
		l.Seed = capacity.ProbeSeed(base.Seed, spec.Index)
		switch spec.By {
		case capacity.ByConcurrency:
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
