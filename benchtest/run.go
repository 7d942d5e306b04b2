package benchtest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchserve/benchserve/checks"
	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/load"
	"github.com/benchserve/benchserve/report"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/runner"
	"github.com/benchserve/benchserve/workload"
)

// RunWorkload loads the workload file at path and runs every case as a
// subtest of t named by its case id (case_id/rep=N with more than one
// repetition; conc=N/case_id when running N cases at once). Each subtest
// streams the case's chat completion, logs its measurements (ttft_ms,
// tpot_ms, e2e_latency_ms, gen_tps, …) and fails with one assertion per
// failed quality check, whose message names the file, the case, the check
// and what was wrong:
//
//	workloads/chat.json: case "greet": min_chars: content shorter than min_chars=40
//
// With no URL (option or $BENCHSERVE_URL) it starts the embedded fixture
// server. A workload that does not load fails t at once with every problem
// found. The returned payload holds every record (the reference's JSON
// contract); with an output file it is also written there, even when a
// subtest failed or the test was stopped early. Run-level SLO thresholds
// (the workload's defaults.slo and WithSLO) are checked last, each as a
// subtest slo/<threshold> that fails with the measured value. A run
// against a real server is never answered from go test's cache (see
// NoCacheFile).
func RunWorkload(t *testing.T, path string, opts ...Option) *results.Payload {
	t.Helper()
	cfg, err := resolve(opts)
	require.NoError(t, err, "benchtest: configuration")
	w, err := workload.Load(path)
	require.NoError(t, err, "benchtest: workload did not load")

	slos := append(append([]string(nil), w.SLO...), cfg.SLOs...)
	if _, err := load.ParseThresholds(slos...); err != nil {
		require.NoError(t, err, "benchtest: SLO thresholds")
	}
	url := serverURL(t, cfg)
	ctx := t.Context()
	r, err := runner.New(ctx, runner.Config{
		URL:            url,
		Model:          cfg.Model,
		APIKey:         cfg.APIKey,
		RequestTimeout: cfg.RequestTimeout,
		NoScrape:       cfg.NoScrape,
		IncludeContent: cfg.IncludeContent,
		Conns:          cfg.Concurrency,
	})
	require.NoError(t, err, "benchtest: server at %s", url)
	t.Cleanup(r.Close)
	policy, err := runner.ResolveCachePolicy(cfg.CachePolicy, w)
	require.NoError(t, err, "benchtest: %s: cache policy", path)
	cases := w.Select(cfg.Tags)
	require.NotEmpty(t, cases, "benchtest: %s: no case has any of the tags %v", path, cfg.Tags)
	require.NoError(t, subtestNamesUnique(path, cases), "benchtest: case ids")

	t.Attr("workload", w.Name)
	t.Attr("model", r.Model())
	t.Attr("server", url)
	if rt := r.Runtime().Server; rt != "" {
		t.Attr("runtime", rt)
	}

	run := &workloadRun{r: r, w: w, cfg: cfg, file: displayPath(path), policy: policy}
	run.payload = r.NewPayload(w, cfg.Repetitions, policy)
	// Registered before any case runs, so results already measured are
	// written even if a subtest panics or the test is stopped.
	t.Cleanup(func() { run.finish(t) })

	if policy == "before-run" {
		ev := r.ClearCache(ctx)
		run.payload.CachePolicy.Events = append(run.payload.CachePolicy.Events, results.CacheEvent{Scope: "before-run", Event: ev})
		if note := runner.CacheResetNote("before-run", ev); note != "" {
			t.Logf("benchtest: %s", note)
		}
	}
	if cfg.Concurrency > 1 {
		t.Run(fmt.Sprintf("conc=%d", cfg.Concurrency), func(t *testing.T) { run.concurrent(t, cases) })
	} else {
		for _, c := range cases {
			t.Run(c.ID, func(t *testing.T) {
				if cfg.Repetitions == 1 {
					run.report(t, run.execute(t.Context(), c, 0))
					return
				}
				for rep := range cfg.Repetitions {
					t.Run(fmt.Sprintf("rep=%d", rep), func(t *testing.T) {
						run.report(t, run.execute(t.Context(), c, rep))
					})
				}
			})
		}
	}
	p := run.snapshot()
	if len(slos) > 0 {
		outcomes, _ := CheckSLOs(t, PayloadStats(p), slos...)
		p.SLO = load.SLOResults(slos, outcomes)
		run.mu.Lock()
		run.payload.SLO = p.SLO // the output file written at cleanup has them too
		run.mu.Unlock()
	}
	noCache(t, cfg) // a real server's verdict must never come from go test's cache
	return p
}

