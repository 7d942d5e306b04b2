package resultio

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/results"
)

// loadShard is shard i of n of run "r1": one record per send offset (in
// seconds from a fixed start), each lasting its e2e ms, with lag_ms
// lags[k], under the given schedule settings.
func loadShard(i, n int, at []float64, e2e []float64, lags []float64, mod func(*results.Schedule)) *results.Payload {
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	idx := i
	var recs []results.Record
	for k, a := range at {
		start := t0.Add(time.Duration(a * float64(time.Second)))
		r := results.Record{RunID: "r1", Workload: "w", CaseID: "c", Repetition: k*n + i, Shard: &idx,
			OK: true, Quality: results.Quality{OK: true, Issues: []string{}},
			StartedAt: ISOTimestamp(start), EndedAt: ISOTimestamp(start.Add(time.Duration(e2e[k] * float64(time.Millisecond)))),
			Metrics: results.Metrics{TTFTms: 10, E2ELms: e2e[k]}}
		if lags != nil {
			r.LagMS = &lags[k]
		}
		recs = append(recs, r)
	}
	rate, share := 2.0, 2.0/float64(n)
	p := BuildPayload(PayloadInput{RunID: "r1", Workload: results.WorkloadInfo{Name: "w", Path: "w.json", Digest: "sha256:aa"}, Records: recs})
	p.Schedule = &results.Schedule{Mode: "open", TargetRate: &share, RunRate: &rate, Shard: fmt.Sprintf("%d/%d", i, n),
		Burstiness: 1, Seed: 7, Requests: len(at), Sent: len(at), DurationS: 8,
		// What a shard measured alone, which a merge must not add up.
		AchievedRate: ptr(99.0), PeakInFlight: 1, LagMS: &results.LagStats{P50: 1, P95: 1, P99: 1, Max: 1},
		GoodputSLO: map[string]float64{"e2el_ms": 400}, Goodput: ptr(50.0)}
	if mod != nil {
		mod(p.Schedule)
	}
	return p
}

// startedAt sets a shard schedule's start, in seconds from loadShard's
// fixed start.
func startedAt(secs float64) func(*results.Schedule) {
	return func(s *results.Schedule) {
		s.StartedAt = ISOTimestamp(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(secs * float64(time.Second))))
	}
}

// Two shards of an 8 s run, the second started 1 s late, alternating one
// request a second, each request 0.3 s or 0.5 s long: the server never
// had two in flight, and half the requests met the 400 ms goodput limit.
// The merged figures come from the records, not from the shards' sums.
func TestMergeRecomputesRunFiguresFromRecords(t *testing.T) {
	s0 := loadShard(0, 2, []float64{0, 2, 4, 6}, []float64{300, 500, 300, 500}, []float64{1, 2, 3, 4}, startedAt(0))
	s1 := loadShard(1, 2, []float64{1, 3, 5, 7}, []float64{300, 500, 300, 500}, []float64{5, 6, 7, 8}, startedAt(1))
	m, err := MergeNamed([]string{"s0.json", "s1.json"}, []*results.Payload{s0, s1})
	require.NoError(t, err, "merge")
	sc := m.Schedule
	require.NotNil(t, sc, "schedule")
	assert.Equal(t, 8, sc.Sent, "every record is a send")
	assert.InDelta(t, 7.0, sc.SendingWindowS, 1e-9, "first to last send")
	require.NotNil(t, sc.AchievedRate, "achieved rate measured")
	// Every shard was sending from t=1 (shard 1's start) to t=8 (shard
	// 0's end): 7 sends in 7 s.
	assert.InDelta(t, 1.0, *sc.AchievedRate, 1e-9, "achieved rate over the window in which both shards sent")
	require.NotNil(t, sc.StartSkewS, "start skew reported")
	assert.InDelta(t, 1.0, *sc.StartSkewS, 1e-9, "the shards' starts 1 s apart")
	require.NotNil(t, sc.RateWindowS, "the rate's window is said")
	assert.InDelta(t, 7.0, *sc.RateWindowS, 1e-9, "the 7 s every shard was sending, not the whole window")
	require.Len(t, sc.Notes, 1, "a 1 s skew in a 9 s run is worth a warning")
	assert.Contains(t, sc.Notes[0], "the shards started 1 s apart, 11% of the 9 s run: the achieved rate is measured over the 7 s in which every shard was sending", "the note gives the skew")
	assert.Equal(t, 1, sc.PeakInFlight, "one request at a time, from the records' intervals")
	require.NotNil(t, sc.Goodput, "goodput")
	// Completions over the wall span, the first send (t=0) to the last
	// end (t=7.5): 8 served, 4 of them within 400 ms.
	assert.InDelta(t, 7.5, sc.WallSpanS, 1e-9, "first send to last end")
	require.NotNil(t, sc.RequestThroughput, "throughput")
	assert.InDelta(t, 8/7.5, *sc.RequestThroughput, 1e-9, "every request succeeded, over the wall span")
	assert.InDelta(t, 4/7.5, *sc.Goodput, 1e-9, "half the requests met 400 ms, over the wall span")
	require.NotNil(t, sc.LagMS, "lag from the records")
	assert.InDelta(t, 4.5, sc.LagMS.P50, 1e-9, "lag median over all records")
	assert.Equal(t, 8.0, sc.LagMS.Max, "lag max over all records")
	assert.Equal(t, 2.0, *sc.TargetRate, "target: the run's rate")
}

