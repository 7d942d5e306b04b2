package loadgen_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/results"
)

// shardRecord is what a sharded run writes for one request (the runner's
// records carry more): the shared run id, the shard, a case picked by the
// request's global index, and the timings.
func shardRecord(runID string, shard loadgen.Shard, s loadgen.Sample) results.Record {
	g := shard.Global(s.Index)
	idx := shard.Index
	r := results.Record{RunID: runID, Workload: "sharded", CaseID: fmt.Sprintf("case-%d", g%3), Repetition: g / 3,
		Shard: &idx, OK: s.OK(), Quality: results.Quality{OK: s.OK(), Issues: []string{}},
		Metrics: results.Metrics{TTFTms: s.TTFTms, TPOTms: s.TPOTms, E2ELms: s.E2ELms, GenTPS: s.GenTPS,
			CompletionTokens: s.CompletionTokens, ITLms: s.ITLms}}
	if s.HasOutput {
		r.Metrics.TTFOms = &s.TTFOms
	}
	if s.Err != nil {
		r.Error = s.Err.Error()
	}
	return r
}

// Four shards of one open-loop run, each in its own goroutine as it would
// be in its own process, against one fixture: every request reaches the
// server once, the shards together send the target rate, and the merged
// payload's statistics are those of one recomputation over every record.
// (The same with processes needs the CLI's --shard; see
// docs/distributed.md.)
func TestShardedRunMerges(t *testing.T) {
	const shards, rate, dur, seed, runID = 4, 200.0, 2 * time.Second, 42, "feedc0de"
	srv := fixtures.Start(t, fixtures.Options{})
	tr := stream.NewTransport(64)
	defer tr.CloseIdleConnections()
	c := &stream.Client{BaseURL: srv.URL, HTTP: &http.Client{Transport: tr}}

	runs := make([]*loadgen.Run, shards)
	scheduled := make([]int, shards) // arrivals before dur: fixed by the seed
	var wg sync.WaitGroup
	for i := range shards {
		sh := loadgen.Shard{Index: i, Count: shards}
		cfg, err := sh.Open(loadgen.Open{Rate: rate, Seed: seed, Duration: dur})
		require.NoError(t, err, "shard %s", sh)
		for _, at := range cfg.Schedule(int(cfg.Rate*dur.Seconds()*2) + 50) {
			if at >= dur {
				break
			}
			scheduled[i]++
		}
		fn := streamFunc(c, func(j int) stream.Request {
			// The global index travels in the prompt so the server's log
			// shows which request of the run it got.
			text := "request " + strconv.Itoa(sh.Global(j))
			return stream.Request{Model: srv.Model(), Messages: []map[string]any{{"role": "user", "content": text}}, MaxTokens: 8}
		})
		wg.Go(func() {
			run, err := loadgen.RunOpen(context.Background(), fn, cfg)
			assert.NoError(t, err, "shard %s", sh)
			runs[i] = run
		})
	}
	wg.Wait()

	// Every request once, at the server and in the results.
	var samples []loadgen.Sample
	var payloads []*results.Payload
	seen := map[int]bool{}
	for i, run := range runs {
		require.NotNil(t, run, "shard %d ran", i)
		// A client that falls behind stops sending DurationGrace after the
		// duration and counts the rest unsent (a busy machine does this);
		// what it did send is judged below all the same.
		if run.Unsent == 0 {
			assert.Len(t, run.Samples, scheduled[i], "shard %d sent its whole schedule", i)
		} else {
			assert.Less(t, len(run.Samples), scheduled[i], "shard %d counts unsent only what it did not send", i)
			t.Logf("shard %d fell behind: %d of its %d scheduled requests sent, %d counted unsent", i, len(run.Samples), scheduled[i], run.Unsent)
		}
		sh := loadgen.Shard{Index: i, Count: shards}
		var recs []results.Record
		for _, s := range run.Samples {
			g := sh.Global(s.Index)
			require.False(t, seen[g], "global request %d sent by one shard only", g)
			seen[g] = true
			require.True(t, s.OK(), "request %d: %v", g, s.Err)
			recs = append(recs, shardRecord(runID, sh, s))
		}
		samples = append(samples, run.Samples...)
		payloads = append(payloads, resultio.BuildPayload(resultio.PayloadInput{RunID: runID,
			Workload: results.WorkloadInfo{Name: "sharded", Path: "/w/sharded.json"}, Records: recs}))
	}
	var got []int
	for _, r := range srv.ChatRequests() {
		msgs := r.Body["messages"].([]any)
		text := msgs[0].(map[string]any)["content"].(string)
		g, err := strconv.Atoi(strings.TrimPrefix(text, "request "))
		require.NoError(t, err, "request text %q", text)
		got = append(got, g)
	}
	slices.Sort(got)
	assert.Equal(t, len(samples), len(got), "the server got one request per sample")
	assert.Equal(t, len(got), len(slices.Compact(slices.Clone(got))), "and no request twice")

	// The shards' schedules together hold the target rate: they are fixed
	// by the seed, so this count is the same on every run (what was sent
	// of it depends on the machine keeping up; see above).
	total := 0
	for _, n := range scheduled {
		total += n
	}
	assert.InEpsilon(t, rate, float64(total)/dur.Seconds(), 0.1, "merged schedule within 10%% of the target rate (%d requests in %v)", total, dur)

	// The merged payload's statistics are one recomputation over all
	// records, not a combination of the shards' summaries.
	merged, err := resultio.MergePayloads(payloads...)
	require.NoError(t, err, "merge")
	require.Len(t, merged.Results, len(samples), "every record once")
	assert.Equal(t, results.Summarize(merged.Results), merged.Summary, "summary = recomputation")
	whole := summary.Requests(samples, dur, summary.Options{})
	fromPayload := summary.Payload(merged)
	assert.Equal(t, whole.TTFT, fromPayload.TTFT, "TTFT distribution of the merged payload = of all samples")
	assert.Equal(t, whole.E2EL, fromPayload.E2EL, "E2EL distribution too")
	assert.Equal(t, whole.ITL.Count, fromPayload.ITL.Count, "every chunk gap kept")
}