// workloadRun is the state of one RunWorkload call.
type workloadRun struct {
	r      *runner.Runner
	w      *workload.Workload
	cfg    Config
	file   string
	policy string

	mu       sync.Mutex
	payload  *results.Payload
	finished bool
	// writeMu orders the checkpoint writes of concurrent cases.
	writeMu sync.Mutex
}

// execute runs one case repetition, applying a before-case cache reset,
// and records the outcome.
func (run *workloadRun) execute(ctx context.Context, c workload.Case, rep int) runner.Outcome {
	var reset *results.CacheReset
	if run.policy == "before-case" {
		ev := run.r.ClearCache(ctx)
		reset = &ev
		id, rp := c.ID, rep
		run.mu.Lock()
		run.payload.CachePolicy.Events = append(run.payload.CachePolicy.Events,
			results.CacheEvent{Scope: "before-case", CaseID: &id, Repetition: &rp, Event: ev})
		run.mu.Unlock()
	}
	out := run.r.RunCase(ctx, run.w, c, rep, reset)
	run.mu.Lock()
	run.payload.Results = append(run.payload.Results, out.Record)
	run.mu.Unlock()
	run.checkpoint()
	return out
}

// checkpoint rewrites a text output file (atomically) after every case, so
// a test killed by -timeout or Ctrl-C, where no cleanup runs, still leaves
// every result measured so far. SQLite outputs are appended once, at the
// end, so that a run is one transaction.
func (run *workloadRun) checkpoint() {
	if run.cfg.Output == "" || isSQLitePath(run.cfg.Output) {
		return
	}
	run.writeMu.Lock()
	defer run.writeMu.Unlock()
	_ = WriteResults(run.snapshot(), run.cfg.Output) // reported by the final write
}

// concurrent runs the cases (× repetitions) with at most cfg.Concurrency
// requests in flight, then reports each as its own subtest. The requests
// run in plain goroutines, not t.Parallel subtests, so the concurrency is
// exactly the one asked for whatever go test's -parallel is.
func (run *workloadRun) concurrent(t *testing.T, cases []workload.Case) {
	type job struct {
		c    workload.Case
		rep  int
		name string
		// done delivers the outcome; closed without one when -run or
		// -skip deselected the job, so its subtest can never block.
		done chan runner.Outcome
	}
	var jobs []job
	for _, c := range cases {
		for rep := range run.cfg.Repetitions {
			name := c.ID
			if run.cfg.Repetitions > 1 {
				name = fmt.Sprintf("%s/rep=%d", c.ID, rep)
			}
			jobs = append(jobs, job{c: c, rep: rep, name: name, done: make(chan runner.Outcome, 1)})
		}
	}
	ctx := t.Context()
	sem := make(chan struct{}, run.cfg.Concurrency)
	var wg sync.WaitGroup
	for _, j := range jobs {
		if !selectedByFlags(t.Name(), j.name) {
			close(j.done) // -run/-skip leaves it out: send no request
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			j.done <- run.execute(ctx, j.c, j.rep)
		}()
	}
	defer wg.Wait()
	for _, j := range jobs {
		t.Run(j.name, func(t *testing.T) {
			out, ok := <-j.done
			if !ok {
				t.Skip("benchtest: not selected by -run/-skip when the requests were scheduled")
			}
			run.report(t, out)
		})
	}
}

