package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/benchserve/benchserve/checks"
	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/openai"
	"github.com/benchserve/benchserve/internal/paths"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/scrape"
	"github.com/benchserve/benchserve/internal/serverinfo"
	"github.com/benchserve/benchserve/internal/stream"
	"github.com/benchserve/benchserve/results"
)

// Defaults of the reference's run_bench_serve, used for zero Config fields.
var (
	DefaultPromptSets    = []string{"short", "medium", "long"}
	DefaultConcurrencies = []int{1, 4}
)

const (
	// DefaultMaxTokens is max_tokens per request when Config.MaxTokens is 0.
	DefaultMaxTokens = 256
	// DefaultRepetitions is used when Config.Repetitions is 0.
	DefaultRepetitions = 3
)

// ErrInput marks errors in the sweep's inputs (prompt sets, system prompt
// file, extra bodies, overrides, sizes), found before any request is sent.
// Test with errors.Is; the CLI exits 2 on it.
var ErrInput = errors.New("invalid sweep input")

// ErrInputFile is wrapped, besides ErrInput, by the input problems that
// come from a file's contents or its absence (a prompt set or prompt file
// that does not load, a missing system prompt file), as opposed to a bad
// value given directly (a size, an extra body, an override, the URL). The
// CLI uses it to point only flag mistakes at --help. Test with errors.Is
// on each problem (the leaves of the joined error).
var ErrInputFile = errors.New("input file problem")

// fileError marks an input problem as one of a file (see ErrInputFile).
type fileError struct{ error }

func (e fileError) Unwrap() []error { return []error{e.error, ErrInputFile} }

// Config describes a sweep: what to send. Where to send it (URL, API key,
// HTTP client, timeouts, model) is the runner's (runner.Config), the one
// description of a server every benchserve run uses. Every field's comment
// gives its default, which is the reference's.
type Config struct {
	// PromptSets are builtin names or paths; nil means DefaultPromptSets.
	PromptSets []string
	// PromptsDir, when set, is a directory builtin prompt set names are
	// loaded from (DIR/<name>.json, see LoadPromptSetFrom), e.g. an
	// installed vllm-mlx's bench_serve_prompts/.
	PromptsDir string
	// PromptFile is one more prompt set path, run after PromptSets.
	PromptFile string
	// SystemPromptFile, when set, is read and prepended as a system message
	// to every prompt that does not already start with one.
	SystemPromptFile string
	// SkipPreflightTokenCount skips the max_tokens=1 request per prompt
	// set that counts its first prompt's tokens (it warms the prefix
	// cache). prompt_tokens then comes from the first measured request's
	// usage. The CLI sets it whenever SystemPromptFile is set, as the
	// reference's CLI does.
	SkipPreflightTokenCount bool

	// Concurrencies are the concurrency levels; nil means
	// DefaultConcurrencies. Each must be >= 1.
	Concurrencies []int
	// Thinking are the enable_thinking values; nil means [nil] (not sent).
	Thinking []*bool
	// ExtraBodies are JSON object texts merged into each request body; nil
	// means [""] (none). Each non-empty one must be a JSON object.
	ExtraBodies []string
	// MaxTokens is max_tokens per request; 0 means DefaultMaxTokens.
	MaxTokens int
	// Repetitions per configuration; 0 means DefaultRepetitions.
	Repetitions int
	// Warmup is the number of unmeasured rounds run before the first
	// repetition of each configuration; 0 means none (the CLI's default
	// is 1).
	Warmup int
	// NoValidate turns off the per-response validation (finish_reason
	// present and not "length", content not empty); rows then report
	// validated=true unless every request errored.
	NoValidate bool
	// NoScrape turns off the /metrics scrapes around each run; cache
	// fields are then 0.
	NoScrape bool
	// Rates, when set, make request rate a sweep dimension after the
	// concurrency: each point sends RateRequests requests (prompts
	// round-robin) as an open loop at that rate (Poisson arrivals, Seed),
	// at most Concurrency in flight; its row's throughput and
	// requests_per_s are over the point's wall time and its request_rate
	// is set. nil keeps the reference's closed-loop rounds.
	Rates []float64
	// RateRequests is the requests of a rate point; 0 means
	// max(4 × Concurrency, the prompt count).
	RateRequests int
	// Seed fixes the arrival schedules of rate points.
	Seed uint64
	// Tag is stored in every row.
	Tag string
	// Overrides are applied to every row, in order (see ApplyOverrides).
	Overrides []Override

	// Progress receives the reference's progress lines; nil discards them.
	Progress io.Writer
}

