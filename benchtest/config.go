package benchtest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/internal/loadgen"
	"github.com/benchserve/benchserve/internal/paths"
	"github.com/benchserve/benchserve/internal/resultio"
	"github.com/benchserve/benchserve/internal/runner"
	"github.com/benchserve/benchserve/results"
)

// Environment variables read by RunWorkload and BenchWorkload. An option
// passed in code wins over the environment, which wins over the default.
const (
	// envURL is the server root, e.g. http://127.0.0.1:8080. Unset: the
	// embedded fixture server is started on loopback.
	envURL = "BENCHSERVE_URL"
	// envModel is the model id. Unset: the first model of /v1/models.
	envModel = "BENCHSERVE_MODEL"
	// envAPIKey is sent as "Authorization: Bearer <key>".
	envAPIKey = "BENCHSERVE_API_KEY"
	// envTags keeps only cases having any of these comma-separated tags.
	envTags = "BENCHSERVE_TAGS"
	// envOutput is a results file written after the run; its extension
	// picks the format: .json (default), .csv, .sql, .txt (table),
	// .db/.sqlite/.sqlite3 (SQLite, appended).
	envOutput = "BENCHSERVE_OUTPUT"
	// envReport is an HTML report path written after the run (see
	// package report): self-contained, opens from disk.
	envReport = "BENCHSERVE_REPORT"
	// envRepetitions is how many times every case runs.
	envRepetitions = "BENCHSERVE_REPETITIONS"
	// envCachePolicy is preserve, before-run or before-case.
	envCachePolicy = "BENCHSERVE_CACHE_POLICY"
	// envConcurrency runs that many cases at once.
	envConcurrency = "BENCHSERVE_CONCURRENCY"
	// envRequestRate (requests per second, or inf), envBurstiness,
	// envNumPrompts, envDuration (a Go duration), envMaxConcurrency and
	// envSeed send the workload as load (see WithLoad) when any is set.
	envRequestRate    = "BENCHSERVE_REQUEST_RATE"
	envBurstiness     = "BENCHSERVE_BURSTINESS"
	envNumPrompts     = "BENCHSERVE_NUM_PROMPTS"
	envDuration       = "BENCHSERVE_DURATION"
	envMaxConcurrency = "BENCHSERVE_MAX_CONCURRENCY"
	envSeed           = "BENCHSERVE_SEED"
	// envRunID is the run id every shard of one run shares (with
	// BENCHSERVE_SHARD, JOB_COMPLETION_INDEX and BENCHSERVE_SHARDS, or a
	// Slurm array's SLURM_ARRAY_TASK_ID), so
	// their outputs merge (benchserve merge).
	envRunID = "BENCHSERVE_RUN_ID"
	// envStartAt is an RFC 3339 instant every shard of a load run waits
	// for before its first arrival (the CLI's --start-at), so shards started seconds apart send together; setting
	// it sends the workload as load.
	envStartAt = "BENCHSERVE_START_AT"
	// envPromptsDir is a directory BenchSweep loads the builtin prompt set
	// names from (DIR/<name>.json), as the CLI's --prompts-dir.
	envPromptsDir = "BENCHSERVE_PROMPTS_DIR"
)

// config holds every setting of a run, resolved from the options and the
// environment. Its zero value works: fixture server, auto-detected model,
// one repetition, all cases, sequential, the default transport timeout
// (300 s), cache counters scraped.
type config struct {
	// strict: ConformanceStrict.
	strict             bool
	url, model, apiKey string
	runID              string
	repetitions        int
	tags               []string
	cachePolicy        string
	output, report     string
	concurrency        int
	concurrencyLevels  []int
	requestTimeout     time.Duration
	noScrape           bool
	includeContent     bool
	fixture            *fixtures.Options
	load               *runner.Load
	slos               []string
	thresholds         []results.Threshold // slos, parsed once by resolve
	goodput            *results.GoodputSLO
	goodputSpec        *string
	loadOpt            *Load
	// baseline is Baseline's setting, nil without one.
	baseline *baselineSetting
	// onRecord: OnRecord's functions, in order.
	onRecord []func(t *testing.T, rec results.Record, failedChecks []string)
	// passed names the options given (not the environment), in order,
	// for refuseInapplicable.
	passed []string
}

// Option sets one setting of RunWorkload, RunConformance, BenchWorkload,
// BenchSweep or SearchCapacity. Options win over the BENCHSERVE_*
// environment, which wins over the defaults. An option that does not
// apply to the function it is given to fails the test or benchmark
// before anything is sent, naming the functions it applies to (e.g.
// WithGoodput to RunWorkload, WithOutput to SearchCapacity, or
// WithRepetitions to BenchWorkload without WithLoad).
type Option func(*config)

