package benchtest

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/benchserve/benchserve/internal/paths"
	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/serverinfo"
	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/internal/sweep"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// BenchWorkload loads the workload at path and benchmarks every case (of
// the configured tags) at every concurrency level, as sub-benchmarks
// case=<id>/conc=<n>. Each b.Loop iteration is one round of n concurrent
// streams of the case's request (a closed loop, every request judged by
// its case's checks as RunWorkload judges it),
// so Go's ns/op is the wall time of a round. After the loop it reports, with
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
	env := newBenchEnv(b, doorBenchWorkload, opts)
	w, err := workloads.Load(paths.ExpandHome(path))
	if err != nil {
		say(b).Fatalf("benchtest: %s", linesOf(err))
	}
	if w, err = runner.ExpandGenerator(w); err != nil {
		say(b).Fatalf("benchtest: %v", err)
	}
	// The sub-benchmarks pick cases before Start: calibrate them first,
	// so each prompt is its asked length as the server counts it.
	if w, err = env.r.Calibrate(b.Context(), w); err != nil {
		say(b).Fatalf("benchtest: %v", err)
	}
	for _, warning := range w.Warnings {
		say(b).Logf("benchtest: warning: %s", warning)
	}
	cases := w.Select(env.cfg.tags)
	if runner.IsTrace(w) && env.cfg.load == nil {
		say(b).Fatalf("benchtest: %s: a %s generator is streamed as load (a trace at its times, sessions turn by turn): give WithLoad(benchtest.Load{})", displayPath(path), w.Generator.Name)
	}
	if len(cases) == 0 && !runner.IsTrace(w) {
		say(b).Fatalf("benchtest: %s: no case has any of the tags %v", displayPath(path), env.cfg.tags)
	}
	if env.cfg.load != nil {
		// One load run of the whole mix per iteration: no per-case
		// sub-benchmarks, the figures are b's own.
		env.benchLoad(b, w)
		return
	}
	for _, c := range cases {
		b.Run("case="+c.ID, func(b *testing.B) {
			for _, n := range env.levels {
				b.Run(fmt.Sprintf("conc=%d", n), func(b *testing.B) {
					env.bench(b, w, n, func(int) workloads.Case { return c })
				})
			}
		})
	}
}

// BenchSweep benchmarks prompt sets (the builtin "short", "medium",
// "long" and "thinking", or prompt files as the CLI's --prompts reads
// them) at concurrency levels, as sub-benchmarks
// prompts=<set>/conc=<n> (a file is named by its base name without
// extension). Each b.Loop iteration is one round of n concurrent streams
// whose prompts are the set's first n entries taken round-robin (the
// reference's run_concurrent_requests), each prompt a case of
// workloads.FromPrompts (max_tokens results.DefaultMaxTokens, judged by the
// basic validation, the reference's validate_response), sent through the
// same engine as BenchWorkload. It reports the same metrics as
// BenchWorkload. A prompt set that does not load fails b at once.
func BenchSweep(b *testing.B, promptSets []string, concurrencies []int, opts ...Option) {
	b.Helper()
	env := newBenchEnv(b, doorBenchSweep, opts)
	levels := make([]int, 0, len(concurrencies))
	for _, n := range concurrencies {
		if n >= 1 {
			levels = append(levels, n)
		}
	}
	if len(levels) == 0 {
		levels = env.levels
	}
	for _, set := range promptSets {
		prompts, err := sweep.LoadPromptSetFrom(paths.ExpandHome(os.Getenv(envPromptsDir)), paths.ExpandHome(set))
		if err != nil {
			say(b).Fatalf("benchtest: %v", err)
		}
		w := workloads.FromPrompts(set, prompts, workloads.PromptOptions{})
		b.Run("prompts="+workloads.PromptSetLabel(set), func(b *testing.B) {
			for _, n := range levels {
				b.Run(fmt.Sprintf("conc=%d", n), func(b *testing.B) {
					env.bench(b, w, n, func(i int) workloads.Case { return w.Cases[i%len(w.Cases)] })
				})
			}
		})
	}
}

