package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/internal/progress"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/summary"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// runWorkloadMode runs a declarative workload (reference:
// run_bench_serve_workload).
func runWorkloadMode(ctx context.Context, e *env, f *benchFlags) int {
	if w := sweepOnlyWarning(f); w != "" {
		fmt.Fprintln(e.stderr, w)
	}
	format := e.outputFormat(f.format.val, f.output, "json")
	var pr problems
	if format == "sqlite" && f.output == "" {
		pr.addUsage("--output is required when --format sqlite")
	}
	if f.dataset.set() && !f.given("repetitions") {
		// A generator's run is a load run of its requests, each sent
		// once: --repetitions' default of 3 does not apply, and the
		// payload says 1, not 3 (a newcomer's review).
		f.repetitions = 1
	}
	if f.repetitions < 1 {
		pr.addUsage("--repetitions must be at least 1, got %d", f.repetitions)
	}
	tags := f.tags()
	var w *workloads.Workload
	var err error
	if f.workload.set {
		w, err = workloads.Load(f.workload.val) // the one load of the run
		if err == nil {
			// A "generator" file's cases exist once expanded: the tag
			// check below looks at them (Start would expand it too).
			w, err = runner.ExpandGenerator(w)
		}
	}
	prompts := f.datasetPrompts()
	if f.dataset.isTrace() || f.dataset.isSessions() {
		prompts = f.load.numPrompts // 0: the whole trace, or the default number of sessions
	}
	f.checkTrace(&pr)
	f.checkSessions(&pr)
	if g := f.dataset.generator(&pr, prompts, f.load.seed); g != nil && err == nil {
		w = datasetWorkload(&pr, w, g)
	}
	var selected []workloads.Case
	if err != nil {
		pr.addInput("%v", strings.TrimPrefix(err.Error(), "runner: "))
		w = nil
	} else if w == nil {
		// the dataset flags were refused: pr says why
	} else {
		overrideEndpoint(w, f.endpoint.val)
		if selected = w.Select(tags); len(selected) == 0 && !runner.IsTrace(w) {
			pr.addUsage("--case-tag %s: no case of %s has any of these tags", strings.Join(tags, ","), f.workload.val)
		}
	}
	commonChecks(f, &pr, w)
	if err := checkOutput(f.output, format); err != nil {
		pr.addInput("%v", err)
	}
	var ld runner.Load
	if f.loadMode() {
		ld = f.runnerLoad(&pr)
		ld.ClientLimits = clientLimits
		if f.dataset.set() && !f.dataset.isTrace() && !f.given("num-prompts") && !f.given("duration") {
			ld.Requests = len(selected) // each generated request once, not x --repetitions
		}
		if err := ld.CheckSplit(len(selected) * f.repetitions); err != nil && len(selected) > 0 {
			pr.addUsage("%v", err)
		}
	}
	if !pr.empty() {
		return pr.report(e, "")
	}
	for _, warning := range w.Warnings {
		fmt.Fprintf(e.stderr, "benchserve: warning: %s\n", present.Message(warning))
	}
	r, code := connect(ctx, e, runner.Config{
		URL: f.url, Model: f.model, APIKey: f.apiKey, RequestTimeout: f.requestTimeout(),
		NoScrape: f.scrapeMetrics.val == "false", IncludeContent: f.includeContent, RunID: f.load.runID,
		NoCalibration: f.dataset.noCalibration,
		Warn:          e.warn,
		Note:          e.note,
	}, f.given("url"))
	if r == nil {
		return code
	}
	defer r.Close()
	// In a terminal a live progress line (done/total, elapsed, ETA);
	// elsewhere (CI logs, pipes) the reference's line per case.
	// The total counts the selected cases only (after --case-tag).
	var live *progress.Reporter
	if stderrIsTerminal(e.stderr) {
		live = progress.New(e.control(), len(selected)*f.repetitions, progress.WithTerminal(true))
	}
	var failed []results.Record // Progress calls are serialized
	sess, err := r.Start(ctx, w, runner.RunOptions{
		Repetitions: f.repetitions,
		CachePolicy: f.cachePolicy.val,
		Tags:        tags,
		SLOs:        f.thresholds,
		Journal:     resultio.JournalFor(f.output),
		CacheReset:  cacheResetReporter(e.stderr),
		Progress: func(out runner.Outcome, done, total int) {
			rec := out.Record
			failing := rec.Outcome.Failed() // the engine's one verdict
			if live != nil {
				live.Done(rec.CaseID, !failing)
				if failing {
					failed = append(failed, rec)
				}
				return
			}
			status := "ok"
			switch {
			case rec.Interrupted: // cut by the run's stop (Ctrl-C, --max-error-rate), not failed by the server
				status = "interrupted"
			case failing:
				status = "FAIL"
			case rec.Outcome == results.OutcomeCapped:
				status = "ok (capped by max_tokens)"
			}
			var b strings.Builder
			if f.loadMode() {
				// Load mode: requests, not repetitions; the total is
				// unknown when --duration bounds the run.
				fmt.Fprintf(&b, "  [%d] %s ... %.0fms %s\n", done, present.Name(rec.CaseID), rec.Metrics.E2ELms, status)
			} else {
				fmt.Fprintf(&b, "  [%d/%d] %s ... %.0fms %s (%d/%d)\n",
					rec.Repetition+1, f.repetitions, present.Name(rec.CaseID), rec.Metrics.E2ELms, status, done, total)
			}
			if s := answerLine(rec); s != "" {
				fmt.Fprintf(&b, "      %s\n", s)
			}
			if failing || rec.Outcome == results.OutcomeCapped { // a capped answer says why it is not validated
				for _, is := range recordIssues(rec) {
					fmt.Fprintln(&b, detailLine("      ", is))
				}
			}
			fmt.Fprint(e.stderr, b.String())
		},
	})
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve: %s\n", explain(err))
		return ExitUsage
	}
	if _, moved := sess.Journal(); moved != "" {
		fmt.Fprintf(e.stderr, "benchserve: an earlier run's journal was moved to %s (benchserve recover turns it into a results file)\n", moved)
	}
	var runErr error
	if f.loadMode() {
		if until := time.Until(ld.StartAt); !ld.StartAt.IsZero() && until > 0 {
			fmt.Fprintf(e.stderr, "benchserve: the load starts at %s (--start-at), in %v\n", ld.StartAt.Format(time.RFC3339Nano), until.Round(time.Millisecond))
		}
		_, runErr = sess.RunLoad(ctx, ld)
	} else {
		runErr = sess.RunAll(ctx, nil)
	}
	live.Finish()
	if live != nil {
		fmt.Fprint(e.stderr, failureReport(failed, f.repetitions))
	}
	if w.Generator != nil && ctx.Err() == nil {
		// A tokenizer endpoint that disagrees with usage is warned about
		// (Config.Warn); a server without one (Ollama) is not checked.
		sess.CheckTokenizer(ctx)
	}
	p := sess.Payload()
	fmt.Fprint(e.stderr, scheduleLine(p.Schedule))
	if p.Schedule != nil {
		fmt.Fprint(e.stderr, resultBlock(p))
	}
	if w := summary.EndedShortWarning(p); w != "" {
		// A warning, not a failure (vLLM only reports the lengths); a
		// check that asks for the length fails a short answer itself.
		fmt.Fprintf(e.stderr, "Warning: %s\n", w)
	}
	sloFailed := printSLOs(e, sess.Outcomes(p))
	code = writeWorkload(e, p, format, f.output)
	journal, _ := sess.Journal()
	if jerr := sess.FinishJournal(code == ExitOK); jerr != nil {
		fmt.Fprintf(e.stderr, "benchserve: journal: %s\n", explain(jerr))
	}
	if code != ExitOK {
		if journal != "" {
			fmt.Fprintf(e.stderr, "benchserve: every finished case is also in %s (benchserve recover %s --output FILE)\n", journal, journal)
		}
		return code
	}
	if runErr != nil {
		fmt.Fprintf(e.stderr, "benchserve: %s\n", explain(runErr))
		return ExitFailed
	}
	if sc := p.Schedule; sc != nil && sc.StopReason != "" {
		return ExitFailed // stopped by --max-error-rate: scheduleLine said why
	}
	if sc := p.Schedule; sc != nil && sc.ClientValid != nil && !*sc.ClientValid {
		return ExitFailed // the client could not keep up: scheduleLine said why
	}
	if anyFailed(p.Results) || sloFailed {
		// The records' outcomes, not summary.passed (the reference's
		// every-quality.ok): a capped answer does not fail the run.
		return ExitFailed
	}
	return ExitOK
}

