// Package metrics is a Prometheus-first server metrics collector, a Go port
// of vllm-mlx's metrics module (MetricsCollector / InferenceTracker) on
// prometheus/client_golang. Every metric, label, help text and histogram
// bucket of the reference is kept, with the same vllm_mlx_ names, so
// existing dashboards keep working.
//
// A Collector is disabled by default and free while disabled. Enable it with
// Configure(true); it then owns a private prometheus.Registry (never the
// default one). Inference requests are tracked with TrackInference, HTTP
// requests with Middleware (or ObserveHTTPStart/ObserveHTTPFinish), and the
// exposition is served by Handler or produced by Render. Engine, cache,
// model-registry and MCP gauges are computed at scrape time from small
// interfaces (StatsProvider, MCPStatus, RegistryStats) instead of the
// reference's duck typing; stats values are coerced leniently like the
// reference's _coerce_float/_coerce_int (see coerceFloat and coerceInt).
//
// Differences from the reference, all deliberate:
//   - Families are rendered sorted by name (client_golang's order) rather
//     than in registration order.
//   - No "_created" series are exposed (prometheus_client adds them to
//     counters and histograms by default; client_golang does not).
//   - Values print as client_golang writes them ("1"), where
//     prometheus_client writes "1.0"; parsers read both the same.
//   - promlint reports one problem, inherited from the reference's name
//     vllm_mlx_cache_entry_count: the "_count" suffix is reserved for
//     histograms and summaries. The name is kept so dashboards keep working;
//     everything else is lint clean.
//   - Middleware labels non-standard HTTP methods "other" to keep label
//     cardinality bounded.
//
// Package-level Default is the counterpart of the reference's module
// singleton; everything works the same with injected instances.
package metrics
