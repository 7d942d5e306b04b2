package benchtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/benchserve/benchserve/checks"
	"github.com/benchserve/benchserve/loadgen"
	"github.com/benchserve/benchserve/runner"
	"github.com/benchserve/benchserve/serverinfo"
	"github.com/benchserve/benchserve/stats"
	"github.com/benchserve/benchserve/stream"
	"github.com/benchserve/benchserve/sweep"
	"github.com/benchserve/benchserve/workload"
)

// BenchWorkload loads the workload at path and benchmarks every case (of
// the configured tags) at every concurrency level, as sub-benchmarks
// case=<id>/conc=<n>. Each b.Loop iteration is one round of n concurrent
// streams of the case's request (closed loop, loadgen.RunClosed), so Go's
// ns/op is the wall time of a round. After the loop it reports, with
// b.ReportMetric, in units benchstat reads (times in ns, so benchstat
// shows them as times):
//
//	ttft-ns/op ttft-p50-ns/op ttft-p95-ns/op ttft-p99-ns/op   time to first token (mean, percentiles)
//	ttfo-…  tpot-…  itl-…  e2el-…                             likewise: first output, per output token, chunk gaps (pooled), end to end
//	gen-tok/s                                                 mean per-request generation speed
//	out-tok/s                                                 output tokens per second across the concurrent streams
//	req/s                                                     succeeded requests per second
//	failures                                                  failed requests (errors and failed quality checks), a count
//	goodput-req/s                                             with WithGoodput
//
// A distribution with no samples (no request had two tokens, say) is not
// reported. Failed requests are left out of the latency figures and
// counted in failures; the first few are logged. Configuration comes from
// the options and environment as for RunWorkload (no URL: the fixture
// server, see WithFixture); WithSLO thresholds are checked per
// sub-benchmark. A workload that does not load, or a server whose model
// cannot be determined, fails b at once.
func BenchWorkload(b *testing.B, path string, opts ...Option) {
	b.Helper()
	env := newBenchEnv(b, opts)
	w, err := workload.Load(path)
	if err != nil {
		b.Fatalf("benchtest: %v", err)
	}
	for _, warning := range w.Warnings {
		b.Logf("benchtest: warning: %s", warning)
	}
	cases := w.Select(env.cfg.tags)
	if len(cases) == 0 {
		b.Fatalf("benchtest: %s: no case has any of the tags %v", displayPath(path), env.cfg.tags)
	}
	if env.cfg.load != nil {
		// One load run of the whole mix per iteration: no per-case
		// sub-benchmarks, the figures are b's own.
		env.benchLoad(b, w)
		return
	}
	for _, c := range cases {
		req := runner.CaseRequest(env.model, c)
		check := func(res *stream.Result) string {
			issues := checks.Evaluate(c.Checks, checks.Response{StatusCode: 200,
				FinishReason: res.FinishReason, Content: res.Content, ToolCalls: res.ToolCalls})
			if len(issues) == 0 {
				return ""
			}
			return issues[0].Check + ": " + issues[0].Message
		}
		b.Run("case="+c.ID, func(b *testing.B) {
			for _, n := range env.levels {
				b.Run(fmt.Sprintf("conc=%d", n), func(b *testing.B) {
					env.bench(b, n, func(int) stream.Request { return req }, check)
				})
			}
		})
	}
}

// BenchSweep benchmarks prompt sets (sweep.LoadPromptSet names, such as
// "short", or files) at concurrency levels, as sub-benchmarks
// prompts=<set>/conc=<n> (a file is named by its base name without
// extension). Each b.Loop iteration is one round of n concurrent streams
// whose prompts are the set's first n entries taken round-robin (the
// reference's run_concurrent_requests), with max_tokens 256, validated
// like the reference's validate_response. It reports the same metrics as
// BenchWorkload. A prompt set that does not load fails b at once.
func BenchSweep(b *testing.B, promptSets []string, concurrencies []int, opts ...Option) {
	b.Helper()
	env := newBenchEnv(b, opts)
	levels := make([]int, 0, len(concurrencies))
	for _, n := range concurrencies {
		if n >= 1 {
			levels = append(levels, n)
		}
	}
	if len(levels) == 0 {
		levels = env.levels
	}
	check := func(res *stream.Result) string {
		if ok, msg := checks.Validate(checks.Response{StatusCode: 200, FinishReason: res.FinishReason, Content: res.Content}); !ok {
			return msg
		}
		return ""
	}
	for _, set := range promptSets {
		prompts, err := sweep.LoadPromptSetFrom(os.Getenv(EnvPromptsDir), set)
		if err != nil {
			b.Fatalf("benchtest: %v", err)
		}
		reqs := make([]stream.Request, len(prompts))
		for i, msgs := range prompts {
			reqs[i] = stream.Request{Model: env.model, Messages: msgs}
		}
		b.Run("prompts="+setName(set), func(b *testing.B) {
			for _, n := range levels {
				b.Run(fmt.Sprintf("conc=%d", n), func(b *testing.B) {
					env.bench(b, n, func(i int) stream.Request { return reqs[i%len(reqs)] }, check)
				})
			}
		})
	}
}