// promptSet is one loaded prompt set.
type promptSet struct {
	name    string
	prompts [][]openai.Message
}

// plan is a validated sweep, ready to run.
type plan struct {
	cfg       Config
	sets      []promptSet
	warnings  []string
	sysNote   string
	extra     map[string]map[string]any
	thinking  []*bool
	bodies    []string
	conc      []int
	maxTokens int
	reps      int
}

// prepare applies defaults and validates every input, reading prompt sets
// and the system prompt file. All problems are joined under ErrInput.
func prepare(cfg Config) (*plan, error) {
	p := &plan{cfg: cfg, extra: map[string]map[string]any{}}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	p.conc = cfg.Concurrencies
	if p.conc == nil {
		p.conc = DefaultConcurrencies
	}
	if len(p.conc) == 0 {
		bad("sweep: no concurrency level given")
	}
	for _, c := range p.conc {
		if c < 1 {
			bad("sweep: concurrency must be at least 1, got %d", c)
		}
	}
	p.maxTokens = cfg.MaxTokens
	if p.maxTokens == 0 {
		p.maxTokens = DefaultMaxTokens
	}
	if p.maxTokens < 1 {
		bad("sweep: max_tokens must be at least 1, got %d", p.maxTokens)
	}
	p.reps = cfg.Repetitions
	if p.reps == 0 {
		p.reps = DefaultRepetitions
	}
	if p.reps < 1 {
		bad("sweep: repetitions must be at least 1, got %d", p.reps)
	}
	if cfg.Warmup < 0 {
		bad("sweep: warmup must be at least 0, got %d", cfg.Warmup)
	}
	p.thinking = cfg.Thinking
	if p.thinking == nil {
		p.thinking = []*bool{nil}
	}
	if len(p.thinking) == 0 {
		bad("sweep: no enable_thinking value given")
	}
	p.bodies = cfg.ExtraBodies
	if p.bodies == nil {
		p.bodies = []string{""}
	}
	if len(p.bodies) == 0 {
		bad("sweep: no extra body given")
	}
	for i, eb := range p.bodies {
		if eb == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(eb), &m); err != nil || m == nil {
			msg := "want a JSON object"
			if err != nil {
				msg += ": " + err.Error()
			}
			bad("sweep: extra body %d %q: %s", i, eb, msg)
			continue
		}
		p.extra[eb] = m
	}
	if err := CheckOverrides(cfg.Overrides); err != nil {
		errs = append(errs, err)
	}

	names := cfg.PromptSets
	if names == nil {
		names = DefaultPromptSets
	}
	seen := map[string]bool{}
	load := func(name, what string) {
		if seen[name] {
			return // the reference keys prompt sets by name: a repeat replaces, not adds
		}
		prompts, err := LoadPromptSetFrom(cfg.PromptsDir, name)
		if errors.Is(err, ErrPromptSetNotFound) {
			p.warnings = append(p.warnings, fmt.Sprintf("Warning: skipping %s '%s': %s", what, name, strings.TrimPrefix(strings.TrimSuffix(err.Error(), ": "+ErrPromptSetNotFound.Error()), "sweep: ")))
			return
		}
		if err != nil {
			errs = append(errs, fileError{err})
			return
		}
		seen[name] = true
		p.sets = append(p.sets, promptSet{name: name, prompts: prompts})
	}
	for _, n := range names {
		load(n, "prompt set")
	}
	if cfg.PromptFile != "" {
		load(cfg.PromptFile, "prompt file")
	}

	if cfg.SystemPromptFile != "" {
		path := paths.ExpandHome(cfg.SystemPromptFile)
		data, err := readPromptFile(path)
		if err != nil {
			errs = append(errs, fileError{fmt.Errorf("sweep: --system-prompt-file not found: %s: %w", path, err)})
		} else {
			content := string(data)
			sys := openai.Message{"role": "system", "content": content}
			for i := range p.sets {
				p.sets[i].prompts = PrependSystem(p.sets[i].prompts, sys)
			}
			p.sysNote = fmt.Sprintf("System prompt prepended from %s (%d chars)", path, utf8.RuneCountInString(content))
		}
	}
	if len(errs) == 0 && len(p.sets) == 0 {
		bad("sweep: no prompt sets could be loaded")
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w:\n%w", ErrInput, errors.Join(errs...))
	}
	return p, nil
}

