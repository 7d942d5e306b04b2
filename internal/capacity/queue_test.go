package capacity_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/internal/capacity"
	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/stats"
	"github.com/benchserve/benchserve/results"
)

// queue is a FIFO queue of Slots generation slots with a deterministic
// service, the fixture's (fixtures.Options.Slots): a request waits for
// the slot it is next in line for, gets its first token TTFT after
// taking it and holds it for Service in all. Its TTFT is the wait plus
// TTFT: an M/D/c queue under Poisson arrivals.
type queue struct {
	Slots       int
	TTFT, Serve time.Duration
	SLOms       float64 // the p95 TTFT limit the capacity is found for
	Label       string
}

// run serves arrivals (offsets, ascending) and returns each request's
// wait for a slot.
func (q queue) run(arrivals []time.Duration) []time.Duration {
	free := make([]time.Duration, q.Slots) // when each slot frees
	waits := make([]time.Duration, len(arrivals))
	for i, a := range arrivals {
		k := 0
		for j := range free {
			if free[j] < free[k] {
				k = j
			}
		}
		start := max(a, free[k])
		waits[i] = start - a
		free[k] = start + q.Serve
	}
	return waits
}

// closed runs n requests of a closed loop of streams streams: each stream
// sends its next request when its last one ends. It returns the sends
// (ascending) and each request's wait for a slot.
func (q queue) closed(streams, n int) (sends, waits []time.Duration) {
	free := make([]time.Duration, q.Slots)  // when each slot frees
	ready := make([]time.Duration, streams) // when each stream sends next
	for range n {
		s := 0
		for j := range ready {
			if ready[j] < ready[s] {
				s = j
			}
		}
		k := 0
		for j := range free {
			if free[j] < free[k] {
				k = j
			}
		}
		a := ready[s]
		start := max(a, free[k])
		sends, waits = append(sends, a), append(waits, start-a)
		free[k] = start + q.Serve
		ready[s] = start + q.Serve
	}
	return sends, waits
}

// steadyP95 is the p95 TTFT (ms) of the queue's steady state at rate
// (req/s, Poisson): n simulated arrivals, the first tenth left out.
func (q queue) steadyP95(rate float64, n int, seed uint64) float64 {
	waits := q.run(loadgen.Schedule(rate, 1, n, seed))
	ttft := make([]float64, 0, n)
	for _, w := range waits[n/10:] {
		ttft = append(ttft, float64(w+q.TTFT)/float64(time.Millisecond))
	}
	slices.Sort(ttft)
	return stats.Percentile(ttft, 95)
}

