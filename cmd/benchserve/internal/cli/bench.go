package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/benchserve/benchserve/progress"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/runner"
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
	fs.Usage = func() { benchUsage(e, fs) }
	return f
}

func benchUsage(e *env, fs *flag.FlagSet) {
	w := e.stderr
	fmt.Fprintf(w, `Usage:
  benchserve [bench-serve] --workload FILE [flags]   run a declarative workload
  benchserve [bench-serve] [--prompts short,medium,long] [flags]   run a prompt sweep
  benchserve fixture [--addr %s]   serve the embedded fixture server
  benchserve version

Benchmarks a running OpenAI-compatible server through its HTTP API, with the
flags, inputs and outputs of vllm-mlx bench-serve. Progress goes to stderr,
results to stdout or --output.

Flags (--name and -name both work):
`, defaultAddr)
	printFlags(w, fs)
	fmt.Fprint(w, `
Exit status:
  0  every case passed its checks (every sweep row validated)
  1  a case failed its checks, a sweep row is not validated, or the run was interrupted
  2  usage or input errors (bad flags, workload or prompt set errors, no reachable
     server); nothing was measured
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

// usageErrors prints every problem and returns ExitUsage.
func usageErrors(e *env, problems []string) int {
	for _, p := range problems {
		fmt.Fprintf(e.stderr, "benchserve: %s\n", p)
	}
	fmt.Fprintln(e.stderr, "Run 'benchserve --help' for usage.")
	return ExitUsage
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
	format := f.format.val
	if format == "auto" {
		format = "json"
	}
	var problems []string
	if format == "sqlite" && f.output == "" {
		problems = append(problems, "--output is required when --format sqlite")
	}
	if f.repetitions < 1 {
		problems = append(problems, fmt.Sprintf("--repetitions must be at least 1, got %d", f.repetitions))
	}
	w, err := workload.Load(f.workload.val)
	if err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return usageErrors(e, problems)
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
	var live *progress.Reporter
	if isTerminal(e.stderr) {
		live = progress.New(e.stderr, len(w.Cases)*f.repetitions)
	}
	p, runErr := r.Run(ctx, w, runner.RunOptions{
		Repetitions: f.repetitions,
		CachePolicy: f.cachePolicy.val,
		Progress: func(rec results.Record, done, total int) {
			if live != nil {
				live.Done(rec.CaseID, rec.OK)
				return
			}
			status := "ok"
			if !rec.OK {
				status = "FAIL"
			}
			fmt.Fprintf(e.stderr, "  [%d/%d] %s ... %.0fms %s (%d/%d)\n",
				rec.Repetition+1, f.repetitions, rec.CaseID, rec.Metrics.E2ELms, status, done, total)
		},
	})
	live.Finish()
	if p == nil {
		fmt.Fprintf(e.stderr, "benchserve: %v\n", runErr)
		return ExitUsage
	}
	if code := writeWorkload(e, p, format, f.output); code != ExitOK {
		return code
	}
	if runErr != nil {
		fmt.Fprintf(e.stderr, "benchserve: %v\n", runErr)
		return ExitFailed
	}
	if !p.Summary.Passed {
		return ExitFailed
	}
	return ExitOK
}

func writeWorkload(e *env, p *results.Payload, format, output string) int {
	return writeOutput(e, format, output, outputMessages{sqlite: "Workload SQLite results written to %s\n", file: "Workload results written to %s\n"},
		func() error { return results.WriteSQLite(p, output) },
		func() ([]byte, error) { return results.Format(p, format) })
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
func writeOutput(e *env, format, output string, msg outputMessages, sqlite func() error, render func() ([]byte, error)) int {
	if format == "sqlite" {
		if err := sqlite(); err != nil {
			fmt.Fprintf(e.stderr, "benchserve: %v\n", err)
			return ExitFailed
		}
		fmt.Fprintf(e.stderr, msg.sqlite, output)
		return ExitOK
	}
	data, err := render()
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve: %v\n", err)
		return ExitFailed
	}
	if output != "" {
		if err := results.WriteFileAtomic(output, data, 0o644); err != nil {
			fmt.Fprintf(e.stderr, "benchserve: %v\n", err)
			return ExitFailed
		}
		fmt.Fprintf(e.stderr, msg.file, output)
		return ExitOK
	}
	fmt.Fprint(e.stderr, msg.beforeStdout)
	fmt.Fprintf(e.stdout, "%s\n", data)
	return ExitOK
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
	format := f.format.val
	if format == "auto" {
		format = "table"
	}
	cfg, problems := sweepConfig(e, f)
	if format == "sqlite" && f.output == "" {
		problems = append(problems, "--output is required when --format sqlite")
	}
	if len(problems) == 0 {
		if err := sweep.Validate(cfg); err != nil {
			problems = append(problems, strings.Split(strings.TrimPrefix(err.Error(), sweep.ErrInput.Error()+":\n"), "\n")...)
		}
	}
	if len(problems) > 0 {
		return usageErrors(e, problems)
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
		func() ([]byte, error) { return results.FormatSweep(rows, format) })
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