// PrependSystem returns prompts with sys prepended to every message list
// whose first message is not already a system message (reference: the
// --system-prompt-file step of run_bench_serve). The input is not
// modified.
func PrependSystem(prompts [][]openai.Message, sys openai.Message) [][]openai.Message {
	out := make([][]openai.Message, len(prompts))
	for i, msgs := range prompts {
		if len(msgs) > 0 && msgs[0]["role"] == "system" {
			out[i] = msgs
			continue
		}
		out[i] = append([]openai.Message{sys}, msgs...)
	}
	return out
}

// Validate checks a Config's inputs without contacting the server: it
// loads the prompt sets and the system prompt file and checks sizes, extra
// bodies and overrides. The error joins every problem and wraps ErrInput.
func Validate(cfg Config) error {
	_, err := prepare(cfg)
	return err
}

// Run runs the sweep on the server r is connected to and returns one
// outcome per point of Expand, in its order (reference: run_bench_serve
// without the output step, which is the caller's: see resultio.FormatSweep
// and history.AppendSweep).
//
// Input problems are reported before any request, joined, wrapping
// ErrInput. Request failures are not errors: they are counted in each
// outcome (Failed, Reasons) and make its row not validated; a
// configuration whose requests all failed becomes a row with validated
// false and zero measurements, as in the reference. When ctx is cancelled
// Run returns the outcomes finished so far together with ctx's error.
//
// For each point, Run: warms up (Warmup rounds, first repetition only),
// scrapes /metrics, sends Concurrency streaming requests at once with the
// prompts chosen round-robin from the set's start (a closed loop: the run
// ends when the last request does), scrapes /metrics again, reads
// /v1/status for memory, and aggregates: means of ttft/tpot/e2e/gen_tps/
// prompt_tps over the requests that did not error; throughput_tps = total
// completion tokens / slowest e2e (s); requests_per_s = concurrency /
// slowest e2e (s); cache_hits/misses/tokens_saved = counter deltas, 0 when
// the server exposes no such counter (the columns are INTEGER, so the
// null that workload records use cannot be stored); cache_hit_rate =
// hits/(hits+misses), 0 without events; validated = no request failed and
// every response passed validation (the reference's validate_response).
func Run(ctx context.Context, eng *runner.Runner, cfg Config) ([]Outcome, error) {
	p, err := prepare(cfg)
	if err != nil {
		return nil, err
	}
	out := cfg.Progress
	if out == nil {
		out = io.Discard
	}
	client, prober := eng.Client(), eng.Prober()
	runID, stamp := eng.RunID(), eng.Timestamp()

	fmt.Fprintf(out, "Connecting to %s...\n", serverinfo.RedactURL(eng.URL()))
	rt, hw, model := eng.Runtime(), eng.Hardware(), eng.Model()
	fmt.Fprintf(out, "Hardware: %s / %.0fGB / %s\n", orDefault(hw.Chip, "unknown"), hw.MemoryGB, hw.OSVersion)
	fmt.Fprintf(out, "Runtime:  model=%s  engine=%s  cache=%s\n", model, rt.EngineType, rt.CacheType)
	for _, w := range p.warnings {
		fmt.Fprintln(out, w)
	}
	if p.sysNote != "" {
		fmt.Fprintln(out, p.sysNote)
	}

	r := &sweeper{p: p, client: client, model: model}

	promptTokens := map[string]int{}
	if !cfg.SkipPreflightTokenCount {
		for _, s := range p.sets {
			promptTokens[s.name] = eng.CountPromptTokens(ctx, s.prompts[0])
		}
	}

	names := make([]string, len(p.sets))
	byName := map[string][][]openai.Message{}
	for i, s := range p.sets {
		names[i] = s.name
		byName[s.name] = s.prompts
	}
	points := WithRates(Expand(names, p.conc, p.thinking, p.bodies, p.reps), cfg.Rates)
	note := ""
	if cfg.Warmup > 0 {
		note = fmt.Sprintf(" (+ %d warmup per config)", cfg.Warmup)
	}
	fmt.Fprintf(out, "Total runs: %d%s\n", len(points), note)

	rows := make([]Outcome, 0, len(points))
	counted := map[string]bool{}
	for _, pt := range points {
		if err := ctx.Err(); err != nil {
			return rows, fmt.Errorf("sweep: stopped after %d of %d runs: %w", len(rows), len(points), err)
		}
		prompts := byName[pt.PromptSet]
		extra := p.extra[pt.ExtraBody]

		if pt.Repetition == 0 {
			for range cfg.Warmup {
				r.concurrent(ctx, prompts, pt.Concurrency, pt.Thinking, extra, false)
			}
		}
		var before, after scrape.Counters
		if !cfg.NoScrape {
			before = eng.Scrape(ctx)
		}
		var reqs []reqResult
		var wall float64
		if pt.Rate > 0 {
			n := cfg.RateRequests
			if n == 0 {
				n = max(4*pt.Concurrency, len(prompts))
			}
			reqs, wall = r.openLoop(ctx, prompts, pt, n, cfg.Seed, extra, !cfg.NoValidate)
		} else {
			reqs = r.concurrent(ctx, prompts, pt.Concurrency, pt.Thinking, extra, !cfg.NoValidate)
		}
		if !cfg.NoScrape {
			after = eng.Scrape(ctx)
		}
		if ctx.Err() != nil {
			return rows, fmt.Errorf("sweep: stopped after %d of %d runs: %w", len(rows), len(points), ctx.Err())
		}
		metal := results.Metal{MetalActiveGB: rt.MetalActiveGB, MetalPeakGB: rt.MetalPeakGB, MetalCacheGB: rt.MetalCacheGB}
		if st := prober.Status(ctx); len(st) > 0 {
			metal = serverinfo.ParseStatus(st)
		}
		if cfg.SkipPreflightTokenCount && !counted[pt.PromptSet] && len(reqs) > 0 && reqs[0].err == nil && reqs[0].res.Usage != nil {
			counted[pt.PromptSet] = true
			promptTokens[pt.PromptSet] = reqs[0].res.PromptTokens
		}

		row := results.NewSweepResult()
		row.RunID, row.Timestamp, row.Tag = runID, stamp, cfg.Tag
		row.Chip, row.GPUCores, row.MemoryGB, row.BandwidthGBs, row.OSVersion = hw.Chip, hw.GPUCores, hw.MemoryGB, hw.BandwidthGBs, hw.OSVersion
		row.ModelID, row.ModelType, row.EngineType = model, rt.ModelType, rt.EngineType
		row.MTPEnabled, row.SpecPrefill, row.KVQuant, row.CacheType = rt.MTPEnabled, rt.SpecPrefill, rt.KVQuant, rt.CacheType
		row.PromptSet, row.Concurrency, row.MaxTokens = pt.PromptSet, pt.Concurrency, p.maxTokens
		row.EnableThinking, row.ExtraBody, row.Repetition = pt.Thinking, pt.ExtraBody, pt.Repetition
		row.PromptTokens = promptTokens[pt.PromptSet]

		label := Label(pt)
		agg := aggregate(reqs, pt.Concurrency)
		if pt.Rate > 0 {
			rate := pt.Rate
			row.RequestRate = &rate
			agg.overWall(wall)
		}
		o := Outcome{Requests: len(reqs), Failed: agg.failed, Invalid: agg.invalid, Capped: agg.capped, Reasons: agg.reasons}
		if agg.valid == 0 {
			row.Validated = false
			fmt.Fprintf(out, "  %s: FAIL (all %d requests failed: %s)\n", label, len(reqs), strings.Join(agg.reasons, "; "))
		} else {
			row.TTFTms, row.TPOTms, row.E2ELms = agg.ttft, agg.tpot, agg.e2e
			row.GenTPS, row.PromptTPS = agg.genTPS, agg.promptTPS
			row.ThroughputTPS, row.RequestsPerS = agg.throughput, agg.rps
			row.MetalActiveGB, row.MetalPeakGB, row.MetalCacheGB = metal.MetalActiveGB, metal.MetalPeakGB, metal.MetalCacheGB
			hits := deltaInt(before.Hits, after.Hits)
			misses := deltaInt(before.Misses, after.Misses)
			row.CacheHits, row.CacheMisses = hits, misses
			row.TokensSaved = deltaInt(before.TokensSaved, after.TokensSaved)
			if hits+misses > 0 {
				row.CacheHitRate = float64(hits) / float64(hits+misses)
			}
			row.Validated = agg.validated && agg.failed == 0
			fmt.Fprintf(out, "  %s: TTFT=%.0fms  TPS=%s  %s\n", label, agg.ttft, tpsText(agg.genTPS), o.verdict())
		}
		if err := ApplyOverrides(&row, cfg.Overrides); err != nil {
			return rows, err // unreachable: checked by prepare
		}
		o.Row = row
		rows = append(rows, o)
	}
	return rows, nil
}

