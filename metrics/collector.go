package metrics

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// ErrDisabled is returned by Render (and by the Gatherer's Gather) while the
// collector is disabled. It ports the reference's RuntimeError("metrics_disabled")
// raised by MetricsCollector.render_metrics. Branch on it with errors.Is.
var ErrDisabled = errors.New("metrics: metrics_disabled")

// StatsProvider is an inference engine whose runtime statistics feed the
// engine, scheduler, memory and cache gauges at render time. It replaces the
// reference's duck-typed engine.get_stats().
//
// Stats returns a fresh map on each call; the collector only reads it. Keys
// read (all optional, values coerced leniently, see the package doc):
// engine_type (string: "simple", "batched"), is_mllm (truthy), num_waiting,
// num_running, steps_executed, uptime_seconds, metal_active_memory_gb,
// metal_peak_memory_gb, metal_cache_memory_gb, and one of
// memory_aware_cache / paged_cache / prefix_cache (a map[string]any, first
// present in that order wins). Stats must be safe to call concurrently with
// the engine's own work.
type StatsProvider interface {
	Stats() map[string]any
}

// MCPStatus reports the state of configured MCP servers. It replaces the
// reference's mcp_manager.get_server_status() / get_all_tools().
//
// ServerStates returns one state string per configured server; a server
// counts as connected when its state is exactly "connected". ToolCount is
// the number of tools available across servers. A panic in either method is
// recovered and reported as all-zero MCP gauges, as the reference does for
// exceptions.
type MCPStatus interface {
	ServerStates() []string
	ToolCount() int
}

// RegistryStats reports model-registry statistics: the map's
// "total_entries" and "active_owners" keys feed
// vllm_mlx_model_registry_entries and vllm_mlx_model_registry_active_owners.
// It replaces the reference's get_registry().get_stats(); a nil
// RegistryStats, or one that panics, yields zeros (as the reference's
// except Exception branch does).
type RegistryStats interface {
	RegistryStats() map[string]any
}

// Options configures a Collector made by NewWithOptions. The zero value is
// what New uses.
type Options struct {
	// Now is the clock used for inference and HTTP durations; nil means
	// time.Now. Tests inject a fake clock to make histograms deterministic.
	Now func() time.Time
	// ModelRegistry feeds the model registry gauges; nil means zeros.
	ModelRegistry RegistryStats
	// Routes are extra ServeMux-style path templates (for example
	// "/v1/things/{id}") that Middleware uses to label requests it cannot
	// resolve otherwise; they are added to DefaultRoutes.
	Routes []string
}

// Collector is the Prometheus-backed server metrics collector, a port of the
// reference's MetricsCollector. It is disabled by default and costs nothing
// while disabled: no registry exists, observations return at once without
// allocating, and TrackInference returns a nil (no-op) tracker.
//
// Configure(true) builds the collector's own prometheus.Registry once (the
// default registry is never touched); disabling afterwards keeps the
// registry and its values, so re-enabling continues the counters, as the
// reference does.
//
// All methods are safe for concurrent use. A Collector must not be copied.
type Collector struct {
	enabled atomic.Bool
	state   atomic.Pointer[promState]
	initMu  sync.Mutex

	now      func() time.Time
	registry atomic.Pointer[registryHolder]
	router   *router
}

type registryHolder struct{ r RegistryStats }

// promState is what the reference keeps in self._prom: the registry and the
// event-driven metrics. Engine gauges are not stored here; they are produced
// per scrape by an engineCollector.
type promState struct {
	reg *prometheus.Registry

	httpRequests    *prometheus.CounterVec
	httpDuration    *prometheus.HistogramVec
	httpInFlight    *prometheus.GaugeVec
	infRequests     *prometheus.CounterVec
	infDuration     *prometheus.HistogramVec
	infTTFT         *prometheus.HistogramVec
	promptTokens    *prometheus.CounterVec
	completionToken *prometheus.CounterVec
	embedTruncated  *prometheus.CounterVec
}

// Histogram buckets, in seconds, exactly as the reference declares them.
var (
	HTTPDurationBuckets      = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}
	InferenceDurationBuckets = []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}
	TTFTBuckets              = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}
)

// Default is the package-level collector, the counterpart of the
// reference's module attribute `metrics = MetricsCollector()`. Like every
// Collector it starts disabled. Libraries should take a *Collector as a
// parameter rather than using Default, so tests can inject their own.
var Default = New()

// New returns a disabled Collector using the wall clock and no model
// registry. Call Configure(true) to start collecting.
func New() *Collector { return NewWithOptions(Options{}) }

// NewWithOptions returns a disabled Collector configured by opts (see
// Options for defaults).
func NewWithOptions(opts Options) *Collector {
	c := &Collector{now: opts.Now, router: newRouter(opts.Routes)}
	if c.now == nil {
		c.now = time.Now
	}
	if opts.ModelRegistry != nil {
		c.registry.Store(&registryHolder{opts.ModelRegistry})
	}
	return c
}

