package benchtest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchserve/benchserve/checks"
	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/paths"
	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/serverinfo"
	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// RunWorkload loads the workload file at path and runs every case as a
// subtest of t named by its case id (case_id/rep=N with more than one
// repetition; conc=N/case_id when running N cases at once). Each subtest
// streams the case's chat completion, logs its measurements (ttft_ms,
// tpot_ms, e2e_latency_ms, gen_tps, …) and fails with one assertion per
// failed quality check, whose message names the file, the case, the check
// and what was wrong:
//
//	workloads/examples/smoke.json: case "greet": checks.min_chars: content shorter than min_chars=40 (content has 12 chars)
//
// With no URL (option or $BENCHSERVE_URL) it starts the embedded fixture
// server. A workload that does not load fails t at once with every problem
// found. The returned payload holds every record (the reference's JSON
// contract); with an output file it is also written there, even when a
// subtest failed or the test was stopped early. Run-level SLO thresholds
// (the workload's defaults.slo and WithSLO) are checked last, each as a
// subtest slo/<threshold> that fails with the measured value. A run
// against a real server (a URL given) is never answered from go test's
// cache: it touches a marker file, .benchserve-nocache, in the test's
// working directory, with a modification time ahead, so cmd/go does not
// cache the result (README "No stale verdicts"); SearchCapacity does the
// same.
func RunWorkload(t *testing.T, path string, opts ...Option) *results.Payload {
	t.Helper()
	cfg, err := resolve(opts)
	if err != nil {
		say(t).Fatalf("benchtest: configuration: %s", linesOf(err))
	}
	refuseInapplicable(t, cfg, doorRunWorkload, nil)
	if len(cfg.concurrencyLevels) > 0 {
		say(t).Fatalf("benchtest: WithConcurrencyLevels applies to BenchWorkload; RunWorkload runs at one concurrency (WithConcurrency)")
	}
	path = paths.ExpandHome(path)
	w, err := workloads.Load(path)
	if err != nil {
		say(t).Fatalf("benchtest: workload did not load: %s", linesOf(err))
	}
	return runWorkload(t, cfg, w, path)
}

