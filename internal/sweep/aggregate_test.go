package sweep

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/results"
)

// ok is the record of a request that finished without error; not
// validated, it failed the basic validation.
func ok(ttft, tpot, e2e, gen, prompt float64, completion int, validated bool) *results.Record {
	rec := &results.Record{
		Metrics: results.Metrics{
			TTFTms: ttft, TPOTms: tpot, E2ELms: e2e, GenTPS: gen, PromptTPS: prompt,
			CompletionTokens: completion,
		},
		Quality: results.Quality{OK: validated},
		Outcome: results.OutcomePass,
	}
	if !validated {
		rec.Quality.Issues = []string{"Empty response content"}
		rec.Outcome, rec.ErrorKind = results.OutcomeFail, results.KindQuality
	}
	return rec
}

// failed is an errored request whose partial result has large values, so
// that counting it anywhere would move every expected figure.
func failed() *results.Record {
	return &results.Record{
		Metrics: results.Metrics{
			TTFTms: 9000, TPOTms: 900, E2ELms: 64000, GenTPS: 999, PromptTPS: 9999,
			CompletionTokens: 5000,
		},
		Error:     "stream: read: connection reset",
		Quality:   results.Quality{Issues: []string{"request error: stream: read: connection reset"}},
		Outcome:   results.OutcomeError,
		ErrorKind: results.KindTransport,
	}
}

// TestAggregate pins the sweep row's measured figures (reference: step i of
// run_bench_serve) on hand-built requests. Every value is exact in binary
// floating point, so the comparison is exact: means over the non-errored
// requests; throughput_tps = total completion tokens / slowest e2e (s);
// requests_per_s = concurrency / slowest e2e (s); validated = every
// non-errored request validated.
func TestAggregate(t *testing.T) {
	tests := []struct {
		name        string
		reqs        []*results.Record
		concurrency int
		want        aggregation
	}{
		{
			name: "two_ok_one_errored",
			reqs: []*results.Record{
				ok(100, 20, 1000, 50, 400, 40, true),
				failed(),
				ok(300, 30, 2000, 30, 200, 60, true),
			},
			concurrency: 3,
			// e2e mean 1500 ms but slowest 2000 ms: throughput 100 tokens / 2 s,
			// rps 3 / 2 s (3 / 1.5 s would be the mean-e2e mistake).
			want: aggregation{
				valid: 2, ttft: 200, tpot: 25, e2e: 1500, genTPS: 40, promptTPS: 300,
				throughput: 50, rps: 1.5, validated: true,
				failed: 1, reasons: []string{"stream: read: connection reset"},
			},
		},
		{
			name: "four_ok_uneven",
			reqs: []*results.Record{
				ok(50, 10, 500, 80, 1000, 10, true),
				ok(150, 12, 4000, 60, 600, 90, true),
				ok(250, 14, 1500, 40, 400, 50, true),
				ok(350, 16, 2000, 20, 200, 50, true),
			},
			concurrency: 4,
			// slowest 4 s: 200 tokens / 4 s = 50; 4 / 4 s = 1.
			want: aggregation{
				valid: 4, ttft: 200, tpot: 13, e2e: 2000, genTPS: 50, promptTPS: 550,
				throughput: 50, rps: 1, validated: true,
			},
		},
		{
			name: "one_not_validated",
			reqs: []*results.Record{
				ok(100, 20, 1000, 50, 400, 40, true),
				ok(100, 20, 500, 50, 400, 40, false),
			},
			concurrency: 2,
			want: aggregation{
				valid: 2, ttft: 100, tpot: 20, e2e: 750, genTPS: 50, promptTPS: 400,
				throughput: 80, rps: 2, validated: false,
				invalid: 1, reasons: []string{"Empty response content"},
			},
		},
		{
			name: "errored_not_validated_does_not_count",
			reqs: []*results.Record{
				ok(100, 20, 250, 50, 400, 10, true),
				failed(),
			},
			concurrency: 2,
			want: aggregation{
				valid: 1, ttft: 100, tpot: 20, e2e: 250, genTPS: 50, promptTPS: 400,
				throughput: 40, rps: 8, validated: true,
				failed: 1, reasons: []string{"stream: read: connection reset"},
			},
		},
		{
			name: "zero_e2e_leaves_rates_zero",
			reqs: []*results.Record{
				ok(0, 0, 0, 0, 0, 0, true),
			},
			concurrency: 1,
			want:        aggregation{valid: 1, validated: true},
		},
		{
			name:        "all_errored",
			reqs:        []*results.Record{failed(), failed()},
			concurrency: 2,
			want:        aggregation{failed: 2, reasons: []string{"stream: read: connection reset"}},
		},
		{
			name: "capped_by_max_tokens",
			reqs: []*results.Record{
				func() *results.Record {
					r := ok(100, 20, 1000, 50, 400, 40, false)
					fr := "length"
					r.Quality.FinishReason, r.Quality.Issues = &fr, []string{"Truncated (finish_reason=length)"}
					r.Outcome, r.ErrorKind = results.OutcomeCapped, ""
					return r
				}(),
			},
			concurrency: 1,
			// Not validated (the reference's rule), but counted as capped,
			// not as an invalid answer: the CLI's exit status ignores it.
			want: aggregation{
				valid: 1, ttft: 100, tpot: 20, e2e: 1000, genTPS: 50, promptTPS: 400,
				throughput: 40, rps: 1, validated: false, capped: 1,
			},
		},
		{
			name:        "no_requests",
			reqs:        nil,
			concurrency: 1,
			want:        aggregation{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := aggregate(tc.reqs, tc.concurrency, true)
			assert.Equal(t, tc.want.valid, got.valid, "number of non-errored requests")
			assert.Equal(t, tc.want.ttft, got.ttft, "mean ttft (ms) over non-errored requests")
			assert.Equal(t, tc.want.tpot, got.tpot, "mean tpot (ms) over non-errored requests")
			assert.Equal(t, tc.want.e2e, got.e2e, "mean e2e latency (ms) over non-errored requests")
			assert.Equal(t, tc.want.genTPS, got.genTPS, "mean gen_tps over non-errored requests")
			assert.Equal(t, tc.want.promptTPS, got.promptTPS, "mean prompt_tps over non-errored requests")
			assert.Equal(t, tc.want.throughput, got.throughput, "throughput_tps = total completion tokens / slowest e2e (s)")
			assert.Equal(t, tc.want.rps, got.rps, "requests_per_s = concurrency / slowest e2e (s)")
			assert.Equal(t, tc.want.validated, got.validated, "validated = every non-errored request validated")
			got.tokens = 0 // the completion-token total behind throughput, checked above
			assert.Equal(t, tc.want, got, "whole aggregation")
		})
	}
}

