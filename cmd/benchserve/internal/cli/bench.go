package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/benchserve/benchserve/load"
	"github.com/benchserve/benchserve/progress"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/runner"
	"github.com/benchserve/benchserve/serverinfo"
	"github.com/benchserve/benchserve/stream"
	"github.com/benchserve/benchserve/sweep"
	"github.com/benchserve/benchserve/workload"
)

// defaultURL is --url's default (a variable so tests can point it at a
// port where nothing listens).
var defaultURL = "http://127.0.0.1:8080"

// Reference defaults (create_parser, bench-serve).
const (
	defaultAddr        = "127.0.0.1:8080"
	defaultPrompts     = "short,medium,long"
	defaultConcurrency = "1,4"
	defaultWarmup      = 1
)

// benchFlags are the parsed bench-serve flags.
type benchFlags struct {
	fs                      *flag.FlagSet
	url                     string
	model                   string
	apiKey                  string
	workload                optString
	prompts                 string
	promptFile              string
	systemPromptFile        string
	skipPreflightTokenCount bool
	concurrency             string
	maxTokens               int
	repetitions             int
	warmup                  int
	enableThinking          optString
	extraBody               optString
	output                  string
	format                  *choiceValue
	validate                *choiceValue
	scrapeMetrics           *choiceValue
	includeContent          bool
	requestTimeoutS         float64
	cachePolicy             *choiceValue
	tag                     optString
	overrides               listValue
	slo                     listValue
	caseTags                listValue
	envTags                 string
}

func (f *benchFlags) given(name string) bool {
	found := false
	f.fs.Visit(func(fl *flag.Flag) { found = found || fl.Name == name })
	return found
}

