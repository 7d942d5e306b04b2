package resultio

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/results"
)

// shardPayload builds shard i's payload of run abcd1234: fixedRecords
// tagged with the shard, started at stamp, with the given SLO verdicts.
func shardPayload(i int, stamp string) *results.Payload {
	recs := fixedRecords()
	for j := range recs {
		recs[j].Shard = ptr(i)
		recs[j].Metrics.TTFTms += float64(100 * i) // shards measured differently
	}
	p := BuildPayload(PayloadInput{RunID: "abcd1234", Timestamp: stamp, CacheMode: "before-run",
		Workload:    results.WorkloadInfo{Name: "smoke", Path: "/w/smoke.json", Repetitions: 2},
		CacheEvents: []results.CacheEvent{{Scope: "before-run", Event: results.CacheReset{Attempted: true}}},
		Records:     recs})
	p.SLO = []results.SLOResult{{Threshold: results.Threshold{Expr: "ttft_p95_ms <= 500"}, Pass: true}}
	return p
}

func TestMergePayloadsShards(t *testing.T) {
	p0 := shardPayload(0, "2025-01-02T03:04:05.5+00:00")
	p1 := shardPayload(1, "2025-01-02T03:04:05.1+00:00")
	p2 := shardPayload(2, "2025-01-02T03:04:07+00:00")
	before, err := json.Marshal(p1)
	require.NoError(t, err)

	m, err := MergePayloads(p2, p0, p1, p0) // any order, p0 twice
	require.NoError(t, err, "merge")
	require.Len(t, m.Results, 9, "3 shards × 3 records, the repeated payload once")
	for i, r := range m.Results {
		assert.Equal(t, i/3, *r.Shard, "record %d grouped by shard", i)
	}
	var all []results.Record
	for _, p := range []*results.Payload{p0, p1, p2} {
		all = append(all, p.Results...)
	}
	assert.Equal(t, results.Summarize(all), m.Summary, "summary recomputed from every record")
	assert.Equal(t, 9, m.Summary.CaseCount, "case count of the whole run")
	assert.InDelta(t, (80+180+280)/3.0, mean(m.Summary.CaseSummaries["weather-tool"].TTFTms), 1e-9, "per-case stats over the shards")
	assert.Equal(t, "abcd1234", m.RunID, "run id kept")
	assert.Equal(t, "2025-01-02T03:04:05.1+00:00", m.Timestamp, "earliest shard start")
	assert.Equal(t, "before-run", m.CachePolicy.Mode, "cache mode")
	assert.Len(t, m.CachePolicy.Events, 3, "every shard's cache events once")
	assert.Nil(t, m.SLO, "shard verdicts are not the run's")
	assert.Equal(t, []string{"ttft_p95_ms <= 500"}, SLOThresholds(p0, p1, nil, p2), "thresholds to evaluate again")
	after, err := json.Marshal(p1)
	require.NoError(t, err)
	assert.JSONEq(t, string(before), string(after), "inputs not modified")

	b, err := json.Marshal(m.Results[3])
	require.NoError(t, err)
	assert.Contains(t, string(b), `"shard":1`, "records carry their shard")
	b, err = json.Marshal(fixedRecords()[0])
	require.NoError(t, err)
	assert.NotContains(t, string(b), `"shard"`, "unsharded records have no shard key")
}

func mean(s *results.Stats) float64 {
	if s == nil {
		return -1
	}
	return s.Mean
}