// TestRunCacheHitRate pins cache_hits, cache_misses, tokens_saved and
// cache_hit_rate = hits/(hits+misses) as deltas over one run, on the
// fixture's prefix cache (a request counts one hit when at least one
// 16-token block of its prompt prefix is cached, else one miss).
//
// The prompt set has a long prompt A (2 blocks with its role token) twice
// and a short prompt B (no full block, always a miss), sent at concurrency
// 3 with no warmup and no preflight. Repetition 0: the first A misses, the
// second hits 32 tokens, B misses: 1/3. Repetition 1: both As hit: 2/3.
func TestRunCacheHitRate(t *testing.T) {
	srv := fixtures.Start(t, fixtures.Options{})
	long := strings.TrimSpace(strings.Repeat("cached ", 31))
	require.Len(t, strings.Fields(long), 31, "prompt A is 31 words, 32 tokens with the role")
	set := `[[{"role":"user","content":"` + long + `"}],[{"role":"user","content":"` + long + `"}],[{"role":"user","content":"short one"}]]`
	path := filepath.Join(t.TempDir(), "cache.json")
	require.NoError(t, os.WriteFile(path, []byte(set), 0o600))

	r, err := runner.New(context.Background(), runner.Config{URL: srv.URL, Model: fixtures.DefaultModel})
	require.NoError(t, err, "connect")
	defer r.Close()
	outs, err := Run(context.Background(), r, Config{
		PromptSets: []string{path}, Concurrencies: []int{3},
		Repetitions: 2, SkipPreflightTokenCount: true, NoValidate: true,
	})
	require.NoError(t, err, "sweep against the fixture")
	require.Len(t, outs, 2, "one concurrency x two repetitions")

	assert.Equal(t, 1, outs[0].Row.CacheHits, "rep 0: the second A hits")
	assert.Equal(t, 2, outs[0].Row.CacheMisses, "rep 0: the first A and B miss")
	assert.Equal(t, 32, outs[0].Row.TokensSaved, "rep 0: one hit of 2 blocks of 16 tokens")
	assert.Equal(t, 1.0/3.0, outs[0].Row.CacheHitRate, "rep 0: hit rate 1/(1+2)")

	assert.Equal(t, 2, outs[1].Row.CacheHits, "rep 1: both As hit")
	assert.Equal(t, 1, outs[1].Row.CacheMisses, "rep 1: B misses")
	assert.Equal(t, 64, outs[1].Row.TokensSaved, "rep 1: two hits of 32 tokens")
	assert.Equal(t, 2.0/3.0, outs[1].Row.CacheHitRate, "rep 1: hit rate 2/(2+1)")
}
