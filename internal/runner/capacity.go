package runner

import (
	"context"
	"math"

	"github.com/benchserve/benchserve/internal/capacity"
	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/stats"
	"github.com/benchserve/benchserve/workloads"
)

// CapacityProbe returns the capacity.ProbeFunc of a capacity search over
// w's cases on r: each probe is one load run (Session.RunLoad) of the
// cases selected by opts, at the probe's rate (an open loop with base's
// burstiness, seed and concurrency cap) or concurrency (that many streams
// in a closed loop), for the probe's request count or duration. Every
// request is judged by its case's checks, so a failed check counts in the
// probe's error rate; the probe's statistics are the same stats.Stats the
// summary and SLOs use. each, when set, sees every probe's payload (to
// keep or write the records).
func (r *Runner) CapacityProbe(w *workloads.Workload, opts RunOptions, base Load, each func(spec capacity.ProbeSpec, s *Session)) capacity.ProbeFunc {
	return func(ctx context.Context, spec capacity.ProbeSpec) (stats.Stats, error) {
		s, err := r.Start(ctx, w, opts)
		if err != nil {
			return stats.Stats{}, err
		}
		l := base
		l.Requests, l.Duration = spec.Requests, spec.Duration
		switch spec.By {
		case capacity.ByConcurrency:
			l.Rate, l.MaxConcurrency = math.Inf(1), int(spec.Load)
		default:
			l.Rate = spec.Load
		}
		run, err := s.RunLoad(ctx, l)
		if err != nil {
			return stats.Stats{}, err
		}
		if each != nil {
			each(spec, s)
		}
		return run.Stats(loadgen.StatsOptions{Goodput: l.Goodput}), nil
	}
}
