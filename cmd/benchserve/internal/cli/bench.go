package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/benchserve/benchserve/internal/paths"
	"github.com/benchserve/benchserve/results"
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
	saveResult              saveResultFlags
	apiKey                  string
	workload                optString
	prompts                 string
	promptFile              string
	promptsDir              string
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
	thresholds              []results.Threshold // slo, parsed once by commonChecks
	caseTags                listValue
	envTags                 string
	load                    loadFlags
	endpoint                *choiceValue
	dataset                 datasetFlags
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
		endpoint:      newChoice("", "chat", "responses", "completions", "embeddings"),
	}
	fs := flag.NewFlagSet("benchserve", flag.ContinueOnError)
	f.fs = fs
	fs.StringVar(&f.url, "url", defaultURL, "Base `URL` of the running server")
	fs.StringVar(&f.model, "model", e.getenv("BENCHSERVE_MODEL"), "`Model` ID to benchmark (default: $BENCHSERVE_MODEL, else auto-detected from the server)")
	fs.StringVar(&f.apiKey, "api-key", e.getenv("BENCHSERVE_API_KEY"), "Bearer `token` sent with every request (default: $BENCHSERVE_API_KEY)")
	fs.Var(&f.workload, "workload", "`Path` to a declarative workload JSON file. When set, bench-serve runs\ncontract-style cases with per-case quality checks and comparison-only\npolicy timeouts instead of the prompt sweep.")
	fs.StringVar(&f.prompts, "prompts", defaultPrompts, "Comma-separated prompt set `names` or paths (builtin: short, medium, long, thinking)")
	fs.StringVar(&f.promptsDir, "prompts-dir", e.getenv("BENCHSERVE_PROMPTS_DIR"), "`Directory` the builtin prompt set names are loaded from (DIR/<name>.json), e.g.\nan installed vllm-mlx's bench_serve_prompts/, so short, medium, long and thinking\nsend the reference's own texts and reproduce its rows exactly (default:\n$BENCHSERVE_PROMPTS_DIR, else benchserve's texts: same counts and sizes as the\nreference's, not the same words). benchserve addition")
	fs.StringVar(&f.promptFile, "prompt-file", "", "`Path` to an additional prompt file (JSON list of message dicts, or of message lists)")
	fs.StringVar(&f.systemPromptFile, "system-prompt-file", "", "`Path` to a text file whose contents are prepended as a system message to\nevery prompt (unless it starts with one). Implies --skip-preflight-token-count.")
	fs.BoolVar(&f.skipPreflightTokenCount, "skip-preflight-token-count", false, "Skip the max_tokens=1 request that counts prompt tokens per prompt set\n(it warms the prefix cache, which defeats cold-vs-warm comparisons)")
	fs.StringVar(&f.concurrency, "concurrency", defaultConcurrency, "Comma-separated concurrency `levels` to sweep")
	fs.IntVar(&f.maxTokens, "max-tokens", results.DefaultMaxTokens, "Maximum `tokens` to generate per request (sweeps)")
	fs.IntVar(&f.repetitions, "repetitions", 3, "`Number` of repetitions per sweep configuration or workload case")
	fs.IntVar(&f.warmup, "warmup", defaultWarmup, "Warmup `rounds` before the first measured repetition (sweeps)")
	fs.Var(&f.enableThinking, "enable-thinking", "Enable thinking mode: \"true\", \"false\", or \"true,false\" to sweep `both`")
	fs.Var(&f.extraBody, "extra-body", "Comma-separated `JSON` objects to pass as extra body parameters, e.g. '{\"a\":1},{\"b\":2}'")
	fs.StringVar(&f.output, "output", "", "File `path` to write results to (default: stdout); written atomically")
	addSaveResultFlags(fs, &f.saveResult)
	fs.Var(f.format, "format", "Output `format`: auto, table, json, csv, sql, sqlite\n(auto = table for prompt sweeps, json for workloads; sqlite requires --output\nand appends to the file)")
	fs.Var(f.validate, "validate", "Validate responses: `true` or false")
	fs.Var(f.scrapeMetrics, "scrape-metrics", "Scrape /metrics before and after each run: `true` or false")
	fs.BoolVar(&f.includeContent, "include-content", false, "Include full generated content in workload JSON output")
	fs.Float64Var(&f.requestTimeoutS, "request-timeout-s", defaultRequestTimeoutS, "HTTP transport timeout in `seconds`; <= 0 disables. Product policy timeouts\nbelong in the workload.")
	fs.Var(f.cachePolicy, "cache-policy", "Workload cache handling: `preserve`, before-run or before-case\n(default: the workload's defaults.cache_policy, else preserve)")
	fs.Var(&f.tag, "tag", "Optional tag `string` stored in every sweep result row")
	fs.Var(&f.overrides, "override-field", "Override sweep result fields as `key=value` pairs (e.g. chip=M4Pro);\nrepeatable, and like the reference several pairs may follow one flag")
	fs.Var(&f.slo, "slo", "Run-level threshold `EXPR` checked after a workload run, e.g. 'ttft_p95_ms <= 500'\n(repeatable; added to the workload's defaults.slo; one PASS/FAIL line each on\nstderr, a failed one exits 1). benchserve addition")
	fs.Var(&f.caseTags, "case-tag", "Run only the workload cases having any of these `tags` (repeatable or\ncomma-separated; default: $BENCHSERVE_TAGS, as the go test plugin). Not --tag,\nwhich labels sweep rows. benchserve addition")
	fs.Var(f.endpoint, "endpoint", "API every workload case is sent to: `chat`, responses, completions or embeddings\n(default: each case's \"endpoint\", else the workload's defaults.endpoint, else chat;\nprotocol contracts keep theirs). Workload runs and their load runs only. benchserve addition")
	addLoadFlags(fs, &f.load, e.getenv)
	addDatasetFlags(fs, &f.dataset)
	f.envTags = e.getenv("BENCHSERVE_TAGS")
	return f
}