// benchEnv is the server, client and settings shared by one
// BenchWorkload or BenchSweep call.
type benchEnv struct {
	r          *runner.Runner
	cfg        config
	levels     []int
	thresholds []results.Threshold
	model      string
}

// newBenchEnv refuses the options door does not read, then connects to the server through the one engine (URL, API
// key, HTTP client, timeouts, model detection), with enough idle
// connections for the largest concurrency level.
func newBenchEnv(b *testing.B, door string, opts []Option) *benchEnv {
	b.Helper()
	cfg, err := resolve(opts)
	if err != nil {
		say(b).Fatalf("benchtest: configuration: %s", linesOf(err))
	}
	var extra map[string]string
	if cfg.load == nil {
		extra = map[string]string{"WithRepetitions": "a benchmark repeats its cases b.N times; with WithLoad, WithRepetitions is the passes over the cases of one load run"}
	}
	refuseInapplicable(b, cfg, door, extra)
	if cfg.output != "" || cfg.report != "" {
		say(b).Fatalf("benchtest: an output or report (WithOutput, WithReport, $%s, $%s) applies to RunWorkload; benchmarks report with b.ReportMetric", envOutput, envReport)
	}
	if cfg.baseline != nil {
		say(b).Fatalf("benchtest: Baseline applies to RunWorkload and RunConformance; compare benchmarks with benchstat")
	}
	if len(cfg.onRecord) > 0 {
		say(b).Fatalf("benchtest: OnRecord (and the snapshots built on it) applies to RunWorkload and RunConformance; a benchmark has no subtest per case")
	}
	env := &benchEnv{cfg: cfg}
	env.levels = cfg.concurrencyLevels
	if len(env.levels) == 0 {
		env.levels = []int{cfg.concurrency}
	}
	env.thresholds = cfg.thresholds
	conns := slices.Max(env.levels)
	if cfg.load != nil && cfg.load.MaxConcurrency > 0 {
		conns = max(conns, cfg.load.MaxConcurrency)
	}
	r := newRunner(b, cfg, conns)
	env.r = r
	env.model = r.Model()
	say(b).Attr("server", serverinfo.RedactURL(r.URL()))
	say(b).Attr("model", present.Name(env.model))
	return env
}

// maxLoggedFailures bounds the failures logged per sub-benchmark.
const maxLoggedFailures = 3

// bench runs the b.Loop of one sub-benchmark: rounds of n concurrent
// requests of pick(0), pick(1), … through the engine (a session of w,
// Session.RunRound: sent, judged and recorded as in RunWorkload, no side
// requests), then the metrics computed from the round's records and the
// thresholds.
func (env *benchEnv) bench(b *testing.B, w *workloads.Workload, n int, pick func(i int) workloads.Case) {
	b.Helper()
	ctx := b.Context()
	// preserve: a benchmark measures the server as it is; a cache reset per
	// request would be timed with it.
	sess, err := env.r.Start(ctx, w, runner.RunOptions{CachePolicy: "preserve"})
	if err != nil {
		say(b).Fatalf("benchtest: %v", err)
	}
	jobs := make([]runner.Job, n)
	for i := range jobs {
		jobs[i] = runner.Job{Case: pick(i)}
	}
	var (
		pool   summary.Pool
		logged []string
	)
	for round := 0; b.Loop(); round++ {
		rr, err := sess.RunRound(ctx, runner.Round{Jobs: jobs, Concurrency: n, NoScrape: true})
		if err != nil {
			say(b).Fatalf("benchtest: %v", err)
		}
		pool.Add(rr.Run) // the round's samples carry the records' one verdict
		for i, out := range rr.Outcomes {
			if rec := out.Record; rr.Sent[i] && rec.Outcome.Failed() && len(logged) < maxLoggedFailures {
				logged = append(logged, fmt.Sprintf("round %d, stream %d of %d failed (%s): %s", round, i, n, rec.ErrorKind, strings.Join(rec.Quality.Issues, "; ")))
			}
		}
	}
	st := pool.Stats(summary.Options{Goodput: env.cfg.goodput})
	for _, msg := range logged {
		say(b).Logf("benchtest: %s", msg)
	}
	reportStats(b, st)
	if summary.AllFailed(st) {
		// Latency figures of a server that answered nothing are not a
		// benchmark result; partial failures are reported in failures.
		say(b).Errorf("benchtest: every one of %d requests failed; the figures above measure errors, not the server", st.Requests)
	}
	for _, o := range summary.Evaluate(st, env.thresholds) {
		if !o.Pass {
			say(b).Errorf("benchtest: SLO %s: %s", o.Expr, o)
		}
	}
}