// WithURL targets a running server instead of the fixture (default:
// $BENCHSERVE_URL; unset starts the fixture server on loopback).
func WithURL(url string) Option { return func(c *config) { c.url = url } }

// WithModel sets the model id instead of auto-detecting it (default:
// $BENCHSERVE_MODEL, else the run's server's first /v1/models entry).
func WithModel(model string) Option { return func(c *config) { c.model = model } }

// WithAPIKey sends key as a Bearer token (default: $BENCHSERVE_API_KEY).
func WithAPIKey(key string) Option { return func(c *config) { c.apiKey = key } }

// WithRepetitions runs every case n times (n >= 1); subtests are named
// case/rep=N (default: $BENCHSERVE_REPETITIONS, else 1).
func WithRepetitions(n int) Option {
	return func(c *config) { c.given("WithRepetitions"); c.repetitions = n }
}

// WithTags keeps only cases having any of tags (default: $BENCHSERVE_TAGS,
// comma-separated; unset runs every case).
func WithTags(tags ...string) Option { return func(c *config) { c.tags = tags } }

// WithCachePolicy overrides the workload's cache policy: "preserve",
// "before-run" or "before-case" (default: $BENCHSERVE_CACHE_POLICY).
func WithCachePolicy(p string) Option {
	return func(c *config) { c.given("WithCachePolicy"); c.cachePolicy = p }
}

// WithOutput writes the results payload to path after the run, in the
// format its extension names (.json, .csv, .sql, .txt; .db, .sqlite and
// .sqlite3 need import _ "github.com/benchserve/benchserve/history",
// .html import _ "github.com/benchserve/benchserve/report"; without it
// the test fails before anything is sent). Default: $BENCHSERVE_OUTPUT.
func WithOutput(path string) Option {
	return func(c *config) { c.given("WithOutput"); c.output = path }
}

// WithReport writes the self-contained HTML report to path (.html) after
// the run; it needs import _ "github.com/benchserve/benchserve/report" in
// a test file (default: $BENCHSERVE_REPORT).
func WithReport(path string) Option {
	return func(c *config) { c.given("WithReport"); c.report = path }
}

// WithConcurrency keeps up to n requests in flight (a closed loop): in
// RunWorkload the selected cases run n at a time under a conc=N subtest;
// in BenchWorkload and BenchSweep it is the one concurrency level unless
// WithConcurrencyLevels gives several (default: $BENCHSERVE_CONCURRENCY,
// else 1).
func WithConcurrency(n int) Option { return func(c *config) { c.concurrency = n } }

// WithConcurrencyLevels makes BenchWorkload and BenchSweep run every case
// at each of these levels, as sub-benchmarks conc=N. RunWorkload, which
// runs at one concurrency, fails when given it.
func WithConcurrencyLevels(levels ...int) Option {
	return func(c *config) { c.given("WithConcurrencyLevels"); c.concurrencyLevels = levels }
}

// WithRequestTimeout sets the transport timeout of one request: 0 keeps
// the default, 300 s, a negative value means none. This
// differs from the CLI's --request-timeout-s only at zero: there 0 means
// none, as in the reference (a Go zero value here means "not set").
func WithRequestTimeout(d time.Duration) Option { return func(c *config) { c.requestTimeout = d } }

// WithoutScrape disables the /metrics scrapes around each case (cache
// counters are then null).
func WithoutScrape() Option { return func(c *config) { c.noScrape = true } }

// WithContent keeps each response's whole content in the payload.
func WithContent() Option { return func(c *config) { c.includeContent = true } }

// WithSLO adds run-level thresholds (results.ParseThreshold syntax, e.g.
// "ttft_p95_ms <= 500", "error_rate <= 0.01"). RunWorkload checks them
// after the run, on top of the workload's defaults.slo, each as a subtest
// slo/<threshold> failing with the measured value ("ttft_p95_ms = 612.4,
// want <= 500"); BenchWorkload and BenchSweep check them per
// sub-benchmark. A threshold that does not parse fails the test before
// anything is sent.
func WithSLO(thresholds ...string) Option {
	return func(c *config) { c.slos = append(c.slos, thresholds...) }
}

// WithGoodput makes BenchWorkload and BenchSweep also report goodput
// (goodput-req/s: requests per second that succeeded and met every limit
// of slo, DistServe's definition). slo is vLLM's --goodput syntax: limits
// in ms, "ttft:200 tpot:50 e2el:2000" (any of the three, space- or
// comma-separated); one that does not parse fails the test or benchmark
// before anything is sent.
func WithGoodput(slo string) Option {
	return func(c *config) { c.given("WithGoodput"); c.goodputSpec = &slo }
}