// clientLimits, when set, replaces runner.DefaultClientLimits (a variable
// so tests can drive the client verdict without saturating the machine).
var clientLimits *runner.ClientLimits

// stderrIsTerminal decides the live progress mode (a variable so tests
// can force it).
var stderrIsTerminal = isTerminal

// detailLine is one issue of a record under its case's line: lead, then
// the issue in the user's words (userText), escaped, cut
// (present.Message) and folded to maxHelpCols under lead's indent.
func detailLine(lead, issue string) string {
	indent := strings.Repeat(" ", present.Width(lead)+2)
	return present.Wrap(lead+present.Message(userText(issue)), maxHelpCols, indent)
}

// recordIssues are the reasons a record failed, in the record's order
// (the request error, when there was one, is the first issue); a failed
// record without issues gets its error, if any.
func recordIssues(rec results.Record) []string {
	if len(rec.Quality.Issues) > 0 {
		return rec.Quality.Issues
	}
	if rec.Error != "" {
		return []string{"request error: " + rec.Error}
	}
	return nil
}

// failureReport lists the failed records' issues grouped by case, cases
// in the order they first failed:
//
//	Failed cases:
//	  never
//	    [1/2] content does not match required_regex …
//	    [2/2] request error: …
//
// "" when nothing failed.
func failureReport(failed []results.Record, reps int) string {
	if len(failed) == 0 {
		return ""
	}
	var order []string
	byCase := map[string][]results.Record{}
	for _, rec := range failed {
		if _, ok := byCase[rec.CaseID]; !ok {
			order = append(order, rec.CaseID)
		}
		byCase[rec.CaseID] = append(byCase[rec.CaseID], rec)
	}
	var b strings.Builder
	b.WriteString("Failed cases:\n")
	for _, id := range order {
		fmt.Fprintf(&b, "  %s\n", present.Name(id))
		for _, rec := range byCase[id] {
			issues := recordIssues(rec)
			if len(issues) == 0 {
				issues = []string{"failed (no issue recorded)"}
			}
			for _, is := range issues {
				fmt.Fprintln(&b, detailLine(fmt.Sprintf("    [%d/%d] ", rec.Repetition+1, reps), is))
			}
		}
	}
	return b.String()
}

