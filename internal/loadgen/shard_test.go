package loadgen_test

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/loadgen"
)

func TestParseShard(t *testing.T) {
	s, err := loadgen.ParseShard("2/4")
	require.NoError(t, err, "valid")
	assert.Equal(t, loadgen.Shard{Index: 2, Count: 4}, s, "parsed")
	assert.Equal(t, "2/4", s.String(), "round trip")
	s, err = loadgen.ParseShard(" 0 / 1 ")
	require.NoError(t, err, "spaces allowed")
	assert.Equal(t, loadgen.Shard{Index: 0, Count: 1}, s, "parsed with spaces")
	s, err = loadgen.ParseShard("")
	require.NoError(t, err, "empty is unsharded")
	assert.Equal(t, loadgen.Shard{}, s, "zero shard")

	for text, want := range map[string]string{
		"3":    `shard "3": want I/N`,
		"a/4":  `shard "a/4": I and N must be whole numbers`,
		"4/4":  `shard "4/4": shard index 4: want 0 <= I < 4 (indexes are 0-based)`,
		"-1/4": `shard "-1/4": shard index -1`,
		"0/0":  `shard "0/0": shard count 0: want >= 1`,
	} {
		_, err := loadgen.ParseShard(text)
		require.Error(t, err, text)
		assert.Contains(t, err.Error(), want, text)
	}
}

func TestShardFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	s, err := loadgen.ShardFromEnv(env(nil))
	require.NoError(t, err, "nothing set")
	assert.False(t, s.Sharded(), "unsharded")

	s, err = loadgen.ShardFromEnv(env(map[string]string{"BENCHSERVE_SHARD": "1/3", "JOB_COMPLETION_INDEX": "2", "BENCHSERVE_SHARDS": "5"}))
	require.NoError(t, err, "BENCHSERVE_SHARD")
	assert.Equal(t, loadgen.Shard{Index: 1, Count: 3}, s, "BENCHSERVE_SHARD wins over the job index")

	s, err = loadgen.ShardFromEnv(env(map[string]string{"JOB_COMPLETION_INDEX": "2", "BENCHSERVE_SHARDS": "5"}))
	require.NoError(t, err, "Indexed Job")
	assert.Equal(t, loadgen.Shard{Index: 2, Count: 5}, s, "job index with count")

	_, err = loadgen.ShardFromEnv(env(map[string]string{"JOB_COMPLETION_INDEX": "2"}))
	require.Error(t, err, "no count")
	assert.Contains(t, err.Error(), "JOB_COMPLETION_INDEX=2 is set but BENCHSERVE_SHARDS is not", "names both variables")

	_, err = loadgen.ShardFromEnv(env(map[string]string{"BENCHSERVE_SHARD": "7/3"}))
	require.Error(t, err, "bad value")
	assert.Contains(t, err.Error(), `BENCHSERVE_SHARD: load: shard "7/3"`, "names the variable and the value")
}

func TestShardSplitsCountsAndIndexes(t *testing.T) {
	for _, n := range []int{7, 8, 100} {
		total := 0
		seen := map[int]bool{}
		for i := range 3 {
			sh := loadgen.Shard{Index: i, Count: 3}
			share := sh.Requests(n)
			total += share
			for j := range share {
				g := sh.Global(j)
				assert.False(t, seen[g], "global index %d given once", g)
				seen[g] = true
			}
		}
		assert.Equal(t, n, total, "the shares of %d add up", n)
		for g := range n {
			assert.True(t, seen[g], "global index %d of %d covered", g, n)
		}
	}
	un := loadgen.Shard{}
	assert.Equal(t, 5, un.Requests(5), "unsharded keeps the count")
	assert.Equal(t, 5, un.Global(5), "unsharded keeps the index")
	assert.Equal(t, uint64(42), un.Seed(42), "unsharded keeps the seed")
	assert.Equal(t, uint64(42), loadgen.Shard{Index: 0, Count: 1}.Seed(42), "one shard keeps the seed")
}