func newBenchFlags(e *env) *benchFlags {
	f := &benchFlags{
		format:        newChoice("auto", "auto", "table", "json", "csv", "sql", "sqlite"),
		validate:      newChoice("true", "true", "false"),
		scrapeMetrics: newChoice("true", "true", "false"),
		cachePolicy:   newChoice("", "preserve", "before-run", "before-case"),
	}
	fs := flag.NewFlagSet("benchserve", flag.ContinueOnError)
	f.fs = fs
	fs.SetOutput(e.stderr)
	fs.StringVar(&f.url, "url", defaultURL, "Base `URL` of the running server")
	fs.StringVar(&f.model, "model", e.getenv("BENCHSERVE_MODEL"), "`Model` ID to benchmark (default: $BENCHSERVE_MODEL, else auto-detected from the server)")
	fs.StringVar(&f.apiKey, "api-key", e.getenv("BENCHSERVE_API_KEY"), "Bearer `token` sent with every request (default: $BENCHSERVE_API_KEY)")
	fs.Var(&f.workload, "workload", "`Path` to a declarative workload JSON file. When set, bench-serve runs\ncontract-style cases with per-case quality checks and comparison-only\npolicy timeouts instead of the prompt sweep.")
	fs.StringVar(&f.prompts, "prompts", defaultPrompts, "Comma-separated prompt set `names` or paths (builtin: short, medium, long, thinking)")
	fs.StringVar(&f.promptFile, "prompt-file", "", "`Path` to an additional prompt file (JSON list of message dicts, or of message lists)")
	fs.StringVar(&f.systemPromptFile, "system-prompt-file", "", "`Path` to a text file whose contents are prepended as a system message to\nevery prompt (unless it starts with one). Implies --skip-preflight-token-count.")
	fs.BoolVar(&f.skipPreflightTokenCount, "skip-preflight-token-count", false, "Skip the max_tokens=1 request that counts prompt tokens per prompt set\n(it warms the prefix cache, which defeats cold-vs-warm comparisons)")
	fs.StringVar(&f.concurrency, "concurrency", defaultConcurrency, "Comma-separated concurrency `levels` to sweep")
	fs.IntVar(&f.maxTokens, "max-tokens", 256, "Maximum `tokens` to generate per request (sweeps)")
	fs.IntVar(&f.repetitions, "repetitions", 3, "`Number` of repetitions per sweep configuration or workload case")
	fs.IntVar(&f.warmup, "warmup", defaultWarmup, "Warmup `rounds` before the first measured repetition (sweeps)")
	fs.Var(&f.enableThinking, "enable-thinking", "Enable thinking mode: \"true\", \"false\", or \"true,false\" to sweep `both`")
	fs.Var(&f.extraBody, "extra-body", "Comma-separated `JSON` objects to pass as extra body parameters, e.g. '{\"a\":1},{\"b\":2}'")
	fs.StringVar(&f.output, "output", "", "File `path` to write results to (default: stdout); written atomically")
	fs.Var(f.format, "format", "Output `format`: auto, table, json, csv, sql, sqlite\n(auto = table for prompt sweeps, json for workloads; sqlite requires --output\nand appends to the file)")
	fs.Var(f.validate, "validate", "Validate responses: `true` or false")
	fs.Var(f.scrapeMetrics, "scrape-metrics", "Scrape /metrics before and after each run: `true` or false")
	fs.BoolVar(&f.includeContent, "include-content", false, "Include full generated content in workload JSON output")
	fs.Float64Var(&f.requestTimeoutS, "request-timeout-s", 300, "HTTP transport timeout in `seconds`; 0 disables. Product policy timeouts\nbelong in the workload.")
	fs.Var(f.cachePolicy, "cache-policy", "Workload cache handling: `preserve`, before-run or before-case\n(default: the workload's defaults.cache_policy, else preserve)")
	fs.Var(&f.tag, "tag", "Optional tag `string` stored in every sweep result row")
	fs.Var(&f.overrides, "override-field", "Override sweep result fields as `key=value` pairs (e.g. chip=M4Pro);\nrepeatable, and like the reference several pairs may follow one flag")
	fs.Var(&f.slo, "slo", "Run-level threshold `EXPR` checked after a workload run, e.g. 'ttft_p95_ms <= 500'\n(repeatable; added to the workload's defaults.slo; one PASS/FAIL line each on\nstderr, a failed one exits 1). benchserve addition")
	fs.Var(&f.caseTags, "case-tag", "Run only the workload cases having any of these `tags` (repeatable or\ncomma-separated; default: $BENCHSERVE_TAGS, as the go test plugin). Not --tag,\nwhich labels sweep rows. benchserve addition")
	f.envTags = e.getenv("BENCHSERVE_TAGS")
	fs.Usage = func() { benchUsage(e, fs) }
	return f
}

func benchUsage(e *env, fs *flag.FlagSet) {
	w := e.stderr
	fmt.Fprintln(w, "Usage:")
	commandUsage(w)
	fmt.Fprint(w, `
Benchmarks a running OpenAI-compatible server through its HTTP API, with the
flags, inputs and outputs of vllm-mlx bench-serve. Progress goes to stderr,
results to stdout or --output. Run 'benchserve report --help' for the report.

Flags of bench-serve (--name and -name both work):
`)
	printFlags(w, fs)
	fmt.Fprint(w, `
Exit status:
  0  every case passed its checks (every sweep row validated)
  1  a case failed its checks, a sweep row is not validated, a run-level threshold
     (defaults.slo, --slo) failed, the results could not be written to --output (they
     are then kept as JSON next to it), or the run was interrupted
  2  usage or input errors (bad flags, workload or prompt set errors, an --output that
     cannot be written, no reachable server); nothing was measured
`)
}

// runBench is the bench-serve command (reference: bench_serve_command).
func runBench(ctx context.Context, e *env, args []string) int {
	f := newBenchFlags(e)
	if err := f.fs.Parse(expandNargs(args, "override-field")); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	if f.fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "benchserve: unexpected arguments: %s\n", strings.Join(f.fs.Args(), " "))
		return ExitUsage
	}
	if f.workload.set {
		return runWorkloadMode(ctx, e, f)
	}
	return runSweepMode(ctx, e, f)
}