// Outcome is one sweep row together with what its requests did, so a
// failure is never hidden behind a mean.
type Outcome struct {
	// Row is the reference's sweep row.
	Row results.SweepResult
	// Requests is the number of measured requests (the concurrency).
	Requests int
	// Failed counts requests that failed on the wire (HTTP error, error in
	// the stream, cut stream, transport error).
	Failed int
	// Invalid counts answers that failed validation for a reason other
	// than hitting max_tokens (empty content, no finish reason).
	Invalid int
	// Capped counts answers that ended with finish_reason "length": the
	// expected ending of a capped benchmark, which the reference's
	// validated flag still counts against the row.
	Capped int
	// Reasons are the first distinct reasons of the failed and invalid
	// requests (at most MaxReasons).
	Reasons []string
}

// MaxReasons bounds Outcome.Reasons.
const MaxReasons = 3

// OK reports whether every request succeeded and every answer is valid or
// only capped by max_tokens: the CLI's exit status follows it.
func (o Outcome) OK() bool { return o.Failed == 0 && o.Invalid == 0 }

// verdict is the progress line's PASS/FAIL with its reason.
func (o Outcome) verdict() string {
	switch {
	case o.Failed > 0 || o.Invalid > 0:
		n := o.Failed + o.Invalid
		return fmt.Sprintf("FAIL (%d of %d requests failed: %s)", n, o.Requests, strings.Join(o.Reasons, "; "))
	case o.Capped > 0:
		return fmt.Sprintf("PASS (%d of %d answers capped by max_tokens: not validated, as the reference)", o.Capped, o.Requests)
	}
	return "PASS"
}