// setName names a prompt set in a benchmark name: a builtin name as is, a
// file by its base name without extension.
func setName(set string) string {
	if !strings.ContainsAny(set, `/\`) && filepath.Ext(set) == "" {
		return set
	}
	return strings.TrimSuffix(filepath.Base(set), filepath.Ext(set))
}

// benchEnv is the server, client and settings shared by one
// BenchWorkload or BenchSweep call.
type benchEnv struct {
	r          *runner.Runner
	cfg        config
	levels     []int
	thresholds []stats.Threshold
	client     *stream.Client
	model      string
}

// newBenchEnv connects to the server through the one engine (runner.New:
// URL, API key, HTTP client, timeouts, model detection), with enough idle
// connections for the largest concurrency level.
func newBenchEnv(b *testing.B, opts []Option) *benchEnv {
	b.Helper()
	cfg, err := resolve(opts)
	if err != nil {
		b.Fatalf("benchtest: configuration: %v", err)
	}
	if cfg.output != "" || cfg.report != "" {
		b.Fatalf("benchtest: an output or report (WithOutput, WithReport, $%s, $%s) applies to RunWorkload; benchmarks report with b.ReportMetric", EnvOutput, EnvReport)
	}
	env := &benchEnv{cfg: cfg}
	env.levels = cfg.concurrencyLevels
	if len(env.levels) == 0 {
		env.levels = []int{cfg.concurrency}
	}
	if env.thresholds, err = stats.ParseThresholds(cfg.slos...); err != nil {
		b.Fatalf("benchtest: %v", err)
	}
	conns := slices.Max(env.levels)
	if cfg.load != nil && cfg.load.MaxConcurrency > 0 {
		conns = max(conns, cfg.load.MaxConcurrency)
	}
	r := newRunner(b, cfg, conns)
	env.r = r
	env.client = r.Client()
	env.model = r.Model()
	b.Attr("server", serverinfo.RedactURL(r.URL()))
	b.Attr("model", env.model)
	return env
}

// maxLoggedFailures bounds the failures logged per sub-benchmark.
const maxLoggedFailures = 3

// bench runs the b.Loop of one sub-benchmark: rounds of n concurrent
// requests, then the metrics and the thresholds.
func (env *benchEnv) bench(b *testing.B, n int, pick func(i int) stream.Request, check func(*stream.Result) string) {
	b.Helper()
	ctx := b.Context()
	fn := func(ctx context.Context, i int) loadgen.Sample {
		res, err := env.client.ChatStream(ctx, pick(i))
		s := loadgen.SampleOf(res, err)
		if err == nil && res != nil {
			if msg := check(res); msg != "" {
				s.Kind, s.Err = stats.KindQuality, fmt.Errorf("quality check: %s", msg)
			}
		}
		return s
	}
	var (
		samples []loadgen.Sample
		rounds  []int // the round of each sample, for the failure log
		elapsed time.Duration
		peak    int
	)
	for b.Loop() {
		run, err := loadgen.RunClosed(ctx, fn, loadgen.Closed{Concurrency: n, Requests: n})
		if err != nil {
			b.Fatalf("benchtest: %v", err)
		}
		for range run.Samples {
			rounds = append(rounds, len(rounds)/max(n, 1))
		}
		samples = append(samples, run.Samples...)
		elapsed += run.Duration
		peak = max(peak, run.PeakInFlight)
	}
	st := loadgen.Summarize(samples, elapsed, loadgen.StatsOptions{Goodput: env.cfg.goodput})
	st.PeakInFlight = peak
	logged, failed := 0, 0
	for i, s := range samples {
		if s.OK() {
			continue
		}
		failed++
		if logged < maxLoggedFailures {
			b.Logf("benchtest: round %d, stream %d of %d failed (%s): %v", rounds[i], s.Index, n, s.Kind, s.Err)
			logged++
		}
	}
	ReportStats(b, st)
	if len(samples) > 0 && failed == len(samples) {
		// Latency figures of a server that answered nothing are not a
		// benchmark result; partial failures are reported in failures.
		b.Errorf("benchtest: every one of %d requests failed; the figures above measure errors, not the server", len(samples))
	}
	for _, o := range stats.Evaluate(st, env.thresholds) {
		if !o.Pass {
			b.Errorf("benchtest: SLO %s: %s", o.Expr, o)
		}
	}
}

// benchLoad runs one load run (runner.Session.RunLoad over the
// workload's cases) per b.Loop iteration and reports the pooled figures,
// the achieved rate, the client's lag and goodput.
func (env *benchEnv) benchLoad(b *testing.B, w *workload.Workload) {
	b.Helper()
	ctx := b.Context()
	l := *env.cfg.load
	if l.Goodput == nil {
		l.Goodput = env.cfg.goodput
	}
	var (
		samples  []loadgen.Sample
		elapsed  time.Duration
		late     int
		gaps     int
		window   time.Duration
		failures []string
	)
	for b.Loop() {
		sess, err := env.r.Start(ctx, w, runner.RunOptions{Tags: env.cfg.tags, Repetitions: env.cfg.repetitions})
		if err != nil {
			b.Fatalf("benchtest: %v", err)
		}
		run, err := sess.RunLoad(ctx, l)
		if err != nil {
			b.Fatalf("benchtest: %v", err)
		}
		samples = append(samples, run.Samples...)
		elapsed += run.Duration
		late += run.Late
		gaps += max(run.Sent-1, 0) // the arrivals' own rate, over each run's sending window
		window += run.LastSent - run.FirstSent
		for _, rec := range sess.Payload().Results {
			if !rec.OK && len(failures) < maxLoggedFailures {
				failures = append(failures, fmt.Sprintf("%s/%d: %s", rec.CaseID, rec.Repetition, strings.Join(rec.Quality.Issues, "; ")))
			}
		}
	}
	st := loadgen.Summarize(samples, elapsed, loadgen.StatsOptions{Goodput: l.Goodput})
	for _, f := range failures {
		b.Logf("benchtest: failed request %s", f)
	}
	ReportStats(b, st)
	if rate, ok, reason := stats.SendRate(gaps+1, window); ok {
		b.ReportMetric(rate, "achieved-req/s")
	} else {
		b.Logf("benchtest: achieved rate not reported: %s", reason)
	}
	if st.Lag.Count > 0 {
		b.ReportMetric(msToNs(st.Lag.P99), "lag-p99-ns/op")
	}
	b.ReportMetric(float64(late), "late")
	if len(samples) > 0 && st.Failed == len(samples) {
		b.Errorf("benchtest: every one of %d requests failed; the figures above measure errors, not the server", len(samples))
	}
	for _, o := range stats.Evaluate(st, env.thresholds) {
		if !o.Pass {
			b.Errorf("benchtest: SLO %s: %s", o.Expr, o)
		}
	}
}

// ReportStats reports st on b with b.ReportMetric in the units
// BenchWorkload documents (ttft-ns/op, ttft-p50-ns/op, …, gen-tok/s,
// out-tok/s, req/s, failures, goodput-req/s when st has a GoodputSLO,
// untimed-decodes when requests were left out of tpot, itl and gen-tok/s
// because their decode span was not observable).
// Use it to report a loadgen.RunClosed or loadgen.RunOpen run from your own
// benchmark. Distributions without samples are not reported.
func ReportStats(b *testing.B, st stats.Stats) {
	b.Helper()
	for _, m := range []struct {
		name string
		d    stats.Dist
	}{{"ttft", st.TTFT}, {"ttfo", st.TTFO}, {"tpot", st.TPOT}, {"itl", st.ITL}, {"e2el", st.E2EL}} {
		if m.d.Count == 0 {
			continue
		}
		b.ReportMetric(msToNs(m.d.Mean), m.name+"-ns/op")
		b.ReportMetric(msToNs(m.d.P50), m.name+"-p50-ns/op")
		b.ReportMetric(msToNs(m.d.P95), m.name+"-p95-ns/op")
		b.ReportMetric(msToNs(m.d.P99), m.name+"-p99-ns/op")
	}
	if st.GenTPS.Count > 0 {
		b.ReportMetric(st.GenTPS.Mean, "gen-tok/s")
	}
	if st.DecodeSkipped > 0 {
		// Requests left out of tpot, itl and gen-tok/s: every token in
		// one chunk or a burst (stream.MinDecodeSpan).
		b.ReportMetric(float64(st.DecodeSkipped), "untimed-decodes")
	}
	b.ReportMetric(st.OutputThroughput, "out-tok/s")
	b.ReportMetric(st.RequestThroughput, "req/s")
	b.ReportMetric(float64(st.Failed+st.Dropped), "failures")
	if st.GoodputSLO != nil {
		b.ReportMetric(st.Goodput, "goodput-req/s")
	}
}

func msToNs(ms float64) float64 { return ms * float64(time.Millisecond) }