// problems are what stops a run before it starts: flag mistakes (usage,
// where --help helps) and input problems (a workload or prompt file that
// does not load, an --output that cannot be written).
type problems struct {
	usage, input []string
}

func (p *problems) addUsage(format string, args ...any) {
	p.usage = append(p.usage, fmt.Sprintf(format, args...))
}

func (p *problems) addInput(format string, args ...any) {
	p.input = append(p.input, fmt.Sprintf(format, args...))
}

func (p *problems) empty() bool { return len(p.usage) == 0 && len(p.input) == 0 }

// report prints every problem and returns ExitUsage; the pointer to
// --help only when a flag was misused.
func (p *problems) report(e *env) int {
	for _, s := range append(append([]string{}, p.usage...), p.input...) {
		fmt.Fprintf(e.stderr, "benchserve: %s\n", s)
	}
	if len(p.usage) > 0 {
		fmt.Fprintln(e.stderr, "Run 'benchserve --help' for usage.")
	}
	return ExitUsage
}

// commonChecks checks the flags both modes use: --url is normalized in
// place (serverinfo.NormalizeBaseURL), --slo expressions must parse.
func commonChecks(f *benchFlags, pr *problems) {
	if u, err := serverinfo.NormalizeBaseURL(f.url); err != nil {
		pr.addUsage("--url: %s", strings.TrimPrefix(err.Error(), "serverinfo: "))
	} else {
		f.url = u
	}
	if _, err := load.ParseThresholds(f.slo...); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			pr.addUsage("--slo: %s", strings.TrimPrefix(line, "load: "))
		}
	}
}

