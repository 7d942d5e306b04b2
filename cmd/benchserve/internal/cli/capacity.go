package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/benchserve/benchserve/internal/capacity"
	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/serverinfo"
	"github.com/benchserve/benchserve/internal/stats"
	"github.com/benchserve/benchserve/internal/sweep"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// capacityFlags are the flags of `benchserve capacity`.
type capacityFlags struct {
	url, model, apiKey      string
	workload, prompts       string
	promptsDir              string
	maxTokens               int
	caseTags                listValue
	slo                     listValue
	by                      string
	start, maxRate          float64
	probeDuration           durationValue
	probeRequests           int
	extensions              int
	fit                     bool
	maxTime                 durationValue
	precision, maxErrorRate float64
	burstiness              float64
	seed                    uint64
	maxConcurrency          int
	goodput                 listValue
	requestTimeoutS         float64
	output                  string
	floor                   float64
	dataset                 datasetFlags
	numPrompts              int
}

const capacityUsage = `Usage: benchserve capacity --url URL (--workload FILE | --prompts SET | --dataset-name NAME)
                           --slo EXPR [--slo EXPR]... [flags]

Finds the highest request rate (--by rate) or concurrency (--by concurrency)
at which every --slo holds with confidence and the error rate stays within
--max-error-rate: it ramps up (doubling from --start; without --start, a rate
search measures the service rate with a 64-request closed-loop burst, starts at
half of it and steps by 1.5, down when that probe does not pass) until a probe
does not pass, then bisects between the highest passing and the lowest not
passing load, within --max-time. Each probe leaves out its warm-up (until the requests
in flight have built up, at least 10% of it), measures enough requests for the
SLOs' percentiles (5 beyond the highest: 100 for a p95) and gives each
percentile a 95% interval (binomial order statistics over the effective sample
size): it passes when every interval lies within its threshold, fails when one
lies beyond it, and is extended (--extensions) while one reaches across. A
probe whose arrivals outrun its completions is stopped early as saturated.
Every request is judged by its workload case's checks (a failed check counts
as an error). Each probe is printed as it finishes; the last line gives the
capacity with its interval and why the search stopped; --output writes
capacity.json (capacity_rps or capacity_concurrency, its interval, the SLOs
and every probe). Exit status: 0 when the search finished (and the interval's
lower end is at least --floor), 1 when nothing was measured, no probe passed,
no load passed with confidence (an interval open below: --fit) or the lower
end is below --floor, 2 for usage errors.

Flags:
`

