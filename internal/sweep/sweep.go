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
	"unicode/utf8"

	"github.com/benchserve/benchserve/internal/present"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/internal/serverinfo"
	"github.com/benchserve/benchserve/internal/stats"
	"github.com/benchserve/benchserve/results"
	"github.com/benchserve/benchserve/workloads"
)

// Defaults of the reference's run_bench_serve, used for zero Config fields.
var (
	DefaultPromptSets    = []string{"short", "medium", "long"}
	DefaultConcurrencies = []int{1, 4}
)

const (
	// DefaultMaxTokens is max_tokens per request when Config.MaxTokens is 0.
	DefaultMaxTokens = results.DefaultMaxTokens
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
	// Journal, when set, is the path of the sweep's journal (see
	// runner.RunOptions.Journal): every measured request's record and every
	// finished row is appended to it as it happens, so `benchserve
	// recover` rebuilds the rows of a sweep stopped before its output was
	// written. The caller ends it (Sweep.Session().FinishJournal) after
	// writing the output; the package function Run does that itself.
	Journal string
}

// promptSet is one loaded prompt set.
type promptSet struct {
	name    string
	prompts [][]results.Message
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
		path := cfg.SystemPromptFile
		data, err := readPromptFile(path)
		if err != nil {
			errs = append(errs, fileError{fmt.Errorf("sweep: --system-prompt-file not found: %s: %w", path, err)})
		} else {
			content := string(data)
			sys := results.Message{"role": "system", "content": content}
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
func PrependSystem(prompts [][]results.Message, sys results.Message) [][]results.Message {
	out := make([][]results.Message, len(prompts))
	for i, msgs := range prompts {
		if len(msgs) > 0 && msgs[0]["role"] == "system" {
			out[i] = msgs
			continue
		}
		out[i] = append([]results.Message{sys}, msgs...)
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

// Run runs the sweep on the server eng is connected to and returns one
// outcome per point of Expand, in its order (reference: run_bench_serve
// without the output step, which is the caller's: see resultio.FormatSweep
// and history.AppendSweep). It is Start followed by Sweep.Run.
//
// Input problems are reported before any request, joined, wrapping
// ErrInput. Request failures are not errors: they are counted in each
// outcome (Failed, Reasons) and make its row not validated; a
// configuration whose requests all failed becomes a row with validated
// false and zero measurements, as in the reference. When ctx is cancelled
// Run returns the outcomes finished so far together with ctx's error.
//
// Every request goes through the one engine (runner.Session.RunRound):
// it is sent, judged by the one judge (basic validation: the reference's
// validate_response, tool calls counting as an answer), recorded,
// journaled (Config.Journal) and marked interrupted when the run is
// stopped mid-request. For each point: warm up (Warmup unmeasured rounds,
// first repetition only), scrape /metrics, send Concurrency streaming
// requests at once with the prompts chosen round-robin from the set's
// start (a closed loop: the round ends when the last request does), scrape
// /metrics again and read /v1/status for memory (each side request within
// runner.SideRequestTimeout: a server whose /metrics hangs costs the
// counters, never the sweep). The row is a view of the round's records
// (Row): means of ttft/tpot/e2e/gen_tps/prompt_tps over the requests that
// did not error; throughput_tps = total completion tokens / slowest e2e
// (s); requests_per_s = concurrency / slowest e2e (s);
// cache_hits/misses/tokens_saved = counter deltas, 0 when the server
// exposes no such counter (the columns are INTEGER, so the null that
// workload records use cannot be stored); cache_hit_rate =
// hits/(hits+misses), 0 without events; validated = no request failed and
// every response passed validation. A departure from the reference: a row
// with some requests failed is validated false (the reference's is true
// when at least one request succeeded and passed).
func Run(ctx context.Context, eng *runner.Runner, cfg Config) ([]Outcome, error) {
	sw, err := Start(ctx, eng, cfg)
	if err != nil {
		return nil, err
	}
	outs, err := sw.Run(ctx)
	if jerr := sw.Session().FinishJournal(err == nil); jerr != nil && err == nil {
		err = jerr
	}
	return outs, err
}

// Sweep is a prepared sweep on one runner: its inputs validated, its
// session (runner.Session, with its journal) started. Create it with
// Start, run it once with Run.
type Sweep struct {
	p    *plan
	eng  *runner.Runner
	sess *runner.Session
	// sets are the prompt sets' case lists, one workload per (set,
	// thinking, extra body), keyed by variantKey.
	sets map[variantKey]*workloads.Workload
}

type variantKey struct {
	set, extra string
	thinking   string
}

func keyOf(set string, thinking *bool, extra string) variantKey {
	k := variantKey{set: set, extra: extra, thinking: "unset"}
	if thinking != nil {
		k.thinking = pyBool(*thinking)
	}
	return k
}

// Start validates cfg (as Validate) and starts the sweep's session on eng:
// its journal, when Config.Journal is set, is created. Errors: the input
// problems (ErrInput), a journal that cannot be created.
func Start(ctx context.Context, eng *runner.Runner, cfg Config) (*Sweep, error) {
	p, err := prepare(cfg)
	if err != nil {
		return nil, err
	}
	sw := &Sweep{p: p, eng: eng, sets: map[variantKey]*workloads.Workload{}}
	all := &workloads.Workload{Name: "sweep", Path: "sweep", Defaults: map[string]any{"max_tokens": p.maxTokens}}
	expected := 0
	points := sw.points()
	for _, pt := range points {
		n := sw.requests(pt)
		expected += n
	}
	for _, set := range p.sets {
		for _, th := range p.thinking {
			for _, eb := range p.bodies {
				w := workloads.FromPrompts(set.name, set.prompts, workloads.PromptOptions{
					MaxTokens: p.maxTokens, EnableThinking: th, ExtraBody: p.extra[eb]})
				sw.sets[keyOf(set.name, th, eb)] = w
				if len(all.Cases) == 0 {
					all.Cases = w.Cases
				}
			}
		}
	}
	sw.sess, err = eng.Start(ctx, all, runner.RunOptions{Journal: cfg.Journal, Sweep: true, Expected: expected})
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	return sw, nil
}

// Session is the sweep's session: its payload holds every measured
// request's record, its journal every record and row.
func (sw *Sweep) Session() *runner.Session { return sw.sess }

// points are the sweep's points in the reference's order.
func (sw *Sweep) points() []Point {
	names := make([]string, len(sw.p.sets))
	for i, s := range sw.p.sets {
		names[i] = s.name
	}
	return WithRates(Expand(names, sw.p.conc, sw.p.thinking, sw.p.bodies, sw.p.reps), sw.p.cfg.Rates)
}

// requests is how many measured requests point pt sends.
func (sw *Sweep) requests(pt Point) int {
	if pt.Rate <= 0 {
		return pt.Concurrency
	}
	if n := sw.p.cfg.RateRequests; n > 0 {
		return n
	}
	for _, s := range sw.p.sets {
		if s.name == pt.PromptSet {
			return max(4*pt.Concurrency, len(s.prompts))
		}
	}
	return 4 * pt.Concurrency
}

// jobs are n jobs of point pt: prompts round-robin from the set's start.
func (sw *Sweep) jobs(pt Point, n int) []runner.Job {
	w := sw.sets[keyOf(pt.PromptSet, pt.Thinking, pt.ExtraBody)]
	jobs := make([]runner.Job, n)
	for i := range jobs {
		jobs[i] = runner.Job{Case: w.Cases[i%len(w.Cases)], Rep: pt.Repetition, Workload: w}
	}
	return jobs
}

// Run runs every point of the sweep (see the package function Run).
func (sw *Sweep) Run(ctx context.Context) ([]Outcome, error) {
	p, eng, cfg := sw.p, sw.eng, sw.p.cfg
	out := cfg.Progress
	if out == nil {
		out = io.Discard
	}
	fmt.Fprintf(out, "Connecting to %s...\n", serverinfo.RedactURL(eng.URL()))
	rt, hw, model := eng.Runtime(), eng.Hardware(), eng.Model()
	fmt.Fprintf(out, "Hardware: %s / %.0fGB / %s\n", orDefault(hw.Chip, "unknown"), hw.MemoryGB, hw.OSVersion)
	fmt.Fprintf(out, "Runtime:  model=%s  engine=%s  cache=%s\n", present.Name(model), present.Name(rt.EngineType), present.Name(rt.CacheType))
	for _, w := range p.warnings {
		fmt.Fprintln(out, w)
	}
	if p.sysNote != "" {
		fmt.Fprintln(out, p.sysNote)
	}

	promptTokens := map[string]int{}
	if !cfg.SkipPreflightTokenCount {
		for _, s := range p.sets {
			promptTokens[s.name] = eng.CountPromptTokens(ctx, s.prompts[0])
		}
	}
	points := sw.points()
	note := ""
	if cfg.Warmup > 0 {
		note = fmt.Sprintf(" (+ %d warmup per config)", cfg.Warmup)
	}
	fmt.Fprintf(out, "Total runs: %d%s\n", len(points), note)

	rows := make([]Outcome, 0, len(points))
	counted := map[string]bool{}
	stopped := func() error {
		return fmt.Errorf("sweep: stopped after %d of %d runs: %w", len(rows), len(points), ctx.Err())
	}
	for _, pt := range points {
		if ctx.Err() != nil {
			return rows, stopped()
		}
		if pt.Repetition == 0 {
			for range cfg.Warmup {
				if _, err := sw.sess.RunRound(ctx, runner.Round{Jobs: sw.jobs(pt, pt.Concurrency), Warmup: true}); err != nil {
					return rows, fmt.Errorf("sweep: %w", err)
				}
			}
		}
		rd := runner.Round{Jobs: sw.jobs(pt, sw.requests(pt)), Concurrency: pt.Concurrency, NoScrape: cfg.NoScrape}
		if pt.Rate > 0 {
			rd.Rate, rd.Seed = pt.Rate, cfg.Seed
		}
		rr, err := sw.sess.RunRound(ctx, rd)
		if err != nil {
			return rows, fmt.Errorf("sweep: %w", err)
		}
		if ctx.Err() != nil {
			return rows, stopped()
		}
		if cfg.SkipPreflightTokenCount && !counted[pt.PromptSet] && rr.Sent[0] {
			if rec := rr.Outcomes[0].Record; rec.Error == "" && rec.Metrics.UsagePresent {
				counted[pt.PromptSet] = true
				promptTokens[pt.PromptSet] = rec.Metrics.PromptTokens
			}
		}
		o := Row(pt, rr, RowInfo{RunID: eng.RunID(), Timestamp: eng.Timestamp(), Tag: cfg.Tag, Model: model,
			Runtime: rt, Hardware: hw, MaxTokens: p.maxTokens, PromptTokens: promptTokens[pt.PromptSet], NoValidate: cfg.NoValidate})
		label := Label(pt)
		if o.Requests-o.Failed == 0 {
			fmt.Fprintf(out, "  %s: FAIL (all %d requests failed: %s)\n", label, o.Requests, reasonsText(o.Reasons))
		} else {
			fmt.Fprintf(out, "  %s: TTFT=%.0fms  TPS=%s  %s\n", label, o.Row.TTFTms, tpsText(o.Row.GenTPS), o.verdict())
		}
		if err := ApplyOverrides(&o.Row, cfg.Overrides); err != nil {
			return rows, err // unreachable: checked by prepare
		}
		sw.sess.AppendSweepRow(o.Row)
		rows = append(rows, o)
	}
	return rows, nil
}

// RowInfo is what a sweep row holds besides its round's measurements.
type RowInfo struct {
	RunID, Timestamp, Tag, Model string
	Runtime                      results.Runtime
	Hardware                     results.Hardware
	MaxTokens, PromptTokens      int
	// NoValidate counts only failed requests against the row, not
	// answers that failed validation (--validate false).
	NoValidate bool
}

// Row is the sweep row of point pt: a view of its round's records (the
// engine's verdicts) and side measurements, with the counts of what went
// wrong (see Run for the columns' definitions).
func Row(pt Point, rr runner.RoundResult, info RowInfo) Outcome {
	row := results.NewSweepResult()
	row.RunID, row.Timestamp, row.Tag = info.RunID, info.Timestamp, info.Tag
	hw, rt := info.Hardware, info.Runtime
	row.Chip, row.GPUCores, row.MemoryGB, row.BandwidthGBs, row.OSVersion = hw.Chip, hw.GPUCores, hw.MemoryGB, hw.BandwidthGBs, hw.OSVersion
	row.ModelID, row.ModelType, row.EngineType = info.Model, rt.ModelType, rt.EngineType
	row.MTPEnabled, row.SpecPrefill, row.KVQuant, row.CacheType = rt.MTPEnabled, rt.SpecPrefill, rt.KVQuant, rt.CacheType
	row.PromptSet, row.Concurrency, row.MaxTokens = pt.PromptSet, pt.Concurrency, info.MaxTokens
	row.EnableThinking, row.ExtraBody, row.Repetition = pt.Thinking, pt.ExtraBody, pt.Repetition
	row.PromptTokens = info.PromptTokens

	recs := make([]*results.Record, len(rr.Outcomes))
	for i := range rr.Outcomes {
		if rr.Sent[i] {
			recs[i] = &rr.Outcomes[i].Record
		}
	}
	agg := aggregate(recs, pt.Concurrency, !info.NoValidate)
	if pt.Rate > 0 {
		rate := pt.Rate
		row.RequestRate = &rate
		if rr.Run != nil {
			agg.overWall(rr.Run.Duration.Seconds())
		}
	}
	o := Outcome{Requests: len(recs), Failed: agg.failed, Invalid: agg.invalid, Capped: agg.capped, Reasons: agg.reasons}
	if agg.valid == 0 {
		row.Validated = false
		o.Row = row
		return o
	}
	row.TTFTms, row.TPOTms, row.E2ELms = agg.ttft, agg.tpot, agg.e2e
	row.GenTPS, row.PromptTPS = agg.genTPS, agg.promptTPS
	row.ThroughputTPS, row.RequestsPerS = agg.throughput, agg.rps
	row.MetalActiveGB, row.MetalPeakGB, row.MetalCacheGB = rr.Metal.MetalActiveGB, rr.Metal.MetalPeakGB, rr.Metal.MetalCacheGB
	hits, misses := deltaInt(rr.CacheHits), deltaInt(rr.CacheMisses)
	row.CacheHits, row.CacheMisses = hits, misses
	row.TokensSaved = deltaInt(rr.TokensSaved)
	if hits+misses > 0 {
		row.CacheHitRate = float64(hits) / float64(hits+misses)
	}
	row.Validated = agg.validated && agg.failed == 0
	o.Row = row
	return o
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
		return fmt.Sprintf("FAIL (%d of %d requests failed: %s)", n, o.Requests, reasonsText(o.Reasons))
	case o.Capped > 0:
		return fmt.Sprintf("PASS (%d of %d answers capped by max_tokens: not validated, as the reference)", o.Capped, o.Requests)
	}
	return "PASS"
}

// reasonsText is a progress line's list of failure reasons, each
// escaped and cut for the terminal (present.Message); the outcome keeps
// them whole.
func reasonsText(reasons []string) string {
	shown := make([]string, len(reasons))
	for i, r := range reasons {
		shown[i] = present.Message(r)
	}
	return strings.Join(shown, "; ")
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

// deltaInt is a counter delta with an unavailable counter as 0.
func deltaInt(d *int64) int {
	if d != nil {
		return int(*d)
	}
	return 0
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

// aggregate combines the records of one round that did not error
// (reference: step i of run_bench_serve) and counts what went wrong; a
// nil record is a request never sent. The counts follow the engine's
// one verdict (results.Record.Outcome): an error is failed; with
// validate, a failed answer is invalid and a capped one capped; the
// row's validated flag is the reference's (every answer's quality.ok),
// so a capped answer leaves the row not validated.
func aggregate(recs []*results.Record, concurrency int, validate bool) aggregation {
	var a aggregation
	a.validated = true
	var maxE2E float64
	total, timed := 0, 0
	reason := func(s string) {
		if len(a.reasons) < MaxReasons && !slices.Contains(a.reasons, s) {
			a.reasons = append(a.reasons, s)
		}
	}
	for _, rec := range recs {
		if rec == nil {
			a.failed++
			reason("not sent: the run was stopped")
			continue
		}
		if rec.Outcome == results.OutcomeError {
			a.failed++
			reason(rec.Error)
			continue
		}
		ok := rec.Quality.OK || !validate
		switch {
		case !validate:
		case rec.Outcome == results.OutcomeCapped:
			a.capped++
		case rec.Outcome == results.OutcomeFail:
			a.invalid++
			if len(rec.Quality.Issues) > 0 {
				reason(rec.Quality.Issues[0])
			}
		}
		m := rec.Metrics
		a.valid++
		a.ttft += m.TTFTms
		if stats.DecodeTimed(m.TPOTms, m.GenTPS) {
			// Only requests whose decode span was observable
			// (stream.DecodeObservable): a burst has no rate.
			timed++
			a.tpot += m.TPOTms
			a.genTPS += m.GenTPS
		}
		a.e2e += m.E2ELms
		a.promptTPS += m.PromptTPS
		total += m.CompletionTokens
		maxE2E = max(maxE2E, m.E2ELms)
		a.validated = a.validated && ok
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