// tags returns the --case-tag values split at commas, else
// $BENCHSERVE_TAGS's; nil means every case.
func (f *benchFlags) tags() []string {
	src := []string(f.caseTags)
	if !f.given("case-tag") {
		src = []string{f.envTags}
	}
	var out []string
	for _, v := range src {
		for _, t := range strings.Split(v, ",") {
			if t = strings.TrimSpace(t); t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

// outputFormat resolves --format auto: from --output's extension when it
// names one (.db, .sqlite, .sqlite3 → sqlite, .csv, .sql, .txt → table;
// a benchserve departure: the reference writes JSON whatever the name),
// else modeDefault (json for workloads, table for sweeps, as the reference).
func outputFormat(format, output, modeDefault string) string {
	if format != "auto" {
		return format
	}
	switch strings.ToLower(filepath.Ext(output)) {
	case ".db", ".sqlite", ".sqlite3":
		return "sqlite"
	case ".csv":
		return "csv"
	case ".sql":
		return "sql"
	case ".txt":
		return "table"
	}
	return modeDefault
}

// sqliteHeader starts every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// checkOutput reports why output could not be written in format, before
// anything runs: its directory must exist and take new files (the
// atomic write creates a temporary file there), it must not be a
// directory, and with sqlite an existing non-empty file must be a SQLite
// database that can be opened for writing. "" (stdout) is always fine.
func checkOutput(output, format string) error {
	if output == "" {
		return nil
	}
	path := output
	if format == "sqlite" {
		path = expandHome(path) // as results.WriteSQLite does
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("--output %s: directory %s does not exist", output, dir)
	case err != nil:
		return fmt.Errorf("--output %s: %w", output, err)
	case !st.IsDir():
		return fmt.Errorf("--output %s: %s is not a directory", output, dir)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("--output %s: is a directory", output)
	}
	probe, err := os.CreateTemp(dir, ".benchserve-write-check-*")
	if err != nil {
		return fmt.Errorf("--output %s: directory %s is not writable: %w", output, dir, err)
	}
	_ = probe.Close()
	_ = os.Remove(probe.Name())
	if format == "sqlite" {
		return checkSQLiteFile(output, path)
	}
	return nil
}

// checkSQLiteFile accepts a missing or empty file, or one starting with
// the SQLite header that can be opened for writing.
func checkSQLiteFile(output, path string) error {
	fh, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--output %s: cannot open it to append: %w", output, err)
	}
	defer fh.Close()
	hdr := make([]byte, len(sqliteHeader))
	n, err := io.ReadFull(fh, hdr)
	if n == 0 && (err == io.EOF || err == nil) {
		return nil
	}
	if n < len(hdr) || string(hdr) != sqliteHeader {
		return fmt.Errorf("--output %s: the file exists and is not a SQLite database (--format sqlite appends to it); choose another path or format", output)
	}
	return nil
}

func expandHome(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return path
}

func (f *benchFlags) requestTimeout() time.Duration {
	if f.requestTimeoutS <= 0 {
		return 0
	}
	return time.Duration(f.requestTimeoutS * float64(time.Second))
}

// newHTTPClient returns a client with its own transport (closed by the
// returned func) and the transport timeout.
func newHTTPClient(timeout time.Duration, idle int) (*http.Client, func()) {
	tr := stream.NewTransport(idle)
	return &http.Client{Transport: tr, Timeout: timeout}, tr.CloseIdleConnections
}

// sweepOnlyWarning is the reference's warning for sweep-only flags given
// in workload mode (same text, same first three flags, compared with their
// defaults as the reference does), extended with the other sweep-only flags
// when they were given.
func sweepOnlyWarning(f *benchFlags) string {
	var ignored []string
	if f.prompts != defaultPrompts {
		ignored = append(ignored, "--prompts="+f.prompts)
	}
	if f.concurrency != defaultConcurrency {
		ignored = append(ignored, "--concurrency="+f.concurrency)
	}
	if f.warmup != defaultWarmup {
		ignored = append(ignored, "--warmup="+strconv.Itoa(f.warmup))
	}
	for _, name := range []string{"prompt-file", "system-prompt-file", "skip-preflight-token-count", "max-tokens", "enable-thinking", "extra-body", "validate", "tag", "override-field"} {
		if f.given(name) {
			ignored = append(ignored, "--"+name+"="+f.fs.Lookup(name).Value.String())
		}
	}
	if len(ignored) == 0 {
		return ""
	}
	return "Warning: --workload mode ignores sweep-only args: " + strings.Join(ignored, ", ")
}

// runWorkloadMode runs a declarative workload (reference:
// run_bench_serve_workload).
func runWorkloadMode(ctx context.Context, e *env, f *benchFlags) int {
	if w := sweepOnlyWarning(f); w != "" {
		fmt.Fprintln(e.stderr, w)
	}
	format := outputFormat(f.format.val, f.output, "json")
	var pr problems
	if format == "sqlite" && f.output == "" {
		pr.addUsage("--output is required when --format sqlite")
	}
	if f.repetitions < 1 {
		pr.addUsage("--repetitions must be at least 1, got %d", f.repetitions)
	}
	commonChecks(f, &pr)
	tags := f.tags()
	w, err := workload.Load(f.workload.val)
	var selected []workload.Case
	if err != nil {
		pr.addInput("%v", err)
	} else if selected = w.Select(tags); len(selected) == 0 {
		pr.addUsage("--case-tag %s: no case of %s has any of these tags", strings.Join(tags, ","), f.workload.val)
	}
	if err := checkOutput(f.output, format); err != nil {
		pr.addInput("%v", err)
	}
	if !pr.empty() {
		return pr.report(e)
	}
	if code, ok := checkServer(ctx, e, f); !ok {
		return code
	}

	hc, closeIdle := newHTTPClient(f.requestTimeout(), 2)
	defer closeIdle()
	r, err := runner.New(ctx, runner.Config{
		URL: f.url, Model: f.model, APIKey: f.apiKey, HTTP: hc,
		RequestTimeout: f.requestTimeout(), NoScrape: f.scrapeMetrics.val == "false", IncludeContent: f.includeContent,
	})
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve: %v\n", err)
		return ExitUsage
	}
	// In a terminal a live progress line (done/total, elapsed, ETA);
	// elsewhere (CI logs, pipes) the reference's line per case.
	// The total counts the selected cases only (after --case-tag).
	var live *progress.Reporter
	if stderrIsTerminal(e.stderr) {
		live = progress.New(e.stderr, len(selected)*f.repetitions, progress.WithTerminal(true))
	}
	var (
		mu     sync.Mutex
		failed []results.Record
	)
	p, runErr := r.Run(ctx, w, runner.RunOptions{
		Repetitions: f.repetitions,
		CachePolicy: f.cachePolicy.val,
		Tags:        tags,
		CacheReset:  cacheResetReporter(e.stderr),
		Progress: func(rec results.Record, done, total int) {
			if live != nil {
				live.Done(rec.CaseID, rec.OK)
				if !rec.OK {
					mu.Lock()
					failed = append(failed, rec)
					mu.Unlock()
				}
				return
			}
			status := "ok"
			if !rec.OK {
				status = "FAIL"
			}
			var b strings.Builder
			fmt.Fprintf(&b, "  [%d/%d] %s ... %.0fms %s (%d/%d)\n",
				rec.Repetition+1, f.repetitions, rec.CaseID, rec.Metrics.E2ELms, status, done, total)
			if s := answerLine(rec); s != "" {
				fmt.Fprintf(&b, "      %s\n", s)
			}
			if !rec.OK {
				for _, is := range recordIssues(rec) {
					fmt.Fprintf(&b, "      %s\n", is)
				}
			}
			fmt.Fprint(e.stderr, b.String())
		},
	})
	live.Finish()
	if live != nil {
		fmt.Fprint(e.stderr, failureReport(failed, f.repetitions))
	}
	if p == nil {
		fmt.Fprintf(e.stderr, "benchserve: %v\n", runErr)
		return ExitUsage
	}
	sloFailed := checkSLOs(e, p, append(append([]string{}, w.SLO...), f.slo...))
	if code := writeWorkload(e, p, format, f.output); code != ExitOK {
		return code
	}
	if runErr != nil {
		fmt.Fprintf(e.stderr, "benchserve: %v\n", runErr)
		return ExitFailed
	}
	if !p.Summary.Passed || sloFailed {
		return ExitFailed
	}
	return ExitOK
}

// stderrIsTerminal decides the live progress mode (a variable so tests
// can force it).
var stderrIsTerminal = isTerminal

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
		fmt.Fprintf(&b, "  %s\n", id)
		for _, rec := range byCase[id] {
			issues := recordIssues(rec)
			if len(issues) == 0 {
				issues = []string{"failed (no issue recorded)"}
			}
			for _, is := range issues {
				fmt.Fprintf(&b, "    [%d/%d] %s\n", rec.Repetition+1, reps, is)
			}
		}
	}
	return b.String()
}

