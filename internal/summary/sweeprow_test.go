package summary_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/internal/summary"
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
		want        summary.SweepRow
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
			want: summary.SweepRow{
				Valid: 2, TTFT: 200, TPOT: 25, E2E: 1500, GenTPS: 40, PromptTPS: 300,
				Throughput: 50, RPS: 1.5, Validated: true,
				Failed: 1, Reasons: []string{"stream: read: connection reset"},
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
			want: summary.SweepRow{
				Valid: 4, TTFT: 200, TPOT: 13, E2E: 2000, GenTPS: 50, PromptTPS: 550,
				Throughput: 50, RPS: 1, Validated: true,
			},
		},
		{
			name: "one_not_validated",
			reqs: []*results.Record{
				ok(100, 20, 1000, 50, 400, 40, true),
				ok(100, 20, 500, 50, 400, 40, false),
			},
			concurrency: 2,
			want: summary.SweepRow{
				Valid: 2, TTFT: 100, TPOT: 20, E2E: 750, GenTPS: 50, PromptTPS: 400,
				Throughput: 80, RPS: 2, Validated: false,
				Invalid: 1, Reasons: []string{"Empty response content"},
			},
		},
		{
			name: "errored_not_validated_does_not_count",
			reqs: []*results.Record{
				ok(100, 20, 250, 50, 400, 10, true),
				failed(),
			},
			concurrency: 2,
			want: summary.SweepRow{
				Valid: 1, TTFT: 100, TPOT: 20, E2E: 250, GenTPS: 50, PromptTPS: 400,
				Throughput: 40, RPS: 8, Validated: true,
				Failed: 1, Reasons: []string{"stream: read: connection reset"},
			},
		},
		{
			name: "zero_e2e_leaves_rates_zero",
			reqs: []*results.Record{
				ok(0, 0, 0, 0, 0, 0, true),
			},
			concurrency: 1,
			want:        summary.SweepRow{Valid: 1, Validated: true},
		},
		{
			name:        "all_errored",
			reqs:        []*results.Record{failed(), failed()},
			concurrency: 2,
			want:        summary.SweepRow{Failed: 2, Reasons: []string{"stream: read: connection reset"}},
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
			want: summary.SweepRow{
				Valid: 1, TTFT: 100, TPOT: 20, E2E: 1000, GenTPS: 50, PromptTPS: 400,
				Throughput: 40, RPS: 1, Validated: false, Capped: 1,
			},
		},
		{
			name:        "no_requests",
			reqs:        nil,
			concurrency: 1,
			want:        summary.SweepRow{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := summary.SweepRowOf(tc.reqs, tc.concurrency, true)
			assert.Equal(t, tc.want.Valid, got.Valid, "number of non-errored requests")
			assert.Equal(t, tc.want.TTFT, got.TTFT, "mean ttft (ms) over non-errored requests")
			assert.Equal(t, tc.want.TPOT, got.TPOT, "mean tpot (ms) over non-errored requests")
			assert.Equal(t, tc.want.E2E, got.E2E, "mean e2e latency (ms) over non-errored requests")
			assert.Equal(t, tc.want.GenTPS, got.GenTPS, "mean gen_tps over non-errored requests")
			assert.Equal(t, tc.want.PromptTPS, got.PromptTPS, "mean prompt_tps over non-errored requests")
			assert.Equal(t, tc.want.Throughput, got.Throughput, "throughput_tps = total completion tokens / slowest e2e (s)")
			assert.Equal(t, tc.want.RPS, got.RPS, "requests_per_s = concurrency / slowest e2e (s)")
			assert.Equal(t, tc.want.Validated, got.Validated, "validated = every non-errored request validated")
			got.Tokens = 0 // the completion-token total behind throughput, checked above
			assert.Equal(t, tc.want, got, "whole aggregation")
		})
	}
}
