package cli

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/sweep"
	"github.com/benchserve/benchserve/results"
)

// sweepConfig turns the flags into a sweep.Config, collecting every
// problem (reference: the parsing half of bench_serve_command).
func sweepConfig(e *env, f *benchFlags) (sweep.Config, []string) {
	var problems []string
	cfg := sweep.Config{
		PromptFile: f.promptFile, SystemPromptFile: f.systemPromptFile, PromptsDir: f.promptsDir,
		// As the reference's CLI: a system prompt file implies skipping the
		// preflight, which would warm the cache being measured.
		SkipPreflightTokenCount: f.skipPreflightTokenCount || f.systemPromptFile != "",
		MaxTokens:               f.maxTokens, Repetitions: f.repetitions, Warmup: f.warmup,
		NoValidate: f.validate.val == "false", NoScrape: f.scrapeMetrics.val == "false",
		Tag: f.tag.val, Report: sweepPrinter(e.stderr),
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
	format := e.outputFormat(f.format.val, f.output, "table")
	var pr problems
	commonChecks(f, &pr, nil)
	if f.given("endpoint") {
		pr.addUsage("--endpoint applies to --workload runs; a prompt sweep sends chat completions")
	}
	for _, name := range []string{"burstiness", "duration", "max-concurrency", "mix", "goodput", "shard", "start-at"} {
		if f.given(name) {
			pr.addUsage("--%s applies to --workload runs; a prompt sweep takes --request-rate (a list), --num-prompts and --seed", name)
		}
	}
	cfg, flagProblems := sweepConfig(e, f)
	if f.given("request-rate") {
		for _, r := range f.load.requestRate {
			if !math.IsInf(r, 1) { // inf: the reference's closed round
				cfg.Rates = append(cfg.Rates, r)
			} else {
				cfg.Rates = append(cfg.Rates, 0)
			}
		}
		cfg.RateRequests, cfg.Seed = f.load.numPrompts, f.load.seed
	} else if f.given("num-prompts") || f.given("seed") {
		pr.addUsage("--num-prompts and --seed go with --request-rate in a prompt sweep")
	}
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
		return pr.report(e, "")
	}
	conns := 1
	for _, n := range cfg.Concurrencies {
		conns = max(conns, n)
	}
	r, code := connect(ctx, e, runner.Config{
		URL: f.url, Model: f.model, APIKey: f.apiKey, RequestTimeout: f.requestTimeout(),
		NoScrape: cfg.NoScrape, Conns: conns, NoCalibration: f.dataset.noCalibration,
		Warn: e.warn,
		Note: e.note,
	}, f.given("url"))
	if r == nil {
		return code
	}
	defer r.Close()
	cfg.Journal = resultio.JournalFor(f.output)
	sw, err := sweep.Start(ctx, r, cfg)
	if err != nil {
		fmt.Fprintf(e.stderr, "benchserve: %s\n", explain(err))
		return ExitUsage
	}
	sess := sw.Session()
	if _, moved := sess.Journal(); moved != "" {
		fmt.Fprintf(e.stderr, "benchserve: an earlier run's journal was moved to %s (benchserve recover turns it into rows)\n", moved)
	}
	outcomes, runErr := sw.Run(ctx)
	journal, _ := sess.Journal()
	if runErr != nil && len(outcomes) == 0 {
		fmt.Fprintf(e.stderr, "benchserve: %s\n", explain(runErr))
		if jerr := sess.FinishJournal(false); jerr != nil {
			fmt.Fprintf(e.stderr, "benchserve: journal: %s\n", explain(jerr))
		}
		if ctx.Err() != nil {
			fmt.Fprintf(e.stderr, "benchserve: every measured request is in %s (benchserve recover %s --output FILE)\n", journal, journal)
			return ExitFailed
		}
		return ExitUsage
	}
	rows := make([]results.SweepResult, len(outcomes))
	failed := 0
	for i, o := range outcomes {
		rows[i] = o.Row
		if !o.OK() {
			failed++
		}
	}
	code = writeSweep(e, rows, format, f.output)
	if jerr := sess.FinishJournal(code == ExitOK); jerr != nil {
		fmt.Fprintf(e.stderr, "benchserve: journal: %s\n", explain(jerr))
	}
	if code != ExitOK {
		fmt.Fprintf(e.stderr, "benchserve: every finished row is also in %s (benchserve recover %s --output FILE)\n", journal, journal)
		return code
	}
	if runErr != nil {
		fmt.Fprintf(e.stderr, "benchserve: %s\n", explain(runErr))
		return ExitFailed
	}
	if failed > 0 {
		// A capped answer (finish_reason "length") is the expected ending
		// of a --max-tokens benchmark: its row is not validated, as the
		// reference's, but it does not fail the exit status; a failed
		// request or an empty answer does.
		fmt.Fprintf(e.stderr, "benchserve: %d of %d sweep runs had failed requests or invalid answers (see the FAIL lines above)\n", failed, len(outcomes))
		return ExitFailed
	}
	return ExitOK
}