// checkSLOs evaluates the run-level thresholds on p (recording them in
// p.SLO, see load.CheckPayload), prints one line each to stderr:
//
//	SLO ttft_p95_ms <= 500: PASS (measured 212.3)
//	SLO ttft_p95_ms <= 500: FAIL (measured 612.4, want <= 500)
//
// and reports whether any failed. The thresholds were checked before the
// run, so a parse error here is only reported.
func checkSLOs(e *env, p *results.Payload, thresholds []string) bool {
	if len(thresholds) == 0 {
		return false
	}
	outcomes, err := load.CheckPayload(p, thresholds)
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve: %v\n", err)
		return true
	}
	failed := false
	for i, o := range outcomes {
		expr := thresholds[i]
		if o.Skipped > 0 {
			fmt.Fprintf(e.stderr, "SLO %s: %d requests left out (decode span not observable, see decode_timing)\n", expr, o.Skipped)
		}
		if o.Pass {
			fmt.Fprintf(e.stderr, "SLO %s: PASS (measured %s)\n", expr, o.MeasuredString())
			continue
		}
		failed = true
		want := fmt.Sprintf("want %s %s", o.Op, strconv.FormatFloat(o.Value, 'g', -1, 64))
		if math.IsNaN(o.Measured) {
			fmt.Fprintf(e.stderr, "SLO %s: FAIL (no samples, %s)\n", expr, want)
			continue
		}
		fmt.Fprintf(e.stderr, "SLO %s: FAIL (measured %s, %s)\n", expr, o.MeasuredString(), want)
	}
	return failed
}

