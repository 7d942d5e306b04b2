package runner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/datasets"
	"github.com/benchserve/benchserve/internal/runner"
)

// writeTrace writes a Mooncake trace of n lines, two requests per
// timestamp 3 ms apart (0.3 s for 200 lines), each opening with block 0.
func writeTrace(t *testing.T, n int, bad string) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		if i == n-1 && bad != "" {
			b.WriteString(bad + "\n")
			continue
		}
		fmt.Fprintf(&b, `{"timestamp": %d, "input_length": 40, "output_length": %d, "hash_ids": [0, %d, %d]}`+"\n", i/2*3, 1+i%3, 2*i+1, 2*i+2)
	}
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o600))
	return path
}

func traceLoad(t *testing.T, path string, params map[string]any) runner.Load {
	t.Helper()
	g, err := datasets.New(datasets.Options{Name: "mooncake", Path: path, Seed: 1, Params: params})
	require.NoError(t, err)
	return runner.Load{Trace: &runner.Trace{Generator: g}}
}

// TestTraceReplaysAtItsTimestamps replays a 200-line trace at scale 1
// through the one load engine: every line is a request, sent at its
// timestamp, judged and recorded.
func TestTraceReplaysAtItsTimestamps(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	r := newRunner(t, srv)
	s, err := r.Start(context.Background(), load(t, `{"cases": [{"id": "unused", "messages": [{"role": "user", "content": "hi"}]}]}`), runner.RunOptions{})
	require.NoError(t, err)
	run, err := s.RunLoad(context.Background(), traceLoad(t, writeTrace(t, 200, ""), map[string]any{datasets.ParamTraceBlockSize: 16}))
	require.NoError(t, err, "trace replay")
	require.Len(t, run.Samples, 200, "every line sent")
	var lags []time.Duration
	for i, smp := range run.Samples {
		assert.Equal(t, time.Duration(i/2*3)*time.Millisecond, smp.Scheduled, "request %d scheduled at its timestamp", i)
		assert.GreaterOrEqual(t, smp.Sent, smp.Scheduled, "request %d not sent before its timestamp", i)
		assert.Empty(t, smp.Kind, "request %d: no failure: %v", i, smp.Err)
		lags = append(lags, smp.Lag)
	}
	slices.Sort(lags)
	// The tight figure is loadgen's BenchmarkOffsetsLag; here only what
	// the schedule recorded, bounded loosely: 200 streams under -race on
	// a busy 2-core machine measured a p99 of 1.5 s (the client could
	// not keep up, and the lag says so).
	assert.Less(t, lags[len(lags)*99/100], 10*time.Second, "lag p99 recorded by the schedule")

	p := s.Payload()
	require.Len(t, p.Results, 200, "one record per line")
	ids := map[string]bool{}
	for _, rec := range p.Results {
		ids[rec.CaseID] = true
		assert.True(t, rec.OK, "%s judged ok: %s", rec.CaseID, rec.Error)
		assert.NotNil(t, rec.LagMS, "%s carries its lag", rec.CaseID)
	}
	assert.True(t, ids["mooncake-0"] && ids["mooncake-199"], "records named by trace request")
	sc := p.Schedule
	require.NotNil(t, sc, "schedule block")
	assert.Equal(t, "trace", sc.Mode, "the trace's own schedule")
	assert.Nil(t, sc.TargetRate, "no target rate: the trace's times")
	assert.Equal(t, 200, sc.Sent, "sent")
	require.NotNil(t, sc.LagMS, "lag recorded")
}

func TestTraceRefusedBeforeSending(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	r := newRunner(t, srv)
	s, err := r.Start(context.Background(), load(t, `{"cases": [{"id": "unused", "messages": [{"role": "user", "content": "hi"}]}]}`), runner.RunOptions{})
	require.NoError(t, err)

	path := writeTrace(t, 50, `{"timestamp": 900, "input_length": 0, "output_length": 1}`)
	_, err = s.RunLoad(context.Background(), traceLoad(t, path, nil))
	assert.EqualError(t, err, "runner: load: "+path+`:50: field "input_length": 0: want at least 1 token`, "the last line's fault, found before the first request")
	assert.Empty(t, s.Payload().Results, "nothing sent")

	l := traceLoad(t, writeTrace(t, 5, ""), nil)
	l.Rate, l.Burstiness = 10, 2
	_, err = s.RunLoad(context.Background(), l)
	assert.ErrorContains(t, err, "a trace sets its own arrival times: leave the request rate out", "rate refused")
	assert.ErrorContains(t, err, "burstiness does not apply", "burstiness refused")
}