// runWorkload is RunWorkload on a loaded workload (path names it in
// messages).
func runWorkload(t *testing.T, cfg config, w *workloads.Workload, path string) *results.Payload {
	t.Helper()
	if cfg.strict {
		runner.StrictContracts(w)
	}
	if runner.IsTrace(w) && cfg.load == nil {
		say(t).Fatalf("benchtest: %s: a %s generator is streamed as load (a trace at its times, sessions turn by turn): give WithLoad(benchtest.Load{})", displayPath(path), w.Generator.Name)
	}
	for _, warning := range w.Warnings {
		say(t).Logf("benchtest: warning: %s", warning)
	}
	named := cfg.output
	cfg.output = outputPath(cfg.output, t.Name())
	if named != cfg.output && (strings.HasSuffix(named, "/") || isDir(named)) {
		// An output naming a directory (BENCHSERVE_OUTPUT=out/) is the
		// directory the user asked for: it is made here, and its files
		// are then checked as any output.
		if err := os.MkdirAll(named, 0o755); err != nil {
			say(t).Fatalf("benchtest: output directory %s: %v", named, err)
		}
	}
	for _, out := range []string{cfg.output, cfg.report} {
		if out != "" {
			// The one output pre-check, as the CLI's: before anything is sent.
			if err := resultio.CheckOutput(out, ""); err != nil {
				say(t).Fatalf("benchtest: output %v (checked before any request is sent)", err)
			}
		}
	}
	for _, out := range []string{cfg.output, cfg.report} {
		for _, in := range w.InputFiles() {
			if out != "" && resultio.SameFile(out, in) {
				say(t).Fatalf("benchtest: output %s is the same file as the workload input %s: writing the results would destroy it; choose another %s or %s", out, in, envOutput, envReport)
			}
		}
	}
	r := newRunner(t, cfg, cfg.concurrency)
	file := displayPath(path)
	run := &workloadRun{cfg: cfg, file: file}
	// Stop sending shortly before go test's -timeout would panic the
	// binary (no cleanup runs then): the case in flight is recorded as
	// interrupted, the rest are skipped, and the output is written.
	ctx := t.Context()
	if dl, ok := t.Deadline(); ok {
		grace := min(5*time.Second, time.Until(dl)/10)
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, dl.Add(-grace))
		t.Cleanup(cancel)
	}
	run.ctx = ctx
	sess, err := r.Start(ctx, w, runner.RunOptions{
		Repetitions: cfg.repetitions,
		Concurrency: cfg.concurrency,
		CachePolicy: cfg.cachePolicy,
		Tags:        cfg.tags,
		SLOs:        cfg.thresholds,
		Include: func(j runner.Job) bool {
			return cfg.concurrency == 1 || selectedByFlags(t.Name()+"/"+concName(cfg.concurrency), j.Name(max(cfg.repetitions, 1)))
		},
		Progress: func(out runner.Outcome, _, _ int) {
			if run.onOutcome != nil {
				run.onOutcome(out)
			}
		},
		Journal: journalFor(cfg.output),
		CacheReset: func(ev results.CacheEvent) {
			if ev.Scope == "before-run" {
				if note := runner.CacheResetNote("before-run", ev.Event); note != "" {
					say(t).Logf("benchtest: %s", note)
				}
			}
		},
	})
	if err != nil {
		say(t).Fatalf("benchtest: %v", err)
	}
	if err := subtestNamesUnique(path, sess.Jobs()); err != nil {
		say(t).Fatalf("benchtest: case ids: %v", err)
	}
	run.sess = sess
	if _, moved := sess.Journal(); moved != "" {
		say(t).Logf("benchtest: an earlier run's journal was moved to %s (it holds the cases of a run that did not finish; benchserve recover turns it into a results file)", moved)
	}
	say(t).Attr("workload", present.Name(w.Name))
	say(t).Attr("model", present.Name(r.Model()))
	say(t).Attr("server", serverinfo.RedactURL(r.URL()))
	if rt := r.Runtime().Server; rt != "" {
		say(t).Attr("runtime", present.Name(rt))
	}
	// Registered before any case runs, so results already measured are
	// written even if a subtest panics or the test is stopped.
	t.Cleanup(func() { run.finish(t) })

	reps := sess.Repetitions()
	if cfg.load != nil {
		t.Run("load", func(t *testing.T) { run.load(t, *cfg.load) })
	} else if cfg.concurrency > 1 {
		// The requests go out from plain goroutines (not t.Parallel
		// subtests), so the concurrency is exactly the one asked for
		// whatever go test's -parallel is; each outcome is then reported
		// as its own subtest, in the reference's order.
		t.Run(concName(cfg.concurrency), func(t *testing.T) {
			outs := make(chan func(), len(sess.Jobs()))
			go func() {
				_ = sess.RunAll(ctx, func(j runner.Job, out runner.Outcome, ok bool) {
					outs <- func() {
						t.Run(j.Name(reps), func(t *testing.T) {
							if !ok {
								say(t).Skipf("benchtest: not selected by -run/-skip when the requests were scheduled")
							}
							run.report(t, out)
						})
					}
				})
				close(outs)
			}()
			for report := range outs {
				report()
			}
		})
	} else {
		for _, c := range runner.UniqueCases(sess.Jobs()) {
			t.Run(c.ID, func(t *testing.T) {
				for _, j := range sess.Jobs() {
					if j.Case.ID != c.ID {
						continue
					}
					if reps == 1 {
						run.executeAndReport(t, j)
						continue
					}
					t.Run(fmt.Sprintf("rep=%d", j.Rep), func(t *testing.T) { run.executeAndReport(t, j) })
				}
			})
		}
	}
	p := sess.Payload()
	if slos := sess.SLOs(); len(slos) > 0 {
		reportSLOs(t, nil, sess.Outcomes(p))
	}
	if cfg.baseline != nil {
		cfg.baseline.check(t, cfg.baseline, p)
	}
	noCache(t, cfg) // a real server's verdict must never come from go test's cache
	return p
}