func writeWorkload(e *env, p *results.Payload, format, output string) int {
	return writeOutput(e, format, output, outputMessages{sqlite: "Workload SQLite results written to %s\n", file: "Workload results written to %s\n"},
		func() error { return results.WriteSQLite(p, output) },
		func() ([]byte, error) { return results.Format(p, format) },
		func() ([]byte, error) { return results.FormatJSON(p) })
}

// outputMessages are the reference's "written to" lines (they differ
// between workloads and sweeps).
type outputMessages struct {
	sqlite, file string
	// beforeStdout is printed to stderr before results go to stdout.
	beforeStdout string
}

// writeOutput writes results as the reference does: sqlite appends to
// --output; other formats go atomically to --output, else to stdout.
// When writing fails the measured results are kept: asJSON's rendering
// goes to a fallback file (see keepResults) and the status is ExitFailed.
func writeOutput(e *env, format, output string, msg outputMessages, sqlite func() error, render, asJSON func() ([]byte, error)) int {
	if format == "sqlite" {
		if err := sqlite(); err != nil {
			return keepResults(e, output, err, asJSON)
		}
		fmt.Fprintf(e.stderr, msg.sqlite, output)
		return ExitOK
	}
	data, err := render()
	if err != nil {
		return keepResults(e, output, err, asJSON)
	}
	if output != "" {
		if err := results.WriteFileAtomic(output, data, 0o644); err != nil {
			return keepResults(e, output, err, asJSON)
		}
		fmt.Fprintf(e.stderr, msg.file, output)
		return ExitOK
	}
	fmt.Fprint(e.stderr, msg.beforeStdout)
	fmt.Fprintf(e.stdout, "%s\n", data)
	return ExitOK
}

// keepResults reports writeErr, then writes asJSON's rendering of the
// measured results to fallbackPath and says where; it returns ExitFailed.
func keepResults(e *env, output string, writeErr error, asJSON func() ([]byte, error)) int {
	fmt.Fprintf(e.stderr, "benchserve: writing the results failed: %v\n", writeErr)
	data, err := asJSON()
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve: the measured results are lost: %v\n", err)
		return ExitFailed
	}
	path, err := writeFallback(output, data)
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve: the measured results are lost: %v\n", err)
		return ExitFailed
	}
	fmt.Fprintf(e.stderr, "benchserve: the measured results were kept as JSON in %s\n", path)
	return ExitFailed
}

// writeFallback writes data next to output as "<output>.partial.json"
// (atomically) or, when that fails or output is "", to a new
// "benchserve-<name>-*.partial.json" in os.TempDir(), and returns the
// path written.
func writeFallback(output string, data []byte) (string, error) {
	var errs []error
	if output != "" {
		path := expandHome(output) + ".partial.json"
		err := results.WriteFileAtomic(path, data, 0o644)
		if err == nil {
			return path, nil
		}
		errs = append(errs, err)
	}
	name := strings.Map(func(r rune) rune {
		if r == '*' || r == os.PathSeparator || r == '/' {
			return '_'
		}
		return r
	}, filepath.Base(output))
	if output == "" {
		name = "results"
	}
	fh, err := os.CreateTemp("", "benchserve-"+name+"-*.partial.json")
	if err != nil {
		return "", errors.Join(append(errs, err)...)
	}
	_, err = fh.Write(data)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(fh.Name())
		return "", errors.Join(append(errs, err)...)
	}
	return fh.Name(), nil
}