// WithFixture sets the options of the fixture server started when no URL
// is configured (default: fixtures.Options{}, the default responder at
// fixtures.DefaultTiming).
func WithFixture(opts fixtures.Options) Option {
	return func(c *config) { c.fixture = &opts }
}

// WithLoad sends the workload's cases as load l instead of one after
// another (an open loop at l.Rate requests per second, vLLM's
// --request-rate, --burstiness, --num-prompts, --max-concurrency, --seed,
// --goodput). BenchWorkload then runs one load run of the whole mix per
// b.Loop iteration, in b itself (no per-case sub-benchmarks), and
// reports, besides the latency figures, the achieved rate (achieved-req/s), the client's lag behind the schedule
// (lag-p99-ns/op), late requests and goodput. RunWorkload runs it as one
// subtest "load" that fails with every failed request. Default: the
// BENCHSERVE_REQUEST_RATE, _BURSTINESS, _NUM_PROMPTS, _DURATION,
// _MAX_CONCURRENCY, _SEED and _START_AT variables, when any is set, and
// a shard of the environment (BENCHSERVE_SHARD, a Kubernetes indexed
// Job's JOB_COMPLETION_INDEX, a Slurm array's SLURM_ARRAY_TASK_ID).
func WithLoad(l Load) Option { return func(c *config) { c.loadOpt = &l } }

// Load is a load run's schedule, in vLLM's terms. The zero value of a
// field is its default.
type Load struct {
	// Rate is the target arrival rate in requests per second
	// (--request-rate); 0 or +Inf: no schedule, a closed loop of
	// MaxConcurrency streams.
	Rate float64
	// Burstiness is the gamma shape of the gaps (--burstiness); 0 means
	// 1, Poisson arrivals.
	Burstiness float64
	// Requests ends the run after this many requests (--num-prompts).
	Requests int
	// Duration ends the run after this long (--duration).
	Duration time.Duration
	// MaxConcurrency caps the requests in flight (--max-concurrency);
	// 0 means the engine's default bound.
	MaxConcurrency int
	// Seed seeds the arrival gaps and, with Sample, the case draws
	// (--seed).
	Seed uint64
	// Sample draws the cases at random instead of cycling through them
	// (--mix sample).
	Sample bool
	// Goodput is a per-request SLO in vLLM's --goodput syntax
	// ("ttft:200 e2el:2000", ms); the run then reports goodput.
	Goodput string
	// StartAt, when set, is the wall-clock instant the first arrival
	// waits for, so that shards started apart send together
	// (--start-at).
	StartAt time.Time
	// MaxErrorRate, when above 0, stops the run early once its error rate
	// is above it with confidence (--max-error-rate; a fraction in
	// (0, 1]): the exact 95% interval of the failed share of the
	// requests completed so far lies wholly above it, with at least 10
	// completed. The rest is left unsent and the test fails with the
	// numbers. 0 means no limit.
	MaxErrorRate float64
}

// runnerLoad turns l into the engine's load, parsing its goodput; shard is
// the environment's (BENCHSERVE_SHARD, JOB_COMPLETION_INDEX or a Slurm
// array task).
func (l Load) runnerLoad(shard loadgen.Shard) (runner.Load, error) {
	rl := runner.Load{Rate: l.Rate, Burstiness: l.Burstiness, Requests: l.Requests, Duration: l.Duration,
		MaxConcurrency: l.MaxConcurrency, Seed: l.Seed, Sample: l.Sample, StartAt: l.StartAt, Shard: shard}
	if l.MaxErrorRate != 0 {
		v := l.MaxErrorRate
		rl.MaxErrorRate = &v // out of [0, 1]: Load.Check says so
	}
	if l.Goodput != "" {
		slo, err := loadgen.ParseGoodput(l.Goodput)
		if err != nil {
			return runner.Load{}, fmt.Errorf("benchtest: WithLoad: Goodput: %w", err)
		}
		rl.Goodput = &slo
	}
	return rl, nil
}