func TestShardOpen(t *testing.T) {
	cfg := loadgen.Open{Rate: 100, Burstiness: 1, Seed: 7, Requests: 10, Duration: time.Minute, MaxInFlight: 64}
	got, err := loadgen.Shard{Index: 1, Count: 4}.Open(cfg)
	require.NoError(t, err, "split")
	assert.Equal(t, 25.0, got.Rate, "rate / N")
	assert.Equal(t, 3, got.Requests, "10 split 4 ways: 3, 3, 2, 2")
	assert.Equal(t, time.Minute, got.Duration, "duration kept")
	assert.Equal(t, 64, got.MaxInFlight, "per-process cap kept")
	assert.NotEqual(t, cfg.Seed, got.Seed, "own seed")
	same, err := loadgen.Shard{}.Open(cfg)
	require.NoError(t, err, "unsharded")
	assert.Equal(t, cfg, same, "unsharded leaves the config alone")
	_, err = loadgen.Shard{Index: 0, Count: 4}.Open(loadgen.Open{Rate: 1, Requests: 3})
	require.Error(t, err, "3 requests over 4 shards")
	assert.Contains(t, err.Error(), "3 requests cannot be split 4 ways", "says why")
	inf, err := loadgen.Shard{Index: 0, Count: 4}.Open(loadgen.Open{Rate: math.Inf(1), Requests: 8})
	require.NoError(t, err, "inf rate")
	assert.True(t, math.IsInf(inf.Rate, 1), "+Inf rate stays +Inf")
}

// The seeds of a run's shards all differ (and differ from the run's), and
// the same (seed, shard) always gives the same one.
func TestShardSeedsDiffer(t *testing.T) {
	for _, seed := range []uint64{0, 7, math.MaxUint64} {
		seen := map[uint64]int{seed: -1}
		for i := range 64 {
			sd := loadgen.Shard{Index: i, Count: 64}.Seed(seed)
			prev, dup := seen[sd]
			require.False(t, dup, "seed %d: shard %d has the seed of shard %d (-1: the run's)", seed, i, prev)
			seen[sd] = i
			assert.Equal(t, sd, loadgen.Shard{Index: i, Count: 64}.Seed(seed), "deterministic")
		}
	}
	a := loadgen.Schedule(10, 1, 20, loadgen.Shard{Index: 0, Count: 2}.Seed(7))
	b := loadgen.Schedule(10, 1, 20, loadgen.Shard{Index: 1, Count: 2}.Seed(7))
	assert.NotEqual(t, a, b, "the shards' schedules differ")
}

// shardArrivals merges the arrivals before horizon of n shards of a
// Poisson (or gamma) process at rate.
func shardArrivals(rate, burstiness float64, n int, seed uint64, horizon time.Duration) []time.Duration {
	var all []time.Duration
	for i := range n {
		cfg, err := loadgen.Shard{Index: i, Count: n}.Open(loadgen.Open{Rate: rate, Burstiness: burstiness, Seed: seed, Duration: horizon})
		if err != nil {
			panic(err)
		}
		// Enough arrivals to pass the horizon with overwhelming probability.
		k := int(cfg.Rate*horizon.Seconds()*1.5) + 100
		for _, at := range cfg.Schedule(k) {
			if at >= horizon {
				break
			}
			all = append(all, at)
		}
	}
	slices.Sort(all)
	return all
}

// N Poisson shards at rate/N add up to a Poisson process at rate: the
// merged count over 60 s is within 4 standard deviations of rate × 60
// (sqrt(6000) ≈ 77), and the merged gaps have the exponential's mean
// 1/rate and coefficient of variation 1. With a fixed seed the test is
// deterministic; the bounds hold for any seed but with a 1e-4 chance.
func TestShardSuperpositionIsPoissonAtTheRate(t *testing.T) {
	const rate, secs = 100.0, 60
	for _, n := range []int{1, 4, 16} {
		all := shardArrivals(rate, 1, n, 12345, secs*time.Second)
		want := rate * secs
		assert.InDelta(t, want, float64(len(all)), 4*math.Sqrt(want), "%d shards: merged count near rate × duration", n)
		mean, cv := gapStats(all)
		assert.InDelta(t, 1/rate, mean, 0.05/rate, "%d shards: mean gap 1/rate", n)
		assert.InDelta(t, 1, cv, 0.05, "%d shards: merged gaps are exponential (CV 1)", n)
	}
}

