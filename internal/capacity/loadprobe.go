package capacity

import (
	"context"
	"fmt"

	"github.com/benchserve/benchserve/internal/loadgen"
)

// ProbeOptions configure the runs of LoadProbe. The zero value works.
type ProbeOptions struct {
	// Burstiness, Seed, MaxInFlight and Overflow configure each rate
	// probe's open loop (loadgen.Open); probe i's schedule is seeded with
	// ProbeSeed(Seed, i).
	Burstiness  float64
	Seed        uint64
	MaxInFlight int
	Overflow    loadgen.Overflow
	// Shard, when set (Count > 1), runs only this shard's part of every
	// rate probe's schedule (see loadgen.Shard.Open): for a capacity search
	// spread over several machines, each running the same search. Its
	// statistics are then the shard's alone.
	Shard loadgen.Shard
}

// LoadProbe returns a ProbeFunc that runs fn (one request) for each
// probe, watched (Watch): a rate probe as an open loop (loadgen.RunOpen at
// spec.Load req/s, at most spec.Requests requests), a concurrency probe
// as a closed loop (loadgen.RunClosed with spec.Load streams, for
// spec.Requests requests or spec.Duration).
func LoadProbe(fn loadgen.Func, opts ProbeOptions) ProbeFunc {
	return func(ctx context.Context, spec ProbeSpec, obs Observer) (*loadgen.Run, error) {
		switch spec.By {
		case ByConcurrency:
			return loadgen.RunClosed(ctx, Watch(fn, obs), loadgen.Closed{Concurrency: int(spec.Load), Requests: spec.Requests, Duration: spec.Duration})
		case ByRate, "":
			cfg := loadgen.Open{Rate: spec.Load, Burstiness: opts.Burstiness, Seed: ProbeSeed(opts.Seed, spec.Index), Requests: spec.Requests,
				Duration: spec.Duration, MaxInFlight: opts.MaxInFlight, Overflow: opts.Overflow}
			if opts.Shard.Count > 1 {
				var err error
				if cfg, err = opts.Shard.Open(cfg); err != nil {
					return nil, err
				}
			}
			return loadgen.RunOpen(ctx, Watch(fn, obs), cfg)
		}
		return nil, fmt.Errorf("capacity: probe by %q: want %q or %q", spec.By, ByRate, ByConcurrency)
	}
}

// ProbeSeed is the arrival seed of probe index (0-based) of a search
// seeded with seed. Each probe draws its own schedule: with one seed for
// all, every probe would share the same early run of short (or long)
// gaps, and a probe of a few hundred arrivals is easily 10% above or
// below its rate, the same way at every load — a bias the bisection
// cannot average out.
func ProbeSeed(seed uint64, index int) uint64 {
	return seed + uint64(index)*0x9e3779b97f4a7c15
}