// Shards started together (10 ms apart) get no skew note, however late
// their first arrivals come; the rate is over the window in which both
// ran their 4.5 s schedule (t=0.01 to t=4.5).
func TestMergeWithoutSkewHasNoNote(t *testing.T) {
	dur := func(s *results.Schedule) { s.DurationS = 4.5 }
	s0 := loadShard(0, 2, []float64{0.7, 1, 2, 3, 4}, []float64{100, 100, 100, 100, 100}, nil, func(s *results.Schedule) { startedAt(0)(s); dur(s) })
	s1 := loadShard(1, 2, []float64{1.2, 1.5, 2.5, 3.5, 4}, []float64{100, 100, 100, 100, 100}, nil, func(s *results.Schedule) { startedAt(0.01)(s); dur(s) })
	m, err := MergePayloads(s0, s1)
	require.NoError(t, err)
	sc := m.Schedule
	require.NotNil(t, sc.AchievedRate)
	assert.InDelta(t, 10/4.49, *sc.AchievedRate, 1e-9, "10 sends from t=0.01 to t=4.5")
	require.NotNil(t, sc.StartSkewS)
	assert.InDelta(t, 0.01, *sc.StartSkewS, 1e-9, "the skew is the schedules' starts, not the first arrivals (0.5 s apart)")
	assert.Len(t, sc.Notes, 1, "only the lag note: these records carry no lag_ms")
	assert.Contains(t, sc.Notes[0], "lag not recomputed: 10 of 10 records carry no lag_ms")
	assert.Nil(t, sc.LagMS, "no lag without per-request lags, rather than a shard's figure")
	assert.Equal(t, 2, sc.PeakInFlight, "two requests overlapped at t=4")
}

// Shards of one request each have no window in which all were sending:
// the rate is over the whole sending window, and a note says so.
func TestMergeOfOneRequestShardsUsesTheWholeWindow(t *testing.T) {
	var ps []*results.Payload
	var names []string
	for i := range 4 {
		ps = append(ps, loadShard(i, 4, []float64{float64(i)}, []float64{100}, nil, func(s *results.Schedule) {
			startedAt(0)(s)
			s.DurationS, s.RunRequests = 0, 4
		}))
		names = append(names, fmt.Sprintf("s%d.json", i))
	}
	m, err := MergeNamed(names, ps)
	require.NoError(t, err)
	sc := m.Schedule
	require.NotNil(t, sc.AchievedRate, "measured: %s", sc.AchievedRateReason)
	assert.InDelta(t, 1.0, *sc.AchievedRate, 1e-9, "4 sends, one a second: 1 req/s, not the sum of the shards' figures")
	assert.Equal(t, 1, sc.PeakInFlight, "one at a time")
	assert.InDelta(t, 0, *sc.StartSkewS, 1e-9, "started together")
	require.Len(t, sc.Notes, 2, "the whole-window note and the lag note")
	assert.Nil(t, sc.RateWindowS, "the rate is over the whole window, so no window of its own")
	assert.Contains(t, sc.Notes[0], "no window in which every shard was sending holds a rate (only 1 sent: a rate needs at least 3 requests): the achieved rate is over the whole 3 s sending window")
}