// newRunner connects to the configured server (starting the fixture when
// no URL is set) with conns idle connections, failing tb with the
// runner's message when no model can be determined.
func newRunner(tb testing.TB, cfg config, conns int) *runner.Runner {
	tb.Helper()
	url := serverURL(tb, cfg)
	r, err := runner.New(tb.Context(), runner.Config{
		URL:            url,
		Model:          cfg.model,
		APIKey:         cfg.apiKey,
		RequestTimeout: cfg.requestTimeout,
		NoScrape:       cfg.noScrape,
		IncludeContent: cfg.includeContent,
		Conns:          conns,
		RunID:          cfg.runID,
		Warn:           func(msg string) { say(tb).Logf("benchtest: warning: %s", msg) },
		Note:           func(msg string) { say(tb).Logf("benchtest: note: %s", msg) },
	})
	if err != nil {
		say(tb).Fatalf("benchtest: %v", err)
	}
	tb.Cleanup(r.Close)
	return r
}

func concName(n int) string { return fmt.Sprintf("conc=%d", n) }

// workloadRun is the state of one RunWorkload call around its session.
type workloadRun struct {
	sess *runner.Session
	cfg  config
	file string

	// ctx ends shortly before the test's deadline (-timeout).
	ctx context.Context
	// onOutcome, when set, sees every outcome (the load mode's failures).
	onOutcome func(runner.Outcome)

	mu       sync.Mutex
	finished bool
}

// journalFor is the journal of an output: every finished case is
// appended to it at once, so a test stopped by -timeout or Ctrl-C (where
// no cleanup runs) or killed keeps every finished case there, at a
// constant cost per case; the output itself is written at the end.
func journalFor(output string) string {
	if output == "" {
		return ""
	}
	return resultio.JournalFor(output)
}