// benchUsage is `benchserve --help`: the commands, then bench-serve's
// flags and exit statuses.
func benchUsage(w io.Writer, fs *flag.FlagSet) {
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
	if code, ok := parseFlags(e, f.fs, "", func(w io.Writer) { benchUsage(w, f.fs) }, expandNargs(args, "override-field", "goodput")); !ok {
		return code
	}
	if f.fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "benchserve: %s\n%s\n", unexpectedArgs(f.fs.Args()), helpPointer(""))
		return ExitUsage
	}
	e = e.redacting(f.url, f.apiKey) // no password or token of --url, nor the API key a server echoes, in any output
	if f.output == "-" {
		f.output = "" // the Unix spelling of stdout, the default (the reference would write a file named "-")
	}
	expandHome(&f.output, &f.workload.val, &f.promptFile, &f.systemPromptFile, &f.promptsDir, &f.dataset.path, &f.saveResult.dir)
	f.prompts = expandList(f.prompts)
	var saved problems
	if f.resolveSaveResult(&saved, time.Now()); !saved.empty() {
		return saved.report(e, "")
	}
	if !f.dataset.set() {
		var pr problems
		f.dataset.generator(&pr, 0, 0) // only reports generator flags given without --dataset-name
		if !pr.empty() {
			return pr.report(e, "")
		}
	}
	if f.workload.set || f.dataset.set() {
		return runWorkloadMode(ctx, e, f)
	}
	return runSweepMode(ctx, e, f)
}

// expandHome expands a leading "~" in each path flag: the one place the
// CLI does it (paths.ExpandHome); everything after the door uses the
// paths as they are.
func expandHome(ps ...*string) {
	for _, p := range ps {
		*p = paths.ExpandHome(*p)
	}
}

// expandList is expandHome on each entry of a comma-separated list of
// names or paths (a builtin prompt set name is left as it is).
func expandList(s string) string {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		parts[i] = paths.ExpandHome(strings.TrimSpace(p))
	}
	return strings.Join(parts, ",")
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

func (f *benchFlags) requestTimeout() time.Duration { return secondsTimeout(f.requestTimeoutS) }

// defaultRequestTimeoutS is --request-timeout-s's default in every
// command, in seconds (the reference's 300).
const defaultRequestTimeoutS = 300

// secondsTimeout is a --request-timeout-s value as runner.Config's
// RequestTimeout: 0 or less disables the timeout, which runner spells -1
// (its 0 means the default); a value checkSeconds refuses (the commands
// report it before connecting) gives -1 too.
func secondsTimeout(s float64) time.Duration {
	if !(s > 0) || checkSeconds(s) != "" {
		return -1
	}
	return time.Duration(s * float64(time.Second))
}

// minTimeout is the smallest positive timeout a duration flag accepts.
const minTimeout = time.Millisecond

// checkSeconds says what is wrong with a timeout in seconds given in a
// flag, "" when it is usable: <= 0 (none, the reference's meaning) or a
// finite value from 1 ms up to the largest time.Duration (about 292
// years). NaN, infinities, values too large for a time.Duration and
// positive values below 1 ms are refused: they would mean "no timeout"
// silently.
func checkSeconds(s float64) string {
	switch {
	case math.IsNaN(s) || math.IsInf(s, 0):
		return fmt.Sprintf("want a finite number of seconds, got %v", s)
	case s <= 0:
		return "" // none, as the reference's `<= 0`
	case s < minTimeout.Seconds():
		return fmt.Sprintf("%v s is below the smallest timeout of 1 ms (0 disables the timeout)", s)
	case s >= float64(math.MaxInt64)/float64(time.Second):
		return fmt.Sprintf("%v s is too large (at most %d s; 0 disables the timeout)", s, int64(math.MaxInt64/int64(time.Second)))
	}
	return ""
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
	for _, name := range []string{"prompt-file", "prompts-dir", "system-prompt-file", "skip-preflight-token-count", "max-tokens", "enable-thinking", "extra-body", "validate", "tag", "override-field"} {
		if f.given(name) {
			ignored = append(ignored, "--"+name+"="+f.fs.Lookup(name).Value.String())
		}
	}
	if len(ignored) == 0 {
		return ""
	}
	return "Warning: --workload mode ignores sweep-only args: " + strings.Join(ignored, ", ")
}