// Label is the progress label of a point, as the reference prints it:
// "short conc=4 rep=0", plus " think=True" and " eb=<first 20 chars>" when
// set.
func Label(pt Point) string {
	parts := []string{pt.PromptSet, fmt.Sprintf("conc=%d", pt.Concurrency)}
	if pt.Rate > 0 {
		parts = append(parts, "rate="+strconv.FormatFloat(pt.Rate, 'g', -1, 64))
	}
	parts = append(parts, fmt.Sprintf("rep=%d", pt.Repetition))
	if pt.Thinking != nil {
		parts = append(parts, "think="+pyBool(*pt.Thinking))
	}
	if pt.ExtraBody != "" {
		parts = append(parts, "eb="+truncateRunes(pt.ExtraBody, 20))
	}
	return strings.Join(parts, " ")
}

// deltaInt is scrape.Delta with an unavailable counter as 0.
func deltaInt(before, after *float64) int {
	if d := scrape.Delta(before, after); d != nil {
		return int(*d)
	}
	return 0
}

// reqResult is one request of a concurrent run; why is the validation
// message of an answer that did not pass.
type reqResult struct {
	res       *stream.Result
	err       error
	validated bool
	why       string
}

// sweeper sends a sweep's requests through the runner's client.
type sweeper struct {
	p      *plan
	client *stream.Client
	model  string
}

// concurrent sends n streaming requests at once, prompts chosen
// round-robin from the first, and waits for all (reference:
// run_concurrent_requests). Results are in prompt-selection order.
func (r *sweeper) concurrent(ctx context.Context, prompts [][]openai.Message, n int, thinking *bool, extra map[string]any, validate bool) []reqResult {
	out := make([]reqResult, n)
	var wg sync.WaitGroup
	for i := range n {
		msgs := prompts[i%len(prompts)]
		wg.Go(func() { out[i] = r.one(ctx, msgs, thinking, extra, validate) })
	}
	wg.Wait()
	return out
}

// one sends one streaming request of msgs and validates its answer like
// the reference's validate_response when validate is set.
func (r *sweeper) one(ctx context.Context, msgs []openai.Message, thinking *bool, extra map[string]any, validate bool) reqResult {
	res, err := r.client.ChatStream(ctx, stream.Request{
		Model: r.model, Messages: msgs, MaxTokens: r.p.maxTokens,
		EnableThinking: thinking, ExtraBody: extra,
	})
	if res == nil {
		res = &stream.Result{}
	}
	rr := reqResult{res: res, err: err, validated: err == nil}
	if err == nil && validate {
		rr.validated, rr.why = checks.Validate(checks.Response{StatusCode: 200, FinishReason: res.FinishReason, Content: res.Content})
	}
	return rr
}