func TestMergeRefusesOtherSettings(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*results.Schedule)
		want string
	}{
		{"rate", func(s *results.Schedule) { s.RunRate = ptr(20.0) }, "request rate 2 and 20"},
		{"burstiness", func(s *results.Schedule) { s.Burstiness = 0.5 }, "burstiness 1 and 0.5"},
		{"seed", func(s *results.Schedule) { s.Seed = 8 }, "seed 7 and 8"},
		{"cap", func(s *results.Schedule) { s.MaxConcurrency = 4 }, "max concurrency 0 and 4"},
		{"duration", func(s *results.Schedule) { s.DurationS = 9 }, "duration (s) 8 and 9"},
		{"count", func(s *results.Schedule) { s.RunRequests = 10 }, "request count 0 and 10"},
		{"shards", func(s *results.Schedule) { s.Shard = "1/3" }, "shard count 2 and 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s0 := loadShard(0, 2, []float64{0, 1, 2}, []float64{1, 1, 1}, nil, nil)
			s1 := loadShard(1, 2, []float64{0, 1, 2}, []float64{1, 1, 1}, nil, tc.mod)
			_, err := MergeNamed([]string{"a.json", "b.json"}, []*results.Payload{s0, s1})
			require.Error(t, err, "settings differ")
			assert.Contains(t, err.Error(), "a.json and b.json were run with different settings ("+tc.want, "names both files and the setting")
		})
	}
}

func TestMergeRefusesShardedWithUnsharded(t *testing.T) {
	s0 := loadShard(0, 2, []float64{0, 1, 2}, []float64{1, 1, 1}, nil, nil)
	s1 := loadShard(1, 2, []float64{0, 1, 2}, []float64{1, 1, 1}, nil, nil)
	whole := BuildPayload(PayloadInput{RunID: "r1", Workload: s0.Workload, Records: []results.Record{{RunID: "r1", CaseID: "c", OK: true}}})
	_, err := MergeNamed([]string{"s0.json", "s1.json", "whole.json"}, []*results.Payload{s0, s1, whole})
	require.Error(t, err, "an unsharded run under the same id")
	assert.Contains(t, err.Error(), "s0.json is a shard of the run but whole.json is unsharded", "names both files")
}

func TestMergeIdentifiesWorkloadByDigest(t *testing.T) {
	s0 := loadShard(0, 2, []float64{0, 1, 2}, []float64{1, 1, 1}, nil, nil)
	s1 := loadShard(1, 2, []float64{0, 1, 2}, []float64{1, 1, 1}, nil, nil)
	s1.Workload.Path = "/abs/w.json" // the same file by another path
	_, err := MergeNamed([]string{"s0.json", "s1.json"}, []*results.Payload{s0, s1})
	require.NoError(t, err, "one content, two paths: one workload")

	s1.Workload.Path = s0.Workload.Path
	s1.Workload.Digest = "sha256:bb" // edited between the shards
	_, err = MergeNamed([]string{"s0.json", "s1.json"}, []*results.Payload{s0, s1})
	require.Error(t, err, "one path, two contents")
	assert.Contains(t, err.Error(), `s1.json ran workload "w" with content sha256:bb but s0.json ran workload "w" with content sha256:aa`)
}

func TestMergeRefusesDamagedRecords(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*results.Metrics)
		want string
	}{
		{"negative e2e", func(m *results.Metrics) { m.E2ELms = -5 }, "metrics.e2e_latency_ms is -5"},
		{"negative ttft", func(m *results.Metrics) { m.TTFTms = -1 }, "metrics.ttft_ms is -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s0 := loadShard(0, 2, []float64{0, 1, 2}, []float64{1, 1, 1}, nil, nil)
			s1 := loadShard(1, 2, []float64{0, 1, 2}, []float64{1, 1, 1}, nil, nil)
			tc.mod(&s1.Results[1].Metrics)
			_, err := MergeNamed([]string{"s0.json", "s1.json"}, []*results.Payload{s0, s1})
			require.Error(t, err, "a damaged record")
			assert.Contains(t, err.Error(), "s1.json: record 1 (case \"c\" repetition 3 of shard 1): "+tc.want, "names the file and the record")
		})
	}
}