// Enabled reports whether the collector is recording (reference:
// MetricsCollector.enabled).
func (c *Collector) Enabled() bool { return c != nil && c.enabled.Load() }

// Configure enables or disables collection (reference:
// MetricsCollector.configure). The first enable builds the registry and the
// metric vectors; later calls only flip the switch.
func (c *Collector) Configure(enabled bool) {
	if enabled {
		c.init()
	}
	c.enabled.Store(enabled)
}

// SetModelRegistry replaces the model registry read at render time; nil
// means zeros. Safe to call concurrently with scrapes.
func (c *Collector) SetModelRegistry(r RegistryStats) {
	if r == nil {
		c.registry.Store(nil)
		return
	}
	c.registry.Store(&registryHolder{r})
}

func (c *Collector) modelRegistry() RegistryStats {
	if h := c.registry.Load(); h != nil {
		return h.r
	}
	return nil
}

// init builds the Prometheus state once (reference: _init_prometheus).
func (c *Collector) init() *promState {
	if st := c.state.Load(); st != nil {
		return st
	}
	c.initMu.Lock()
	defer c.initMu.Unlock()
	if st := c.state.Load(); st != nil {
		return st
	}
	st := newPromState()
	c.state.Store(st)
	return st
}

func newPromState() *promState {
	st := &promState{
		reg: prometheus.NewRegistry(),
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vllm_mlx_http_requests_total",
			Help: "HTTP requests handled by the server.",
		}, []string{"method", "path", "status_code"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "vllm_mlx_http_request_duration_seconds",
			Help:    "HTTP request latency in seconds.",
			Buckets: HTTPDurationBuckets,
		}, []string{"method", "path"}),
		httpInFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "vllm_mlx_http_requests_in_flight",
			Help: "HTTP requests currently in flight.",
		}, []string{"method", "path"}),
		infRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vllm_mlx_inference_requests_total",
			Help: "Inference requests completed by endpoint.",
		}, []string{"endpoint", "stream", "result"}),
		infDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "vllm_mlx_inference_request_duration_seconds",
			Help:    "End-to-end inference latency in seconds.",
			Buckets: InferenceDurationBuckets,
		}, []string{"endpoint", "stream"}),
		infTTFT: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "vllm_mlx_inference_ttft_seconds",
			Help:    "Time to first token for streaming endpoints.",
			Buckets: TTFTBuckets,
		}, []string{"endpoint", "stream"}),
		promptTokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vllm_mlx_prompt_tokens_total",
			Help: "Prompt/input tokens processed by endpoint.",
		}, []string{"endpoint", "stream"}),
		completionToken: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vllm_mlx_completion_tokens_total",
			Help: "Generated output tokens produced by endpoint.",
		}, []string{"endpoint", "stream"}),
		embedTruncated: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vllm_mlx_embedding_truncated_total",
			Help: "Embedding inputs silently truncated under the truncate overflow policy.",
		}, []string{"model"}),
	}
	st.reg.MustRegister(st.httpRequests, st.httpDuration, st.httpInFlight,
		st.infRequests, st.infDuration, st.infTTFT, st.promptTokens, st.completionToken,
		st.embedTruncated)
	return st
}

// active returns the Prometheus state when recording, else nil.
func (c *Collector) active() *promState {
	if !c.Enabled() {
		return nil
	}
	return c.state.Load()
}

func boolStr(v bool) string {
	if v {
		return "true"
	}
	return "false"
}

// ObserveHTTPStart increments vllm_mlx_http_requests_in_flight{method,path}
// (reference: observe_http_start). path should be a normalized route
// template (see Middleware) to keep label cardinality bounded. No-op while
// disabled.
func (c *Collector) ObserveHTTPStart(method, path string) {
	if st := c.active(); st != nil {
		st.httpInFlight.WithLabelValues(method, path).Inc()
	}
}

// ObserveHTTPFinish decrements the in-flight gauge, counts
// vllm_mlx_http_requests_total{method,path,status_code} and observes the
// duration (seconds) in vllm_mlx_http_request_duration_seconds{method,path}
// (reference: observe_http_finish). No-op while disabled.
func (c *Collector) ObserveHTTPFinish(method, path string, status int, duration time.Duration) {
	st := c.active()
	if st == nil {
		return
	}
	st.httpFinish(method, path, status, duration.Seconds())
}

func (st *promState) httpFinish(method, path string, status int, seconds float64) {
	st.httpInFlight.WithLabelValues(method, path).Dec()
	st.httpRequests.WithLabelValues(method, path, strconv.Itoa(status)).Inc()
	st.httpDuration.WithLabelValues(method, path).Observe(seconds)
}