// aggregation is the sweep row's measured part.
type aggregation struct {
	valid                              int
	ttft, tpot, e2e, genTPS, promptTPS float64
	throughput, rps                    float64
	validated                          bool
	failed, invalid, capped            int
	tokens                             float64 // completion tokens of the valid requests
	reasons                            []string
}

// aggregate combines the non-errored requests of one run (reference: step
// i of run_bench_serve) and counts what went wrong.
func aggregate(reqs []reqResult, concurrency int) aggregation {
	var a aggregation
	a.validated = true
	var maxE2E float64
	total, timed := 0, 0
	reason := func(s string) {
		if len(a.reasons) < MaxReasons && !slices.Contains(a.reasons, s) {
			a.reasons = append(a.reasons, s)
		}
	}
	for _, q := range reqs {
		if q.err != nil {
			a.failed++
			reason(q.err.Error())
			continue
		}
		if !q.validated {
			if q.res.FinishReason == "length" {
				a.capped++
			} else {
				a.invalid++
				reason(q.why)
			}
		}
		a.valid++
		a.ttft += q.res.TTFTms
		if !math.IsNaN(q.res.TPOTms) && !math.IsNaN(q.res.GenTPS) {
			// Only requests whose decode span was observable
			// (stream.DecodeObservable): a burst has no rate.
			timed++
			a.tpot += q.res.TPOTms
			a.genTPS += q.res.GenTPS
		}
		a.e2e += q.res.E2ELms
		a.promptTPS += q.res.PromptTPS
		total += q.res.CompletionTokens
		maxE2E = max(maxE2E, q.res.E2ELms)
		a.validated = a.validated && q.validated
	}
	if a.valid == 0 {
		return aggregation{failed: a.failed, reasons: a.reasons}
	}
	a.tokens = float64(total)
	n := float64(a.valid)
	a.ttft, a.e2e, a.promptTPS = a.ttft/n, a.e2e/n, a.promptTPS/n
	// NaN (null in the row) when no request had an observable decode.
	a.tpot, a.genTPS = a.tpot/float64(timed), a.genTPS/float64(timed)
	if secs := maxE2E / 1000; secs > 0 {
		a.throughput = float64(total) / secs
		a.rps = float64(concurrency) / secs
	}
	return a
}

// openLoop sends n requests of prompts (round-robin) as an open loop at
// pt.Rate requests per second (Poisson arrivals from seed), at most
// pt.Concurrency in flight (a request due beyond it waits), and returns
// them in index order with the wall time of the whole loop in seconds.
func (r *sweeper) openLoop(ctx context.Context, prompts [][]openai.Message, pt Point, n int, seed uint64, extra map[string]any, validate bool) ([]reqResult, float64) {
	out := make([]reqResult, n)
	fn := func(ctx context.Context, i int) loadgen.Sample {
		out[i] = r.one(ctx, prompts[i%len(prompts)], pt.Thinking, extra, validate)
		return loadgen.SampleOf(out[i].res, out[i].err)
	}
	run, err := loadgen.RunOpen(ctx, fn, loadgen.Open{Rate: pt.Rate, Seed: seed, Requests: n, MaxInFlight: pt.Concurrency})
	if err != nil {
		for i := range out {
			out[i] = reqResult{res: &stream.Result{}, err: err}
		}
		return out, 0
	}
	for i := range out {
		if out[i].res == nil { // never sent (the run was stopped)
			out[i] = reqResult{res: &stream.Result{}, err: fmt.Errorf("sweep: not sent: %w", context.Cause(ctx))}
		}
	}
	return out, run.Duration.Seconds()
}

// overWall restates the throughputs of an open-loop point over its wall
// time (a closed round's are over its slowest request, as the reference).
func (a *aggregation) overWall(secs float64) {
	if secs <= 0 || a.valid == 0 {
		return
	}
	a.throughput = a.tokens / secs
	a.rps = float64(a.valid) / secs
}

// tpsText prints a row's generation rate, or says why there is none (no
// request's decode span was observable: bursts, one-chunk answers).
func tpsText(v float64) string {
	if math.IsNaN(v) {
		return "n/a (no timed decode)"
	}
	return fmt.Sprintf("%.1f", v)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

func truncateRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}
