package metrics

import (
	"github.com/benchserve/benchserve/internal/py"
	"github.com/prometheus/client_golang/prometheus"
)

// Label values enumerated by the reference: every one is exported on each
// scrape, 1 for the current value and 0 for the others.
var (
	engineTypes = []string{"simple", "batched", "unknown"}
	cacheTypes  = []string{"none", "prefix_cache", "memory_aware_cache", "paged_cache"}
	// cacheTypePriority is the order in which engine stats keys are looked
	// up; the first present wins.
	cacheTypePriority = []string{"memory_aware_cache", "paged_cache", "prefix_cache"}
	memoryKinds       = []struct{ kind, key string }{
		{"active", "metal_active_memory_gb"},
		{"peak", "metal_peak_memory_gb"},
		{"cache", "metal_cache_memory_gb"},
	}
)

func gaugeDesc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

// Descriptors of the engine gauges, with the reference's names and help.
var (
	descModelLoaded       = gaugeDesc("vllm_mlx_model_loaded", "Whether a generation model is currently loaded.")
	descEngineType        = gaugeDesc("vllm_mlx_engine_type", "Current engine mode.", "engine_type")
	descEngineIsMLLM      = gaugeDesc("vllm_mlx_engine_is_mllm", "Whether the loaded engine is multimodal.")
	descSchedWaiting      = gaugeDesc("vllm_mlx_scheduler_waiting_requests", "Requests currently waiting in the scheduler.")
	descSchedRunning      = gaugeDesc("vllm_mlx_scheduler_running_requests", "Requests currently running in the scheduler.")
	descStepsExecuted     = gaugeDesc("vllm_mlx_engine_steps_executed", "Scheduler/engine steps executed since startup.")
	descUptime            = gaugeDesc("vllm_mlx_engine_uptime_seconds", "Engine uptime in seconds.")
	descMetalMemory       = gaugeDesc("vllm_mlx_metal_memory_bytes", "Metal memory usage in bytes.", "kind")
	descCacheType         = gaugeDesc("vllm_mlx_cache_type", "Current active cache backend.", "cache_type")
	descCacheEntries      = gaugeDesc("vllm_mlx_cache_entry_count", "Cache entries or allocated blocks, depending on cache type.")
	descCacheHits         = gaugeDesc("vllm_mlx_cache_hits", "Cache hits since startup/reset.")
	descCacheMisses       = gaugeDesc("vllm_mlx_cache_misses", "Cache misses since startup/reset.")
	descCacheEvictions    = gaugeDesc("vllm_mlx_cache_evictions", "Cache evictions since startup/reset.")
	descCacheHitRate      = gaugeDesc("vllm_mlx_cache_hit_rate", "Cache hit rate.")
	descCacheUtilization  = gaugeDesc("vllm_mlx_cache_utilization_ratio", "Cache utilization ratio.")
	descCacheMemory       = gaugeDesc("vllm_mlx_cache_memory_bytes", "Cache memory usage in bytes.")
	descCacheMemoryLimit  = gaugeDesc("vllm_mlx_cache_memory_limit_bytes", "Cache memory limit in bytes when available.")
	descCacheTokensSaved  = gaugeDesc("vllm_mlx_cache_tokens_saved", "Prompt tokens saved by cache reuse since startup/reset.")
	descRegistryEntries   = gaugeDesc("vllm_mlx_model_registry_entries", "Tracked model ownership entries.")
	descRegistryOwners    = gaugeDesc("vllm_mlx_model_registry_active_owners", "Active model owners in the registry.")
	descMCPConnected      = gaugeDesc("vllm_mlx_mcp_connected_servers", "Connected MCP servers.")
	descMCPTotal          = gaugeDesc("vllm_mlx_mcp_total_servers", "Configured MCP servers.")
	descMCPToolsAvailable = gaugeDesc("vllm_mlx_mcp_tools_available", "Available MCP tools.")

	engineDescs = []*prometheus.Desc{
		descModelLoaded, descEngineType, descEngineIsMLLM, descSchedWaiting, descSchedRunning,
		descStepsExecuted, descUptime, descMetalMemory, descCacheType, descCacheEntries,
		descCacheHits, descCacheMisses, descCacheEvictions, descCacheHitRate, descCacheUtilization,
		descCacheMemory, descCacheMemoryLimit, descCacheTokensSaved, descRegistryEntries,
		descRegistryOwners, descMCPConnected, descMCPTotal, descMCPToolsAvailable,
	}
)