func TestTraceNumPromptsAndScale(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	r := newRunner(t, srv)
	s, err := r.Start(context.Background(), load(t, `{"cases": [{"id": "unused", "messages": [{"role": "user", "content": "hi"}]}]}`), runner.RunOptions{})
	require.NoError(t, err)
	l := traceLoad(t, writeTrace(t, 40, ""), map[string]any{datasets.ParamTraceScale: 10})
	l.Requests = 6
	run, err := s.RunLoad(context.Background(), l)
	require.NoError(t, err)
	require.Len(t, run.Samples, 6, "--num-prompts caps the trace")
	assert.Equal(t, 60*time.Millisecond, run.Samples[5].Scheduled, "timestamp 6 ms × scale 10")
}

// TestTraceCacheVerified: on the fixture (a prefix cache of 16-token
// blocks), a trace whose requests share hash ids reports cached tokens
// that match the reuse it was built with, request by request, and the
// summary sets the expected hit rate beside the server's.
func TestTraceCacheVerified(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	r := newRunner(t, srv)
	s, err := r.Start(context.Background(), load(t, `{"cases": [{"id": "unused", "messages": [{"role": "user", "content": "hi"}]}]}`), runner.RunOptions{})
	require.NoError(t, err)
	// Ids 0, 1 open every request; 2+i is each one's own. The requests are
	// 100 ms apart, so each is answered (and cached) before the next.
	var b strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, `{"timestamp": %d, "input_length": 48, "output_length": 2, "hash_ids": [0, 1, %d]}`+"\n", i*100, 2+i)
	}
	path := filepath.Join(t.TempDir(), "shared.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o600))
	l := traceLoad(t, path, map[string]any{datasets.ParamTraceBlockSize: 16})
	l.MaxConcurrency = 1 // one at a time: each request finds the previous one cached
	_, err = s.RunLoad(context.Background(), l)
	require.NoError(t, err)
	p := s.Payload()
	require.Len(t, p.Results, 6, "every line")
	for i, rec := range p.Results {
		require.NotNil(t, rec.Requested, "%s: built lengths recorded", rec.CaseID)
		require.NotNil(t, rec.Metrics.CachedTokens, "%s: the fixture reports cached tokens", rec.CaseID)
		want := 32
		if rec.CaseID == "mooncake-0" {
			want = 0
		}
		assert.Equal(t, want, rec.Requested.PrefixTokens, "%s (#%d): built to share blocks 0 and 1", rec.CaseID, i)
		assert.Equal(t, want, *rec.Metrics.CachedTokens, "%s: the server served them from its cache", rec.CaseID)
	}
	pc := p.Summary.PromptCache
	require.NotNil(t, pc, "the summary verifies the cache")
	assert.Equal(t, 6, pc.Reported, "all reported")
	assert.Equal(t, 160, pc.ExpectedTokens, "5 × 32 built to be cached")
	assert.Equal(t, 160, pc.CachedTokens, "and reported cached")
	assert.Zero(t, pc.BelowExpected, "none short")
	require.NotNil(t, pc.HitRate, "hit rate measured")
	assert.Equal(t, *pc.ExpectedRate, *pc.HitRate, "the server showed the reuse the trace was built to have")
	require.NotNil(t, p.Workload.Generator, "the payload names the trace")
	assert.Equal(t, "mooncake", p.Workload.Generator.Name)
	assert.Equal(t, path, p.Workload.Generator.Path)
}

// TestTraceFromTheWorkloadFile: a workload whose generator is a trace is
// not expanded into cases: RunLoad replays it at its times (the door's
// Load names nothing), and a sequential run says why it cannot.
func TestTraceFromTheWorkloadFile(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	r := newRunner(t, srv)
	path := writeTrace(t, 8, "")
	w := load(t, `{"generator": {"name": "mooncake", "dataset_path": "`+path+`", "seed": 3, "trace_block_size": 16}}`)
	assert.True(t, runner.IsTrace(w), "a trace generator")
	ex, err := runner.ExpandGenerator(w)
	require.NoError(t, err)
	assert.Empty(t, ex.Cases, "a trace is never expanded into cases")

	s, err := r.Start(context.Background(), w, runner.RunOptions{})
	require.NoError(t, err, "a workload of a trace alone starts")
	assert.ErrorContains(t, s.RunAll(context.Background(), nil), "a mooncake generator is streamed as load (RunLoad", "not case by case")
	run, err := s.RunLoad(context.Background(), runner.Load{})
	require.NoError(t, err)
	assert.Len(t, run.Samples, 8, "every line")
	assert.Equal(t, 9*time.Millisecond, run.Samples[7].Scheduled, "at its timestamp")
	p := s.Payload()
	require.NotNil(t, p.Workload.Generator, "the payload names the generator")
	assert.Equal(t, uint64(3), p.Workload.Generator.Seed, "and its seed")
	assert.Len(t, p.Results, 8, "one record a line")
}
