package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/benchtest"
	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/capacity"
	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// doorsWorkload holds one answer of each kind a judge can get wrong: a
// tool call (an answer without content), a thinking model's reasoning
// only, a refusal, two choices (n = 2, each judged) and a failing check.
const doorsWorkload = `{"name": "doors", "cases": [
	{"id": "tool", "messages": [{"role": "user", "content": "What is the weather in Paris?"}],
	 "extra_body": {"tools": [{"type": "function", "function": {"name": "get_weather",
		"parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]},
	 "checks": {"tool_call_names": ["get_weather"]}},
	{"id": "thinker", "messages": [{"role": "user", "content": "[fixture:reasoning-only] Think."}]},
	{"id": "refusal", "messages": [{"role": "user", "content": "[fixture:refusal] Do it."}]},
	{"id": "two", "messages": [{"role": "user", "content": "Say hello."}], "extra_body": {"n": 2}},
	{"id": "short", "messages": [{"role": "user", "content": "Say hello."}], "checks": {"min_chars": 100000}}]}`

// doorsVerdict is what the one judge says of each case: pass, or the
// start of its first issue.
var doorsVerdict = map[string]string{
	"tool":    "",
	"thinker": "Truncated (finish_reason=length): the answer was reasoning only",
	"refusal": "refused: ",
	"two":     "",
	"short":   "content shorter than min_chars=100000",
}

// doorsOutcome is the engine's one verdict of each case
// (results.Record.Outcome): the reasoning-only answer ended by max_tokens
// in a case that states no finish_reason, so it is capped (not
// validated, not a failure) in every door.
var doorsOutcome = map[string]results.Outcome{
	"tool":    results.OutcomePass,
	"thinker": results.OutcomeCapped,
	"refusal": results.OutcomeFail,
	"two":     results.OutcomePass,
	"short":   results.OutcomeFail,
}

// doorsFailure is the start of the first issue of each case whose
// outcome fails the run ("" for pass and capped): what a benchmark
// logs.
func doorsFailure(verdicts map[string]string) map[string]string {
	out := map[string]string{}
	for id, v := range verdicts {
		if doorsOutcome[id].Failed() {
			out[id] = v
		}
	}
	return out
}

// doorsOrder is the cases in file order.
var doorsOrder = []string{"tool", "thinker", "refusal", "two", "short"}

// failedOfCycle is how many of n requests cycling through the cases (a
// load run's mix) fail by doorsOutcome.
func failedOfCycle(n int) int {
	failed := 0
	for i := range n {
		if doorsOutcome[doorsOrder[i%len(doorsOrder)]].Failed() {
			failed++
		}
	}
	return failed
}

// doorsChildEnv makes the Inner tests and benchmarks below run (in a
// child process of TestEveryDoorJudgesAlike).
const doorsChildEnv = "BENCHSERVE_DOORS_CHILD"

func TestDoorsInnerRunWorkload(t *testing.T) {
	if os.Getenv(doorsChildEnv) == "" {
		t.Skip("run by TestEveryDoorJudgesAlike in a child process")
	}
	benchtest.RunWorkload(t, os.Getenv("DOORS_WORKLOAD"))
}

func BenchmarkDoorsInnerWorkload(b *testing.B) {
	if os.Getenv(doorsChildEnv) == "" {
		b.Skip("run by TestEveryDoorJudgesAlike in a child process")
	}
	benchtest.BenchWorkload(b, os.Getenv("DOORS_WORKLOAD"))
}

func BenchmarkDoorsInnerSweep(b *testing.B) {
	if os.Getenv(doorsChildEnv) == "" {
		b.Skip("run by TestEveryDoorJudgesAlike in a child process")
	}
	benchtest.BenchSweep(b, strings.Split(os.Getenv("DOORS_PROMPTS"), ","), []int{1})
}

// runDoorsChild runs this test binary with args in dir, BENCHSERVE_URL set
// to url and env added, and returns its output.
func runDoorsChild(t *testing.T, dir, url string, args []string, env ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.count=1", "-test.v"}, args...)...)
	cmd.Dir = dir // RunWorkload marks a run against a URL uncacheable in its working directory
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BENCHSERVE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, append([]string{doorsChildEnv + "=1", "BENCHSERVE_URL=" + url}, env...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "the child test binary ran: %s", out)
	}
	return string(out)
}

// verdictOf is a record's verdict in doorsVerdict's terms.
func verdictOf(rec results.Record) string {
	if rec.OK {
		return ""
	}
	return rec.Quality.Issues[0]
}

// assertVerdicts checks one door's records against doorsVerdict.
func assertVerdicts(t *testing.T, door string, recs []results.Record) {
	t.Helper()
	require.Len(t, recs, len(doorsOrder), "%s: one record per case", door)
	for _, rec := range recs {
		want, ok := doorsVerdict[rec.CaseID]
		require.True(t, ok, "%s: case %q", door, rec.CaseID)
		assert.Equal(t, doorsOutcome[rec.CaseID], rec.Outcome, "%s: case %q: the one outcome", door, rec.CaseID)
		got := verdictOf(rec)
		if want == "" {
			assert.Empty(t, got, "%s: case %q passes", door, rec.CaseID)
			continue
		}
		assert.True(t, strings.HasPrefix(got, want), "%s: case %q: %q starts %q", door, rec.CaseID, got, want)
	}
}

