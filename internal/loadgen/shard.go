package loadgen

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Shard is one part of a run spread over several processes or machines:
// shard Index (0-based) of Count. The zero Shard (Count 0) and any shard
// of Count 1 mean an unsharded run, and leave everything unchanged.
//
// An open-loop schedule is split by rate: shard I of N runs its own
// arrival process at rate/N with a seed derived from (seed, I) (see
// Seed), so the shards' schedules are independent. The superposition of
// N independent Poisson processes of rate r/N is a Poisson process of
// rate r, so N Poisson shards together send exactly the load of one
// Poisson client at r. With burstiness ≠ 1 (gamma gaps) the sum is only
// an approximation: the merged arrivals keep the mean rate r, but their
// gaps are not gamma distributed any more, and as N grows they look more
// and more like Poisson (a superposition of many independent renewal
// processes tends to Poisson), so a sharded bursty run is less bursty
// than a single client at the same burstiness.
type Shard struct {
	// Index is this shard's 0-based number, in [0, Count).
	Index int
	// Count is the number of shards; 0 or 1 means unsharded.
	Count int
}

// Environment variables ShardFromEnv reads.
const (
	// EnvShard holds "I/N" (0-based I), as --shard does.
	EnvShard = "BENCHSERVE_SHARD"
	// EnvShards holds N, the shard count, for EnvJobIndex.
	EnvShards = "BENCHSERVE_SHARDS"
	// EnvJobIndex is the 0-based index Kubernetes gives each pod of an
	// Indexed Job (completionMode: Indexed).
	EnvJobIndex = "JOB_COMPLETION_INDEX"
)

// ParseShard parses "I/N": shard I (0-based) of N, 0 <= I < N. Spaces
// around the numbers are allowed; "" is the zero Shard. The error quotes
// the text and says what is wrong.
func ParseShard(text string) (Shard, error) {
	if strings.TrimSpace(text) == "" {
		return Shard{}, nil
	}
	i, n, ok := strings.Cut(text, "/")
	if !ok {
		return Shard{}, fmt.Errorf("load: shard %q: want I/N, e.g. 0/4 for the first of 4 shards", text)
	}
	idx, err1 := strconv.Atoi(strings.TrimSpace(i))
	cnt, err2 := strconv.Atoi(strings.TrimSpace(n))
	if err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("load: shard %q: I and N must be whole numbers (I/N, e.g. 0/4)", text)
	}
	s := Shard{Index: idx, Count: cnt}
	if cnt < 1 {
		return Shard{}, fmt.Errorf("load: shard %q: shard count %d: want >= 1", text, cnt)
	}
	if err := s.Validate(); err != nil {
		return Shard{}, fmt.Errorf("load: shard %q: %w", text, err)
	}
	return s, nil
}

// ShardFromEnv reads the shard from the environment through getenv
// (os.Getenv): EnvShard ("I/N") when set, else EnvJobIndex (Kubernetes
// Indexed Jobs) with the count from EnvShards. It returns the zero Shard
// when neither is set, and an error naming the variable when one does
// not parse or the job index has no count.
func ShardFromEnv(getenv func(string) string) (Shard, error) {
	if v := getenv(EnvShard); strings.TrimSpace(v) != "" {
		s, err := ParseShard(v)
		if err != nil {
			return Shard{}, fmt.Errorf("%s: %w", EnvShard, err)
		}
		return s, nil
	}
	idx := strings.TrimSpace(getenv(EnvJobIndex))
	if idx == "" {
		return Shard{}, nil
	}
	cnt := strings.TrimSpace(getenv(EnvShards))
	if cnt == "" {
		return Shard{}, fmt.Errorf("load: %s=%s is set but %s is not: set it to the Job's completions (the shard count)", EnvJobIndex, idx, EnvShards)
	}
	s, err := ParseShard(idx + "/" + cnt)
	if err != nil {
		return Shard{}, fmt.Errorf("%s/%s: %w", EnvJobIndex, EnvShards, err)
	}
	return s, nil
}

// Sharded reports whether s splits the run (Count > 1).
func (s Shard) Sharded() bool { return s.Count > 1 }

// Validate reports whether s is a valid shard: the zero Shard, or Count
// >= 1 and 0 <= Index < Count.
func (s Shard) Validate() error {
	switch {
	case s == Shard{}:
		return nil
	case s.Count < 1:
		return fmt.Errorf("shard count %d: want >= 1", s.Count)
	case s.Index < 0 || s.Index >= s.Count:
		return fmt.Errorf("shard index %d: want 0 <= I < %d (indexes are 0-based)", s.Index, s.Count)
	}
	return nil
}

// String is "I/N", "" for the zero Shard.
func (s Shard) String() string {
	if s == (Shard{}) {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Seed derives this shard's schedule seed from the run's seed: the seed
// itself when unsharded, else a SplitMix64 mix of seed and Index (a
// bijection of seed + (Index+1)·φ), so every shard of a run has its own
// arrival sequence, independent of the others', and the same (seed, I)
// always gives the same one.
func (s Shard) Seed(seed uint64) uint64 {
	if !s.Sharded() {
		return seed
	}
	z := seed + uint64(s.Index+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Rate is this shard's share of a request rate: rate/Count (+Inf stays
// +Inf).
func (s Shard) Rate(rate float64) float64 {
	if !s.Sharded() || math.IsInf(rate, 1) {
		return rate
	}
	return rate / float64(s.Count)
}

// Requests is this shard's share of n requests: n/Count, the first
// n mod Count shards one more, so the shares add up to n.
func (s Shard) Requests(n int) int {
	if !s.Sharded() {
		return n
	}
	share := n / s.Count
	if s.Index < n%s.Count {
		share++
	}
	return share
}

// Global maps this shard's request index i (what a Func receives) to the
// request's index in the whole run, i·Count + Index, so that picking the
// request by Global(i) (a workload's cases cycled over the run) gives
// every shard a distinct, interleaved part of the same mix, and (shard,
// i) names a request of the run once.
func (s Shard) Global(i int) int {
	if !s.Sharded() {
		return i
	}
	return i*s.Count + s.Index
}

// Open returns cfg cut to this shard's part of the schedule: Rate
// divided by Count, Requests split (Requests), Seed derived (Seed);
// Duration, Burstiness and the in-flight cap (per process) are kept; the
// first arrival comes after a gap (FirstGap), so the shards together are
// one arrival process from t = 0, not a burst of N requests at 0. An
// unsharded s returns cfg unchanged. It returns an error for an invalid
// shard, or for a request count smaller than the shard count (some
// shards would send nothing).
func (s Shard) Open(cfg Open) (Open, error) {
	if err := s.Validate(); err != nil {
		return cfg, fmt.Errorf("load: %w", err)
	}
	if !s.Sharded() {
		return cfg, nil
	}
	if cfg.Requests > 0 && cfg.Requests < s.Count {
		return cfg, fmt.Errorf("load: shard %s: %d requests cannot be split %d ways", s, cfg.Requests, s.Count)
	}
	cfg.Rate = s.Rate(cfg.Rate)
	cfg.Requests = s.Requests(cfg.Requests)
	cfg.Seed = s.Seed(cfg.Seed)
	cfg.FirstGap = true
	return cfg, nil
}