// sweepConfig turns the flags into a sweep.Config, collecting every
// problem (reference: the parsing half of bench_serve_command).
func sweepConfig(e *env, f *benchFlags) (sweep.Config, []string) {
	var problems []string
	cfg := sweep.Config{
		URL: f.url, Model: f.model, APIKey: f.apiKey,
		PromptFile: f.promptFile, SystemPromptFile: f.systemPromptFile,
		// As the reference's CLI: a system prompt file implies skipping the
		// preflight, which would warm the cache being measured.
		SkipPreflightTokenCount: f.skipPreflightTokenCount || f.systemPromptFile != "",
		MaxTokens:               f.maxTokens, Repetitions: f.repetitions, Warmup: f.warmup,
		NoValidate: f.validate.val == "false", NoScrape: f.scrapeMetrics.val == "false",
		Tag: f.tag.val, Progress: e.stderr,
		RequestTimeout: -1,
	}
	if t := f.requestTimeout(); t > 0 {
		cfg.RequestTimeout = t
	}
	for _, ps := range strings.Split(f.prompts, ",") {
		if ps = strings.TrimSpace(ps); ps != "" {
			cfg.PromptSets = append(cfg.PromptSets, ps)
		}
	}
	if len(cfg.PromptSets) == 0 {
		problems = append(problems, "--prompts: no prompt set given")
	}
	for _, c := range strings.Split(f.concurrency, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n < 1 {
			problems = append(problems, fmt.Sprintf("--concurrency: want integers >= 1, got %q", strings.TrimSpace(c)))
			continue
		}
		cfg.Concurrencies = append(cfg.Concurrencies, n)
	}
	if f.enableThinking.val != "" {
		for _, v := range strings.Split(f.enableThinking.val, ",") {
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "true":
				b := true
				cfg.Thinking = append(cfg.Thinking, &b)
			case "false":
				b := false
				cfg.Thinking = append(cfg.Thinking, &b)
			default:
				problems = append(problems, fmt.Sprintf("--enable-thinking: want true, false or true,false, got %q", v))
			}
		}
	}
	if f.extraBody.val != "" {
		cfg.ExtraBodies = splitExtraBodies(f.extraBody.val)
	}
	for _, kv := range f.overrides {
		o, err := sweep.ParseOverride(kv)
		if err != nil {
			problems = append(problems, "--override-field: "+strings.TrimPrefix(err.Error(), "sweep: "))
			continue
		}
		cfg.Overrides = append(cfg.Overrides, o)
	}
	if f.repetitions < 1 {
		problems = append(problems, fmt.Sprintf("--repetitions must be at least 1, got %d", f.repetitions))
	}
	if f.maxTokens < 1 {
		problems = append(problems, fmt.Sprintf("--max-tokens must be at least 1, got %d", f.maxTokens))
	}
	if f.warmup < 0 {
		problems = append(problems, fmt.Sprintf("--warmup must be at least 0, got %d", f.warmup))
	}
	if f.cachePolicy.val != "" {
		fmt.Fprintln(e.stderr, "Warning: --cache-policy applies to --workload runs only; ignored for the prompt sweep")
	}
	for _, name := range []string{"slo", "case-tag"} {
		if f.given(name) {
			fmt.Fprintf(e.stderr, "Warning: --%s applies to --workload runs only; ignored for the prompt sweep\n", name)
		}
	}
	return cfg, problems
}

// splitExtraBodies splits "{…},{…}" between a "}" and a "{" separated by
// a comma and optional spaces, then strips spaces and quotes from each
// piece (reference: re.split(r"(?<=})\s*,\s*(?={)", …) and
// .strip().strip("'\"")), so both '{"a":1}','{"b":2}' and {"a":1},{"b":2}
// work.
func splitExtraBodies(s string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '}' {
			continue
		}
		j := i + 1
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		if j >= len(s) || s[j] != ',' {
			continue
		}
		j++
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		if j < len(s) && s[j] == '{' {
			parts = append(parts, s[start:i+1])
			start = j
			i = j - 1
		}
	}
	parts = append(parts, s[start:])
	for k, p := range parts {
		parts[k] = strings.Trim(strings.TrimSpace(p), `'"`)
	}
	return parts
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == '\v'
}