// report logs one outcome's measurements and turns every failed check
// and the request error into an assertion failure on t.
func (run *workloadRun) report(t *testing.T, out runner.Outcome) {
	t.Helper()
	rec := out.Record
	m := rec.Metrics
	// Without any token TTFT is not a measurement (the record keeps the
	// reference's TTFT = E2E); say so instead of printing a number.
	ttft := "none"
	if m.TokenChunks > 0 {
		ttft = fmt.Sprintf("%.1f", m.TTFTms)
		t.Attr("ttft_ms", fmt.Sprintf("%.3f", m.TTFTms))
	}
	if note := runner.CacheResetNote("before-case", rec.CacheReset); note != "" {
		t.Logf("benchtest: %s", note)
	}
	t.Logf("ttft_ms=%s tpot_ms=%s e2e_latency_ms=%.1f gen_tps=%s prompt_tokens=%d completion_tokens=%d finish_reason=%s cache_hits=%s tokens_saved=%s%s",
		ttft, rate(m.TPOTms, 2), m.E2ELms, rate(m.GenTPS, 1), m.PromptTokens, m.CompletionTokens,
		strOrNone(rec.Quality.FinishReason), intOrNA(m.CacheHits), intOrNA(m.TokensSaved), answerNote(rec))
	t.Attr("e2e_latency_ms", fmt.Sprintf("%.3f", m.E2ELms))
	prefix := fmt.Sprintf("%s: case %q", run.file, rec.CaseID)
	// The request error first: the failed checks after it are often
	// its consequences (no finish_reason, too short).
	if out.Err != nil {
		assert.Fail(t, fmt.Sprintf("%s: request error: %v", prefix, out.Err))
	}
	for _, is := range out.Issues {
		assert.Fail(t, prefix+": "+describeIssue(is, out))
	}
}

// snapshot returns a copy of the payload with its summary computed.
func (run *workloadRun) snapshot() *results.Payload {
	run.mu.Lock()
	defer run.mu.Unlock()
	p := *run.payload
	p.Results = append([]results.Record(nil), run.payload.Results...)
	run.r.Finish(&p)
	return &p
}

// finish writes the output file once, with whatever was measured.
func (run *workloadRun) finish(t *testing.T) {
	run.mu.Lock()
	if run.finished {
		run.mu.Unlock()
		return
	}
	run.finished = true
	run.mu.Unlock()
	p := run.snapshot()
	if run.cfg.Output != "" {
		run.writeMu.Lock()
		err := WriteResults(p, run.cfg.Output)
		run.writeMu.Unlock()
		if err != nil {
			t.Errorf("benchtest: %v", err)
		} else {
			t.Logf("benchtest: results written to %s", run.cfg.Output)
		}
	}
	if run.cfg.Report != "" {
		if err := report.WriteFile(run.cfg.Report, report.FromPayload(p, "")); err != nil {
			t.Errorf("benchtest: report: %v", err)
		} else {
			t.Logf("benchtest: report written to %s", run.cfg.Report)
		}
	}
}

// WriteResults writes p to path in the format its extension names: .csv,
// .sql, .txt (table), .db/.sqlite/.sqlite3 (SQLite, appended to the
// bench_serve_workload table), anything else JSON. A relative path is
// relative to the test's working directory (its package directory under
// go test); missing parent directories are created. Text files are written
// atomically (temporary file and rename), so an earlier file is never
// left truncated.
func WriteResults(p *results.Payload, path string) error {
	if isSQLitePath(path) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("benchtest: results: %w", err)
		}
		return results.WriteSQLite(p, path)
	}
	format := "json"
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		format = "csv"
	case ".sql":
		format = "sql"
	case ".txt", ".table":
		format = "table"
	}
	data, err := results.Format(p, format)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("benchtest: results: %w", err)
	}
	return results.WriteFileAtomic(path, data, 0o644)
}

func displayPath(path string) string {
	if filepath.IsAbs(path) {
		if wd, err := filepath.Abs("."); err == nil {
			if rel, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(rel, "..") {
				return rel
			}
		}
	}
	return path
}

func strOrNone(s *string) string {
	if s == nil {
		return "none"
	}
	return *s
}

func intOrNA(v *int64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprint(*v)
}

