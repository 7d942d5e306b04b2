package benchtest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"golang.org/x/perf/benchfmt"

	"github.com/benchserve/benchserve/benchtest"
	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/stats"
)

// childEnv selects, in a child test process, which of the benchmarks
// below that only make sense when run by a test actually run.
const childEnv = "BENCHTEST_BENCH_CHILD"

// fastFixture paces the fixture so a round takes a few milliseconds.
func fastFixture() fixtures.Options {
	return fixtures.Options{Timing: &fixtures.Timing{TTFT: time.Millisecond, TokenDelay: 50 * time.Microsecond}}
}

// leakCheck registers, first, a cleanup that runs last and checks that
// the test left no goroutine behind (package benchtest's TestMain belongs
// to its owner, so the check is per test here).
func leakCheck(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
}

func BenchmarkFixtureWorkload(b *testing.B) {
	if os.Getenv(childEnv) == "" {
		b.Skip("run by TestBenchWorkloadOutput in a child process; set " + childEnv + "=1 to run it directly")
	}
	benchtest.BenchWorkload(b, "../workloads/examples/smoke.json",
		benchtest.WithConcurrencyLevels(1, 2), benchtest.WithFixture(fastFixture()))
}

func BenchmarkFixtureSweep(b *testing.B) {
	if os.Getenv(childEnv) == "" {
		b.Skip("run by TestBenchSweepOutput in a child process")
	}
	file := filepath.Join(b.TempDir(), "my-prompts.json")
	if err := os.WriteFile(file, []byte(`[{"role":"user","content":"Say hi."}]`), 0o644); err != nil {
		b.Fatal(err)
	}
	benchtest.BenchSweep(b, []string{"short", file}, []int{1, 3}, benchtest.WithFixture(fastFixture()),
		benchtest.WithGoodput(stats.RequestSLO{TTFTms: 10_000}))
}

func BenchmarkFixtureSLO(b *testing.B) {
	if os.Getenv(childEnv) != "slo" {
		b.Skip("run by TestBenchWorkloadSLO in a child process")
	}
	benchtest.BenchWorkload(b, "../workloads/examples/smoke.json", benchtest.WithTags("chat"),
		benchtest.WithFixture(fastFixture()),
		benchtest.WithSLO("ttft_p95_ms <= 0.000001", "error_rate <= 0"))
}

// runChild runs this test binary's benchmarks matching pattern, one b.Loop
// iteration each, and returns the output.
func runChild(t *testing.T, pattern, mode string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$", "-test.bench="+pattern,
		"-test.benchtime=1x", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// parseBench reads go test -bench output with benchfmt (what benchstat
// uses) and returns the results by full name; a line benchfmt cannot
// parse fails t.
func parseBench(t *testing.T, out string) map[string]*benchfmt.Result {
	t.Helper()
	got := map[string]*benchfmt.Result{}
	r := benchfmt.NewReader(strings.NewReader(out), "child")
	for r.Scan() {
		switch rec := r.Result(); rec := rec.(type) {
		case *benchfmt.SyntaxError:
			assert.Fail(t, "benchfmt could not parse a line", "%v", rec)
		case *benchfmt.Result:
			got[string(rec.Name.Full())] = rec.Clone()
		}
	}
	require.NoError(t, r.Err(), "reading benchmark output")
	return got
}

var timeMetrics = []string{"ttft", "ttfo", "tpot", "itl", "e2el"}

// assertMetrics checks one result carries every metric, in units
// benchstat understands: the time metrics tidied from ns to sec.
func assertMetrics(t *testing.T, name string, res *benchfmt.Result, extra ...string) {
	t.Helper()
	units := map[string]benchfmt.Value{}
	for _, v := range res.Values {
		units[v.Unit] = v
	}
	want := []string{"sec/op", "gen-tok/s", "out-tok/s", "req/s", "failures"}
	for _, m := range timeMetrics {
		for _, stat := range []string{"", "-p50", "-p95", "-p99"} {
			want = append(want, m+stat+"-sec/op")
		}
	}
	want = append(want, extra...)
	for _, u := range want {
		v, ok := units[u]
		if zero, isZero := units[strings.TrimSuffix(u, "-sec/op")+"-ns/op"]; !ok && isZero && zero.Value == 0 {
			// A zero (every chunk gap within one read, under a loaded
			// machine) has no scale for benchstat to tidy: still reported.
			continue
		}
		if !assert.True(t, ok, "%s: benchstat sees unit %s (units: %v)", name, u, slices.Sorted(func(yield func(string) bool) {
			for k := range units {
				if !yield(k) {
					return
				}
			}
		})) {
			continue
		}
		if strings.HasSuffix(u, "-sec/op") {
			assert.Equal(t, strings.TrimSuffix(u, "-sec/op")+"-ns/op", v.OrigUnit, "%s: %s was reported in ns", name, u)
			assert.InDelta(t, v.OrigValue*1e-9, v.Value, 1e-15, "%s: %s tidied from ns to seconds", name, u)
		}
	}
	ttft, _ := res.Value("ttft-sec/op")
	e2el, _ := res.Value("e2el-sec/op")
	assert.Greater(t, ttft, 0.0005, "%s: TTFT (s) covers the fixture's scripted 1 ms", name)
	assert.Greater(t, e2el, ttft, "%s: end-to-end latency exceeds TTFT", name)
	fails, _ := res.Value("failures")
	assert.Zero(t, fails, "%s: the fixture answers every smoke case correctly", name)
	rps, _ := res.Value("req/s")
	assert.Greater(t, rps, 0.0, "%s: positive request throughput", name)
}

// gomaxprocs strips the -N suffix go test adds to benchmark names
// (benchfmt already strips the Benchmark prefix, as benchstat shows them).
var gomaxprocs = regexp.MustCompile(`-\d+$`)

func names(results map[string]*benchfmt.Result) []string {
	var out []string
	for n := range results {
		out = append(out, gomaxprocs.ReplaceAllString(n, ""))
	}
	slices.Sort(out)
	return out
}

func TestBenchWorkloadOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child benchmark process")
	}
	leakCheck(t)
	out, err := runChild(t, "^BenchmarkFixtureWorkload$", "1")
	require.NoError(t, err, "child benchmark run:\n%s", out)
	results := parseBench(t, out)
	assert.Equal(t, []string{
		"FixtureWorkload/case=explain-tides/conc=1",
		"FixtureWorkload/case=explain-tides/conc=2",
		"FixtureWorkload/case=greet/conc=1",
		"FixtureWorkload/case=greet/conc=2",
		"FixtureWorkload/case=multi-turn/conc=1",
		"FixtureWorkload/case=multi-turn/conc=2",
	}, names(results), "one sub-benchmark per case and concurrency level:\n%s", out)
	for name, res := range results {
		assertMetrics(t, name, res)
	}
}

func TestBenchSweepOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child benchmark process")
	}
	leakCheck(t)
	out, err := runChild(t, "^BenchmarkFixtureSweep$", "1")
	require.NoError(t, err, "child benchmark run:\n%s", out)
	results := parseBench(t, out)
	assert.Equal(t, []string{
		"FixtureSweep/prompts=my-prompts/conc=1",
		"FixtureSweep/prompts=my-prompts/conc=3",
		"FixtureSweep/prompts=short/conc=1",
		"FixtureSweep/prompts=short/conc=3",
	}, names(results), "one sub-benchmark per prompt set and concurrency level:\n%s", out)
	for name, res := range results {
		assertMetrics(t, name, res, "goodput-req/s")
	}
}

func TestBenchWorkloadSLO(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child benchmark process")
	}
	leakCheck(t)
	out, err := runChild(t, "^BenchmarkFixtureSLO$", "slo")
	require.Error(t, err, "an SLO no server can meet fails the benchmark:\n%s", out)
	assert.Regexp(t, `SLO ttft_p95_ms <= 0\.000001: ttft_p95_ms = [0-9.]+, want <= 1e-06`, out, "the failure carries the measured value")
	assert.NotContains(t, out, "SLO error_rate", "a met SLO does not fail")
	assert.Contains(t, out, "--- FAIL: BenchmarkFixtureSLO/case=multi-turn/conc=1", "the sub-benchmark fails")
}

func BenchmarkFixtureAllFail(b *testing.B) {
	if os.Getenv(childEnv) != "allfail" {
		b.Skip("run by TestBenchWorkloadAllFailedFails in a child process")
	}
	benchtest.BenchWorkload(b, "testdata/mixed.json", benchtest.WithTags("good"), benchtest.WithConcurrencyLevels(2),
		benchtest.WithFixture(fixtures.Options{Responder: func(fixtures.Request) fixtures.Script {
			return fixtures.Script{Status: 503, ErrorBody: `{"error":{"message":"overloaded"}}`}
		}}))
}

// TestBenchWorkloadAllFailedFails: a benchmark whose every request failed
// fails (its latency figures would measure errors), and its log names the
// round and the stream of each failure.
func TestBenchWorkloadAllFailedFails(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child benchmark process")
	}
	leakCheck(t)
	out, err := runChild(t, "^BenchmarkFixtureAllFail$", "allfail")
	require.Error(t, err, "every request failed: the benchmark must fail:\n%s", out)
	assert.Contains(t, out, "every one of 2 requests failed")
	assert.Contains(t, out, "round 0, stream 1 of 2 failed (http_5xx)", "failures named by round and stream")
	assert.Contains(t, out, "overloaded", "with the server's message")
}

// TestBenchWorkloadLoad runs BenchWorkload with a load (WithLoad) through
// testing.Benchmark and checks the load figures it reports.
func TestBenchWorkloadLoad(t *testing.T) {
	res := testing.Benchmark(func(b *testing.B) {
		benchtest.BenchWorkload(b, "../workloads/examples/smoke.json", benchtest.WithURL(""),
			benchtest.WithLoad(runner.Load{Rate: 100, Requests: 6, Seed: 1, Goodput: &stats.RequestSLO{E2ELms: 60_000}}))
	})
	require.Positive(t, res.N, "the benchmark ran")
	assert.Positive(t, res.Extra["achieved-req/s"], "achieved rate reported")
	assert.Contains(t, res.Extra, "lag-p99-ns/op", "the client's lag behind the schedule")
	assert.Contains(t, res.Extra, "late", "late requests, a count")
	assert.Positive(t, res.Extra["goodput-req/s"], "goodput against the per-request SLO: %v", res.Extra)
	assert.Equal(t, 0.0, res.Extra["failures"], "the smoke cases pass under load")
}