// runSweepMode runs the prompt sweep (reference: run_bench_serve).
func runSweepMode(ctx context.Context, e *env, f *benchFlags) int {
	format := outputFormat(f.format.val, f.output, "table")
	var pr problems
	commonChecks(f, &pr)
	cfg, flagProblems := sweepConfig(e, f)
	pr.usage = append(pr.usage, flagProblems...)
	if format == "sqlite" && f.output == "" {
		pr.addUsage("--output is required when --format sqlite")
	}
	if pr.empty() {
		if err := sweep.Validate(cfg); err != nil {
			addSweepProblems(&pr, err)
		}
	}
	if err := checkOutput(f.output, format); err != nil {
		pr.addInput("%v", err)
	}
	if !pr.empty() {
		return pr.report(e)
	}
	if code, ok := checkServer(ctx, e, f); !ok {
		return code
	}
	rows, runErr := sweep.Run(ctx, cfg)
	if runErr != nil && len(rows) == 0 {
		fmt.Fprintf(e.stderr, "benchserve: %v\n", runErr)
		if ctx.Err() != nil {
			return ExitFailed
		}
		return ExitUsage
	}
	if code := writeSweep(e, rows, format, f.output); code != ExitOK {
		return code
	}
	if runErr != nil {
		fmt.Fprintf(e.stderr, "benchserve: %v\n", runErr)
		return ExitFailed
	}
	for _, r := range rows {
		if !r.Validated {
			return ExitFailed
		}
	}
	return ExitOK
}

func writeSweep(e *env, rows []results.SweepResult, format, output string) int {
	return writeOutput(e, format, output, outputMessages{sqlite: "\nSQLite results written to %s\n", file: "\nResults written to %s\n", beforeStdout: "\n"},
		func() error { return results.WriteSweepSQLite(rows, output) },
		func() ([]byte, error) { return results.FormatSweep(rows, format) },
		func() ([]byte, error) { return results.FormatSweep(rows, "json") })
}

// addSweepProblems files each problem of a sweep.Validate error (the
// leaves of its joined errors): those marked with sweep.ErrInputFile as
// input problems, the rest (values given in flags) as usage problems.
func addSweepProblems(pr *problems, err error) {
	add := func(to *[]string, err error) {
		*to = append(*to, strings.Split(err.Error(), "\n")...)
	}
	var walk func(error)
	walk = func(err error) {
		multi, ok := err.(interface{ Unwrap() []error })
		if !ok {
			add(&pr.usage, err)
			return
		}
		kids := multi.Unwrap()
		if slices.Contains(kids, sweep.ErrInputFile) {
			add(&pr.input, err)
			return
		}
		for _, k := range kids {
			if k != sweep.ErrInput {
				walk(k)
			}
		}
	}
	walk(err)
}

// checkServer probes GET {url}/health. Any HTTP answer means the server is
// reachable. When it is not, it prints why, and when --url was not given
// how to start the embedded fixture, and returns ExitUsage.
func checkServer(ctx context.Context, e *env, f *benchFlags) (int, bool) {
	hc, closeIdle := newHTTPClient(5*time.Second, 1)
	defer closeIdle()
	url := strings.TrimRight(f.url, "/")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/health", nil)
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve: --url %q: %v\n", f.url, err)
		return ExitUsage, false
	}
	if f.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+f.apiKey)
	}
	resp, err := hc.Do(req)
	if err == nil {
		resp.Body.Close()
		return ExitOK, true
	}
	fmt.Fprintf(e.stderr, "benchserve: cannot reach a server at %s: %v\n", url, err)
	if !f.given("url") {
		fmt.Fprintf(e.stderr, "No --url was given and nothing answers at the default %s.\n"+
			"To try benchserve without a model server, start the embedded fixture in another terminal:\n"+
			"    benchserve fixture --addr %s\n"+
			"or point --url at your server.\n", defaultURL, defaultAddr)
	}
	return ExitUsage, false
}

// isTerminal reports whether w is a terminal (a live progress line can be
// redrawn there).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