// ObserveInference records one terminal inference outcome (reference:
// observe_inference): vllm_mlx_inference_requests_total{endpoint,stream,result}
// +1, the duration (seconds) in vllm_mlx_inference_request_duration_seconds,
// and the token counts in vllm_mlx_prompt_tokens_total /
// vllm_mlx_completion_tokens_total (only when > 0). stream is labelled
// "true"/"false". No-op while disabled. Most callers use an
// InferenceTracker instead.
func (c *Collector) ObserveInference(endpoint string, stream bool, result string, duration time.Duration, promptTokens, completionTokens int) {
	st := c.active()
	if st == nil {
		return
	}
	s := boolStr(stream)
	st.infRequests.WithLabelValues(endpoint, s, result).Inc()
	st.infDuration.WithLabelValues(endpoint, s).Observe(duration.Seconds())
	if promptTokens > 0 {
		st.promptTokens.WithLabelValues(endpoint, s).Add(float64(promptTokens))
	}
	if completionTokens > 0 {
		st.completionToken.WithLabelValues(endpoint, s).Add(float64(completionTokens))
	}
}

// ObserveTTFT observes a time to first token (seconds) in
// vllm_mlx_inference_ttft_seconds{endpoint,stream} (reference:
// observe_ttft). No-op while disabled.
func (c *Collector) ObserveTTFT(endpoint string, stream bool, ttft time.Duration) {
	if st := c.active(); st != nil {
		st.infTTFT.WithLabelValues(endpoint, boolStr(stream)).Observe(ttft.Seconds())
	}
}

// ObserveEmbeddingTruncated counts one embedding input that was silently
// truncated under the "truncate" overflow policy in
// vllm_mlx_embedding_truncated_total{model} (reference:
// observe_embedding_truncated(model=...), added upstream in August 2026).
// No-op while disabled.
func (c *Collector) ObserveEmbeddingTruncated(model string) {
	if st := c.active(); st != nil {
		st.embedTruncated.WithLabelValues(model).Inc()
	}
}

// Gatherer returns a prometheus.Gatherer over the collector's registry plus
// the engine gauges computed from engine, mcp and the model registry at
// each Gather. Gather returns ErrDisabled while the collector is disabled.
// engine and mcp may be nil (no model loaded / no MCP manager): the gauges
// then read as the reference's defaults (model_loaded 0, engine_type
// "unknown", cache_type "none", zeros).
//
// Design: engine gauges are not stored and "set" before rendering as the
// reference does; a custom prometheus.Collector (see NewEngineCollector)
// reads the StatsProvider inside Collect, so concurrent scrapes of
// different engines never race on shared gauge values, and a scrape always
// reflects the stats at that moment.
func (c *Collector) Gatherer(engine StatsProvider, mcp MCPStatus) prometheus.Gatherer {
	ereg := prometheus.NewRegistry()
	ereg.MustRegister(NewEngineCollector(engine, mcp, registryFunc(c.modelRegistry)))
	return prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		st := c.active()
		if st == nil {
			return nil, ErrDisabled
		}
		return prometheus.Gatherers{st.reg, ereg}.Gather()
	})
}

// registryFunc adapts a getter so SetModelRegistry changes are seen by
// existing Gatherers and Handlers.
type registryFunc func() RegistryStats

func (f registryFunc) RegistryStats() map[string]any {
	if r := f(); r != nil {
		return r.RegistryStats()
	}
	return nil
}

// ContentType is the content type Render returns: the Prometheus text
// exposition format 0.0.4 (the reference's CONTENT_TYPE_LATEST).
const ContentType = string(expfmt.FmtText)

// Render refreshes the engine gauges from engine and mcp (either may be
// nil) and returns the whole exposition in the Prometheus text format with
// its content type, ContentType (reference: render_metrics). Families are
// sorted by name. It returns ErrDisabled while the collector is disabled,
// and a wrapped gather error if a collector misbehaves.
func (c *Collector) Render(engine StatsProvider, mcp MCPStatus) ([]byte, string, error) {
	if !c.Enabled() {
		return nil, "", ErrDisabled
	}
	mfs, err := c.Gatherer(engine, mcp).Gather()
	if err != nil {
		if errors.Is(err, ErrDisabled) {
			return nil, "", ErrDisabled
		}
		return nil, "", fmt.Errorf("metrics: render: %w", err)
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.FmtText)
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			return nil, "", fmt.Errorf("metrics: render: encode %s: %w", mf.GetName(), err)
		}
	}
	return buf.Bytes(), ContentType, nil
}

// Handler serves the exposition for engine and mcp (either may be nil) at
// whatever path it is mounted on, typically GET /metrics. It uses
// promhttp.HandlerFor over Gatherer, so it negotiates the format (text by
// default, OpenMetrics or protobuf when asked) and compresses when the
// client accepts gzip. While the collector is disabled it answers 404 Not
// Found (as the reference's server does when metrics are off) with the body
// "metrics disabled\n". The collector may be enabled or disabled after the
// handler is made.
func (c *Collector) Handler(engine StatsProvider, mcp MCPStatus) http.Handler {
	h := promhttp.HandlerFor(c.Gatherer(engine, mcp), promhttp.HandlerOpts{
		ErrorHandling: promhttp.HTTPErrorOnError,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !c.Enabled() {
			http.Error(w, "metrics disabled", http.StatusNotFound)
			return
		}
		h.ServeHTTP(w, r)
	})
}