// resolve builds the effective configuration: environment first, then the
// options on top; it reports malformed environment values and settings
// out of range.
func resolve(opts []Option) (config, error) {
	var cfg config
	cfg.url = os.Getenv(envURL)
	cfg.model = os.Getenv(envModel)
	cfg.runID = os.Getenv(envRunID)
	cfg.apiKey = os.Getenv(envAPIKey)
	cfg.cachePolicy = os.Getenv(envCachePolicy)
	cfg.output = os.Getenv(envOutput)
	cfg.report = os.Getenv(envReport)
	if v := os.Getenv(envTags); v != "" {
		for _, t := range strings.Split(v, ",") {
			if t = strings.TrimSpace(t); t != "" {
				cfg.tags = append(cfg.tags, t)
			}
		}
	}
	var err error
	if cfg.repetitions, err = envInt(envRepetitions); err != nil {
		return config{}, err
	}
	if cfg.concurrency, err = envInt(envConcurrency); err != nil {
		return config{}, err
	}
	if cfg.load, err = envLoad(); err != nil {
		return config{}, err
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.loadOpt != nil {
		sh, err := loadgen.ShardFromEnv(os.Getenv)
		if err != nil {
			return config{}, fmt.Errorf("benchtest: %w", err)
		}
		l, err := cfg.loadOpt.runnerLoad(sh)
		if err != nil {
			return config{}, err
		}
		cfg.load = &l
	}
	if cfg.goodputSpec != nil {
		slo, err := loadgen.ParseGoodput(*cfg.goodputSpec)
		if err != nil {
			return config{}, fmt.Errorf("benchtest: WithGoodput(%q): %w", *cfg.goodputSpec, err)
		}
		cfg.goodput = &slo
	}
	// The one place the plugin expands "~" in paths it is given.
	cfg.output, cfg.report = paths.ExpandHome(cfg.output), paths.ExpandHome(cfg.report)
	if cfg.load != nil {
		if err := cfg.load.Check(); err != nil {
			return config{}, fmt.Errorf("benchtest: load: %w", err)
		}
		if cfg.load.Shard.Sharded() && cfg.runID == "" {
			return config{}, fmt.Errorf("benchtest: shard %s: set $%s to the run id every shard shares, so their outputs merge", cfg.load.Shard, envRunID)
		}
	}
	if cfg.baseline != nil && cfg.baseline.err != nil {
		return cfg, cfg.baseline.err
	}
	if cfg.thresholds, err = results.ParseThresholds(cfg.slos...); err != nil {
		return config{}, fmt.Errorf("benchtest: WithSLO: %w", err)
	}
	if cfg.repetitions < 0 {
		return config{}, fmt.Errorf("benchtest: WithRepetitions(%d) (or $%s): want at least 1", cfg.repetitions, envRepetitions)
	}
	if cfg.repetitions == 0 {
		cfg.repetitions = 1
	}
	if cfg.concurrency == 0 {
		cfg.concurrency = 1
	}
	if cfg.concurrency < 0 {
		return config{}, fmt.Errorf("benchtest: WithConcurrency(%d): want at least 1", cfg.concurrency)
	}
	for _, n := range cfg.concurrencyLevels {
		if n < 1 {
			return config{}, fmt.Errorf("benchtest: WithConcurrencyLevels: level %d: want at least 1", n)
		}
	}
	if cfg.report != "" && resultio.FormatForPath(cfg.report) != resultio.FormatHTML {
		return config{}, fmt.Errorf("benchtest: report %s: want an .html path", cfg.report)
	}
	return cfg, nil
}

func envInt(name string) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, &envError{name: name, value: v}
	}
	return n, nil
}

type envError struct{ name, value, want string }

func (e *envError) Error() string {
	want := e.want
	if want == "" {
		want = "a positive integer"
	}
	return "benchtest: $" + e.name + "=" + strconv.Quote(e.value) + ": want " + want
}

// envLoad reads the load variables; nil when none is set.
func envLoad() (*runner.Load, error) {
	var l runner.Load
	set := false
	for _, v := range []struct {
		name  string
		parse func(string) error
		want  string
	}{
		{envRequestRate, func(s string) (err error) { l.Rate, err = strconv.ParseFloat(s, 64); return }, "requests per second or inf"},
		{envBurstiness, func(s string) (err error) { l.Burstiness, err = strconv.ParseFloat(s, 64); return }, "a positive gamma shape"},
		{envNumPrompts, func(s string) (err error) { l.Requests, err = strconv.Atoi(s); return }, "a positive integer"},
		{envDuration, func(s string) (err error) { l.Duration, err = time.ParseDuration(s); return }, "a duration such as 2m"},
		{envMaxConcurrency, func(s string) (err error) { l.MaxConcurrency, err = strconv.Atoi(s); return }, "a positive integer"},
		{envSeed, func(s string) (err error) { l.Seed, err = strconv.ParseUint(s, 10, 64); return }, "an unsigned integer"},
		{envStartAt, func(s string) (err error) { l.StartAt, err = time.Parse(time.RFC3339, s); return }, "an RFC 3339 time with its zone, e.g. 2026-12-01T22:30:00Z"},
	} {
		s := os.Getenv(v.name)
		if s == "" {
			continue
		}
		set = true
		if err := v.parse(strings.TrimSpace(s)); err != nil {
			return nil, &envError{name: v.name, value: s, want: v.want}
		}
	}
	sh, err := loadgen.ShardFromEnv(os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("benchtest: %w", err)
	}
	if sh.Sharded() {
		l.Shard, set = sh, true
	}
	if !set {
		return nil, nil
	}
	return &l, nil
}