// printSLOs prints one line per run-level threshold outcome (the
// engine's, the same numbers as the payload's slo block) to stderr:
//
//	SLO ttft_p95_ms <= 500: PASS (measured 212.3, 95% CI 200.1–230.5)
//	SLO ttft_p95_ms <= 500: FAIL (measured 612.4, want <= 500, 95% CI 580.2–650.9)
//	SLO error_rate <= 0: PASS (measured 0)
//
// A percentile threshold carries its confidence interval
// (results.SLOResult.CI), and says so when the interval reaches across the
// limit (the verdict then rests on the point estimate alone).
// and reports whether any failed.
func printSLOs(e *env, outcomes []results.SLOResult) bool {
	failed := false
	for _, o := range outcomes {
		expr := o.Expr
		if o.Skipped > 0 {
			fmt.Fprintf(e.stderr, "SLO %s: %d requests left out (decode span not observable, see decode_timing)\n", expr, o.Skipped)
		}
		ci := ""
		if o.CI != nil {
			ci = ", " + o.CI.String()
			if !o.Conclusive() {
				ci += ": not conclusive, the interval reaches across the limit"
			}
		}
		if o.Pass {
			fmt.Fprintf(e.stderr, "SLO %s: PASS (measured %s%s)\n", expr, o.MeasuredString(), ci)
			continue
		}
		failed = true
		want := fmt.Sprintf("want %s %s", o.Op, strconv.FormatFloat(o.Value, 'g', -1, 64))
		if math.IsNaN(o.Measured) {
			fmt.Fprintf(e.stderr, "SLO %s: FAIL (no samples, %s)\n", expr, want)
			continue
		}
		fmt.Fprintf(e.stderr, "SLO %s: FAIL (measured %s, %s%s)\n", expr, o.MeasuredString(), want, ci)
	}
	return failed
}

// isTerminal reports whether w is a terminal (a live progress line can be
// redrawn there).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// overrideEndpoint sends every case of w that is not a protocol contract
// to endpoint (--endpoint); "" leaves the workload's choice.
func overrideEndpoint(w *workloads.Workload, endpoint string) {
	if endpoint == "" {
		return
	}
	for i := range w.Cases {
		if w.Cases[i].Protocol == nil {
			w.Cases[i].Endpoint = workloads.Endpoint(endpoint)
		}
	}
}

// anyFailed reports whether a record's outcome counts against the run
// (results.Outcome.Failed).
func anyFailed(recs []results.Record) bool {
	for _, r := range recs {
		if r.Outcome.Failed() {
			return true
		}
	}
	return false
}