// benchLoad runs one load run (of the workload's cases) per b.Loop
// iteration and reports the pooled figures,
// the achieved rate, the client's lag and goodput.
func (env *benchEnv) benchLoad(b *testing.B, w *workloads.Workload) {
	b.Helper()
	ctx := b.Context()
	l := *env.cfg.load
	if l.Goodput == nil {
		l.Goodput = env.cfg.goodput
	}
	var (
		pool     summary.Pool
		failures []string
	)
	for b.Loop() {
		sess, err := env.r.Start(ctx, w, runner.RunOptions{Tags: env.cfg.tags, Repetitions: env.cfg.repetitions})
		if err != nil {
			say(b).Fatalf("benchtest: %v", err)
		}
		l.ClientLimits = clientLimits
		run, err := sess.RunLoad(ctx, l)
		if err != nil {
			say(b).Fatalf("benchtest: %v", err)
		}
		pool.Add(run)
		if sc := sess.Payload().Schedule; sc != nil {
			failStopped(b, sc)
			failClient(b, sc)
		}
		for _, rec := range sess.Payload().Results {
			if rec.Outcome.Failed() && len(failures) < maxLoggedFailures {
				failures = append(failures, fmt.Sprintf("%s/%d: %s", rec.CaseID, rec.Repetition, strings.Join(rec.Quality.Issues, "; ")))
			}
		}
	}
	st := pool.Stats(summary.Options{Goodput: l.Goodput})
	for _, f := range failures {
		say(b).Logf("benchtest: failed request %s", f)
	}
	reportStats(b, st)
	if rate, ok, reason := pool.SendRate(); ok {
		b.ReportMetric(rate, "achieved-req/s")
	} else {
		say(b).Logf("benchtest: achieved rate not reported: %s", reason)
	}
	if st.Lag.Count > 0 {
		b.ReportMetric(msToNs(st.Lag.P99), "lag-p99-ns/op")
	}
	b.ReportMetric(float64(st.Late), "late")
	if summary.AllFailed(st) {
		say(b).Errorf("benchtest: every one of %d requests failed; the figures above measure errors, not the server", st.Requests)
	}
	for _, o := range summary.Evaluate(st, env.thresholds) {
		if !o.Pass {
			say(b).Errorf("benchtest: SLO %s: %s", o.Expr, o)
		}
	}
}

// reportStats reports st on b with b.ReportMetric in the units
// BenchWorkload documents (ttft-ns/op, ttft-p50-ns/op, …, gen-tok/s,
// out-tok/s, req/s, failures, goodput-req/s when st has a GoodputSLO,
// untimed-decodes when requests were left out of tpot, itl and gen-tok/s
// because their decode span was not observable).
// Distributions without samples are not reported.
func reportStats(b *testing.B, st results.LoadStats) {
	b.Helper()
	for _, m := range []struct {
		name string
		d    results.Dist
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
		// one chunk or a burst (every chunk within 1 ms).
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