// The superposition holds from t = 0: each shard's first arrival comes
// after a gap like every other, so N shards started together do not open
// with a burst of N requests. Over 2,000 seeds, the merged arrivals in the
// first 250 ms of 8 shards at 4 req/s in all average rate × 0.25 s = 1
// (a burst at 0 would make it at least 8), and the first arrival is
// exponential with mean 1/rate.
func TestShardSuperpositionHoldsFromTheStart(t *testing.T) {
	const rate, shards, seeds = 4.0, 8, 2000
	const window = 250 * time.Millisecond
	var inWindow, firstSum float64
	for seed := range uint64(seeds) {
		all := shardArrivals(rate, 1, shards, seed, 2*time.Second)
		first := time.Duration(math.MaxInt64)
		for _, at := range all {
			if at < window {
				inWindow++
			}
			first = min(first, at)
		}
		if len(all) == 0 {
			first = 2 * time.Second // censored: rare (e^-8)
		}
		firstSum += first.Seconds()
	}
	// Poisson count in 0.25 s: mean 1, sd 1; over 2,000 seeds the mean's
	// sd is 1/√2000 ≈ 0.022.
	assert.InDelta(t, rate*window.Seconds(), inWindow/seeds, 0.1, "mean merged arrivals in the first 250 ms")
	assert.InDelta(t, 1/rate, firstSum/seeds, 0.02, "the first merged arrival is exponential with mean 1/rate")
	cfg, err := loadgen.Shard{Index: 0, Count: shards}.Open(loadgen.Open{Rate: rate, Seed: 1, Requests: 8})
	require.NoError(t, err)
	assert.True(t, cfg.FirstGap, "a shard draws its first gap")
	assert.Positive(t, cfg.Schedule(1)[0], "so its first arrival is after 0")
	assert.Zero(t, loadgen.Open{Rate: rate, Seed: 1}.Schedule(1)[0], "an unsharded run sends its first request at once, as the reference")
}

// Gamma shards keep the mean rate, but their sum is burstier-than-gamma
// no more: with shape 4 (CV 0.5) one client's gaps have CV 0.5, while 16
// merged shards' gaps tend to Poisson (CV near 1), the approximation the
// Shard doc warns about.
func TestShardGammaKeepsRateNotShape(t *testing.T) {
	const rate, secs = 100.0, 60
	one := shardArrivals(rate, 4, 1, 9, secs*time.Second)
	many := shardArrivals(rate, 4, 16, 9, secs*time.Second)
	assert.InDelta(t, rate*secs, float64(len(many)), 4*math.Sqrt(rate*secs), "mean rate kept")
	_, cvOne := gapStats(one)
	_, cvMany := gapStats(many)
	assert.InDelta(t, 0.5, cvOne, 0.05, "one gamma client: CV 1/sqrt(4)")
	assert.Greater(t, cvMany, 0.85, "16 merged gamma shards look Poisson")
}

// gapStats returns the mean gap in seconds and the gaps' coefficient of
// variation.
func gapStats(at []time.Duration) (mean, cv float64) {
	n := float64(len(at) - 1)
	var sum, ss float64
	for i := 1; i < len(at); i++ {
		sum += (at[i] - at[i-1]).Seconds()
	}
	mean = sum / n
	for i := 1; i < len(at); i++ {
		d := (at[i] - at[i-1]).Seconds() - mean
		ss += d * d
	}
	return mean, math.Sqrt(ss/n) / mean
}