// summaryDefinitions is what the one statistics definition says of a
// run's records, without the timings (which differ between runs): the
// summary's counts are the reference's (every quality.ok false, a capped
// answer included), the load statistics count the outcomes that fail.
func summaryDefinitions(p *results.Payload) [5]int {
	st := summary.Payload(p)
	return [5]int{p.Summary.CaseCount, p.Summary.FailureCount, p.Summary.QualityFailureCount, st.Failed, st.Errors[results.KindQuality]}
}

// TestEveryDoorJudgesAlike runs one workload (a tool call, a
// reasoning-only answer, a refusal, n = 2, a failing check) through every
// door against the fixture: the same request gets the same verdict and
// the run the same summary, whichever door it came through.
func TestEveryDoorJudgesAlike(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child test binaries")
	}
	srv := fixtures.Start(t, fixtures.Options{})
	dir := t.TempDir()
	wpath := writeWorkloadFile(t, dir, "doors.json", doorsWorkload)
	w, err := workloads.Load(wpath)
	require.NoError(t, err)

	// The engine itself: the reference the doors are held to.
	r, err := runner.New(context.Background(), runner.Config{URL: srv.URL})
	require.NoError(t, err)
	defer r.Close()
	engine, err := r.Run(context.Background(), w, runner.RunOptions{})
	require.NoError(t, err)
	assertVerdicts(t, "runner", engine.Results)
	want := summaryDefinitions(engine)
	assert.Equal(t, [5]int{5, 3, 3, 2, 2}, want, "5 requests, 3 not validated (the reference's summary), 2 failed (the outcomes the SLO statistics count)")

	t.Run("RunWorkload", func(t *testing.T) {
		out := filepath.Join(dir, "runworkload.json")
		log := runDoorsChild(t, dir, srv.URL, []string{"-test.run=^TestDoorsInnerRunWorkload$"}, "DOORS_WORKLOAD="+wpath, "BENCHSERVE_OUTPUT="+out)
		for _, id := range doorsOrder {
			verdict := "PASS"
			if doorsOutcome[id].Failed() {
				verdict = "FAIL"
			}
			assert.Contains(t, log, "--- "+verdict+": TestDoorsInnerRunWorkload/"+id, "subtest of case %q", id)
		}
		p := readPayload(t, out)
		assertVerdicts(t, "RunWorkload", p.Results)
		assert.Equal(t, want, summaryDefinitions(&p), "same summary definitions")
	})

	t.Run("CLI workload", func(t *testing.T) {
		out := filepath.Join(dir, "cli.json")
		res := invoke(t, "--url", srv.URL, "--workload", wpath, "--repetitions", "1", "--output", out)
		assert.Equal(t, ExitFailed, res.code, "failed cases exit 1")
		p := readPayload(t, out)
		assertVerdicts(t, "CLI workload", p.Results)
		assert.Equal(t, want, summaryDefinitions(&p), "same summary definitions")
	})

	// A benchmark prints its metrics line ("0 failures") when it passed;
	// when its request failed it logs the judge's reason instead.
	benchVerdicts := func(log, level string) map[string]string {
		got := map[string]string{}
		pass := regexp.MustCompile(`(?m)^BenchmarkDoorsInner\w+/` + level + `=(\S+?)/conc=1(?:-\d+)?\s.*?\s0 failures`)
		for _, m := range pass.FindAllStringSubmatch(log, -1) {
			got[m[1]] = ""
		}
		fail := regexp.MustCompile(`(?m)^BenchmarkDoorsInner\w+/` + level + `=(\S+?)/conc=1\n\s+bench\.go:\d+: benchtest: round 0, stream 0 of 1 failed \(quality\): (.*)$`)
		for _, m := range fail.FindAllStringSubmatch(log, -1) {
			got[m[1]] = m[2]
		}
		return got
	}
	assertBench := func(t *testing.T, door string, got map[string]string, want map[string]string, ids []string) {
		t.Helper()
		for _, id := range ids {
			v, ok := got[id]
			require.True(t, ok, "%s %s: a verdict", door, id)
			if want[id] == "" {
				assert.Empty(t, v, "%s %s passes", door, id)
				continue
			}
			assert.True(t, strings.HasPrefix(v, want[id]), "%s %s: %q starts %q", door, id, v, want[id])
		}
	}

	t.Run("BenchWorkload", func(t *testing.T) {
		log := runDoorsChild(t, dir, srv.URL, []string{"-test.run=^$", "-test.bench=^BenchmarkDoorsInnerWorkload$", "-test.benchtime=1x"}, "DOORS_WORKLOAD="+wpath)
		assertBench(t, "BenchWorkload", benchVerdicts(log, "case"), doorsFailure(doorsVerdict), doorsOrder)
	})

	// A prompt set carries messages only: the tool and n = 2 requests get
	// their extra body from --extra-body, and no case checks apply, so
	// "short" passes the basic validation; the verdicts are the one
	// judge's on these requests.
	prompts := map[string]string{}
	for _, c := range w.Cases {
		data, err := json.Marshal(c.Messages)
		require.NoError(t, err)
		prompts[c.ID] = writeWorkloadFile(t, dir, c.ID+".json", string(data))
	}
	promptVerdict := map[string]string{"tool": "", "thinker": doorsVerdict["thinker"], "refusal": doorsVerdict["refusal"], "two": "", "short": ""}
	extra := map[string]string{"tool": `{"tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]}`, "two": `{"n": 2}`}

	t.Run("BenchSweep", func(t *testing.T) {
		sets := []string{prompts["thinker"], prompts["refusal"], prompts["short"]}
		log := runDoorsChild(t, dir, srv.URL, []string{"-test.run=^$", "-test.bench=^BenchmarkDoorsInnerSweep$", "-test.benchtime=1x"}, "DOORS_PROMPTS="+strings.Join(sets, ","))
		assertBench(t, "BenchSweep", benchVerdicts(log, "prompts"), doorsFailure(promptVerdict), []string{"thinker", "refusal", "short"})
	})

	t.Run("CLI sweep", func(t *testing.T) {
		for _, id := range doorsOrder {
			args := []string{"--url", srv.URL, "--prompts", prompts[id], "--concurrency", "1", "--repetitions", "1",
				"--warmup", "0", "--skip-preflight-token-count", "--format", "json"}
			if extra[id] != "" {
				args = append(args, "--extra-body", extra[id])
			}
			res := invoke(t, args...)
			var rows []results.SweepResult
			require.NoError(t, json.Unmarshal([]byte(res.stdout), &rows), "%s: JSON rows", id)
			require.Len(t, rows, 1, "%s: one point", id)
			if promptVerdict[id] == "" {
				assert.True(t, rows[0].Validated, "%s: validated", id)
				assert.Equal(t, ExitOK, res.code, "%s", id)
				continue
			}
			assert.False(t, rows[0].Validated, "%s: not validated", id)
			if id == "thinker" {
				// A length ending is a capped answer to a sweep (the row is
				// not validated, the exit status ignores it), as the
				// reference's rows.
				assert.Contains(t, res.stderr, "1 of 1 answers capped by max_tokens", "%s: the row's line", id)
				continue
			}
			assert.Contains(t, res.stderr, promptVerdict[id], "%s: the judge's reason on the row's line", id)
		}
	})

	// Capacity: each probe is a load run of the cases; per request the
	// engine's records (SessionProbe's sessions), per probe the error rate
	// of the same verdicts.
	t.Run("CapacityProbe", func(t *testing.T) {
		var recs []results.Record
		probe := capacity.SessionProbe(r, w, runner.RunOptions{}, runner.Load{}, func(_ capacity.ProbeSpec, s *runner.Session) {
			recs = append(recs, s.Payload().Results...)
		})
		run, err := probe(context.Background(), capacity.ProbeSpec{By: capacity.ByConcurrency, Load: 1, Requests: len(doorsOrder)}, nopObserver{})
		require.NoError(t, err)
		assertVerdicts(t, "capacity probe", recs)
		assert.Equal(t, 2, summary.Run(run, summary.Options{}).Failed, "the probe's failures are the records' failing outcomes")
	})

	t.Run("SearchCapacity", func(t *testing.T) {
		res := benchtest.SearchCapacity(t, wpath, results.CapacitySearch{MaxErrorRate: 1,
			By: "concurrency", Start: 1, Max: 1, ProbeRequests: 2 * len(doorsOrder)}, 0, benchtest.WithSLO("error_rate <= 1"), benchtest.WithURL(srv.URL))
		require.NotEmpty(t, res.Probes)
		p := res.Probes[0]
		assert.Equal(t, failedOfCycle(p.Summary.Requests), p.Summary.Failed, "the failed verdicts of %d requests cycling the cases", p.Summary.Requests)
	})

	t.Run("CLI capacity", func(t *testing.T) {
		out := filepath.Join(dir, "capacity.json")
		res := invoke(t, "capacity", "--url", srv.URL, "--workload", wpath, "--slo", "error_rate <= 1", "--max-error-rate", "1",
			"--by", "concurrency", "--start", "1", "--max-rate", "1", "--probe-requests", strconv.Itoa(2*len(doorsOrder)), "--output", out)
		data, err := os.ReadFile(out)
		require.NoError(t, err, "capacity.json written: %s", res.stderr)
		var got results.Capacity
		require.NoError(t, json.Unmarshal(data, &got))
		require.NotEmpty(t, got.Probes)
		s := got.Probes[0].Summary
		assert.Equal(t, failedOfCycle(s.Requests), s.Failed, "the failed verdicts of %d requests cycling the cases", s.Requests)
	})
}

// nopObserver watches a capacity probe without stopping it.
type nopObserver struct{}

func (nopObserver) Sent(int, time.Duration) {}
func (nopObserver) Done(loadgen.Sample)     {}
