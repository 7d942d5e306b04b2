package benchtest

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/benchserve/benchserve/fixtures"
	"github.com/benchserve/benchserve/stats"
)

// Environment variables read by RunWorkload and BenchWorkload. An option
// passed in code wins over the environment, which wins over the default.
const (
	// EnvURL is the server root, e.g. http://127.0.0.1:8080. Unset: the
	// embedded fixture server is started on loopback.
	EnvURL = "BENCHSERVE_URL"
	// EnvModel is the model id. Unset: the first model of /v1/models.
	EnvModel = "BENCHSERVE_MODEL"
	// EnvAPIKey is sent as "Authorization: Bearer <key>".
	EnvAPIKey = "BENCHSERVE_API_KEY"
	// EnvTags keeps only cases having any of these comma-separated tags.
	EnvTags = "BENCHSERVE_TAGS"
	// EnvOutput is a results file written after the run; its extension
	// picks the format: .json (default), .csv, .sql, .txt (table),
	// .db/.sqlite/.sqlite3 (SQLite, appended).
	EnvOutput = "BENCHSERVE_OUTPUT"
	// EnvReport is an HTML report path written after the run (see
	// package report): self-contained, opens from disk.
	EnvReport = "BENCHSERVE_REPORT"
	// EnvRepetitions is how many times every case runs.
	EnvRepetitions = "BENCHSERVE_REPETITIONS"
	// EnvCachePolicy is preserve, before-run or before-case.
	EnvCachePolicy = "BENCHSERVE_CACHE_POLICY"
	// EnvConcurrency runs that many cases at once.
	EnvConcurrency = "BENCHSERVE_CONCURRENCY"
)

// Config holds every setting of a run. Its zero value works: fixture
// server, auto-detected model, one repetition, all cases, sequential,
// 300 s transport timeout, cache counters scraped.
type Config struct {
	// URL of the server; "" starts the fixture server (default: $BENCHSERVE_URL).
	URL string
	// Model id; "" auto-detects (default: $BENCHSERVE_MODEL).
	Model string
	// APIKey sent as a Bearer token (default: $BENCHSERVE_API_KEY).
	APIKey string
	// Repetitions of every case; 0 means 1 (default: $BENCHSERVE_REPETITIONS).
	Repetitions int
	// Tags filter; nil runs every case (default: $BENCHSERVE_TAGS).
	Tags []string
	// CachePolicy overrides the workload's (default: $BENCHSERVE_CACHE_POLICY).
	CachePolicy string
	// Output is a results file path (default: $BENCHSERVE_OUTPUT).
	Output string
	// Report is an HTML report path (default: $BENCHSERVE_REPORT).
	Report string
	// Concurrency is how many cases run at once; 0 means 1
	// (default: $BENCHSERVE_CONCURRENCY).
	Concurrency int
	// RequestTimeout is the transport safety timeout of one request;
	// 0 means 300 s, negative means none.
	RequestTimeout time.Duration
	// NoScrape disables reading /metrics around each case.
	NoScrape bool
	// IncludeContent keeps each response's whole content in the payload.
	IncludeContent bool

	// Fixture configures the fixture server started when URL is ""
	// (default: fixtures.Options{}).
	Fixture *fixtures.Options
	// SLOs are run-level thresholds ("ttft_p95_ms <= 500"), checked after
	// the run as subtests slo/<threshold>, added to the workload's
	// defaults.slo.
	SLOs []string
	// ConcurrencyLevels are the levels BenchWorkload sweeps (default:
	// Concurrency).
	ConcurrencyLevels []int
	// Goodput, when set, makes benchmarks report goodput-req/s.
	Goodput *stats.RequestSLO
	// Percentiles are extra percentiles computed for thresholds.
	Percentiles []float64
}

// Option changes a Config.
type Option func(*Config)

// WithURL targets a running server instead of the fixture.
func WithURL(url string) Option { return func(c *Config) { c.URL = url } }

// WithModel sets the model id instead of auto-detecting it.
func WithModel(model string) Option { return func(c *Config) { c.Model = model } }

// WithAPIKey sends key as a Bearer token.
func WithAPIKey(key string) Option { return func(c *Config) { c.APIKey = key } }

// WithRepetitions runs every case n times; subtests are named case/rep=N.
func WithRepetitions(n int) Option { return func(c *Config) { c.Repetitions = n } }

// WithTags keeps only cases having any of tags.
func WithTags(tags ...string) Option { return func(c *Config) { c.Tags = tags } }

// WithCachePolicy overrides the workload's cache policy: "preserve",
// "before-run" or "before-case".
func WithCachePolicy(p string) Option { return func(c *Config) { c.CachePolicy = p } }

// WithOutput writes the results payload to path after the run.
func WithOutput(path string) Option { return func(c *Config) { c.Output = path } }

// WithReport writes a self-contained HTML report to path after the run.
func WithReport(path string) Option { return func(c *Config) { c.Report = path } }

// WithConcurrency runs up to n cases at once (closed loop).
func WithConcurrency(n int) Option { return func(c *Config) { c.Concurrency = n } }

// WithRequestTimeout sets the per-request transport timeout.
func WithRequestTimeout(d time.Duration) Option { return func(c *Config) { c.RequestTimeout = d } }

// WithoutScrape disables the /metrics scrapes around each case.
func WithoutScrape() Option { return func(c *Config) { c.NoScrape = true } }

// WithContent keeps each response's whole content in the payload.
func WithContent() Option { return func(c *Config) { c.IncludeContent = true } }

// WithConfig replaces the whole configuration (environment defaults still
// fill the fields left zero).
func WithConfig(cfg Config) Option { return func(c *Config) { *c = cfg } }

// resolve builds the effective configuration: environment first, then the
// options on top; it reports malformed numeric environment values.
func resolve(opts []Option) (Config, error) {
	var env Config
	env.URL = os.Getenv(EnvURL)
	env.Model = os.Getenv(EnvModel)
	env.APIKey = os.Getenv(EnvAPIKey)
	env.CachePolicy = os.Getenv(EnvCachePolicy)
	env.Output = os.Getenv(EnvOutput)
	env.Report = os.Getenv(EnvReport)
	if v := os.Getenv(EnvTags); v != "" {
		for _, t := range strings.Split(v, ",") {
			if t = strings.TrimSpace(t); t != "" {
				env.Tags = append(env.Tags, t)
			}
		}
	}
	var err error
	if env.Repetitions, err = envInt(EnvRepetitions); err != nil {
		return Config{}, err
	}
	if env.Concurrency, err = envInt(EnvConcurrency); err != nil {
		return Config{}, err
	}
	cfg := env
	for _, o := range opts {
		o(&cfg)
	}
	// WithConfig may have zeroed fields the environment sets.
	fill(&cfg.URL, env.URL)
	fill(&cfg.Model, env.Model)
	fill(&cfg.APIKey, env.APIKey)
	fill(&cfg.CachePolicy, env.CachePolicy)
	fill(&cfg.Output, env.Output)
	fill(&cfg.Report, env.Report)
	if cfg.Tags == nil {
		cfg.Tags = env.Tags
	}
	if cfg.Repetitions == 0 {
		cfg.Repetitions = max(env.Repetitions, 1)
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = max(env.Concurrency, 1)
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 300 * time.Second
	}
	if cfg.RequestTimeout < 0 {
		cfg.RequestTimeout = 0
	}
	return cfg, nil
}

func fill(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
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

type envError struct{ name, value string }

func (e *envError) Error() string {
	return "benchtest: $" + e.name + "=" + strconv.Quote(e.value) + ": want a positive integer"
}