func TestMergePayloadsRefuses(t *testing.T) {
	p0 := shardPayload(0, "")
	other := shardPayload(1, "")
	other.RunID = "ffff0000"
	_, err := MergePayloads(p0, other)
	require.Error(t, err, "different runs")
	assert.Equal(t, `results: merge: payload 2 is run "ffff0000" but payload 1 is run "abcd1234": only the shards of one run merge (start every shard with the same --run-id)`, err.Error())

	wl := shardPayload(1, "")
	wl.Workload.Name = "quality"
	_, err = MergePayloads(p0, wl)
	require.Error(t, err, "different workloads")
	assert.Contains(t, err.Error(), `payload 2 is workload "quality" (/w/smoke.json) but payload 1 is workload "smoke" (/w/smoke.json)`)

	again := shardPayload(0, "")
	again.Results[1].Metrics.E2ELms = 1
	_, err = MergePayloads(p0, again)
	require.Error(t, err, "one shard's record twice with different results")
	assert.Contains(t, err.Error(), `case "weather-tool" repetition 0 of shard 0 appears with different results in payload 1 and payload 2`)

	stray := shardPayload(1, "")
	stray.Results[2].RunID = "99999999"
	_, err = MergePayloads(p0, stray)
	require.Error(t, err, "a record of another run")
	assert.Contains(t, err.Error(), `payload 2 (run "abcd1234"): record 2 is of run "99999999"`)

	_, err = MergePayloads()
	require.EqualError(t, err, "results: merge: no payloads")
	_, err = MergePayloads(p0, nil)
	require.EqualError(t, err, "results: merge: payload 2 is nil")
}

// One payload merges into itself: same records, same summary.
func TestMergePayloadsOne(t *testing.T) {
	p := BuildPayload(PayloadInput{RunID: "abcd1234", Timestamp: "2025-01-02T03:04:05+00:00", Records: fixedRecords()})
	m, err := MergePayloads(p)
	require.NoError(t, err)
	assert.Equal(t, p.Results, m.Results, "records")
	assert.Equal(t, p.Summary, m.Summary, "summary")
}

// TestMergeSchedulesNeedsEveryShard: the shards' schedules say "I/N"; a
// merge missing one is refused, a full one keeps the run's settings and
// adds the counts.
func TestMergeSchedulesNeedsEveryShard(t *testing.T) {
	shard := func(i int) *results.Payload {
		rate, runRate := 5.0, 10.0
		idx := i
		return &results.Payload{RunID: "r1", Workload: results.WorkloadInfo{Name: "w", Path: "w.json"},
			Results: []results.Record{{RunID: "r1", CaseID: "a", Repetition: i, Shard: &idx, OK: true, Quality: results.Quality{OK: true},
				StartedAt: fmt.Sprintf("2025-01-02T03:04:0%d+00:00", i)}},
			Schedule: &results.Schedule{Mode: "open", TargetRate: &rate, RunRate: &runRate, Shard: fmt.Sprintf("%d/2", i), Requests: 30,
				Sent: 1, Unsent: 29, Late: i}}
	}
	_, err := MergePayloads(shard(0))
	require.Error(t, err, "half a run does not merge silently")
	assert.Contains(t, err.Error(), "shard 1/2 missing", "the error names the missing shard")
	_, err = MergePayloads(shard(0), shard(0))
	require.Error(t, err, "one shard twice is not the run")
	assert.Contains(t, err.Error(), "payload 2 is the same payload as payload 1", "the error names the duplicate too")

	m, err := MergePayloads(shard(0), shard(1))
	require.NoError(t, err)
	require.NotNil(t, m.Schedule, "the merged payload keeps the schedule")
	assert.Equal(t, 10.0, *m.Schedule.TargetRate, "the run's rate")
	assert.Equal(t, 60, m.Schedule.Requests, "requests add up")
	assert.Equal(t, 58, m.Schedule.Unsent, "unsent requests add up")
	assert.Equal(t, 1, m.Schedule.Late, "late requests add up")
	assert.Equal(t, 2, m.Schedule.Sent, "sent: the records")
	assert.Nil(t, m.Schedule.AchievedRate, "two requests are too few for a rate")
	assert.Equal(t, "only 2 sent: a rate needs at least 3 requests (two gaps between sends)", m.Schedule.AchievedRateReason, "and the reason says so")
	assert.Empty(t, m.Schedule.Shard, "the merged schedule is the whole run's")
}