// runCapacity is `benchserve capacity`.
func runCapacity(ctx context.Context, e *env, args []string) int {
	var f capacityFlags
	fs := flag.NewFlagSet("benchserve capacity", flag.ContinueOnError)
	fs.StringVar(&f.url, "url", defaultURL, "Base `URL` of the running server")
	fs.StringVar(&f.model, "model", e.getenv("BENCHSERVE_MODEL"), "`Model` ID (default: $BENCHSERVE_MODEL, else the server's)")
	fs.StringVar(&f.apiKey, "api-key", e.getenv("BENCHSERVE_API_KEY"), "Bearer `token` (default: $BENCHSERVE_API_KEY)")
	fs.StringVar(&f.workload, "workload", "", "workload `FILE` whose cases are the request mix")
	fs.StringVar(&f.prompts, "prompts", "", "prompt `SET` (builtin name or file) whose prompts are the request mix, instead of --workload")
	fs.StringVar(&f.promptsDir, "prompts-dir", e.getenv("BENCHSERVE_PROMPTS_DIR"), "`Directory` the builtin prompt set names are loaded from")
	fs.IntVar(&f.maxTokens, "max-tokens", results.DefaultMaxTokens, "max_tokens per request with --prompts (a length ending is accepted)")
	fs.Var(&f.caseTags, "case-tag", "only the workload cases having any of these `tags`")
	fs.Var(&f.slo, "slo", "threshold `EXPR` every passing probe meets, e.g. 'ttft_p95_ms <= 500' (repeatable; at least one)")
	fs.StringVar(&f.by, "by", "rate", "search the request `rate` (req/s, open loop) or the concurrency (streams, closed loop)")
	fs.Float64Var(&f.start, "start", 0, "first probe's `load` (default: by rate, half the service rate a 64-request closed-loop burst of 16 streams measures; by concurrency, 1 stream)")
	fs.Float64Var(&f.maxRate, "max-rate", 0, "highest `load` probed (req/s with --by rate, streams with --by concurrency; default: the search's own cap)")
	fs.Var(&f.probeDuration, "probe-duration", "each probe lasts at least `D` of arrivals (e.g. 30s)")
	fs.IntVar(&f.probeRequests, "probe-requests", 0, "`N` measured requests (after the warm-up) at which a probe's verdict is first looked at (default: 5 beyond the SLOs' highest percentile, 100 for a p95; at least 50)")
	fs.IntVar(&f.extensions, "extensions", 0, "times a probe whose interval reaches across a threshold is extended, doubling its measured requests (default 3; -1: none)")
	fs.BoolVar(&f.fit, "fit", false, "off by default; by rate only: estimate the capacity from a logistic fit of the share of requests beyond each SLO's limit across probes of 200 measured requests near the crossing (at most 1,700 requests in all; status budget_spent when its interval is wider than --precision) instead of bisecting. In simulation it takes half the requests of bisection with about twice its median error and wider intervals (docs/benchmarks.md)")
	fs.Var(&f.maxTime, "max-time", "cap on the whole search `D` (default: none beyond the bounded probe count)")
	fs.Float64Var(&f.precision, "precision", 0, "stop bisecting when the failing load is within this `fraction` of the passing one (default 0.1)")
	fs.Float64Var(&f.maxErrorRate, "max-error-rate", 0.01, "highest error `rate` of a passing probe, in [0, 1]")
	fs.Float64Var(&f.burstiness, "burstiness", 1, "gamma shape `B` of the arrivals (1 = Poisson)")
	fs.Uint64Var(&f.seed, "seed", 0, "`seed` of the arrival schedules (each probe draws its own from it)")
	fs.IntVar(&f.maxConcurrency, "max-concurrency", 0, "at most `C` requests in flight in a rate probe (default: no cap)")
	fs.Var(&f.goodput, "goodput", "per-request SLO for each probe's goodput, `KEY:MS` pairs (ttft:500 tpot:50 e2el:30000)")
	fs.Float64Var(&f.requestTimeoutS, "request-timeout-s", defaultRequestTimeoutS, "HTTP transport timeout in `seconds`; <= 0 disables")
	fs.StringVar(&f.output, "output", "", "write capacity.json to this `path`")
	fs.Float64Var(&f.floor, "floor", 0, "exit 1 when the lower end of the capacity's 95% interval is below this `load` (a CI gate: capacity >= floor with confidence)")
	addDatasetFlags(fs, &f.dataset)
	fs.IntVar(&f.numPrompts, "num-prompts", 0, "`N` requests a --dataset-name generates, the mix every probe cycles through (default 1000)")
	help := func(w io.Writer) { fmt.Fprint(w, capacityUsage); printFlags(w, fs) }
	if code, ok := parseFlags(e, fs, "capacity", help, expandNargs(args, "goodput")); !ok {
		return code
	}

	e = e.redacting(f.url, f.apiKey) // no URL secret or echoed API key in any output
	expandHome(&f.output, &f.workload, &f.prompts, &f.promptsDir, &f.dataset.path)
	var pr problems
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	cfg, l := f.searchConfig(&pr, given)
	if fs.NArg() > 0 {
		pr.addUsage("%s", unexpectedArgs(fs.Args()))
	}
	if u, err := serverinfo.NormalizeBaseURL(f.url); err != nil {
		pr.addUsage("--url: %s", strings.TrimPrefix(err.Error(), "serverinfo: "))
	} else {
		f.url = u
	}
	if msg := checkSeconds(f.requestTimeoutS); msg != "" {
		pr.addUsage("--request-timeout-s: %s", msg)
	}
	if f.output != "" {
		if err := checkOutput(f.output, "json"); err != nil {
			pr.addInput("%v", err)
		}
	}
	w := f.mix(&pr)
	if w != nil && len(w.SLO) > 0 && pr.empty() {
		// The workload's defaults.slo hold in every probe too, before
		// --slo, as a bench-serve run of it judges them.
		cfg = capacity.WithWorkloadSLOs(cfg, w)
		if err := cfg.Validate(); err != nil {
			pr.addInput("%s: defaults.slo: %s", f.workload, strings.TrimPrefix(strings.TrimPrefix(err.Error(), "capacity: "), "config: "))
		}
	}
	refuseOutputOverInput(f.output, runInputs(f.workload, w, f.prompts, f.promptsDir, "", "", f.dataset.path), &pr)
	if !pr.empty() {
		return pr.report(e, "capacity")
	}

	timeout := secondsTimeout(f.requestTimeoutS)
	conns := max(f.maxConcurrency, 64)
	if cfg.By == capacity.ByConcurrency && cfg.Max > 0 {
		conns = max(conns, int(cfg.Max))
	}
	r, code := connect(ctx, e, runner.Config{URL: f.url, Model: f.model, APIKey: f.apiKey, RequestTimeout: timeout, NoScrape: true, Conns: conns,
		NoCalibration: f.dataset.noCalibration, Warn: e.warn, Note: e.note}, given["url"])
	if r == nil {
		return code
	}
	defer r.Close()
	fmt.Fprintf(e.stderr, "Capacity search by %s on %s (model %s), %d cases in the mix, SLOs: %s, max error rate %g\n",
		cfg.By, present.Path(serverinfo.RedactURL(r.URL())), present.Name(r.Model()), len(w.Select(f.caseTags)), thresholdList(cfg.SLOs), f.maxErrorRate)
	var ctl io.Writer
	if stderrIsTerminal(e.stderr) {
		ctl = e.control()
	}
	live := newCapacityLive(e.stderr, ctl)
	cfg.OnStartFrom = func(start float64, why string) { live.line("Starting at %s req/s: %s", stats.FormatLoad(start), why) }
	cfg.OnStart = func(s capacity.ProbeSpec) { live.line("  %s", capacity.StartLine(s)) }
	cfg.OnProgress = live.update
	cfg.OnProbe = func(p results.CapacityProbe) { live.probeDone(); live.line("  %s", p) }
	cfg.Client = clientLimits // the load runs' (a test's hook; nil: the defaults)
	probe := capacity.SessionProbe(r, w, runner.RunOptions{Tags: f.caseTags}, l, nil)
	res, err := capacity.Search(ctx, probe, cfg)
	live.close()
	if err != nil && len(res.Probes) == 0 {
		fmt.Fprintf(e.stderr, "benchserve capacity: %s\n", explain(err))
		return ExitFailed
	}
	if len(res.Probes) == 0 {
		// Nothing to report: no capacity.json that looks like an answer.
		fmt.Fprintf(e.stderr, "benchserve capacity: nothing was measured: %s\n", present.Message(res.Reason))
		if err != nil {
			fmt.Fprintf(e.stderr, "benchserve capacity: %s\n", explain(err))
		}
		return ExitFailed
	}
	fmt.Fprintf(e.stderr, "Capacity: %s (%s); %d probes in %v; stopped because %s\n",
		res.Headline(), res.Interval.Method, len(res.Probes), res.Elapsed.Round(time.Second), present.Message(res.Reason))
	data, jerr := resultio.FormatCapacity(res)
	if jerr != nil {
		fmt.Fprintf(e.stderr, "benchserve capacity: %s\n", explain(jerr))
		return ExitFailed
	}
	if f.output != "" {
		if werr := resultio.WriteFileAtomic(f.output, append(data, '\n'), 0o644); werr != nil {
			return keepResults(e, f.output, werr, func() ([]byte, error) { return data, nil })
		}
		fmt.Fprintf(e.stderr, "Capacity search written to %s\n", f.output)
	} else {
		e.printData("json", data)
	}
	return capacityExit(e, res, err, f.floor)
}

