package bench_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
)

// benchContext is the fixture's context length in these benchmarks: room
// for a 2 MB prompt (about 420,000 of its tokens, one per word).
const benchContext = 1 << 20

// ceilingRates are the open-loop rates (req/s) of BenchmarkOpenLoopCeiling
// unless ceilingRatesEnv names others.
var ceilingRates = []float64{50, 200, 800}

// ceilingRatesEnv replaces ceilingRates with a comma-separated list
// (BENCHSERVE_CEILING_RATES=100,400,1600).
const ceilingRatesEnv = "BENCHSERVE_CEILING_RATES"

// ceilingSeconds is how long each rate's open loop runs.
const ceilingSeconds = 3

// rates returns ceilingRates or the ones ceilingRatesEnv names.
func rates(b *testing.B) []float64 {
	if r := envNumbers(b, ceilingRatesEnv, "rates > 0", func(r float64) bool { return r > 0 && !math.IsInf(r, 0) }); r != nil {
		return r
	}
	return ceilingRates
}

// BenchmarkOpenLoopCeiling sends an open loop (Poisson arrivals, seed 1)
// at each rate for 3 s against a fixture in another process
// (fixture=child) and reports what says whether the client kept up:
// lag-p50-ms and lag-p99-ms (send − due, loadgen's Sample.Lag, the
// figure a run's headroom is judged by), achieved-rps (loadgen's
// AchievedRate), peak-in-flight (streams open at once), client-cpu (the
// client's share of the machine's cores, loadgen's ClientUtil) and
// failed (requests that did not complete). Two answer shapes:
// answer=short is one token at once (the intake path: the most requests
// a second), answer=long 100 tokens 10 ms apart (each stream open about
// 1 s, so at 800 req/s about 800 streams at once).
func BenchmarkOpenLoopCeiling(b *testing.B) {
	shapes := []struct {
		name string
		sh   shape
	}{
		{"short", shape{Tokens: 1}},
		{"long", shape{Tokens: 100, TokenDelay: 10 * time.Millisecond}},
	}
	for _, s := range shapes {
		for _, rate := range rates(b) {
			b.Run(fmt.Sprintf("answer=%s/rate=%g", s.name, rate), func(b *testing.B) {
				srv := startServer(b, "child")
				defer srv.stop()
				// Room for every stream a rate keeps open even when a busy
				// machine stretches the long answers to 2 s, so that the
				// in-flight cap never holds a send back (the lag would be
				// the cap's, not the client's).
				conns := int(rate)*4 + 64
				raiseFileLimit(b, uint64(3*conns))
				c, tr, _ := newClient(srv.URL, conns)
				defer tr.CloseIdleConnections()
				req := s.sh.request()
				var p50, p99, achieved, cpu, peak, failed float64
				for b.Loop() {
					run, err := loadgen.RunOpen(context.Background(), func(ctx context.Context, i int) loadgen.Sample {
						_, err := c.ChatStream(ctx, req)
						return loadgen.Sample{Err: err}
					}, loadgen.Open{Rate: rate, Seed: 1, Duration: ceilingSeconds * time.Second, MaxInFlight: conns})
					if err != nil {
						b.Fatal(err)
					}
					lags := make([]float64, 0, len(run.Samples))
					for _, smp := range run.Samples {
						lags = append(lags, float64(smp.Lag)/1e6)
						if smp.Err != nil {
							failed++
						}
					}
					slices.Sort(lags)
					p50 += quantile(lags, 0.50)
					p99 += quantile(lags, 0.99)
					if r, ok, _ := run.AchievedRate(); ok {
						achieved += r
					}
					if u, ok := run.ClientUtil(); ok {
						cpu += u
					}
					peak = max(peak, float64(run.PeakInFlight))
				}
				n := float64(b.N)
				b.ReportMetric(p50/n, "lag-p50-ms")
				b.ReportMetric(p99/n, "lag-p99-ms")
				b.ReportMetric(achieved/n, "achieved-rps")
				b.ReportMetric(cpu/n, "client-cpu")
				b.ReportMetric(peak, "peak-in-flight")
				b.ReportMetric(failed/n, "failed")
			})
		}
	}
}

// quantile is the q-quantile of sorted by nearest rank (0 for none: the
// runs here always hold requests).
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// BenchmarkLargePrompt sends chat requests whose prompt is 200 KB or 2 MB
// of words (one token each for the fixture, 40,960 and 419,430 tokens),
// one at a time, against a fixture in another process whose context takes
// them, asking for one token, and reports req/s, MB/s of prompt sent and
// the client's cpu-ns/byte: what a long-context workload costs the client
// before the server's prefill. The fixture checks every prompt arrived
// whole: usage.prompt_tokens must be the word count.
func BenchmarkLargePrompt(b *testing.B) {
	for _, size := range []int{200 << 10, 2 << 20} {
		b.Run(fmt.Sprintf("prompt=%dKB", size>>10), func(b *testing.B) {
			srv := startServer(b, "child")
			defer srv.stop()
			c, tr, _ := newClient(srv.URL, 1)
			defer tr.CloseIdleConnections()
			prompt := strings.Repeat("word ", size/5)
			words := size / 5
			req := stream.Request{Model: fixtures.DefaultModel, MaxTokens: 1,
				Messages: []results.Message{{"role": "user", "content": prompt}}}
			user0, sys0 := cpuTime(b)
			sent := 0
			for b.Loop() {
				res, err := c.ChatStream(context.Background(), req)
				if err != nil {
					b.Fatal(err)
				}
				if res.Usage == nil || res.Usage.PromptTokens != words {
					b.Fatalf("usage %+v: want prompt_tokens %d (the whole prompt)", res.Usage, words)
				}
				sent += len(prompt)
			}
			user1, sys1 := cpuTime(b)
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
			b.ReportMetric(float64(sent)/1e6/b.Elapsed().Seconds(), "MB/s")
			b.ReportMetric(float64((user1-user0+sys1-sys0).Nanoseconds())/float64(sent), "cpu-ns/byte")
		})
	}
}