// describeIssue renders a failed check for a test failure: the check's
// field path, the reference's issue text, and the measured value that
// the text leaves out (content length, the start of the content).
func describeIssue(is checks.Issue, out runner.Outcome) string {
	label := "checks." + is.Check
	if is.Check == "response" {
		label = "response"
	}
	msg := is.Message
	if rest, ok := strings.CutPrefix(msg, is.Check); ok && is.Check != "response" {
		msg = label + rest
	} else {
		msg = label + ": " + msg
	}
	content := ""
	if out.Result != nil {
		content = out.Result.Content
	}
	switch is.Check {
	case "min_chars", "max_chars":
		msg += fmt.Sprintf(" (content has %d chars)", out.Record.Quality.ContentChars)
	case "required_regex", "forbidden_regex", "json":
		msg += fmt.Sprintf(" (content starts %q)", preview(content, 80))
	}
	return msg
}

// preview is the first n code points of s, with "…" when cut.
func preview(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos] + "…"
		}
		i++
	}
	return s
}

// isSQLitePath reports whether path names a SQLite output (.db, .sqlite,
// .sqlite3).
func isSQLitePath(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".db", ".sqlite", ".sqlite3":
		return true
	}
	return false
}

// selectedByFlags reports whether go test's -run and -skip patterns select
// the subtest parent/name (name may have several "/" levels), following
// the testing package's rules: the patterns are split at unbracketed "/",
// each element is an unanchored regexp matched against the same level of
// the name (spaces in names read as "_"); -run selects when every level it
// names matches, -skip deselects when all its levels match. The
// concurrent mode sends requests before its subtests run, so it asks this
// first; a job it keeps that go test then skips only costs a request.
func selectedByFlags(parent, name string) bool {
	elems := strings.Split(parent, "/")
	for _, e := range strings.Split(name, "/") {
		elems = append(elems, strings.ReplaceAll(e, " ", "_"))
	}
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() != "" {
		if !matchLevels(splitPattern(f.Value.String()), elems, true) {
			return false
		}
	}
	if f := flag.Lookup("test.skip"); f != nil && f.Value.String() != "" {
		if matchLevels(splitPattern(f.Value.String()), elems, false) {
			return false
		}
	}
	return true
}

// matchLevels matches pattern levels against name levels. With partial,
// a pattern deeper than the name matches on the levels both have (-run);
// without, the pattern must not be deeper than the name (-skip). An
// invalid regexp matches nothing, as go test would reject it anyway.
func matchLevels(pats, elems []string, partial bool) bool {
	if !partial && len(pats) > len(elems) {
		return false
	}
	for i, p := range pats {
		if i >= len(elems) {
			break
		}
		re, err := regexp.Compile(p)
		if err != nil || !re.MatchString(elems[i]) {
			return false
		}
	}
	return true
}

// splitPattern splits a -run/-skip pattern at "/" outside brackets and
// parentheses, as the testing package does.
func splitPattern(s string) []string {
	var out []string
	depth, cs := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[', '(':
			depth++
		case ']', ')':
			if depth > 0 {
				depth--
			}
		case '\\':
			i++
		case '/':
			if depth == 0 {
				out = append(out, s[cs:i])
				cs = i + 1
			}
		}
	}
	return append(out, s[cs:])
}

// subtestNamesUnique reports case ids that go test would turn into the
// same subtest name (it writes spaces as "_"), which would make -run and
// gotestsum's reruns pick the wrong case.
func subtestNamesUnique(path string, cases []workload.Case) error {
	seen := map[string]string{}
	for _, c := range cases {
		name := strings.ReplaceAll(c.ID, " ", "_")
		if prev, ok := seen[name]; ok {
			return fmt.Errorf("%s: case ids %q and %q both become the subtest name %q; rename one", path, prev, c.ID, name)
		}
		seen[name] = c.ID
	}
	return nil
}

// serverURL is the configured server, or a fixture server started for tb
// (closed by its cleanup) with cfg.Fixture's options when none is given.
func serverURL(tb testing.TB, cfg Config) string {
	if cfg.URL != "" {
		return cfg.URL
	}
	fo := fixtures.Options{}
	if cfg.Fixture != nil {
		fo = *cfg.Fixture
	}
	return fixtures.Start(tb, fo).URL
}