// capacityExit says what a finished search's exit status is, and why
// when it is not 0 (the help's "Exit status").
func capacityExit(e *env, res results.Capacity, err error, floor float64) int {
	switch {
	case err != nil:
		fmt.Fprintf(e.stderr, "benchserve capacity: %s\n", explain(err))
		return ExitFailed
	case res.Status == capacity.StatusFirstFailed:
		return ExitFailed
	case res.Status == capacity.StatusClientLimited:
		// Not the server's capacity: this client's (exit 1, as a load
		// run whose client could not keep up).
		fmt.Fprintf(e.stderr, "Error: the search is invalid beyond %s: the client could not keep up\n", stats.FormatLoad(res.Capacity))
		return ExitFailed
	case !res.Measured:
		fmt.Fprintf(e.stderr, "benchserve capacity: no probe passed: no capacity to report\n")
		return ExitFailed
	case !(res.Interval.Low > 0):
		// A fit's estimate with no load confirmed below it: the search
		// did not show the server holds any load (exit 1, as no probe
		// passed).
		fmt.Fprintf(e.stderr, "benchserve capacity: no load passed with confidence (the interval's lower end is open): the estimate %s is not confirmed\n", stats.FormatLoad(res.Capacity))
		return ExitFailed
	case floor > 0:
		if ferr := res.AtLeast(floor); ferr != nil {
			fmt.Fprintf(e.stderr, "benchserve capacity: %s\n", explain(ferr))
			return ExitFailed
		}
	}
	return ExitOK
}