// load sends the cases as load (WithLoad) and fails t with every failed
// request, named by case and repetition, after logging the schedule.
func (run *workloadRun) load(t *testing.T, l runner.Load) {
	t.Helper()
	var (
		mu     sync.Mutex
		failed []runner.Outcome
	)
	run.onOutcome = func(out runner.Outcome) {
		// A request cut by the run's own stop (its error-rate limit) is
		// interrupted, not failed by the server.
		if out.Record.Outcome.Failed() && !out.Record.Interrupted {
			mu.Lock()
			failed = append(failed, out)
			mu.Unlock()
		}
	}
	l.ClientLimits = clientLimits
	_, err := run.sess.RunLoad(run.ctx, l)
	if err != nil {
		say(t).Errorf("benchtest: %v", err)
	}
	p := run.sess.Payload()
	if sc := p.Schedule; sc != nil {
		achieved := "null (" + sc.AchievedRateReason + ")"
		if sc.AchievedRate != nil {
			achieved = strconv.FormatFloat(*sc.AchievedRate, 'g', 3, 64) + " req/s"
		}
		throughput := "null (" + sc.RequestThroughputReason + ")"
		if sc.RequestThroughput != nil {
			throughput = strconv.FormatFloat(*sc.RequestThroughput, 'g', 3, 64) + " req/s"
		}
		say(t).Logf("load: %d requests, achieved %s, throughput %s, %d late, %d dropped, %d unsent", len(p.Results), achieved, throughput, sc.Late, sc.Dropped, sc.Unsent)
		failStopped(t, sc)
		failClient(t, sc)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, out := range failed {
		prefix := fmt.Sprintf("%s: case %q rep %d", run.file, out.Record.CaseID, out.Record.Repetition)
		if out.Err != nil {
			say(t).Errorf("%s: request error: %v", prefix, out.Err)
		}
		for _, is := range out.Issues {
			say(t).Errorf("%s: %s", prefix, describeIssue(is, out))
		}
	}
}

// executeAndReport runs job j as part of t, unless the test's deadline is
// near: then it is skipped, so the output of what finished is written.
func (run *workloadRun) executeAndReport(t *testing.T, j runner.Job) {
	t.Helper()
	if err := run.ctx.Err(); err != nil {
		say(t).Skipf("benchtest: not run: go test's -timeout is near (%v); the finished cases are written", err)
	}
	run.report(t, run.sess.Execute(run.ctx, j))
}

// report logs one outcome's measurements and turns every failed check
// and the request error into an assertion failure on t.
func (run *workloadRun) report(t *testing.T, out runner.Outcome) {
	t.Helper()
	run.judge(t, out)
	runOnRecord(t, run.cfg.onRecord, out)
}

// judge is report's verdict on one outcome.
func (run *workloadRun) judge(t *testing.T, out runner.Outcome) {
	t.Helper()
	rec := out.Record
	if rec.Contract != nil && !rec.Interrupted {
		reportContract(t, run.file, out)
		return
	}
	m := rec.Metrics
	// Without any token TTFT is not a measurement (the record keeps the
	// reference's TTFT = E2E); say so instead of printing a number.
	ttft := "none"
	if m.TokenChunks > 0 {
		ttft = fmt.Sprintf("%.1f", m.TTFTms)
		say(t).Attr("ttft_ms", fmt.Sprintf("%.3f", m.TTFTms))
	}
	if note := runner.CacheResetNote("before-case", rec.CacheReset); note != "" {
		say(t).Logf("benchtest: %s", note)
	}
	say(t).Logf("ttft_ms=%s tpot_ms=%s e2e_latency_ms=%.1f gen_tps=%s prompt_tokens=%d completion_tokens=%d finish_reason=%s cache_hits=%s tokens_saved=%s%s",
		ttft, rate(m.TPOTms, 2), m.E2ELms, rate(m.GenTPS, 1), m.PromptTokens, m.CompletionTokens,
		present.Name(strOrNone(rec.Quality.FinishReason)), intOrNA(m.CacheHits), intOrNA(m.TokensSaved), answerNote(rec))
	for _, n := range rec.Quality.Notes {
		say(t).Logf("note: %s", n)
	}
	say(t).Attr("e2e_latency_ms", fmt.Sprintf("%.3f", m.E2ELms))
	prefix := fmt.Sprintf("%s: case %q", run.file, rec.CaseID)
	if rec.Interrupted {
		say(t).Errorf("%s: interrupted: the run was stopped (go test's -timeout is near, or the test ended) while this request was in flight; it is left out of the statistics", prefix)
		return
	}
	if rec.Outcome == results.OutcomeCapped {
		// The engine's one verdict (results.OutcomeCapped): an answer
		// ended by max_tokens whose case states no finish_reason is not a
		// failure; checks.finish_reason ["stop"] makes it one.
		for _, is := range out.Issues {
			say(t).Logf("%s: capped: %s; not validated, not a failure (checks.finish_reason [\"stop\"] would make it one)", prefix, present.Message(is.Message))
		}
		return
	}
	// The request error first: the failed checks after it are often
	// its consequences (no finish_reason, too short).
	if out.Err != nil {
		say(t).Errorf("%s: request error: %v", prefix, out.Err)
	}
	for _, is := range out.Issues {
		say(t).Errorf("%s: %s", prefix, describeIssue(is, out))
	}
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
	if run.sess == nil {
		return
	}
	p := run.sess.Payload()
	if w := summary.EndedShortWarning(p); w != "" {
		// A warning, as vLLM only reports it: a check that asks for
		// the length (finish_reason "length") fails a short answer.
		say(t).Logf("benchtest: warning: %s", w)
	}
	if run.cfg.output != "" {
		kept, err, keepErr := resultio.WriteFileOrKeep(p, run.cfg.output)
		journal, _ := run.sess.Journal()
		jerr := run.sess.FinishJournal(err == nil)
		switch {
		case err != nil && keepErr == nil:
			say(t).Errorf("benchtest: %v; the results were kept as JSON in %s, and every finished case is in %s (benchserve recover turns it into a results file)", err, kept, journal)
		case err != nil:
			say(t).Errorf("benchtest: %v; every finished case is kept in %s (benchserve recover turns it into a results file)", err, journal)
		default:
			say(t).Logf("benchtest: results written to %s", run.cfg.output)
		}
		if jerr != nil {
			say(t).Errorf("benchtest: journal: %v", jerr)
		}
	}
	if run.cfg.report != "" {
		if err := resultio.WriteFile(p, run.cfg.report); err != nil {
			say(t).Errorf("benchtest: report: %v", err)
		} else {
			say(t).Logf("benchtest: report written to %s", run.cfg.report)
		}
	}
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
func subtestNamesUnique(path string, jobs []runner.Job) error {
	seen := map[string]string{}
	for _, c := range runner.UniqueCases(jobs) {
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
func serverURL(tb testing.TB, cfg config) string {
	if cfg.url != "" {
		return cfg.url
	}
	fo := fixtures.Options{}
	if cfg.fixture != nil {
		fo = *cfg.fixture
	}
	return fixtures.Start(tb, fo).URL
}