// engineCollector is a prometheus.Collector computing the engine gauges
// from a StatsProvider on every Collect (reference: _update_engine_gauges).
type engineCollector struct {
	engine   StatsProvider
	mcp      MCPStatus
	registry RegistryStats
}

// NewEngineCollector returns a prometheus.Collector that, on every Collect,
// reads engine.Stats(), mcp and registry and emits the reference's engine
// gauges (vllm_mlx_model_loaded, _engine_type, _engine_is_mllm, scheduler,
// steps, uptime, _metal_memory_bytes{kind}, the cache gauges, the model
// registry and MCP gauges) as constant metrics. Any argument may be nil; a
// nil engine reads as "no model loaded". Register it on your own registry
// when you do not use Collector.Gatherer. It holds no state and is safe for
// concurrent use when the providers are.
func NewEngineCollector(engine StatsProvider, mcp MCPStatus, registry RegistryStats) prometheus.Collector {
	return &engineCollector{engine: engine, mcp: mcp, registry: registry}
}

// Describe implements prometheus.Collector.
func (e *engineCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range engineDescs {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (e *engineCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range EngineSamples(e.engine, e.mcp, e.registry) {
		ch <- prometheus.MustNewConstMetric(s.desc, prometheus.GaugeValue, s.Value, s.labelValues()...)
	}
}

// Sample is one engine gauge value computed from stats: the metric Name,
// an optional single Label (name and value, empty when unlabelled) and the
// Value.
type Sample struct {
	Name       string
	LabelName  string
	LabelValue string
	Value      float64
	desc       *prometheus.Desc
}

func (s Sample) labelValues() []string {
	if s.LabelName == "" {
		return nil
	}
	return []string{s.LabelValue}
}

func sample(d *prometheus.Desc, name string, v float64) Sample {
	return Sample{Name: name, Value: v, desc: d}
}

func labelled(d *prometheus.Desc, name, label, value string, v float64) Sample {
	return Sample{Name: name, LabelName: label, LabelValue: value, Value: v, desc: d}
}

func oneIf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// EngineSamples computes the engine gauges exactly as the reference's
// _update_engine_gauges does, in its order, without touching any registry.
// It is exported for tests and for callers exposing the values elsewhere.
//
// Fallbacks (reference semantics, by key presence like dict.get):
//   - engine_type: "unknown" when engine is nil or the key is absent; a value
//     other than "simple"/"batched"/"unknown" sets all three to 0.
//   - cache type: the first of memory_aware_cache, paged_cache, prefix_cache
//     present in stats; "none" otherwise. Cache gauges are read only when
//     its value is a map, else all 0.
//   - entry_count else allocated_blocks; hits else cache_hits; misses else
//     cache_misses; hit_rate else cache_hit_rate; memory_utilization else
//     utilization; current_memory_mb and max_memory_mb × 1024 × 1024 bytes;
//     metal_*_memory_gb × 1e9 bytes.
func EngineSamples(engine StatsProvider, mcp MCPStatus, registry RegistryStats) []Sample {
	var stats map[string]any
	if engine != nil {
		stats = engine.Stats()
	}
	out := make([]Sample, 0, 30)
	add := func(s Sample) { out = append(out, s) }

	add(sample(descModelLoaded, "vllm_mlx_model_loaded", oneIf(engine != nil)))
	// A present but non-string engine_type (even nil) matches nothing, as
	// in the reference where stats.get returns the stored value.
	current, currentOK := "unknown", true
	if engine != nil {
		if v, ok := stats["engine_type"]; ok {
			current, currentOK = v.(string)
		}
	}
	for _, et := range engineTypes {
		add(labelled(descEngineType, "vllm_mlx_engine_type", "engine_type", et, oneIf(currentOK && current == et)))
	}
	add(sample(descEngineIsMLLM, "vllm_mlx_engine_is_mllm", oneIf(py.Truthy(stats["is_mllm"]))))
	add(sample(descSchedWaiting, "vllm_mlx_scheduler_waiting_requests", float64(coerceInt(stats["num_waiting"], 0))))
	add(sample(descSchedRunning, "vllm_mlx_scheduler_running_requests", float64(coerceInt(stats["num_running"], 0))))
	add(sample(descStepsExecuted, "vllm_mlx_engine_steps_executed", float64(coerceInt(stats["steps_executed"], 0))))
	add(sample(descUptime, "vllm_mlx_engine_uptime_seconds", coerceFloat(stats["uptime_seconds"], 0)))
	for _, mk := range memoryKinds {
		add(labelled(descMetalMemory, "vllm_mlx_metal_memory_bytes", "kind", mk.kind, coerceFloat(stats[mk.key], 0)*1e9))
	}

	cacheType := "none"
	var cacheStats any
	for _, cand := range cacheTypePriority {
		if v, ok := stats[cand]; ok {
			cacheType, cacheStats = cand, v
			break
		}
	}
	for _, ct := range cacheTypes {
		add(labelled(descCacheType, "vllm_mlx_cache_type", "cache_type", ct, oneIf(ct == cacheType)))
	}
	cs, isMap := asMap(cacheStats)
	get := func(key string, fallback any) any {
		if v, ok := cs[key]; ok {
			return v
		}
		return fallback
	}
	const mb = 1024 * 1024
	var entries, hits, misses, evictions, hitRate, util, saved, mem, limit float64
	if isMap {
		entries = coerceFloat(get("entry_count", get("allocated_blocks", 0)), 0)
		hits = coerceFloat(get("hits", get("cache_hits", 0)), 0)
		misses = coerceFloat(get("misses", get("cache_misses", 0)), 0)
		evictions = coerceFloat(get("evictions", 0), 0)
		hitRate = coerceFloat(get("hit_rate", get("cache_hit_rate", 0.0)), 0)
		util = coerceFloat(get("memory_utilization", get("utilization", 0.0)), 0)
		saved = coerceFloat(get("tokens_saved", 0), 0)
		mem = coerceFloat(get("current_memory_mb", 0.0), 0) * mb
		limit = coerceFloat(get("max_memory_mb", 0.0), 0) * mb
	}
	add(sample(descCacheEntries, "vllm_mlx_cache_entry_count", entries))
	add(sample(descCacheHits, "vllm_mlx_cache_hits", hits))
	add(sample(descCacheMisses, "vllm_mlx_cache_misses", misses))
	add(sample(descCacheEvictions, "vllm_mlx_cache_evictions", evictions))
	add(sample(descCacheHitRate, "vllm_mlx_cache_hit_rate", hitRate))
	add(sample(descCacheUtilization, "vllm_mlx_cache_utilization_ratio", util))
	add(sample(descCacheTokensSaved, "vllm_mlx_cache_tokens_saved", saved))
	add(sample(descCacheMemory, "vllm_mlx_cache_memory_bytes", mem))
	add(sample(descCacheMemoryLimit, "vllm_mlx_cache_memory_limit_bytes", limit))

	rs := safeRegistryStats(registry)
	add(sample(descRegistryEntries, "vllm_mlx_model_registry_entries", float64(coerceInt(rs["total_entries"], 0))))
	add(sample(descRegistryOwners, "vllm_mlx_model_registry_active_owners", float64(coerceInt(rs["active_owners"], 0))))

	connected, total, tools := safeMCP(mcp)
	add(sample(descMCPConnected, "vllm_mlx_mcp_connected_servers", float64(connected)))
	add(sample(descMCPTotal, "vllm_mlx_mcp_total_servers", float64(total)))
	add(sample(descMCPToolsAvailable, "vllm_mlx_mcp_tools_available", float64(tools)))
	return out
}

// safeRegistryStats mirrors the reference's try/except around
// get_registry().get_stats(): a nil registry or a panic yields no stats.
func safeRegistryStats(r RegistryStats) (stats map[string]any) {
	if r == nil {
		return nil
	}
	defer func() {
		if recover() != nil {
			stats = nil
		}
	}()
	return r.RegistryStats()
}

// safeMCP mirrors the reference's try/except around the MCP manager: a nil
// manager or a panic yields zeros.
func safeMCP(m MCPStatus) (connected, total, tools int) {
	if m == nil {
		return 0, 0, 0
	}
	defer func() {
		if recover() != nil {
			connected, total, tools = 0, 0, 0
		}
	}()
	states := m.ServerStates()
	for _, s := range states {
		if s == "connected" {
			connected++
		}
	}
	return connected, len(states), m.ToolCount()
}