// searchConfig turns the flags into the search's configuration and the
// load every probe shares, adding every problem to pr. given names the
// flags on the command line: a value given as 0 is refused where 0 would
// silently mean the default.
func (f *capacityFlags) searchConfig(pr *problems, given map[string]bool) (capacity.Config, runner.Load) {
	for _, fl := range []struct {
		name string
		v    float64
	}{{"start", f.start}, {"max-rate", f.maxRate}, {"precision", f.precision}} {
		if given[fl.name] && !(fl.v > 0) {
			pr.addUsage("--%s: want a value > 0, got %v (leave it out for the default)", fl.name, fl.v)
		}
	}
	if math.IsNaN(f.floor) || f.floor < 0 || math.IsInf(f.floor, 0) {
		pr.addUsage("--floor: want a load >= 0 (0: no floor), got %v", f.floor)
	}
	by, err := capacity.ParseBy(f.by)
	if err != nil {
		pr.addUsage("--by: %v", err)
	}
	if f.fit && by == capacity.ByConcurrency {
		pr.addUsage("--fit: the fit searches by rate only; drop --fit or --by concurrency")
	}
	ths, err := results.ParseThresholds(f.slo...)
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			pr.addUsage("--slo: %s", line)
		}
	}
	if len(f.slo) == 0 {
		pr.addUsage("--slo: give at least one threshold the capacity must keep, e.g. --slo 'ttft_p95_ms <= 500'")
	}
	if math.IsNaN(f.maxErrorRate) || f.maxErrorRate < 0 || f.maxErrorRate > 1 {
		pr.addUsage("--max-error-rate: want a number in [0, 1], got %v", f.maxErrorRate)
		f.maxErrorRate = 0 // said once: not again by cfg.Validate
	}
	cfg := capacity.Config{CapacitySearch: results.CapacitySearch{SLOs: ths, MaxErrorRate: f.maxErrorRate, By: by,
		Start: f.start, Max: f.maxRate, ProbeRequests: f.probeRequests, ProbeDuration: time.Duration(f.probeDuration),
		MaxTime: time.Duration(f.maxTime), Precision: f.precision, Extensions: f.extensions, Fit: f.fit}}
	l := runner.Load{Burstiness: f.burstiness, Seed: f.seed, MaxConcurrency: f.maxConcurrency}
	if len(f.goodput) > 0 {
		slo, err := loadgen.ParseGoodput(f.goodput...)
		if err != nil {
			pr.addUsage("--goodput: %v", err)
		}
		l.Goodput = &slo
		cfg.Goodput = &slo
	}
	if err := l.Check(); err != nil {
		pr.addUsage("%v", err)
	}
	if err := cfg.Validate(); err != nil {
		pr.addUsage("%v", err)
	}
	return cfg, l
}

// mix loads the request mix: the workload's cases, or one case per prompt
// of a prompt set (basic validation, a length ending accepted).
func (f *capacityFlags) mix(pr *problems) *workloads.Workload {
	if f.dataset.set() || f.numPrompts != 0 {
		if !f.checkTraceCapacity(pr) || !f.checkSessionsCapacity(pr) {
			return nil
		}
		return f.datasetMix(pr)
	}
	f.dataset.generator(pr, 0, 0) // reports generator flags given without --dataset-name
	switch {
	case f.workload != "" && f.prompts != "":
		pr.addUsage("give --workload or --prompts, not both")
		return nil
	case f.workload != "":
		w, err := workloads.Load(f.workload)
		if err == nil {
			w, err = runner.ExpandGenerator(w) // a "generator" file's cases, for the tag check
		}
		if err != nil {
			pr.addInput("%v", strings.TrimPrefix(err.Error(), "runner: "))
			return nil
		}
		if len(w.Select(f.caseTags)) == 0 {
			pr.addUsage("--case-tag %s: no case of %s has any of these tags", strings.Join(f.caseTags, ","), f.workload)
		}
		return w
	case f.prompts != "":
		prompts, err := sweep.LoadPromptSetFrom(f.promptsDir, f.prompts)
		if err != nil {
			pr.addInput("%v", err)
			return nil
		}
		if f.maxTokens < 1 {
			pr.addUsage("--max-tokens must be at least 1, got %d", f.maxTokens)
		}
		// The sweep's cases: a capped answer is the engine's "capped",
		// which counts as a success in a probe as in a sweep row.
		return workloads.FromPrompts(f.prompts, prompts, workloads.PromptOptions{MaxTokens: f.maxTokens})
	}
	pr.addUsage("give the request mix: --workload FILE or --prompts SET (or --dataset-name NAME)")
	return nil
}

// thresholdList is ths as written, "; " between them.
func thresholdList(ths []results.Threshold) string {
	out := make([]string, len(ths))
	for i, th := range ths {
		out[i] = th.Expr
	}
	return strings.Join(out, "; ")
}