// capacity is the highest Poisson rate whose steady-state p95 TTFT stays
// within SLOms, by bisection over steadyP95 (200,000 arrivals per rate)
// between 0 and the slots' throughput Slots / Serve.
func (q queue) capacity() float64 {
	lo, hi := 0.0, float64(q.Slots)/q.Serve.Seconds()
	for hi-lo > 0.005*hi {
		mid := (lo + hi) / 2
		if q.steadyP95(mid, 200_000, 42) <= q.SLOms {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// probe runs the queue in virtual time as a capacity.ProbeFunc: Poisson
// arrivals at the probe's rate (seeded), every send and completion told
// to the observer in time order; when ctx ends (the search stopped the
// probe) the requests in flight are cancelled and the rest never sent.
func (q queue) probe(seed uint64) capacity.ProbeFunc {
	return func(ctx context.Context, spec capacity.ProbeSpec, obs capacity.Observer) (*loadgen.Run, error) {
		var arrivals, waits []time.Duration
		if spec.By == capacity.ByConcurrency {
			arrivals, waits = q.closed(int(spec.Load), spec.Requests)
		} else {
			arrivals = loadgen.Schedule(spec.Load, 1, spec.Requests, seed+uint64(spec.Index)*7919)
			waits = q.run(arrivals)
		}
		samples := make([]loadgen.Sample, len(arrivals))
		for i, a := range arrivals {
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
			samples[i] = loadgen.Sample{Index: i, Scheduled: a, Sent: a, TTFTms: ms(waits[i] + q.TTFT),
				E2ELms: ms(waits[i] + q.Serve), TPOTms: ms(q.Serve-q.TTFT) / 9, GenTPS: 1, CompletionTokens: 10, HasOutput: true}
		}
		return emit(ctx, obs, samples), nil
	}
}

// emit tells obs of samples' sends and completions in time order, as a
// live run would, and returns the run: cut where ctx ended (requests in
// flight then cancelled, later ones unsent).
func emit(ctx context.Context, obs capacity.Observer, samples []loadgen.Sample) *loadgen.Run {
	type event struct {
		at   time.Duration
		i    int
		done bool
	}
	events := make([]event, 0, 2*len(samples))
	for i, s := range samples {
		events = append(events, event{s.Sent, i, false},
			event{s.Sent + time.Duration(s.E2ELms*float64(time.Millisecond)), i, true})
	}
	slices.SortStableFunc(events, func(a, b event) int {
		if a.at != b.at {
			return int(a.at - b.at)
		}
		if a.done != b.done { // a completion at the same instant first
			if a.done {
				return -1
			}
			return 1
		}
		return a.i - b.i
	})
	sent := make([]bool, len(samples))
	done := make([]bool, len(samples))
	var now time.Duration
	for _, ev := range events {
		if ctx.Err() != nil {
			break
		}
		now = ev.at
		if ev.done {
			done[ev.i] = true
			obs.Done(samples[ev.i])
		} else {
			sent[ev.i] = true
			obs.Sent(ev.i, ev.at)
		}
	}
	run := &loadgen.Run{Mode: "open", Duration: now}
	for i, s := range samples {
		switch {
		case done[i]:
			run.Samples = append(run.Samples, s)
		case sent[i]:
			run.Samples = append(run.Samples, loadgen.Sample{Index: i, Sent: s.Sent, Scheduled: s.Scheduled,
				Err: context.Canceled, Kind: results.KindCanceled, TTFTms: math.NaN(), E2ELms: math.NaN()})
		default:
			run.Unsent++
		}
	}
	return run
}

// The search on the simulated queue (virtual time: the same M/D/c the
// steady state is computed from, no server) finds its capacity: for the
// issue's queue and a second one, over four seeds each, the estimate is
// within 15% of the steady state and the interval's lower end (what a
// floor is checked against) is not above it.
func TestSearchSimulatedQueues(t *testing.T) {
	for _, q := range []queue{
		{Slots: 4, TTFT: 50 * time.Millisecond, Serve: 240 * time.Millisecond, SLOms: 200, Label: "4x0.24s"},
		{Slots: 8, TTFT: 30 * time.Millisecond, Serve: 165 * time.Millisecond, SLOms: 80, Label: "8x0.165s"},
	} {
		truth := q.capacity()
		for _, seed := range []uint64{1, 2, 3, 4} {
			t.Run(fmt.Sprintf("%s/seed=%d", q.Label, seed), func(t *testing.T) {
				th, err := results.ParseThresholds(fmt.Sprintf("ttft_p95_ms <= %g", q.SLOms))
				require.NoError(t, err)
				res, err := capacity.Search(t.Context(), q.probe(seed), capacity.Config{CapacitySearch: results.CapacitySearch{SLOs: th, Start: 2, Precision: 0.1}})
				require.NoError(t, err)
				var virtual time.Duration
				for _, p := range res.Probes {
					virtual += time.Duration(p.Summary.DurationS * float64(time.Second))
				}
				t.Logf("capacity %s (%d probes, %v of load); steady state %.2f req/s", res.Headline(), len(res.Probes), virtual.Round(time.Second), truth)
				assert.LessOrEqual(t, res.Interval.Low, truth*1.02, "the lower end is not above the steady state")
				assert.InEpsilon(t, truth, res.Capacity, 0.15, "estimate within 15%% of the steady state")
			})
		}
	}
}

// A probe whose arrivals outrun the queue (30 req/s into 4 slots × 0.24
// s, which serve 16.7/s) is stopped early as saturated and says so; one
// well below the capacity (4 req/s) runs to its verdict, and so does one
// heavily loaded but stationary (15 req/s, 90% of what the slots serve):
// it fails by its SLO, not as saturated.
func TestSaturationStopsProbe(t *testing.T) {
	q := queue{Slots: 4, TTFT: 50 * time.Millisecond, Serve: 240 * time.Millisecond}
	th, err := results.ParseThresholds("ttft_p95_ms <= 200")
	require.NoError(t, err)
	probeAt := func(load float64, seed uint64) results.CapacityProbe {
		var probes []results.CapacityProbe
		cfg := capacity.Config{CapacitySearch: results.CapacitySearch{SLOs: th, Start: load, Max: load}, OnProbe: func(p results.CapacityProbe) { probes = append(probes, p) }}
		_, err := capacity.Search(t.Context(), q.probe(seed), cfg)
		require.NoError(t, err)
		require.Len(t, probes, 1, "one probe at %v req/s", load)
		return probes[0]
	}
	for seed := uint64(1); seed <= 5; seed++ {
		low := probeAt(4, seed)
		assert.Equal(t, capacity.VerdictPass, low.Verdict, "4 req/s passes: %s", low)
		assert.Empty(t, low.Saturation, "and is not saturated")

		busy := probeAt(15, seed)
		assert.Equal(t, capacity.VerdictFail, busy.Verdict, "15 req/s fails its SLO: %s", busy)
		assert.Empty(t, busy.Saturation, "but a stationary queue is not saturated")

		sat := probeAt(30, seed)
		assert.Equal(t, capacity.VerdictSaturated, sat.Verdict, "30 req/s is saturated: %s", sat)
		assert.Less(t, sat.Summary.Sent, sat.Requests/2, "stopped well before its planned requests")
		assert.Contains(t, sat.String(), "SATURATED, stopped early (arrivals ", "the probe line says so")
		assert.Contains(t, sat.String(), "outran completions", "and why")
	}
}

// A pass rests on enough busy cycles: near its capacity a queue's window
// of 100 requests spans a few busy cycles, its percentile interval too
// narrow, so the probe is extended instead of passing. Over 20 seeds of
// single probes at 90% of the 8-slot queue's capacity, every pass has
// MinBusyCycles cycles, and so does every pass of a whole search.
func TestPassNeedsBusyCycles(t *testing.T) {
	q := queue{Slots: 8, TTFT: 30 * time.Millisecond, Serve: 165 * time.Millisecond, SLOms: 80}
	th, err := results.ParseThresholds("ttft_p95_ms <= 80")
	require.NoError(t, err)
	load := 0.9 * q.capacity()
	short := 0
	for seed := uint64(1); seed <= 20; seed++ {
		var probes []results.CapacityProbe
		cfg := capacity.Config{CapacitySearch: results.CapacitySearch{SLOs: th, Start: load, Max: load, Extensions: -1}, OnProbe: func(p results.CapacityProbe) { probes = append(probes, p) }}
		_, err := capacity.Search(t.Context(), q.probe(seed), cfg)
		require.NoError(t, err)
		require.Len(t, probes, 1)
		p := probes[0]
		if p.Summary.BusyCycles < capacity.MinBusyCycles {
			short++
			assert.NotEqual(t, capacity.VerdictPass, p.Verdict, "seed %d: %d busy cycles cannot pass: %s", seed, p.Summary.BusyCycles, p)
			assert.NotContains(t, p.String(), "extensions ()", "seed %d: the line says why it did not pass", seed)
			held := true // every threshold held with confidence: only the cycles were short
			for _, o := range p.SLOs {
				held = held && o.Pass
			}
			if held {
				assert.Contains(t, p.String(), fmt.Sprintf("busy cycles of the %d a pass needs", capacity.MinBusyCycles), "seed %d", seed)
			}
		}
	}
	assert.Greater(t, short, 10, "at 90%% of capacity most first looks span fewer than %d busy cycles", capacity.MinBusyCycles)
	res, err := capacity.Search(t.Context(), q.probe(1), capacity.Config{CapacitySearch: results.CapacitySearch{SLOs: th, Start: 8}})
	require.NoError(t, err)
	for _, p := range res.Probes {
		if p.Pass {
			assert.GreaterOrEqual(t, p.Summary.BusyCycles, capacity.MinBusyCycles, "%s", p)
		}
	}
}

// Without a Start, a rate search measures the queue's service rate with
// a closed-loop burst (4 slots × 0.24 s serve 16.7 req/s) and starts at
// half of it, instead of climbing from 1 req/s: it spends less time than
// the search from 1 req/s (whose probes at 1, 2 and 4 req/s take minutes
// for their 112 requests each) and finds the same capacity within 15%.
// Where half the service rate is already beyond the SLO (2 slots ×
// 0.295 s serve 6.8 req/s; under ttft_p95_ms <= 100 the capacity is about
// 1.4 req/s) it steps down until a probe passes.
func TestSearchEstimatedStart(t *testing.T) {
	q := queue{Slots: 4, TTFT: 50 * time.Millisecond, Serve: 240 * time.Millisecond, SLOms: 200}
	truth := q.capacity()
	th, err := results.ParseThresholds("ttft_p95_ms <= 200")
	require.NoError(t, err)
	sent := func(r results.Capacity) (n int, d time.Duration) {
		for _, p := range r.Probes {
			n += p.Summary.Sent
			d += time.Duration(p.Summary.DurationS * float64(time.Second))
		}
		return n, d.Round(time.Second)
	}
	for seed := uint64(1); seed <= 3; seed++ {
		res, err := capacity.Search(t.Context(), q.probe(seed), capacity.Config{CapacitySearch: results.CapacitySearch{SLOs: th}})
		require.NoError(t, err)
		from1, err := capacity.Search(t.Context(), q.probe(seed), capacity.Config{CapacitySearch: results.CapacitySearch{SLOs: th, Start: 1}})
		require.NoError(t, err)
		assert.Contains(t, res.StartFrom, "a closed loop of 16 streams completed 64 requests", "seed %d: says where it started", seed)
		assert.Contains(t, res.StartFrom, "16.667 req/s served; started at 0.5 of it", "seed %d: the slots' rate", seed)
		assert.Equal(t, 8.3, res.Start, "seed %d: half of it, 2 digits", seed)
		assert.Equal(t, 8.3, res.Probes[0].Load, "seed %d: the first probe", seed)
		assert.Empty(t, from1.StartFrom, "a given start is not estimated")
		assert.InEpsilon(t, truth, res.Capacity, 0.15, "seed %d: within 15%% of the steady state %.2f", seed, truth)
		n, d := sent(res)
		n1, d1 := sent(from1)
		assert.Less(t, d+4*time.Second, d1, "seed %d: less time than from 1 req/s (the burst took 3.8 s)", seed)
		t.Logf("seed %d: %s in %v of load (%d requests and the burst's 64); from 1 req/s %s in %v (%d requests)", seed, res.Headline(), d, n, from1.Headline(), d1, n1)
	}

	slow := queue{Slots: 2, TTFT: 50 * time.Millisecond, Serve: 295 * time.Millisecond, SLOms: 100}
	th, err = results.ParseThresholds("ttft_p95_ms <= 100")
	require.NoError(t, err)
	res, err := capacity.Search(t.Context(), slow.probe(1), capacity.Config{CapacitySearch: results.CapacitySearch{SLOs: th}})
	require.NoError(t, err)
	require.NotEmpty(t, res.Probes)
	assert.Equal(t, 3.4, res.Probes[0].Load, "half of 6.78 req/s")
	assert.False(t, res.Probes[0].Leans(), "fails: %s", res.Probes[0])
	assert.Equal(t, capacity.StatusFound, res.Status, "found by stepping down: %s", res.Reason)
	assert.InEpsilon(t, slow.capacity(), res.Capacity, 0.15, "within 15%% of the steady state")
}

// A search tells its caller of every probe as it starts (a log line with
// its first look, most requests and how long they take at its rate) and
// of a running probe's progress (sent of planned, the interval so far,
// elapsed, what is left), for a live line on a terminal.
func TestSearchReportsProgress(t *testing.T) {
	q := queue{Slots: 4, TTFT: 50 * time.Millisecond, Serve: 240 * time.Millisecond, SLOms: 200}
	th, err := results.ParseThresholds("ttft_p95_ms <= 200")
	require.NoError(t, err)
	var starts []string
	var last []capacity.Progress
	cfg := capacity.Config{CapacitySearch: results.CapacitySearch{SLOs: th},
		OnStart: func(s capacity.ProbeSpec) { starts = append(starts, capacity.StartLine(s)) },
		OnProgress: func(p capacity.Progress) {
			if len(last) <= p.Spec.Index {
				last = append(last, p)
			}
			last[p.Spec.Index] = p
		}}
	res, err := capacity.Search(t.Context(), q.probe(1), cfg)
	require.NoError(t, err)
	require.Len(t, starts, len(res.Probes), "a line at each probe's start")
	require.Len(t, last, len(res.Probes), "progress of every probe")
	assert.Equal(t, "probe 1: 8.3 req/s: started; first look at 100 measured, at most 890 requests (about 13s to the first look, 1m47s at most)", starts[0])
	interval := false
	for i, p := range last {
		assert.Equal(t, res.Probes[i].Requests, p.Planned, "probe %d: planned", i+1)
		assert.Positive(t, p.Completed, "probe %d: completions counted", i+1)
		assert.LessOrEqual(t, p.Sent, p.Planned, "probe %d", i+1)
		assert.Contains(t, p.String(), fmt.Sprintf("probe %d at %s req/s: %d of %d sent (next look at ", i+1, stats.FormatLoad(p.Spec.Load), p.Sent, p.Planned), "probe %d: the line", i+1)
		assert.Contains(t, p.String(), "more", "probe %d: what is left at its rate", i+1)
		if p.Interval != "" {
			interval = true
			assert.Contains(t, p.String(), "for ttft_p95_ms <= 200", "probe %d: the interval so far names its threshold", i+1)
		}
	}
	assert.True(t, interval, "an extended probe shows the interval it was extended on")
}