func TestMergeFlagsAShardThatLostItsRecords(t *testing.T) {
	s0 := loadShard(0, 2, []float64{0, 1, 2}, []float64{1, 1, 1}, nil, nil)
	s1 := loadShard(1, 2, []float64{0, 1, 2}, []float64{1, 1, 1}, nil, nil)
	s0.Results = []results.Record{}
	_, err := MergeNamed([]string{"s0.json", "s1.json"}, []*results.Payload{s0, s1})
	require.Error(t, err, "results: [] against a schedule of 3 sends")
	assert.Contains(t, err.Error(), "s0.json (shard 0/2): 0 records, but its schedule says 3 requests were sent")

	s0.Incomplete = &results.Incomplete{Reason: "recovered"}
	m, err := MergeNamed([]string{"s0.json", "s1.json"}, []*results.Payload{s0, s1})
	require.NoError(t, err, "a payload that says it is incomplete merges")
	require.NotNil(t, m.Incomplete, "and the merge says so too")
	assert.Contains(t, m.Incomplete.Reason, "s0.json")
	assert.False(t, m.Summary.Passed, "an incomplete run does not pass")
}

// A shard killed 2.5 s into an 8 s run and rebuilt from its journal
// (incomplete, its Unsent unknown) was sending until its last send, not
// for its whole duration: the rate is over the 2.5 s in which both shards
// sent (6 sends), not over 8 s that count shard 0 alone for 5.5 of them.
func TestMergeOfARecoveredShardEndsItsWindowAtItsLastSend(t *testing.T) {
	s0 := loadShard(0, 2, []float64{0, 1, 2, 3, 4, 5, 6, 7}, []float64{100, 100, 100, 100, 100, 100, 100, 100}, nil, startedAt(0))
	s1 := loadShard(1, 2, []float64{0.5, 1.5, 2.5}, []float64{100, 100, 100}, nil, func(s *results.Schedule) {
		startedAt(0)(s)
		s.Requests = 0 // a journal does not know how many its schedule would have made
	})
	s1.Incomplete = &results.Incomplete{Reason: "rebuilt from a journal", Records: 3}
	m, err := MergeNamed([]string{"s0.json", "s1.json"}, []*results.Payload{s0, s1})
	require.NoError(t, err, "merge")
	sc := m.Schedule
	require.NotNil(t, sc.AchievedRate, "measured: %s", sc.AchievedRateReason)
	assert.InDelta(t, 6/2.5, *sc.AchievedRate, 1e-9, "6 sends while both shards were sending (t=0 to 2.5)")
	assert.NotNil(t, m.Incomplete, "the merge says it is incomplete")
}

// The merged run's connection_retries is the sum of its records'
// metrics.connection_retries, whatever the shards' own blocks said.
func TestMergeSumsConnectionRetries(t *testing.T) {
	s0 := loadShard(0, 2, []float64{0, 2}, []float64{300, 300}, nil, func(s *results.Schedule) { s.ConnectionRetries = 40 })
	s1 := loadShard(1, 2, []float64{1, 3}, []float64{300, 300}, nil, nil)
	s0.Results[0].Metrics.ConnectionRetries = 1
	s1.Results[1].Metrics.ConnectionRetries = 1
	m, err := MergeNamed([]string{"s0.json", "s1.json"}, []*results.Payload{s0, s1})
	require.NoError(t, err, "merge")
	require.NotNil(t, m.Schedule, "merged schedule")
	assert.Equal(t, 2, m.Schedule.ConnectionRetries, "the records' retries, summed")
	assert.Equal(t, 2, m.Summary.ConnectionRetries, "and in the summary")
}

// A merge is not one shard's client verdict: a valid shard's is dropped,
// an invalid shard makes the merged run invalid, naming it.
func TestMergeCarriesAnInvalidShardsClient(t *testing.T) {
	yes, no := true, false
	valid := func(s *results.Schedule) { s.ClientValid, s.ClientReason = &yes, "headroom: lag p99 1.0 ms of 10.0 ms" }
	invalid := func(s *results.Schedule) {
		s.ClientValid, s.ClientReason = &no, "client could not keep up: lag p99 40.0 ms > 10.0 ms"
	}
	s0 := loadShard(0, 2, []float64{0, 2}, []float64{300, 300}, nil, valid)
	s1 := loadShard(1, 2, []float64{1, 3}, []float64{300, 300}, nil, valid)
	m, err := MergePayloads(s0, s1)
	require.NoError(t, err)
	assert.Nil(t, m.Schedule.ClientValid, "valid shards: the merge is not judged")

	s1 = loadShard(1, 2, []float64{1, 3}, []float64{300, 300}, nil, invalid)
	m, err = MergePayloads(s0, s1)
	require.NoError(t, err)
	require.NotNil(t, m.Schedule.ClientValid)
	assert.False(t, *m.Schedule.ClientValid)
	assert.Equal(t, "shard 1/2: client could not keep up: lag p99 40.0 ms > 10.0 ms", m.Schedule.ClientReason)
}
